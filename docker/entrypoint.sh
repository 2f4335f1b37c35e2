#!/usr/bin/env bash
# The container's entry point: waits until the PostgreSQL server of KINO_DATABASE_URL (if any)
# accepts connections, then runs kino-server with the container's arguments.
#
#   kino-entrypoint [kino-server ARGS...]      # e.g. `admin create-key demo`, `--no-models`
#
# KINO_WAIT_SECONDS: how long to wait for the database (default 60); KINO_SERVER_BIN: the binary
# (default kino-server on the PATH; tests point it at a build). Runs as well outside a container.
set -euo pipefail

server="${KINO_SERVER_BIN:-kino-server}"
wait_s="${KINO_WAIT_SECONDS:-60}"
command -v "$server" >/dev/null || { echo "kino-entrypoint: $server not found" >&2; exit 127; }

if [ -n "${KINO_DATABASE_URL:-}" ]; then
    # postgres://user:password@host:port/name?options -> host and port (IPv6 in brackets).
    rest="${KINO_DATABASE_URL#*://}"
    rest="${rest##*@}"
    hostport="${rest%%[/?]*}"
    if [[ "$hostport" == \[*\]* ]]; then
        host="${hostport%%]*}"; host="${host#[}"
        port="${hostport##*]}"; port="${port#:}"
    else
        host="${hostport%%:*}"
        port="${hostport#"$host"}"; port="${port#:}"
    fi
    port="${port:-5432}"
    waited=0
    until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
        if [ "$waited" -ge "$wait_s" ]; then
            echo "kino-entrypoint: the database at $host:$port did not accept connections within ${wait_s}s" >&2
            exit 1
        fi
        [ "$waited" -gt 0 ] || echo "kino-entrypoint: waiting for the database at $host:$port" >&2
        sleep 1
        waited=$((waited + 1))
    done
fi

exec "$server" "$@"
