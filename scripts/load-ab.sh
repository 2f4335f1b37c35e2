#!/usr/bin/env bash
# Compares two release builds of kino-server under load, fairly on a busy machine: each serves
# the demo catalog in turn, ROUNDS times (default 5), and wrk (64 connections, 2 threads, 10 s)
# measures the previews with defaults on tt-demo-001, the text embedding, the catalog item get and
# the portal's smartlist list (a bearer token; rate limit raised); then the median of each. Any answer other than 2xx fails the run. Build the binaries first,
# e.g. for a revision REV:
#   git checkout REV && cargo build --release -p kino-server && cp "${CARGO_TARGET_DIR:-target}"/release/kino-server /tmp/kino-REV
# Usage: scripts/load-ab.sh BINARY_A BINARY_B   (the servers run from the repository's root, for data/demo)
set -euo pipefail
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || { echo "usage: $0 BINARY_A BINARY_B (two kino-server executables)" >&2; exit 2; }
a="$(realpath "$1")"; b="$(realpath "$2")"
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
rounds="${ROUNDS:-5}"
port="${PORT:-18282}"
results="$(mktemp)"
one() {  # binary label
    local dir pid key base p t c s creds id secret token
    dir="$(mktemp -d)"
    "$1" --data-dir "$dir" --bind "127.0.0.1:$port" --log-format json --rate-limit 100000000 --max-connections-per-peer 512 >"$dir/out.log" 2>"$dir/err.log" &
    pid=$!
    for _ in $(seq 100); do grep -q "API key" "$dir/out.log" 2>/dev/null && break; sleep 0.2; done
    key="$(grep -oE 'kino_[0-9a-f]{64}' "$dir/out.log" | head -1 || true)"
    [ -n "$key" ] || { echo "error: $1 printed no API key (see $dir/err.log)" >&2; kill $pid; exit 1; }
    sleep 2   # let the demo catalog finish processing
    base="http://127.0.0.1:$port"
    measure() {
        local out
        out="$(wrk -t2 -c64 -d10s --latency "$@")"
        if grep -q "Non-2xx" <<<"$out"; then echo "error: answers other than 2xx from ${*: -1}" >&2; return 1; fi
        awk '/ 99%/{l=$2} /Requests\/sec/{r=$2} END{print r, l}' <<<"$out"
    }
    trap "kill $pid 2>/dev/null" EXIT  # a failed measurement stops the server too
    creds="$("$1" --data-dir "$dir" admin create-client demo 2>/dev/null)"
    id="$(sed -n 's/^client_id: //p' <<<"$creds")"; secret="$(sed -n 's/^client_secret: //p' <<<"$creds")"
    token="$(curl -sf "$base/oauth/token" -H 'content-type: application/json' \
        -d "{\"client_id\": \"$id\", \"client_secret\": \"$secret\", \"grant_type\": \"client_credentials\"}" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')"
    p="$(measure "$base/results/jitpreviews/v2/tt-demo-001?catalog=demo&key=$key")"
    t="$(measure "$base/results/semantic_scenes/v1/text-embedding?q=car%20chase%20at%20night&key=$key")"
    c="$(measure "$base/catalog/v1/item/standalone/tt-demo-001?key=$key")"
    s="$(measure -H "Authorization: Bearer $token" "$base/smartlists/?limit=20")"
    echo "$2 previews $p text-embedding $t catalog $c portal $s" | tee -a "$results"
    kill $pid; wait $pid 2>/dev/null || true
    trap - EXIT
    rm -rf "$dir"
}
for _ in $(seq "$rounds"); do one "$a" A; one "$b" B; done
python3 - "$results" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
for label in ("A", "B"):
    mine = [r for r in rows if r[0] == label]
    def ms(v):  # wrk writes 850.00us, 9.95ms or 1.02s
        for unit, scale in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
            if v.endswith(unit):
                return float(v[: -len(unit)]) * scale
        return float(v)
    med = lambda i: statistics.median(ms(r[i]) if i % 3 == 0 else float(r[i]) for r in mine)
    print(f"{label}: previews {med(2):,.0f} req/s (p99 {med(3):.2f} ms), text-embedding {med(5):,.0f} req/s "
          f"(p99 {med(6):.2f} ms), catalog item get {med(8):,.0f} req/s (p99 {med(9):.2f} ms), portal smartlist list "
          f"{med(11):,.0f} req/s (p99 {med(12):.2f} ms); medians of {len(mine)}")
PY
rm -f "$results"
