//! Greedy decoding of one window with Whisper's suppression and timestamp rules, and the
//! sampled tokens cut into segments between timestamp tokens, their words aligned and mapped back
//! to the input's timeline.

use candle_core::Tensor;

use super::align::AlignedWord;
use super::pack::{Piece, unpack};
use super::{FRAMES_PER_SECOND, TranscriptSegment, Whisper, Word, run_err};
use crate::error::Result;

/// Tokens sampled at most per window (half the decoder's context, as Whisper does).
const MAX_SAMPLED: usize = 224;
/// A window whose `<|nospeech|>` probability is above this and whose mean log-probability is
/// below [`LOGPROB_THRESHOLD`] is taken as silence (Whisper's defaults).
const NO_SPEECH_THRESHOLD: f32 = 0.6;
const LOGPROB_THRESHOLD: f32 = -1.0;

impl Whisper {
    pub(super) fn detect_language(&self, encoded: &Tensor) -> Result<(u32, String)> {
        let mut state = self.net.start(encoded).map_err(run_err)?;
        let (logits, _) = self.net.decode(&mut state, &[self.special.sot], &[]).map_err(run_err)?;
        let row: Vec<f32> = logits.get(0).and_then(|r| r.to_vec1()).map_err(run_err)?;
        self.languages
            .iter()
            .max_by(|a, b| row[a.0 as usize].total_cmp(&row[b.0 as usize]))
            .cloned()
            .ok_or_else(|| run_err("the model lists no languages"))
    }

    /// Applies Whisper's suppression and timestamp rules to `logits` for the next token after
    /// `sampled` (the tokens sampled so far in this window); `max_ts` is the last timestamp token
    /// inside the window's audio.
    fn rules(&self, logits: &mut [f32], sampled: &[u32], max_ts: u32) {
        let s = &self.special;
        let tb = s.timestamp_begin as usize;
        let ninf = f32::NEG_INFINITY;
        for &t in &self.suppress {
            if let Some(v) = logits.get_mut(t as usize) {
                *v = ninf;
            }
        }
        logits[s.no_timestamps as usize] = ninf;
        if sampled.is_empty() {
            for &t in &self.suppress_begin {
                if let Some(v) = logits.get_mut(t as usize) {
                    *v = ninf;
                }
            }
            // The first token is a timestamp, at most 1 s in.
            logits[..tb].iter_mut().for_each(|v| *v = ninf);
            logits[tb + 51..].iter_mut().for_each(|v| *v = ninf);
        }
        // Nothing past the audio.
        if let Some(rest) = logits.get_mut(max_ts as usize + 1..) {
            rest.iter_mut().for_each(|v| *v = ninf);
        }
        let is_ts = |t: u32| t >= s.timestamp_begin;
        let last_ts = sampled.last().is_some_and(|&t| is_ts(t));
        let penultimate_ts = sampled.len() < 2 || is_ts(sampled[sampled.len() - 2]);
        if last_ts {
            if penultimate_ts {
                logits[tb..].iter_mut().for_each(|v| *v = ninf);
            } else {
                logits[..s.eot as usize].iter_mut().for_each(|v| *v = ninf);
            }
        }
        if let Some(&last) = sampled.iter().rev().find(|&&t| is_ts(t)) {
            let floor = if last_ts && !penultimate_ts { last } else { last + 1 };
            let end = (floor as usize).min(logits.len());
            logits[tb..end].iter_mut().for_each(|v| *v = ninf);
        }
        // When the timestamps together are likelier than any text token, take a timestamp.
        let max = logits.iter().copied().fold(ninf, f32::max);
        if max.is_finite() {
            let lse = |xs: &[f32]| {
                let m = xs.iter().copied().fold(ninf, f32::max);
                if m == ninf { ninf } else { m + xs.iter().map(|x| (x - m).exp()).sum::<f32>().ln() }
            };
            let ts_mass = lse(&logits[tb..]);
            let text_max = logits[..tb].iter().copied().fold(ninf, f32::max);
            if ts_mass > text_max {
                logits[..tb].iter_mut().for_each(|v| *v = ninf);
            }
        }
    }

    /// Decodes one window; answers its segments on the input's timeline.
    pub(super) fn window(
        &self,
        encoded: &Tensor,
        lang: u32,
        content: f64,
        pieces: &[Piece],
    ) -> Result<Vec<TranscriptSegment>> {
        let s = &self.special;
        let mut state = self.net.start(encoded).map_err(run_err)?;
        let prompt = [s.sot, lang, s.transcribe];
        let (logits, _) = self.net.decode(&mut state, &prompt, &[]).map_err(run_err)?;
        let first: Vec<f32> = logits.get(0).and_then(|r| r.to_vec1()).map_err(run_err)?;
        let no_speech_prob = softmax_at(&first, s.no_speech as usize);
        let mut row: Vec<f32> = logits.get(prompt.len() - 1).and_then(|r| r.to_vec1()).map_err(run_err)?;
        let max_ts = s.timestamp_begin + (content * FRAMES_PER_SECOND / 1.0).round() as u32;
        let max_ts = max_ts.min(self.vocab as u32 - 1);
        let mut sampled: Vec<u32> = Vec::new();
        let mut logprob_sum = 0.0f32;
        while sampled.len() < MAX_SAMPLED {
            self.rules(&mut row, &sampled, max_ts);
            let (best, _) = row.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).expect("a vocabulary");
            let best = best as u32;
            logprob_sum += log_softmax_at(&row, best as usize);
            sampled.push(best);
            if best == s.eot {
                break;
            }
            let (logits, _) = self.net.decode(&mut state, &[best], &[]).map_err(run_err)?;
            row = logits.get(0).and_then(|r| r.to_vec1()).map_err(run_err)?;
        }
        let avg_logprob = logprob_sum / sampled.len().max(1) as f32;
        if no_speech_prob > NO_SPEECH_THRESHOLD && avg_logprob < LOGPROB_THRESHOLD {
            return Ok(Vec::new());
        }
        // Segments between timestamp tokens (window seconds), with their text tokens.
        let ts_time = |t: u32| (t - s.timestamp_begin) as f64 / FRAMES_PER_SECOND;
        let mut raw: Vec<(f64, f64, Vec<u32>)> = Vec::new();
        let mut open: Option<f64> = None;
        let mut text: Vec<u32> = Vec::new();
        for &t in &sampled {
            if t >= s.timestamp_begin {
                if text.is_empty() {
                    open = Some(ts_time(t));
                } else {
                    raw.push((open.unwrap_or(0.0), ts_time(t), std::mem::take(&mut text)));
                    open = None;
                }
            } else if t < s.eot {
                text.push(t);
            }
        }
        if !text.is_empty() {
            raw.push((open.unwrap_or(0.0), content, text));
        }
        let all: Vec<u32> = raw.iter().flat_map(|r| r.2.iter().copied()).collect();
        let words = self.align(encoded, lang, &all, content)?;
        // Hand the words to their segments in order.
        let mut words = words.into_iter();
        let mut segments = Vec::new();
        for (a, b, tokens) in raw {
            let seg_words: Vec<AlignedWord> = {
                let mut taken = Vec::new();
                let mut count = 0;
                while count < tokens.len() {
                    let Some(w) = words.next() else { break };
                    count += w.1;
                    taken.push(w);
                }
                taken
            };
            let text = self.tokenizer.decode(&tokens, true).map_err(run_err)?.trim().to_string();
            if text.is_empty() {
                continue;
            }
            let (a, b) = (a.min(content), b.min(content).max(a));
            let words = seg_words
                .into_iter()
                .map(|(text, _, ws, we, p)| {
                    // Inside the segment's own timestamps.
                    let (ws, we) = (ws.clamp(a, b), we.clamp(a, b));
                    Word { start: unpack(pieces, ws), end: unpack(pieces, we.max(ws)), text, probability: p }
                })
                .collect();
            segments.push(TranscriptSegment {
                start: unpack(pieces, a),
                end: unpack(pieces, b),
                text,
                words,
                avg_logprob,
                no_speech_prob,
            });
        }
        Ok(segments)
    }
}

fn softmax_at(row: &[f32], i: usize) -> f32 {
    log_softmax_at(row, i).exp()
}

fn log_softmax_at(row: &[f32], i: usize) -> f32 {
    let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = row.iter().map(|x| (x - m).exp()).sum();
    row[i] - m - sum.ln()
}
