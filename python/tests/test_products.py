"""Emotion windows against numpy means, profanity rules, webhook signatures against Python's hmac."""

import hashlib
import hmac
import json

import numpy as np
import pytest

import kino


@pytest.mark.parametrize("window", [10.0, 5.0, 60.0])
def test_emotion_windows_are_numpy_means(titles, window):
    for s in titles:
        e = s.emotion_samples()
        per = int(window / e["step"])
        windows = kino.emotion_windows(s, window=window)
        end = min(len(e["probs"]) * e["step"], s.duration)
        assert len(windows) == int(np.ceil(end / window))
        assert windows[-1]["end_time"] == pytest.approx(end)
        for k, w in enumerate(windows):
            assert w["start_time"] == pytest.approx(k * window)
            rows = slice(k * per, (k + 1) * per)
            means = e["probs"][rows].astype(np.float64).mean(axis=0)
            got = [next(iter(d.items())) for d in w["emotions"]]
            assert [name for name, _ in got] == e["names"]
            np.testing.assert_allclose([v for _, v in got], means, atol=1e-6)  # reported means have six decimals
            for field in ("valence", "arousal", "dominance"):
                assert w[field] == pytest.approx(e[field][rows].astype(np.float64).mean(), abs=1e-6)


def test_emotion_windows_weight_partial_samples():
    # step 1 s, window 2.5 s: the second window holds half of sample 2, samples 3 and 4 whole.
    s = kino.synth_signals("tt-weights", 7.0, step=1.0, seed=2)
    e = s.emotion_samples()
    w = kino.emotion_windows(s, window=2.5)
    assert [(x["start_time"], x["end_time"]) for x in w] == [(0.0, 2.5), (2.5, 5.0), (5.0, 7.0)]
    v = e["valence"].astype(np.float64)
    assert w[1]["valence"] == pytest.approx((0.5 * v[2] + v[3] + v[4]) / 2.5, abs=1e-6)


def test_profanity_shape_and_rules(titles):
    for s in titles:
        r = kino.profanity(s)
        assert set(r) == {"label", "segments"}
        assert r["label"] in {"None", "Mild", "Moderate", "Strong"}
        assert (r["label"] == "None") == (r["segments"] == [])
        starts = [g["start"] for g in r["segments"]]
        assert starts == sorted(starts)
        for a, b in zip(r["segments"], r["segments"][1:]):
            assert b["start"] - a["end"] >= 3.0
        for g in r["segments"]:
            assert 0 <= g["start"] < g["end"] <= s.duration and 0.5 <= g["score"] <= 1
        merged = kino.profanity(s, merge_gap=600)
        assert len(merged["segments"]) <= len(r["segments"])
        assert kino.profanity(s, min_score=1.0)["segments"] == [g for g in r["segments"] if g["score"] >= 1.0]


RFC_4231 = [
    (b"\x0b" * 20, b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First", "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
]


@pytest.mark.parametrize("key, body, expected", RFC_4231)
def test_rfc_4231(key, body, expected):
    assert kino.sign_webhook(body, key) == expected
    assert kino.verify_webhook(body, expected, key)


def test_signatures_match_python_hmac():
    rng = np.random.default_rng(7)
    for n in [0, 1, 63, 64, 65, 1000, 100_000]:
        body = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        secret = f"whsec_{n}"
        expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        assert kino.sign_webhook(body, secret) == expected
        assert kino.sign_webhook(bytearray(body), secret.encode()) == expected
        assert kino.verify_webhook(memoryview(body), expected, secret)
        assert kino.verify_webhook(body, expected.upper(), secret)


def test_verification_rejects_tampering_and_malformed_headers():
    body = b'{"event":"test","timestamp":"2026-01-01T00:00:00.000Z","data":{"message":"hello"}}'
    good = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert kino.verify_webhook(body, good, "s3cret")
    assert not kino.verify_webhook(body, good, "other")
    assert not kino.verify_webhook(body.replace(b"hello", b"hellO"), good, "s3cret")
    for header in ["", good[:-1], good + "0", "sha256=" + good, good[:-1] + "z", " " + good[1:]]:
        assert not kino.verify_webhook(body, header, "s3cret"), header


def test_choose_frame_follows_the_services_rule():
    signals = kino.synth_signals("tt-frame", duration=600.0, seed=3)
    choice = kino.choose_frame(signals, 100.0, 130.0)
    assert choice is not None
    assert 100.0 <= choice["time"] < 130.0
    assert set(choice) == {
        "time", "frame", "relevance", "brightness", "nudity", "blood_gore", "main_character", "shot_distance", "relaxed",
    }
    # nothing can be that bright: the brightness rule is relaxed, and the choice says so
    bright = kino.choose_frame(signals, 100.0, 130.0, min_brightness=0.99, max_brightness=1.0)
    assert "brightness" in bright["relaxed"]
    assert kino.choose_frame(signals, 50.0, 50.0) is None
    assert signals.analysis is None


def test_signals_analysis_provenance_round_trips():
    import json

    doc = json.loads(kino.synth_signals("tt-prov", duration=60.0, seed=1).to_json())
    doc["analysis"] = {"analyzer": "test", "measured": ["shots"], "absent": ["emotions"]}
    signals = kino.Signals.from_json(json.dumps(doc))
    assert signals.analysis == {"analyzer": "test", "measured": ["shots"], "absent": ["emotions"]}


def test_content_summary_picks_the_central_sentences_of_the_transcript():
    import json

    doc = json.loads(kino.synth_signals("tt-summary", duration=60.0, seed=1).to_json())
    lines = [
        "The storm flooded the river valley overnight.",
        "My cat likes the blue sofa.",
        "Rescue teams reached the flooded valley villages by boat.",
        "Traffic was light on the bridge.",
        "The river storm flooded homes across the valley.",
    ]
    doc["transcript"] = {
        "language": "en",
        "segments": [{"start": 5.0 * i, "end": 5.0 * i + 4.0, "text": t, "words": []} for i, t in enumerate(lines)],
    }
    signals = kino.Signals.from_json(json.dumps(doc))
    assert signals.transcript["segments"][1]["text"] == lines[1]
    summary = kino.content_summary(signals, max_sentences=1)
    assert summary["sentence_count"] == 5 and len(summary["sentences"]) == 1
    assert "flooded" in summary["text"] and summary["encoder"].startswith("lexical")
    assert summary["sentences"][0]["start"] in (0.0, 10.0, 20.0)
    with pytest.raises(ValueError, match="max_sentences"):
        kino.content_summary(signals, max_sentences=0)
    # No transcript: a title with emotions still gets its emotional arc, and no sentences...
    silent = kino.synth_signals("tt-none", duration=60.0)
    arc_only = kino.content_summary(silent)
    assert arc_only["sentences"] == [] and arc_only["emotional_arc"]["shape"] in (
        "rags_to_riches", "tragedy", "man_in_a_hole", "icarus", "cinderella", "oedipus")
    # ...and one with neither is refused.
    doc = json.loads(silent.to_json())
    doc.pop("emotions", None)
    with pytest.raises(kino.MissingSignalError, match="transcript"):
        kino.content_summary(kino.Signals.from_json(json.dumps(doc)))


def test_nudity_and_scene_tags_products():
    signals = kino.synth_signals("tt-visual", duration=120.0, seed=2)
    n = kino.nudity(signals)
    assert len(n["timeline"]) == 120 and n["threshold"] == 0.5
    assert all(s["score"] >= 0.5 and s["start"] < s["end"] for s in n["segments"])
    assert n["max"] >= n["mean"]
    with pytest.raises(ValueError, match="threshold"):
        kino.nudity(signals, threshold=0.0)
    scenes = kino.scene_tags(signals)
    assert len(scenes) == len(signals.scenes)
    assert all({"start", "end", "keywords", "moods", "environments"} <= set(s) for s in scenes)


def test_adbreaks_by_window_and_in_context():
    signals = kino.synth_signals("tt-ads", duration=1800.0, seed=4)
    breaks = kino.adbreaks(signals, window=10.0, separation=2.0)
    assert breaks and [b["rank"] for b in breaks] == list(range(1, len(breaks) + 1))
    chosen = [b["candidates"][0]["time"] for b in breaks]
    assert all(b - a >= 120.0 for a, b in zip(chosen, chosen[1:])) and chosen[0] >= 60.0
    assert all(0.0 <= c["score"] <= 1.0 for b in breaks for c in b["candidates"])
    with pytest.raises(ValueError, match="window"):
        kino.adbreaks(signals, window=0.0)
    ctx = kino.contextual_adbreaks(signals)
    assert ctx and all({"timestamp", "frame_number", "contains_nudity", "keyword", "mood_tag"} <= set(b) for b in ctx)


def test_fingerprints_compare_group_and_profile():
    import json
    import random
    rng = random.Random(7)
    film = [rng.getrandbits(32) | 1 for _ in range(3000)]
    copy = [h ^ 0b11 if i % 4 == 0 else h for i, h in enumerate(film[150:])]

    def titled(name, hashes):
        doc = json.loads(kino.synth_signals(name, 600.0, seed=1).to_json())
        doc["audio_fingerprint"] = {"hop": 0.1, "hashes": hashes}
        return kino.Signals.from_json(json.dumps(doc))

    a, b = titled("film", film), titled("copy", copy)
    other = titled("other", [rng.getrandbits(32) | 1 for _ in range(3000)])
    assert a.audio_fingerprint["hop"] == 0.1 and len(a.audio_fingerprint["hashes"]) == 3000
    assert a.picture_fingerprint is None
    doc = json.loads(a.to_json())
    doc["picture_fingerprint"] = {"hop": 0.1, "hashes": [0, 7, 3221487615]}
    pictured = kino.Signals.from_json(json.dumps(doc))
    assert pictured.picture_fingerprint == {"hop": 0.1, "hashes": [0, 7, 3221487615]}
    assert pictured.objects is None and pictured.speakers is None
    doc["objects"] = {"interval": 2.0, "frames": [{"time": 2.0, "boxes": [
        {"class": "person", "confidence": 0.9, "x": 0.1, "y": 0.2, "w": 0.3, "h": 0.6, "track": 0}]}],
        "tracks": [{"class": "person", "start": 2.0, "end": 2.0, "frames": 1, "confidence": 0.9, "largest": 0.18}]}
    doc["speakers"] = {"turns": [{"start": 1.0, "end": 3.5, "speaker": 0}], "voices": [[0.6, 0.8]], "characters": [None]}
    seen = kino.Signals.from_json(json.dumps(doc))
    assert seen.objects["frames"][0]["boxes"][0]["class"] == "person" and seen.objects["tracks"][0]["frames"] == 1
    assert seen.speakers["turns"][0]["speaker"] == 0 and seen.speakers["characters"] == [None]
    doc["objects"]["frames"][0]["boxes"][0]["w"] = 0.95
    with pytest.raises(ValueError, match=r"objects\.frames\[0\]\.boxes\[0\]\.w"):
        kino.Signals.from_json(json.dumps(doc))
    assert seen.scene_channels is None
    del doc["objects"]
    scenes = len(doc["scenes"])
    doc["scene_channels"] = {"seen": [[0.6, 0.8]] * scenes, "said": [None] * scenes}
    channelled = kino.Signals.from_json(json.dumps(doc))
    assert channelled.scene_channels["said"] == [None] * scenes and channelled.scene_channels["heard"] == []
    doc["scene_channels"]["said"] = [None]
    with pytest.raises(ValueError, match=r"scene_channels\.said"):
        kino.Signals.from_json(json.dumps(doc))
    m = kino.compare_fingerprints(b, a)
    assert m["same_title"] and m["offset"] == 15.0 and m["bit_error_rate"] < 0.05
    assert kino.compare_fingerprints(other, a) is None or not kino.compare_fingerprints(other, a)["same_title"]
    assert kino.duplicate_groups({"film": a, "copy": b, "other": other}) == [["copy", "film"]]
    profile = kino.fingerprint_profile(a)
    assert profile["fingerprint"] == film and set(profile) >= {"mood", "genre", "keyword", "mood_tag", "language"}
    with pytest.raises(kino.MissingSignalError):
        kino.fingerprint_profile(kino.synth_signals("bare", 60.0))


def test_season_markers_find_the_shared_intro():
    import json
    import random
    rng = random.Random(3)
    intro = [rng.getrandbits(32) | 1 for _ in range(250)]  # 25 s

    def episode(name, at):
        own = [rng.getrandbits(32) | 1 for _ in range(9000)]
        hashes = (own[:at] + intro + own[at:])[:9000]
        doc = json.loads(kino.synth_signals(name, 900.0, seed=2).to_json())
        doc["audio_fingerprint"] = {"hop": 0.1, "hashes": hashes}
        doc.pop("text", None)
        return kino.Signals.from_json(json.dumps(doc))

    eps = [episode("e1", 100), episode("e2", 333)]
    m = kino.season_markers(eps, numbers=[1, 2])
    assert abs(m[0]["intro_start"] - 10.0) <= 1 and abs(m[0]["intro_end"] - 35.0) <= 1, m
    assert abs(m[1]["intro_start"] - 33.3) <= 1 and m[1]["episodes_compared"] == 1, m
    credit_keys = ("credit_start", "credit_end", "post_credits_start", "post_credits_end", "mid_credits_start",
                   "mid_credits_end", "credits_cue")
    assert all(m[0][k] is None for k in credit_keys), m
    assert kino.season_markers(eps[:1])[0]["intro_start"] is None
    with pytest.raises(ValueError, match="numbers"):
        kino.season_markers(eps, numbers=[1])


def test_link_characters_keeps_one_identity_across_titles():
    import json

    def title(name, descriptors, seconds):
        doc = json.loads(kino.synth_signals(name, 600.0, seed=3).to_json())
        doc["characters"] = [{"rank": r, "spans": [[0.0, s]]} for r, s in enumerate(seconds)]
        doc["character_descriptors"] = descriptors
        return kino.Signals.from_json(json.dumps(doc))

    a, b = [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]
    e1 = title("e1", [a, b], [300.0, 100.0])
    e2 = title("e2", [b, a], [250.0, 50.0])
    assert e1.character_descriptors == [a, b]
    linked = kino.link_characters([e1, e2])
    ids = [[c["series_identity"] for c in t] for t in linked]
    assert ids == [[0, 1], [1, 0]], linked


def test_omitted_arguments_are_the_cores_defaults(titles):
    """A keyword left out (or None) is the core's default, which kino.DEFAULTS reads from the core:
    the same answer as passing those values, and a different one when another value is passed."""
    s = titles[0]
    d = kino.DEFAULTS
    assert d["emotion_windows"] == {"window": 10.0}
    assert d["profanity"] == {"merge_gap": 3.0, "min_score": 0.5, "severe_score": 0.8}
    assert kino.emotion_windows(s) == kino.emotion_windows(s, **d["emotion_windows"])
    assert kino.emotion_windows(s) != kino.emotion_windows(s, window=d["emotion_windows"]["window"] / 2)
    assert kino.profanity(s) == kino.profanity(s, **d["profanity"]) == kino.profanity(s, merge_gap=None)
    assert kino.adbreaks(s) == kino.adbreaks(s, **d["adbreaks"])
    assert kino.contextual_adbreaks(s) == kino.contextual_adbreaks(s, **d["contextual_adbreaks"])
    frame = d["choose_frame"]
    assert kino.choose_frame(s, 0.0, 30.0) == kino.choose_frame(s, 0.0, 30.0, **frame)
    assert set(frame) == {"min_brightness", "max_brightness", "max_nudity", "max_blood_gore", "shot_margin", "main_character"}
    assert set(d["SegmentedIndex"]) == {"flush_vectors", "merge_segments", "graph_from", "ef"}
    assert set(d["VectorIndex.build"]) == {"m", "ef_construction"}
