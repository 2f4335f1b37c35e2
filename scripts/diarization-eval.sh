#!/usr/bin/env bash
# The diarization evaluation (issue 48): who speaks when, scored by diarization error rate (no
# collar, overlap counted; scripts/diarization_eval.py) on pyannote's real two-speaker sample and on
# the voices set, real prompts by four known speakers from Debian's Asterisk sound packages put
# into turns with known boundaries: tuning files, and held-out files no setting was chosen on.
#
#   scripts/diarization-eval.sh                       # DER per file, the held-out floor enforced
#   scripts/diarization-eval.sh --setting 1,0.2,2 ... # other clustering settings (centre,min_silhouette,min_seconds)
#
# The binary is $KINO_DIARIZE, else `cargo build --release -p kino-media --example diarize`.
# Cache: ${KINO_VOICES:-<cache>/kino/eval/voices}/ (the .deb packages, pinned by sha256, their
# prompts, the set). The models: `kino models fetch` (silero-vad, voicefilter-dvector).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt-install.sh

FLOOR="${KINO_DIARIZATION_FLOOR:-heldout=0.25}"
CACHE="${KINO_VOICES:-${XDG_CACHE_HOME:-$HOME/.cache}/kino/eval/voices}"
fail() { echo "diarization-eval: error: $*" >&2; exit 2; }

command -v ffmpeg >/dev/null || apt_install ffmpeg
mkdir -p "$CACHE/debs" "$CACHE/prompts"

# Debian 12's asterisk-core-sounds 1.6.1-1, G.722 (16 kHz) prompts: PACKAGE SHA256.
DEBS=(
    "asterisk-core-sounds-en-g722 38c5261820b406dcb0ecb37675720da2b0864850690690352ca52707eb623806"
    "asterisk-core-sounds-es-g722 e4e3b4281057d3b81b779298fd6be705f57411513955c518eed1bcaabbd615b8"
    "asterisk-core-sounds-fr-g722 7add61d5e42279ecff1bbdf842a5a946ac3644fac9a0fe44384731aa7270c8e0"
    "asterisk-core-sounds-it-g722 46b4cf7afc508a5fcfc051b7ea233251c0d195dd4ef83cc4b7facb4c6429b016"
    "asterisk-core-sounds-ru-g722 673b4238a6b8269960f055d868c6a11083f7a0d00979167cb01554046b48ed9b"
)
VERSION=1.6.1-1
for entry in "${DEBS[@]}"; do
    package="${entry% *}" sha="${entry#* }"
    deb="$CACHE/debs/${package}_${VERSION}_all.deb"
    if ! [ -f "$deb" ] || [ "$(sha256sum "$deb" | cut -d' ' -f1)" != "$sha" ]; then
        echo "diarization-eval: downloading $package=$VERSION" >&2
        (cd "$CACHE/debs" && apt-get download -q "$package=$VERSION" >&2) \
            || (apt-get update -qq && cd "$CACHE/debs" && apt-get download -q "$package=$VERSION" >&2) \
            || fail "apt-get download $package=$VERSION failed"
        [ "$(sha256sum "$deb" | cut -d' ' -f1)" = "$sha" ] || fail "$deb: sha256 is not the pinned $sha"
        rm -rf "$CACHE/set"
    fi
    [ -d "$CACHE/prompts/$package" ] || { mkdir -p "$CACHE/prompts/$package.tmp" && dpkg-deb -x "$deb" "$CACHE/prompts/$package.tmp" && mv "$CACHE/prompts/$package.tmp" "$CACHE/prompts/$package"; }
done
sounds="$CACHE/prompts/all"
if ! [ -d "$sounds" ]; then
    mkdir -p "$sounds.tmp"
    for entry in "${DEBS[@]}"; do
        cp -r "$CACHE/prompts/${entry% *}/usr/share/asterisk/sounds/." "$sounds.tmp/"
    done
    mv "$sounds.tmp" "$sounds"
fi

if ! [ -f "$CACHE/set/heldout-quartet.rttm" ]; then
    rm -rf "$CACHE/set.tmp"
    python3 scripts/diarization_eval.py build "$sounds" "$CACHE/set.tmp"
    rm -rf "$CACHE/set" && mv "$CACHE/set.tmp" "$CACHE/set"
fi

# pyannote's sample (scripts/fetch-test-media.sh), its RTTM renamed to the file's name.
media="$(dirname "$(scripts/fetch-test-media.sh | tail -n 1)")"
sample="$media/extracted/pyannote-sample.wav"
[ -f "$sample" ] || fail "fetch-test-media.sh gave no pyannote-sample.wav"
sed 's/^SPEAKER sample /SPEAKER pyannote-sample /' "$media/extracted/pyannote-sample.rttm" >"$CACHE/set/pyannote-sample.rttm"

if [ -n "${KINO_DIARIZE:-}" ]; then
    [ -x "$KINO_DIARIZE" ] || fail "KINO_DIARIZE=$KINO_DIARIZE is not an executable"
    bin="$KINO_DIARIZE"
else
    echo "== cargo build --release -p kino-media --example diarize" >&2
    cargo build -q --release -p kino-media --example diarize
    bin="${CARGO_TARGET_DIR:-target}/release/examples/diarize"
fi

hyp="$CACHE/hypothesis.rttm"
"$bin" "$sample" "$CACHE"/set/*.wav "$@" >"$hyp"
python3 scripts/diarization_eval.py score "$CACHE/set" "$hyp" --floor "$FLOOR"
