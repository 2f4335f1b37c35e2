#!/usr/bin/env bash
# (The coverage phase is skipped: schemathesis 4.x trips over its own AST cache in it here.)
# Fuzzes every endpoint of kino-server with schemathesis (PyPI) from its own /openapi.json: no
# request may produce a 5xx. Uses (and creates when missing) the repository's .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
examples="${MAX_EXAMPLES:-25}"
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/python -m pip install --quiet schemathesis
cargo build -q -p kino-server
dir="$(mktemp -d)"
port="${PORT:-18282}"
./target/debug/kino-server --data-dir "$dir" --bind "127.0.0.1:$port" >"$dir/out.log" 2>"$dir/err.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1)"
[ -n "$key" ] || { echo "the server did not start" >&2; cat "$dir/err.log" >&2; exit 1; }
.venv/bin/schemathesis run "http://127.0.0.1:$port/openapi.json" \
    --checks not_a_server_error \
    --max-examples "$examples" \
    --generation-deterministic \
    --suppress-health-check all \
    -H "X-API-Key: $key" \
    --phases fuzzing,stateful \
    --workers 2
if grep -q "panicked" "$dir/err.log"; then
    echo "the server panicked:" >&2
    grep -A5 panicked "$dir/err.log" >&2
    exit 1
fi
