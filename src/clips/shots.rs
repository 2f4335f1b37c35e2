//! Shot types in clips: the kind of shot that covers most of a clip (each clip's `shot_type`) and
//! the `shot_type` filter, both read from the item's `visual.shot_types`.
//!
//! Coverage is counted in whole microseconds (every shot edge and clip edge rounded to the
//! microsecond), so that it is an exact integer: the candidate filter, the refinement guard, the
//! reported field and the tests' naive reference agree to the unit, ties included.

use serde::{Deserialize, Serialize};

use crate::signals::Signals;

/// An editorial shot type (the kinds of `visual.shot_types`), tightest framing first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShotKind {
    /// `extreme_close_up`: a face filling the frame.
    ExtremeCloseUp,
    /// `close_up`: a head and shoulders.
    CloseUp,
    /// `medium`: a figure from the waist up.
    Medium,
    /// `wide`: whole figures.
    Wide,
    /// `extreme_wide`: small figures in a large space.
    ExtremeWide,
    /// `no_people`: nobody on screen.
    NoPeople,
}

impl ShotKind {
    /// Every kind, in the order of `visual.shot_types`' documentation (tightest first); ties in
    /// coverage go to the earlier one.
    pub const ALL: [ShotKind; 6] = [
        ShotKind::ExtremeCloseUp,
        ShotKind::CloseUp,
        ShotKind::Medium,
        ShotKind::Wide,
        ShotKind::ExtremeWide,
        ShotKind::NoPeople,
    ];

    /// The name used in signals documents, queries and clips.
    pub fn as_str(self) -> &'static str {
        match self {
            ShotKind::ExtremeCloseUp => "extreme_close_up",
            ShotKind::CloseUp => "close_up",
            ShotKind::Medium => "medium",
            ShotKind::Wide => "wide",
            ShotKind::ExtremeWide => "extreme_wide",
            ShotKind::NoPeople => "no_people",
        }
    }

    /// The kind with this name (exact, case-sensitive).
    pub fn parse(name: &str) -> Option<ShotKind> {
        ShotKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    fn slot(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for ShotKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A time in whole microseconds, the unit coverage is counted in.
pub(crate) fn micros(t: f64) -> i64 {
    (t * 1e6).round() as i64
}

/// Times of one edge (starts or ends) of one kind's shots, sorted, with prefix sums.
#[derive(Debug, Default)]
struct Edges {
    at: Vec<i64>,
    prefix: Vec<i64>,
}

impl Edges {
    fn new(mut at: Vec<i64>) -> Edges {
        at.sort_unstable();
        let mut prefix = Vec::with_capacity(at.len() + 1);
        prefix.push(0);
        let mut sum = 0;
        for &x in &at {
            sum += x;
            prefix.push(sum);
        }
        Edges { at, prefix }
    }

    /// `sum of (t - x)` over the edges `x < t`.
    fn before(&self, t: i64) -> i64 {
        let n = self.at.partition_point(|&x| x < t);
        n as i64 * t - self.prefix[n]
    }
}

/// The item's shot types, indexed so that the time each kind covers inside any interval costs a
/// few binary searches: a shot `[a, b]` covers `max(0, t - a) - max(0, t - b)` of `[0, t]`, so a
/// kind's coverage of `[0, t]` is a sum over its starts before `t` minus one over its ends before
/// `t`, each read from prefix sums. Shots may be in any order and may overlap (a part covered
/// twice counts twice, as the sum of the shots' overlaps does).
#[derive(Debug, Default)]
pub(crate) struct ShotCoverage {
    kinds: [(Edges, Edges); 6],
    measured: bool,
}

impl ShotCoverage {
    /// The coverage of a document's `visual.shot_types` (empty when it has none).
    pub(crate) fn new(s: &Signals) -> ShotCoverage {
        let shots = s.visual.as_ref().map(|v| v.shot_types.as_slice()).unwrap_or(&[]);
        let mut edges: [(Vec<i64>, Vec<i64>); 6] = Default::default();
        for shot in shots {
            let (a, b) = (micros(shot.start), micros(shot.end));
            if let (Some(kind), true) = (ShotKind::parse(&shot.kind), a < b) {
                edges[kind.slot()].0.push(a);
                edges[kind.slot()].1.push(b);
            }
        }
        ShotCoverage { kinds: edges.map(|(a, b)| (Edges::new(a), Edges::new(b))), measured: !shots.is_empty() }
    }

    /// Whether the document has shot types at all.
    pub(crate) fn measured(&self) -> bool {
        self.measured
    }

    /// Microseconds of `[s, e]` (edges in microseconds) that `kind`'s shots cover.
    fn covered(&self, kind: ShotKind, s: i64, e: i64) -> i64 {
        let (starts, ends) = &self.kinds[kind.slot()];
        let upto = |t: i64| starts.before(t) - ends.before(t);
        upto(e) - upto(s)
    }

    /// The kind whose shots cover the most of `[start, stop]` (the earlier of [`ShotKind::ALL`]
    /// on a tie); `None` when no shot overlaps it.
    pub(crate) fn dominant(&self, start: f64, stop: f64) -> Option<ShotKind> {
        if !self.measured {
            return None;
        }
        let (s, e) = (micros(start), micros(stop));
        let mut best = None;
        let mut most = 0;
        for kind in ShotKind::ALL {
            let c = self.covered(kind, s, e);
            if c > most {
                (best, most) = (Some(kind), c);
            }
        }
        best
    }

    /// Whether `[start, stop]` passes the query's `shot_type` filter (`accepted` empty: any).
    pub(crate) fn passes(&self, accepted: &[ShotKind], start: f64, stop: f64) -> bool {
        accepted.is_empty() || self.dominant(start, stop).is_some_and(|k| accepted.contains(&k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::{SHOT_KINDS, ShotType, Visual};

    #[test]
    fn the_kinds_are_the_signals_kinds_in_order() {
        assert_eq!(ShotKind::ALL.map(ShotKind::as_str).as_slice(), SHOT_KINDS);
        for kind in ShotKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
            assert_eq!(ShotKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ShotKind::parse("Close_up"), None);
    }

    fn coverage(shots: &[(f64, f64, &str)]) -> ShotCoverage {
        let mut s = crate::synth::demo_signals("shots", 100.0, 1.0, 1);
        let shot_types: Vec<ShotType> = shots
            .iter()
            .map(|&(start, end, kind)| ShotType { start, end, kind: kind.into(), people: 1, setting: None })
            .collect();
        let visual: Visual =
            serde_json::from_value(serde_json::json!({"interval": 1.0, "shot_types": shot_types})).unwrap();
        s.visual = Some(visual);
        ShotCoverage::new(&s)
    }

    #[test]
    fn the_dominant_kind_covers_the_most_of_the_clip() {
        let c =
            coverage(&[(0.0, 10.0, "wide"), (10.0, 14.0, "close_up"), (14.0, 20.0, "wide"), (20.0, 50.0, "medium")]);
        // [8, 16]: wide 2 + 2, close-up 4: a tie, to the tighter close-up.
        assert_eq!(c.dominant(8.0, 16.0), Some(ShotKind::CloseUp));
        assert_eq!(c.dominant(8.0, 16.5), Some(ShotKind::Wide));
        assert_eq!(c.dominant(11.0, 13.0), Some(ShotKind::CloseUp));
        assert_eq!(c.dominant(15.0, 30.0), Some(ShotKind::Medium));
        // Nothing overlaps [50, 60], and a touching shot does not count.
        assert_eq!(c.dominant(50.0, 60.0), None);
        assert!(c.passes(&[], 50.0, 60.0));
        assert!(!c.passes(&[ShotKind::Medium], 50.0, 60.0));
        assert!(c.passes(&[ShotKind::Medium, ShotKind::Wide], 0.0, 9.0));
    }

    #[test]
    fn unsorted_and_overlapping_shots_count_each_overlap() {
        let c = coverage(&[(5.0, 9.0, "wide"), (0.0, 6.0, "medium"), (4.0, 6.0, "wide")]);
        // [3, 7]: medium 3; wide 2 (5..7) + 2 (4..6) = 4.
        assert_eq!(c.dominant(3.0, 7.0), Some(ShotKind::Wide));
        assert_eq!(c.dominant(0.0, 4.0), Some(ShotKind::Medium));
        assert!(!coverage(&[]).measured());
        assert_eq!(coverage(&[]).dominant(0.0, 10.0), None);
    }
}
