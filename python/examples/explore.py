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
