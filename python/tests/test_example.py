"""The plain-script twin of examples/explore.ipynb runs, so the notebook cannot rot."""

import os
import pathlib
import shutil
import subprocess
import sys

import kino

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "explore.py"


def test_explore_script_runs(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", KINO_EXPLORE_OUT=str(tmp_path))
    done = subprocess.run([sys.executable, str(EXAMPLE)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "timelines.png").stat().st_size > 10_000
    if shutil.which("ffmpeg") and shutil.which("ffprobe"):
        # The analysis section ran on real test media or generated stand-ins.
        assert (tmp_path / "analysis.png").stat().st_size > 10_000, done.stdout
        if any(m["id"] == "all-minilm-l6-v2" and m["loaded"] for m in kino.models()):
            assert (tmp_path / "search.png").stat().st_size > 10_000, done.stdout
