#!/usr/bin/env bash
# Runs the command blocks of README.md and then of docs/tour.md (the walkthrough the README's
# "Try it" continues into) in order, as a new user on a fresh clone would, and fails when any
# command fails. Part of scripts/test.sh; run it alone with `scripts/check-readme.sh`.
#
# How:
# - The fenced blocks without a language (or marked sh/bash/shell) are the command blocks; other
#   blocks (```rust, ```json) are not commands and are skipped.
# - The first command block starts the service. It runs in the background, in its own process
#   group, with a temporary data directory (KINO_DATA_DIR) and an ephemeral port (KINO_BIND
#   127.0.0.1:0); the script waits until it prints "listening on", requires the demo API key on
#   its output (first start) and checks that the key works, and stops the whole group at the end,
#   whatever happens. A panic in the service's log fails the check.
# - The `./scripts/test.sh` block is skipped (it is what runs this script).
# - Every other block runs, in page order, in one bash process from the repository root, under
#   `set -euo pipefail`, so variables set by one block (KEY, ADMIN, TOKEN, ...) serve the next, as
#   in a user's terminal. `curl` gets `--fail-with-body` unless the command already handles HTTP
#   errors with -f/--fail, so an HTTP error fails the check; it also gets `--silent` (no progress
#   meter in the log) and, where the README does not ask for -f, `--show-error`. A failure names
#   the file and line. The blocks must finish within README_TIMEOUT seconds (default 1200).
# - Rewritten before running, always: `localhost:8080` to the service's real address,
#   `kino-data/` to the temporary data directory, `/tmp/` to a temporary directory.
#   CARGO_INSTALL_ROOT points `cargo install` into the temporary directory (its bin/ is put first
#   on PATH), so the check installs nothing into ~/.cargo.
# - Fast mode (README_FAST=1, the default, which scripts/test.sh uses) keeps CI short by reusing
#   the debug build the test suite already made instead of compiling everything again with
#   optimisations: `cargo run --release` becomes `cargo run`, `cargo install` gets `--debug`,
#   `cargo bench --bench X` becomes `cargo test --bench X` (criterion's test mode: every benchmark
#   runs once, unmeasured), and `index build --demo 200` builds 20 demo titles. README_FAST=0
#   runs the commands as written but for the rewrites above (release builds, full benchmarks:
#   tens of minutes on two cores).
# - Files the blocks leave in the repository (videos/trailer.mp4, clip.mp4; both git-ignored) are
#   removed afterwards unless they were there before.
#
# `scripts/check-readme.sh --list` prints the blocks as they would run (after the rewrites) and
# runs nothing.
#
# Needs curl, jq and ffmpeg; jq is installed with apt-get when missing (as root), like the other
# tools of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# The pages whose command blocks run, in this order (the first block of the first starts the service).
pages=(README.md docs/tour.md)
fast="${README_FAST:-1}"
limit="${README_TIMEOUT:-1200}"
start_limit="${README_START_TIMEOUT:-900}"

missing=()
for tool in jq curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
. scripts/apt-install.sh
[ "${#missing[@]}" -eq 0 ] || apt_install "${missing[@]}"
command -v ffmpeg >/dev/null || { echo "error: ffmpeg missing (apt-get install ffmpeg)" >&2; exit 1; }

work="$(mktemp -d)"
export KINO_DATA_DIR="$work/kino-data"
export KINO_BIND="127.0.0.1:0"
export CARGO_INSTALL_ROOT="$work/cargo-install"
export PATH="$CARGO_INSTALL_ROOT/bin:$PATH"
mkdir -p "$work/tmp"

# Files the README's blocks create in the repository; removed at the end if they are new.
created=()
for f in videos/trailer.mp4 clip.mp4; do [ -e "$f" ] || created+=("$f"); done
[ -d videos ] && videos_existed=1 || videos_existed=0

server_pgid=""
stop_server() {
    [ -n "$server_pgid" ] || return 0
    kill -TERM -- "-$server_pgid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 -- "-$server_pgid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$server_pgid" 2>/dev/null || true
    server_pgid=""
}
cleanup() {
    local rc=$?
    stop_server
    if [ "$rc" -ne 0 ] && [ -s "$work/server.err" ]; then
        echo "--- the service's log (last 40 lines)" >&2
        sed 's/\x1b\[[0-9;]*m//g' "$work/server.err" | tail -40 >&2
    fi
    for f in "${created[@]}"; do rm -f "$f"; done
    [ "$videos_existed" = 1 ] || rmdir videos 2>/dev/null || true
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The command blocks: block-NN.sh files and an index of "number file first-line" triples.
awk -v dir="$work" '
    /^```/ {
        if (!inside) {
            inside = 1
            lang = substr($0, 4); gsub(/[ \t]/, "", lang)
            runnable = (lang == "" || lang == "sh" || lang == "bash" || lang == "shell")
            if (runnable) { n++; file = sprintf("%s/block-%02d.sh", dir, n); print n, FILENAME, FNR + 1 > (dir "/index") }
        } else {
            inside = 0
            if (runnable) close(file)
        }
        next
    }
    inside && runnable { print > file }
' "${pages[@]}"
[ -s "$work/index" ] || { echo "error: no command blocks found in ${pages[*]}" >&2; exit 1; }

adapt() {
    local port="$1" file="$2"
    local rules=(-e "s#localhost:8080#localhost:$port#g" -e "s#/tmp/#$work/tmp/#g" -e "s#kino-data/#$KINO_DATA_DIR/#g")
    if [ "$fast" = 1 ]; then
        rules+=(-e 's#cargo run --release#cargo run#g'
                -e 's#cargo run -q --release#cargo run -q#g'
                -e 's#cargo install --path#cargo install --debug --path#g'
                -e 's#cargo bench --bench#cargo test --bench#g'
                -e 's#index build --demo 200#index build --demo 20#g')
    fi
    sed "${rules[@]}" "$file"
}

if [ "${1:-}" = --list ]; then
    while read -r n page line; do
        echo "== block $n ($page line $line)"
        adapt 8080 "$work/block-$(printf %02d "$n").sh"
    done <"$work/index"
    exit 0
fi

# Block 1: the service.
read -r first first_file first_line < <(head -1 "$work/index")
grep -q "kino-server" "$work/block-$(printf %02d "$first").sh" ||
    { echo "error: $first_file line $first_line: the first command block should start kino-server" >&2; exit 1; }
adapt 0 "$work/block-$(printf %02d "$first").sh" >"$work/start.sh"
echo "== block 1 ($first_file line $first_line), in the background: $(tr '\n' ' ' <"$work/start.sh")"
setsid bash "$work/start.sh" >"$work/server.out" 2>"$work/server.err" </dev/null &
server_pid=$!
# setsid makes the background shell the leader of a new process group (its pid is the group's id),
# so that the service, cargo and the shell are stopped together; wait until it has.
group_of() { cut -d')' -f2 "/proc/$1/stat" 2>/dev/null | awk '{print $3}'; }
for _ in $(seq 100); do [ "$(group_of "$server_pid")" = "$server_pid" ] && break; sleep 0.05; done
if [ "$(group_of "$server_pid")" = "$server_pid" ]; then
    server_pgid="$server_pid"
else
    kill "$server_pid" 2>/dev/null || true
    echo "error: could not start the service in its own process group" >&2
    exit 1
fi
started=$(date +%s)
until grep -q "^listening on " "$work/server.out" 2>/dev/null; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "error: the service exited before listening" >&2
        cat "$work/server.out" >&2
        exit 1
    fi
    if [ $(($(date +%s) - started)) -gt "$start_limit" ]; then
        echo "error: the service did not print 'listening on' within ${start_limit}s" >&2
        exit 1
    fi
    sleep 0.5
done
port="$(sed -n 's#^listening on http://[^ ]*:\([0-9][0-9]*\).*#\1#p' "$work/server.out" | head -1)"
[ -n "$port" ] || { echo "error: no port in: $(grep '^listening on' "$work/server.out")" >&2; exit 1; }
demo_key="$(grep -oE 'kino_[0-9a-f]{64}' "$work/server.out" | head -1)"
[ -n "$demo_key" ] ||
    { echo "error: the first start did not print the demo API key" >&2; cat "$work/server.out" >&2; exit 1; }
curl --silent --show-error --fail-with-body --output /dev/null \
    "http://127.0.0.1:$port/tasks/catalog-item/tt-demo-001?key=$demo_key" ||
    { echo "error: the demo API key the service printed is refused" >&2; exit 1; }
echo "   listening on port $port after $(($(date +%s) - started))s; the demo API key it printed works"

# The other blocks, as one script.
{
    cat <<'HEADER'
set -euo pipefail
curl() {
    local a
    for a in "$@"; do
        case "$a" in --fail | --fail-with-body | -[!-]*f*) command curl --silent "$@" || return; return ;; esac
    done
    command curl --silent --show-error --fail-with-body "$@" || return
}
trap 'rc=$?; echo; echo "check-readme: the command at $readme_file line $((readme_line + LINENO - block_start)) failed (exit $rc)" >&2' ERR
HEADER
    tail -n +2 "$work/index" | while read -r n page line; do
        file="$work/block-$(printf %02d "$n").sh"
        if grep -qxE '[[:space:]]*\./scripts/test\.sh[[:space:]]*' "$file"; then
            printf 'echo "== block %s (%s line %s): skipped, it runs this check"\n' "$n" "$page" "$line"
            continue
        fi
        printf 'echo; echo "== block %s (%s line %s)"\n' "$n" "$page" "$line"
        printf 'readme_file=%s; readme_line=%s; block_start=$((LINENO + 1))\n' "$page" "$line"
        adapt "$port" "$file"
    done
} >"$work/blocks.sh"

status=0
timeout "$limit" bash "$work/blocks.sh" || status=$?
[ "$status" -ne 124 ] || echo "error: the README's blocks did not finish within ${limit}s (README_TIMEOUT)" >&2
[ "$status" -eq 0 ] || exit "$status"
if grep -q "panicked" "$work/server.err"; then
    echo "error: the service panicked:" >&2
    grep -A5 "panicked" "$work/server.err" >&2
    exit 1
fi
echo
echo "== the command blocks of ${pages[*]} passed in $(($(date +%s) - started))s (fast mode: $fast)"
