//! Matching audio fingerprints ([`AudioFingerprint`]): the same title in another encode, size,
//! crop or with a few cuts, and a catalog-wide duplicate search; and the title profile of the
//! `fingerprintplus` product.
//!
//! **Comparing two fingerprints** ([`compare`]): candidate alignments are voted by hashes that
//! agree exactly or in all but one bit (a lookup of each hash and its 32 one-bit neighbours in an
//! index of the other fingerprint; hashes of silence, 0, and hashes that recur more than
//! [`MAX_RECURRENCE`] times vote for nothing). At each of the [`CANDIDATES`] best-voted offsets,
//! the hashes are compared bit by bit, and a hash is **matched** where the bit error rate (BER) of
//! the [`WINDOW`] hashes around it (3.1 s) is below [`SAME_BER`] (0.35, Haitsma and Kalker's
//! threshold; unrelated sound differs in about half the bits, and over 992 bits chance cannot
//! come near 0.35). A hash of the first title counts once, whichever offset matched it, so a copy
//! with cuts is matched stretch by stretch. The result: the offset that matched the most, the
//! seconds matched, the BER over them, and the **coverage**: the share of each title's non-silent
//! sound matched in the other, the smaller of the two (a title made of a loop that recurs in
//! the other covers itself, not the other). Two titles are the same when the coverage is at least
//! [`MIN_COVERAGE`] (0.6): a re-encode, a resize or crop (the picture does not enter), a trim or
//! a few cuts keep most of the sound; two films that share a theme, a music loop or stock sound
//! effects share only a part of it, and an excerpt covers only a part of its film.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use serde::Serialize;

use crate::report;
use crate::signals::{AudioFingerprint, Signals, TagKind};

/// A hash that recurs more often than this in a fingerprint votes for no alignment (a drone or
/// a loop would otherwise vote for every offset).
pub const MAX_RECURRENCE: usize = 64;
/// How many best-voted offsets are checked hash by hash.
pub const CANDIDATES: usize = 8;
/// Bit error rate under which a stretch of hashes is the same sound.
pub const SAME_BER: f64 = 0.35;
/// Hashes around a hash whose bit error rate decides whether it is matched.
pub const WINDOW: usize = 31;
/// Share of the shorter title's sound that must match for two titles to be the same.
pub const MIN_COVERAGE: f64 = 0.6;
/// Votes an offset needs before it is checked.
const MIN_VOTES: usize = 2;

/// How two fingerprints align.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FingerprintMatch {
    /// Seconds to add to a time of the first title to find the same sound in the second (the
    /// offset that matched the most).
    pub offset: f64,
    /// Fraction of differing bits over the matched hashes (0: identical).
    pub bit_error_rate: f64,
    /// Seconds of sound matched.
    pub overlap: f64,
    /// The share of each title's non-silent sound that is matched in the other, the smaller of
    /// the two, in `[0, 1]`.
    pub coverage: f64,
    /// `coverage * (1 - bit_error_rate / 0.5)`, in `[0, 1]`.
    pub similarity: f64,
    /// Whether this is the same title: a coverage of at least 0.6 both ways.
    pub same_title: bool,
}

/// An index of one fingerprint's hashes: where each occurs; with `halves`, also where each 16-bit
/// half of a hash occurs (for noisier sound: a half survives a bit error rate of 0.2 with at most
/// one flipped bit about one time in ten, a whole hash one time in three hundred).
#[derive(Debug)]
pub(crate) struct Positions<'a> {
    hashes: &'a [u32],
    at: HashMap<u32, Vec<u32>>,
    halves: Option<HashMap<u32, Vec<u32>>>,
}

/// The index key of half `k` (0: low bits) of hash `h`.
fn half_key(h: u32, k: u32) -> u32 {
    (k << 16) | ((h >> (16 * k)) & 0xFFFF)
}

impl<'a> Positions<'a> {
    pub(crate) fn new(hashes: &'a [u32]) -> Positions<'a> {
        Self::build(hashes, false)
    }

    /// With the index of hash halves too (more votes for noisier sound, at more cost).
    pub(crate) fn with_halves(hashes: &'a [u32]) -> Positions<'a> {
        Self::build(hashes, true)
    }

    fn build(hashes: &'a [u32], halves: bool) -> Positions<'a> {
        let mut at: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut half: HashMap<u32, Vec<u32>> = HashMap::default();
        for (i, &h) in hashes.iter().enumerate() {
            if h != 0 {
                at.entry(h).or_default().push(i as u32);
                if halves {
                    for k in 0..2 {
                        half.entry(half_key(h, k)).or_default().push(i as u32);
                    }
                }
            }
        }
        at.retain(|_, v| v.len() <= MAX_RECURRENCE);
        half.retain(|_, v| v.len() <= MAX_RECURRENCE);
        Positions { hashes, at, halves: halves.then_some(half) }
    }

    /// Votes of `query`'s hashes for offsets (position in this fingerprint minus position in the
    /// query), every offset with at least one vote; counted in a dense array over the possible
    /// offsets (a hash map per vote cost most of the markers' time).
    pub(crate) fn votes(&self, query: &[u32]) -> Vec<(i64, usize)> {
        // Offset `o` is counted at `o + query.len()`: from `-(query.len() - 1)` to `hashes.len() - 1`.
        let mut counts = vec![0u32; query.len() + self.hashes.len()];
        let shift = query.len();
        let mut vote = |found: Option<&Vec<u32>>, i: usize| {
            for &j in found.into_iter().flatten() {
                counts[j as usize + shift - i] += 1;
            }
        };
        for (i, &h) in query.iter().enumerate() {
            if h == 0 {
                continue;
            }
            for probe in std::iter::once(h).chain((0..32).map(|b| h ^ (1 << b))) {
                vote(self.at.get(&probe), i);
            }
            if let Some(half) = &self.halves {
                for k in 0..2 {
                    let key = half_key(h, k);
                    for probe in std::iter::once(key).chain((0..16).map(|b| key ^ (1 << b))) {
                        vote(half.get(&probe), i);
                    }
                }
            }
        }
        counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(at, &c)| (at as i64 - shift as i64, c as usize))
            .collect()
    }
}

/// Aligns two fingerprints; `None` when no alignment has enough evidence (or their hops differ).
pub fn compare(a: &AudioFingerprint, b: &AudioFingerprint) -> Option<FingerprintMatch> {
    if (a.hop - b.hop).abs() > 1e-9 || a.hashes.is_empty() || b.hashes.is_empty() {
        return None;
    }
    best_alignment(a, &Positions::new(&b.hashes))
}

fn best_alignment(a: &AudioFingerprint, b: &Positions<'_>) -> Option<FingerprintMatch> {
    let mut votes: Vec<(i64, usize)> = b.votes(&a.hashes).into_iter().filter(|&(_, v)| v >= MIN_VOTES).collect();
    votes.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    // Per hash of `a`: the fewest bit errors of an offset that matched it.
    let mut best: Vec<Option<u32>> = vec![None; a.hashes.len()];
    let mut in_b = vec![false; b.hashes.len()];
    let mut top: Option<(i64, usize)> = None;
    for &(offset, _) in votes.iter().take(CANDIDATES) {
        let matched = matched_at(&a.hashes, b.hashes, offset);
        let count = matched.iter().filter(|m| m.is_some()).count();
        if count > 0 && top.is_none_or(|(_, c)| count > c) {
            top = Some((offset, count));
        }
        for (i, (slot, m)) in best.iter_mut().zip(matched).enumerate() {
            if let Some(errors) = m {
                *slot = Some(slot.map_or(errors, |e| e.min(errors)));
                in_b[(i as i64 + offset) as usize] = true;
            }
        }
    }
    let (offset, _) = top?;
    let matched: Vec<u32> = best.into_iter().flatten().collect();
    let sounding = |h: &[u32]| h.iter().filter(|&&x| x != 0).count().max(1) as f64;
    let ber = f64::from(matched.iter().sum::<u32>()) / (32.0 * matched.len() as f64);
    // Both ways: a title whose sound recurs in the other (a loop, a theme) covers only itself.
    let covered_b = in_b.iter().filter(|&&m| m).count() as f64;
    let coverage = (matched.len() as f64 / sounding(&a.hashes)).min(covered_b / sounding(b.hashes)).min(1.0);
    Some(FingerprintMatch {
        offset: report::time(offset as f64 * a.hop),
        bit_error_rate: report::score(ber),
        overlap: report::time(matched.len() as f64 * a.hop),
        coverage: report::score(coverage),
        similarity: report::score((coverage * (1.0 - ber / 0.5)).clamp(0.0, 1.0)),
        same_title: coverage >= MIN_COVERAGE,
    })
}

/// With `a[i]` aligned to `b[i + offset]`: for each hash of `a`, its bit errors when it is matched
/// (both hashes sound, and the [`WINDOW`] compared hashes around it differ in fewer than
/// [`SAME_BER`] of their bits), else `None`.
pub(crate) fn matched_at(a: &[u32], b: &[u32], offset: i64) -> Vec<Option<u32>> {
    let errors: Vec<Option<u32>> = (0..a.len())
        .map(|i| {
            let j = usize::try_from(i as i64 + offset).ok()?;
            let (x, y) = (a[i], *b.get(j)?);
            (x != 0 && y != 0).then(|| (x ^ y).count_ones())
        })
        .collect();
    // Running sums over the window of compared hashes.
    let half = WINDOW / 2;
    let (mut bits, mut count) = (vec![0u64; a.len() + 1], vec![0u64; a.len() + 1]);
    for (i, e) in errors.iter().enumerate() {
        bits[i + 1] = bits[i] + u64::from(e.unwrap_or(0));
        count[i + 1] = count[i] + u64::from(e.is_some());
    }
    (0..a.len())
        .map(|i| {
            let e = errors[i]?;
            let (lo, hi) = (i.saturating_sub(half), (i + half + 1).min(a.len()));
            let n = count[hi] - count[lo];
            let ber = (bits[hi] - bits[lo]) as f64 / (32.0 * n as f64);
            (n as usize * 2 > WINDOW && ber < SAME_BER).then_some(e)
        })
        .collect()
}

/// One title found by [`DuplicateIndex::search`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Duplicate {
    /// The title's id.
    pub id: String,
    /// How it aligns with the query.
    #[serde(flatten)]
    pub alignment: FingerprintMatch,
}

/// The fingerprints of a catalog, searched for the titles that are the same as a query.
#[derive(Debug)]
pub struct DuplicateIndex<'a> {
    titles: Vec<(String, &'a AudioFingerprint, Positions<'a>)>,
}

impl<'a> DuplicateIndex<'a> {
    /// Indexes `(id, fingerprint)` pairs.
    pub fn new(titles: impl IntoIterator<Item = (String, &'a AudioFingerprint)>) -> DuplicateIndex<'a> {
        DuplicateIndex { titles: titles.into_iter().map(|(id, fp)| (id, fp, Positions::new(&fp.hashes))).collect() }
    }

    /// Number of titles indexed.
    pub fn len(&self) -> usize {
        self.titles.len()
    }

    /// Whether no title is indexed.
    pub fn is_empty(&self) -> bool {
        self.titles.is_empty()
    }

    /// The indexed titles that are the same title as `query` (`same_title`), most similar first,
    /// `exclude` (the query's own id) left out.
    pub fn search(&self, query: &AudioFingerprint, exclude: Option<&str>) -> Vec<Duplicate> {
        use rayon::prelude::*;
        let mut found: Vec<Duplicate> = self
            .titles
            .par_iter()
            .filter(|(id, fp, _)| Some(id.as_str()) != exclude && (fp.hop - query.hop).abs() < 1e-9)
            .filter_map(|(id, _, positions)| {
                let alignment = best_alignment(query, positions)?;
                alignment.same_title.then(|| Duplicate { id: id.clone(), alignment })
            })
            .collect();
        found.sort_by(|a, b| b.alignment.similarity.total_cmp(&a.alignment.similarity).then(a.id.cmp(&b.id)));
        found
    }

    /// Every group of two or more indexed titles that are the same title (each title in at most
    /// one group: the groups are the connected components of the same-title pairs), largest group
    /// first; ids sorted within a group.
    pub fn groups(&self) -> Vec<Vec<String>> {
        let n = self.titles.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for i in 0..n {
            let id = self.titles[i].0.as_str();
            for d in self.search(self.titles[i].1, Some(id)) {
                if let Some(j) = self.titles.iter().position(|(other, ..)| *other == d.id) {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a] = b;
                }
            }
        }
        let mut groups: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for i in 0..n {
            let r = root(&mut parent, i);
            groups.entry(r).or_default().push(self.titles[i].0.clone());
        }
        let mut out: Vec<Vec<String>> = groups.into_values().filter(|g| g.len() > 1).collect();
        for g in &mut out {
            g.sort();
        }
        out.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        out
    }
}

/// The `fingerprintplus` product of a title: its audio fingerprint and what the analysis says
/// about its character.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TitleProfile {
    /// The audio fingerprint's hashes (one every `fingerprint_hop` seconds).
    pub fingerprint: Vec<u32>,
    /// Seconds between hashes.
    pub fingerprint_hop: f64,
    /// Emotion name: its mean probability over the title (from `emotions`; empty without).
    pub mood: BTreeMap<String, f64>,
    /// Clip type: the mean of its timeline over the title, a genre-like profile (empty without
    /// clip-type timelines).
    pub genre: BTreeMap<String, f64>,
    /// Keyword tag: its highest score.
    pub keyword: BTreeMap<String, f64>,
    /// Mood tag: its highest score.
    pub mood_tag: BTreeMap<String, f64>,
    /// The spoken language.
    pub language: TitleLanguage,
}

/// The language of a title.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TitleLanguage {
    /// The main spoken language (ISO 639-1, from the transcript), `None` when not recognised.
    pub main: Option<String>,
}

/// The title profile of `signals`. Errors: [`crate::Error::MissingSignal`] without an audio
/// fingerprint.
pub fn profile(signals: &Signals) -> crate::Result<TitleProfile> {
    let fp = signals
        .audio_fingerprint
        .as_ref()
        .ok_or(crate::Error::MissingSignal { field: "audio_fingerprint", needed_by: "the fingerprintplus product" })?;
    let mut mood = BTreeMap::new();
    if let Some(e) = &signals.emotions
        && !e.probs.is_empty()
    {
        for (k, name) in e.names.iter().enumerate() {
            let sum: f64 = e.probs.iter().map(|row| f64::from(row.get(k).copied().unwrap_or(0.0))).sum();
            mood.insert(name.clone(), report::score(sum / e.probs.len() as f64));
        }
    }
    let genre = signals
        .timelines
        .clip_types
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(name, v)| (name.clone(), report::score(v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64)))
        .collect();
    let tags = |kind: TagKind| {
        let mut m: BTreeMap<String, f64> = BTreeMap::new();
        for (t, _) in signals.all_tags().filter(|(t, _)| t.kind == kind) {
            let e = m.entry(t.name.clone()).or_insert(0.0);
            *e = e.max(report::score(t.score));
        }
        m
    };
    Ok(TitleProfile {
        fingerprint: fp.hashes.clone(),
        fingerprint_hop: fp.hop,
        mood,
        genre,
        keyword: tags(TagKind::Keyword),
        mood_tag: tags(TagKind::Mood),
        language: TitleLanguage { main: signals.transcript.as_ref().map(|t| t.language.clone()) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pseudo-random fingerprint of `n` hashes.
    fn random(n: usize, seed: u64) -> AudioFingerprint {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let hashes = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 16) as u32 | 1
            })
            .collect();
        AudioFingerprint { hop: 0.1, hashes }
    }

    /// `fp` with about `rate` of its bits flipped.
    fn noisy(fp: &AudioFingerprint, rate: f64, seed: u64) -> AudioFingerprint {
        let mut x = seed | 1;
        let hashes = fp
            .hashes
            .iter()
            .map(|&h| {
                let mut h = h;
                for b in 0..32 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if (x % 10_000) as f64 / 10_000.0 < rate {
                        h ^= 1 << b;
                    }
                }
                if h == 0 { 1 } else { h }
            })
            .collect();
        AudioFingerprint { hop: fp.hop, hashes }
    }

    #[test]
    fn a_noisy_trimmed_copy_aligns_at_its_offset() {
        let original = random(3000, 1);
        let mut copy = noisy(&original, 0.1, 2);
        copy.hashes.drain(..250); // the first 25 s cut
        let m = compare(&copy, &original).expect("aligned");
        assert_eq!(m.offset, 25.0);
        assert!(m.bit_error_rate > 0.05 && m.bit_error_rate < 0.15, "{m:?}");
        assert!(m.same_title && m.similarity > 0.7, "{m:?}");
        let other = random(3000, 3);
        assert!(compare(&other, &original).is_none_or(|m| !m.same_title && m.bit_error_rate > 0.4));
        assert!(compare(&AudioFingerprint { hop: 0.2, hashes: vec![1; 10] }, &original).is_none(), "different hops");
    }

    #[test]
    fn the_index_finds_copies_and_groups_them() {
        let (a, b) = (random(2000, 10), random(2000, 11));
        let (a2, b2, c) = (noisy(&a, 0.08, 5), noisy(&b, 0.12, 6), random(2000, 12));
        let index = DuplicateIndex::new([
            ("a".to_string(), &a),
            ("a-copy".to_string(), &a2),
            ("b".to_string(), &b),
            ("b-copy".to_string(), &b2),
            ("c".to_string(), &c),
        ]);
        let found = index.search(&a, Some("a"));
        assert_eq!(found.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["a-copy"]);
        assert_eq!(index.groups(), [vec!["a", "a-copy"], vec!["b", "b-copy"]]);
        assert!(index.search(&c, Some("c")).is_empty());
    }

    #[test]
    fn silence_matches_nothing() {
        let quiet = AudioFingerprint { hop: 0.1, hashes: vec![0; 1000] };
        assert!(compare(&quiet, &quiet).is_none());
    }
}
