//! Writing a whole model: graphs built in memory from weights read elsewhere (the vision model).

use super::wire::{put_bytes, put_number};

/// `TensorProto` data type FLOAT.
pub const FLOAT: u64 = 1;

/// A float `TensorProto` named `name` (raw little-endian data).
pub fn tensor_f32(name: &str, dims: &[usize], values: &[f32]) -> Vec<u8> {
    let mut t = Vec::with_capacity(values.len() * 4 + 64);
    for d in dims {
        put_number(&mut t, 1, *d as u64);
    }
    put_number(&mut t, 2, FLOAT);
    put_bytes(&mut t, 8, name.as_bytes());
    let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    put_bytes(&mut t, 9, &raw);
    t
}

/// A dimension of a value's shape: a fixed size or a named free one (`batch`).
#[derive(Debug, Clone, Copy)]
pub enum Dim<'a> {
    Fixed(usize),
    Named(&'a str),
}

/// A float `ValueInfoProto` with its shape.
pub fn value_info_f32(name: &str, dims: &[Dim<'_>]) -> Vec<u8> {
    let mut shape = Vec::new();
    for d in dims {
        let mut dim = Vec::new();
        match d {
            Dim::Fixed(n) => put_number(&mut dim, 1, *n as u64),
            Dim::Named(s) => put_bytes(&mut dim, 2, s.as_bytes()),
        }
        put_bytes(&mut shape, 1, &dim);
    }
    let mut tensor = Vec::new();
    put_number(&mut tensor, 1, FLOAT);
    put_bytes(&mut tensor, 2, &shape);
    let mut ty = Vec::new();
    put_bytes(&mut ty, 1, &tensor);
    let mut v = Vec::new();
    put_bytes(&mut v, 1, name.as_bytes());
    put_bytes(&mut v, 2, &ty);
    v
}

/// A `GraphProto` under construction: nodes, initialisers, inputs and outputs.
#[derive(Debug, Default)]
pub struct GraphBuilder {
    graph: Vec<u8>,
}

impl GraphBuilder {
    pub fn node(&mut self, encoded: &[u8]) {
        put_bytes(&mut self.graph, 1, encoded);
    }

    pub fn initializer(&mut self, tensor: &[u8]) {
        put_bytes(&mut self.graph, 5, tensor);
    }

    pub fn input(&mut self, value_info: &[u8]) {
        put_bytes(&mut self.graph, 11, value_info);
    }

    pub fn output(&mut self, value_info: &[u8]) {
        put_bytes(&mut self.graph, 12, value_info);
    }

    /// The `ModelProto` (IR version 8) with the standard operators at `opset`.
    pub fn model(mut self, name: &str, opset: u64) -> Vec<u8> {
        put_bytes(&mut self.graph, 2, name.as_bytes());
        let mut m = Vec::new();
        put_number(&mut m, 1, 8);
        put_bytes(&mut m, 2, b"kino");
        let mut opset_id = Vec::new();
        put_number(&mut opset_id, 2, opset);
        put_bytes(&mut m, 8, &opset_id);
        put_bytes(&mut m, 7, &self.graph);
        m
    }
}
