//! Reading and re-emitting ONNX files at the protobuf wire level, for the in-memory graph rewrites
//! ([`crate::onnx_int8`], [`crate::onnx_fuse`]).
//!
//! A rewrite parses the model's graph into a [`Graph`] (nodes, initialisers, who produces and who
//! reads each value), decides which nodes to replace or remove, and [`Graph::emit`]s the model with
//! every other byte copied as it is. No protobuf schema or code generation is involved: only the
//! few fields a rewrite reads are decoded. Malformed bytes are errors, never panics.

use std::collections::{BTreeMap, HashMap, HashSet};

/// Protobuf wire types.
pub(crate) const VARINT: u8 = 0;
pub(crate) const FIXED64: u8 = 1;
pub(crate) const LEN: u8 = 2;
pub(crate) const FIXED32: u8 = 5;

/// ONNX `TensorProto.DataType` values.
pub(crate) const FLOAT: u64 = 1;
pub(crate) const UINT8: u64 = 2;
pub(crate) const INT8: u64 = 3;
pub(crate) const INT64: u64 = 7;

/// ONNX Runtime's contrib operator domain.
pub(crate) const MS_DOMAIN: &str = "com.microsoft";

/// One field of a protobuf message as it stands in the bytes.
#[derive(Debug)]
pub(crate) struct Field<'a> {
    pub number: u64,
    pub wire: u8,
    /// The whole field, key included, to copy it unchanged.
    pub raw: &'a [u8],
    /// The payload of a length-delimited field, or the bytes of a fixed-width one (empty for
    /// varints).
    pub payload: &'a [u8],
    /// The value of a varint field.
    pub value: u64,
}

pub(crate) fn read_varint(buf: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *buf.get(*at).ok_or("the file ends inside a number")?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a number is longer than 64 bits".into())
}

fn take<'a>(buf: &'a [u8], at: &mut usize, len: u64) -> Result<&'a [u8], String> {
    let end = usize::try_from(len)
        .ok()
        .and_then(|len| at.checked_add(len))
        .filter(|&end| end <= buf.len())
        .ok_or("a field runs past the end of its message")?;
    let out = &buf[*at..end];
    *at = end;
    Ok(out)
}

/// The fields of one message, in order.
pub(crate) fn fields(buf: &[u8]) -> Result<Vec<Field<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        let start = at;
        let key = read_varint(buf, &mut at)?;
        let (number, wire) = (key >> 3, (key & 7) as u8);
        let (mut payload, mut value): (&[u8], u64) = (&[], 0);
        match wire {
            VARINT => value = read_varint(buf, &mut at)?,
            FIXED64 => payload = take(buf, &mut at, 8)?,
            FIXED32 => payload = take(buf, &mut at, 4)?,
            LEN => {
                let len = read_varint(buf, &mut at)?;
                payload = take(buf, &mut at, len)?;
            }
            other => return Err(format!("field {number} has wire type {other}, which ONNX files do not use")),
        }
        out.push(Field { number, wire, raw: &buf[start..at], payload, value });
    }
    Ok(out)
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
    put_varint(out, (number << 3) | u64::from(LEN));
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

pub(crate) fn put_number(out: &mut Vec<u8>, number: u64, value: u64) {
    put_varint(out, number << 3);
    put_varint(out, value);
}

fn put_fixed32(out: &mut Vec<u8>, number: u64, bits: u32) {
    put_varint(out, (number << 3) | u64::from(FIXED32));
    out.extend_from_slice(&bits.to_le_bytes());
}

pub(crate) fn text<'a>(field: &Field<'a>) -> Result<&'a str, String> {
    std::str::from_utf8(field.payload).map_err(|_| format!("field {} is not UTF-8 text", field.number))
}

/// The numbers of a repeated integer field, packed or not (appended to `out`).
fn repeated_ints(field: &Field<'_>, out: &mut Vec<i64>) -> Result<(), String> {
    match field.wire {
        VARINT => out.push(field.value as i64),
        LEN => {
            let mut at = 0;
            while at < field.payload.len() {
                out.push(read_varint(field.payload, &mut at)? as i64);
            }
        }
        other => return Err(format!("field {} has wire type {other} for integers", field.number)),
    }
    Ok(())
}

/// What a rewrite reads of a node's attribute (`AttributeProto`).
#[derive(Debug, Default)]
pub(crate) struct Attribute<'a> {
    pub name: &'a str,
    pub int: Option<i64>,
    pub float: Option<f32>,
    pub ints: Vec<i64>,
}

/// What a rewrite needs of a `NodeProto`.
#[derive(Debug, Default)]
pub(crate) struct Node<'a> {
    pub inputs: Vec<&'a str>,
    pub outputs: Vec<&'a str>,
    pub name: &'a str,
    pub op_type: &'a str,
    pub domain: &'a str,
    pub attributes: Vec<Attribute<'a>>,
    /// Whether an attribute holds a graph (`If`, `Loop`, `Scan`), which may read outer values.
    pub subgraph: bool,
}

impl Node<'_> {
    /// Whether this is the standard operator `op` (the default domain).
    pub fn is(&self, op: &str) -> bool {
        self.op_type == op && matches!(self.domain, "" | "ai.onnx")
    }

    fn attribute(&self, name: &str) -> Option<&Attribute<'_>> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The integer attribute `name`.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.attribute(name).and_then(|a| a.int)
    }

    /// The integer-list attribute `name`.
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        self.attribute(name).map(|a| a.ints.as_slice())
    }
}

pub(crate) fn node(buf: &[u8]) -> Result<Node<'_>, String> {
    let mut node = Node::default();
    for f in fields(buf)? {
        match (f.number, f.wire) {
            (1, LEN) => node.inputs.push(text(&f)?),
            (2, LEN) => node.outputs.push(text(&f)?),
            (3, LEN) => node.name = text(&f)?,
            (4, LEN) => node.op_type = text(&f)?,
            (7, LEN) => node.domain = text(&f)?,
            (5, LEN) => {
                let mut attribute = Attribute::default();
                for a in fields(f.payload)? {
                    match (a.number, a.wire) {
                        (1, LEN) => attribute.name = text(&a)?,
                        (2, FIXED32) => {
                            attribute.float = Some(f32::from_le_bytes(a.payload.try_into().unwrap_or([0; 4])))
                        }
                        (3, VARINT) => attribute.int = Some(a.value as i64),
                        (8, VARINT | LEN) => repeated_ints(&a, &mut attribute.ints)?,
                        (6 | 11, _) => node.subgraph = true,
                        _ => {}
                    }
                }
                node.attributes.push(attribute);
            }
            _ => {}
        }
    }
    Ok(node)
}

/// An attribute to write on a new node.
pub(crate) enum NewAttribute<'a> {
    Int(&'a str, i64),
    Float(&'a str, f32),
    Ints(&'a str, &'a [i64]),
    Str(&'a str, &'a str),
}

/// A `NodeProto`.
pub(crate) fn encode_node(
    op_type: &str,
    domain: &str,
    inputs: &[&str],
    outputs: &[&str],
    name: &str,
    attributes: &[NewAttribute<'_>],
) -> Vec<u8> {
    let mut out = Vec::new();
    for input in inputs {
        put_bytes(&mut out, 1, input.as_bytes());
    }
    for output in outputs {
        put_bytes(&mut out, 2, output.as_bytes());
    }
    put_bytes(&mut out, 3, name.as_bytes());
    put_bytes(&mut out, 4, op_type.as_bytes());
    for attribute in attributes {
        // AttributeProto: name (1), f (2), i (3), type (20: FLOAT = 1, INT = 2).
        let mut a = Vec::new();
        match attribute {
            NewAttribute::Int(name, value) => {
                put_bytes(&mut a, 1, name.as_bytes());
                put_number(&mut a, 3, *value as u64);
                put_number(&mut a, 20, 2);
            }
            NewAttribute::Float(name, value) => {
                put_bytes(&mut a, 1, name.as_bytes());
                put_fixed32(&mut a, 2, value.to_bits());
                put_number(&mut a, 20, 1);
            }
            NewAttribute::Ints(name, values) => {
                // ints (8), type INTS = 7
                put_bytes(&mut a, 1, name.as_bytes());
                for v in *values {
                    put_number(&mut a, 8, *v as u64);
                }
                put_number(&mut a, 20, 7);
            }
            NewAttribute::Str(name, value) => {
                // s (4), type STRING = 3
                put_bytes(&mut a, 1, name.as_bytes());
                put_bytes(&mut a, 4, value.as_bytes());
                put_number(&mut a, 20, 3);
            }
        }
        put_bytes(&mut out, 5, &a);
    }
    put_bytes(&mut out, 7, domain.as_bytes());
    out
}

/// What a rewrite needs of an initialiser (`TensorProto`).
#[derive(Debug)]
pub(crate) struct Initializer {
    /// Index of the initialiser among the graph's fields.
    pub field: usize,
    pub dims: Vec<u64>,
    pub data_type: u64,
}

pub(crate) fn initializer(buf: &[u8], field: usize) -> Result<(String, Initializer), String> {
    let (mut name, mut dims, mut data_type) = (String::new(), Vec::new(), 0);
    for f in fields(buf)? {
        match (f.number, f.wire) {
            (1, VARINT) => dims.push(f.value),
            (1, LEN) => {
                let mut at = 0;
                while at < f.payload.len() {
                    dims.push(read_varint(f.payload, &mut at)?);
                }
            }
            (2, VARINT) => data_type = f.value,
            (8, LEN) => name = text(&f)?.to_string(),
            _ => {}
        }
    }
    Ok((name, Initializer { field, dims, data_type }))
}

/// The values of a float tensor (`raw_data`, or `float_data`).
pub(crate) fn float_values(tensor: &[u8]) -> Result<Vec<f32>, String> {
    let mut out = Vec::new();
    for f in fields(tensor)? {
        match (f.number, f.wire) {
            (9, LEN) => {
                let words = f.payload.chunks_exact(4);
                if !words.remainder().is_empty() {
                    return Err("a float tensor's raw data is not a whole number of floats".into());
                }
                out.extend(words.map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])));
            }
            (4, LEN) => out.extend(f.payload.chunks_exact(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))),
            (4, FIXED32) => out.push(f32::from_le_bytes([f.payload[0], f.payload[1], f.payload[2], f.payload[3]])),
            _ => {}
        }
    }
    Ok(out)
}

/// The values of an int64 tensor (`raw_data`, or `int64_data`).
pub(crate) fn int64_values(tensor: &[u8]) -> Result<Vec<i64>, String> {
    let mut out = Vec::new();
    for f in fields(tensor)? {
        match (f.number, f.wire) {
            (9, LEN) => {
                let words = f.payload.chunks_exact(8);
                if !words.remainder().is_empty() {
                    return Err("an int64 tensor's raw data is not a whole number of values".into());
                }
                out.extend(words.map(|w| i64::from_le_bytes(w.try_into().unwrap_or([0; 8]))));
            }
            (7, VARINT | LEN) => repeated_ints(&f, &mut out)?,
            _ => {}
        }
    }
    Ok(out)
}

/// `tensor` with its dimensions replaced by `dims` (every other field kept).
pub(crate) fn with_dims(tensor: &[u8], dims: &[u64]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(tensor.len() + 8);
    let mut packed = Vec::new();
    for d in dims {
        put_varint(&mut packed, *d);
    }
    put_bytes(&mut out, 1, &packed);
    for f in fields(tensor)? {
        if f.number != 1 {
            out.extend_from_slice(f.raw);
        }
    }
    Ok(out)
}

/// What a rewrite puts in the place of graph fields: for each field's index, the payloads of the
/// fields (of the same number) that stand there instead, in order. A node's place can hold several
/// nodes.
pub(crate) type Replacements = HashMap<usize, Vec<Vec<u8>>>;

/// The inputs or outputs (`pick`) of the nodes encoded in `nodes`, in order.
fn values_of(nodes: &[Vec<u8>], pick: impl Fn(Node<'_>) -> Vec<&str>) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for bytes in nodes {
        out.extend(pick(node(bytes)?).into_iter().map(str::to_string));
    }
    Ok(out)
}

/// A model's one graph, indexed for rewriting.
pub(crate) struct Graph<'a> {
    /// The model's fields.
    top: Vec<Field<'a>>,
    /// The graph's fields (nodes, initialisers, inputs, outputs...), in file order.
    pub fields: Vec<Field<'a>>,
    /// The nodes by their index among [`Graph::fields`], so that iterating goes in the graph's order.
    pub nodes: BTreeMap<usize, Node<'a>>,
    pub initializers: HashMap<String, Initializer>,
    pub outputs: HashSet<&'a str>,
    /// The node that computes each value.
    pub producer: HashMap<&'a str, usize>,
    /// The nodes that read each value, once per input that names it.
    pub readers: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Graph<'a> {
    /// Parses `model` (an ONNX `ModelProto` with one graph).
    pub fn parse(model: &'a [u8]) -> Result<Graph<'a>, String> {
        let top = fields(model)?;
        let graphs: Vec<&Field> = top.iter().filter(|f| f.number == 7 && f.wire == LEN).collect();
        let [graph] = graphs.as_slice() else {
            return Err(format!("expected one graph in the model, found {}", graphs.len()));
        };
        let g = fields(graph.payload)?;
        let mut nodes = BTreeMap::new();
        let mut initializers = HashMap::new();
        let mut outputs = HashSet::new();
        for (i, f) in g.iter().enumerate() {
            match (f.number, f.wire) {
                (1, LEN) => drop(nodes.insert(i, node(f.payload)?)),
                (5, LEN) => {
                    let (name, init) = initializer(f.payload, i)?;
                    initializers.insert(name, init);
                }
                (12, LEN) => {
                    if let Some(name) = fields(f.payload)?.iter().find(|v| v.number == 1 && v.wire == LEN) {
                        outputs.insert(text(name)?);
                    }
                }
                _ => {}
            }
        }
        let mut producer = HashMap::new();
        let mut readers: HashMap<&str, Vec<usize>> = HashMap::new();
        for (&i, n) in &nodes {
            for o in &n.outputs {
                producer.insert(*o, i);
            }
            for input in &n.inputs {
                readers.entry(*input).or_default().push(i);
            }
        }
        Ok(Graph { top, fields: g, nodes, initializers, outputs, producer, readers })
    }

    /// Whether a node holds a subgraph (whose reads of outer values are not indexed).
    pub fn has_subgraphs(&self) -> bool {
        self.nodes.values().any(|n| n.subgraph)
    }

    /// How many node inputs read `name`.
    pub fn uses(&self, name: &str) -> usize {
        self.readers.get(name).map_or(0, Vec::len)
    }

    /// Whether `name` is read by exactly one node input and is not an output of the graph.
    pub fn private(&self, name: &str) -> bool {
        self.uses(name) == 1 && !self.outputs.contains(name)
    }

    /// The node that computes `name`, if it is the standard operator `op`.
    pub fn produced_by(&self, name: &str, op: &str) -> Option<(usize, &Node<'a>)> {
        let &i = self.producer.get(name)?;
        let n = &self.nodes[&i];
        n.is(op).then_some((i, n))
    }

    /// The one node that reads `name`, if `name` is private and that node is the standard operator `op`.
    pub fn read_by(&self, name: &str, op: &str) -> Option<(usize, &Node<'a>)> {
        if !self.private(name) {
            return None;
        }
        let &i = self.readers.get(name)?.first()?;
        let n = &self.nodes[&i];
        n.is(op).then_some((i, n))
    }

    /// The one value of a float initialiser.
    pub fn scalar_f32(&self, name: &str) -> Option<f32> {
        let init = self.initializers.get(name)?;
        if init.data_type != FLOAT || init.dims.iter().product::<u64>() != 1 {
            return None;
        }
        match float_values(self.fields[init.field].payload).ok()?.as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }

    /// The values of an int64 initialiser.
    pub fn int64s(&self, name: &str) -> Option<Vec<i64>> {
        let init = self.initializers.get(name)?;
        if init.data_type != INT64 {
            return None;
        }
        int64_values(self.fields[init.field].payload).ok()
    }

    /// The nodes that compute nothing anything reads (no reader, not a graph output), found again
    /// after each removal so that chains of them go too. `removed` is taken as already gone.
    pub fn dead_nodes(&self, removed: &HashSet<usize>, replaced: &Replacements) -> Result<HashSet<usize>, String> {
        // What the kept nodes read, counting a replaced node by its new inputs.
        let mut reads: HashMap<String, usize> = HashMap::new();
        let mut inputs_of: HashMap<usize, Vec<String>> = HashMap::new();
        for (&i, n) in &self.nodes {
            if removed.contains(&i) {
                continue;
            }
            let inputs: Vec<String> = match replaced.get(&i) {
                Some(nodes) => values_of(nodes, |n| n.inputs)?,
                None => n.inputs.iter().map(|s| s.to_string()).collect(),
            };
            for input in &inputs {
                *reads.entry(input.clone()).or_default() += 1;
            }
            inputs_of.insert(i, inputs);
        }
        let mut dead = HashSet::new();
        loop {
            let before = dead.len();
            for (&i, n) in self.nodes.iter().rev() {
                if removed.contains(&i) || dead.contains(&i) || n.outputs.is_empty() {
                    continue;
                }
                let outputs: Vec<String> = match replaced.get(&i) {
                    Some(nodes) => values_of(nodes, |n| n.outputs)?,
                    None => n.outputs.iter().map(|s| s.to_string()).collect(),
                };
                let read = outputs.iter().any(|o| {
                    o.is_empty() || self.outputs.contains(o.as_str()) || reads.get(o).copied().unwrap_or(0) > 0
                });
                if !read {
                    dead.insert(i);
                    for input in &inputs_of[&i] {
                        if let Some(count) = reads.get_mut(input) {
                            *count -= 1;
                        }
                    }
                }
            }
            if dead.len() == before {
                return Ok(dead);
            }
        }
    }

    /// Whether, with the nodes in `removed` gone and those in `replaced` swapped, every value a
    /// node or the graph's outputs read is still computed (or is an input or initialiser).
    pub fn consistent(&self, replaced: &Replacements, removed: &HashSet<usize>) -> Result<bool, String> {
        let mut lost: HashSet<&str> = HashSet::new();
        for (i, n) in &self.nodes {
            if removed.contains(i) || replaced.contains_key(i) {
                lost.extend(n.outputs.iter().copied());
            }
        }
        // Only the replacements of nodes are nodes (an initialiser's place holds a tensor).
        let new_nodes = |i: &usize| replaced.get(i).filter(|_| !removed.contains(i));
        let mut made = Vec::new();
        for i in self.nodes.keys() {
            if let Some(nodes) = new_nodes(i) {
                made.extend(values_of(nodes, |n| n.outputs)?);
            }
        }
        for o in &made {
            lost.remove(o.as_str());
        }
        for (i, n) in &self.nodes {
            if removed.contains(i) {
                continue;
            }
            let reads_lost = match new_nodes(i) {
                Some(nodes) => values_of(nodes, |n| n.inputs)?.iter().any(|v| lost.contains(v.as_str())),
                None => n.inputs.iter().any(|v| lost.contains(v)),
            };
            if reads_lost {
                return Ok(false);
            }
        }
        Ok(!self.outputs.iter().any(|o| lost.contains(o)))
    }

    /// The model with the graph's fields in `replaced` swapped for their new fields and those in
    /// `removed` left out; `domain`, when given, is imported (version 1) unless it already is.
    pub fn emit(
        &self,
        replaced: &Replacements,
        removed: &HashSet<usize>,
        domain: Option<&str>,
        size: usize,
    ) -> Result<Vec<u8>, String> {
        let mut new_graph = Vec::with_capacity(size);
        for (i, f) in self.fields.iter().enumerate() {
            if removed.contains(&i) {
                continue;
            }
            match replaced.get(&i) {
                Some(payloads) => payloads.iter().for_each(|bytes| put_bytes(&mut new_graph, f.number, bytes)),
                None => new_graph.extend_from_slice(f.raw),
            }
        }
        let mut out = Vec::with_capacity(size);
        let mut imported = false;
        for f in &self.top {
            if f.number == 7 && f.wire == LEN {
                put_bytes(&mut out, 7, &new_graph);
                continue;
            }
            if let Some(domain) = domain
                && f.number == 8
                && f.wire == LEN
            {
                imported |= fields(f.payload)?.iter().any(|d| d.number == 1 && d.payload == domain.as_bytes());
            }
            out.extend_from_slice(f.raw);
        }
        if let Some(domain) = domain
            && !imported
        {
            let mut opset = Vec::new();
            put_bytes(&mut opset, 1, domain.as_bytes());
            put_number(&mut opset, 2, 1);
            put_bytes(&mut out, 8, &opset);
        }
        Ok(out)
    }
}

/// Pieces of ONNX files for the rewrites' tests.
/// Writing a whole model: graphs built in memory from weights read elsewhere (the vision model).
pub(crate) mod build {
    use super::{put_bytes, put_number};

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
}

#[cfg(test)]
pub(crate) mod test_model {
    use super::{fields, node, put_bytes, put_number};

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
}
