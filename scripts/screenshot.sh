#!/usr/bin/env bash
# The README's picture: the web application's page of a real film (Big Buck Bunny, the evaluation
# footage), with what kino measured drawn on one time axis and the preview clips it chose.
#
#   scripts/screenshot.sh [OUT.png]        # default docs/screenshots/real-film.png
#
# What it does: starts kino-server on 127.0.0.1 with an ephemeral port and a temporary data
# directory (the demo catalog, the models of ~/.cache/kino/models, fetched when missing), ingests
# the film as the item `big-buck-bunny`, requests its previews and waits until the worker has
# analysed the video (a few minutes on 2 cores), makes a user with `kino-server admin
# create-user`, signs in with headless Chromium through chromedriver (WebDriver over curl) and
# takes a screenshot of the title's page, reduced to a 256-colour PNG. Everything it started is
# stopped at the end and the temporary directory removed.
#
# Environment: KINO_SERVER (a kino-server binary; default: `cargo build --release -p
# kino-server` and the binary it builds), KINO_FILM (a video; default: the film from
# scripts/fetch-eval-footage.sh), SCREENSHOT_TIMEOUT (seconds to wait for the analysis, default
# 1800), SCREENSHOT_SIZE (the browser window, default 1280,1560: every lane and the clips).
# Needs chromium, chromium-driver, ffmpeg, curl and jq (apt-get install chromium chromium-driver
# ffmpeg curl jq).
#
# Big Buck Bunny (c) 2008 Blender Foundation, www.bigbuckbunny.org, CC BY 3.0.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-docs/screenshots/real-film.png}"
limit="${SCREENSHOT_TIMEOUT:-1800}"
size="${SCREENSHOT_SIZE:-1280,1560}"
fail() { echo "screenshot: error: $*" >&2; exit 1; }
for tool in chromium chromedriver ffmpeg curl jq; do
    command -v "$tool" >/dev/null || fail "$tool missing (apt-get install chromium chromium-driver ffmpeg curl jq)"
done

server="${KINO_SERVER:-}"
if [ -z "$server" ]; then
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/target}"
    cargo build --release -p kino-server
    server="$CARGO_TARGET_DIR/release/kino-server"
fi
[ -x "$server" ] || fail "no kino-server at $server"
film="${KINO_FILM:-$(scripts/fetch-eval-footage.sh | tail -n 1)}"
[ -f "$film" ] || fail "no film at $film"

work="$(mktemp -d)"
server_pid="" driver_pid=""
cleanup() {
    local rc=$?
    [ -z "$driver_pid" ] || kill "$driver_pid" 2>/dev/null || true
    [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
    [ -z "$server_pid" ] || wait "$server_pid" 2>/dev/null || true
    if [ "$rc" -ne 0 ] && [ -s "$work/server.err" ]; then
        echo "--- the service's log (last 30 lines)" >&2
        tail -30 "$work/server.err" >&2
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export KINO_DATA_DIR="$work/data" KINO_MEDIA_ROOT="$work/media" KINO_BIND=127.0.0.1:0
mkdir -p "$KINO_MEDIA_ROOT"
cp "$film" "$KINO_MEDIA_ROOT/film.mp4"
"$server" >"$work/server.out" 2>"$work/server.err" </dev/null &
server_pid=$!
for _ in $(seq 1800); do
    grep -q '^listening on ' "$work/server.out" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || fail "kino-server exited before listening"
    sleep 0.5
done
base="$(sed -n 's#^listening on \(http://[^ ]*\).*#\1#p' "$work/server.out" | head -1)"
[ -n "$base" ] || fail "kino-server did not print 'listening on'"
key="$("$server" admin create-key demo)"
echo "kino-server at $base"

curl -sS --fail-with-body -X PUT "$base/catalog/v1/item?key=$key" -H content-type:application/json -d '{
  "id": "big-buck-bunny", "type": "standalone", "title": "Big Buck Bunny", "release_year": 2008,
  "metadata": {"short_description": "Blender Foundation, CC BY 3.0 (www.bigbuckbunny.org)", "genres": ["animation", "comedy"]},
  "asset_info": {"file_uri": "film.mp4"}}' >/dev/null
task="$base/tasks/catalog-item/big-buck-bunny/product/jitpreviews/version/1.0.0?key=$key"
curl -sSf -X POST "$task" -H content-type:application/json -d '{}' >/dev/null
started=$SECONDS
while :; do
    status="$(curl -sSf "$task" | jq -r .status)"
    [ "$status" = pending ] || break
    [ $((SECONDS - started)) -lt "$limit" ] || fail "the analysis did not finish within ${limit}s"
    sleep 5
done
[ "$status" = ready ] || fail "the task ended $status: $(curl -sS "$task")"
echo "analysed in $((SECONDS - started)) s"

email=screenshot@example.com password="screenshot-$(date +%s)"
KINO_NEW_PASSWORD="$password" "$server" admin create-user demo "$email" >/dev/null

port=$((20000 + RANDOM % 20000))
chromedriver --port="$port" >"$work/driver.log" 2>&1 &
driver_pid=$!
wd="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$wd/status" >/dev/null && break; sleep 0.1; done
caps="$(jq -n --arg size "--window-size=$size" '{capabilities: {alwaysMatch: {browserName: "chrome",
  "goog:chromeOptions": {args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", $size]}}}}')"
session="$(curl -sSf "$wd/session" -d "$caps" | jq -r .value.sessionId)"
[ -n "$session" ] && [ "$session" != null ] || fail "chromedriver gave no session ($(cat "$work/driver.log"))"
s="$wd/session/$session"
element() { curl -sSf "$s/element" -d "$(jq -n --arg css "$1" '{using: "css selector", value: $css}')" | jq -r '.value | to_entries[0].value'; }
wait_element() {
    local id
    for _ in $(seq 240); do
        id="$(curl -s "$s/element" -d "$(jq -n --arg css "$1" '{using: "css selector", value: $css}')" | jq -r '.value | to_entries[0].value // empty')"
        [ -n "$id" ] && [ "$id" != "no such element" ] && { echo "$id"; return; }
        sleep 0.5
    done
    fail "$1 never appeared"
}
type_into() { curl -sSf "$s/element/$(element "$1")/value" -d "$(jq -n --arg t "$2" '{text: $t}')" >/dev/null; }
go() { curl -sSf "$s/url" -d "$(jq -n --arg u "$1" '{url: $u}')" >/dev/null; }

go "$base/app/sign-in"
type_into '#email' "$email"
type_into '#password' "$password"
curl -sSf "$s/element/$(element 'form button[type=submit]')/click" -d '{}' >/dev/null
wait_element "a[href='/app/keys']" >/dev/null
go "$base/app/catalog/big-buck-bunny"
wait_element 'svg.timeline g.clip' >/dev/null
# The timelines and the clips fill the window; the title's details and the channel table are above.
curl -sSf "$s/execute/sync" -d '{"script": "const t = document.querySelector(\"svg.timeline\"); window.scrollTo(0, t.getBoundingClientRect().top + window.scrollY - 118);", "args": []}' >/dev/null
curl -sSf "$s/screenshot" | jq -r .value | base64 -d >"$work/shot.png"
curl -sS -X DELETE "$s" >/dev/null || true

# A 256-colour palette keeps the picture small (under 300 KB) and its text sharp.
mkdir -p "$(dirname "$out")"
ffmpeg -v error -y -i "$work/shot.png" -vf "split[a][b];[a]palettegen=max_colors=256:stats_mode=full[p];[b][p]paletteuse=dither=none" "$out"
echo "wrote $out ($(($(stat -c %s "$out") / 1024)) KB)"
