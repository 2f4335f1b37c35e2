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
//! - [`vectors`]: vector search: exact and memory-mapped HNSW indexes, filters, scene search,
//!   similar titles ([`HnswIndex`], [`ExactIndex`]).
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

pub mod clips;
mod error;
pub mod signals;
pub mod synth;
pub mod text;
pub mod vectors;

pub use clips::{Clip, ClipQuery, ClipType, clip_types_info, select, select_many};
pub use error::{Error, IssueKind, QueryIssue, Result};
pub use signals::{Prepared, Signals};
pub use text::{LexicalEncoder, TextEncoder};
pub use vectors::{ExactIndex, HnswIndex, HnswParams, Metric, VectorIndex, VectorSet};
