#!/usr/bin/env bash
# Measures `kino analyze` speed: generates a 720p H.264 test file with ffmpeg (testsrc2 with hard
# cuts every 20 s + a sine tone; nothing is committed), builds the CLI in release mode and prints
# the realtime factor (video seconds per wall-clock second).
#
#   scripts/media-bench.sh [minutes=3] [fps=30]
#
# Needs ffmpeg; KINO_BENCH_DIR chooses where the test file is kept (default: a temp directory).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

minutes="${1:-3}"
fps="${2:-30}"
dir="${KINO_BENCH_DIR:-$(mktemp -d)}"
video="$dir/bench-720p-${minutes}m-${fps}fps.mp4"
seconds=$((minutes * 60))

if [ ! -f "$video" ]; then
    echo "generating $video ($seconds s, 1280x720 at $fps fps, H.264 + AAC)"
    # Alternating sources give a hard cut every 20 s.
    parts=$((seconds / 20))
    graph=""
    inputs=""
    for ((i = 0; i < parts; i++)); do
        case $((i % 3)) in
            0) src="testsrc2=s=1280x720:r=$fps:d=20" ;;
            1) src="testsrc=s=1280x720:r=$fps:d=20" ;;
            2) src="smptehdbars=s=1280x720:r=$fps:d=20" ;;
        esac
        graph+="$src,format=yuv420p,setsar=1[v$i];"
        inputs+="[v$i]"
    done
    graph+="${inputs}concat=n=$parts:v=1:a=0[v];sine=f=440:r=48000:d=$seconds[a]"
    ffmpeg -hide_banner -v error -nostdin -y -filter_complex "$graph" -map "[v]" -map "[a]" \
        -c:v libx264 -preset veryfast -crf 23 -pix_fmt yuv420p -c:a aac -b:a 128k "$video"
fi

cargo build --release -q -p kino-cli
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "ffmpeg:  $(ffmpeg -version | head -1 | cut -d' ' -f1-3)"
start=$(date +%s.%N)
"${CARGO_TARGET_DIR:-target}"/release/kino analyze "$video" -o "$dir/bench.signals.json"
end=$(date +%s.%N)
python3 - "$start" "$end" "$seconds" <<'PY'
import sys
start, end, seconds = map(float, sys.argv[1:])
wall = end - start
print(f"kino analyze: {seconds:.0f} s of 720p video in {wall:.2f} s wall = {seconds / wall:.1f}x real time")
PY
