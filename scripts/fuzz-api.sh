#!/usr/bin/env bash
# Fuzzes every endpoint of kino-server with schemathesis (PyPI, pinned) from its own /openapi.json
# and checks that it reached the success path of every operation. No request may produce a 5xx or
# an answer whose status, content type or body the document does not publish (CHECKS overrides
# the list), and the server must not panic.
#
# scripts/fuzz_seed.py first creates, through the service's API, what only exists at run time (an
# item with signals, smartlists, recipes, creative assets, webhooks, a delivery, a generation,
# bucket files, a failed task) and gives the document those ids as examples; schemathesis then runs
# the examples, fuzzing and stateful phases (deterministic, MAX_EXAMPLES per operation, default
# 25) twice: the admin API with the admin token, everything else with an API key and a portal
# access token. Last, every request schemathesis made is mapped to its operation, and an operation
# that never got a 2xx fails the run. (The coverage phase is skipped: schemathesis 4.x trips over
# its own AST cache in it here.) Uses (and creates when missing) the repository's .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
examples="${MAX_EXAMPLES:-25}"
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/python -m pip install --quiet "schemathesis==4.32.5"
cargo build -q -p kino-server
dir="$(mktemp -d)"
port="${PORT:-18282}"
base="http://127.0.0.1:$port"
# Webhooks of the seed point at the service itself (loopback), as in development.
"${CARGO_TARGET_DIR:-target}"/debug/kino-server --data-dir "$dir/data" --bind "127.0.0.1:$port" --rate-limit 1000000 \
    --webhook-allow-loopback >"$dir/out.log" 2>"$dir/err.log" &
pid=$!
# On failure the server's errors are printed: a 5xx names only its status, the log names the cause.
trap 'rc=$?; kill $pid 2>/dev/null; wait $pid 2>/dev/null; if [ $rc -ne 0 ]; then grep -E "ERROR|panicked" "$dir/err.log" | tail -20 >&2; fi; rm -rf "$dir"' EXIT
for _ in $(seq 150); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1)"
[ -n "$key" ] || { echo "the server did not start" >&2; cat "$dir/err.log" >&2; exit 1; }
admin="$(cat "$dir/data/admin.token")"
# OAuth client credentials and a bearer token with every portal scope (through the admin API: a
# second process on the database while the demo catalog is processed could make a worker wait).
read -r client_id client_secret token < <(.venv/bin/python - "$base" "$admin" <<'PY'
import json, sys, urllib.request
base, admin = sys.argv[1:]
def post(path, body, headers):
    req = urllib.request.Request(base + path, json.dumps(body).encode(), {"content-type": "application/json", **headers})
    return json.load(urllib.request.urlopen(req))
client = post("/admin/v1/orgs/demo/clients", {}, {"authorization": f"Bearer {admin}"})
token = post("/oauth/token", {"client_id": client["client_id"], "client_secret": client["client_secret"],
                              "grant_type": "client_credentials"}, {})["access_token"]
print(client["client_id"], client["client_secret"], token)
PY
)
[ -n "$token" ] || { echo "no access token for the portal" >&2; exit 1; }
.venv/bin/python scripts/fuzz_seed.py seed "$base" "$dir/data" "$key" "$admin" "$client_id" "$client_secret" \
    "$dir/openapi.json"

fuzz() {
    local har="$1"
    shift
    .venv/bin/schemathesis run "$dir/openapi.json" --url "$base" \
        --checks "${CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance}" \
        --max-examples "$examples" \
        --generation-deterministic \
        --suppress-health-check all \
        --phases examples,fuzzing,stateful \
        --workers 2 \
        --report har --report-har-path "$har" \
        "$@"
}
fuzz "$dir/service.har" --exclude-path-regex '^/(admin|oauth)/' -H "X-API-Key: $key" -H "Authorization: Bearer $token"
fuzz "$dir/admin.har" --include-path-regex '^/admin/' -H "Authorization: Bearer $admin"
# The token endpoint on its own: a bearer header there is another client authentication scheme,
# which it refuses (it takes HTTP Basic or the body's credentials).
fuzz "$dir/oauth.har" --include-path-regex '^/oauth/'
.venv/bin/python scripts/fuzz_seed.py coverage "$dir/openapi.json" "$dir/service.har" "$dir/admin.har" "$dir/oauth.har"
if grep -q "panicked" "$dir/err.log"; then
    echo "the server panicked:" >&2
    grep -A5 panicked "$dir/err.log" >&2
    exit 1
fi
