//! kino-server: the service over HTTP. The routes (one module per interface group, each with its
//! router and OpenAPI), the extractors of the caller, the answers and their errors, the OpenAPI
//! document, the web application and the connection layer; `app(state)` builds the router.
//!
//! The domain is kino-service's and the SQL kino-store's: both are re-exported under their old
//! paths (`crate::store`, `crate::catalog`, ...) so that a route names what it uses, and the
//! compiler keeps the direction (neither crate can name anything of this one).

pub mod admin_cli;
pub mod app;
pub mod auth;
pub mod error;
pub mod openapi;
pub mod query;
pub mod routes;
pub mod serve;
pub mod web;

pub use kino_service::{
    blocking, bucket, catalog, changes, characters, config, contexts, demo, files, fingerprints, generation, identity,
    ids, index_files, indexes, jobs, portal, previews, products, ratelimit, redacted, results, scene_search, secrets,
    signals, similar, state, store, tasks, throttle, vocabulary, webhooks,
};

pub use app::app;
pub use jobs::{background, liveness, render, worker};
pub use state::{AppState, Config, Services};

#[cfg(test)]
mod tests;
