import numpy as np

import kino


def test_version():
    assert isinstance(kino.__version__, str) and kino.__version__.count(".") == 2


def test_properties_and_json_round_trip(title, tmp_path):
    assert title.inventory_id == "tt0002"
    assert title.duration == 3600.0 and title.fps == 24.0 and title.step == 1.0
    again = kino.Signals.from_json(title.to_json())
    assert again.to_json() == title.to_json()
    for name in ("doc.json", "doc.kino"):
        path = tmp_path / name
        title.save(path)
        assert kino.Signals.load(path).to_json() == title.to_json()
        assert kino.Signals.load(str(path)).inventory_id == title.inventory_id


def test_synth_is_deterministic():
    a = kino.synth_signals("same", 600.0, step=0.5, seed=3)
    b = kino.synth_signals("same", 600.0, step=0.5, seed=3)
    assert a.to_json() == b.to_json()
    assert a.to_json() != kino.synth_signals("same", 600.0, step=0.5, seed=4).to_json()


def test_timelines_are_read_only_views_without_copies(title):
    a = title.timeline("relevance")
    b = title.timeline("relevance")
    assert a.dtype == np.float32 and a.shape == (3600,)
    assert np.shares_memory(a, b), "both views read the document's own buffer"
    assert not a.flags.writeable
    for name in title.clip_type_timelines:
        assert title.timeline(name).shape == a.shape


def test_emotion_samples(title):
    e = title.emotion_samples()
    assert e["probs"].shape == (3600, len(e["names"]))
    assert e["valence"].shape == (3600,) and not e["valence"].flags.writeable
    np.testing.assert_allclose(e["probs"].sum(axis=1), 1.0, atol=1e-3)


def test_text_encoder():
    enc = kino.TextEncoder()
    v = enc.encode("Car chase at night")
    assert v.dtype == np.float32 and v.shape == (1024,)
    assert abs(float(v @ v) - 1.0) < 1e-5
    np.testing.assert_array_equal(v, enc.encode("car   CHASE at night!"))
    assert enc.dim == 1024 and enc.version == "lexical-1"
    assert kino.TextEncoder(256).encode("x").shape == (256,)
