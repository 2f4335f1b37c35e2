#!/usr/bin/env bash
# Load benchmark of a release build of kino-server with wrk (Debian package; installed when
# missing): previews with defaults on a 2-hour demo title, text-embedding, catalog item get, and
# the portal (smartlist list and assets with a bearer token; rate limit raised for the run);
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
"${CARGO_TARGET_DIR:-target}"/release/kino-server --data-dir "$dir" --bind "127.0.0.1:$port" --log-format json --rate-limit 100000000 --max-connections-per-peer 512 >"$dir/out.log" 2>"$dir/err.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1)"
base="http://127.0.0.1:$port"
sleep 2   # let the demo catalog finish processing
admin="$(cat "$dir/admin.token")"
creds="$("${CARGO_TARGET_DIR:-target}"/release/kino-server --data-dir "$dir" admin create-client demo 2>/dev/null)"
client_id="$(echo "$creds" | sed -n 's/^client_id: //p')"
client_secret="$(echo "$creds" | sed -n 's/^client_secret: //p')"
token="$(curl -sf "$base/oauth/token" -H 'content-type: application/json' \
    -d "{\"client_id\": \"$client_id\", \"client_secret\": \"$client_secret\", \"grant_type\": \"client_credentials\"}" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"
smartlist="$(curl -sf -X POST "$base/admin/v1/orgs/demo/smartlists" -H "Authorization: Bearer $admin" \
    -d '{"title": "Everything", "catalog": "demo", "creator": "ed@example.com", "filter": {}, "published": true}' \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')"
for target in \
    "portal: smartlist list|$base/smartlists/?limit=20" \
    "portal: smartlist assets|$base/smartlists/$smartlist/assets?limit=20"; do
    name="${target%%|*}"; url="${target#*|}"
    curl -sf -H "Authorization: Bearer $token" "$url" >/dev/null || { echo "request failed: $name" >&2; exit 1; }
    echo "== $name"
    wrk -t2 -c64 -d"$duration" --latency -H "Authorization: Bearer $token" "$url" | grep -E "Requests/sec|Latency |50%|90%|99%|Non-2xx"
done
for target in \
    "previews (defaults, tt-demo-001, 118 min)|$base/results/jitpreviews/v2/tt-demo-001?catalog=demo&key=$key" \
    "text-embedding|$base/results/semantic_scenes/v1/text-embedding?q=car%20chase%20at%20night&key=$key" \
    "catalog item get|$base/catalog/v1/item/standalone/tt-demo-001?key=$key"; do
    name="${target%%|*}"; url="${target#*|}"
    curl -sf "$url" >/dev/null || { echo "request failed: $name" >&2; exit 1; }
    echo "== $name"
    wrk -t2 -c64 -d"$duration" --latency "$url" | grep -E "Requests/sec|Latency |50%|90%|99%|Non-2xx"
done
