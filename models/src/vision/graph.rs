//! EfficientNet-Lite0 as an ONNX graph, written in memory from the weights of the `.pth` file
//! (no converter, no PyTorch): every convolution with its batch norm folded in, ReLU6 as `Clip`,
//! TensorFlow's `SAME` padding (`auto_pad = SAME_UPPER`: the smaller half of an odd padding at the
//! top and left), then the pooled 1280-float feature and the 1000 class logits.
//!
//! The network (Tan and Le, 2019; the Lite variant drops squeeze-and-excitation and uses ReLU6):
//! a 3x3 stem of stride 2 to 32 channels; 16 inverted-residual blocks (1x1 expansion, unless the
//! expansion is 1; a depthwise kxk convolution; a 1x1 projection without activation; the input
//! added back when the stride is 1 and the channels do not change); a 1x1 head to 1280 channels;
//! global average pooling; a fully connected layer to 1000 classes. Kernel sizes and channels
//! come from the weights' shapes, the strides from [`BLOCK_STRIDES`].

use std::collections::BTreeMap;

use super::pth::PthTensor;
use crate::onnx::build::{Dim, GraphBuilder, tensor_f32, value_info_f32};
use crate::onnx::wire::{NewAttribute, encode_node};

/// The stride of each block's depthwise convolution: stages of 1, 2, 2, 3, 3, 4 and 1 blocks with
/// strides 1, 2, 2, 2, 1, 2, 1 on their first block.
pub(crate) const BLOCK_STRIDES: [i64; 16] = [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1];
/// Batch norm's epsilon in the TensorFlow original.
const BN_EPS: f32 = 1e-3;
/// The graph's input: `[batch, 3, 224, 224]`, RGB scaled as `(x - 127) / 128`.
pub(crate) const INPUT: &str = "image";
/// The pooled feature, `[batch, 1280]`.
pub(crate) const FEATURE: &str = "feature";
/// The class probabilities (softmax of the logits), `[batch, 1000]`.
pub(crate) const PROBABILITIES: &str = "probabilities";
/// The pooled feature's length.
pub const FEATURE_LEN: usize = 1280;
/// The number of classes.
pub const CLASSES: usize = 1000;

struct Writer<'a> {
    weights: &'a BTreeMap<String, PthTensor>,
    graph: GraphBuilder,
    next: usize,
}

impl Writer<'_> {
    fn get(&self, name: &str) -> Result<&PthTensor, String> {
        self.weights.get(name).ok_or_else(|| format!("the file has no tensor `{name}`"))
    }

    fn fresh(&mut self, what: &str) -> String {
        self.next += 1;
        format!("{what}_{}", self.next)
    }

    /// A convolution with the batch norm `bn` folded in (and ReLU6 after it when `relu6`); the
    /// name of its output.
    fn conv_bn(&mut self, x: &str, conv: &str, bn: &str, stride: i64, relu6: bool) -> Result<String, String> {
        let w = self.get(&format!("{conv}.weight"))?;
        let [out_ch, in_per_group, kh, kw] = w.shape[..] else {
            return Err(format!("{conv}.weight: expected 4 dimensions, found {:?}", w.shape));
        };
        let gamma = &self.get(&format!("{bn}.weight"))?.values;
        let beta = &self.get(&format!("{bn}.bias"))?.values;
        let mean = &self.get(&format!("{bn}.running_mean"))?.values;
        let var = &self.get(&format!("{bn}.running_var"))?.values;
        if [gamma.len(), beta.len(), mean.len(), var.len()].iter().any(|&n| n != out_ch) {
            return Err(format!("{bn}: expected {out_ch} channels"));
        }
        let per_out = in_per_group * kh * kw;
        let mut folded = w.values.clone();
        let mut bias = vec![0f32; out_ch];
        for o in 0..out_ch {
            let scale = gamma[o] / (var[o] + BN_EPS).sqrt();
            folded[o * per_out..(o + 1) * per_out].iter_mut().for_each(|v| *v *= scale);
            bias[o] = beta[o] - mean[o] * scale;
        }
        // Depthwise when every group has one input channel and there are as many groups as outputs.
        let group = if in_per_group == 1 && out_ch > 1 && conv.ends_with("_depthwise_conv") { out_ch } else { 1 };
        let (wn, bn_name) = (format!("{conv}.w"), format!("{conv}.b"));
        self.graph.initializer(&tensor_f32(&wn, &w.shape, &folded));
        self.graph.initializer(&tensor_f32(&bn_name, &[out_ch], &bias));
        let y = self.fresh("conv");
        let strides = [stride, stride];
        self.graph.node(&encode_node(
            "Conv",
            "",
            &[x, &wn, &bn_name],
            &[&y],
            &y,
            &[
                NewAttribute::Ints("strides", &strides),
                NewAttribute::Str("auto_pad", "SAME_UPPER"),
                NewAttribute::Int("group", group as i64),
            ],
        ));
        if !relu6 {
            return Ok(y);
        }
        let z = self.fresh("relu6");
        self.graph.node(&encode_node("Clip", "", &[&y, "zero", "six"], &[&z], &z, &[]));
        Ok(z)
    }
}

/// The ONNX model of EfficientNet-Lite0 over `weights` (the `.pth` file's tensors).
pub(crate) fn efficientnet_lite0(weights: &BTreeMap<String, PthTensor>) -> Result<Vec<u8>, String> {
    let mut w = Writer { weights, graph: GraphBuilder::default(), next: 0 };
    w.graph.initializer(&tensor_f32("zero", &[], &[0.0]));
    w.graph.initializer(&tensor_f32("six", &[], &[6.0]));
    let mut x = w.conv_bn(INPUT, "_conv_stem", "_bn0", 2, true)?;
    for (i, &stride) in BLOCK_STRIDES.iter().enumerate() {
        let b = format!("_blocks.{i}");
        let input = x.clone();
        if w.weights.contains_key(&format!("{b}._expand_conv.weight")) {
            x = w.conv_bn(&x, &format!("{b}._expand_conv"), &format!("{b}._bn0"), 1, true)?;
        }
        x = w.conv_bn(&x, &format!("{b}._depthwise_conv"), &format!("{b}._bn1"), stride, true)?;
        x = w.conv_bn(&x, &format!("{b}._project_conv"), &format!("{b}._bn2"), 1, false)?;
        let out_ch = w.get(&format!("{b}._project_conv.weight"))?.shape[0];
        let block_in = if i == 0 { 32 } else { w.get(&format!("_blocks.{}._project_conv.weight", i - 1))?.shape[0] };
        if stride == 1 && block_in == out_ch {
            let sum = w.fresh("add");
            w.graph.node(&encode_node("Add", "", &[&input, &x], &[&sum], &sum, &[]));
            x = sum;
        }
    }
    if w.weights.contains_key(&format!("_blocks.{}._depthwise_conv.weight", BLOCK_STRIDES.len())) {
        return Err(format!("the file has more than {} blocks: not EfficientNet-Lite0", BLOCK_STRIDES.len()));
    }
    x = w.conv_bn(&x, "_conv_head", "_bn1", 1, true)?;
    w.graph.node(&encode_node("GlobalAveragePool", "", &[&x], &["pooled"], "pool", &[]));
    w.graph.node(&encode_node("Flatten", "", &["pooled"], &[FEATURE], "flatten", &[NewAttribute::Int("axis", 1)]));
    let fc_w = w.get("_fc.weight")?;
    let fc_b = w.get("_fc.bias")?;
    if fc_w.shape != [CLASSES, FEATURE_LEN] || fc_b.shape != [CLASSES] {
        return Err(format!("_fc: expected [{CLASSES}, {FEATURE_LEN}] weights, found {:?}", fc_w.shape));
    }
    let (fc_w, fc_b) = (fc_w.clone(), fc_b.clone());
    w.graph.initializer(&tensor_f32("fc.w", &fc_w.shape, &fc_w.values));
    w.graph.initializer(&tensor_f32("fc.b", &fc_b.shape, &fc_b.values));
    w.graph.node(&encode_node(
        "Gemm",
        "",
        &[FEATURE, "fc.w", "fc.b"],
        &["logits"],
        "fc",
        &[NewAttribute::Int("transB", 1)],
    ));
    w.graph.node(&encode_node(
        "Softmax",
        "",
        &["logits"],
        &[PROBABILITIES],
        "softmax",
        &[NewAttribute::Int("axis", 1)],
    ));
    let batch = Dim::Named("batch");
    w.graph.input(&value_info_f32(INPUT, &[batch, Dim::Fixed(3), Dim::Fixed(224), Dim::Fixed(224)]));
    w.graph.output(&value_info_f32(FEATURE, &[batch, Dim::Fixed(FEATURE_LEN)]));
    w.graph.output(&value_info_f32(PROBABILITIES, &[batch, Dim::Fixed(CLASSES)]));
    Ok(w.graph.model("efficientnet-lite0", 13))
}
