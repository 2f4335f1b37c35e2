#!/usr/bin/env bash
# Measures /results/semantic_scenes/v1/text-embedding of a release kino-server with the models it
# finds (`kino models fetch`): 16 connections (wrk, 2 threads) for DURATION (15 s), each request a
# different query drawn from 400 phrases (so neither the encoder nor anything else can answer from
# a cache), then the same with 1 connection. Prints requests/s and latency percentiles, the
# encoder's version_id, and the machine.
#
#   scripts/text-bench.sh            # DURATION=30s PORT=18182 to change
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${DURATION:-15s}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
cargo build --release -q -p kino-server
dir="$(mktemp -d)"
port="${PORT:-18182}"
"${CARGO_TARGET_DIR:-target}"/release/kino-server --data-dir "$dir" --bind "127.0.0.1:$port" --rate-limit 100000000 >"$dir/out.log" 2>"$dir/err.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 150); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1)"
[ -n "$key" ] || { echo "the service did not start:" >&2; tail "$dir/err.log" >&2; exit 1; }
base="http://127.0.0.1:$port"
cat >"$dir/queries.lua" <<'LUA'
-- 400 distinct queries: 20 subjects x 20 settings.
local subjects = {"a car chase", "two friends laughing", "a quiet dinner", "an explosion", "a sword fight",
  "a wedding", "a funeral", "a rainy street", "a dog running", "a spaceship", "a kiss", "a robbery",
  "children playing", "a storm at sea", "a horse race", "a courtroom", "a ghost", "a dance", "a fire", "a chase on foot"}
local settings = {"at night", "in the snow", "in a small town", "in the desert", "on a train", "in a forest",
  "in a city", "at dawn", "underwater", "in a castle", "on a rooftop", "in a kitchen", "at a party",
  "in the rain", "on a bridge", "in space", "at the beach", "in a hospital", "in a school", "in a barn"}
local n = 0
request = function()
  n = n + 1
  local q = subjects[(n % 20) + 1] .. " " .. settings[(math.floor(n / 20) % 20) + 1]
  return wrk.format("GET", "/results/semantic_scenes/v1/text-embedding?key=" .. KEY .. "&q=" .. q:gsub(" ", "%%20"))
end
LUA
sed -i "1i KEY = \"$key\"" "$dir/queries.lua"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
curl -sf "$base/results/semantic_scenes/v1/text-embedding?key=$key&q=warmup" \
    | python3 -c 'import json, sys; d = json.load(sys.stdin); print("encoder:", d["version_id"], len(d["embedding"]), "floats")'
for c in 16 1; do
    echo "== text-embedding, $c connection(s), distinct queries"
    wrk -t"$(( c < 2 ? 1 : 2 ))" -c"$c" -d"$duration" --latency -s "$dir/queries.lua" "$base" \
        | grep -E "Requests/sec|Latency |50%|90%|99%|Non-2xx"
done
