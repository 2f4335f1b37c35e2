"""The plain-script twin of examples/explore.ipynb runs, so the notebook cannot rot."""

import os
import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "explore.py"


def test_explore_script_runs(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", KINO_EXPLORE_OUT=str(tmp_path))
    done = subprocess.run([sys.executable, str(EXAMPLE)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "timelines.png").stat().st_size > 10_000
