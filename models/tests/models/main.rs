//! kino-models against the real models (fetched with `kino models fetch`) on audio and images
//! generated at test time (espeak-ng and ffmpeg for the audio). Without the models, or the tools, the tests skip loudly,
//! unless `KINO_REQUIRE_MODELS` (models) or `KINO_REQUIRE_FFMPEG` (tools) is set, in which case
//! they fail.

mod nsfw;
mod sound;
mod support;
mod text;
mod vad;
