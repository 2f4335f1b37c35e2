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
    fn shares_rank_the_speakers_by_time() {
        let shares = shares(&speakers());
        let seen: Vec<(u32, f64, usize, Option<u32>)> =
            shares.iter().map(|s| (s.speaker, s.seconds, s.turns, s.character)).collect();
        assert_eq!(seen, vec![(0, 4.5, 2, Some(2)), (1, 4.0, 2, None), (2, 0.0, 0, None)]);
    }
}
