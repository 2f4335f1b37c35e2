"""kino: content intelligence for video catalogs.

Media analysis (a video file into a signals document, with pretrained models when fetched), clip
selection (the previews endpoint), vector search, emotion windows, profanity, webhook signatures and
lexical or semantic text encoders, computed by the Rust core from per-item signals documents
(``kino.signals/1``).

>>> import kino
>>> signals = kino.synth_signals("tt-demo", duration=1800.0, seed=1)
>>> clips = kino.select_clips(signals, number_of_top_candidates=3, clip_length=20)
>>> len(clips) <= 3
True

Errors: bad parameters raise :class:`InvalidQueryError`, bad documents :class:`InvalidSignalsError`,
missing parts of a document :class:`MissingSignalError` (all subclasses of ``ValueError``); files
that cannot be read raise ``OSError``; media analysis raises :class:`MediaError` (ffmpeg missing or
failing, unusable media) and :class:`ModelError` (a model not fetched or failing), both subclasses
of ``OSError``.
"""

from ._kino import (
    InvalidQueryError,
    InvalidSignalsError,
    MediaError,
    MissingSignalError,
    ModelError,
    SegmentedIndex,
    Signals,
    TextEncoder,
    VectorIndex,
    DEFAULTS,
    __version__,
    adbreaks,
    analyze,
    choose_frame,
    clip_types,
    compare_fingerprints,
    content_summary,
    contextual_adbreaks,
    duplicate_groups,
    emotion_windows,
    exact_search,
    fingerprint_profile,
    link_characters,
    models,
    nudity,
    profanity,
    scene_tags,
    season_markers,
    select_clips,
    select_thumbnails,
    select_many,
    sign_webhook,
    synth_signals,
    transcribe,
    verify_webhook,
)

__all__ = [
    "InvalidQueryError",
    "InvalidSignalsError",
    "MediaError",
    "MissingSignalError",
    "ModelError",
    "Signals",
    "TextEncoder",
    "VectorIndex",
    "DEFAULTS",
    "__version__",
    "adbreaks",
    "analyze",
    "choose_frame",
    "clip_types",
    "compare_fingerprints",
    "content_summary",
    "contextual_adbreaks",
    "duplicate_groups",
    "emotion_windows",
    "exact_search",
    "fingerprint_profile",
    "link_characters",
    "models",
    "nudity",
    "profanity",
    "scene_tags",
    "season_markers",
    "select_clips",
    "select_thumbnails",
    "select_many",
    "sign_webhook",
    "synth_signals",
    "transcribe",
    "verify_webhook",
]
