//! kino-server's integration tests, one binary (one link of the service and its dependencies
//! instead of one per file): each module is one area, `support` is what they share (the OpenAPI
//! contract check, a webhook receiver, polling with a deadline). Run one area with
//! `cargo test -p kino-server --test server bucket::`.

mod api;
mod bounds;
mod browser;
mod bucket;
mod by_example;
mod failover;
mod first_start;
mod hardening;
mod hardening2;
mod identity;
mod media_pipeline;
mod models;
mod openapi;
mod portal;
mod process;
mod replicas;
mod sign_in_and_connections;
mod support;
mod web;
mod webhooks;
mod webhooks_tls;
