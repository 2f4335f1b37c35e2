//! Agglomeration of face descriptors into identities, in two passes: a leader pass in time order
//! (each face joins the nearest identity within the threshold, else starts one), then centroid
//! linkage (the two nearest identities within the threshold merge, until none are). Two faces of
//! the same sample are never one identity. The leader pass costs faces x identities distances,
//! the merge pass identities^2 per merge, so a film's tens of thousands of faces stay cheap.

use super::FaceObs;

/// A face with a usable descriptor: where it is in the input and its unit descriptor.
pub(crate) struct ValidFace {
    /// (sample index, face index within the sample).
    pub at: (usize, usize),
    /// Position of its sample in time order.
    pub pos: usize,
    pub embedding: Vec<f32>,
}

/// One identity.
pub(crate) struct Cluster {
    /// Indices into the valid faces.
    pub faces: Vec<usize>,
    /// Sample indices it was seen in, in time order, each once.
    pub samples: Vec<usize>,
    /// Time-order positions of those samples (sorted, distinct).
    pub positions: Vec<usize>,
    /// Mean descriptor, unit length.
    pub centroid: Vec<f32>,
    sum: Vec<f32>,
}

impl Cluster {
    fn add(&mut self, face: usize, f: &ValidFace) {
        self.faces.push(face);
        for (s, v) in self.sum.iter_mut().zip(&f.embedding) {
            *s += v;
        }
        if self.positions.last() != Some(&f.pos) {
            self.positions.push(f.pos);
            self.samples.push(f.at.0);
        }
        self.centroid = unit(&self.sum);
    }
}

/// The faces with a finite, non-zero descriptor of the length of the first such one, normalised,
/// in time order (`order`: sample indices sorted by time).
pub(crate) fn valid_faces(samples: &[(f64, Vec<FaceObs>)], order: &[usize]) -> Vec<ValidFace> {
    let mut dim = None;
    let mut out = Vec::new();
    for (pos, &s) in order.iter().enumerate() {
        for (k, face) in samples[s].1.iter().enumerate() {
            let e = &face.embedding;
            if e.is_empty() || e.iter().any(|v| !v.is_finite()) || dim.is_some_and(|d| d != e.len()) {
                continue;
            }
            let n = norm(e);
            if !(n > 0.0 && n.is_finite()) {
                continue;
            }
            dim = Some(e.len());
            out.push(ValidFace { at: (s, k), pos, embedding: e.iter().map(|v| v / n).collect() });
        }
    }
    out
}

/// Identities of `faces` (which are in time order) at Euclidean distance `threshold`.
pub(crate) fn cluster(faces: &[ValidFace], threshold: f32) -> Vec<Cluster> {
    let threshold = if threshold.is_finite() { threshold.max(0.0) } else { 0.0 };
    let mut clusters: Vec<Cluster> = Vec::new();
    for (i, f) in faces.iter().enumerate() {
        let nearest = clusters
            .iter()
            .enumerate()
            .filter(|(_, c)| c.positions.last() != Some(&f.pos))
            .map(|(j, c)| (j, distance(&c.centroid, &f.embedding)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match nearest {
            Some((j, d)) if d <= threshold => clusters[j].add(i, f),
            _ => {
                let mut c = Cluster {
                    faces: Vec::new(),
                    samples: Vec::new(),
                    positions: Vec::new(),
                    centroid: Vec::new(),
                    sum: vec![0.0; f.embedding.len()],
                };
                c.add(i, f);
                clusters.push(c);
            }
        }
    }
    merge(clusters, faces, threshold)
}

/// Centroid linkage: merges the nearest pair within `threshold` that never share a sample, until
/// no pair qualifies.
fn merge(mut clusters: Vec<Cluster>, faces: &[ValidFace], threshold: f32) -> Vec<Cluster> {
    loop {
        let mut best: Option<(usize, usize, f32)> = None;
        for a in 0..clusters.len() {
            for b in a + 1..clusters.len() {
                let d = distance(&clusters[a].centroid, &clusters[b].centroid);
                if d <= threshold
                    && best.is_none_or(|(_, _, bd)| d < bd)
                    && disjoint(&clusters[a].positions, &clusters[b].positions)
                {
                    best = Some((a, b, d));
                }
            }
        }
        let Some((a, b, _)) = best else { return clusters };
        let absorbed = clusters.swap_remove(b);
        let target = &mut clusters[a];
        let mut members = std::mem::take(&mut target.faces);
        members.extend(absorbed.faces);
        members.sort_by_key(|&f| (faces[f].pos, f));
        target.sum.iter_mut().for_each(|v| *v = 0.0);
        target.positions.clear();
        target.samples.clear();
        for f in members {
            target.add(f, &faces[f]);
        }
    }
}

fn disjoint(a: &[usize], b: &[usize]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return false,
        }
    }
    true
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

fn unit(v: &[f32]) -> Vec<f32> {
    let n = norm(v);
    if n > 0.0 && n.is_finite() { v.iter().map(|x| x / n).collect() } else { v.to_vec() }
}

/// Euclidean distance.
pub(crate) fn distance(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f32>().sqrt()
}
