#!/usr/bin/env bash
# Real footage for evaluations (issue 36): Big Buck Bunny, the whole film (596.47 s, 1280x720,
# 24 fps, AAC stereo, with its opening titles and its real end credits), as the moviepy 2.2.1
# sdist on PyPI carries it inside a documentation zip. Downloads the sdist with pip (once), checks
# its sha256 and the extracted film's, caches the film and prints its path (the last line).
# Nothing is downloaded when the verified film is already cached.
#
#   scripts/fetch-eval-footage.sh          # -> ~/.cache/kino/eval/bbb.mp4
#
# Big Buck Bunny (c) 2008 Blender Foundation, www.bigbuckbunny.org, CC BY 3.0 (the film's own
# last credit card). moviepy is MIT; its docs zip adds no licence of its own.
# Needs python3 with pip (pip builds the sdist's metadata, so setuptools must be installable).
# Cache: ${XDG_CACHE_HOME:-~/.cache}/kino/eval/ (the sdist and the film).
set -euo pipefail

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/kino/eval"
PYTHON="${PYTHON:-python3}"
SDIST=moviepy-2.2.1.tar.gz
SDIST_SHA=c80cb56815ece94e5e3e2d361aa40070eeb30a09d23a24c4e684d03e16deacb1
ZIP_MEMBER=moviepy-2.2.1/docs/_static/medias/getting_started/moviepy_10_minutes/moviepy_10_minutes.zip
FILM_MEMBER=moviepy_10_minutes/resources/bbb.mp4
FILM_SHA=475fbbf34c4c367998f80c29ea03b15a743941179b12da3373fc6706e68621d0

fail() { echo "fetch-eval-footage: error: $*" >&2; exit 1; }
command -v "$PYTHON" >/dev/null || fail "$PYTHON is missing (apt-get install python3 python3-pip)"
"$PYTHON" -m pip --version >/dev/null 2>&1 || fail "pip is missing for $PYTHON (apt-get install python3-pip)"
command -v sha256sum >/dev/null || fail "sha256sum is missing (coreutils)"
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

mkdir -p "$CACHE"
film="$CACHE/bbb.mp4"
if [ -f "$film" ] && [ "$(sha_of "$film")" = "$FILM_SHA" ]; then
    echo "$film"
    exit 0
fi

sdist="$CACHE/$SDIST"
if ! [ -f "$sdist" ] || [ "$(sha_of "$sdist")" != "$SDIST_SHA" ]; then
    staging="$(mktemp -d "$CACHE/.download.XXXXXX")"
    trap 'rm -rf "$staging"' EXIT
    echo "fetch-eval-footage: downloading $SDIST (58 MB) with pip" >&2
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-cache-dir --no-deps --no-binary :all: \
        -d "$staging" moviepy==2.2.1 >&2 || fail "pip download moviepy==2.2.1 failed"
    [ -f "$staging/$SDIST" ] || fail "pip download did not give $SDIST"
    [ "$(sha_of "$staging/$SDIST")" = "$SDIST_SHA" ] || fail "$SDIST: sha256 differs from the pin $SDIST_SHA"
    mv "$staging/$SDIST" "$sdist"
fi

# The film is a member of a zip that is a member of the tarball: stream both, no temporary tree.
"$PYTHON" - "$sdist" "$ZIP_MEMBER" "$FILM_MEMBER" "$film.tmp" <<'PY'
import io, sys, tarfile, zipfile
sdist, zip_member, film_member, out = sys.argv[1:]
with tarfile.open(sdist, "r:gz") as t:
    data = t.extractfile(zip_member).read()
with zipfile.ZipFile(io.BytesIO(data)) as z, open(out, "wb") as f:
    f.write(z.read(film_member))
PY
[ "$(sha_of "$film.tmp")" = "$FILM_SHA" ] || { rm -f "$film.tmp"; fail "bbb.mp4: sha256 differs from the pin $FILM_SHA"; }
mv "$film.tmp" "$film"
echo "$film"
