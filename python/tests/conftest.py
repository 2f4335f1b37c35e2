import os
import shutil
import subprocess
import warnings

import pytest

import kino


@pytest.fixture(scope="session")
def titles():
    """A few deterministic synthetic titles of different lengths and seeds."""
    return [kino.synth_signals(f"tt{seed:04d}", duration, step=1.0, seed=seed) for seed, duration in [(1, 1800.0), (2, 3600.0), (3, 5400.0), (4, 1200.0)]]


@pytest.fixture(scope="session")
def title(titles):
    return titles[1]


# --- Media and models -------------------------------------------------------------------------
#
# Videos are generated with ffmpeg's lavfi sources. Without ffmpeg, or without the pretrained
# models (`kino models fetch`), the tests that need them skip with a loud message, or fail when
# KINO_REQUIRE_FFMPEG / KINO_REQUIRE_MODELS is set (scripts/test.sh sets both).

REQUIRED_MODELS = ("silero-vad", "all-minilm-l6-v2", "whisper-base")


def skip_or_fail(what: str, fix: str, require_env: str) -> None:
    """Fails when `require_env` is set, else skips with a warning that pytest's summary always shows."""
    if os.environ.get(require_env):
        pytest.fail(f"{require_env} is set but {what}; {fix}")
    warnings.warn(f"!!! SKIPPED: {what}; {fix}; set {require_env}=1 to fail instead", pytest.PytestWarning, stacklevel=2)
    pytest.skip(f"{what} ({fix})")


@pytest.fixture(scope="session")
def ffmpeg():
    missing = [tool for tool in ("ffmpeg", "ffprobe") if shutil.which(tool) is None]
    if missing:
        skip_or_fail(f"{' and '.join(missing)} not installed", "apt-get install ffmpeg", "KINO_REQUIRE_FFMPEG")
    return shutil.which("ffmpeg")


@pytest.fixture(scope="session")
def models_loaded():
    """The models analysis needs for speech and semantic text, loaded from the default directory."""
    states = {m["id"]: m for m in kino.models()}
    absent = [f"{name}: {states[name]['reason']}" for name in REQUIRED_MODELS if not states[name]["loaded"]]
    if absent:
        skip_or_fail("pretrained models are missing (" + "; ".join(absent) + ")", "run `kino models fetch`", "KINO_REQUIRE_MODELS")
    return states


def make_video(ffmpeg: str, path, graph: str, audio: bool) -> None:
    """Encodes the filtergraph `graph` (video output `[v]`, audio `[a]` when `audio`) to H.264 MP4."""
    args = [ffmpeg, "-hide_banner", "-v", "error", "-nostdin", "-y", "-filter_complex", graph, "-map", "[v]"]
    if audio:
        args += ["-map", "[a]", "-c:a", "aac", "-b:a", "64k"]
    args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-r", "25", str(path)]
    subprocess.run(args, check=True, capture_output=True)


@pytest.fixture(scope="session")
def video(ffmpeg, tmp_path_factory):
    """12 s at 320x180, 25 fps: three 4-second shots (cuts at 4 and 8 s) and a tone."""
    path = tmp_path_factory.mktemp("media") / "three-shots.mp4"
    shot = "{},format=yuv420p,setsar=1[{}]"
    graph = ";".join(
        [
            shot.format("testsrc2=r=25:s=320x180:d=4", "s0"),
            shot.format("color=c=0x2050c0:r=25:s=320x180:d=4", "s1"),
            shot.format("mandelbrot=r=25:s=320x180,trim=duration=4,setpts=PTS-STARTPTS", "s2"),
            "[s0][s1][s2]concat=n=3:v=1:a=0[v]",
            "sine=frequency=330:sample_rate=16000:duration=12[a]",
        ]
    )
    make_video(ffmpeg, path, graph, audio=True)
    return path


@pytest.fixture(scope="session")
def long_video(ffmpeg, tmp_path_factory):
    """600 s of grey at 20 fps, no audio: cheap to make (about a second), and about 3 s to analyse
    without models, so a busy machine still schedules the watching thread well before the end."""
    path = tmp_path_factory.mktemp("media") / "long.mp4"
    make_video(ffmpeg, path, "color=c=gray:r=20:s=160x90:d=600,format=yuv420p,setsar=1[v]", audio=False)
    return path
