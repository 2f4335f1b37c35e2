#!/usr/bin/env bash
# Which of the service's source files a warm previews request runs code from, and how many
# database calls it makes: the measurement behind "a previews request touches at most N server
# files" (issue 34). Not part of scripts/test.sh (it needs valgrind and takes about a minute).
#
# How: the integration test `api::a_warm_previews_request_costs_few_database_calls` makes a cold
# request, reads the store's call counter, makes the same request warm and reads it again. Under
# callgrind, collection is on only inside the previews route's middleware (`count_tokens`, which
# runs the extractors and the handler) and inside the handler's blocking closure (which checks the
# caller's key and catalog, then selects), and a dump is
# taken each time the counter is read: the second dump is exactly the warm request. Each function
# in it is attributed to the file it is defined in; files of the service's three crates (server/src,
# service/src, store/src) are listed with the functions that ran there.
#
# Usage: scripts/request-files.sh            (needs valgrind: apt-get install valgrind)
#        KEEP_DUMP=DIR scripts/request-files.sh   (keeps callgrind's dumps in DIR, emptied first)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "error: valgrind missing (apt-get install valgrind)" >&2; exit 1; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/target}"
bin="$(cargo test -p kino-server --test server --no-run --message-format json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "server":
        print(m["executable"])')"
[ -x "$bin" ] || { echo "error: the server test binary was not built" >&2; exit 1; }
work="${KEEP_DUMP:-$(mktemp -d)}"
[ -z "${KEEP_DUMP:-}" ] || { mkdir -p "$work" && rm -f "$work"/callgrind.out.*; }
[ -n "${KEEP_DUMP:-}" ] || trap 'rm -rf "$work"' EXIT
(cd "$work" && valgrind --tool=callgrind --compress-strings=no --compress-pos=no --collect-atstart=no \
    --toggle-collect='*count_tokens*' --toggle-collect='*previews::clips::{{closure}}::{{closure}}*' \
    --dump-before='kino_store::backend::Store::calls' \
    "$bin" api::a_warm_previews_request_costs_few_database_calls --exact --test-threads=1 --nocapture 2>/dev/null) |
    grep "database calls" || true
dump="$(ls "$work"/callgrind.out.*.2)"
python3 - "$dump" <<'EOF'
import collections, sys
# A function counts when instructions of its own ran (callgrind also lists frames it only
# reconstructed, such as `app()` above the router's layers, with none); its file is where it is
# defined. A move is a call from a function of one service file into a function of another.
ROOTS = ("/server/src/", "/service/src/", "/store/src/")  # the service's three crates
def short(path):
    for root in ROOTS:
        if path and root in path:
            return root.split("/")[1] + "/" + path.split(root)[1]
    return None
ran, calls = collections.defaultdict(set), collections.Counter()
fl = fn = callee = callee_file = None
after_call = False
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("fl="): fl = line[3:].strip()
    elif line.startswith("fn="): fn = line[3:].strip()
    elif line.startswith(("cfl=", "cfi=")): callee_file = line[4:].strip()
    elif line.startswith("cfn="): callee = line[4:].strip()
    elif line.startswith("calls="):
        a, b = short(fl), short(callee_file or fl)
        if a and b and a != b: calls[(a, b, fn, callee)] += int(line.split()[0][6:])
        after_call, callee_file = True, None
    elif line[:1].isdigit() or line[:1] in "+-*":
        if after_call: after_call = False  # the cost of the call just listed, not this function's
        elif short(fl) and int(line.split()[1]) > 0: ran[short(fl)].add(fn)
moves = {k: n for k, n in calls.items() if k[0] in ran and k[1] in ran and k[3] in ran[k[1]]}
for f in sorted(ran):
    names = sorted(n.split("::")[-1] if "<" not in n else n.rsplit(">::", 1)[-1] for n in ran[f])
    print(f"  {f:32} {', '.join(dict.fromkeys(names))[:100]}")
print(f"a warm previews request runs code from {len(ran)} files of server/src, service/src and store/src")
print(f"moves between them: {len(moves)} call sites from one file into another, {sum(moves.values())} calls")
EOF
