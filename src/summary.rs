//! Content summaries: an extractive summary of a transcript, the sentences most central to what is
//! said, in the order they are said, with their times.
//!
//! **Sentences.** Each transcript segment is cut after every word that ends with `.`, `!` or `?`
//! (a segment without word times is one sentence); a sentence spans its words' times.
//!
//! **Centrality.** Every sentence is encoded by a [`TextEncoder`] (the sentence model in the
//! service and the analysis; any encoder in the library) into a unit vector. A sentence's
//! centrality is its mean cosine similarity to all the others (degree centrality in the
//! similarity graph, the continuous form of LexRank): a sentence that says what much of the
//! transcript says scores high, an aside scores low.
//!
//! **Selection.** `k = clamp(ceil(n / 5), 1, max_sentences)` sentences are chosen by decreasing
//! centrality among those of at least [`MIN_WORDS`] words (all sentences when none is that long),
//! skipping a candidate whose similarity to one already chosen is above [`REDUNDANCY`]. The chosen
//! sentences are returned in time order; `text` joins them.
//!
//! **The emotional arc.** [`content_summary`] summarises a whole document: the transcript as
//! above, and the title's emotional arc ([`crate::arc`]), the story shape its valence follows. A
//! title without a transcript but with an arc (a film without dialogue) gets the arc and an empty
//! summary (empty `language` and `text`, no sentences); one with neither has no summary.
//!
//! ```
//! use kino::signals::{Transcript, TranscriptSegment};
//! use kino::summary::{summarize, SummaryOptions};
//! use kino::LexicalEncoder;
//!
//! let segment = |start: f64, text: &str| TranscriptSegment { start, end: start + 2.0, text: text.into(), words: vec![] };
//! let t = Transcript {
//!     language: "en".into(),
//!     segments: vec![
//!         segment(0.0, "The city council approved the new budget for schools."),
//!         segment(3.0, "Nice weather today."),
//!         segment(6.0, "The school budget adds teachers in every district of the city."),
//!     ],
//! };
//! let s = summarize(&t, &LexicalEncoder::default(), &SummaryOptions::default())?;
//! assert_eq!(s.sentences.len(), 1);
//! assert!(s.text.contains("budget"));
//! # Ok::<(), kino::Error>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::arc::{EmotionalArc, emotional_arc};
use crate::error::{Error, Result};
use crate::report;
use crate::signals::{Signals, Transcript};
use crate::text::TextEncoder;

/// Sentences shorter than this many words are chosen only when no sentence is this long.
pub const MIN_WORDS: usize = 4;
/// A candidate this similar (cosine) to a chosen sentence is skipped as redundant.
pub const REDUNDANCY: f32 = 0.9;

/// How long a summary may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SummaryOptions {
    /// The most sentences a summary holds; 1 to 50. Default 7.
    pub max_sentences: usize,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions { max_sentences: 7 }
    }
}

/// A sentence of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SummarySentence {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// The sentence as transcribed.
    pub text: String,
    /// Its centrality, the mean cosine similarity to the other sentences (6 decimals).
    pub score: f64,
    /// Who says it (an index in the document's `speakers.voices`), when the voices were told
    /// apart and one covers most of it ([`crate::speakers::speaker_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<u32>,
}

/// An extractive summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ContentSummary {
    /// The transcript's language.
    pub language: String,
    /// The chosen sentences joined by spaces, in time order; empty when nothing was said.
    pub text: String,
    /// The chosen sentences, in time order.
    pub sentences: Vec<SummarySentence>,
    /// How many sentences the transcript has.
    pub sentence_count: usize,
    /// The encoder the centrality was measured with (its `version`).
    pub encoder: String,
    /// The title's emotional arc, when it has one ([`content_summary`]; absent from
    /// [`summarize`], which sees the transcript alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotional_arc: Option<EmotionalArc>,
    /// Who speaks and for how long, most first, when the voices were told apart
    /// ([`content_summary`]; absent from [`summarize`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speakers: Option<Vec<crate::speakers::SpeakerShare>>,
}

/// One sentence of the transcript with its times.
fn sentences(t: &Transcript) -> Vec<(f64, f64, String)> {
    let mut out = Vec::new();
    for seg in &t.segments {
        if seg.words.is_empty() {
            if !seg.text.trim().is_empty() {
                out.push((seg.start, seg.end, seg.text.trim().to_string()));
            }
            continue;
        }
        let mut current: Vec<&str> = Vec::new();
        let mut start = seg.words[0].start;
        for (i, w) in seg.words.iter().enumerate() {
            if current.is_empty() {
                start = w.start;
            }
            current.push(w.word.trim());
            let ends = w.word.trim_end().ends_with(['.', '!', '?']);
            if ends || i + 1 == seg.words.len() {
                let text = current.join(" ");
                if !text.trim().is_empty() {
                    out.push((start, w.end, text));
                }
                current.clear();
            }
        }
    }
    out
}

/// Summarises `transcript` (see the module documentation).
pub fn summarize(
    transcript: &Transcript,
    encoder: &dyn TextEncoder,
    options: &SummaryOptions,
) -> Result<ContentSummary> {
    if !(1..=50).contains(&options.max_sentences) {
        return Err(Error::InvalidParameter {
            param: "max_sentences",
            rule: format!("must be between 1 and 50 (got {})", options.max_sentences),
        });
    }
    let all = sentences(transcript);
    let mut summary = ContentSummary {
        language: transcript.language.clone(),
        text: String::new(),
        sentences: Vec::new(),
        sentence_count: all.len(),
        encoder: encoder.version().to_string(),
        emotional_arc: None,
        speakers: None,
    };
    if all.is_empty() {
        return Ok(summary);
    }
    let vectors: Vec<Vec<f32>> = all
        .iter()
        .map(|(_, _, text)| {
            let mut v = encoder.encode(text).unwrap_or_else(|_| vec![0.0; encoder.dim()]);
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                v.iter_mut().for_each(|x| *x /= norm);
            }
            v
        })
        .collect();
    let cos = |a: usize, b: usize| vectors[a].iter().zip(&vectors[b]).map(|(x, y)| x * y).sum::<f32>();
    let n = all.len();
    let centrality: Vec<f32> = (0..n)
        .map(|i| if n == 1 { 1.0 } else { (0..n).filter(|&j| j != i).map(|j| cos(i, j)).sum::<f32>() / (n - 1) as f32 })
        .collect();
    let k = n.div_ceil(5).clamp(1, options.max_sentences);
    let words = |i: usize| all[i].2.split_whitespace().count();
    let long_enough = (0..n).any(|i| words(i) >= MIN_WORDS);
    let mut order: Vec<usize> = (0..n).filter(|&i| !long_enough || words(i) >= MIN_WORDS).collect();
    order.sort_by(|&a, &b| centrality[b].total_cmp(&centrality[a]).then(a.cmp(&b)));
    let mut chosen: Vec<usize> = Vec::new();
    for i in order {
        if chosen.len() == k {
            break;
        }
        if chosen.iter().any(|&c| cos(i, c) > REDUNDANCY) {
            continue;
        }
        chosen.push(i);
    }
    chosen.sort_unstable();
    summary.sentences = chosen
        .iter()
        .map(|&i| SummarySentence {
            start: report::time(all[i].0),
            end: report::time(all[i].1),
            text: all[i].2.clone(),
            score: report::score(f64::from(centrality[i]).clamp(-1.0, 1.0)),
            speaker: None,
        })
        .collect();
    summary.text = summary.sentences.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" ");
    Ok(summary)
}

/// The content summary of a document: [`summarize`] of its transcript (an empty summary without
/// one) with its emotional arc, and, when the voices were told apart, who says each sentence and
/// each speaker's share.
///
/// Errors: [`Error::MissingSignal`] when the document has neither a transcript nor an emotional
/// arc; those of [`summarize`].
pub fn content_summary(
    signals: &Signals,
    encoder: &dyn TextEncoder,
    options: &SummaryOptions,
) -> Result<ContentSummary> {
    let arc = emotional_arc(signals);
    let mut summary = match (&signals.transcript, &arc) {
        (Some(t), _) => summarize(t, encoder, options)?,
        (None, Some(_)) => {
            let empty = Transcript { language: String::new(), segments: Vec::new() };
            summarize(&empty, encoder, options)?
        }
        (None, None) => {
            return Err(Error::MissingSignal {
                field: "transcript",
                needed_by: "content summary (or an emotional arc)",
            });
        }
    };
    summary.emotional_arc = arc;
    if let Some(speakers) = &signals.speakers {
        for sentence in &mut summary.sentences {
            sentence.speaker = crate::speakers::speaker_of(speakers, sentence.start, sentence.end);
        }
        summary.speakers = Some(crate::speakers::shares(speakers));
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signals::{TranscriptSegment, TranscriptWord};
    use crate::text::LexicalEncoder;

    fn words(start: f64, text: &str) -> TranscriptSegment {
        let ws: Vec<TranscriptWord> = text
            .split_whitespace()
            .enumerate()
            .map(|(i, w)| TranscriptWord {
                start: start + i as f64 * 0.3,
                end: start + i as f64 * 0.3 + 0.25,
                word: w.into(),
                probability: 0.9,
            })
            .collect();
        TranscriptSegment { start, end: ws.last().unwrap().end, text: text.into(), words: ws }
    }

    #[test]
    fn sentences_split_at_their_ends_with_word_times() {
        let t =
            Transcript { language: "en".into(), segments: vec![words(10.0, "One two three. Four five six seven!")] };
        let s = sentences(&t);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].0, s[0].1, s[0].2.as_str()), (10.0, 10.85, "One two three."));
        assert!((s[1].0 - 10.9).abs() < 1e-9 && s[1].2 == "Four five six seven!");
    }

    #[test]
    fn the_central_sentences_are_chosen_in_time_order() {
        let t = Transcript {
            language: "en".into(),
            segments: vec![
                words(0.0, "The storm flooded the river valley overnight."),
                words(5.0, "My cat likes the blue sofa."),
                words(10.0, "Rescue teams reached the flooded valley villages by boat."),
                words(15.0, "Traffic was light on the bridge."),
                words(20.0, "The river storm flooded homes across the valley."),
                words(25.0, "Officials expect the river to fall by the weekend."),
            ],
        };
        let s = summarize(&t, &LexicalEncoder::default(), &SummaryOptions { max_sentences: 2 }).unwrap();
        assert_eq!(s.sentence_count, 6);
        assert_eq!(s.sentences.len(), 2);
        assert!(s.sentences.windows(2).all(|w| w[0].start < w[1].start));
        assert!(s.text.contains("flooded"), "{}", s.text);
        assert!(!s.text.contains("cat"), "{}", s.text);
        let empty = Transcript { language: "en".into(), segments: vec![] };
        let none = summarize(&empty, &LexicalEncoder::default(), &SummaryOptions::default()).unwrap();
        assert!(none.sentences.is_empty() && none.text.is_empty());
        assert!(summarize(&t, &LexicalEncoder::default(), &SummaryOptions { max_sentences: 0 }).is_err());
    }

    #[test]
    fn a_document_gets_its_arc_with_or_without_a_transcript() {
        let encoder = LexicalEncoder::default();
        let options = SummaryOptions::default();
        let mut s = crate::synth::demo_signals("tt-summary", 1800.0, 1.0, 4);
        s.transcript =
            Some(Transcript { language: "en".into(), segments: vec![words(3.0, "The storm came at dawn.")] });
        let with = content_summary(&s, &encoder, &options).unwrap();
        assert_eq!(with.sentences.len(), 1);
        let arc = with.emotional_arc.clone().expect("demo documents carry emotions");
        assert_eq!(arc, emotional_arc(&s).unwrap());
        let json = serde_json::to_value(&with).unwrap();
        assert_eq!(json["emotional_arc"]["shape"], arc.shape.as_str());
        assert_eq!(json["emotional_arc"]["name"], arc.shape.name());

        s.transcript = None;
        let without = content_summary(&s, &encoder, &options).unwrap();
        assert!(without.sentences.is_empty() && without.text.is_empty() && without.language.is_empty());
        assert_eq!(without.emotional_arc, Some(arc));

        s.emotions = None;
        let e = content_summary(&s, &encoder, &options).unwrap_err();
        assert!(matches!(e, Error::MissingSignal { field: "transcript", .. }), "{e}");
        let plain = summarize(&Transcript { language: "en".into(), segments: vec![] }, &encoder, &options).unwrap();
        assert!(serde_json::to_value(&plain).unwrap().get("emotional_arc").is_none(), "absent, not null");
    }

    #[test]
    fn with_speaker_turns_each_sentence_names_its_voice() {
        use crate::signals::{SpeakerTurn, Speakers};
        let mut s = crate::synth::demo_signals("tt-voices", 60.0, 1.0, 4);
        s.transcript = Some(Transcript {
            language: "en".into(),
            segments: vec![words(1.0, "Where were you last night?"), words(5.0, "I missed the last train home.")],
        });
        let encoder = LexicalEncoder::default();
        let options = SummaryOptions { max_sentences: 5 };
        let plain = content_summary(&s, &encoder, &options).unwrap();
        assert!(plain.speakers.is_none() && plain.sentences.iter().all(|x| x.speaker.is_none()));
        let json = serde_json::to_value(&plain).unwrap();
        assert!(json.get("speakers").is_none() && json["sentences"][0].get("speaker").is_none(), "absent, not null");
        let turn = |start: f64, end: f64, speaker: u32| SpeakerTurn { start, end, speaker, embedding: Vec::new() };
        s.speakers = Some(Speakers {
            turns: vec![turn(0.8, 2.6, 1), turn(4.9, 7.2, 0)],
            voices: vec![vec![1.0], vec![1.0]],
            characters: vec![None, Some(0)],
        });
        let told = content_summary(&s, &encoder, &options).unwrap();
        assert!(!told.sentences.is_empty());
        for x in &told.sentences {
            assert_eq!(x.speaker, Some(if x.start < 4.0 { 1 } else { 0 }), "{x:?}");
        }
        let shares = told.speakers.unwrap();
        assert_eq!((shares[0].speaker, shares[0].seconds, shares[1].character), (0, 2.3, Some(0)));
    }
}
