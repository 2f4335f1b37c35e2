#!/usr/bin/env bash
# Installs whatever a fresh Debian machine with Rust and Python 3.11 lacks, then runs every test:
# Rust (unit, integration, doc tests) and, when the Python package is present, its pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust tests"
cargo test

if [ -x scripts/test-python.sh ]; then
  echo "== Python tests"
  scripts/test-python.sh
fi

echo "== API fuzzing (schemathesis against /openapi.json; no 5xx allowed)"
scripts/fuzz-api.sh
