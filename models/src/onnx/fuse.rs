//! Fused attention and GELU for transformer encoders exported op by op.
//!
//! The sentence model's file was exported from PyTorch's `scaled_dot_product_attention` as about
//! twenty small operators per layer (reshapes and transposes into heads, the scaled product, the
//! mask added, softmax, a NaN guard, the weighted sum, and back), and its GELU as five
//! (`x · 0.5 · (1 + erf(x / √2))`). ONNX Runtime's own fusions do not recognise this export, so
//! each small operator runs as its own kernel; for a short query they cost about as much as the
//! matrix products. [`fuse_attention`] rewrites each such attention block into ONNX Runtime's
//! `com.microsoft.MultiHeadAttention` and each GELU into `com.microsoft.Gelu`: the same arithmetic
//! in one kernel each. The shape computations that only fed the removed nodes are dropped too.
//!
//! Nothing is approximated: in float the fused graph gives the token vectors of the exported one
//! to rounding (the model tests compare them; with int8 products a last-bit difference can move a
//! quantised input one step, see `docs/models.md`), with one difference by construction: the
//! export's NaN guard, which zeroes the attention of a query whose every key is masked, is not
//! kept. A text always has its `[CLS]` and `[SEP]` tokens unmasked, so no query of the sentence
//! encoder has every key masked.
//!
//! A block is fused only when every node of the pattern is there, reads what the pattern says and
//! is read by nothing else; anything else is left as it is. Not checked: the target shapes of the
//! key's two inner reshapes and of the output reshape, which the export computes at run time from
//! `Shape`s (the pattern's transposes fix their meaning for this export; the model test compares
//! the fused graph with the exported one).

use std::collections::{HashMap, HashSet};

use super::graph::{Graph, Replacements};
use super::wire::{MS_DOMAIN, NewAttribute, Node, encode_node};

/// What [`fuse_attention`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fused {
    /// Attention blocks now one `MultiHeadAttention` each.
    pub attention: usize,
    /// GELUs now one `Gelu` each.
    pub gelu: usize,
    /// Other nodes removed because nothing reads them (the shape computations of the removed
    /// nodes, and any node the file already left unread).
    pub dead: usize,
}

/// One attention block found in the graph.
struct Attention<'a> {
    /// The node the fused operator takes the place of: the last of the block (the reshape back
    /// from heads), which comes after everything the operator reads.
    at: usize,
    /// Every other node of the block, removed.
    nodes: Vec<usize>,
    query: &'a str,
    key: &'a str,
    value: &'a str,
    mask: &'a str,
    heads: i64,
    scale: f32,
    output: &'a str,
}

/// `node` when it is the standard operator `op` with `inputs` inputs and one output.
fn shaped<'n, 'a>(found: Option<(usize, &'n Node<'a>)>, inputs: usize) -> Option<(usize, &'n Node<'a>)> {
    found.filter(|(_, n)| n.inputs.len() == inputs && n.outputs.len() == 1)
}

/// Whether only one node reads `name` besides `Shape`s (the export computes the next reshape's
/// shape from it; those `Shape`s are dropped with the block, and [`fuse_attention`] checks that
/// nothing left reads a removed value).
fn private_but_shapes(g: &Graph<'_>, name: &str) -> bool {
    let readers = g.readers.get(name).map_or(&[][..], Vec::as_slice);
    let others = readers.iter().filter(|&&i| !g.nodes[&i].is("Shape")).count();
    others == 1 && !g.outputs.contains(name)
}

/// The `Transpose` that makes `name`, with permutation `perm`, when only the block reads its result.
fn transpose<'n, 'a>(g: &'n Graph<'a>, name: &str, perm: &[i64]) -> Option<(usize, &'n Node<'a>)> {
    shaped(g.produced_by(name, "Transpose"), 1)
        .filter(|(_, n)| n.ints("perm") == Some(perm) && private_but_shapes(g, name))
}

/// The `Reshape` that makes `name`, when only the block reads its result.
fn reshape<'n, 'a>(g: &'n Graph<'a>, name: &str) -> Option<(usize, &'n Node<'a>)> {
    shaped(g.produced_by(name, "Reshape"), 2).filter(|_| private_but_shapes(g, name))
}

/// `Mul(x, c)` (either order) with `c` a one-value float initialiser, that makes `name`: `(i, x, c)`.
fn scaled<'a>(g: &Graph<'a>, name: &str) -> Option<(usize, &'a str, f32)> {
    let (i, n) = shaped(g.produced_by(name, "Mul"), 2)?;
    if !g.private(name) {
        return None;
    }
    match (g.scalar_f32(n.inputs[0]), g.scalar_f32(n.inputs[1])) {
        (None, Some(c)) => Some((i, n.inputs[0], c)),
        (Some(c), None) => Some((i, n.inputs[1], c)),
        _ => None,
    }
}

/// The width of the value `name` when its producer says it: a product with `[K, N]` weights
/// (`MatMul`, `DynamicQuantizeMatMul`) or an `Add` of an `[N]` bias.
fn width(g: &Graph<'_>, name: &str) -> Option<u64> {
    let n = &g.nodes[g.producer.get(name)?];
    let dims = |value: &str| g.initializers.get(value).map(|i| i.dims.clone());
    match (n.op_type, n.domain) {
        ("MatMul", "" | "ai.onnx") | ("DynamicQuantizeMatMul", MS_DOMAIN) => match dims(n.inputs.get(1)?)?.as_slice() {
            [_, n] => Some(*n),
            _ => None,
        },
        ("Add", "" | "ai.onnx") => n.inputs.iter().find_map(|i| match dims(i)?.as_slice() {
            [n] => Some(*n),
            _ => None,
        }),
        _ => None,
    }
}

/// The head size a `[batch, sequence, heads, head size]` reshape names as its last dimension: the
/// shape is an int64 initialiser, or a `Concat` whose last part is one.
fn head_size(g: &Graph<'_>, shape: &str) -> Option<i64> {
    let last = match g.int64s(shape) {
        Some(dims) => *dims.last()?,
        None => {
            let (_, concat) = g.produced_by(shape, "Concat")?;
            match g.int64s(concat.inputs.last()?)?.as_slice() {
                [d] => *d,
                _ => return None,
            }
        }
    };
    (last > 0).then_some(last)
}

/// The attention block whose softmax is node `s`, when the whole export pattern is there:
///
/// ```text
/// q = Transpose(Reshape(Q, shape), 0213) · cq
/// k = Reshape(Transpose(Reshape(Transpose(Reshape(K, shape), 0213)), 021)) · ck
/// p = Softmax(MatMul(q, k) + mask)            (then, optionally, Where(IsNaN(p), 0, p))
/// out = Reshape(Transpose(MatMul(p, Transpose(Reshape(V, shape), 0213)), 0213))
/// ```
fn attention<'a>(g: &Graph<'a>, s: usize) -> Option<Attention<'a>> {
    let softmax = &g.nodes[&s];
    if !softmax.is("Softmax")
        || softmax.inputs.len() != 1
        || softmax.outputs.len() != 1
        || !matches!(softmax.int("axis"), Some(-1 | 3))
    {
        return None;
    }
    let mut nodes = vec![s];
    let (add_at, add) = shaped(g.produced_by(softmax.inputs[0], "Add"), 2).filter(|_| g.private(softmax.inputs[0]))?;
    nodes.push(add_at);
    let (scores, mask) = if g.producer.get(add.inputs[0]).is_some_and(|&i| g.nodes[&i].is("MatMul")) {
        (add.inputs[0], add.inputs[1])
    } else {
        (add.inputs[1], add.inputs[0])
    };
    let (mm_at, mm) = shaped(g.produced_by(scores, "MatMul"), 2).filter(|_| g.private(scores))?;
    nodes.push(mm_at);

    // The query, in heads, scaled.
    let (mq, q_heads, cq) = scaled(g, mm.inputs[0])?;
    let (tq, tq_node) = transpose(g, q_heads, &[0, 2, 1, 3])?;
    let (rq, rq_node) = reshape(g, tq_node.inputs[0])?;
    nodes.extend([mq, tq, rq]);
    let (query, shape) = (rq_node.inputs[0], rq_node.inputs[1]);

    // The key, in heads, transposed for the product, scaled.
    let (mk, k_t, ck) = scaled(g, mm.inputs[1])?;
    let (rk2, rk2_node) = reshape(g, k_t)?;
    let (tk2, tk2_node) = transpose(g, rk2_node.inputs[0], &[0, 2, 1])?;
    let (rk1, rk1_node) = reshape(g, tk2_node.inputs[0])?;
    let (tk, tk_node) = transpose(g, rk1_node.inputs[0], &[0, 2, 1, 3])?;
    let (rk, rk_node) = reshape(g, tk_node.inputs[0])?;
    nodes.extend([mk, rk2, tk2, rk1, tk, rk]);
    if rk_node.inputs[1] != shape {
        return None;
    }

    // The probabilities, through the NaN guard when there is one.
    let probabilities = softmax.outputs[0];
    let weights = match g.readers.get(probabilities).map(Vec::as_slice) {
        Some(&[a, b]) if !g.outputs.contains(probabilities) => {
            let (isnan_at, where_at) = if g.nodes[&a].is("IsNaN") { (a, b) } else { (b, a) };
            let (isnan, guard) = (&g.nodes[&isnan_at], &g.nodes[&where_at]);
            let guarded = isnan.is("IsNaN")
                && isnan.outputs.len() == 1
                && guard.is("Where")
                && guard.outputs.len() == 1
                && guard.inputs.len() == 3
                && guard.inputs[0] == isnan.outputs[0]
                && g.private(isnan.outputs[0])
                && g.scalar_f32(guard.inputs[1]) == Some(0.0)
                && guard.inputs[2] == probabilities;
            if !guarded {
                return None;
            }
            nodes.extend([isnan_at, where_at]);
            guard.outputs[0]
        }
        _ => probabilities,
    };
    let (mv_at, mv) = shaped(g.read_by(weights, "MatMul"), 2).filter(|(_, n)| n.inputs[0] == weights)?;
    let (tv, tv_node) = transpose(g, mv.inputs[1], &[0, 2, 1, 3])?;
    let (rv, rv_node) = reshape(g, tv_node.inputs[0])?;
    nodes.extend([mv_at, tv, rv]);
    if rv_node.inputs[1] != shape {
        return None;
    }

    // Back from heads.
    let (to_at, to) = shaped(g.read_by(mv.outputs[0], "Transpose"), 1)?;
    if to.ints("perm") != Some(&[0, 2, 1, 3]) {
        return None;
    }
    let (ro_at, ro) = shaped(g.read_by(to.outputs[0], "Reshape"), 2)?;
    nodes.push(to_at);

    let head_size = head_size(g, shape)?;
    let hidden = i64::try_from(width(g, query)?).ok()?;
    let same_width = [rk_node.inputs[0], rv_node.inputs[0]].iter().all(|v| width(g, v) == Some(hidden as u64));
    // ONNX Runtime reads a scale of 0 as "the default, 1/√head size".
    let scale = cq * ck;
    if !same_width || hidden % head_size != 0 || !scale.is_finite() || scale <= 0.0 {
        return None;
    }
    Some(Attention {
        at: ro_at,
        nodes,
        query,
        key: rk_node.inputs[0],
        value: rv_node.inputs[0],
        mask,
        heads: hidden / head_size,
        scale,
        output: ro.outputs[0],
    })
}

/// The GELU whose `Erf` is node `e`: `Mul(x, Mul(Add(Erf(Div(x, √2)), 1), 0.5))` (each product in
/// either order): `(nodes removed, x, output)`.
fn gelu<'a>(g: &Graph<'a>, e: usize) -> Option<(Vec<usize>, &'a str, &'a str)> {
    let erf = &g.nodes[&e];
    if !erf.is("Erf") || erf.inputs.len() != 1 || erf.outputs.len() != 1 {
        return None;
    }
    let (div_at, div) = shaped(g.produced_by(erf.inputs[0], "Div"), 2).filter(|_| g.private(erf.inputs[0]))?;
    let x = div.inputs[0];
    if (g.scalar_f32(div.inputs[1])? - std::f32::consts::SQRT_2).abs() > 1e-6 {
        return None;
    }
    // `c + y` or `y + c`, `c` a one-value float initialiser, read only by `op`: `(i, node)`.
    let by_constant = |value: &str, op: &str, c: f32| {
        shaped(g.read_by(value, op), 2).filter(|(_, n)| {
            let other = if n.inputs[0] == value { n.inputs[1] } else { n.inputs[0] };
            g.scalar_f32(other) == Some(c)
        })
    };
    let (add_at, add) = by_constant(erf.outputs[0], "Add", 1.0)?;
    let (half_at, half) = by_constant(add.outputs[0], "Mul", 0.5)?;
    let (out_at, out) = shaped(g.read_by(half.outputs[0], "Mul"), 2)?;
    if !out.inputs.contains(&x) || out.inputs.iter().all(|i| *i != half.outputs[0]) {
        return None;
    }
    Some((vec![div_at, e, add_at, half_at, out_at], x, out.outputs[0]))
}

/// Rewrites the attention blocks and GELUs of `model` (an ONNX `ModelProto`) exported op by op
/// into ONNX Runtime's fused `MultiHeadAttention` and `Gelu` (see the module docs), and drops the
/// nodes nothing reads any more. Returns the new model and what was fused (nothing: the bytes are
/// unchanged). A graph with subgraphs (`If`, `Loop`, `Scan`) is left unchanged. Malformed bytes
/// are an error, never a panic.
pub fn fuse_attention(model: &[u8]) -> Result<(Vec<u8>, Fused), String> {
    let graph = Graph::parse(model)?;
    if graph.has_subgraphs() {
        return Ok((model.to_vec(), Fused::default()));
    }
    let mut replaced: Replacements = HashMap::new();
    let mut removed: HashSet<usize> = HashSet::new();
    let mut fused = Fused::default();
    let name = |n: &Node<'_>, suffix: &str, output: &str| {
        if n.name.is_empty() { format!("{output}/{suffix}") } else { format!("{}/{suffix}", n.name) }
    };
    for (&i, n) in &graph.nodes {
        if n.is("Softmax")
            && let Some(a) = attention(&graph, i)
            && a.nodes.iter().chain([&a.at]).all(|n| !removed.contains(n) && !replaced.contains_key(n))
        {
            // MultiHeadAttention inputs: query, key, value, bias, key_padding_mask, attention_bias.
            let inputs = [a.query, a.key, a.value, "", "", a.mask];
            let attributes = [NewAttribute::Int("num_heads", a.heads), NewAttribute::Float("scale", a.scale)];
            let node_name = name(n, "attention", a.output);
            let mha = encode_node("MultiHeadAttention", MS_DOMAIN, &inputs, &[a.output], &node_name, &attributes);
            replaced.insert(a.at, vec![mha]);
            removed.extend(a.nodes);
            fused.attention += 1;
        }
        if n.is("Erf")
            && let Some((nodes, x, output)) = gelu(&graph, i)
            && nodes.iter().all(|n| !removed.contains(n) && !replaced.contains_key(n))
        {
            replaced.insert(i, vec![encode_node("Gelu", MS_DOMAIN, &[x], &[output], &name(n, "gelu", output), &[])]);
            removed.extend(nodes.into_iter().filter(|&n| n != i));
            fused.gelu += 1;
        }
    }
    if fused == Fused::default() {
        return Ok((model.to_vec(), fused));
    }
    let dead = graph.dead_nodes(&removed, &replaced)?;
    fused.dead = dead.len();
    removed.extend(dead);
    if !graph.consistent(&replaced, &removed)? {
        // Something left would read a value that is gone: keep the graph as exported.
        return Ok((model.to_vec(), Fused::default()));
    }
    Ok((graph.emit(&replaced, &removed, Some(MS_DOMAIN), model.len())?, fused))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::test_model::{int_attribute, model, nodes, tensor, value_info};
    use crate::onnx::wire::{FLOAT, INT64, put_bytes, put_number};

    fn scalar(name: &str, v: f32) -> Vec<u8> {
        tensor(name, FLOAT, &[], &v.to_le_bytes())
    }

    fn int64s(name: &str, values: &[i64]) -> Vec<u8> {
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        tensor(name, INT64, &[values.len() as u64], &raw)
    }

    /// A standard operator; `perm` and `axis` attributes when given.
    fn op(op: &str, inputs: &[&str], output: &str, perm: &[i64], axis: Option<i64>) -> Vec<u8> {
        let mut n = Vec::new();
        for i in inputs {
            put_bytes(&mut n, 1, i.as_bytes());
        }
        put_bytes(&mut n, 2, output.as_bytes());
        put_bytes(&mut n, 3, format!("node_{output}").as_bytes());
        put_bytes(&mut n, 4, op.as_bytes());
        if !perm.is_empty() {
            let mut a = Vec::new();
            put_bytes(&mut a, 1, b"perm");
            for p in perm {
                put_number(&mut a, 8, *p as u64);
            }
            put_number(&mut a, 20, 7);
            put_bytes(&mut n, 5, &a);
        }
        if let Some(axis) = axis {
            put_bytes(&mut n, 5, &int_attribute("axis", axis));
        }
        n
    }

    /// One encoder layer's attention, exported op by op as the sentence model's file has it
    /// (hidden 4, two heads of 2), then a GELU of its output whose `Div` divides by `divisor`. The
    /// values named in `shared` are also outputs of the graph.
    fn toy_model(divisor: f32, shared: &[&str]) -> Vec<u8> {
        toy_model_ordered(divisor, shared, false)
    }

    /// [`toy_model`], with the value's product computed after the softmax when `late_value`.
    fn toy_model_ordered(divisor: f32, shared: &[&str], late_value: bool) -> Vec<u8> {
        let mut g = Vec::new();
        let mut add = |bytes: Vec<u8>| put_bytes(&mut g, 1, &bytes);
        let projections: &[(&str, &str)] =
            if late_value { &[("wq", "Q"), ("wk", "K")] } else { &[("wq", "Q"), ("wk", "K"), ("wv", "V")] };
        for (w, out) in projections {
            add(op("MatMul", &["x", w], out, &[], None));
        }
        add(op("Reshape", &["Q", "heads"], "q1", &[], None));
        add(op("Transpose", &["q1"], "q2", &[0, 2, 1, 3], None));
        add(op("Mul", &["q2", "c"], "q3", &[], None));
        add(op("Reshape", &["K", "heads"], "k1", &[], None));
        add(op("Transpose", &["k1"], "k2", &[0, 2, 1, 3], None));
        add(op("Shape", &["k2"], "k2_shape", &[], None));
        add(op("Concat", &["minus_one", "k2_shape"], "k3_shape", &[], Some(0)));
        add(op("Reshape", &["k2", "k3_shape"], "k3", &[], None));
        add(op("Transpose", &["k3"], "k4", &[0, 2, 1], None));
        add(op("Reshape", &["k4", "k5_shape"], "k5", &[], None));
        add(op("Mul", &["c", "k5"], "k6", &[], None));
        add(op("MatMul", &["q3", "k6"], "scores", &[], None));
        add(op("Add", &["scores", "mask"], "masked", &[], None));
        add(op("Softmax", &["masked"], "p", &[], Some(-1)));
        add(op("IsNaN", &["p"], "nan", &[], None));
        add(op("Where", &["nan", "zero", "p"], "pw", &[], None));
        if late_value {
            add(op("MatMul", &["x", "wv"], "V", &[], None));
        }
        add(op("Reshape", &["V", "heads"], "v1", &[], None));
        add(op("Transpose", &["v1"], "v2", &[0, 2, 1, 3], None));
        add(op("MatMul", &["pw", "v2"], "o1", &[], None));
        add(op("Transpose", &["o1"], "o2", &[0, 2, 1, 3], None));
        add(op("Reshape", &["o2", "flat"], "attended", &[], None));
        add(op("Div", &["attended", "root2"], "d", &[], None));
        add(op("Erf", &["d"], "e", &[], None));
        add(op("Add", &["e", "one"], "a", &[], None));
        add(op("Mul", &["half", "a"], "h", &[], None));
        add(op("Mul", &["attended", "h"], "y", &[], None));
        put_bytes(&mut g, 2, b"toy");
        for w in ["wq", "wk", "wv"] {
            put_bytes(&mut g, 5, &tensor(w, FLOAT, &[4, 4], &[0; 64]));
        }
        put_bytes(&mut g, 5, &int64s("heads", &[0, 0, -1, 2]));
        put_bytes(&mut g, 5, &int64s("minus_one", &[-1]));
        put_bytes(&mut g, 5, &int64s("k5_shape", &[1, 2, 2, 3]));
        put_bytes(&mut g, 5, &int64s("flat", &[1, 3, 4]));
        put_bytes(&mut g, 5, &scalar("c", 0.840_896_4));
        put_bytes(&mut g, 5, &scalar("zero", 0.0));
        put_bytes(&mut g, 5, &scalar("root2", divisor));
        put_bytes(&mut g, 5, &scalar("one", 1.0));
        put_bytes(&mut g, 5, &scalar("half", 0.5));
        put_bytes(&mut g, 11, &value_info("x"));
        put_bytes(&mut g, 11, &value_info("mask"));
        model(g, &[&["y"], shared].concat())
    }

    #[test]
    fn an_exported_attention_and_gelu_become_two_operators() {
        let (out, fused) = fuse_attention(&toy_model(std::f32::consts::SQRT_2, &[])).unwrap();
        assert_eq!(fused, Fused { attention: 1, gelu: 1, dead: 2 }, "Shape and Concat fed only the removed nodes");
        let nodes = nodes(&out);
        let ops: Vec<&str> = nodes.iter().map(|n| n.0.as_str()).collect();
        assert_eq!(ops, ["MatMul", "MatMul", "MatMul", "MultiHeadAttention", "Gelu"]);
        assert_eq!(nodes[3].1, ["Q", "K", "V", "", "", "mask"]);
        assert_eq!(nodes[3].2, ["attended"]);
        assert_eq!(
            (nodes[4].1.as_slice(), nodes[4].2.as_slice()),
            (&["attended".to_string()][..], &["y".to_string()][..])
        );
        let graph = Graph::parse(&out).unwrap();
        let mha = graph.nodes.values().find(|n| n.op_type == "MultiHeadAttention").unwrap();
        assert_eq!(mha.domain, MS_DOMAIN);
        assert_eq!(mha.int("num_heads"), Some(2), "hidden 4 over heads of 2");
        let scale = mha.attributes.iter().find(|a| a.name == "scale").and_then(|a| a.float).unwrap();
        assert!((scale - 1.0 / 2f32.sqrt()).abs() < 1e-6, "the two scales multiplied: {scale}");
        // Fusing again finds nothing more and changes nothing.
        assert_eq!(fuse_attention(&out).unwrap(), (out.clone(), Fused::default()));
    }

    #[test]
    fn the_fused_operator_comes_after_everything_it_reads() {
        // The value's product after the softmax: the fused operator must not take the softmax's
        // place, which comes before its input.
        let (out, fused) = fuse_attention(&toy_model_ordered(std::f32::consts::SQRT_2, &[], true)).unwrap();
        assert_eq!((fused.attention, fused.gelu), (1, 1));
        let nodes = nodes(&out);
        let ops: Vec<&str> = nodes.iter().map(|n| n.0.as_str()).collect();
        assert_eq!(ops, ["MatMul", "MatMul", "MatMul", "MultiHeadAttention", "Gelu"]);
        assert_eq!(nodes[2].2, ["V"]);
    }

    #[test]
    fn a_value_read_elsewhere_or_a_different_constant_keeps_the_exported_nodes() {
        // The keys, transposed, are also an output of the graph: the attention stays as it is.
        let (out, fused) = fuse_attention(&toy_model(std::f32::consts::SQRT_2, &["k4"])).unwrap();
        assert_eq!((fused.attention, fused.gelu), (0, 1));
        assert!(nodes(&out).iter().any(|n| n.0 == "Softmax"));
        // x / 2 is not the GELU's x / √2.
        let (_, fused) = fuse_attention(&toy_model(2.0, &[])).unwrap();
        assert_eq!((fused.attention, fused.gelu), (1, 0));
        // Neither: the bytes come back unchanged.
        let model = toy_model(2.0, &["k4"]);
        assert_eq!(fuse_attention(&model).unwrap(), (model.clone(), Fused::default()));
    }

    #[test]
    fn malformed_bytes_are_errors() {
        let model = toy_model(std::f32::consts::SQRT_2, &[]);
        for cut in [1, 5, model.len() / 2, model.len() - 1] {
            assert!(fuse_attention(&model[..cut]).is_err(), "cut at {cut}");
        }
        assert!(fuse_attention(&[]).is_err(), "no graph");
    }

    proptest::proptest! {
        #[test]
        fn no_input_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512), flip in 0usize..4000) {
            let _ = fuse_attention(&bytes);
            let mut model = toy_model(std::f32::consts::SQRT_2, &[]);
            let at = flip % model.len();
            model[at] ^= 0x5a;
            let _ = fuse_attention(&model);
        }
    }
}
