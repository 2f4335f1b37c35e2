import pytest

import kino


@pytest.fixture(scope="session")
def titles():
    """A few deterministic synthetic titles of different lengths and seeds."""
    return [kino.synth_signals(f"tt{seed:04d}", duration, step=1.0, seed=seed) for seed, duration in [(1, 1800.0), (2, 3600.0), (3, 5400.0), (4, 1200.0)]]


@pytest.fixture(scope="session")
def title(titles):
    return titles[1]
