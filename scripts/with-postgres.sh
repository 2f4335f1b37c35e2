#!/usr/bin/env bash
# Runs kino-server's integration tests (server/tests/server) a second time, on PostgreSQL: a
# throwaway cluster (Debian's `postgresql` package, installed when missing) made with initdb in a
# temporary directory, listening on a loopback port, and stopped and deleted at the end whatever
# happens (so it runs without durability: fsync off). Each test gets a database of its own there (tests/server/support.rs). Arguments are
# passed to the test binary (a filter such as `replicas::`); PG_LOG=FILE keeps the server's log.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt-install.sh

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    apt_install postgresql
    bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
fi

# initdb refuses to run as root: as root, the cluster belongs to the `postgres` user the package
# made; otherwise to the caller.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
dir="$(mktemp -d)"
[ "$(id -u)" != 0 ] || chown postgres "$dir"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
stop() {
    [ -z "${PG_LOG:-}" ] || cp "$dir/log" "$PG_LOG" || true
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT
# The C locale: text sorts by bytes, as in SQLite, so both backends list in one order.
as_owner "$bin/initdb" -D "$dir/data" -U kino --auth=trust --no-locale --encoding=UTF8 >/dev/null
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir, removed at exit)"

export KINO_POSTGRES_SERVER="postgres://kino@127.0.0.1:$port"
"$@"
