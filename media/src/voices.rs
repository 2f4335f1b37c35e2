//! Who speaks when (diarization) within one title, on plain types: the voice vectors of windows
//! of the speech regions in, speaker turns out.
//!
//! 1. Each speech region's windows (the embedder's 0.82 s windows every 0.4 s, unit vectors) are
//!    grouped into segments of [`SEGMENT_WINDOWS`] consecutive windows (1.62 s) every
//!    [`SEGMENT_HOP_WINDOWS`] (0.8 s); a region shorter than a segment is one segment. A
//!    segment's vector is the mean direction of its windows'.
//! 2. For clustering only, the title's mean segment vector is taken away from each segment's and
//!    the rest made unit length: the d-vectors of any two voices share a large common part
//!    (cosines of 0.8 between two men, `docs/media.md`), which hides their differences.
//! 3. Agglomerative clustering, average linkage on the cosine of those centred vectors, down to
//!    one cluster; of the cuts into 2 to [`Diarization::max_speakers`] clusters (and at most one
//!    per [`MIN_SEGMENTS_PER_SPEAKER`] segments), the one of the
//!    highest mean silhouette (cosine distance) is kept, unless that silhouette is below
//!    [`Diarization::min_silhouette`], when the title has one speaker. A threshold on the cosine
//!    itself does not carry across titles once vectors are centred: two speakers' centred vectors
//!    point apart (cosine near -1), four speakers' near -1/3. Then each cluster with less than
//!    [`Diarization::min_speaker_seconds`] of speech joins the nearest larger one.
//! 4. Each segment speaks for the part of its region nearest its centre; consecutive parts of
//!    one speaker within a region form a turn. A turn's vector is the mean direction of the
//!    windows centred in it (empty when none is); a speaker's voice is the mean direction of its
//!    segments' vectors, not centred, so that voices compare across titles.

use kino_models::{
    Samples, SpeakerEmbedder, VOICE_SAMPLE_RATE, VOICE_STRIDE_SAMPLES, VOICE_WINDOW_SAMPLES, mean_direction,
};

/// Windows per segment: 1.62 s of audio.
pub const SEGMENT_WINDOWS: usize = 3;
/// Windows between the starts of consecutive segments: 0.8 s.
pub const SEGMENT_HOP_WINDOWS: usize = 2;
/// Segments per speaker, on average, that a cut into several speakers needs.
pub const MIN_SEGMENTS_PER_SPEAKER: usize = 4;
/// The most segments clustered at once: past it, neighbouring segments of a region are merged in
/// pairs until they fit (bounds the similarity matrix at 2,500² floats, 25 MB).
pub const MAX_SEGMENTS: usize = 2_500;

/// The clustering's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Diarization {
    /// Whether the title's mean vector is taken away before clustering (step 2 above).
    pub centre: bool,
    /// The least mean silhouette for a title to have more than one speaker.
    pub min_silhouette: f32,
    /// The most speakers told apart in one title.
    pub max_speakers: usize,
    /// A speaker with less speech than this (seconds) joins the nearest other speaker.
    pub min_speaker_seconds: f64,
}

impl Default for Diarization {
    /// Tuned on the tuning half of the voices set (`scripts/diarization-eval.sh`, `docs/media.md`).
    fn default() -> Diarization {
        Diarization { centre: true, min_silhouette: 0.225, max_speakers: 12, min_speaker_seconds: 2.0 }
    }
}

/// The windows of one speech region: where they lie and their unit vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionWindows {
    /// The region, in seconds.
    pub start: f64,
    pub end: f64,
    /// Seconds between the starts of consecutive windows.
    pub hop: f64,
    /// Seconds each window spans.
    pub span: f64,
    /// One unit vector per window, the first starting at `start`.
    pub vectors: Vec<Vec<f32>>,
}

/// A speaker's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub start: f64,
    pub end: f64,
    /// The speaker, numbered in order of first appearance.
    pub speaker: usize,
    /// The mean direction of the windows centred in the turn; empty when none is.
    pub embedding: Vec<f32>,
}

/// The turns (sorted by start) and one voice per speaker (unit length).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diarized {
    pub turns: Vec<Turn>,
    pub voices: Vec<Vec<f32>>,
}

/// One segment: its region, its time span and its vector.
#[derive(Debug, Clone)]
struct Segment {
    region: usize,
    centre: f64,
    seconds: f64,
    vector: Vec<f32>,
}

/// The windows of each speech region (`speech`: sorted `[start, end]` seconds) of `audio` (16 kHz
/// mono), read a region at a time.
pub fn listen(
    embedder: &mut SpeakerEmbedder,
    audio: &(impl Samples + ?Sized),
    speech: &[[f64; 2]],
) -> Result<Vec<RegionWindows>, kino_models::Error> {
    let rate = f64::from(VOICE_SAMPLE_RATE);
    let mut samples = Vec::new();
    let mut out = Vec::with_capacity(speech.len());
    for &[start, end] in speech {
        let first = ((start * rate).round().max(0.0) as usize).min(audio.sample_count());
        let last = ((end * rate).round().max(0.0) as usize).clamp(first, audio.sample_count());
        samples.clear();
        audio.extend_f32(first..last, &mut samples);
        let vectors = embedder.windows(&samples)?;
        out.push(RegionWindows {
            start,
            end,
            hop: VOICE_STRIDE_SAMPLES as f64 / rate,
            span: VOICE_WINDOW_SAMPLES as f64 / rate,
            vectors,
        });
    }
    Ok(out)
}

/// Who speaks when in the regions `regions` (sorted, not overlapping).
pub fn diarize(regions: &[RegionWindows], settings: &Diarization) -> Diarized {
    let mut segments = segments_of(regions, SEGMENT_WINDOWS, SEGMENT_HOP_WINDOWS);
    let mut group = 1;
    while segments.len() > MAX_SEGMENTS {
        group *= 2;
        segments = segments_of(regions, SEGMENT_WINDOWS * group, SEGMENT_HOP_WINDOWS * group);
    }
    if segments.is_empty() {
        return Diarized::default();
    }
    let vectors =
        if settings.centre { centred(&segments) } else { segments.iter().map(|s| s.vector.clone()).collect() };
    let seconds: Vec<f64> = segments.iter().map(|s| s.seconds).collect();
    let labels = cluster(&vectors, &seconds, settings);
    assemble(regions, &segments, &labels)
}

/// The segments of every region: windows `[k * hop, k * hop + size)`, the last one ending at the
/// region's last window; a region with fewer windows than `size` is one segment.
fn segments_of(regions: &[RegionWindows], size: usize, hop: usize) -> Vec<Segment> {
    let mut out = Vec::new();
    for (r, region) in regions.iter().enumerate() {
        let n = region.vectors.len();
        if n == 0 {
            continue;
        }
        let mut starts: Vec<usize> = (0..).map(|k| k * hop).take_while(|&s| s + size < n).collect();
        starts.push(n.saturating_sub(size));
        starts.dedup();
        for first in starts {
            let windows = first..(first + size).min(n);
            let Some(vector) = mean_direction(region.vectors[windows.clone()].iter().map(Vec::as_slice)) else {
                continue;
            };
            let from = region.start + first as f64 * region.hop;
            let to = (from + (windows.len() - 1) as f64 * region.hop + region.span).min(region.end);
            out.push(Segment { region: r, centre: (from + to) / 2.0, seconds: (to - from).max(0.0), vector });
        }
    }
    out
}

/// The segments' vectors less their mean, made unit length (a vector equal to the mean stays
/// zero, and clusters with nothing).
fn centred(segments: &[Segment]) -> Vec<Vec<f32>> {
    let dim = segments[0].vector.len();
    let mut mean = vec![0f64; dim];
    for s in segments {
        for (m, &x) in mean.iter_mut().zip(&s.vector) {
            *m += f64::from(x) / segments.len() as f64;
        }
    }
    segments
        .iter()
        .map(|s| {
            let v: Vec<f64> = s.vector.iter().zip(&mean).map(|(&x, m)| f64::from(x) - m).collect();
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 1e-9 { v.iter().map(|x| (x / norm) as f32).collect() } else { vec![0.0; dim] }
        })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Average-linkage agglomerative clustering of unit vectors on their cosine, cut where the mean
/// silhouette is highest (one cluster below the least silhouette), then small clusters folded
/// into the nearest larger one. One label per vector.
fn cluster(vectors: &[Vec<f32>], seconds: &[f64], settings: &Diarization) -> Vec<usize> {
    let n = vectors.len();
    let mut sim = vec![0f32; n * n];
    for i in 0..n {
        sim[i * n + i] = 1.0;
        for j in i + 1..n {
            let s = dot(&vectors[i], &vectors[j]);
            sim[i * n + j] = s;
            sim[j * n + i] = s;
        }
    }
    let original = sim.clone();
    let mut size = vec![1usize; n];
    let mut alive = vec![true; n];
    let mut label: Vec<usize> = (0..n).collect();
    // The labels when 2, 3, ... `max_speakers` clusters were left.
    let mut cuts: Vec<Vec<usize>> = Vec::new();
    // Each live cluster's most similar other live cluster.
    let best_of = |sim: &[f32], alive: &[bool], i: usize| {
        (0..n)
            .filter(|&j| j != i && alive[j])
            .map(|j| (j, sim[i * n + j]))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    };
    let mut best: Vec<Option<(usize, f32)>> = (0..n).map(|i| best_of(&sim, &alive, i)).collect();
    let mut live = n;
    // At most one speaker per four segments (3.2 s of speech): cuts into clusters of one or two
    // segments score high silhouettes on noise alone.
    let most = settings.max_speakers.min(n / MIN_SEGMENTS_PER_SPEAKER);
    loop {
        if (2..=most).contains(&live) {
            cuts.push(label.clone());
        }
        let pick = (0..n)
            .filter(|&i| alive[i])
            .filter_map(|i| best[i].map(|(j, s)| (i, j, s)))
            .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)));
        let Some((a, b, _)) = pick else { break };
        let (a, b) = (a.min(b), a.max(b));
        for k in 0..n {
            if alive[k] && k != a && k != b {
                let merged =
                    (size[a] as f32 * sim[a * n + k] + size[b] as f32 * sim[b * n + k]) / (size[a] + size[b]) as f32;
                sim[a * n + k] = merged;
                sim[k * n + a] = merged;
            }
        }
        size[a] += size[b];
        alive[b] = false;
        live -= 1;
        for l in label.iter_mut().filter(|l| **l == b) {
            *l = a;
        }
        for k in 0..n {
            if !alive[k] {
                best[k] = None;
            } else if k == a || best[k].is_some_and(|(j, _)| j == a || j == b) {
                best[k] = best_of(&sim, &alive, k);
            } else if let Some((_, s)) = best[k]
                && sim[k * n + a] > s
            {
                best[k] = Some((a, sim[k * n + a]));
            }
        }
    }
    // `label` now holds one cluster; the best cut replaces it when it is clear enough.
    let scored = cuts.into_iter().map(|cut| (silhouette(&original, &cut), cut));
    if let Some((score, cut)) = scored.max_by(|a, b| a.0.total_cmp(&b.0))
        && score >= settings.min_silhouette
    {
        label = cut;
    }
    fold_small(vectors, seconds, &mut label, settings.min_speaker_seconds);
    label
}

/// The mean silhouette of the clustering `label` under the cosine distance (`1 - sim`, `sim`
/// the `n x n` similarities): for each vector, `(b - a) / max(a, b)` with `a` its mean distance to
/// its own cluster's other members and `b` the least mean distance to another cluster; 0 for a
/// vector alone in its cluster.
fn silhouette(sim: &[f32], label: &[usize]) -> f32 {
    let n = label.len();
    let mut clusters: Vec<usize> = label.to_vec();
    clusters.sort_unstable();
    clusters.dedup();
    let index = |l: usize| clusters.binary_search(&l).unwrap_or(0);
    let mut count = vec![0usize; clusters.len()];
    for &l in label {
        count[index(l)] += 1;
    }
    let mut total = 0f64;
    let mut sums = vec![0f64; clusters.len()];
    for i in 0..n {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for j in 0..n {
            if j != i {
                sums[index(label[j])] += f64::from(1.0 - sim[i * n + j]);
            }
        }
        let own = index(label[i]);
        if count[own] < 2 {
            continue;
        }
        let a = sums[own] / (count[own] - 1) as f64;
        let b =
            (0..clusters.len()).filter(|&c| c != own).map(|c| sums[c] / count[c] as f64).fold(f64::INFINITY, f64::min);
        let spread = a.max(b);
        if spread > 0.0 && b.is_finite() {
            total += (b - a) / spread;
        }
    }
    (total / n.max(1) as f64) as f32
}

/// Folds each cluster with less than `min_seconds` of speech into the cluster whose mean vector
/// is nearest, smallest first, while another cluster remains.
fn fold_small(vectors: &[Vec<f32>], seconds: &[f64], label: &mut [usize], min_seconds: f64) {
    loop {
        let mut clusters: Vec<usize> = label.to_vec();
        clusters.sort_unstable();
        clusters.dedup();
        if clusters.len() < 2 {
            return;
        }
        let total = |c: usize| label.iter().zip(seconds).filter(|(l, _)| **l == c).map(|(_, s)| s).sum::<f64>();
        let Some(small) = clusters
            .iter()
            .copied()
            .map(|c| (c, total(c)))
            .filter(|&(_, t)| t < min_seconds)
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
            .map(|(c, _)| c)
        else {
            return;
        };
        let centroid = |c: usize| {
            let members = label.iter().zip(vectors).filter(|(l, _)| **l == c).map(|(_, v)| v.as_slice());
            mean_direction(members).unwrap_or_default()
        };
        let own = centroid(small);
        let nearest = clusters
            .iter()
            .copied()
            .filter(|&c| c != small)
            .map(|c| (c, dot(&own, &centroid(c))))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(c, _)| c);
        let Some(nearest) = nearest else { return };
        for l in label.iter_mut().filter(|l| **l == small) {
            *l = nearest;
        }
    }
}

/// Turns from the labelled segments: each segment owns the part of its region nearer its centre
/// than its neighbours'; speakers numbered in order of first appearance.
fn assemble(regions: &[RegionWindows], segments: &[Segment], labels: &[usize]) -> Diarized {
    let mut turns: Vec<Turn> = Vec::new();
    let mut region_of: Vec<usize> = Vec::new();
    for (i, seg) in segments.iter().enumerate() {
        let region = &regions[seg.region];
        let same_region = |j: usize| segments.get(j).filter(|s| s.region == seg.region);
        let from = match i.checked_sub(1).and_then(same_region) {
            Some(prev) => (prev.centre + seg.centre) / 2.0,
            None => region.start,
        };
        let to = match same_region(i + 1) {
            Some(next) => (seg.centre + next.centre) / 2.0,
            None => region.end,
        };
        // Windows past the region's end (a caller's rounding) never carry a turn outside it.
        let (from, to) = (from.clamp(region.start, region.end), to.clamp(region.start, region.end));
        if to <= from {
            continue;
        }
        // The cluster's label for now; speakers are numbered below.
        let speaker = labels[i];
        match turns.last_mut() {
            Some(last) if last.speaker == speaker && region_of.last() == Some(&seg.region) => last.end = to,
            _ => {
                turns.push(Turn { start: from, end: to, speaker, embedding: Vec::new() });
                region_of.push(seg.region);
            }
        }
    }
    // Speakers in order of first appearance in the turns, then any cluster left without a turn.
    let mut order: Vec<usize> = Vec::new();
    for l in turns.iter().map(|t| t.speaker).chain(labels.iter().copied()) {
        if !order.contains(&l) {
            order.push(l);
        }
    }
    let speaker_of = |l: usize| order.iter().position(|&o| o == l).unwrap_or(0);
    for turn in &mut turns {
        turn.speaker = speaker_of(turn.speaker);
    }
    for (turn, &r) in turns.iter_mut().zip(&region_of) {
        let region = &regions[r];
        let centred_in = region.vectors.iter().enumerate().filter(|(k, _)| {
            let centre = region.start + *k as f64 * region.hop + region.span / 2.0;
            centre >= turn.start && centre < turn.end
        });
        turn.embedding = mean_direction(centred_in.map(|(_, v)| v.as_slice())).unwrap_or_default();
    }
    let voices = (0..order.len())
        .map(|speaker| {
            let members: Vec<&[f32]> = segments
                .iter()
                .zip(labels)
                .filter(|(_, l)| speaker_of(**l) == speaker)
                .map(|(s, _)| s.vector.as_slice())
                .collect();
            // Unit vectors that cancel exactly have no mean direction; the first then speaks for all.
            mean_direction(members.iter().copied()).unwrap_or_else(|| members[0].to_vec())
        })
        .collect();
    Diarized { turns, voices }
}

/// Least share of a speaker's speech during which one character alone is on screen for the
/// speaker to be taken for that character.
pub const CHARACTER_MIN_SHARE: f64 = 0.5;
/// Least seconds of such speech.
pub const CHARACTER_MIN_SECONDS: f64 = 3.0;

/// The character each of `speakers` speakers was seen as, by rule: the character alone on screen
/// (`characters[c]`: its sorted on-screen spans) for at least [`CHARACTER_MIN_SHARE`] of the
/// speaker's speech and [`CHARACTER_MIN_SECONDS`], and for at least twice as long as any other
/// character alone; `None` otherwise. No face is matched to a voice: a speaker heard over the
/// face of the one it addresses is taken for that face when nobody else is shown.
pub fn link_characters(turns: &[Turn], speakers: usize, characters: &[Vec<[f64; 2]>]) -> Vec<Option<u32>> {
    let mut spoken = vec![0f64; speakers];
    let mut alone = vec![vec![0f64; characters.len()]; speakers];
    for turn in turns.iter().filter(|t| t.speaker < speakers) {
        spoken[turn.speaker] += turn.end - turn.start;
        // The turn cut at every span boundary; each piece on screen for one character or not.
        let mut cuts = vec![turn.start, turn.end];
        for spans in characters {
            for &[a, b] in spans {
                cuts.extend([a, b].into_iter().filter(|&t| t > turn.start && t < turn.end));
            }
        }
        cuts.sort_by(f64::total_cmp);
        for piece in cuts.windows(2) {
            let mid = (piece[0] + piece[1]) / 2.0;
            let shown: Vec<usize> =
                (0..characters.len()).filter(|&c| characters[c].iter().any(|&[a, b]| a <= mid && mid < b)).collect();
            if let [only] = shown[..] {
                alone[turn.speaker][only] += piece[1] - piece[0];
            }
        }
    }
    (0..speakers)
        .map(|s| {
            let mut order: Vec<usize> = (0..characters.len()).collect();
            order.sort_by(|&a, &b| alone[s][b].total_cmp(&alone[s][a]).then(a.cmp(&b)));
            let first = *order.first()?;
            let (best, next) = (alone[s][first], order.get(1).map_or(0.0, |&c| alone[s][c]));
            (best >= CHARACTER_MIN_SECONDS && best >= CHARACTER_MIN_SHARE * spoken[s] && best >= 2.0 * next)
                .then(|| u32::try_from(first).ok())
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests;
