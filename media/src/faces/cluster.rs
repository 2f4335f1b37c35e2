//! Agglomeration of face descriptors into identities, in two passes: a leader pass in time order
//! (each face joins the nearest identity within the threshold, else starts one), then centroid
//! linkage (the two nearest identities within the threshold merge, until none are). Two faces of
//! the same sample are never one identity. The leader pass costs faces x identities distances,
//! the merge pass identities^2 distances once and identities per merge.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use kino_models::Face;

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
pub(crate) fn valid_faces(samples: &[(f64, Vec<Face>)], order: &[usize]) -> Vec<ValidFace> {
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
/// no pair qualifies. Candidate pairs wait in a heap; a merge changes one identity's mean, so only
/// its distances are computed again (pairs naming an older version of it are skipped).
fn merge(clusters: Vec<Cluster>, faces: &[ValidFace], threshold: f32) -> Vec<Cluster> {
    let mut clusters: Vec<Option<Cluster>> = clusters.into_iter().map(Some).collect();
    let mut version = vec![0u32; clusters.len()];
    let mut heap = BinaryHeap::new();
    let candidate = |clusters: &[Option<Cluster>], version: &[u32], a: usize, b: usize| {
        let (Some(ca), Some(cb)) = (&clusters[a], &clusters[b]) else { return None };
        let d = distance(&ca.centroid, &cb.centroid);
        (d <= threshold && disjoint(&ca.positions, &cb.positions)).then_some(Reverse(Pair {
            d,
            a,
            b,
            versions: (version[a], version[b]),
        }))
    };
    for a in 0..clusters.len() {
        for b in a + 1..clusters.len() {
            heap.extend(candidate(&clusters, &version, a, b));
        }
    }
    while let Some(Reverse(pair)) = heap.pop() {
        let (a, b) = (pair.a, pair.b);
        if clusters[a].is_none() || clusters[b].is_none() || pair.versions != (version[a], version[b]) {
            continue;
        }
        let absorbed = clusters[b].take().expect("checked above");
        let target = clusters[a].as_mut().expect("checked above");
        let mut members = std::mem::take(&mut target.faces);
        members.extend(absorbed.faces);
        members.sort_by_key(|&f| (faces[f].pos, f));
        target.sum.iter_mut().for_each(|v| *v = 0.0);
        target.positions.clear();
        target.samples.clear();
        for f in members {
            target.add(f, &faces[f]);
        }
        version[a] += 1;
        for c in 0..clusters.len() {
            if c != a {
                let (x, y) = (a.min(c), a.max(c));
                heap.extend(candidate(&clusters, &version, x, y));
            }
        }
    }
    clusters.into_iter().flatten().collect()
}

/// A candidate merge: the distance between two identities' means, and the versions of the two
/// identities it was computed for. Ordered by distance, then indices (deterministic).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pair {
    d: f32,
    a: usize,
    b: usize,
    versions: (u32, u32),
}

impl Eq for Pair {}

impl Ord for Pair {
    fn cmp(&self, other: &Pair) -> Ordering {
        self.d.total_cmp(&other.d).then(self.a.cmp(&other.a)).then(self.b.cmp(&other.b))
    }
}

impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Pair) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn disjoint(a: &[usize], b: &[usize]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => return false,
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
