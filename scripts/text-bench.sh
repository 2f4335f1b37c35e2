#!/usr/bin/env bash
# Measures /results/semantic_scenes/v1/text-embedding of a release kino-server with the models it
# finds (`kino models fetch`): 16 connections (wrk, 2 threads) for DURATION (15 s), each request a
# different phrase (the service keeps the last 4,096 queries' vectors, so only a phrase never sent
# before is a model call), then the same with 1 connection, then 16 connections over 400 phrases
# (repeated queries, answered from that cache). Prints requests/s and latency percentiles, the encoder's version_id, and the machine.
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
-- Phrases are numbered: 20 subjects x 20 settings x 20 moods x 20 styles = 160,000 distinct ones.
-- A run sends phrases OFFSET, OFFSET+1, ... (PHRASES of them, then again from OFFSET); each wrk
-- thread takes every THREADS-th, so no two requests of a run share a phrase until it wraps.
local subjects = {"a car chase", "two friends laughing", "a quiet dinner", "an explosion", "a sword fight",
  "a wedding", "a funeral", "a rainy street", "a dog running", "a spaceship", "a kiss", "a robbery",
  "children playing", "a storm at sea", "a horse race", "a courtroom", "a ghost", "a dance", "a fire", "a chase on foot"}
local settings = {"at night", "in the snow", "in a small town", "in the desert", "on a train", "in a forest",
  "in a city", "at dawn", "underwater", "in a castle", "on a rooftop", "in a kitchen", "at a party",
  "in the rain", "on a bridge", "in space", "at the beach", "in a hospital", "in a school", "in a barn"}
local moods = {"", "full of joy", "in sorrow", "with dread", "with tension", "in silence", "with music",
  "in slow motion", "with laughter", "in anger", "with tenderness", "in panic", "with suspense", "in awe",
  "with regret", "in triumph", "with fear", "in wonder", "in confusion", "with hope"}
local styles = {"", "in black and white", "shot handheld", "in close-up", "from above", "in a long take",
  "with subtitles", "in soft focus", "in the nineteen seventies", "as a cartoon", "seen through a window",
  "in a mirror", "at a distance", "in candlelight", "under neon lights", "in fog", "on film", "on a phone",
  "in a dream", "in a flashback"}
local offset = tonumber(os.getenv("OFFSET") or "0")
local phrases = tonumber(os.getenv("PHRASES") or "160000")
local step = tonumber(os.getenv("THREADS") or "1")
local started = 0
setup = function(thread)
  thread:set("id", started)
  started = started + 1
end
local k = nil
request = function()
  if k == nil then k = id or 0 else k = k + step end
  local n = offset + (k % phrases)
  local q = subjects[(n % 20) + 1] .. " " .. settings[(math.floor(n / 20) % 20) + 1] .. " "
    .. moods[(math.floor(n / 400) % 20) + 1] .. " " .. styles[(math.floor(n / 8000) % 20) + 1]
  return wrk.format("GET", "/results/semantic_scenes/v1/text-embedding?key=" .. KEY .. "&q=" .. q:gsub(" ", "%%20"))
end
LUA
sed -i "1i KEY = \"$key\"" "$dir/queries.lua"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
curl -sf "$base/results/semantic_scenes/v1/text-embedding?key=$key&q=warmup" \
    | python3 -c 'import json, sys; d = json.load(sys.stdin); print("encoder:", d["version_id"], len(d["embedding"]), "floats")'
# Each run has its own 50,000 phrases (more than a run sends), the last only 400 (so it repeats).
for run in "16 0 50000" "1 50000 50000" "16 100000 400"; do
    set -- $run
    c=$1 offset=$2 phrases=$3 threads=$(( $1 < 2 ? 1 : 2 ))
    if [ "$phrases" = 400 ]; then what="400 phrases, repeated (cache)"; else what="distinct queries"; fi
    echo "== text-embedding, $c connection(s), $what"
    OFFSET=$offset PHRASES=$phrases THREADS=$threads wrk -t"$threads" -c"$c" -d"$duration" --latency -s "$dir/queries.lua" "$base" \
        | grep -E "Requests/sec|Latency |50%|90%|99%|Non-2xx"
done
