#!/usr/bin/env bash
# The affect evaluation (issue 45): analyses every title of data/eval/affect.json with `kino
# analyze` and scores the emotion track and the best moments against the judgements made by eye
# (scripts/affect_eval.py): agreement on valence and arousal pairs and on preview-worthy spans,
# on the tuned half and on the held-out half.
#
#   scripts/affect-eval.sh                  # score the build, the held-out floor enforced
#   KINO_OLD_BIN=/path/to/kino scripts/affect-eval.sh   # also score another build beside it
#
# The binary is $KINO_BIN, else `cargo build --release -p kino-cli`. Footage: the film from
# scripts/fetch-eval-footage.sh, the dialogue video from scripts/fetch-test-media.sh, and a silent
# cut of the film built here with ffmpeg. Documents stay in ${KINO_AFFECT_OUT:-<cache>/affect}/.
# Extra arguments go to every `kino analyze` (e.g. --relevance activity).
set -euo pipefail
cd "$(dirname "$0")/.."

FLOOR="${KINO_AFFECT_FLOOR:-valence=0.3,arousal=0.8,preview=0.8}"
fail() { echo "affect-eval: error: $*" >&2; exit 2; }

if [ -n "${KINO_BIN:-}" ]; then
    [ -x "$KINO_BIN" ] || fail "KINO_BIN=$KINO_BIN is not an executable"
    KINO="$KINO_BIN"
else
    echo "== cargo build --release -p kino-cli" >&2
    cargo build -q --release -p kino-cli
    KINO="${CARGO_TARGET_DIR:-target}/release/kino"
fi

film="$(scripts/fetch-eval-footage.sh | tail -n 1)"
videos="$(scripts/fetch-test-media.sh | tail -n 1)"
[ -f "$film" ] || fail "fetch-eval-footage.sh gave no film"
[ -f "$videos/dialogue.mp4" ] || fail "fetch-test-media.sh gave no dialogue.mp4"
cache="$(dirname "$film")"
OUT="${KINO_AFFECT_OUT:-$cache/affect}"
mkdir -p "$OUT/footage"

# The silent cut: three pieces of the film, no audio stream at all.
silent="$OUT/footage/bbb-silent.mp4"
if ! [ -f "$silent" ]; then
    ffmpeg -nostdin -loglevel error -y -i "$film" -filter_complex \
        "[0:v]trim=80:110,setpts=PTS-STARTPTS[a];[0:v]trim=415:455,setpts=PTS-STARTPTS[b];[0:v]trim=495:525,setpts=PTS-STARTPTS[c];[a][b][c]concat=n=3:v=1:a=0,scale=640:-2[v]" \
        -map "[v]" -an -c:v libx264 -preset veryfast -crf 23 "$silent.tmp.mp4"
    mv "$silent.tmp.mp4" "$silent"
fi

analyse() { # BINARY DIR
    local bin="$1" dir="$2"
    mkdir -p "$dir"
    for pair in "bbb:$film" "bbb-silent:$silent" "dialogue:$videos/dialogue.mp4"; do
        local title="${pair%%:*}" video="${pair#*:}"
        echo "== $title" >&2
        "$bin" analyze "$video" --id "$title" -o "$dir/$title.json" "${ARGS[@]}" 2>&1 | tail -n 2 >&2
    done
}

ARGS=("$@")
analyse "$KINO" "$OUT/new"
sets=("new=$OUT/new")
if [ -n "${KINO_OLD_BIN:-}" ]; then
    ARGS=()
    analyse "$KINO_OLD_BIN" "$OUT/old"
    sets+=("old=$OUT/old")
fi
python3 scripts/affect_eval.py --floor "$FLOOR" "${sets[@]}"
