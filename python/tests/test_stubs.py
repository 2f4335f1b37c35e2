"""The .pyi stubs match the native module (runs when mypy is installed)."""

import subprocess
import sys

import pytest


def test_stubs_match_the_runtime():
    pytest.importorskip("mypy")
    done = subprocess.run([sys.executable, "-m", "mypy.stubtest", "kino._kino"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
