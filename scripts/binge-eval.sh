#!/usr/bin/env bash
# Binge markers on real footage (issue 36): cuts a 4-episode season, a standalone film and the film
# without its credits from Big Buck Bunny (scripts/fetch-eval-footage.sh; the cut and its ground truth are
# data/eval/binge-season.json), starts kino-server on them as a new user would (its own data
# directory, the media root at the cut files, no demo), ingests a series, its season, the episodes
# and the films with `asset_info.file_uri`, requests the `markers` tasks, waits for them and prints,
# per marker (intro start and end, recap start and end, credits start and end, post-credits scene
# start and end), each item's predicted
# value against the truth, the median and worst absolute error, the share within 1 s (intro,
# recap) or 3 s (credits), and the false markers. Also the markers jobs' own compute time.
#
#   scripts/binge-eval.sh                                   # KINO_SERVER=path/to/kino-server to choose the binary
#
# KINO_SERVER defaults to ${CARGO_TARGET_DIR:-~/.cache/kino/target}/release/kino-server
# (`cargo build --release -p kino-server`). The service uses the models it finds
# (`kino models fetch`, or KINO_MODELS); without the on-screen text model (ppocr) the credits
# are found in the picture (the image classifier) or from the end the season shares. KINO_EVAL_DEADLINE (seconds,
# default 3600) bounds the wait. KINO_EVAL_ARGS adds arguments to kino-server, e.g. to measure
# without the on-screen text model:
#   KINO_MODELS=dir-without-ppocr KINO_EVAL_ARGS="--fetch-models never" scripts/binge-eval.sh
# Needs ffmpeg, ffprobe, python3 with pip, curl. Writes only under a temporary directory (removed at the end; KEEP=1 keeps it) and
# ~/.cache/kino/eval (the footage and the cut season, reused while data/eval/binge-season.json,
# the cutting code of scripts/binge_eval.py and ffmpeg's version stay the same; a new cut removes the earlier ones).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "binge-eval: error: $*" >&2; exit 1; }
for tool in ffmpeg ffprobe python3 curl sha256sum; do
    command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install ffmpeg python3 python3-pip curl)"
done
SERVER="${KINO_SERVER:-${CARGO_TARGET_DIR:-$HOME/.cache/kino/target}/release/kino-server}"
[ -x "$SERVER" ] || fail "no kino-server at $SERVER (cargo build --release -p kino-server, or set KINO_SERVER)"
SEASON=data/eval/binge-season.json
DEADLINE="${KINO_EVAL_DEADLINE:-3600}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/kino/eval"

footage="$(scripts/fetch-eval-footage.sh | tail -n 1)"

work="$(mktemp -d -t kino-binge-eval.XXXXXX)"
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    if [ "${KEEP:-0}" = 1 ]; then echo "binge-eval: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The cut season, made once per season definition, cutting code and ffmpeg (a few CPU-minutes on 2 cores).
stamp="$(python3 scripts/binge_eval.py stamp "$SEASON")"
cuts="$CACHE/season-$stamp"
if ! [ -f "$cuts/truth.json" ]; then
    echo "binge-eval: cutting the season into $cuts" >&2
    rm -rf "$cuts.tmp"
    nice -n 10 python3 scripts/binge_eval.py cut "$SEASON" "$footage" "$cuts.tmp"
    rm -rf "$cuts"
    mv "$cuts.tmp" "$cuts"
    # Earlier cuts (another season definition, cutting code or ffmpeg) are not used again.
    find "$CACHE" -maxdepth 1 -name 'season-*' ! -name "season-$stamp" -exec rm -rf {} +
fi
mkdir -p "$work/media" "$work/data"
cp "$cuts"/*.mp4 "$cuts/truth.json" "$work/media/"

# A fresh service: its own organisation and key, the media root at the cut files, an ephemeral port.
"$SERVER" --data-dir "$work/data" --demo false admin create-org eval >/dev/null 2>"$work/admin.log" ||
    { cat "$work/admin.log" >&2; fail "$SERVER admin create-org failed"; }
key="$("$SERVER" --data-dir "$work/data" --demo false admin create-key eval 2>>"$work/admin.log")"
# shellcheck disable=SC2086 # KINO_EVAL_ARGS is split into arguments on purpose
RUST_LOG="${RUST_LOG:-info,kino_server::jobs::worker=debug,kino_server::worker=debug}" "$SERVER" --data-dir "$work/data" \
    --media-root "$work/media" --demo false --bind 127.0.0.1:0 --log-format json ${KINO_EVAL_ARGS:-} \
    >"$work/out.log" 2>"$work/err.log" &
pid=$!
base=""
for _ in $(seq 600); do
    base="$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$work/out.log" 2>/dev/null | head -n 1 || true)"
    [ -n "$base" ] && break
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$work/err.log" >&2; fail "kino-server exited at start"; }
    sleep 0.1
done
[ -n "$base" ] || fail "kino-server did not say where it listens within 60 s"
curl -sf "$base/health" >/dev/null || fail "$base/health does not answer"
loaded="$(python3 -c '
import json, sys
names = []
for line in open(sys.argv[1]):
    try: f = json.loads(line).get("fields", {})
    except ValueError: continue
    if f.get("message") == "model loaded": names.append(f.get("model", "?"))
print(", ".join(names) or "none")' "$work/err.log")"
echo "service: $("$SERVER" --version) at $base; models loaded: $loaded"
case "$loaded" in *ppocr*) ;; *) echo "binge-eval: warning: the on-screen text model (ppocr) is not loaded: credits only from the picture and the end the season shares (kino models fetch)" >&2 ;; esac
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/^Mem:/ {print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg)"

python3 scripts/binge_eval.py measure "$SEASON" "$work/media" "$base" "$key" "$work/err.log" --deadline "$DEADLINE"
