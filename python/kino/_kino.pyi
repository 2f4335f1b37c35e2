"""Type stubs of the native module ``kino._kino`` (re-exported by ``kino``)."""

import os
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union, final

import numpy as np
import numpy.typing as npt

__version__: str
DEFAULTS: Dict[str, Dict[str, Any]]
"""What a keyword argument left as ``None`` means, by function, read from the core."""
__all__ = [
    "__version__",
    "DEFAULTS",
    "InvalidQueryError",
    "InvalidSignalsError",
    "MissingSignalError",
    "MediaError",
    "ModelError",
    "Signals",
    "TextEncoder",
    "synth_signals",
    "analyze",
    "models",
    "transcribe",
    "select_clips",
    "select_thumbnails",
    "select_many",
    "clip_types",
    "emotion_windows",
    "profanity",
    "nudity",
    "compare_fingerprints",
    "duplicate_groups",
    "fingerprint_profile",
    "season_markers",
    "link_characters",
    "scene_tags",
    "adbreaks",
    "contextual_adbreaks",
    "content_summary",
    "choose_frame",
    "sign_webhook",
    "verify_webhook",
    "VectorIndex",
    "SegmentedIndex",
    "exact_search",
]

class InvalidQueryError(ValueError):
    """A clip-search parameter broke a rule; ``issues`` is the service's 422 ``detail`` list."""

    issues: List[Dict[str, Any]]

class InvalidSignalsError(ValueError):
    """A signals document is malformed or breaks a rule of signals.md."""

class MissingSignalError(ValueError):
    """The request needs a part of the signals document that this item lacks."""

class MediaError(OSError):
    """Media analysis failed: ffmpeg/ffprobe missing or failing, unusable media, or interrupted."""

class ModelError(OSError):
    """A pretrained model is not fetched (the message says ``kino models fetch``) or failed."""

class _EmotionSamples(TypedDict):
    step: float
    names: List[str]
    probs: npt.NDArray[np.float32]
    valence: npt.NDArray[np.float32]
    arousal: npt.NDArray[np.float32]
    dominance: npt.NDArray[np.float32]

class _Tag(TypedDict):
    kind: Literal["keyword", "mood", "environment"]
    name: str
    start: float
    end: float
    score: float

@final
class Signals:
    """A validated signals document (``kino.signals/1``), indexed once for clip selection."""

    @staticmethod
    def from_json(text: str) -> Signals:
        """Parses and validates a JSON document; ``InvalidSignalsError`` names the field and rule."""
    @staticmethod
    def load(path: Union[str, os.PathLike[str]]) -> Signals:
        """Reads a document from a file (JSON or binary); ``OSError`` when it cannot be read."""
    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Writes the document: JSON when the path ends in ``.json``, binary otherwise."""
    def to_json(self) -> str:
        """The document as compact JSON."""
    @property
    def inventory_id(self) -> str: ...
    @property
    def duration(self) -> float: ...
    @property
    def fps(self) -> float: ...
    @property
    def step(self) -> float: ...
    @property
    def frame_size(self) -> Tuple[int, int]: ...
    @property
    def shots(self) -> List[float]: ...
    @property
    def clip_type_timelines(self) -> List[str]: ...
    def timeline(self, name: str) -> npt.NDArray[np.float32]:
        """A timeline as a read-only float32 view (no copy); ``KeyError`` for an unknown name."""
    def emotion_samples(self) -> Optional[_EmotionSamples]:
        """The emotion samples, or ``None`` when the item has none."""
    @property
    def item_embedding(self) -> Optional[npt.NDArray[np.float32]]:
        """The 256-float item embedding (read-only view), or ``None``."""
    @property
    def speech(self) -> List[Tuple[float, float]]:
        """Speech intervals as ``(start, end)`` in seconds."""
    @property
    def tags(self) -> List[_Tag]:
        """Keyword, mood and environment tags."""
    @property
    def scenes(self) -> List[Tuple[float, float]]:
        """Scene spans as ``(start, end)`` in seconds."""
    @property
    def scene_embeddings(self) -> Optional[npt.NDArray[np.float32]]:
        """The scene embeddings, shape ``(scenes, 1024)``, or ``None``."""
    @property
    def analysis(self) -> Optional[_Analysis]:
        """Provenance: the analyser and the channels it measured or left absent, or ``None``."""
    @property
    def transcript(self) -> Optional[Dict[str, Any]]:
        """What is said (language, segments with words and times), or ``None``."""
    @property
    def character_descriptors(self) -> Optional[List[List[float]]]:
        """One unit face descriptor per character, or ``None``."""
    @property
    def audio_fingerprint(self) -> Optional[Dict[str, Any]]:
        """The soundtrack's fingerprint (``hop``, ``hashes``), or ``None``."""
    @property
    def picture_fingerprint(self) -> Optional[Dict[str, Any]]:
        """The picture's fingerprint (``hop``, ``hashes``), or ``None``."""
    @property
    def visual(self) -> Optional[Dict[str, Any]]:
        """What the picture shows (frame labels, shot types, visual features, cues), or ``None``."""
    @property
    def objects(self) -> Optional[Dict[str, Any]]:
        """People and objects on screen (``interval``, ``frames`` with boxes, ``tracks``), or ``None``."""
    @property
    def speakers(self) -> Optional[Dict[str, Any]]:
        """Who speaks when (``turns``, ``voices``, ``characters``), or ``None``."""
    @property
    def scene_channels(self) -> Optional[Dict[str, List[Optional[List[float]]]]]:
        """Each scene's ``seen``, ``said``, ``written`` and ``heard`` vectors (``None`` where a channel measured nothing), or ``None``."""
    @property
    def shot_types(self) -> List[Tuple[float, float, str]]:
        """``(start, end, kind)`` of each shot: ``extreme_close_up``, ``close_up``, ``medium``, ``wide``, ``extreme_wide``, ``no_people``."""

@final
class TextEncoder:
    """A text encoder: lexical (feature hashing, the default) or semantic (the sentence model in
    the 1024-float scene space); unit-length float32 vectors."""

    def __new__(
        cls,
        dim: Optional[int] = None,
        *,
        kind: Literal["lexical", "semantic"] = "lexical",
        models_dir: Union[str, os.PathLike[str], None] = None,
    ) -> TextEncoder:
        """``ModelError`` when ``kind="semantic"`` and the sentence model is not fetched."""
    def encode(self, text: str) -> npt.NDArray[np.float32]:
        """Encodes ``text``; ``ValueError`` when it holds no words."""
    @property
    def dim(self) -> int: ...
    @property
    def kind(self) -> Literal["lexical", "semantic"]: ...
    @property
    def version(self) -> str: ...

def analyze(
    path: Union[str, os.PathLike[str]],
    *,
    models_dir: Union[str, os.PathLike[str], None] = None,
    models: bool = True,
    step: float = 1.0,
    inventory_id: Optional[str] = None,
    sidecar: Union[str, os.PathLike[str], None] = None,
    metadata: Optional[Dict[str, Any]] = None,
    progress: Optional[Callable[[float, float], object]] = None,
) -> Signals:
    """Analyses a video file into a signals document (GIL released; ``progress(done, total)`` a
    few times a second; an exception it raises, or Ctrl-C, stops the work and is raised)."""

class _ModelState(TypedDict):
    id: str
    version: str
    summary: str
    loaded: bool
    reason: Optional[str]

def models(models_dir: Union[str, os.PathLike[str], None] = None) -> List[_ModelState]:
    """The pretrained models analysis knows of: loaded or not, and why not."""

def nudity(signals: Signals, threshold: Optional[float] = None, merge_gap: Optional[float] = None) -> Dict[str, Any]:
    """The nudity product: the timeline, its segments at or above ``threshold``, maximum and mean
    (``None``: ``DEFAULTS["nudity"]``)."""

def compare_fingerprints(a: Signals, b: Signals) -> Optional[Dict[str, Any]]:
    """How two titles' soundtracks align: offset, bit error rate, overlap, similarity, same_title."""

def duplicate_groups(titles: Mapping[str, Signals]) -> List[List[str]]:
    """Groups of ids whose titles are the same film, largest first."""

def fingerprint_profile(signals: Signals) -> Dict[str, Any]:
    """The fingerprint+ product: the fingerprint and the mood, genre, keyword, mood_tag maps and language."""

def link_characters(titles: Sequence[Signals]) -> List[List[Dict[str, Any]]]:
    """The characters of each title with their identity across the titles (``series_identity``)."""

def season_markers(episodes: Sequence[Signals], numbers: Optional[Sequence[Optional[int]]] = None) -> List[Dict[str, Any]]:
    """Binge markers of a season's episodes: intro, recap, credits start and end, a post-credits scene (seconds or ``None``)."""

def adbreaks(
    signals: Signals,
    window: Optional[float] = None,
    separation: Optional[float] = None,
    skip_first: Optional[float] = None,
    skip_last: Optional[float] = None,
) -> List[Dict[str, Any]]:
    """Ad breaks by window (minutes): ``rank`` and ``candidates`` (time, score), the chosen one first
    (``None``: ``DEFAULTS["adbreaks"]``)."""

def contextual_adbreaks(
    signals: Signals,
    minimum_separation: Optional[float] = None,
    maximum_separation: Optional[float] = None,
    skip_first: Optional[float] = None,
    skip_last: Optional[float] = None,
) -> List[Dict[str, Any]]:
    """Contextual ad breaks: each with nudity and profanity nearby and the tags of the scene before it
    (``None``: ``DEFAULTS["contextual_adbreaks"]``)."""

def scene_tags(signals: Signals) -> List[Dict[str, Any]]:
    """The scene tags product: per scene, its keywords, moods and environments with scores."""

def content_summary(
    signals: Signals, max_sentences: Optional[int] = None, encoder: Optional[TextEncoder] = None
) -> Dict[str, Any]:
    """The sentences of the transcript most central to what is said, in time order
    (``None``: ``DEFAULTS["content_summary"]``), and the title's emotional arc
    (``emotional_arc``: the nearest of six story shapes, its distance and the smoothed valence;
    absent without emotions)."""

def transcribe(
    path: Union[str, os.PathLike[str]],
    *,
    models_dir: Union[str, os.PathLike[str], None] = None,
    language: Optional[str] = None,
) -> Dict[str, Any]:
    """What is said in a video: the speech intervals recognised by Whisper base, with word times."""

_ParamValue = Union[str, int, float, bool, None, Sequence[int], Sequence[str]]
"""A previews parameter: its query-string value, or ``None`` for "not given"; ``character_list``
also as a list of ints and ``shot_type`` as a list of shot types."""

def synth_signals(
    inventory_id: str, duration: float, step: float = 1.0, seed: int = 0, scene_embeddings: bool = False
) -> Signals:
    """A deterministic, realistic synthetic signals document."""

def select_clips(
    signals: Signals,
    query_embedding: Optional[npt.NDArray[np.float32]] = None,
    **params: _ParamValue,
) -> List[Dict[str, Any]]:
    """Preview clips for one item; every previews parameter by its interface name.

    Each clip is a dict with the interface's field names, and ``shot_type`` (the shot type covering
    the most of the clip) when the item has shot types; ``shot_type=["close_up", "medium"]`` keeps
    only clips of those shot types."""

def select_thumbnails(
    signals: Signals,
    query_embedding: Optional[npt.NDArray[np.float32]] = None,
    **params: _ParamValue,
) -> List[Dict[str, Any]]:
    """Thumbnails for one item: a frame in each of the best clips; the previews parameters and
    ``shot_margin``, ``main_character``."""

def select_many(
    items: Sequence[Signals],
    query_embedding: Optional[npt.NDArray[np.float32]] = None,
    **params: _ParamValue,
) -> List[List[Dict[str, Any]]]:
    """``select_clips`` over many items in parallel."""

class _ClipTypesInfo(TypedDict):
    version: str
    clip_types: List[str]

def clip_types(version: Optional[str] = None) -> _ClipTypesInfo:
    """The clip types of a previews version (the newest when ``None``)."""

class _EmotionWindow(TypedDict):
    start_time: float
    end_time: float
    emotions: List[Dict[str, float]]
    valence: float
    arousal: float
    dominance: float

def emotion_windows(signals: Signals, window: Optional[float] = None) -> List[_EmotionWindow]:
    """The emotion result's consecutive windows (``data.emotion[]``; ``None``:
    ``DEFAULTS["emotion_windows"]``)."""

class _ProfanitySegment(TypedDict):
    start: float
    end: float
    score: float

class _ProfanityResult(TypedDict):
    label: Literal["None", "Mild", "Moderate", "Strong"]
    segments: List[_ProfanitySegment]

def profanity(
    signals: Signals,
    merge_gap: Optional[float] = None,
    min_score: Optional[float] = None,
    severe_score: Optional[float] = None,
) -> _ProfanityResult:
    """The profanity result (``data.profanity``): label and merged segments (``None``:
    ``DEFAULTS["profanity"]``)."""

class _FrameChoice(TypedDict):
    time: float
    frame: int
    relevance: float
    brightness: float
    nudity: float
    blood_gore: float
    main_character: bool
    shot_distance: Optional[float]
    relaxed: List[str]

def choose_frame(
    signals: Signals,
    start: float,
    stop: float,
    *,
    min_brightness: Optional[float] = None,
    max_brightness: Optional[float] = None,
    max_nudity: Optional[float] = None,
    max_blood_gore: Optional[float] = None,
    shot_margin: Optional[float] = None,
    main_character: Optional[bool] = None,
) -> Optional[_FrameChoice]:
    """The thumbnail frame inside ``[start, stop)`` by the service's frame rule, or ``None``
    (a threshold left ``None``: ``DEFAULTS["choose_frame"]``)."""

class _AnalysisRequired(TypedDict):
    analyzer: str
    measured: List[str]
    absent: List[str]

class _Analysis(_AnalysisRequired, total=False):
    models: Dict[str, str]
    reasons: Dict[str, str]

def sign_webhook(body: bytes, secret: Union[str, bytes]) -> str:
    """HMAC-SHA256 of ``body`` keyed with ``secret``, 64 lower-case hex characters."""

def verify_webhook(body: bytes, signature: str, secret: Union[str, bytes]) -> bool:
    """Whether ``signature`` signs ``body``; constant-time; rejects a malformed header."""

@final
class VectorIndex:
    """An approximate nearest-neighbour (HNSW) index over float32 vectors with string ids, stored
    in one memory-mapped file."""

    @staticmethod
    def build(
        vectors: npt.NDArray[np.float32],
        ids: Sequence[str],
        metric: str = "cosine",
        m: Optional[int] = None,
        ef_construction: Optional[int] = None,
        codes: str = "none",
        precision: str = "float",
    ) -> VectorIndex:
        """Builds an index over the rows of ``vectors`` ``(n, d)``, one id per row. ``codes``:
        ``"int8"``, ``"binary"`` or ``"int8,binary"`` copies stored beside the floats;
        ``precision``: what searches walk the graph with (``"float"`` or a stored code); ``m`` and
        ``ef_construction`` left ``None``: ``DEFAULTS["VectorIndex.build"]``."""
    @staticmethod
    def open(
        path: Union[str, os.PathLike[str]], precision: str = "float", rerank: int = 0
    ) -> VectorIndex:
        """Memory-maps an index file (only the header is read). ``precision``: ``"float"``, or
        ``"int8"`` / ``"binary"`` when the file holds those codes; the best ``rerank``
        candidates of the beam (all of it when 0) are then re-ranked with the floats."""
    @property
    def codes(self) -> str: ...
    @property
    def precision(self) -> str: ...
    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Writes the index file (temporary file, then rename)."""
    def verify(self) -> None:
        """Reads the whole file and checks its checksum and structure."""
    def search(
        self,
        queries: npt.NDArray[np.float32],
        k: int = 10,
        ef: int = 64,
        exclude: Union[str, Sequence[str], None] = None,
        allow: Union[str, Sequence[str], None] = None,
    ) -> Tuple[Any, npt.NDArray[np.float32]]:
        """``(ids, scores)``: for a ``(d,)`` query a list of ids and a ``(len,)`` array; for
        ``(m, d)`` queries a list of id lists and an ``(m, k)`` array padded with NaN.
        ``exclude``: ids never returned; ``allow``: the only ids returned."""
    def __len__(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def metric(self) -> str: ...
    @property
    def path(self) -> Optional[str]: ...

class _SceneHit(TypedDict):
    id: str
    kind: str
    start_ts: float
    end_ts: float
    score: float

class _SegmentStats(TypedDict):
    segments: int
    graphs: int
    segment_vectors: int
    dead_vectors: int
    delta_vectors: int
    items: int

@final
class SegmentedIndex:
    """A vector collection that changes item by item: segment files of the HNSW format under a
    directory, an in-memory delta, removals filtered until ``maintain()`` merges them away."""

    def __new__(
        cls,
        path: Union[str, os.PathLike[str]],
        dim: int,
        scenes: bool = True,
        metric: str = "cosine",
        flush_vectors: Optional[int] = None,
        merge_segments: Optional[int] = None,
        graph_from: Optional[int] = None,
        ef: Optional[int] = None,
    ) -> SegmentedIndex:
        """Opens (creating when absent) the collection under ``path``; settings left ``None``:
        ``DEFAULTS["SegmentedIndex"]``."""
    def upsert(
        self,
        id: str,
        vectors: npt.NDArray[np.float32],
        spans: Optional[Sequence[Tuple[float, float]]] = None,
        kind: str = "unspecified",
        stamp: int = 0,
    ) -> None:
        """Adds or replaces an item's vectors (a no-op for the stamp already stored)."""
    def remove(self, id: str) -> None:
        """Removes an item."""
    def reconcile(self, current: Mapping[str, int]) -> List[str]:
        """Drops stored copies that are not ``current``; returns the ids to upsert again."""
    def search(
        self,
        query: npt.NDArray[np.float32],
        k: int = 10,
        ids: Optional[Sequence[str]] = None,
        kinds: Optional[Sequence[str]] = None,
        window: Optional[Tuple[float, float]] = None,
        exclude: Optional[str] = None,
    ) -> List[_SceneHit]:
        """The ``k`` nearest vectors, best first, with the filters applied during the search."""
    def maintain(self) -> None:
        """Flushes the delta and merges segments when due."""
    def compact(self) -> None:
        """Merges everything into one segment without dead vectors."""
    def stats(self) -> _SegmentStats: ...
    def stamp(self, id: str) -> Optional[int]: ...
    def __len__(self) -> int: ...

def exact_search(
    vectors: npt.NDArray[np.float32],
    queries: npt.NDArray[np.float32],
    k: int = 10,
    metric: str = "cosine",
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Brute-force top-``k`` row numbers and similarities; ``(k,)`` or ``(m, k)``, padded with
    -1 / NaN."""
