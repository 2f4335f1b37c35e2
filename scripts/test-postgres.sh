#!/usr/bin/env bash
# Runs kino-server's integration tests (server/tests/server) a second time, on PostgreSQL: a
# throwaway cluster (scripts/with-postgres.sh) where each test gets a database of its own
# (tests/server/support.rs). Arguments are passed to the test binary (a filter such as
# `replicas::`); PG_LOG=FILE keeps the server's log.
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/with-postgres.sh bash -c 'KINO_TEST_POSTGRES="$KINO_POSTGRES_SERVER" cargo test -q -p kino-server --test server -- "$@"' test-postgres "$@"
