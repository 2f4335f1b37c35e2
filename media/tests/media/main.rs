//! kino-media against real media generated at test time with ffmpeg's lavfi sources and espeak-ng
//! (nothing is committed). Without ffmpeg the tests skip loudly, unless `KINO_REQUIRE_FFMPEG` is
//! set (as in CI and `scripts/test.sh`), in which case a missing tool is a failure.

mod analyze;
mod containers;
mod markers;
mod models;
mod render;
mod shots;
mod speech;
mod support;
mod voices;
