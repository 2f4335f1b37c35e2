#!/usr/bin/env bash
# Builds the Python package `kino` into <repo>/.venv and runs its tests (python/tests).
#
# Needs only Rust (cargo) and Python >= 3.9 with venv (on Debian: apt-get install python3-venv);
# the package registries must be reachable the first time. Set PYTHON to choose the interpreter.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

python="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if [ ! -x .venv/bin/python ]; then
    echo "creating .venv with $python"
    if ! "$python" -m venv .venv; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "installing python3-venv with apt-get"
            rm -rf .venv
            apt-get update -qq && apt-get install -y -qq python3-venv
            "$python" -m venv .venv
        else
            echo "error: '$python -m venv' failed; on Debian/Ubuntu install python3-venv" >&2
            exit 1
        fi
    fi
fi
# shellcheck disable=SC1091
source .venv/bin/activate

python -m pip install --quiet --upgrade pip
python -m pip install --quiet "maturin>=1.9.4,<2" numpy pytest matplotlib mypy

# Release build: the tests and the example run real workloads. The extension lands in the
# workspace target/ directory shared with cargo, so unchanged crates are not rebuilt.
maturin develop --release -m python/Cargo.toml

python -m pytest python/tests "$@"
