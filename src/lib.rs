//! # kino: content intelligence for video catalogs
//!
//! The core engine behind the kino service and Python package. It knows nothing of HTTP, SQL or
//! Python: it reads per-item **signals documents** ([`Signals`], the contract of `signals.md`)
//! and computes results from them.
//!
//! - [`signals`]: the document, its JSON and binary forms, validation, and the [`Prepared`]
//!   (indexed) form built once per item.
//! - [`clips`]: preview clip selection ([`select`], [`ClipQuery`]), as `clip-selection.md` says.
//! - [`text`]: text encoders for search queries ([`TextEncoder`], [`LexicalEncoder`]).
//! - [`emotions`]: the emotion result's consecutive windows ([`emotion_windows`]).
//! - [`arc`]: the title's emotional arc, the nearest of six story shapes ([`emotional_arc`]).
//! - [`profanity`](mod@profanity): the profanity label and merged segments ([`profanity()`]).
//! - [`webhook`]: signing and verifying webhook deliveries ([`webhook::sign`], [`webhook::verify`]).
//! - [`vectors`]: vector search: exact and memory-mapped HNSW indexes, filters, scene search,
//!   similar titles ([`HnswIndex`], [`ExactIndex`]).
//! - [`thumbnail`]: the frame-choice rule of thumbnails ([`thumbnail::choose_frame`]).
//! - [`report`]: how reported numbers are rounded (times to the millisecond, scores to six
//!   decimals), the one rule every result above follows.
//! - [`synth`]: deterministic synthetic signals for demos, tests and benchmarks.
//!
//! ```
//! use kino::{ClipQuery, Prepared, select};
//!
//! let signals = kino::synth::demo_signals("tt0001", 5400.0, 1.0, 1);
//! let prepared = Prepared::new(signals)?;
//! let clips = select(&prepared, &ClipQuery::default(), None)?;
//! assert!(!clips.is_empty());
//! println!("{}", serde_json::to_string_pretty(&clips).unwrap());
//! # Ok::<(), kino::Error>(())
//! ```

#![warn(missing_docs)]

pub mod adbreaks;
pub mod arc;
pub mod characters;
pub mod clips;
pub mod emotions;
mod error;
pub mod fingerprint;
pub mod lexicon;
pub mod markers;
pub mod profanity;
pub mod report;
pub mod signals;
pub mod speakers;
pub mod summary;
pub mod synth;
pub mod text;
pub mod thumbnail;
pub mod vectors;
pub mod visual;
pub mod webhook;

pub use arc::{ArcShape, EmotionalArc, emotional_arc};
pub use clips::{Clip, ClipQuery, ClipType, TracedClip, clip_types_info, select, select_many, select_traced};
pub use emotions::{EmotionScore, EmotionWindow, emotion_windows, emotion_windows_many};
pub use error::{Error, IssueKind, QueryIssue, Result};
pub use profanity::{ProfanityLabel, ProfanityOptions, ProfanityResult, ProfanitySegment, profanity};
pub use signals::{Prepared, Signals};
pub use text::{LexicalEncoder, TextEncoder};
pub use vectors::{ExactIndex, HnswIndex, HnswParams, Metric, VectorIndex, VectorSet};
