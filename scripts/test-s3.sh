#!/usr/bin/env bash
# Runs the object-storage tests (server/tests/server/bucket.rs) against a real S3-compatible server:
# moto's standalone server (PyPI `moto[server]`, pinned), which implements the S3 REST API in
# Python and installs from the package registry like the rest of the test tools (MinIO and other
# servers ship as binaries from their own sites, which cannot be fetched here). Starts it on a
# loopback port, creates the bucket, runs the tests with KINO_REQUIRE_S3=1, and stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt-install.sh
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv 2>/dev/null || { rm -rf .venv; apt_install python3-venv; python3 -m venv .venv; }
fi
.venv/bin/python -m pip install --quiet "moto[server]==5.0.28"
port="${S3_PORT:-18383}"
log="$(mktemp)"
.venv/bin/moto_server -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
endpoint="http://127.0.0.1:$port"
# Wait for the server, then create the bucket (moto accepts unsigned requests).
.venv/bin/python - "$endpoint" <<'PY'
import sys, time, urllib.request
endpoint = sys.argv[1]
for _ in range(150):
    try:
        urllib.request.urlopen(endpoint + "/", timeout=2)
        break
    except Exception:
        time.sleep(0.2)
else:
    sys.exit("moto_server did not start")
urllib.request.urlopen(urllib.request.Request(endpoint + "/kino-test", method="PUT"), timeout=10)
print("S3-compatible server (moto) at", endpoint, "with bucket kino-test")
PY
KINO_TEST_S3=s3://kino-test KINO_REQUIRE_S3=1 AWS_ENDPOINT="$endpoint" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1 \
    AWS_ACCESS_KEY_ID=kino-test AWS_SECRET_ACCESS_KEY=kino-test \
    cargo test -q -p kino-server --test server bucket::
