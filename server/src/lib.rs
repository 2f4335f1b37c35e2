//! kino-server: the processing and results interfaces of the service over the kino core.
//!
//! `app(state)` builds the router; `store` is the only module that speaks SQL; `worker` runs the
//! durable processing queue.

pub mod admin_cli;
pub mod app;
pub mod auth;
pub mod bucket;
pub mod catalog;
pub mod changes;
pub mod config;
pub mod contexts;
pub mod demo;
pub mod error;
pub mod files;
pub mod generation;
pub mod identity;
pub mod index_files;
pub mod indexes;
pub mod jobs;
pub mod openapi;
pub mod portal;
pub mod previews;
pub mod products;
pub mod query;
pub mod ratelimit;
pub mod routes;
pub mod scene_search;
pub mod secrets;
pub mod serve;
pub mod signals;
pub mod state;
pub mod tasks;
pub mod throttle;
pub mod web;
pub mod webhooks;

pub use kino_store::{self as store, ids, redacted, vocabulary};

pub use app::app;
pub use jobs::{liveness, render, worker};
pub use state::{AppState, Config, Services};
