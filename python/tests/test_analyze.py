"""`kino.analyze` on videos generated with ffmpeg, with and without the pretrained models."""

import os
import shutil
import subprocess
import signal
import threading
import time

import numpy as np
import pytest

import kino

LEARNED = "tags"


def test_analysis_without_models_measures_shots_and_says_what_is_absent(video):
    signals = kino.analyze(video, models=False, inventory_id="tt-shots")
    assert isinstance(signals, kino.Signals)
    assert signals.inventory_id == "tt-shots"
    assert signals.duration == pytest.approx(12.0, abs=0.1)
    assert signals.step == 1.0
    cuts = [t for t in signals.shots if 0.0 < t < signals.duration]
    assert any(abs(t - 4.0) < 0.2 for t in cuts) and any(abs(t - 8.0) < 0.2 for t in cuts), signals.shots
    analysis = signals.analysis
    assert analysis is not None and analysis["analyzer"].startswith("kino-media")
    assert "shots" in analysis["measured"] and "speech" in analysis["measured"]
    assert "speech" not in analysis.get("models", {}), "models=False must not use the VAD"
    assert LEARNED in analysis["absent"]
    assert "disabled" in analysis["reasons"][LEARNED]
    # Emotions and clip types come from the picture without any model, and say so.
    assert "emotions" in analysis["measured"] and "timelines.clip_types" in analysis["measured"]
    assert "colour 100%" in analysis["models"]["emotions"]
    assert len(signals.timeline("brightness")) == 12


def test_step_and_inventory_id_default_to_one_second_and_the_file_stem(video):
    signals = kino.analyze(video, models=False, step=0.5)
    assert signals.inventory_id == "three-shots"
    assert signals.step == 0.5 and len(signals.timeline("relevance")) == 24


def test_progress_is_called_a_few_times_a_second_monotone_and_ends_at_the_total(video):
    calls = []
    started = time.monotonic()
    kino.analyze(video, models=False, progress=lambda done, total: calls.append((done, total)))
    elapsed = time.monotonic() - started
    assert calls, "progress was never called"
    done = [d for d, _ in calls]
    assert done == sorted(done), calls
    assert len({t for _, t in calls}) == 1 and calls[0][1] == pytest.approx(12.0, abs=0.1), calls
    assert calls[-1][0] == calls[-1][1], "the last call says the work is done"
    # At most one call per 0.25 s, plus the final one.
    assert len(calls) <= elapsed / 0.25 + 2, (len(calls), elapsed)


def test_an_exception_raised_in_progress_stops_the_analysis_and_is_raised(video):
    calls = []

    def progress(done, total):
        calls.append(done)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        kino.analyze(video, models=False, progress=progress)
    assert len(calls) == 1 and calls[0] < 12.0, "the analysis went on after the callback raised"


def _ffmpeg_children():
    """PIDs of this process's live ffmpeg children (ffprobe, others and zombies left out)."""
    me, found = os.getpid(), []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if comm == "ffmpeg" and int(rest[1]) == me and rest[0] != "Z":
            found.append(int(entry.name))
    return found


def _written(pid):
    """Bytes `pid` has written so far (its decoded frames, on the pipe kino reads), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("wchar:"))
    except (OSError, StopIteration):
        return None


class DecodeWatch(threading.Thread):
    """Follows the analysis's ffmpeg child, sampling the bytes of frames it wrote until it is gone.
    With `interrupt`, sends SIGINT to this process (not to ffmpeg) once the first frames are out."""

    def __init__(self, interrupt):
        super().__init__(daemon=True)
        self.interrupt, self.written, self.signalled_at = interrupt, 0, None
        # An ffmpeg child another test left running is not this analysis's.
        self.before = set(_ffmpeg_children())

    def run(self):
        deadline = time.monotonic() + 120
        pid = None
        while pid is None and time.monotonic() < deadline:
            pid = next((p for p in _ffmpeg_children() if p not in self.before), None)
            time.sleep(0.001)
        while pid is not None and (written := _written(pid)) is not None:
            self.written = max(self.written, written)
            if self.interrupt and self.signalled_at is None and written > 0:
                self.signalled_at = written
                os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.001)


@pytest.fixture
def sigint_raises():
    """Python's own SIGINT handler for the test: a shell that starts the suite in the background
    hands it SIGINT ignored, and Python then keeps ignoring it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_keyboard_interrupt_stops_the_analysis_without_a_callback(long_video, sigint_raises):
    # Measured in work, not time: the bytes of frames ffmpeg decoded for a whole analysis, then
    # for one interrupted as soon as its first frames were out. Python's SIGINT handler sets a flag
    # that the analysis checks from its progress path while this thread is in Rust without the GIL.
    whole = DecodeWatch(interrupt=False)
    whole.start()
    kino.analyze(long_video, models=False)
    whole.join(timeout=60)
    assert whole.written > 0, "the analysis's ffmpeg child was not seen"
    watch = DecodeWatch(interrupt=True)
    watch.start()
    with pytest.raises(KeyboardInterrupt):
        kino.analyze(long_video, models=False)
    watch.join(timeout=60)
    assert watch.signalled_at is not None, "the interrupted analysis's ffmpeg child was not seen"
    assert watch.signalled_at < whole.written / 10, "the signal came late: the test proves nothing"
    assert watch.written < whole.written / 2, (
        f"the analysis went on after Ctrl-C: ffmpeg wrote {watch.written} of {whole.written} bytes"
    )


def test_the_gil_is_released_while_analysing(video):
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    try:
        kino.analyze(video, models=False)
    finally:
        stop.set()
        thread.join()
    assert len(ticks) > 20, "another Python thread could not run during the analysis"


def test_media_errors_name_the_file_and_the_rule(video, tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError) as info:
        kino.analyze(tmp_path / "nope.mp4", models=False)
    assert info.value.filename == str(tmp_path / "nope.mp4")
    not_media = tmp_path / "notes.mp4"
    not_media.write_text("not a video")
    with pytest.raises(kino.MediaError) as info:
        kino.analyze(not_media, models=False)
    assert isinstance(info.value, OSError) and "notes.mp4" in str(info.value)
    with pytest.raises(ValueError, match="step"):
        kino.analyze(video, models=False, step=0.0)
    with pytest.raises(TypeError, match="metadata must be a dict"):
        kino.analyze(video, models=False, metadata="Heat")  # type: ignore[arg-type]
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(kino.MediaError, match=r"`ff(mpeg|probe)` was not found on PATH: install ffmpeg"):
        kino.analyze(video, models=False)


def test_models_in_an_empty_directory_are_absent_with_the_command_that_fetches_them(tmp_path):
    states = kino.models(tmp_path)
    ids = [m["id"] for m in states]
    assert "silero-vad" in ids and "all-minilm-l6-v2" in ids
    for m in states:
        assert set(m) == {"id", "version", "summary", "loaded", "reason"}
        assert m["loaded"] is False and "kino models fetch" in m["reason"], m


def test_analysis_with_an_empty_models_directory_still_works_and_says_why(video, tmp_path):
    signals = kino.analyze(video, models_dir=tmp_path)
    reasons = signals.analysis["reasons"]
    assert "kino models fetch" in reasons[LEARNED], reasons
    assert signals.scene_embeddings is None or signals.scene_embeddings.shape[1] == 1024


# --- With the pretrained models ---------------------------------------------------------------


def test_models_lists_the_vad_and_the_sentence_model_loaded(models_loaded):
    states = kino.models()
    loaded = {m["id"]: m for m in states if m["loaded"]}
    assert {"silero-vad", "all-minilm-l6-v2"} <= set(loaded), states
    assert all(m["reason"] is None and m["version"] for m in loaded.values())


def test_analysis_with_models_uses_the_vad_and_embeds_scenes_and_the_item(models_loaded, video):
    catalog_item = {
        "title": "Night Pursuit",
        "metadata": {"genres": ["Action"], "keywords": ["car chase"], "short_description": "Two drivers race through the city."},
    }
    signals = kino.analyze(video, metadata=catalog_item)
    analysis = signals.analysis
    assert analysis["models"]["speech"].startswith("silero-vad "), analysis
    scenes = signals.scene_embeddings
    assert scenes is not None and scenes.shape == (len(signals.scenes), 1024)
    assert np.allclose(np.linalg.norm(scenes, axis=1), 1.0, atol=1e-4)
    item = signals.item_embedding
    assert item is not None and item.shape == (256,)
    bare = kino.analyze(video).item_embedding
    assert bare is not None and not np.allclose(item, bare), "the catalog metadata changes the item embedding"
    # Scene embeddings live in the semantic encoder's space.
    query = kino.TextEncoder(kind="semantic").encode("a colourful test pattern")
    assert np.all(np.abs(scenes @ query) <= 1.0 + 1e-4)
    # The picture: labels per sampled frame, a shot type per shot, visual features per scene.
    assert analysis["models"]["visual"].startswith("efficientnet-lite0 "), analysis
    visual = signals.visual
    assert visual is not None and visual["frames"], visual
    assert len(signals.shot_types) == len(signals.shots) + 1
    assert all(kind in ("extreme_close_up", "close_up", "medium", "wide", "extreme_wide", "no_people") for _, _, kind in signals.shot_types)
    assert len(visual["scene_features"]) == len(signals.scenes)


def test_transcribe_and_analyze_hear_what_is_said(models_loaded, ffmpeg, tmp_path):
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        pytest.skip("espeak-ng is not installed")
    wav = tmp_path / "said.wav"
    subprocess.run([espeak, "-w", str(wav), "Damn it, we are leaving the city tonight."], check=True)
    path = tmp_path / "said.mp4"
    subprocess.run(
        [ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=160x90:r=10:d=6", "-i", str(wav),
         "-filter_complex", "[1:a]adelay=1000:all=1,apad[a]", "-map", "0:v", "-map", "[a]", "-t", "6",
         "-c:v", "libx264", "-c:a", "aac", str(path)],
        check=True,
    )
    transcript = kino.transcribe(path)
    assert transcript["language"] == "en"
    text = " ".join(s["text"].lower() for s in transcript["segments"])
    assert "leaving the city" in text, transcript
    words = [w for s in transcript["segments"] for w in s["words"]]
    assert all(0.5 <= w["start"] < w["end"] <= 6.0 for w in words), words
    signals = kino.analyze(path)
    assert signals.transcript is not None and "city" in signals.transcript["segments"][0]["text"].lower()
    assert signals.analysis["models"]["profanity"].startswith("whisper-base"), signals.analysis
    with pytest.raises(ValueError, match="language"):
        kino.transcribe(path, language="xx")
