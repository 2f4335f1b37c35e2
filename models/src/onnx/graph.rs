//! A model's one graph indexed for rewriting ([`Graph`]): nodes, initialisers, who produces and
//! who reads each value; the liveness checks of a rewrite; and the model emitted with the
//! rewrite's [`Replacements`], every other byte copied as it is.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::wire::{
    FLOAT, Field, INT64, Initializer, LEN, Node, fields, float_values, initializer, int64_values, node, put_bytes,
    put_number, text,
};

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
