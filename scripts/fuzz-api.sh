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
./target/debug/kino-server --data-dir "$dir" --bind "127.0.0.1:$port" --rate-limit 1000000 >"$dir/out.log" 2>"$dir/err.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1)"
[ -n "$key" ] || { echo "the server did not start" >&2; cat "$dir/err.log" >&2; exit 1; }
# A bearer token with every portal scope, so the portal endpoints are fuzzed past authentication.
creds="$(./target/debug/kino-server --data-dir "$dir" admin create-client demo 2>/dev/null)"
client_id="$(echo "$creds" | sed -n 's/^client_id: //p')"
client_secret="$(echo "$creds" | sed -n 's/^client_secret: //p')"
token="$(.venv/bin/python - "$port" "$client_id" "$client_secret" <<'PY'
import json, sys, urllib.request
port, client_id, secret = sys.argv[1:]
body = json.dumps({"client_id": client_id, "client_secret": secret, "grant_type": "client_credentials"}).encode()
req = urllib.request.Request(f"http://127.0.0.1:{port}/oauth/token", body, {"content-type": "application/json"})
print(json.load(urllib.request.urlopen(req))["access_token"])
PY
)"
[ -n "$token" ] || { echo "no access token for the portal" >&2; exit 1; }
.venv/bin/schemathesis run "http://127.0.0.1:$port/openapi.json" \
    --checks not_a_server_error \
    --max-examples "$examples" \
    --generation-deterministic \
    --suppress-health-check all \
    -H "X-API-Key: $key" \
    -H "Authorization: Bearer $token" \
    --phases fuzzing,stateful \
    --workers 2
if grep -q "panicked" "$dir/err.log"; then
    echo "the server panicked:" >&2
    grep -A5 panicked "$dir/err.log" >&2
    exit 1
fi
