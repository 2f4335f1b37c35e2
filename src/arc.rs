//! The emotional arc of a title: how its valence rises and falls over the runtime, and which of
//! the six basic story shapes it is nearest.
//!
//! Reagan, Mitchell, Kiley, Danforth and Dodds (2016), "The emotional arcs of stories are
//! dominated by six basic shapes" (EPJ Data Science 5:31), measured the sentiment of sliding
//! windows over the text of some 1,300 books and found six shapes: rags to riches (a rise),
//! tragedy (a fall), man in a hole (fall then rise), Icarus (rise then fall), Cinderella
//! (rise, fall, rise) and Oedipus (fall, rise, fall). kino measures the same thing over the
//! picture and sound, from the document's per-sample valence (`emotions.valence`, in `[-1, 1]`):
//!
//! 1. **Bins.** The analysed span (`min(samples * step, duration)`, the runtime when the analysis
//!    covers it all) is cut into [`BINS`] equal bins; each bin holds the time-weighted mean of the
//!    samples that overlap it (a sample longer than a bin fills every bin it covers).
//! 2. **Smoothing.** A centred moving average over [`WINDOW_BINS`] bins (10 % of the runtime,
//!    Reagan et al.'s sliding window), truncated at both ends.
//! 3. **Normalising.** The smoothed curve is z-normalised (mean 0, standard deviation 1), so
//!    shape counts and level does not: a gloomy film that brightens is a rise like a cheerful one
//!    that brightens.
//! 4. **Templates.** Each shape is a function of the relative time `x` in `[0, 1]` (at the bins'
//!    centres), z-normalised the same way: rags to riches `x`, tragedy `-x`, man in a hole
//!    `cos(2πx)`, Icarus `-cos(2πx)`, Cinderella `-cos(3πx)`, Oedipus `cos(3πx)`.
//! 5. **Distance.** The root mean square difference between the normalised curve and a template,
//!    in `[0, 2]`: 0 is the template itself, `sqrt(2)` an unrelated curve, 2 its mirror image
//!    (for z-normalised curves it equals `sqrt(2 - 2r)`, `r` their correlation). The arc's shape
//!    is the nearest template.
//!
//! **No arc.** [`emotional_arc`] gives `None` for a document without emotions, with fewer than
//! [`MIN_SAMPLES`] valence samples (too few to show three turns), with a step, a duration or a
//! valence that is not a finite number, or whose smoothed valence is **flat** (standard deviation
//! below [`FLAT_SPREAD`]): a flat curve has no shape, and normalising it would divide by zero.
//!
//! The arc reports [`POINTS`] points of the smoothed valence (not normalised, so the level shows),
//! each the mean of [`BINS`]` / `[`POINTS`] consecutive bins, at evenly spaced times over the span.
//! Distances and points are rounded as scores ([`crate::report`]).
//!
//! ```
//! let signals = kino::synth::demo_signals("tt-arc", 5400.0, 1.0, 3);
//! let arc = kino::arc::emotional_arc(&signals).expect("demo documents carry emotions");
//! assert_eq!(arc.valence.len(), kino::arc::POINTS);
//! assert!(arc.distance <= arc.distances[&arc.shape]);
//! println!("{} (distance {})", arc.shape, arc.distance);
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::report;
use crate::signals::Signals;

/// Bins the analysed span is cut into.
pub const BINS: usize = 100;
/// Width of the moving average, in bins: 10 % of the runtime.
pub const WINDOW_BINS: usize = 10;
/// Points of smoothed valence an arc reports.
pub const POINTS: usize = 20;
/// The fewest valence samples an arc is measured from.
pub const MIN_SAMPLES: usize = 10;
/// A smoothed valence whose standard deviation is below this is flat: it has no shape.
pub const FLAT_SPREAD: f64 = 1e-3;

/// One of the six basic shapes of Reagan et al. (2016).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ArcShape {
    /// A rise: `x`.
    RagsToRiches,
    /// A fall: `-x`.
    Tragedy,
    /// Fall then rise: `cos(2πx)`.
    ManInAHole,
    /// Rise then fall: `-cos(2πx)`.
    Icarus,
    /// Rise, fall, rise: `-cos(3πx)`.
    Cinderella,
    /// Fall, rise, fall: `cos(3πx)`.
    Oedipus,
}

impl ArcShape {
    /// The six shapes, in the order above.
    pub const ALL: [ArcShape; 6] = [
        ArcShape::RagsToRiches,
        ArcShape::Tragedy,
        ArcShape::ManInAHole,
        ArcShape::Icarus,
        ArcShape::Cinderella,
        ArcShape::Oedipus,
    ];

    /// The serialized name (`man_in_a_hole`), as filters and results spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ArcShape::RagsToRiches => "rags_to_riches",
            ArcShape::Tragedy => "tragedy",
            ArcShape::ManInAHole => "man_in_a_hole",
            ArcShape::Icarus => "icarus",
            ArcShape::Cinderella => "cinderella",
            ArcShape::Oedipus => "oedipus",
        }
    }

    /// The name shown to people (`man in a hole`).
    pub fn name(self) -> &'static str {
        match self {
            ArcShape::RagsToRiches => "rags to riches",
            ArcShape::Tragedy => "tragedy",
            ArcShape::ManInAHole => "man in a hole",
            ArcShape::Icarus => "Icarus",
            ArcShape::Cinderella => "Cinderella",
            ArcShape::Oedipus => "Oedipus",
        }
    }

    /// The shape named `name` as [`ArcShape::as_str`] spells it.
    pub fn parse(name: &str) -> Option<ArcShape> {
        ArcShape::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The shape's template at relative time `x` in `[0, 1]` (before normalising).
    pub fn template(self, x: f64) -> f64 {
        use std::f64::consts::PI;
        match self {
            ArcShape::RagsToRiches => x,
            ArcShape::Tragedy => -x,
            ArcShape::ManInAHole => (2.0 * PI * x).cos(),
            ArcShape::Icarus => -(2.0 * PI * x).cos(),
            ArcShape::Cinderella => -(3.0 * PI * x).cos(),
            ArcShape::Oedipus => (3.0 * PI * x).cos(),
        }
    }
}

impl fmt::Display for ArcShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A title's emotional arc (see the module documentation for the method).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EmotionalArc {
    /// The nearest of the six shapes.
    pub shape: ArcShape,
    /// Its name as shown to people (`man in a hole`).
    pub name: String,
    /// The distance to that shape, in `[0, 2]` (0: the shape itself).
    pub distance: f64,
    /// The distance to each of the six shapes.
    pub distances: BTreeMap<ArcShape, f64>,
    /// Seconds the points cover: the analysed span, from 0.
    pub end: f64,
    /// [`POINTS`] values of the smoothed valence (in `[-1, 1]`), point `k` the mean over
    /// `[k, k + 1) * end / POINTS`.
    pub valence: Vec<f64>,
}

impl EmotionalArc {
    /// How differently two arcs move: the root mean square difference of their z-normalised
    /// points, in `[0, 2]` (0: the same story shape, 2: mirror images; 1 when either is flat).
    pub fn distance_to(&self, other: &EmotionalArc) -> f64 {
        rms(&normalised(&self.valence), &normalised(&other.valence))
    }
}

/// The emotional arc of a document, `None` when it has none (see the module documentation).
pub fn emotional_arc(signals: &Signals) -> Option<EmotionalArc> {
    let e = signals.emotions.as_ref()?;
    let n = e.valence.len();
    if n < MIN_SAMPLES
        || !(e.step.is_finite() && e.step > 0.0)
        || !(signals.duration.is_finite() && signals.duration > 0.0)
        || e.valence.iter().any(|v| !v.is_finite())
    {
        return None;
    }
    let end = (n as f64 * e.step).min(signals.duration);
    let values: Vec<f64> = e.valence.iter().map(|v| f64::from(*v).clamp(-1.0, 1.0)).collect();
    arc_of(&smooth(&bins(&values, e.step, end)), end)
}

/// The arc of a smoothed curve of [`BINS`] values over `end` seconds (`None` when flat).
fn arc_of(smoothed: &[f64], end: f64) -> Option<EmotionalArc> {
    if spread(smoothed) < FLAT_SPREAD {
        return None;
    }
    let curve = normalised(smoothed);
    let exact: Vec<(ArcShape, f64)> = ArcShape::ALL.iter().map(|s| (*s, rms(&curve, &template(*s)))).collect();
    let &(shape, distance) = exact.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let per = BINS / POINTS;
    Some(EmotionalArc {
        shape,
        name: shape.name().to_string(),
        distance: report::score(distance),
        distances: exact.iter().map(|(s, d)| (*s, report::score(*d))).collect(),
        end: report::time(end),
        valence: smoothed.chunks(per).map(|c| report::score(c.iter().sum::<f64>() / c.len() as f64)).collect(),
    })
}

/// The time-weighted mean of the samples over each of [`BINS`] equal bins of `[0, end)`; sample
/// `i` covers `[i * step, (i + 1) * step)`.
fn bins(values: &[f64], step: f64, end: f64) -> Vec<f64> {
    let width = end / BINS as f64;
    let mut sum = vec![0.0; BINS];
    let mut weight = vec![0.0; BINS];
    for (i, v) in values.iter().enumerate() {
        let (a, b) = (i as f64 * step, ((i + 1) as f64 * step).min(end));
        if a >= end {
            break;
        }
        let first = ((a / width).floor() as usize).min(BINS - 1);
        let last = ((b / width).ceil() as usize).clamp(first + 1, BINS);
        for (k, (s, w)) in sum.iter_mut().zip(weight.iter_mut()).enumerate().take(last).skip(first) {
            let overlap = b.min((k + 1) as f64 * width) - a.max(k as f64 * width);
            if overlap > 0.0 {
                *s += v * overlap;
                *w += overlap;
            }
        }
    }
    // A bin no sample reached (only through rounding at its edge) takes its left neighbour's mean.
    let mut out: Vec<f64> = Vec::with_capacity(BINS);
    for (s, w) in sum.iter().zip(&weight) {
        let mean = if *w > 0.0 { s / w } else { out.last().copied().unwrap_or(0.0) };
        out.push(mean);
    }
    out
}

/// The centred moving average over [`WINDOW_BINS`] bins, truncated at the ends.
fn smooth(bins: &[f64]) -> Vec<f64> {
    let (before, after) = (WINDOW_BINS / 2, WINDOW_BINS - WINDOW_BINS / 2 - 1);
    (0..bins.len())
        .map(|i| {
            let window = &bins[i.saturating_sub(before)..(i + after + 1).min(bins.len())];
            window.iter().sum::<f64>() / window.len() as f64
        })
        .collect()
}

/// The shape's template at the centres of [`BINS`] bins, z-normalised.
fn template(shape: ArcShape) -> Vec<f64> {
    normalised(&(0..BINS).map(|i| shape.template((i as f64 + 0.5) / BINS as f64)).collect::<Vec<_>>())
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The population standard deviation.
fn spread(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len().max(1) as f64).sqrt()
}

/// `v` with mean 0 and standard deviation 1; all zeros when it is flat.
fn normalised(v: &[f64]) -> Vec<f64> {
    let (m, s) = (mean(v), spread(v));
    if s < FLAT_SPREAD { vec![0.0; v.len()] } else { v.iter().map(|x| (x - m) / s).collect() }
}

/// The root mean square difference of two curves of the same length.
fn rms(a: &[f64], b: &[f64]) -> f64 {
    (a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>() / a.len().max(1) as f64).sqrt()
}

#[cfg(test)]
mod tests;
