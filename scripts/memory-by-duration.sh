#!/usr/bin/env bash
# Peak memory of `kino analyze` by a title's duration (hardening II, item 8): a 4-hour title must
# cost what a 1-hour one does, plus its output. Builds 1, 2 and 4 hour videos by looping one
# generated minute with stream copy (640x360 at 25 fps, hard cuts, a tone with noise bursts and
# a spoken sentence each minute, so every channel has work), then runs the release CLI on each,
# without models and with every model of the models directory, and prints the peak resident set
# (GNU time's "Maximum resident set size") and the wall time.
#
#   scripts/memory-by-duration.sh [hours...]          # default: 1 2 4
#   KINO_MODELS=DIR scripts/memory-by-duration.sh     # the models directory (default ~/.cache/kino/models)
#   MODES="none" scripts/memory-by-duration.sh 1 2 4  # only --no-models (fast: about a minute an hour)
#
# Needs ffmpeg, espeak-ng and GNU time (apt-get install time); KINO_BENCH_DIR keeps the videos.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
if [ "$#" -gt 0 ]; then hours=("$@"); else hours=(1 2 4); fi
modes="${MODES:-none all}"
dir="${KINO_BENCH_DIR:-$(mktemp -d)}"
mkdir -p "$dir"
[ -x /usr/bin/time ] || { echo "error: GNU time missing (apt-get install time)" >&2; exit 1; }

minute="$dir/minute.mp4"
if [ ! -f "$minute" ]; then
    espeak-ng -w "$dir/say.wav" "The quick brown fox jumps over the lazy dog near the river bank."
    ffmpeg -hide_banner -v error -nostdin -y \
        -f lavfi -i "testsrc2=s=640x360:r=25:d=20" -f lavfi -i "smptebars=s=640x360:r=25:d=20" \
        -f lavfi -i "color=c=0x305070:s=640x360:r=25:d=20" \
        -f lavfi -i "sine=f=330:r=16000:d=60" -f lavfi -i "anoisesrc=c=pink:r=16000:a=0.05:d=60" -i "$dir/say.wav" \
        -filter_complex "[0:v][1:v][2:v]concat=n=3:v=1:a=0,format=yuv420p[v];[5:a]adelay=30000|30000,apad=whole_dur=60[s];[3:a][4:a][s]amix=inputs=3:duration=first[a]" \
        -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -g 50 -c:a aac -b:a 64k -t 60 "$minute"
fi
for h in "${hours[@]}"; do
    video="$dir/title-${h}h.mp4"
    [ -f "$video" ] || ffmpeg -hide_banner -v error -nostdin -y -stream_loop $((h * 60 - 1)) -i "$minute" -c copy "$video"
done

cargo build --release -q -p kino-cli
kino="${CARGO_TARGET_DIR:-target}/release/kino"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(git rev-parse --short HEAD)"
printf '%-8s %-7s %12s %10s\n' models hours "peak RSS" "wall"
for mode in $modes; do
    for h in "${hours[@]}"; do
        flags=()
        [ "$mode" = none ] && flags+=(--no-models)
        out="$dir/title-${h}h.$mode.signals.json"
        /usr/bin/time -v -o "$dir/time.txt" "$kino" analyze "$dir/title-${h}h.mp4" "${flags[@]}" --out "$out" >/dev/null 2>"$dir/analyze.log" ||
            { tail -n 20 "$dir/analyze.log" >&2; exit 1; }
        rss_kb=$(grep "Maximum resident set size" "$dir/time.txt" | awk '{print $NF}')
        wall=$(grep "Elapsed (wall clock)" "$dir/time.txt" | awk '{print $NF}')
        printf '%-8s %-7s %9d MiB %10s\n' "$mode" "$h" $((rss_kb / 1024)) "$wall"
    done
done
