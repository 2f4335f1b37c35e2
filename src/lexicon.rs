//! Spoken profanity from a transcript: a documented word list with severities.
//!
//! The list follows the grading of Ofcom's research *Attitudes to potentially offensive language
//! and gestures on TV and radio* (2016), which ranks English swear words from mild to strongest as
//! UK viewers judge them. Each entry has a severity, reported as the event's score:
//!
//! | severity | score | examples |
//! |---|---|---|
//! | mild | 0.55 | damn, hell, crap, bloody, arse |
//! | medium | 0.7 | shit, bitch, bastard, dick, piss off, bollocks |
//! | strong | 0.9 | fuck, motherfucker, wanker, twat, prick |
//! | strongest | 1.0 | cunt |
//!
//! With the profanity defaults (`min_score` 0.5, `severe_score` 0.8), every listed word is an event
//! and strong ones are severe. A word matches when its lower-case letters (apostrophes, hyphens
//! and surrounding punctuation removed) equal an entry or an entry's listed inflection, or, for the
//! few roots marked as stems (`fuck`, `shit`, `motherfuck`), start with it (`fucking`, `shitty`).
//! Whole words only: `hello`, `class` and `Scunthorpe` never match. Religious exclamations
//! (`god`, `jesus`) and slurs are not in the list: the first are rarely judged profanity by
//! audiences, the second are a separate classification this list does not attempt.
//!
//! ```
//! use kino::lexicon::{profane, Severity};
//! assert_eq!(profane("Fucking!").map(|m| m.severity), Some(Severity::Strong));
//! assert_eq!(profane("damn,").map(|m| m.severity), Some(Severity::Mild));
//! assert!(profane("hello").is_none());
//! ```

use crate::signals::{ProfanityEvent, Transcript};

/// How offensive a word is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// damn, hell, crap.
    Mild,
    /// shit, bitch, bastard.
    Medium,
    /// fuck, motherfucker, wanker.
    Strong,
    /// cunt.
    Strongest,
}

impl Severity {
    /// The score an event of this severity gets.
    pub fn score(self) -> f64 {
        match self {
            Severity::Mild => 0.55,
            Severity::Medium => 0.7,
            Severity::Strong => 0.9,
            Severity::Strongest => 1.0,
        }
    }
}

/// A matched word: the list's entry and its severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    /// The entry that matched (its base form).
    pub entry: &'static str,
    /// Its severity.
    pub severity: Severity,
}

use Severity::*;

/// (base form, severity, whether any word starting with it matches, other inflections).
const WORDS: &[(&str, Severity, bool, &[&str])] = &[
    ("damn", Mild, false, &["damned", "damnit", "dammit", "goddamn", "goddamned", "goddamnit"]),
    ("hell", Mild, false, &[]),
    ("crap", Mild, false, &["crappy", "craps"]),
    ("bloody", Mild, false, &[]),
    ("arse", Mild, false, &["arses"]),
    ("bugger", Mild, false, &["buggered", "buggering"]),
    ("sod", Mild, false, &[]),
    ("piss", Medium, false, &["pissed", "pissing", "pisses"]),
    ("ass", Medium, false, &["asses", "asshole", "assholes", "arsehole", "arseholes", "jackass", "dumbass"]),
    ("shit", Medium, true, &["bullshit", "horseshit", "shite"]),
    ("bitch", Medium, false, &["bitches", "bitching", "bitchy", "sonofabitch"]),
    ("bastard", Medium, false, &["bastards"]),
    ("bollocks", Medium, false, &[]),
    ("dick", Medium, false, &["dicks", "dickhead", "dickheads"]),
    ("prick", Strong, false, &["pricks"]),
    ("cock", Strong, false, &["cocks", "cocksucker", "cocksuckers"]),
    ("twat", Strong, false, &["twats"]),
    ("wanker", Strong, false, &["wankers", "wank"]),
    ("pussy", Strong, false, &[]),
    ("fuck", Strong, true, &["effing", "fck", "fuk"]),
    ("motherfuck", Strong, true, &[]),
    ("cunt", Strongest, false, &["cunts"]),
];

/// Lower-case letters of `word` without apostrophes, hyphens and punctuation.
fn normalise(word: &str) -> String {
    word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The list's entry for `word`, if it is profane.
pub fn profane(word: &str) -> Option<Match> {
    let w = normalise(word);
    if w.is_empty() {
        return None;
    }
    WORDS
        .iter()
        .filter(|(base, _, stem, other)| w == *base || other.contains(&w.as_str()) || (*stem && w.starts_with(base)))
        .max_by_key(|(_, severity, _, _)| *severity)
        .map(|&(entry, severity, _, _)| Match { entry, severity })
}

/// One event per profane word of `transcript`, in time order, scored by severity and carrying
/// the word as spoken. Segments without word times give one event per profane word over the
/// whole segment.
pub fn transcript_events(transcript: &Transcript) -> Vec<ProfanityEvent> {
    let mut out = Vec::new();
    for seg in &transcript.segments {
        if seg.words.is_empty() {
            for w in seg.text.split_whitespace() {
                if let Some(m) = profane(w) {
                    out.push(ProfanityEvent {
                        start: seg.start,
                        end: seg.end,
                        score: m.severity.score(),
                        word: Some(normalise(w)),
                    });
                }
            }
            continue;
        }
        for w in &seg.words {
            if let Some(m) = profane(&w.word) {
                out.push(ProfanityEvent {
                    start: w.start,
                    end: w.end,
                    score: m.severity.score(),
                    word: Some(w.word.trim().trim_matches(|c: char| !c.is_alphanumeric()).to_string()),
                });
            }
        }
    }
    out.sort_by(|a, b| a.start.total_cmp(&b.start));
    out
}

/// The profanity timeline: per sample of `step` seconds, the highest score of the events that
/// overlap it (0 elsewhere), `n` samples.
pub fn timeline(events: &[ProfanityEvent], step: f64, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    for e in events {
        let a = (e.start / step).floor().max(0.0) as usize;
        let b = ((e.end / step).ceil() as usize).max(a + 1).min(n);
        for v in out.iter_mut().take(b).skip(a) {
            *v = v.max(e.score as f32);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::{TranscriptSegment, TranscriptWord};

    #[test]
    fn whole_words_and_listed_forms_only() {
        for (w, s) in [
            ("fuck", Strong),
            ("Motherfucker.", Strong),
            ("shitty", Medium),
            ("bullshit!", Medium),
            ("ASSHOLE", Medium),
            ("goddamn", Mild),
            ("cunt", Strongest),
            ("pissed", Medium),
        ] {
            assert_eq!(profane(w).map(|m| m.severity), Some(s), "{w}");
        }
        for w in ["hello", "class", "Scunthorpe", "assume", "cocktail", "shell", "dickens", "passage", "", "..."] {
            assert!(profane(w).is_none(), "{w}");
        }
    }

    #[test]
    fn events_carry_word_times_and_fill_the_timeline() {
        let word = |start: f64, end: f64, w: &str| TranscriptWord { start, end, word: w.into(), probability: 0.9 };
        let t = Transcript {
            language: "en".into(),
            segments: vec![
                TranscriptSegment {
                    start: 1.0,
                    end: 3.0,
                    text: "Oh shit, it's you.".into(),
                    words: vec![
                        word(1.0, 1.2, " Oh"),
                        word(1.2, 1.6, " shit,"),
                        word(1.6, 2.0, " it's"),
                        word(2.0, 3.0, " you."),
                    ],
                },
                TranscriptSegment { start: 5.0, end: 6.0, text: "Fuck off.".into(), words: vec![] },
            ],
        };
        let events = transcript_events(&t);
        assert_eq!(events.len(), 2);
        assert_eq!((events[0].start, events[0].end, events[0].word.as_deref()), (1.2, 1.6, Some("shit")));
        assert_eq!(events[0].score, 0.7);
        assert_eq!((events[1].start, events[1].end, events[1].score), (5.0, 6.0, 0.9));
        let tl = timeline(&events, 1.0, 8);
        assert_eq!(tl, vec![0.0, 0.7, 0.0, 0.0, 0.0, 0.9, 0.0, 0.0]);
    }
}
