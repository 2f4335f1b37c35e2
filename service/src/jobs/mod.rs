//! The background work of a process, each over a durable queue in the database: the processing
//! workers ([`worker`]: products, media analysis), the renderers ([`render`]: clip and thumbnail
//! generations, creative assets), both driven by one loop ([`pool`]), and the process's lease
//! ([`liveness`]) through which other processes take over what a dead one had claimed; all of it
//! started and stopped together by [`background`].

pub mod background;
pub mod liveness;
pub mod pool;
pub mod render;
pub mod worker;
