"""`kino.TextEncoder`: lexical by default, semantic with the sentence model."""

import numpy as np
import pytest

import kino


def cos(encoder, a, b):
    return float(np.dot(encoder.encode(a), encoder.encode(b)))


def test_the_default_stays_lexical():
    encoder = kino.TextEncoder()
    assert encoder.kind == "lexical" and encoder.dim == 1024 and encoder.version == "lexical-1"
    assert kino.TextEncoder(256).dim == 256
    assert "lexical" in repr(encoder)


def test_bad_kinds_and_dims_name_the_argument(tmp_path):
    with pytest.raises(ValueError, match="kind"):
        kino.TextEncoder(kind="neural")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dim"):
        kino.TextEncoder(256, kind="semantic")
    with pytest.raises(ValueError, match="models_dir"):
        kino.TextEncoder(models_dir=tmp_path)


def test_semantic_without_the_model_names_it_and_the_fetch_command(tmp_path):
    with pytest.raises(kino.ModelError) as info:
        kino.TextEncoder(kind="semantic", models_dir=tmp_path)
    message = str(info.value)
    assert "all-minilm-l6-v2" in message and "kino models fetch" in message, message
    assert isinstance(info.value, OSError)


def test_semantic_ranks_by_meaning_where_lexical_cannot(models_loaded):
    semantic = kino.TextEncoder(kind="semantic")
    assert semantic.kind == "semantic" and semantic.dim == 1024
    assert semantic.version.startswith("all-minilm-l6-v2 "), semantic.version
    v = semantic.encode("a car chase")
    assert v.dtype == np.float32 and v.shape == (1024,)
    assert float(np.linalg.norm(v)) == pytest.approx(1.0, abs=1e-4)
    chase = cos(semantic, "a car chase", "vehicles racing through streets")
    dinner = cos(semantic, "a car chase", "a quiet dinner")
    assert chase > dinner + 0.1, (chase, dinner)
    # The lexical encoder shares no word between the first pair, so it cannot tell them apart.
    lexical = kino.TextEncoder()
    assert cos(lexical, "a car chase", "vehicles racing through streets") < 0.2


def test_semantic_encoders_share_one_loaded_model(models_loaded):
    a, b = kino.TextEncoder(kind="semantic"), kino.TextEncoder(kind="semantic")
    assert np.array_equal(a.encode("an explosion"), b.encode("an explosion"))
