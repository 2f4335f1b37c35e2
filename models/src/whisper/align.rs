//! Word times from the cross-attention of the model's alignment heads, aligned to the audio frames
//! by dynamic time warping (the method of OpenAI's `word_timestamps`), and the tokens grouped into
//! words.

use candle_core::{D, Tensor};

use super::{FRAMES_PER_SECOND, Whisper, run_err};
use crate::error::Result;

/// A word as aligned in its window: text, token count, start, end (window seconds), probability.
pub(super) type AlignedWord = (String, usize, f64, f64, f32);

const PUNCTUATION: &str = "\"'“¿([{-.。,，!！?？:：”)]}、";

/// Dynamic time warping over a cost matrix (rows x cols); answers the path's row and column
/// indices from (0, 0) to the last cell.
fn dtw(cost: &[Vec<f32>]) -> (Vec<usize>, Vec<usize>) {
    let (n, m) = (cost.len(), cost.first().map_or(0, Vec::len));
    let mut acc = vec![vec![f32::INFINITY; m + 1]; n + 1];
    let mut trace = vec![vec![0u8; m + 1]; n + 1];
    acc[0][0] = 0.0;
    for j in 1..=m {
        for i in 1..=n {
            let (c0, c1, c2) = (acc[i - 1][j - 1], acc[i - 1][j], acc[i][j - 1]);
            let (c, t) = if c0 <= c1 && c0 <= c2 {
                (c0, 0)
            } else if c1 <= c0 && c1 <= c2 {
                (c1, 1)
            } else {
                (c2, 2)
            };
            acc[i][j] = cost[i - 1][j - 1] + c;
            trace[i][j] = t;
        }
    }
    let (mut i, mut j) = (n, m);
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    while i > 0 && j > 0 {
        rows.push(i - 1);
        cols.push(j - 1);
        match trace[i][j] {
            0 => {
                i -= 1;
                j -= 1;
            }
            1 => i -= 1,
            _ => j -= 1,
        }
    }
    // Off the edge: the rest of the path runs along the first row or column.
    while i > 0 {
        i -= 1;
        rows.push(i);
        cols.push(0);
    }
    while j > 0 {
        j -= 1;
        rows.push(0);
        cols.push(j);
    }
    rows.reverse();
    cols.reverse();
    // The loops above push (0, 0) once at most when both reach zero together; drop a repeat.
    (rows, cols)
}

/// A median filter of odd `width` along `row`, reflecting at the edges.
fn median_filter(row: &mut [f32], width: usize) {
    let n = row.len();
    if n < width {
        return;
    }
    let half = width / 2;
    let src = row.to_vec();
    let mut buf = vec![0f32; width];
    for (i, out) in row.iter_mut().enumerate() {
        for (k, b) in buf.iter_mut().enumerate() {
            let j = i as isize + k as isize - half as isize;
            let j = if j < 0 {
                (-j) as usize
            } else if j as usize >= n {
                2 * (n - 1) - j as usize
            } else {
                j as usize
            };
            *b = src[j];
        }
        buf.sort_by(f32::total_cmp);
        *out = buf[half];
    }
}

impl Whisper {
    /// Splits `tokens` into words: (text, token count, start, end, probability), window seconds.
    pub(super) fn align(&self, encoded: &Tensor, lang: u32, tokens: &[u32], content: f64) -> Result<Vec<AlignedWord>> {
        if tokens.is_empty() || self.alignment_heads.is_empty() {
            return Ok(Vec::new());
        }
        let s = &self.special;
        let prefix = [s.sot, lang, s.transcribe, s.no_timestamps];
        let mut seq = prefix.to_vec();
        seq.extend_from_slice(tokens);
        seq.push(s.eot);
        if seq.len() > self.net.n_text_ctx {
            return Ok(Vec::new());
        }
        let mut state = self.net.start(encoded).map_err(run_err)?;
        let (logits, qks) = self.net.decode(&mut state, &seq, &self.alignment_heads).map_err(run_err)?;
        // The probability of each text token, over text tokens only.
        let eot = s.eot as usize;
        let text_logits = logits.narrow(1, 0, eot).and_then(|t| t.contiguous()).map_err(run_err)?;
        let probs = candle_nn::ops::softmax_last_dim(&text_logits).map_err(run_err)?;
        let mut token_probs = Vec::with_capacity(tokens.len());
        for (i, &t) in tokens.iter().enumerate() {
            let p: f32 = probs
                .get(prefix.len() - 1 + i)
                .and_then(|r| r.get(t as usize))
                .and_then(|v| v.to_scalar())
                .map_err(run_err)?;
            token_probs.push(p);
        }
        // Cross-attention over the audio frames, normalised per frame across tokens, median
        // filtered along time, averaged over the heads; rows from <|notimestamps|> to the last
        // text token.
        let frames = ((content * FRAMES_PER_SECOND).ceil() as usize).clamp(1, self.net.n_audio_ctx);
        let rows = tokens.len() + 1;
        let mut matrix = vec![vec![0f32; frames]; rows];
        for qk in &qks {
            let w = candle_nn::ops::softmax_last_dim(
                &qk.narrow(D::Minus1, 0, frames).and_then(|t| t.contiguous()).map_err(run_err)?,
            )
            .map_err(run_err)?;
            let mut w: Vec<Vec<f32>> = w.to_vec2().map_err(run_err)?;
            for f in 0..frames {
                let n = w.len() as f32;
                let mean = w.iter().map(|r| r[f]).sum::<f32>() / n;
                let var = w.iter().map(|r| (r[f] - mean).powi(2)).sum::<f32>() / n;
                let sd = var.sqrt().max(1e-8);
                for r in w.iter_mut() {
                    r[f] = (r[f] - mean) / sd;
                }
            }
            for r in w.iter_mut() {
                median_filter(r, 7);
            }
            for (m, r) in matrix.iter_mut().zip(&w[prefix.len() - 1..prefix.len() - 1 + rows]) {
                for (a, b) in m.iter_mut().zip(r) {
                    *a += b / qks.len() as f32;
                }
            }
        }
        let cost: Vec<Vec<f32>> = matrix.iter().map(|r| r.iter().map(|v| -v).collect()).collect();
        let (text_idx, time_idx) = dtw(&cost);
        // The time at which each row starts.
        let mut starts = vec![0f64; rows];
        let mut last = usize::MAX;
        for (&r, &c) in text_idx.iter().zip(&time_idx) {
            if r != last {
                starts[r] = c as f64 / FRAMES_PER_SECOND;
                last = r;
            }
        }
        let ends_at = |i: usize| if i < rows { starts[i] } else { content };
        // Words: a token that starts with a space (or a punctuation mark) starts a new word;
        // tokens are grouped until they decode to whole characters.
        let mut words: Vec<(String, Vec<usize>)> = Vec::new();
        let mut group: Vec<usize> = Vec::new();
        for i in 0..tokens.len() {
            group.push(i);
            let ids: Vec<u32> = group.iter().map(|&g| tokens[g]).collect();
            let piece = self.tokenizer.decode(&ids, false).map_err(run_err)?;
            if piece.contains('\u{fffd}') && i + 1 < tokens.len() {
                continue;
            }
            let punct = !piece.trim().is_empty() && piece.trim().chars().all(|c| PUNCTUATION.contains(c));
            match words.last_mut() {
                Some(w) if !piece.starts_with(' ') && !punct => {
                    w.0.push_str(&piece);
                    w.1.append(&mut group);
                }
                Some(w) if punct => {
                    // Punctuation joins the word before it.
                    w.0.push_str(&piece);
                    w.1.append(&mut group);
                }
                _ => words.push((piece, std::mem::take(&mut group))),
            }
            group.clear();
        }
        Ok(words
            .into_iter()
            .map(|(text, idx)| {
                let first = idx[0];
                let last = *idx.last().expect("a word has tokens");
                let p = idx.iter().map(|&i| token_probs[i]).sum::<f32>() / idx.len() as f32;
                (text, idx.len(), starts[first], ends_at(last + 1), p)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtw_follows_the_cheap_diagonal() {
        // Row i is cheap at columns 2i and 2i+1.
        let cost: Vec<Vec<f32>> =
            (0..3).map(|i| (0..6).map(|j| if j / 2 == i { 0.0 } else { 1.0 }).collect()).collect();
        let (rows, cols) = dtw(&cost);
        assert_eq!(rows, vec![0, 0, 1, 1, 2, 2]);
        assert_eq!(cols, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn median_filter_removes_spikes() {
        let mut r = vec![0.0, 0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0];
        median_filter(&mut r, 7);
        assert!(r.iter().all(|&v| v == 0.0));
    }
}
