//! The best moments (`timelines.relevance`), from the affect: how aroused the moment is and
//! whether it is a peak, how much the feeling changes, who is on screen, what is said and how
//! strongly an emotion is felt; title cards, credits, black and static frames kept out.

use super::{Fused, unit};

/// How the best moments are found: from the affect (the default), or by the activity rule that
/// preceded it (`0.4 loudness + 0.4 motion + 0.2 cut rate`, [`crate::relevance::relevance`]),
/// kept to compare the two.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Relevance {
    #[default]
    Affect,
    Activity,
}

/// The weights of the parts (they sum to 1).
pub const AROUSAL_WEIGHT: f64 = 0.30;
pub const PEAK_WEIGHT: f64 = 0.15;
pub const CHANGE_WEIGHT: f64 = 0.15;
pub const PEOPLE_WEIGHT: f64 = 0.15;
pub const SAID_WEIGHT: f64 = 0.10;
pub const FELT_WEIGHT: f64 = 0.15;
/// A peak: arousal above its median over this many seconds on each side.
pub const PEAK_RADIUS: f64 = 15.0;
/// Emotional change: the distance between the affect this many seconds before and after.
pub const CHANGE_RADIUS: f64 = 2.0;
/// What is kept out: the end credits and black frames count this much of their value...
pub const CREDITS_FACTOR: f64 = 0.2;
/// ...title cards (much text on screen, nothing said) this much...
pub const TITLE_CARD_FACTOR: f64 = 0.4;
/// ...static frames (no motion, nothing said) this much.
pub const STATIC_FACTOR: f64 = 0.5;
/// Mean luma below this is a black frame.
pub const BLACK: f32 = 0.04;
/// On-screen text covering this share of the picture (or more) makes a title card.
pub const TITLE_CARD_TEXT: f32 = 0.02;

/// What the best moments read, per timeline sample (a missing or short slice counts as 0).
#[derive(Debug, Clone, Copy)]
pub struct BestMomentInputs<'a> {
    pub fused: &'a Fused,
    /// Motion, `[0, 1]`.
    pub motion: &'a [f32],
    /// Who is on screen: 1 for the main character, 0.6 for any face, 0 for none.
    pub people: &'a [f32],
    /// 1 where someone speaks.
    pub said: &'a [f32],
    /// On-screen text's share of the picture.
    pub text: &'a [f32],
    /// Mean luma.
    pub brightness: &'a [f32],
    /// 1 inside the end credits or a black-frame cue.
    pub credits: &'a [f32],
}

fn at(v: &[f32], i: usize) -> f64 {
    f64::from(v.get(i).copied().filter(|x| x.is_finite()).unwrap_or(0.0))
}

/// Relevance per sample in `[0, 1]`: the weighted sum of the parts, each in `[0, 1]`, times the
/// factors of what is kept out, smoothed over 3 samples and stretched to span `[0, 1]` (0.5
/// everywhere when nothing varies).
pub fn best_moments(x: &BestMomentInputs<'_>) -> Vec<f32> {
    let f = x.fused;
    let n = f.arousal.len();
    if n == 0 {
        return Vec::new();
    }
    let step = f.step.max(1e-9);
    let peak_radius = (PEAK_RADIUS / step).round().max(1.0) as usize;
    let change_radius = (CHANGE_RADIUS / step).round().max(1.0) as usize;
    let arousal: Vec<f64> = f.arousal.iter().map(|&a| f64::from(a)).collect();
    let raw: Vec<f64> = (0..n)
        .map(|i| {
            let lo = i.saturating_sub(peak_radius);
            let hi = (i + peak_radius + 1).min(n);
            let mut around: Vec<f64> = arousal[lo..hi].to_vec();
            around.sort_by(f64::total_cmp);
            let median = around[around.len() / 2];
            let (a, b) = (i.saturating_sub(change_radius), (i + change_radius).min(n - 1));
            let change = ((f.valence[b] - f.valence[a]).powi(2)
                + (f.arousal[b] - f.arousal[a]).powi(2)
                + (f.dominance[b] - f.dominance[a]).powi(2))
            .sqrt();
            let felt = f.probs[i].iter().fold(0f32, |m, &p| m.max(p));
            let parts = AROUSAL_WEIGHT * f64::from(unit(arousal[i], -0.5, 0.7))
                + PEAK_WEIGHT * f64::from(unit(arousal[i] - median, 0.0, 0.3))
                + CHANGE_WEIGHT * f64::from(unit(f64::from(change), 0.0, 0.5))
                + PEOPLE_WEIGHT * at(x.people, i).clamp(0.0, 1.0)
                + SAID_WEIGHT * at(x.said, i).clamp(0.0, 1.0)
                + FELT_WEIGHT * f64::from(felt);
            let said = at(x.said, i) > 0.0;
            let factor = if at(x.credits, i) > 0.0 || at(x.brightness, i) < f64::from(BLACK) {
                CREDITS_FACTOR
            } else if !said && at(x.text, i) >= f64::from(TITLE_CARD_TEXT) {
                TITLE_CARD_FACTOR
            } else if !said && at(x.motion, i) < 0.02 {
                STATIC_FACTOR
            } else {
                1.0
            };
            parts * factor
        })
        .collect();
    stretch(&crate::timeline::smooth(&raw, 1))
}

/// Values stretched to span `[0, 1]`, rounded to 4 decimals (0.5 everywhere when flat).
pub(crate) fn stretch(values: &[f64]) -> Vec<f32> {
    let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    values
        .iter()
        .map(|&v| {
            let x = if max - min > 1e-9 { (v - min) / (max - min) } else { 0.5 };
            ((x.clamp(0.0, 1.0) * 10_000.0).round() / 10_000.0) as f32
        })
        .collect()
}
