//! A darknet network as an ONNX graph, written in memory from its configuration and weights (no
//! converter): each convolution with its batch normalisation folded in as darknet computes it
//! (`scale * (x - mean) / (sqrt(variance) + 1e-6) + bias`), leaky ReLU (slope 0.1), max pooling
//! with darknet's padding, nearest upsampling, routes as concatenations, and each YOLO head's raw
//! output (`[batch, anchors x (5 + classes), rows, columns]`) as a graph output, decoded in Rust.

use super::darknet::{ConvWeights, Layer, Network, channels};
use crate::onnx::build::{Dim, GraphBuilder, tensor_f32, value_info_f32};
use crate::onnx::wire::{NewAttribute, encode_node};

/// The graph's input: `[batch, 3, side, side]`, RGB in [0, 1].
pub(crate) const INPUT: &str = "image";
/// darknet's `normalize_cpu` adds this to the deviation, not to the variance.
const NORM_EPS: f32 = 1e-6;
/// darknet's leaky ReLU slope.
const LEAKY: f32 = 0.1;

/// A YOLO head: its output's name, grid side, anchors (pixels of the input) and classes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Head {
    pub output: String,
    pub grid: usize,
    pub anchors: Vec<(f32, f32)>,
    pub classes: usize,
}

/// The kernel and bias of a convolution with its batch normalisation folded in.
fn fold(w: &ConvWeights) -> (Vec<f32>, Vec<f32>) {
    let Some([scales, means, variances]) = &w.norm else { return (w.kernel.clone(), w.biases.clone()) };
    let per_out = w.shape[1] * w.shape[2] * w.shape[3];
    let mut kernel = w.kernel.clone();
    let mut bias = vec![0f32; w.shape[0]];
    for o in 0..w.shape[0] {
        let scale = scales[o] / (variances[o].sqrt() + NORM_EPS);
        kernel[o * per_out..(o + 1) * per_out].iter_mut().for_each(|v| *v *= scale);
        bias[o] = w.biases[o] - means[o] * scale;
    }
    (kernel, bias)
}

/// The ONNX model of `net` with `weights` (from [`super::darknet::read_weights`]) for a square
/// input of `side` pixels, and its heads. `side` must be a multiple of the network's total stride.
pub(crate) fn yolo_graph(net: &Network, weights: &[ConvWeights], side: usize) -> Result<(Vec<u8>, Vec<Head>), String> {
    let depth = channels(net)?;
    let mut graph = GraphBuilder::default();
    let mut names: Vec<String> = Vec::with_capacity(net.layers.len());
    let mut sides: Vec<usize> = Vec::with_capacity(net.layers.len());
    let mut convs = weights.iter();
    let mut heads = Vec::new();
    graph.initializer(&tensor_f32("upsample_scales", &[4], &[1.0, 1.0, 2.0, 2.0]));
    for (i, layer) in net.layers.iter().enumerate() {
        let (x, x_side) = if i == 0 { (INPUT.to_string(), side) } else { (names[i - 1].clone(), sides[i - 1]) };
        let y = format!("l{i}");
        let y_side = match layer {
            Layer::Conv { size, stride, padding, leaky, .. } => {
                let w = convs.next().ok_or_else(|| format!("layer {i}: no weights left"))?;
                let (kernel, bias) = fold(w);
                graph.initializer(&tensor_f32(&format!("{y}.w"), &w.shape, &kernel));
                graph.initializer(&tensor_f32(&format!("{y}.b"), &w.shape[..1], &bias));
                let conv = if *leaky { format!("{y}.conv") } else { y.clone() };
                let (k, s, p) = (*size as i64, *stride as i64, *padding as i64);
                graph.node(&encode_node(
                    "Conv",
                    "",
                    &[&x, &format!("{y}.w"), &format!("{y}.b")],
                    &[&conv],
                    &conv,
                    &[
                        NewAttribute::Ints("kernel_shape", &[k, k]),
                        NewAttribute::Ints("strides", &[s, s]),
                        NewAttribute::Ints("pads", &[p, p, p, p]),
                    ],
                ));
                if *leaky {
                    graph.node(&encode_node(
                        "LeakyRelu",
                        "",
                        &[&conv],
                        &[&y],
                        &y,
                        &[NewAttribute::Float("alpha", LEAKY)],
                    ));
                }
                (x_side + 2 * padding)
                    .checked_sub(*size)
                    .map(|n| n / stride + 1)
                    .ok_or(format!("layer {i}: input too small"))?
            }
            Layer::MaxPool { size, stride } => {
                let (before, after) = ((size - 1) / 2, size - 1 - (size - 1) / 2);
                let (k, s) = (*size as i64, *stride as i64);
                let (b, a) = (before as i64, after as i64);
                graph.node(&encode_node(
                    "MaxPool",
                    "",
                    &[&x],
                    &[&y],
                    &y,
                    &[
                        NewAttribute::Ints("kernel_shape", &[k, k]),
                        NewAttribute::Ints("strides", &[s, s]),
                        NewAttribute::Ints("pads", &[b, b, a, a]),
                    ],
                ));
                (x_side + size - 1 - size) / stride + 1
            }
            Layer::Upsample { stride } => {
                if *stride != 2 {
                    return Err(format!("layer {i}: upsampling by {stride} is not supported (2 only)"));
                }
                graph.node(&encode_node(
                    "Resize",
                    "",
                    &[&x, "", "upsample_scales"],
                    &[&y],
                    &y,
                    &[
                        NewAttribute::Str("mode", "nearest"),
                        NewAttribute::Str("coordinate_transformation_mode", "asymmetric"),
                        NewAttribute::Str("nearest_mode", "floor"),
                    ],
                ));
                x_side * 2
            }
            Layer::Route { layers } => {
                let first = sides[layers[0]];
                if layers.iter().any(|&l| sides[l] != first) {
                    return Err(format!("layer {i} [route]: its layers' outputs differ in size"));
                }
                if layers.len() == 1 {
                    names.push(names[layers[0]].clone());
                    sides.push(first);
                    continue;
                }
                let inputs: Vec<&str> = layers.iter().map(|&l| names[l].as_str()).collect();
                graph.node(&encode_node("Concat", "", &inputs, &[&y], &y, &[NewAttribute::Int("axis", 1)]));
                first
            }
            Layer::Yolo { anchors, classes } => {
                let output = format!("head{}", heads.len());
                graph.node(&encode_node("Identity", "", &[&x], &[&output], &output, &[]));
                let batch = Dim::Named("batch");
                let dims = [batch, Dim::Fixed(depth[i]), Dim::Fixed(x_side), Dim::Fixed(x_side)];
                graph.output(&value_info_f32(&output, &dims));
                heads.push(Head { output, grid: x_side, anchors: anchors.clone(), classes: *classes });
                names.push(x);
                sides.push(x_side);
                continue;
            }
        };
        names.push(y);
        sides.push(y_side);
    }
    if convs.next().is_some() {
        return Err("more convolution weights than convolutions".to_string());
    }
    if heads.is_empty() {
        return Err("the network has no [yolo] head".to_string());
    }
    if heads.iter().any(|h| h.grid == 0 || !side.is_multiple_of(h.grid)) {
        return Err(format!("an input of {side} pixels does not divide into the heads' grids"));
    }
    let dims = [Dim::Named("batch"), Dim::Fixed(net.channels), Dim::Fixed(side), Dim::Fixed(side)];
    graph.input(&value_info_f32(INPUT, &dims));
    Ok((graph.model("yolov3-tiny", 13), heads))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_norm_folds_as_darknet_normalises() {
        let w = ConvWeights {
            shape: [1, 1, 1, 1],
            biases: vec![0.5],
            norm: Some([vec![2.0], vec![1.0], vec![4.0]]),
            kernel: vec![3.0],
        };
        let (k, b) = fold(&w);
        // x = 1: conv 3, normalised (3 - 1) / 2 * 2 + 0.5 = 2.5; folded 3 * s + b.
        let s = 2.0 / (2.0 + NORM_EPS);
        assert!((k[0] - 3.0 * s).abs() < 1e-6 && (b[0] - (0.5 - s)).abs() < 1e-6);
        assert!((k[0] + b[0] - 2.5).abs() < 1e-5);
    }
}
