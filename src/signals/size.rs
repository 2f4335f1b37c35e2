//! How much memory a document and its prepared form hold: an estimate from the lengths of their
//! vectors, timelines and texts, for caches that keep to a budget of bytes.

use std::mem::{size_of, size_of_val};

use super::model::{Signals, Tag};
use super::prepared::Prepared;

/// The bytes of `v`'s elements (their own size, not what they point to).
fn items<T>(v: &[T]) -> usize {
    size_of_val(v)
}

/// The bytes of a list of strings, with their texts.
fn texts(v: &[String]) -> usize {
    items(v) + v.iter().map(String::len).sum::<usize>()
}

fn tags(v: &[Tag]) -> usize {
    items(v) + v.iter().map(|t| t.name.len()).sum::<usize>()
}

impl Signals {
    /// An estimate of the bytes this document holds: its own size and that of every vector,
    /// timeline and text it owns (allocators' overhead and spare capacity left out).
    pub fn heap_size(&self) -> usize {
        let t = &self.timelines;
        let timelines = [&t.relevance, &t.nudity, &t.blood_gore, &t.profanity, &t.brightness]
            .into_iter()
            .chain(t.clip_types.values())
            .map(|v| items(v))
            .sum::<usize>()
            + t.clip_types.keys().map(|k| k.len() + size_of::<(String, Vec<f32>)>()).sum::<usize>();
        let characters = self.characters.iter().map(|c| size_of_val(c) + items(&c.spans)).sum::<usize>();
        let vectors = |v: &Option<Vec<Vec<f32>>>| {
            v.as_ref().map_or(0, |v| v.iter().map(|x| items(x) + size_of_val(x)).sum::<usize>())
        };
        let emotions = self.emotions.as_ref().map_or(0, |e| {
            texts(&e.names)
                + e.probs.iter().map(|row| size_of_val(row) + items(row)).sum::<usize>()
                + items(&e.valence)
                + items(&e.arousal)
                + items(&e.dominance)
        });
        let profanity = self
            .profanity
            .as_ref()
            .map_or(0, |p| items(p) + p.iter().map(|e| e.word.as_ref().map_or(0, String::len)).sum::<usize>());
        let analysis = self.analysis.as_ref().map_or(0, |a| {
            a.analyzer.len()
                + texts(&a.measured)
                + texts(&a.absent)
                + a.models.iter().chain(&a.reasons).map(|(k, v)| k.len() + v.len() + 48).sum::<usize>()
        });
        let text = self
            .text
            .as_ref()
            .map_or(0, |t| items(&t.density) + items(&t.lines) + t.lines.iter().map(|l| l.text.len()).sum::<usize>());
        let transcript = self.transcript.as_ref().map_or(0, |t| {
            t.language.len()
                + items(&t.segments)
                + t.segments
                    .iter()
                    .map(|s| s.text.len() + items(&s.words) + s.words.iter().map(|w| w.word.len()).sum::<usize>())
                    .sum::<usize>()
        });
        let visual = self.visual.as_ref().map_or(0, |v| {
            items(&v.frames)
                + v.frames
                    .iter()
                    .map(|f| items(&f.labels) + f.labels.iter().map(|l| l.name.len() + l.group.len()).sum::<usize>())
                    .sum::<usize>()
                + items(&v.shot_types)
                + v.shot_types.iter().map(|s| s.kind.len() + s.setting.as_ref().map_or(0, String::len)).sum::<usize>()
                + vectors(&v.scene_features)
                + v.item_feature.as_ref().map_or(0, |f| items(f))
                + items(&v.cues)
                + v.cues.iter().map(|c| c.kind.len()).sum::<usize>()
                + tags(&v.tags)
        });
        let objects = self.objects.as_ref().map_or(0, |o| {
            items(&o.frames)
                + o.frames
                    .iter()
                    .map(|f| items(&f.boxes) + f.boxes.iter().map(|b| b.class.len()).sum::<usize>())
                    .sum::<usize>()
                + items(&o.tracks)
                + o.tracks.iter().map(|t| t.class.len()).sum::<usize>()
        });
        let speakers = self.speakers.as_ref().map_or(0, |s| {
            items(&s.turns)
                + s.turns.iter().map(|t| items(&t.embedding)).sum::<usize>()
                + items(&s.voices)
                + s.voices.iter().map(|v| items(v)).sum::<usize>()
                + items(&s.characters)
        });
        size_of::<Signals>()
            + self.format.len()
            + self.inventory_id.len()
            + timelines
            + items(&self.shots)
            + items(&self.speech)
            + characters
            + tags(&self.tags)
            + items(&self.scenes)
            + vectors(&self.scene_embeddings)
            + self.item_embedding.as_ref().map_or(0, |v| items(v))
            + emotions
            + profanity
            + self.vertical.as_ref().map_or(0, |v| items(&v.x_center))
            + analysis
            + text
            + transcript
            + self.audio_fingerprint.as_ref().map_or(0, |f| items(&f.hashes))
            + vectors(&self.character_descriptors)
            + visual
            + self.picture_fingerprint.as_ref().map_or(0, |f| items(&f.hashes))
            + objects
            + speakers
            + self.scene_channels.as_ref().map_or(0, |c| {
                c.lists().iter().map(|l| items(l) + l.iter().flatten().map(|v| items(v)).sum::<usize>()).sum::<usize>()
            })
    }
}

impl Prepared {
    /// An estimate of the bytes this holds: the document ([`Signals::heap_size`]) and every index
    /// built over it (prefix sums, range-maximum tables, characters' spans, tags by kind, unit
    /// scene embeddings).
    pub fn heap_size(&self) -> usize {
        size_of::<Prepared>() - size_of::<Signals>()
            + self.signals().heap_size()
            + items(self.relevance.sums())
            + items(self.brightness.sums())
            + [&self.nudity, &self.blood_gore, &self.profanity].iter().map(|r| r.heap_size()).sum::<usize>()
            + self.clip_types.iter().map(|(_, p)| size_of_val(p) + items(p.sums())).sum::<usize>()
            + self.characters.iter().map(|(_, spans)| size_of_val(spans) + items(spans)).sum::<usize>()
            + items(&self.anyone_on_screen)
            + self.tags_by_kind.iter().map(|v| items(v)).sum::<usize>()
            + self.scene_unit.as_ref().map_or(0, |v| items(v))
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::demo_signals;

    /// The estimate grows with what the document holds: its timelines, twice as many samples, and
    /// its prepared form adds its indexes.
    #[test]
    fn the_estimate_follows_the_timelines_and_the_indexes() {
        let short = demo_signals("s", 600.0, 1.0, 3);
        let fine = demo_signals("s", 600.0, 0.5, 3);
        let n = fine.timelines.relevance.len();
        assert!(fine.heap_size() > short.heap_size() + 5 * (n / 2) * 4, "{} {}", fine.heap_size(), short.heap_size());
        let prepared = crate::Prepared::new(fine.clone()).unwrap();
        // The prefix sums alone are 8 bytes a sample for relevance and brightness.
        assert!(prepared.heap_size() > fine.heap_size() + 2 * 8 * n);
    }
}
