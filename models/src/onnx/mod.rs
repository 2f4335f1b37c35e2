//! In-memory rewrites of ONNX models at the protobuf wire level.
//!
//! - [`int8`]: int8 arithmetic for weights stored as int8 but computed in float.
//! - [`fuse`]: fused attention and GELU for transformer encoders exported op by op.
//! - `wire.rs`: the protobuf fields, nodes, attributes and tensors a rewrite reads and writes.
//! - `graph.rs`: a model's graph indexed for rewriting, and the model emitted with the
//!   rewrite's replacements.
//! - `build.rs`: whole models written in memory (the vision model).
//!
//! A rewrite parses the model's graph into a `Graph` (nodes, initialisers, who produces and who
//! reads each value), decides which nodes to replace or remove, and emits the model with every
//! other byte copied as it is. No protobuf schema or code generation is involved: only the few
//! fields a rewrite reads are decoded. Malformed bytes are errors, never panics.

pub(crate) mod build;
pub mod fuse;
pub(crate) mod graph;
pub mod int8;
#[cfg(test)]
pub(crate) mod test_model;
pub(crate) mod wire;
