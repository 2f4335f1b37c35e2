//! kino-service: the service's domain, between the HTTP of kino-server above and the SQL of
//! kino-store below: the catalog and its items, stored signals and their cache, what each product
//! computes, tasks and the processing jobs, every consequence of a change (`changes`), clip
//! generations and their renderer, the portal (smartlists, recipes, creative assets), webhooks
//! and their dispatcher, identity (API keys, OAuth clients and their tokens), the indexes and
//! scene search, the named handles a process shares (`state`).
//!
//! It knows nothing of HTTP: no router, extractor or response type; a domain function takes
//! the store and the handles it uses, and says what went wrong with [`error::ServiceError`] or a
//! type of its own, which the server maps to an answer.

pub use kino_store::{self as store, ids, redacted, vocabulary};

pub mod blocking;
pub mod bucket;
pub mod catalog;
pub mod changes;
pub mod characters;
pub mod config;
pub mod contexts;
pub mod demo;
pub mod error;
pub mod files;
pub mod fingerprints;
pub mod generation;
pub mod identity;
pub mod index_files;
pub mod indexes;
pub mod jobs;
pub mod portal;
pub mod previews;
pub mod products;
pub mod ratelimit;
pub mod results;
pub mod scene_search;
pub mod secrets;
pub mod signals;
pub mod similar;
pub mod state;
pub mod tasks;
pub mod throttle;
pub mod webhooks;

pub use jobs::{background, liveness, render, worker};
pub use state::{AppState, Config, Services};
