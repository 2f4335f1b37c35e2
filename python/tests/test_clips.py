"""The clip properties of clip-selection.md section 7, checked through Python on generated signals."""

import json

import numpy as np
import pytest

import kino

# Refinement off: clips are then exactly the accepted candidates, so skip window and separation
# (which hold "before refinement") can be checked on the output.
NO_REFINEMENT = dict(
    start_bwd_snap_search=0, start_fwd_snap_search=0, end_bwd_snap_search=0, end_fwd_snap_search=0,
    start_bwd_speech_search=0, start_fwd_speech_search=0, end_bwd_speech_search=0, end_fwd_speech_search=0,
)

QUERIES = [
    {},
    dict(number_of_top_candidates=8, clip_length=20, minimum_clip_separation=30),
    dict(number_of_top_candidates=5, max_nudity=0.3, max_blood_gore=0.5, min_brightness=0.2, clip_length=15),
    dict(clip_type="Exciting", number_of_top_candidates=4, skip_start=20, skip_end=5, character_preference="None"),
    dict(number_of_top_candidates=6, character_preference="avoid", clip_length=10, start_fwd_snap_search=3, end_fwd_snap_search=3),
]


@pytest.mark.parametrize("params", QUERIES)
def test_deterministic(titles, params):
    for s in titles:
        a = kino.select_clips(s, **params)
        b = kino.select_clips(kino.Signals.from_json(s.to_json()), **params)
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("params", QUERIES)
def test_clips_lie_in_the_title_and_respect_thresholds(titles, params):
    for s in titles:
        clips = kino.select_clips(s, **params)
        assert len(clips) <= params.get("number_of_top_candidates", 5)
        for i, c in enumerate(clips):
            assert c["clip_index"] == i
            assert 0 <= c["start_time"] < c["stop_time"] <= s.duration
            for field in ("nudity", "blood_gore", "profanity", "brightness"):
                assert params.get(f"min_{field}", 0) <= c[field] <= params.get(f"max_{field}", 1)
            assert c["start_frame"] == round(c["start_time"] * s.fps)
            assert c["inventory_id"] == s.inventory_id
            if params.get("character_preference") == "avoid":
                assert c["characters"] == []


@pytest.mark.parametrize("separation", [0, 30, 120])
def test_skip_window_and_separation_before_refinement(titles, separation):
    for s in titles:
        params = dict(number_of_top_candidates=10, clip_length=25, skip_start=10, skip_end=15, minimum_clip_separation=separation, **NO_REFINEMENT)
        clips = kino.select_clips(s, **params)
        assert clips, "synthetic titles always have candidates"
        w0, w1 = s.duration * 0.10, s.duration - s.duration * 0.15
        spans = sorted((c["start_time"], c["stop_time"]) for c in clips)
        for start, stop in spans:
            assert w0 - 1e-9 <= start and stop <= w1 + 1e-9
            assert stop - start == pytest.approx(25)
        for (_, e0), (s1, _) in zip(spans, spans[1:]):
            assert max(0.0, s1 - e0) >= separation - 1e-9


def test_first_clip_is_a_best_candidate(titles):
    length = 20
    for s in titles:
        clips = kino.select_clips(s, number_of_top_candidates=1, clip_length=length, minimum_clip_separation=0, character_preference="None", **NO_REFINEMENT)
        relevance = s.timeline("relevance").astype(np.float64)
        n = int(length / s.step)
        means = np.convolve(relevance, np.ones(n) / n, mode="valid")  # means[i] = clip starting at sample i
        first = int(np.ceil(s.duration * 0.10 / s.step - 1e-9))
        last = int(np.floor((s.duration * 0.90 - length) / s.step + 1e-9))
        best = means[first : last + 1].max()
        assert clips[0]["relevance"] == pytest.approx(best, abs=1e-3)


def test_snapped_edges_lie_on_shot_boundaries(titles):
    for s in titles:
        shots = np.array(s.shots)
        params = dict(number_of_top_candidates=5, start_bwd_snap_search=4, start_fwd_snap_search=4, end_bwd_snap_search=4, end_fwd_snap_search=4)
        for c in kino.select_clips(s, **params):
            for edge in ("snapped_start", "snapped_stop"):
                # a snapped edge is either unchanged (on the 1 s grid) or on a shot boundary
                t = c[edge]
                assert np.isclose(t, np.round(t)) or np.isclose(shots, t).any()


def test_select_many_matches_select_clips(titles):
    params = dict(number_of_top_candidates=3, clip_length=12)
    many = kino.select_many(titles, **params)
    assert many == [kino.select_clips(s, **params) for s in titles]


def test_field_names_are_the_interface_names(title):
    clip = kino.select_clips(title, number_of_top_candidates=1)[0]
    expected = {
        "start_time", "stop_time", "relevance", "query_relevance", "search_query", "start_frame", "stop_frame",
        "characters", "nudity", "blood_gore", "profanity", "brightness", "clip_index", "snapped_start", "snapped_stop",
        "clip_type", "environment", "keywords", "keyword", "mood", "mood_tag", "start_speech_avoidance",
        "end_speech_avoidance", "type_score", "inventory_id", "fps", "source_frame_width", "source_frame_height",
    }
    assert expected <= set(clip)
    assert set(clip) - expected <= {"service_id", "gen", "vertical_conversion", "shot_type"}


def test_search_query_with_and_without_an_explicit_embedding():
    s = kino.synth_signals("tt-search", 2400.0, seed=11, scene_embeddings=True)
    encoder = kino.TextEncoder()
    implicit = kino.select_clips(s, search_query="explosion city", number_of_top_candidates=3)
    explicit = kino.select_clips(s, encoder.encode("explosion city"), search_query="explosion city", number_of_top_candidates=3)
    assert implicit == explicit
    scores = [c["query_relevance"] for c in implicit]
    assert all(0 <= x <= 1 for x in scores)
    assert all(c["search_query"] == "explosion city" for c in implicit)


def test_custom_range_returns_exactly_that_clip(title):
    clips = kino.select_clips(title, custom_start_timestamp=100, custom_stop_timestamp=130.5)
    assert [(c["start_time"], c["stop_time"]) for c in clips] == [(100.0, 130.5)]


def test_clip_types():
    info = kino.clip_types()
    assert info["clip_types"][0] == "ANY" and "Exciting" in info["clip_types"]
    assert kino.clip_types("8")["version"] == "8"


def test_character_list_accepts_a_list(title):
    a = kino.select_clips(title, character_preference="any_of", character_list=[0, 1])
    b = kino.select_clips(title, character_preference="any_of", character_list="0,1")
    assert a == b


def with_shot_types(signals, kinds):
    """The signals with a shot type for every shot, taking turns among `kinds`."""
    doc = json.loads(signals.to_json())
    cuts = [0.0, *doc["shots"], doc["duration"]]
    spans = zip(cuts, cuts[1:])
    shot_types = [{"start": a, "end": b, "kind": kinds[i % len(kinds)], "people": 1} for i, (a, b) in enumerate(spans)]
    doc["visual"] = {"interval": 1.0, "shot_types": shot_types}
    return kino.Signals.from_json(json.dumps(doc))


def test_shot_type_of_each_clip_and_as_a_filter(title):
    kinds = ["close_up", "wide", "medium"]
    s = with_shot_types(title, kinds)
    params = dict(number_of_top_candidates=5, character_preference="None", minimum_clip_separation=0)
    clips = kino.select_clips(s, **params)
    assert clips and all(c["shot_type"] in kinds for c in clips)
    close = kino.select_clips(s, **params, shot_type=["close_up"])
    assert close and all(c["shot_type"] == "close_up" for c in close)
    assert close == kino.select_clips(s, **params, shot_type="close_up")
    assert "shot_type" not in kino.select_clips(title, **params)[0]
    with pytest.raises(kino.InvalidQueryError, match="shot_type") as info:
        kino.select_clips(s, shot_type="closeup")
    assert info.value.issues[0]["loc"] == ["query", "shot_type"]
    with pytest.raises(ValueError, match="shot_type"):
        kino.select_clips(title, shot_type="close_up")


def test_thumbnails_are_frames_inside_the_selected_clips(titles):
    for s in titles:
        clips = kino.select_clips(s, number_of_top_candidates=4, clip_length=20)
        thumbs = kino.select_thumbnails(s, number_of_top_candidates=4, clip_length=20, shot_margin=0.25)
        assert len(thumbs) == len(clips)
        for t, c in zip(thumbs, clips):
            assert (t["clip_index"], t["clip_start_time"], t["clip_stop_time"]) == (
                c["clip_index"], c["start_time"], c["stop_time"])
            assert c["start_time"] <= t["time"] < c["stop_time"]
            assert isinstance(t["relaxed"], list) and t["frame"] >= 0
    with pytest.raises(ValueError, match="shot_margin"):
        kino.select_thumbnails(titles[0], shot_margin=11)
    with pytest.raises(TypeError):
        kino.select_thumbnails(titles[0], no_such_parameter=1)
    with pytest.raises(TypeError):
        kino.select_clips(titles[0], shot_margin=1)
