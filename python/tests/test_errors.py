"""Bad inputs raise the right exception type with a message naming the field and the rule."""

import numpy as np
import pytest

import kino


def test_unknown_keywords_are_a_type_error_naming_them(title):
    with pytest.raises(TypeError, match=r"'colour'.*'lenght'|'lenght'.*'colour'"):
        kino.select_clips(title, colour="red", lenght=3)


@pytest.mark.parametrize(
    "params, param, words",
    [
        (dict(max_nudity=1.5), "max_nudity", "less than or equal to 1"),
        (dict(min_nudity=0.8, max_nudity=0.2), "min_nudity", "max_nudity"),
        (dict(number_of_top_candidates=0), "number_of_top_candidates", "greater than or equal to 1"),
        (dict(number_of_top_candidates="five"), "number_of_top_candidates", "integer"),
        (dict(clip_type="Boring"), "clip_type", "Exciting"),
        (dict(clip_type="Exciting", search_query="x"), "search_query", "clip_type"),
        (dict(generate=True, trigger_generation=True), "generate", "trigger_generation"),
        (dict(character_preference="any_of"), "character_list", "any_of"),
        (dict(skip_start=120), "skip_start", "100"),
        (dict(version="abc"), "version", "integer"),
        (dict(clip_length=float("nan")), "clip_length", "finite"),
    ],
)
def test_invalid_queries(title, params, param, words):
    with pytest.raises(kino.InvalidQueryError) as info:
        kino.select_clips(title, **params)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert param in message and words.lower() in message.lower(), message
    assert any(param in issue["loc"] for issue in info.value.issues), info.value.issues
    assert all(set(issue) == {"loc", "msg", "type"} for issue in info.value.issues)


def test_wrong_value_type_is_a_type_error(title):
    with pytest.raises(TypeError, match="clip_length"):
        kino.select_clips(title, clip_length=[20])


def test_query_embedding_dtype_and_shape(title):
    with pytest.raises(TypeError, match="float32.*float64"):
        kino.select_clips(title, np.zeros(1024), search_query="x")
    with pytest.raises(TypeError, match="float32"):
        kino.select_clips(title, [0.0] * 1024, search_query="x")
    with pytest.raises(ValueError, match="expected 1024, got 3"):
        kino.select_clips(title, np.zeros(3, dtype=np.float32), search_query="x")


def test_search_without_scene_embeddings_is_a_missing_signal(title):
    with pytest.raises(kino.MissingSignalError, match="scene_embeddings"):
        kino.select_clips(title, search_query="car chase")


def test_invalid_documents_name_the_field(title):
    with pytest.raises(kino.InvalidSignalsError, match="format"):
        kino.Signals.from_json("{}")
    doc = title.to_json().replace('"duration":3600.0', '"duration":-1.0', 1)
    assert doc != title.to_json()
    with pytest.raises(kino.InvalidSignalsError, match=r"duration.*> 0"):
        kino.Signals.from_json(doc)
    with pytest.raises(kino.InvalidSignalsError):
        kino.Signals.from_json("not json")


def test_files_raise_os_errors(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(FileNotFoundError) as info:
        kino.Signals.load(missing)
    assert info.value.filename == str(missing)
    with pytest.raises(OSError):
        kino.synth_signals("x", 60.0).save(tmp_path / "no-such-dir" / "x.json")


def test_bad_arguments(title):
    with pytest.raises(ValueError, match="window"):
        kino.emotion_windows(title, window=0)
    with pytest.raises(ValueError, match="merge_gap"):
        kino.profanity(title, merge_gap=-1)
    with pytest.raises(ValueError, match="duration"):
        kino.synth_signals("x", 0)
    with pytest.raises(ValueError, match="no words"):
        kino.TextEncoder().encode("  !? ")
    with pytest.raises(KeyError, match="relevance"):
        title.timeline("excitement")
    with pytest.raises(TypeError, match="raw request bytes"):
        kino.sign_webhook('{"event": "test"}', "secret")
