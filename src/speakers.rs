//! Who says what: the speaker of a stretch of speech, from a document's speaker turns
//! ([`crate::signals::Speakers`]), and how long each speaker speaks.
//!
//! A stretch is given the speaker whose turns cover most of it, when they cover at least
//! [`MIN_COVER`] of it; otherwise (speech no turn covers, or a stretch split between voices with
//! none clearly ahead) it has no speaker rather than a guess.

use serde::{Deserialize, Serialize};

use crate::report;
use crate::signals::Speakers;

/// The least share of a stretch the speaker's turns must cover for the stretch to be theirs.
pub const MIN_COVER: f64 = 0.5;

/// The speaker of `[start, end]`: the one whose turns cover most of it, at least [`MIN_COVER`] of
/// it; `None` otherwise or for an empty stretch.
pub fn speaker_of(speakers: &Speakers, start: f64, end: f64) -> Option<u32> {
    let length = end - start;
    if length.is_nan() || length <= 0.0 {
        return None;
    }
    let mut cover: Vec<(u32, f64)> = Vec::new();
    for t in speakers.turns.iter().filter(|t| t.end > start && t.start < end) {
        let overlap = t.end.min(end) - t.start.max(start);
        match cover.iter_mut().find(|(s, _)| *s == t.speaker) {
            Some((_, c)) => *c += overlap,
            None => cover.push((t.speaker, overlap)),
        }
    }
    cover
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .filter(|(_, c)| *c >= MIN_COVER * length)
        .map(|(s, _)| s)
}

/// One speaker's share of a title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SpeakerShare {
    /// The speaker (an index in the document's `speakers.voices`).
    pub speaker: u32,
    /// Seconds of its turns (3 decimals).
    pub seconds: f64,
    /// Its turns.
    pub turns: usize,
    /// The character it was seen as (an index in the document's `characters`), when linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character: Option<u32>,
}

/// Every speaker's share, most speaking time first (ties by speaker).
pub fn shares(speakers: &Speakers) -> Vec<SpeakerShare> {
    let mut out: Vec<SpeakerShare> = (0..speakers.voices.len() as u32)
        .map(|speaker| {
            let turns: Vec<_> = speakers.turns.iter().filter(|t| t.speaker == speaker).collect();
            SpeakerShare {
                speaker,
                seconds: report::time(turns.iter().map(|t| t.end - t.start).sum()),
                turns: turns.len(),
                character: speakers.characters.get(speaker as usize).copied().flatten(),
            }
        })
        .collect();
    out.sort_by(|a, b| b.seconds.total_cmp(&a.seconds).then(a.speaker.cmp(&b.speaker)));
    out
}

/// Two voices are one person when the cosine of their unit descriptors is at least this (see
/// [`link`]): the middle of the gap between the same and different voices of the diarization
/// evaluation's tuning recordings (docs/media.md, "The same voice across titles").
pub const VOICE_LINK: f32 = 0.945;

/// One speaker of a title with its identity across the titles linked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LinkedSpeaker {
    /// The speaker in its title (an index in that title's `speakers.voices`).
    pub speaker: u32,
    /// Seconds of its turns in the title.
    pub seconds: f64,
    /// Its voice across the titles linked (0: the most speaking time over all of them).
    pub series_voice: u32,
    /// The character of the title it was seen as, when linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character: Option<u32>,
}

/// The speakers of each of `titles` with their identities across them: titles are taken in
/// order, each title's speakers by decreasing speaking time; a speaker joins the identity whose
/// mean voice is nearest by cosine, at least [`VOICE_LINK`], and that no other speaker of the
/// same title has joined (one voice is one speaker per title), else starts a new one; an
/// identity's voice is the mean of those that joined it, weighted by speaking time. Identities
/// are numbered by total speaking time, 0 first. A title without speakers gives an empty list;
/// voices of another length than the first title's start identities of their own.
pub fn link(titles: &[&crate::Signals]) -> Vec<Vec<LinkedSpeaker>> {
    struct Voice {
        sum: Vec<f64>,
        seconds: f64,
    }
    impl Voice {
        fn cosine(&self, v: &[f32]) -> f32 {
            let norm = self.sum.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-12);
            (self.sum.iter().zip(v).map(|(s, x)| s * f64::from(*x)).sum::<f64>() / norm) as f32
        }
    }
    let mut identities: Vec<Voice> = Vec::new();
    // Each title's speakers with the index of their identity, numbered at the end.
    let mut raw: Vec<Vec<LinkedSpeaker>> = Vec::new();
    for title in titles {
        let Some(sp) = &title.speakers else {
            raw.push(Vec::new());
            continue;
        };
        let mut taken: Vec<usize> = Vec::new();
        let mut out = Vec::new();
        for share in shares(sp) {
            let Some(voice) = sp.voices.get(share.speaker as usize).filter(|v| !v.is_empty()) else { continue };
            let nearest = identities
                .iter()
                .enumerate()
                .filter(|(k, id)| !taken.contains(k) && id.sum.len() == voice.len())
                .map(|(k, id)| (k, id.cosine(voice)))
                .filter(|&(_, c)| c >= VOICE_LINK)
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(k, _)| k);
            let k = nearest.unwrap_or_else(|| {
                identities.push(Voice { sum: vec![0.0; voice.len()], seconds: 0.0 });
                identities.len() - 1
            });
            let w = share.seconds.max(1e-3);
            identities[k].sum.iter_mut().zip(voice).for_each(|(s, x)| *s += w * f64::from(*x));
            identities[k].seconds += share.seconds;
            taken.push(k);
            out.push(LinkedSpeaker {
                speaker: share.speaker,
                seconds: share.seconds,
                series_voice: k as u32,
                character: share.character,
            });
        }
        raw.push(out);
    }
    let mut order: Vec<usize> = (0..identities.len()).collect();
    order.sort_by(|&a, &b| identities[b].seconds.total_cmp(&identities[a].seconds).then(a.cmp(&b)));
    let mut number = vec![0u32; identities.len()];
    for (n, &k) in order.iter().enumerate() {
        number[k] = n as u32;
    }
    for linked in raw.iter_mut().flatten() {
        linked.series_voice = number[linked.series_voice as usize];
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::SpeakerTurn;

    fn speakers() -> Speakers {
        let turn = |start: f64, end: f64, speaker: u32| SpeakerTurn { start, end, speaker, embedding: Vec::new() };
        Speakers {
            turns: vec![turn(0.0, 4.0, 0), turn(4.0, 6.0, 1), turn(6.5, 7.0, 0), turn(10.0, 12.0, 1)],
            voices: vec![vec![1.0], vec![1.0], vec![1.0]],
            characters: vec![Some(2), None, None],
        }
    }

    #[test]
    fn a_stretch_belongs_to_the_voice_that_covers_most_of_it() {
        let s = speakers();
        assert_eq!(speaker_of(&s, 0.5, 3.5), Some(0));
        assert_eq!(speaker_of(&s, 3.5, 6.0), Some(1), "2 s of speaker 2 against 0.5 s of speaker 1");
        assert_eq!(speaker_of(&s, 6.0, 10.0), None, "covered for 0.5 s of 4: nobody's");
        assert_eq!(speaker_of(&s, 20.0, 21.0), None);
        assert_eq!(speaker_of(&s, 2.0, 2.0), None);
        assert_eq!(speaker_of(&s, f64::NAN, 1.0), None);
    }

    #[test]
    fn the_same_voice_keeps_one_identity_across_titles() {
        let unit = |a: f32| vec![a.cos(), a.sin()];
        let turn = |start: f64, end: f64, speaker: u32| SpeakerTurn { start, end, speaker, embedding: Vec::new() };
        let title = |voices: Vec<Vec<f32>>, seconds: &[f64]| {
            let mut s = crate::synth::demo_signals("ep", 120.0, 1.0, 1);
            let mut at = 0.0;
            let turns = seconds
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let t = turn(at, at + d, i as u32);
                    at += d;
                    t
                })
                .collect();
            s.speakers = Some(Speakers { turns, voices, characters: Vec::new() });
            s
        };
        // Episode 1: A (10 s) and B (30 s); episode 2: B again, a little off (20 s), and C (5 s),
        // far from both; a title without speakers in between.
        let e1 = title(vec![unit(0.0), unit(1.5)], &[10.0, 30.0]);
        let silent = crate::synth::demo_signals("silent", 60.0, 1.0, 1);
        let e2 = title(vec![unit(1.45), unit(3.0)], &[20.0, 5.0]);
        let linked = link(&[&e1, &silent, &e2]);
        assert!(linked[1].is_empty());
        let voice = |t: usize, speaker: u32| linked[t].iter().find(|l| l.speaker == speaker).unwrap().series_voice;
        assert_eq!(voice(2, 0), voice(0, 1), "B in both episodes");
        assert_eq!(voice(0, 1), 0, "B speaks most over the series");
        let all = [voice(0, 0), voice(0, 1), voice(2, 1)];
        assert!(all[0] != all[1] && all[0] != all[2] && all[1] != all[2], "{all:?}");
        // Two speakers of one title never share an identity, however alike.
        let twins = title(vec![unit(0.0), unit(0.01)], &[5.0, 4.0]);
        let linked = link(&[&twins]);
        assert_ne!(linked[0][0].series_voice, linked[0][1].series_voice);
    }

    #[test]
    fn shares_rank_the_speakers_by_time() {
        let shares = shares(&speakers());
        let seen: Vec<(u32, f64, usize, Option<u32>)> =
            shares.iter().map(|s| (s.speaker, s.seconds, s.turns, s.character)).collect();
        assert_eq!(seen, vec![(0, 4.5, 2, Some(2)), (1, 4.0, 2, None), (2, 0.0, 0, None)]);
    }
}
