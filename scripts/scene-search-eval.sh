#!/usr/bin/env bash
# Scene search on full real videos, per query (issue 48): analyses the videos of
# data/eval/scene-search.json with `kino analyze` (every default model), ranks every scene of them
# for each query as `/search/v1/scenes` ranks a catalog by text (`--example scene_search` of
# kino-media: the description alone, the fused channels, the sweep the fusion's weight was chosen
# on, each channel alone) and scores the rankings against the spans judged by eye
# (scripts/scene_search_eval.py: hit@1, hit@3, recall@10 and MRR per half and channel, beside
# chance). Fails when the fused search's hit@3 on the held-out half is below the floor.
#
#   scripts/scene-search-eval.sh                  # floor KINO_SEARCH_FLOOR (default 0.5)
#   KINO_BIN=target/release/kino KINO_SCENE_SEARCH=target/release/examples/scene_search scripts/scene-search-eval.sh
#
# Media: the film from scripts/fetch-eval-footage.sh, the clips and the dialogue video from
# scripts/fetch-test-media.sh (both sha256-checked, cached in ~/.cache/kino). Documents and the
# rankings stay in ${KINO_SEARCH_OUT:-<film's directory>/scene-search}/.
set -euo pipefail
cd "$(dirname "$0")/.."

FLOOR="${KINO_SEARCH_FLOOR:-0.5}"
target="${CARGO_TARGET_DIR:-target}"
BIN="${KINO_BIN:-$target/debug/kino}"
RANK="${KINO_SCENE_SEARCH:-$target/debug/examples/scene_search}"
fail() { echo "scene-search-eval: error: $*" >&2; exit 2; }
[ -x "$BIN" ] || fail "no kino binary at $BIN (cargo build, or set KINO_BIN)"
[ -x "$RANK" ] || fail "no scene_search example at $RANK (cargo build -p kino-media --example scene_search)"

film="$(scripts/fetch-eval-footage.sh | tail -n 1)"
videos="$(scripts/fetch-test-media.sh | tail -n 1)"
extracted="$(dirname "$videos")/extracted"
OUT="${KINO_SEARCH_OUT:-$(dirname "$film")/scene-search}"
mkdir -p "$OUT"

docs=()
for pair in "bbb:$film" "bikes:$extracted/bikes.mp4" "carphone:$extracted/carphone.mp4" "dialogue:$videos/dialogue.mp4"; do
    name="${pair%%:*}" video="${pair#*:}"
    [ -f "$video" ] || fail "$name: no video at $video"
    echo "== $name" >&2
    "$BIN" analyze "$video" --id "$name" -o "$OUT/$name.json" 2>&1 | tail -n 2 >&2
    docs+=("$name=$OUT/$name.json")
done
"$RANK" data/eval/scene-search.json "$OUT/rankings.json" "${docs[@]}"
python3 scripts/scene_search_eval.py "$OUT/rankings.json" --floor-method fused --floor-metric hit@3 --floor "$FLOOR"
