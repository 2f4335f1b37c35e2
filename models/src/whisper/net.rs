//! The Whisper network (Radford et al., 2022) on candle, loaded from CTranslate2's variable names.
//!
//! Written for kino rather than taken from `candle-transformers` because transcription needs two
//! things that implementation does not expose: a self-attention cache (each decoding step runs one
//! token, not the whole prefix) and the raw cross-attention scores of the alignment heads, from
//! which word times are found. CTranslate2 stores the self-attention's query, key and value
//! projections fused (`linear_0`, 3 x d rows; the key's bias is zero), the cross-attention's key
//! and value fused (`linear_1`), and ties the output projection to the token embeddings.

use std::collections::HashMap;

use candle_core::{D, DType, Device, Module, Result, Tensor};
use candle_nn::{Conv1d, Conv1dConfig, LayerNorm, Linear};

fn get(t: &HashMap<String, Tensor>, name: &str) -> Result<Tensor> {
    t.get(name).cloned().ok_or_else(|| candle_core::Error::Msg(format!("model.bin has no variable {name}")))
}

fn linear(t: &HashMap<String, Tensor>, prefix: &str) -> Result<Linear> {
    Ok(Linear::new(get(t, &format!("{prefix}/weight"))?, Some(get(t, &format!("{prefix}/bias"))?)))
}

fn layer_norm(t: &HashMap<String, Tensor>, prefix: &str) -> Result<LayerNorm> {
    Ok(LayerNorm::new(get(t, &format!("{prefix}/gamma"))?, get(t, &format!("{prefix}/beta"))?, 1e-5))
}

/// [batch, time, heads * d] -> [batch, heads, time, d].
fn heads(x: &Tensor, n_head: usize) -> Result<Tensor> {
    let (b, t, s) = x.dims3()?;
    x.reshape((b, t, n_head, s / n_head))?.transpose(1, 2)?.contiguous()
}

/// [batch, heads, time, d] -> [batch, time, heads * d].
fn merge(x: &Tensor) -> Result<Tensor> {
    let (b, h, t, d) = x.dims4()?;
    x.transpose(1, 2)?.reshape((b, t, h * d))
}

/// Scaled dot-product attention; answers the output and the scores before the softmax.
fn attend(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let d = q.dim(D::Minus1)? as f64;
    let mut qk = (q.matmul(&k.t()?)? * d.powf(-0.5))?;
    if let Some(m) = mask {
        qk = qk.broadcast_add(m)?;
    }
    let w = candle_nn::ops::softmax_last_dim(&qk)?;
    Ok((w.matmul(v)?, qk))
}

fn mlp(x: &Tensor, ln: &LayerNorm, fc1: &Linear, fc2: &Linear) -> Result<Tensor> {
    fc2.forward(&fc1.forward(&ln.forward(x)?)?.gelu_erf()?)
}

#[derive(Debug)]
struct EncoderLayer {
    ln: LayerNorm,
    qkv: Linear,
    out: Linear,
    ffn_ln: LayerNorm,
    fc1: Linear,
    fc2: Linear,
}

#[derive(Debug)]
struct DecoderLayer {
    ln: LayerNorm,
    qkv: Linear,
    out: Linear,
    cross_ln: LayerNorm,
    cross_q: Linear,
    cross_kv: Linear,
    cross_out: Linear,
    ffn_ln: LayerNorm,
    fc1: Linear,
    fc2: Linear,
}

/// The loaded network.
#[derive(Debug)]
pub(crate) struct Network {
    conv1: Conv1d,
    conv2: Conv1d,
    encoder_positions: Tensor,
    encoder: Vec<EncoderLayer>,
    encoder_ln: LayerNorm,
    embeddings: Tensor,
    decoder_positions: Tensor,
    decoder: Vec<DecoderLayer>,
    decoder_ln: LayerNorm,
    n_head: usize,
    /// The decoder's context (448 positions).
    pub n_text_ctx: usize,
    /// The encoder's frames (1500).
    pub n_audio_ctx: usize,
}

/// A decoding's state for one window: the cross-attention keys and values (computed once from the
/// audio) and the self-attention cache.
#[derive(Debug)]
pub(crate) struct DecoderState {
    cross: Vec<(Tensor, Tensor)>,
    cache: Vec<Option<(Tensor, Tensor)>>,
    /// Tokens already run.
    pub len: usize,
}

impl Network {
    pub(crate) fn load(t: &HashMap<String, Tensor>, n_head: usize) -> Result<Network> {
        let conv = |name: &str, stride: usize| -> Result<Conv1d> {
            let cfg = Conv1dConfig { padding: 1, stride, dilation: 1, groups: 1, cudnn_fwd_algo: None };
            Ok(Conv1d::new(get(t, &format!("{name}/weight"))?, Some(get(t, &format!("{name}/bias"))?), cfg))
        };
        let count = |prefix: &str| {
            (0..).take_while(|i| t.contains_key(&format!("{prefix}/layer_{i}/ffn/linear_0/weight"))).count()
        };
        let encoder = (0..count("encoder"))
            .map(|i| {
                let p = format!("encoder/layer_{i}");
                Ok(EncoderLayer {
                    ln: layer_norm(t, &format!("{p}/self_attention/layer_norm"))?,
                    qkv: linear(t, &format!("{p}/self_attention/linear_0"))?,
                    out: linear(t, &format!("{p}/self_attention/linear_1"))?,
                    ffn_ln: layer_norm(t, &format!("{p}/ffn/layer_norm"))?,
                    fc1: linear(t, &format!("{p}/ffn/linear_0"))?,
                    fc2: linear(t, &format!("{p}/ffn/linear_1"))?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let decoder = (0..count("decoder"))
            .map(|i| {
                let p = format!("decoder/layer_{i}");
                Ok(DecoderLayer {
                    ln: layer_norm(t, &format!("{p}/self_attention/layer_norm"))?,
                    qkv: linear(t, &format!("{p}/self_attention/linear_0"))?,
                    out: linear(t, &format!("{p}/self_attention/linear_1"))?,
                    cross_ln: layer_norm(t, &format!("{p}/attention/layer_norm"))?,
                    cross_q: linear(t, &format!("{p}/attention/linear_0"))?,
                    cross_kv: linear(t, &format!("{p}/attention/linear_1"))?,
                    cross_out: linear(t, &format!("{p}/attention/linear_2"))?,
                    ffn_ln: layer_norm(t, &format!("{p}/ffn/layer_norm"))?,
                    fc1: linear(t, &format!("{p}/ffn/linear_0"))?,
                    fc2: linear(t, &format!("{p}/ffn/linear_1"))?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if encoder.is_empty() || decoder.is_empty() {
            return Err(candle_core::Error::Msg("model.bin has no encoder or decoder layers".into()));
        }
        let encoder_positions = get(t, "encoder/position_encodings/encodings")?;
        let decoder_positions = get(t, "decoder/position_encodings/encodings")?;
        Ok(Network {
            conv1: conv("encoder/conv1", 1)?,
            conv2: conv("encoder/conv2", 2)?,
            n_audio_ctx: encoder_positions.dim(0)?,
            n_text_ctx: decoder_positions.dim(0)?,
            encoder_positions,
            encoder,
            encoder_ln: layer_norm(t, "encoder/layer_norm")?,
            embeddings: get(t, "decoder/embeddings/weight")?,
            decoder_positions,
            decoder,
            decoder_ln: layer_norm(t, "decoder/layer_norm")?,
            n_head,
        })
    }

    /// The number of decoder layers.
    pub(crate) fn decoder_layers(&self) -> usize {
        self.decoder.len()
    }

    /// Encodes log-mel features [batch, mels, 3000] into [batch, 1500, d].
    pub(crate) fn encode(&self, mel: &Tensor) -> Result<Tensor> {
        let x = self.conv1.forward(mel)?.gelu_erf()?;
        let x = self.conv2.forward(&x)?.gelu_erf()?.transpose(1, 2)?;
        let n = x.dim(1)?;
        let mut x = x.broadcast_add(&self.encoder_positions.narrow(0, 0, n)?)?;
        for l in &self.encoder {
            let qkv = l.qkv.forward(&l.ln.forward(&x)?)?;
            let d = qkv.dim(D::Minus1)? / 3;
            let q = heads(&qkv.narrow(D::Minus1, 0, d)?, self.n_head)?;
            let k = heads(&qkv.narrow(D::Minus1, d, d)?, self.n_head)?;
            let v = heads(&qkv.narrow(D::Minus1, 2 * d, d)?, self.n_head)?;
            let (a, _) = attend(&q, &k, &v, None)?;
            x = (x + l.out.forward(&merge(&a)?)?)?;
            x = (&x + mlp(&x, &l.ffn_ln, &l.fc1, &l.fc2)?)?;
        }
        self.encoder_ln.forward(&x)
    }

    /// A fresh decoding state over encoded audio [1, 1500, d].
    pub(crate) fn start(&self, audio: &Tensor) -> Result<DecoderState> {
        let cross = self
            .decoder
            .iter()
            .map(|l| {
                let kv = l.cross_kv.forward(audio)?;
                let d = kv.dim(D::Minus1)? / 2;
                Ok((
                    heads(&kv.narrow(D::Minus1, 0, d)?, self.n_head)?,
                    heads(&kv.narrow(D::Minus1, d, d)?, self.n_head)?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DecoderState { cross, cache: vec![None; self.decoder.len()], len: 0 })
    }

    /// Runs `tokens` after those already in `state`; answers the logits of every new position
    /// [n, vocab] and, for the (layer, head) pairs of `capture`, the cross-attention scores before
    /// the softmax, each [n, frames].
    pub(crate) fn decode(
        &self,
        state: &mut DecoderState,
        tokens: &[u32],
        capture: &[(usize, usize)],
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let n = tokens.len();
        let start = state.len;
        if start + n > self.n_text_ctx {
            return Err(candle_core::Error::Msg(format!(
                "{} tokens exceed the decoder's {}",
                start + n,
                self.n_text_ctx
            )));
        }
        let ids = Tensor::new(tokens, &Device::Cpu)?;
        let x = self.embeddings.index_select(&ids, 0)?;
        let mut x = (x + self.decoder_positions.narrow(0, start, n)?)?.unsqueeze(0)?;
        // Causal mask over the new positions (the cached ones are all visible).
        let mask = if n > 1 {
            let m: Vec<f32> = (0..n)
                .flat_map(|i| (0..start + n).map(move |j| if j > start + i { f32::NEG_INFINITY } else { 0.0 }))
                .collect();
            Some(Tensor::from_vec(m, (n, start + n), &Device::Cpu)?)
        } else {
            None
        };
        let mut captured = Vec::new();
        for (li, l) in self.decoder.iter().enumerate() {
            let qkv = l.qkv.forward(&l.ln.forward(&x)?)?;
            let d = qkv.dim(D::Minus1)? / 3;
            let q = heads(&qkv.narrow(D::Minus1, 0, d)?, self.n_head)?;
            let mut k = heads(&qkv.narrow(D::Minus1, d, d)?, self.n_head)?;
            let mut v = heads(&qkv.narrow(D::Minus1, 2 * d, d)?, self.n_head)?;
            if let Some((pk, pv)) = &state.cache[li] {
                k = Tensor::cat(&[pk, &k], 2)?;
                v = Tensor::cat(&[pv, &v], 2)?;
            }
            state.cache[li] = Some((k.clone(), v.clone()));
            let (a, _) = attend(&q, &k, &v, mask.as_ref())?;
            x = (x + l.out.forward(&merge(&a)?)?)?;
            let q = heads(&l.cross_q.forward(&l.cross_ln.forward(&x)?)?, self.n_head)?;
            let (ck, cv) = &state.cross[li];
            let (a, qk) = attend(&q, ck, cv, None)?;
            for &(cl, ch) in capture {
                if cl == li {
                    captured.push(qk.get(0)?.get(ch)?);
                }
            }
            x = (x + l.cross_out.forward(&merge(&a)?)?)?;
            x = (&x + mlp(&x, &l.ffn_ln, &l.fc1, &l.fc2)?)?;
        }
        state.len += n;
        let x = self.decoder_ln.forward(&x)?.squeeze(0)?;
        let logits = x.matmul(&self.embeddings.t()?)?;
        Ok((logits.to_dtype(DType::F32)?, captured))
    }
}
