//! Pieces of ONNX files for the rewrites' tests.

use super::wire::{fields, node, put_bytes, put_number};

/// An integer `AttributeProto`.
pub fn int_attribute(name: &str, value: i64) -> Vec<u8> {
    let mut a = Vec::new();
    put_bytes(&mut a, 1, name.as_bytes());
    put_number(&mut a, 3, value as u64);
    put_number(&mut a, 20, 2);
    a
}

/// A `ModelProto` (IR version 8, the standard operators at version 17) around `graph` (the
/// fields of a `GraphProto`), with the values named in `outputs` added as graph outputs.
pub fn model(mut graph: Vec<u8>, outputs: &[&str]) -> Vec<u8> {
    for name in outputs {
        put_bytes(&mut graph, 12, &value_info(name));
    }
    let mut m = Vec::new();
    put_number(&mut m, 1, 8);
    let mut opset = Vec::new();
    put_number(&mut opset, 2, 17);
    put_bytes(&mut m, 8, &opset);
    put_bytes(&mut m, 7, &graph);
    m
}

/// The nodes of `model`'s graph in order: operator, inputs, outputs.
pub fn nodes(model: &[u8]) -> Vec<(String, Vec<String>, Vec<String>)> {
    let top = fields(model).unwrap();
    let graph = top.iter().find(|f| f.number == 7).unwrap();
    fields(graph.payload)
        .unwrap()
        .iter()
        .filter(|f| f.number == 1)
        .map(|f| {
            let n = node(f.payload).unwrap();
            let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
            (n.op_type.to_string(), strings(&n.inputs), strings(&n.outputs))
        })
        .collect()
}

/// A `TensorProto` with `raw` as its raw data.
pub fn tensor(name: &str, data_type: u64, dims: &[u64], raw: &[u8]) -> Vec<u8> {
    let mut t = Vec::new();
    for d in dims {
        put_number(&mut t, 1, *d);
    }
    put_number(&mut t, 2, data_type);
    put_bytes(&mut t, 8, name.as_bytes());
    put_bytes(&mut t, 9, raw);
    t
}

/// A `ValueInfoProto` with only its name.
pub fn value_info(name: &str) -> Vec<u8> {
    let mut v = Vec::new();
    put_bytes(&mut v, 1, name.as_bytes());
    v
}
