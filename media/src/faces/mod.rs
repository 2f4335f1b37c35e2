//! Characters from faces: the faces detected on sampled frames, clustered over the whole title
//! into identities, ranked by screen time, with the spans in which each is on screen; and the 9:16
//! subject track that follows the main character's face ([`follow_subject`]).
//!
//! Plain data in: each sample is a time and the faces seen then ([`Face`], as kino-models'
//! `FaceAnalyzer` gives them), each with a box in fractions of the frame and a unit-length
//! embedding (dlib's 128-float face descriptors), so it is tested without models. How the
//! threshold was chosen and what it means: `docs/media.md`.

mod cluster;
mod cuts;
mod subject;
#[cfg(test)]
mod tests;

use kino::signals::{Character, Interval};

use cuts::{shot_bounds, sorted_cuts};

pub use subject::{DEAD_ZONE, FACE_HOLD, SMOOTHING_SECONDS, follow_subject};

/// dlib's own rule for its face descriptors ("the same person when their distance is below 0.6"),
/// restated for unit-length descriptors: dlib's raw descriptors are about 1.4 long (1.30 to 1.52
/// measured on 19 faces), so 0.6 becomes 0.6 / 1.4 ≈ 0.43. See `docs/media.md`.
pub const DEFAULT_THRESHOLD: f32 = 0.43;

/// One face seen on a sampled frame: its box in fractions of the frame, the detector's
/// confidence (larger is surer) and a unit-length descriptor, as kino-models' `FaceAnalyzer`
/// gives it.
pub use kino_models::Face;

/// Horizontal centre of the face's box, clamped to `[0, 1]`.
pub fn center_x(face: &Face) -> f32 {
    let c = face.x + face.w / 2.0;
    if c.is_finite() { c.clamp(0.0, 1.0) } else { 0.5 }
}

/// How faces become characters.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterParams {
    /// Two faces are one identity when the Euclidean distance between their unit descriptors is
    /// at most this.
    pub threshold: f32,
    /// Identities seen in fewer samples than this are dropped (passers-by, false detections).
    pub min_samples: usize,
    /// At most this many characters are kept, the ones with the most screen time.
    pub max_characters: usize,
    /// Seconds a face seen at one sample covers (centred on it); `None`: the median interval
    /// between consecutive samples.
    pub interval: Option<f64>,
}

impl Default for CharacterParams {
    fn default() -> CharacterParams {
        CharacterParams { threshold: DEFAULT_THRESHOLD, min_samples: 3, max_characters: 20, interval: None }
    }
}

/// Screen time and face count of one kept identity.
#[derive(Debug, Clone, PartialEq)]
pub struct IdentityStats {
    /// The character's rank (0: most screen time).
    pub rank: u32,
    /// Total length of its spans, seconds.
    pub screen_seconds: f64,
    /// Faces assigned to it.
    pub faces: usize,
    /// Samples it was seen in.
    pub samples: usize,
    /// The mean of its descriptors, unit length: what matching identities across the episodes of
    /// a series would compare (`docs/media.md`).
    pub centroid: Vec<f32>,
}

/// The characters of a title and what was measured to get them.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterResult {
    /// Ranked characters (0: most screen time), spans sorted, merged and inside the duration.
    pub characters: Vec<Character>,
    /// One entry per character, in rank order.
    pub identities: Vec<IdentityStats>,
    /// The clustering threshold used.
    pub threshold: f32,
    /// Per input sample: the centre x of the face to follow (the best-ranked character in frame,
    /// else the largest face), `None` without faces.
    pub per_sample_main_x: Vec<Option<f32>>,
}

/// Clusters the faces of every sample into identities, keeps those seen in at least
/// `min_samples` samples, ranks them by screen time and gives each its spans.
///
/// `samples` are `(time, faces)`, in any order; `shots` are cut times (a face's span never crosses
/// a cut it was not seen after); `duration` bounds every span. Faces whose descriptor is empty,
/// not finite or of another length than the first valid one are ignored.
pub fn characters(
    samples: &[(f64, Vec<Face>)],
    shots: &[f64],
    duration: f64,
    params: &CharacterParams,
) -> CharacterResult {
    let mut result = CharacterResult {
        characters: Vec::new(),
        identities: Vec::new(),
        threshold: params.threshold,
        per_sample_main_x: samples.iter().map(|(_, faces)| largest_face_x(faces.iter())).collect(),
    };
    if !(duration.is_finite() && duration > 0.0) {
        return result;
    }
    // Samples in time order; indices into `samples`.
    let mut order: Vec<usize> = (0..samples.len()).filter(|&i| samples[i].0.is_finite()).collect();
    order.sort_by(|&a, &b| samples[a].0.total_cmp(&samples[b].0));

    let faces = cluster::valid_faces(samples, &order);
    let clusters = cluster::cluster(&faces, params.threshold);
    let cuts = sorted_cuts(shots);
    let interval = params
        .interval
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or_else(|| median_interval(&order.iter().map(|&i| samples[i].0).collect::<Vec<_>>()));

    let mut kept: Vec<(Vec<Interval>, f64, &cluster::Cluster)> = clusters
        .iter()
        .filter(|c| c.samples.len() >= params.min_samples.max(1))
        .filter_map(|c| {
            let times: Vec<f64> = c.samples.iter().map(|&s| samples[s].0).collect();
            let spans = spans(&times, interval, &cuts, duration);
            let seconds: f64 = spans.iter().map(|s| s[1] - s[0]).sum();
            (seconds > 0.0).then_some((spans, seconds, c))
        })
        .collect();
    kept.sort_by(|a, b| {
        b.1.total_cmp(&a.1).then(b.2.faces.len().cmp(&a.2.faces.len())).then(a.2.positions[0].cmp(&b.2.positions[0]))
    });
    kept.truncate(params.max_characters);

    // Which face of which sample belongs to which rank.
    let mut rank_of: Vec<Vec<Option<u32>>> = samples.iter().map(|(_, f)| vec![None; f.len()]).collect();
    for (rank, (spans, seconds, c)) in kept.into_iter().enumerate() {
        let rank = rank as u32;
        for &f in &c.faces {
            let (s, k) = faces[f].at;
            rank_of[s][k] = Some(rank);
        }
        result.characters.push(Character { rank, spans });
        result.identities.push(IdentityStats {
            rank,
            screen_seconds: seconds,
            faces: c.faces.len(),
            samples: c.samples.len(),
            centroid: c.centroid.clone(),
        });
    }
    for (s, (_, obs)) in samples.iter().enumerate() {
        let best = obs.iter().zip(&rank_of[s]).filter_map(|(f, r)| r.map(|r| (r, f))).min_by_key(|(r, _)| *r);
        if let Some((_, face)) = best {
            result.per_sample_main_x[s] = Some(center_x(face));
        }
    }
    result
}

fn largest_face_x<'a>(faces: impl Iterator<Item = &'a Face>) -> Option<f32> {
    faces.max_by(|a, b| area(a).total_cmp(&area(b))).map(center_x)
}

fn area(f: &Face) -> f32 {
    let a = f.w * f.h;
    if a.is_finite() { a } else { 0.0 }
}

/// The median gap between consecutive distinct sample times; 1 s with fewer than two samples.
fn median_interval(times: &[f64]) -> f64 {
    let mut gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).filter(|g| *g > 0.0).collect();
    if gaps.is_empty() {
        return 1.0;
    }
    gaps.sort_by(f64::total_cmp);
    gaps[gaps.len() / 2]
}

/// Each sample time covers `[t - d/2, t + d/2]` clipped to its shot and to `[0, duration]`;
/// overlapping or touching pieces are merged.
fn spans(times: &[f64], interval: f64, cuts: &[f64], duration: f64) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::new();
    for &t in times {
        let (shot_start, shot_end) = shot_bounds(cuts, t);
        let start = (t - interval / 2.0).max(shot_start).max(0.0);
        let end = (t + interval / 2.0).min(shot_end).min(duration);
        if end - start <= 1e-6 {
            continue;
        }
        match out.last_mut() {
            Some(last) if start <= last[1] => last[1] = last[1].max(end),
            _ => out.push([start, end]),
        }
    }
    out
}
