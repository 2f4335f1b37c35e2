//! Emotion windows: the interface's `data.emotion[]`, computed from a document's emotion samples.
//!
//! A document's [`Emotions`] hold one row of probabilities (one per name) and one valence, arousal
//! and dominance value per sample, on their own grid: sample `i` covers
//! `[i * step, (i + 1) * step)`. [`emotion_windows`] cuts time into consecutive windows of a given
//! length and reports, per window, the **time-weighted mean** of every value over the samples that
//! overlap it, each sample weighted by the seconds it shares with the window. When the window
//! length is a multiple of the emotion step this is the plain mean of the window's samples.
//!
//! The analysed span ends at `min(probs.len() * step, duration)`: an analyser may stop before the
//! end of the title, and the last sample may reach past it (signals.md allows
//! `ceil(duration / step)` samples). Windows start at 0, are consecutive, cover the analysed span
//! exactly, and the last one ends with it (so it may be shorter than the others). A document
//! without emotion samples gives no windows. Window times and means are reported rounded
//! ([`crate::report`]: milliseconds, six decimals).
//!
//! ```
//! let signals = kino::synth::demo_signals("tt-emotions", 600.0, 1.0, 3);
//! let windows = kino::emotion_windows(&signals, kino::emotions::DEFAULT_WINDOW)?;
//! assert_eq!(windows[0].start_time, 0.0);
//! assert_eq!(windows.last().unwrap().end_time, 600.0);
//! println!("{}", serde_json::to_string(&windows[0]).unwrap());
//! # Ok::<(), kino::Error>(())
//! ```

use rayon::prelude::*;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::error::{Error, Result};
use crate::report;
use crate::signals::{Emotions, Signals};

/// The default window length in seconds.
pub const DEFAULT_WINDOW: f64 = 10.0;

/// The most windows one call may produce; a shorter window is rejected rather than allocated.
pub const MAX_WINDOWS: usize = 10_000_000;

/// One window of the interface's emotion result (`data.emotion[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EmotionWindow {
    /// Window start in seconds.
    pub start_time: f64,
    /// Window end in seconds.
    pub end_time: f64,
    /// Mean probability of each emotion, in the document's name order.
    pub emotions: Vec<EmotionScore>,
    /// Mean valence, in `[-1, 1]`.
    pub valence: f64,
    /// Mean arousal, in `[-1, 1]`.
    pub arousal: f64,
    /// Mean dominance, in `[-1, 1]`.
    pub dominance: f64,
}

/// An emotion name and its mean probability; serializes as the single-entry object
/// `{"sadness": 0.12}` of the interface.
#[derive(Debug, Clone, PartialEq)]
pub struct EmotionScore {
    /// The emotion name.
    pub name: String,
    /// Mean probability over the window, in `[0, 1]`.
    pub value: f64,
}

impl Serialize for EmotionScore {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(&self.name, &self.value)?;
        map.end()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for EmotionScore {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        let probability = ObjectBuilder::new().schema_type(Type::Number).minimum(Some(0.0)).maximum(Some(1.0));
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(AdditionalProperties::RefOr(probability.into())))
            .min_properties(Some(1))
            .max_properties(Some(1))
            .description(Some("One emotion and its mean probability over the window, as a single-entry object."))
            .examples([serde_json::json!({"sadness": 0.12})])
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for EmotionScore {}

/// The emotion windows of one document (see the module documentation for the exact rule).
///
/// Errors: [`Error::MissingSignal`] when the document has no `emotions`,
/// [`Error::InvalidArgument`] when `window` is not finite and positive or would give more than
/// [`MAX_WINDOWS`] windows, [`Error::InvalidSignals`] when the emotion arrays disagree in length
/// (only possible for a document that was never validated).
pub fn emotion_windows(signals: &Signals, window: f64) -> Result<Vec<EmotionWindow>> {
    let emotions =
        signals.emotions.as_ref().ok_or(Error::MissingSignal { field: "emotions", needed_by: "emotion windows" })?;
    windows_of(emotions, signals.duration, window)
}

/// [`emotion_windows`] over many documents in parallel (rayon); one result per document, in order.
pub fn emotion_windows_many(items: &[&Signals], window: f64) -> Vec<Result<Vec<EmotionWindow>>> {
    items.par_iter().map(|s| emotion_windows(s, window)).collect()
}

/// The end of the analysed span: `min(samples * step, duration)`.
pub fn analysed_end(emotions: &Emotions, duration: f64) -> f64 {
    (emotions.probs.len() as f64 * emotions.step).min(duration)
}

/// The windows of `emotions` for a title of `duration` seconds, in one pass over the samples.
pub fn windows_of(emotions: &Emotions, duration: f64, window: f64) -> Result<Vec<EmotionWindow>> {
    if !(window.is_finite() && window > 0.0) {
        return Err(Error::argument("window", format!("must be finite and > 0 (got {window})")));
    }
    check_lengths(emotions)?;
    let end = analysed_end(emotions, duration);
    if end.is_nan() || end <= 0.0 {
        return Ok(Vec::new());
    }
    let expected = (end / window).ceil();
    if expected > MAX_WINDOWS as f64 {
        return Err(Error::argument(
            "window",
            format!("gives {expected} windows over {end} s, more than the supported {MAX_WINDOWS}"),
        ));
    }
    let names = emotions.names.len();
    let step = emotions.step;
    let mut acc = Accumulator::new(names);
    let mut out = Vec::with_capacity(expected as usize + 1);
    let mut k = 0usize;
    let mut window_end = window.min(end);
    let m = emotions.probs.len();
    let (probs, valence, arousal, dominance) =
        (&emotions.probs, &emotions.valence, &emotions.arousal, &emotions.dominance);
    let mut i = 0;
    while i < m && (i as f64 * step) < end {
        // Samples i..j end before the current window does: the common case, a plain pass.
        let mut j = ((window_end / step) as usize).clamp(i, m);
        while j > i && (j as f64 * step) >= window_end {
            j -= 1;
        }
        while j < m && ((j + 1) as f64 * step) < window_end {
            j += 1;
        }
        if j > i {
            let whole = probs[i..j].iter().zip(&valence[i..j]).zip(arousal[i..j].iter().zip(&dominance[i..j]));
            for ((row, &v), (&a, &d)) in whole {
                acc.add_whole(row, [v, a, d]);
            }
            i = j;
            continue;
        }
        // Sample i reaches the end of the window: split it across the windows it overlaps.
        let (sample_start, sample_end) = (i as f64 * step, ((i + 1) as f64 * step).min(end));
        let (row, vad) = (&probs[i], [valence[i], arousal[i], dominance[i]]);
        let mut t = sample_start;
        while t < sample_end {
            let piece_end = sample_end.min(window_end);
            acc.add(piece_end - t, row, vad);
            t = piece_end;
            if piece_end >= window_end {
                out.push(acc.flush(&emotions.names, step, (k as f64 * window, window_end), end));
                k += 1;
                window_end = ((k + 1) as f64 * window).min(end);
            }
        }
        i += 1;
    }
    Ok(out)
}

/// Checks that every per-sample array has one entry per sample and every row one per name.
fn check_lengths(e: &Emotions) -> Result<()> {
    let m = e.probs.len();
    for (field, len) in [
        ("emotions.valence", e.valence.len()),
        ("emotions.arousal", e.arousal.len()),
        ("emotions.dominance", e.dominance.len()),
    ] {
        if len != m {
            return Err(Error::signals(field, format!("must have one value per emotion sample ({m}) (got {len})")));
        }
    }
    if let Some(i) = e.probs.iter().position(|row| row.len() != e.names.len()) {
        return Err(Error::signals(
            format!("emotions.probs[{i}]"),
            format!("must have one probability per name ({}) (got {})", e.names.len(), e.probs[i].len()),
        ));
    }
    Ok(())
}

/// Sums of the current window, one per name then valence, arousal, dominance: samples cut by a
/// window edge weighted by the seconds inside it, whole samples (weight `step`) summed plainly and
/// scaled once at the end, which keeps the common case a plain pass over the arrays.
struct Accumulator {
    weighted: Vec<f64>,
    weighted_vad: [f64; 3],
    weight: f64,
    whole: Vec<f64>,
    whole_vad: [f64; 3],
    whole_count: usize,
}

impl Accumulator {
    fn new(names: usize) -> Self {
        Accumulator {
            weighted: vec![0.0; names],
            weighted_vad: [0.0; 3],
            weight: 0.0,
            whole: vec![0.0; names],
            whole_vad: [0.0; 3],
            whole_count: 0,
        }
    }

    #[inline]
    fn add_whole(&mut self, row: &[f32], vad: [f32; 3]) {
        for (s, &p) in self.whole.iter_mut().zip(row) {
            *s += f64::from(p);
        }
        for (s, v) in self.whole_vad.iter_mut().zip(vad) {
            *s += f64::from(v);
        }
        self.whole_count += 1;
    }

    #[inline]
    fn add(&mut self, w: f64, row: &[f32], vad: [f32; 3]) {
        for (s, &p) in self.weighted.iter_mut().zip(row) {
            *s += w * f64::from(p);
        }
        for (s, v) in self.weighted_vad.iter_mut().zip(vad) {
            *s += w * f64::from(v);
        }
        self.weight += w;
    }

    /// The window `[start, end)` of an analysed span ending at `span_end`, rounded as reported.
    fn flush(&mut self, names: &[String], step: f64, (start, end): (f64, f64), span_end: f64) -> EmotionWindow {
        let total = self.weight + step * self.whole_count as f64;
        let mean = |weighted: &mut f64, whole: &mut f64| {
            report::score((std::mem::take(weighted) + step * std::mem::take(whole)) / total)
        };
        let emotions = names
            .iter()
            .zip(self.weighted.iter_mut().zip(&mut self.whole))
            .map(|(name, (w, u))| EmotionScore { name: name.clone(), value: mean(w, u) })
            .collect();
        let [valence, arousal, dominance] = [0, 1, 2].map(|j| mean(&mut self.weighted_vad[j], &mut self.whole_vad[j]));
        self.weight = 0.0;
        self.whole_count = 0;
        let (start_time, end_time) = (report::time_within(start, span_end), report::time_within(end, span_end));
        EmotionWindow { start_time, end_time, emotions, valence, arousal, dominance }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn emotions(step: f64, probs: Vec<Vec<f32>>, vad: Vec<[f32; 3]>) -> Emotions {
        let names = (0..probs.first().map_or(2, Vec::len)).map(|j| format!("e{j}")).collect();
        Emotions {
            step,
            names,
            probs,
            valence: vad.iter().map(|v| v[0]).collect(),
            arousal: vad.iter().map(|v| v[1]).collect(),
            dominance: vad.iter().map(|v| v[2]).collect(),
        }
    }

    /// The obvious quadratic recomputation: every window against every sample.
    fn naive(e: &Emotions, duration: f64, window: f64) -> Vec<(f64, f64, Vec<f64>)> {
        let end = (e.probs.len() as f64 * e.step).min(duration);
        let mut out = Vec::new();
        let mut k = 0usize;
        while (k as f64) * window < end {
            let (a, b) = (k as f64 * window, ((k + 1) as f64 * window).min(end));
            let mut sums = vec![0.0; e.names.len() + 3];
            let mut weight = 0.0;
            for (i, row) in e.probs.iter().enumerate() {
                let (s, t) = (i as f64 * e.step, ((i + 1) as f64 * e.step).min(end));
                let w = (t.min(b) - s.max(a)).max(0.0);
                let values = row.iter().copied().chain([e.valence[i], e.arousal[i], e.dominance[i]]);
                for (sum, v) in sums.iter_mut().zip(values) {
                    *sum += w * f64::from(v);
                }
                weight += w;
            }
            out.push((a, b, sums.into_iter().map(|s| s / weight).collect()));
            k += 1;
        }
        out
    }

    #[test]
    fn plain_means_when_the_window_is_a_multiple_of_the_step() {
        let probs = vec![vec![0.0, 1.0], vec![0.5, 0.5], vec![1.0, 0.0], vec![0.2, 0.4], vec![0.6, 0.8]];
        let vad = vec![[0.0, 0.5, -1.0], [1.0, 0.5, 1.0], [0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [-1.0, 1.0, 0.5]];
        let e = emotions(1.0, probs, vad);
        let w = windows_of(&e, 5.0, 2.0).unwrap();
        assert_eq!(w.len(), 3);
        assert_eq!((w[0].start_time, w[0].end_time), (0.0, 2.0));
        assert_eq!((w[2].start_time, w[2].end_time), (4.0, 5.0), "the last window is partial");
        assert_eq!(w[0].emotions[0], EmotionScore { name: "e0".into(), value: 0.25 });
        assert_eq!(w[0].emotions[1].value, 0.75);
        assert_eq!((w[0].valence, w[0].arousal, w[0].dominance), (0.5, 0.5, 0.0));
        assert!((w[1].emotions[0].value - 0.6).abs() < 1e-7);
        assert!((w[2].valence + 1.0).abs() < 1e-7);
    }

    #[test]
    fn serializes_to_the_interface_shape() {
        let e = emotions(1.0, vec![vec![0.25, 0.5]], vec![[0.5, -0.5, 0.0]]);
        let w = windows_of(&e, 1.0, 10.0).unwrap();
        let json = serde_json::to_value(&w).unwrap();
        assert_eq!(
            json,
            serde_json::json!([{
                "start_time": 0.0, "end_time": 1.0,
                "emotions": [{"e0": 0.25}, {"e1": 0.5}],
                "valence": 0.5, "arousal": -0.5, "dominance": 0.0
            }])
        );
    }

    #[test]
    fn analysed_span_is_clipped_to_the_duration_and_may_end_early() {
        let e = emotions(4.0, vec![vec![0.5, 0.5]; 3], vec![[0.0; 3]; 3]);
        // 3 samples of 4 s reach 12 s, past a 10 s title: the last window ends at 10.
        assert_eq!(windows_of(&e, 10.0, 3.0).unwrap().last().unwrap().end_time, 10.0);
        // The analyser stopped at 12 s of a 60 s title: windows stop there too.
        assert_eq!(windows_of(&e, 60.0, 5.0).unwrap().last().unwrap().end_time, 12.0);
    }

    #[test]
    fn no_samples_no_windows_and_bad_arguments_are_errors() {
        let e = emotions(1.0, vec![], vec![]);
        assert!(windows_of(&e, 10.0, 10.0).unwrap().is_empty());
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err = windows_of(&e, 10.0, bad).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument { name: "window", .. }), "{err}");
        }
        let e = emotions(1.0, vec![vec![0.5, 0.5]; 3], vec![[0.0; 3]; 3]);
        assert!(matches!(windows_of(&e, 3.0, 1e-9), Err(Error::InvalidArgument { .. })));
        let mut broken = e.clone();
        broken.arousal.pop();
        let err = windows_of(&broken, 3.0, 1.0).unwrap_err();
        assert!(err.to_string().contains("emotions.arousal"), "{err}");
    }

    #[test]
    fn a_document_without_emotions_is_a_missing_signal() {
        let mut s = crate::synth::demo_signals("no-emotions", 60.0, 1.0, 1);
        s.emotions = None;
        assert!(matches!(emotion_windows(&s, 10.0), Err(Error::MissingSignal { field: "emotions", .. })));
    }

    #[test]
    fn synthetic_documents_cover_their_duration_in_parallel() {
        let docs: Vec<Signals> =
            (0..4).map(|i| crate::synth::demo_signals(&format!("t{i}"), 300.0 + i as f64, 1.0, i)).collect();
        let refs: Vec<&Signals> = docs.iter().collect();
        for (doc, result) in docs.iter().zip(emotion_windows_many(&refs, 10.0)) {
            let windows = result.unwrap();
            let e = doc.emotions.as_ref().unwrap();
            assert_eq!(windows.last().unwrap().end_time, analysed_end(e, doc.duration));
            assert_eq!(windows, emotion_windows(doc, 10.0).unwrap());
        }
    }

    fn arbitrary_emotions() -> impl Strategy<Value = (Emotions, f64, f64)> {
        (1usize..4, 0usize..60, 0.05f64..5.0, 0.05f64..30.0, 0.2f64..1.2).prop_flat_map(
            |(names, m, step, window, reach)| {
                let row = prop::collection::vec(0f32..=1.0, names);
                let vad = [-1f32..=1.0, -1f32..=1.0, -1f32..=1.0];
                (prop::collection::vec(row, m), prop::collection::vec(vad, m)).prop_map(move |(probs, vad)| {
                    let mut e = emotions(step, probs, vad);
                    e.names = (0..names).map(|j| format!("e{j}")).collect();
                    // The title may end before or after the analysed span.
                    let duration = (m.max(1) as f64 * step * reach).max(1e-3);
                    (e, duration, window)
                })
            },
        )
    }

    proptest! {
        #[test]
        fn matches_the_naive_recomputation((e, duration, window) in arbitrary_emotions()) {
            let fast = windows_of(&e, duration, window).unwrap();
            let slow = naive(&e, duration, window);
            prop_assert_eq!(fast.len(), slow.len());
            let end = analysed_end(&e, duration);
            let mut previous_end = 0.0;
            for (w, (a, b, means)) in fast.iter().zip(&slow) {
                prop_assert_eq!(w.start_time, previous_end, "windows are consecutive");
                prop_assert!(w.start_time <= w.end_time && w.end_time <= duration);
                prop_assert_eq!((w.start_time, w.end_time), (report::time_within(*a, end), report::time_within(*b, end)));
                let got: Vec<f64> = w.emotions.iter().map(|s| s.value).chain([w.valence, w.arousal, w.dominance]).collect();
                for (x, y) in got.iter().zip(means) {
                    prop_assert_eq!(*x, report::score(*x), "reported means are rounded");
                    prop_assert!((x - y).abs() <= 0.5 / report::SCORE_SCALE + 1e-9, "{} vs {}", x, y);
                }
                previous_end = w.end_time;
            }
            prop_assert_eq!(previous_end, report::time_within(end.max(0.0), end.max(0.0)));
        }
    }
}
