#!/usr/bin/env bash
# Load benchmark of a release build of kino-server with wrk (Debian package; installed when
# missing): previews with defaults on a 2-hour demo title, text-embedding, catalog item get;
# 64 connections, 2 threads, 15 s each. Prints requests/s and latency percentiles.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-15s}"
if ! command -v wrk >/dev/null; then
    apt-get update -qq && apt-get install -y -qq wrk
fi
cargo build --release -q -p kino-server
dir="$(mktemp -d)"
port="${PORT:-18181}"
./target/release/kino-server --data-dir "$dir" --bind "127.0.0.1:$port" --log-format json >"$dir/out.log" 2>"$dir/err.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1)"
base="http://127.0.0.1:$port"
sleep 2   # let the demo catalog finish processing
for target in \
    "previews (defaults, tt-demo-001, 118 min)|$base/results/jitpreviews/v2/tt-demo-001?catalog=demo&key=$key" \
    "text-embedding|$base/results/semantic_scenes/v1/text-embedding?q=car%20chase%20at%20night&key=$key" \
    "catalog item get|$base/catalog/v1/item/standalone/tt-demo-001?key=$key"; do
    name="${target%%|*}"; url="${target#*|}"
    curl -sf "$url" >/dev/null || { echo "request failed: $name" >&2; exit 1; }
    echo "== $name"
    wrk -t2 -c64 -d"$duration" --latency "$url" | grep -E "Requests/sec|Latency |50%|90%|99%|Non-2xx"
done
