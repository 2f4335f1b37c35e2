//! How much each sampled frame counts in what a scene shows (issue 48): a frame's labels and its
//! feature count in proportion to how much there is to see in it and how sure the classifier is
//! of it, so that a black, flat or blurred frame counts for little and a sharp one fully; the
//! labels of a frame are the whole frame's and those of the detector's largest boxes
//! ([`crate::see::RegionLabels`]). The rules and their measurements are in `docs/media.md` ("What
//! the picture shows").

use kino::signals::Scene;

use crate::see::{Seen, dequantise, frames_in};

/// A frame counts fully for its light from this mean luma (of 255) on...
pub const LIT: f32 = 24.0;
/// ...in proportion above this one, and not at all at or below it (a black frame; the black cue's
/// frames average at most 20, a dark scene of the evaluation film 22 with its rabbit plain to see).
pub const DARK: f32 = 4.0;
/// A frame counts fully for its detail from this sharpness on ([`crate::see::sharpness`], the
/// variance of the Laplacian of its luma at 640 pixels wide), in proportion below it: a flat frame
/// not at all. On the evaluation film, clean cartoon frames measure 18 and more, a rabbit blurred
/// by its motion 7, and the sharp frames of it blurred by a Gaussian of 2 pixels 1.5 to 5.
pub const SHARP: f32 = 10.0;
/// A frame's feature counts at least this much in a mean: a scene of black frames still looks
/// like something (like other black scenes).
pub const FEATURE_FLOOR: f32 = 0.01;

/// How much there is to see in a frame, 0 to 1: its light ([`DARK`] to [`LIT`]) times its detail
/// ([`SHARP`]).
pub fn visibility(s: &Seen) -> f32 {
    let light = ((s.brightness - DARK) / (LIT - DARK)).clamp(0.0, 1.0);
    let detail = (s.sharpness / SHARP).clamp(0.0, 1.0);
    if light.is_finite() && detail.is_finite() { light * detail } else { 0.0 }
}

/// How sure the classifier is of the whole frame: its largest probability (0 without labels).
pub fn confidence(s: &Seen) -> f32 {
    s.labels.iter().flatten().map(|&(_, p)| p).fold(0.0, f32::max)
}

/// How much a frame counts in its scene's means: [`confidence`] times [`visibility`]. Before issue
/// 48 every frame counted the same, a black one as much as a sharp one.
pub fn frame_weight(s: &Seen) -> f32 {
    confidence(s) * visibility(s)
}

/// The labels of a frame: the whole frame's five and, for each box the classifier read
/// ([`crate::see::regions_to_label`]), the crop's five with their probability times the box's
/// confidence (how sure the detector is that something is there); per class the largest, most
/// probable first (ties by class).
pub fn frame_labels(s: &Seen) -> Vec<(u16, f32)> {
    let mut best: std::collections::BTreeMap<u16, f32> = std::collections::BTreeMap::new();
    let regions = s.regions.iter().flat_map(|r| r.labels.iter().map(move |&(i, p)| (i, p * r.object.confidence)));
    for (i, p) in s.labels.iter().flatten().copied().chain(regions) {
        let e = best.entry(i).or_insert(0.0);
        *e = e.max(p);
    }
    let mut labels: Vec<(u16, f32)> = best.into_iter().collect();
    labels.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    labels
}

pub(super) fn unit(sum: Vec<f32>) -> Option<Vec<f32>> {
    let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| sum.into_iter().map(|v| v / norm).collect())
}

/// The mean feature of `frames`, each weighted by [`frame_weight`] (at least [`FEATURE_FLOOR`]),
/// unit length; `None` without any.
pub(super) fn mean_feature<'a>(frames: impl Iterator<Item = &'a Seen>) -> Option<Vec<f32>> {
    let mut sum: Vec<f32> = Vec::new();
    for s in frames {
        let Some(f) = s.feature.as_deref() else { continue };
        if sum.is_empty() {
            sum = vec![0.0; f.len()];
        }
        let w = frame_weight(s).max(FEATURE_FLOOR);
        for (s, v) in sum.iter_mut().zip(dequantise(f)) {
            *s += w * v;
        }
    }
    unit(sum)
}

/// The classes per frame that go into its ConSE vector.
pub const CONSE_TOP: usize = 5;

/// What the sentence model reads for a class (Norouzi et al.'s convex combination of semantic
/// embeddings needs one vector per class; a short caption places the name among scene
/// descriptions and queries).
fn class_sentence(name: &str) -> String {
    format!("a photo of a {name}")
}

/// A frame's part of a scene's ConSE vector: its weight, and its classes with their shares.
pub(crate) type ConsePart = (f32, Vec<(u16, f32)>);

/// The parts of a scene's ConSE vector, one per frame of `frames` that counts: the frame's
/// [`frame_weight`] and its [`CONSE_TOP`] labels ([`frame_labels`]) with their shares of it
/// (their probabilities over the sum of the five). A frame of weight 0 (black, flat, or no labels)
/// has no part.
pub(crate) fn conse_parts(frames: &[&Seen]) -> Vec<ConsePart> {
    frames
        .iter()
        .filter_map(|s| {
            let top: Vec<(u16, f32)> = frame_labels(s).into_iter().take(CONSE_TOP).collect();
            let total: f32 = top.iter().map(|&(_, p)| p).sum();
            let weight = frame_weight(s);
            (total > 0.0 && weight > 0.0).then(|| (weight, top.into_iter().map(|(i, p)| (i, p / total)).collect()))
        })
        .collect()
}

/// What each scene shows, in the sentence space (ConSE, Norouzi et al., ICLR 2014): a frame's
/// vector is the probability-weighted mean of the sentence vectors of its [`CONSE_TOP`] labels, a
/// scene's the normalised sum of its frames' weighted by how much each counts ([`conse_parts`]).
/// `None` for a scene none of whose frames counts (no labels, or nothing to see: black frames).
pub(crate) fn conse(
    seen: &[Seen],
    names: Option<&[String]>,
    scenes: &[Scene],
    encoder: &kino_models::SentenceEncoder,
) -> Result<Vec<Option<Vec<f32>>>, kino_models::Error> {
    let Some(names) = names else { return Ok(vec![None; scenes.len()]) };
    let parts: Vec<Vec<ConsePart>> = scenes.iter().map(|sc| conse_parts(&frames_in(seen, sc.start, sc.end))).collect();
    let mut classes: Vec<u16> = parts.iter().flatten().flat_map(|(_, top)| top.iter().map(|&(i, _)| i)).collect();
    classes.sort_unstable();
    classes.dedup();
    let sentences: Vec<String> =
        classes.iter().map(|&i| class_sentence(names.get(usize::from(i)).map_or("thing", String::as_str))).collect();
    let mut vectors = Vec::with_capacity(sentences.len());
    for batch in sentences.chunks(32) {
        let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
        vectors.extend(encoder.encode_batch(&refs)?);
    }
    let vector_of = |i: u16| classes.binary_search(&i).ok().map(|k| &vectors[k]);
    Ok(parts
        .iter()
        .map(|frames| {
            let mut sum: Vec<f32> = Vec::new();
            for (weight, top) in frames {
                for &(i, share) in top {
                    let Some(v) = vector_of(i) else { continue };
                    if sum.is_empty() {
                        sum = vec![0.0; v.len()];
                    }
                    sum.iter_mut().zip(v).for_each(|(s, x)| *s += weight * share * x);
                }
            }
            unit(sum)
        })
        .collect())
}

/// A scene's vector in the sentence space: its description's and what is seen in it, mixed by
/// `seen_weight` (each a unit vector), normalised; the description alone without what is seen.
pub(crate) fn mix(text: &[f32], seen: Option<&[f32]>, seen_weight: f32) -> Vec<f32> {
    let Some(seen) = seen.filter(|s| s.len() == text.len()) else { return text.to_vec() };
    let mixed: Vec<f32> = text.iter().zip(seen).map(|(t, s)| (1.0 - seen_weight) * t + seen_weight * s).collect();
    unit(mixed).unwrap_or_else(|| text.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::see::{RegionLabels, quantise, sharpness};

    fn frame(labels: &[(u16, f32)], brightness: f32, sharpness: f32, feature: &[f32]) -> Seen {
        Seen {
            labels: Some(labels.to_vec()),
            brightness,
            sharpness,
            feature: Some(quantise(feature)),
            ..Seen::default()
        }
    }

    #[test]
    fn a_black_or_flat_frame_weighs_nothing() {
        // The classifier may be sure of something on a black frame: it still counts for nothing.
        let black = frame(&[(917, 0.6), (600, 0.1)], 0.0, 0.0, &[1.0, 0.0]);
        assert_eq!(frame_weight(&black), 0.0);
        let grey_noise = frame(&[(917, 0.6)], 3.0, 40.0, &[1.0, 0.0]);
        assert_eq!(frame_weight(&grey_noise), 0.0, "at most DARK: black with a little noise");
        let flat = frame(&[(917, 0.6)], 128.0, 0.0, &[1.0, 0.0]);
        assert_eq!(frame_weight(&flat), 0.0, "a grey card");
        let sharp = frame(&[(281, 0.6)], 120.0, 300.0, &[0.0, 1.0]);
        assert!((frame_weight(&sharp) - 0.6).abs() < 1e-6, "a sharp lit frame counts by its confidence");
        let dark_scene = frame(&[(281, 0.6)], 22.0, 300.0, &[0.0, 1.0]);
        assert!(frame_weight(&dark_scene) > 0.5, "a dark scene with something in it still counts");
        // In a scene's feature the black frame is all but gone; alone, its scene still has one.
        let f = mean_feature([&black, &sharp].into_iter()).unwrap();
        assert!(f[1] > 0.999 && f[0] < 0.03, "{f:?}");
        assert!(mean_feature([&black].into_iter()).is_some());
        // And in what the scene shows in the sentence space it has no part at all.
        assert!(conse_parts(&[&black, &flat]).is_empty());
        assert_eq!(conse_parts(&[&black, &sharp]).len(), 1);
    }

    /// Three passes of a 5x5 box filter (edges clamped) over a grey picture.
    fn blur(grey: &[u8], w: usize, h: usize) -> Vec<u8> {
        let mut out = grey.to_vec();
        for _ in 0..3 {
            let src = out.clone();
            for y in 0..h {
                for x in 0..w {
                    let mut sum = 0u32;
                    for dy in 0..5 {
                        for dx in 0..5 {
                            let yy = (y + dy).saturating_sub(2).min(h - 1);
                            let xx = (x + dx).saturating_sub(2).min(w - 1);
                            sum += u32::from(src[yy * w + xx]);
                        }
                    }
                    out[y * w + x] = (sum / 25) as u8;
                }
            }
        }
        out
    }

    #[test]
    fn a_blurred_frame_weighs_less_than_a_sharp_one() {
        // The same picture (squares of 16 pixels, greys 100 and 140), sharp and blurred, measured
        // as the pass measures frames.
        let (w, h) = (96usize, 64usize);
        let sharp: Vec<u8> = (0..w * h).map(|i| if (i % w / 16 + i / w / 16) % 2 == 0 { 100 } else { 140 }).collect();
        let blurred = blur(&sharp, w, h);
        let seen = |grey: &[u8]| {
            let rgb: Vec<u8> = grey.iter().flat_map(|&v| [v; 3]).collect();
            let f = kino_models::RgbFrame::new(w, h, &rgb).unwrap();
            Seen {
                labels: Some(vec![(281, 0.5)]),
                sharpness: sharpness(f),
                brightness: crate::see::brightness(f),
                ..Seen::default()
            }
        };
        let (a, b) = (frame_weight(&seen(&sharp)), frame_weight(&seen(&blurred)));
        assert!((a - 0.5).abs() < 1e-6, "the sharp frame counts fully: {a}");
        assert!(b < 0.5 * a, "the blurred one far less: {b} against {a}");
        // Below SHARP a frame counts in proportion to its sharpness.
        let soft = frame(&[(281, 0.5)], 120.0, SHARP / 4.0, &[1.0]);
        assert!((frame_weight(&soft) - 0.125).abs() < 1e-6);
        // A less confident frame counts less too.
        assert!(frame_weight(&frame(&[(281, 0.2)], 120.0, 300.0, &[1.0])) < a);
    }

    #[test]
    fn region_labels_join_the_frame_s_own() {
        let dog = kino_models::Detection { class: 16, name: "dog", confidence: 0.8, x: 0.1, y: 0.5, w: 0.3, h: 0.4 };
        let mut s = frame(&[(975, 0.5), (162, 0.1)], 120.0, 300.0, &[1.0]);
        s.regions = vec![RegionLabels { object: dog, labels: vec![(162, 0.75), (167, 0.1)] }];
        // A beagle (162) at 0.75 in a box the detector is 0.8 sure of: 0.6, above the frame's own 0.1.
        let labels = frame_labels(&s);
        assert_eq!(labels.iter().map(|&(i, _)| i).collect::<Vec<_>>(), [162, 975, 167]);
        assert!((labels[0].1 - 0.6).abs() < 1e-6 && (labels[2].1 - 0.08).abs() < 1e-6);
        let parts = conse_parts(&[&s]);
        assert!((parts[0].0 - 0.5).abs() < 1e-6, "the frame counts by the whole frame's confidence");
        assert!((parts[0].1.iter().map(|&(_, p)| p).sum::<f32>() - 1.0).abs() < 1e-6);
    }
}
