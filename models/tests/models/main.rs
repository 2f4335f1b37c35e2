//! kino-models against the real models (fetched with `kino models fetch`) on audio and frames
//! generated at test time with espeak-ng and ffmpeg (text drawn with DejaVu Sans), and on
//! photographs from a pinned registry package. Without the
//! models, or the tools, the tests skip loudly, unless `KINO_REQUIRE_MODELS` (models) or
//! `KINO_REQUIRE_FFMPEG` (tools) is set, in which case they fail.

mod expression;
mod faces;
mod nsfw;
mod objects;
mod ocr;
mod sound;
mod support;
mod text;
mod vad;
mod vision;
mod voice;
