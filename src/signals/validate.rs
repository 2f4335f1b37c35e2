//! Every rule of `signals.md`, checked once when a document enters the core.

use std::collections::BTreeSet;

use super::model::*;
use crate::clips::types::ClipType;
use crate::error::{Error, Result};

/// Slack, in seconds, allowed where two times must meet (scene contiguity and coverage).
pub(crate) const TIME_SLACK: f64 = 1e-6;

/// Number of samples of a timeline with `step` over `duration`: `ceil(duration / step)`, where a
/// ratio within one millionth of a whole number counts as that whole number (so that
/// `duration = 7200, step = 1/24` gives exactly 172,800 despite floating-point rounding).
pub fn sample_count(duration: f64, step: f64) -> usize {
    let ratio = duration / step;
    let nearest = ratio.round();
    let n = if (ratio - nearest).abs() <= 1e-6 { nearest } else { ratio.ceil() };
    if n.is_finite() && n >= 0.0 { n as usize } else { 0 }
}

/// The samples of a series with `step` (named `field`) over `duration`: [`sample_count`], at most
/// [`MAX_SAMPLES`].
fn samples(field: &str, duration: f64, step: f64) -> Result<usize> {
    let n = sample_count(duration, step);
    if n > MAX_SAMPLES {
        return Err(Error::signals(
            field,
            format!("gives {n} samples over the duration, more than the supported {MAX_SAMPLES}"),
        ));
    }
    Ok(n)
}

pub(super) fn positive_finite(field: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::signals(field, format!("must be a finite number > 0 (got {value})")))
    }
}

pub(super) fn unit(field: impl FnOnce() -> String, value: f64) -> Result<()> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::signals(field(), format!("must be a finite number in [0, 1] (got {value})")))
    }
}

pub(super) fn in_duration(field: &str, iv: Interval, duration: f64) -> Result<()> {
    let [start, end] = iv;
    if !(start.is_finite() && end.is_finite()) {
        return Err(Error::signals(field, format!("must hold finite times (got [{start}, {end}])")));
    }
    if !(0.0 <= start && start < end && end <= duration) {
        return Err(Error::signals(
            field,
            format!("must satisfy 0 <= start < end <= duration ({duration}) (got [{start}, {end}])"),
        ));
    }
    Ok(())
}

fn sorted_disjoint(field: &str, intervals: &[Interval], duration: f64) -> Result<()> {
    for (i, iv) in intervals.iter().enumerate() {
        in_duration(&format!("{field}[{i}]"), *iv, duration)?;
        if i > 0 && iv[0] < intervals[i - 1][1] {
            return Err(Error::signals(
                format!("{field}[{i}]"),
                format!(
                    "must be sorted and not overlap the previous interval (starts at {} before {} ends)",
                    iv[0],
                    intervals[i - 1][1]
                ),
            ));
        }
    }
    Ok(())
}

fn timeline(field: &str, values: &[f32], expected: usize) -> Result<()> {
    if values.len() != expected {
        return Err(Error::signals(
            field,
            format!("must have ceil(duration / step) = {expected} samples (got {})", values.len()),
        ));
    }
    for (i, &v) in values.iter().enumerate() {
        unit(|| format!("{field}[{i}]"), f64::from(v))?;
    }
    Ok(())
}

fn finite_vector(field: &str, values: &[f32], dim: usize) -> Result<()> {
    if values.len() != dim {
        return Err(Error::signals(field, format!("must have {dim} values (got {})", values.len())));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Error::signals(format!("{field}[{i}]"), "must be finite"));
    }
    Ok(())
}

fn signed_unit(field: &str, values: &[f32], expected: usize) -> Result<()> {
    if values.len() != expected {
        return Err(Error::signals(
            field,
            format!("must have one value per emotion sample ({expected}) (got {})", values.len()),
        ));
    }
    for (i, &v) in values.iter().enumerate() {
        if !(v.is_finite() && (-1.0..=1.0).contains(&v)) {
            return Err(Error::signals(format!("{field}[{i}]"), format!("must be in [-1, 1] (got {v})")));
        }
    }
    Ok(())
}

impl Signals {
    /// Checks every rule of `signals.md`; the error names the first field at fault and its rule.
    pub fn validate(&self) -> Result<()> {
        if self.format != FORMAT {
            return Err(Error::signals("format", format!("must be exactly {FORMAT:?} (got {:?})", self.format)));
        }
        if self.inventory_id.is_empty() {
            return Err(Error::signals("inventory_id", "must have length >= 1"));
        }
        positive_finite("duration", self.duration)?;
        if self.duration > MAX_DURATION {
            return Err(Error::signals(
                "duration",
                format!("must be at most {MAX_DURATION} s (48 hours) (got {})", self.duration),
            ));
        }
        positive_finite("fps", self.fps)?;
        if self.fps > MAX_FPS {
            return Err(Error::signals("fps", format!("must be at most {MAX_FPS} frames/s (got {})", self.fps)));
        }
        positive_finite("step", self.step)?;
        for (field, pixels) in [("frame_width", self.frame_width), ("frame_height", self.frame_height)] {
            if !(1..=MAX_FRAME_SIZE).contains(&pixels) {
                return Err(Error::signals(field, format!("must be > 0 and at most {MAX_FRAME_SIZE} (got {pixels})")));
            }
        }
        let n = samples("step", self.duration, self.step)?;
        let t = &self.timelines;
        timeline("timelines.relevance", &t.relevance, n)?;
        timeline("timelines.nudity", &t.nudity, n)?;
        timeline("timelines.blood_gore", &t.blood_gore, n)?;
        timeline("timelines.profanity", &t.profanity, n)?;
        timeline("timelines.brightness", &t.brightness, n)?;
        for (name, values) in &t.clip_types {
            let field = format!("timelines.clip_types.{name}");
            match ClipType::parse(name) {
                Some(ClipType::Any) | None => {
                    return Err(Error::signals(
                        field,
                        "must be a clip type name of the interface other than ANY".to_string(),
                    ));
                }
                Some(_) => timeline(&field, values, n)?,
            }
        }
        self.validate_shots()?;
        sorted_disjoint("speech", &self.speech, self.duration)?;
        self.validate_characters()?;
        self.validate_tags()?;
        self.validate_scenes()?;
        if let Some(v) = &self.item_embedding {
            finite_vector("item_embedding", v, ITEM_EMBEDDING_DIM)?;
        }
        if let Some(e) = &self.emotions {
            self.validate_emotions(e)?;
        }
        if let Some(events) = &self.profanity {
            for (i, ev) in events.iter().enumerate() {
                in_duration(&format!("profanity[{i}]"), [ev.start, ev.end], self.duration)?;
                unit(|| format!("profanity[{i}].score"), ev.score)?;
            }
        }
        if let Some(v) = &self.vertical {
            self.validate_vertical(v)?;
        }
        if let Some(a) = &self.analysis {
            validate_analysis(a)?;
        }
        if let Some(t) = &self.text {
            self.validate_text(t)?;
        }
        if let Some(t) = &self.transcript {
            self.validate_transcript(t)?;
        }
        if let Some(v) = &self.visual {
            self.validate_visual(v)?;
        }
        if let Some(d) = &self.character_descriptors {
            if d.len() != self.characters.len() {
                return Err(Error::signals(
                    "character_descriptors",
                    format!("must hold one descriptor per character ({}), not {}", self.characters.len(), d.len()),
                ));
            }
            let dim = d.first().map_or(0, Vec::len);
            for (i, v) in d.iter().enumerate() {
                let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
                if v.len() != dim || !(1..=4096).contains(&v.len()) || v.iter().any(|x| !x.is_finite()) {
                    return Err(Error::signals(
                        format!("character_descriptors[{i}]"),
                        "must be 1 to 4096 finite numbers, as many as the first descriptor's",
                    ));
                }
                if (norm - 1.0).abs() > 0.01 {
                    return Err(Error::signals(format!("character_descriptors[{i}]"), "must have unit length"));
                }
            }
        }
        if let Some(f) = &self.audio_fingerprint {
            self.validate_fingerprint("audio_fingerprint", f.hop, f.hashes.len())?;
        }
        if let Some(f) = &self.picture_fingerprint {
            self.validate_fingerprint("picture_fingerprint", f.hop, f.hashes.len())?;
        }
        if let Some(o) = &self.objects {
            self.validate_objects(o)?;
        }
        if let Some(s) = &self.speakers {
            self.validate_speakers(s)?;
        }
        if let Some(c) = &self.scene_channels {
            self.validate_scene_channels(c)?;
        }
        Ok(())
    }

    /// A fingerprint's hop and length (`field`: its name): its hop no finer than [`MIN_HOP`], so
    /// that its length, bounded by the duration, is bounded.
    fn validate_fingerprint(&self, field: &str, hop: f64, hashes: usize) -> Result<()> {
        if !(hop.is_finite() && (MIN_HOP..=10.0).contains(&hop)) {
            return Err(Error::signals(
                format!("{field}.hop"),
                format!("must be a number of seconds in [{MIN_HOP}, 10] (got {hop})"),
            ));
        }
        let most = (self.duration / hop).floor() as usize + 1;
        if hashes > most {
            return Err(Error::signals(
                format!("{field}.hashes"),
                format!("must hold at most one hash per hop of the duration ({most}), not {hashes}"),
            ));
        }
        Ok(())
    }

    fn validate_transcript(&self, t: &Transcript) -> Result<()> {
        let lang = t.language.trim();
        if lang.is_empty() || lang.len() > 16 {
            return Err(Error::signals("transcript.language", "must be a language code of 1 to 16 characters"));
        }
        let mut previous = 0.0;
        for (i, seg) in t.segments.iter().enumerate() {
            let field = format!("transcript.segments[{i}]");
            in_duration(&field, [seg.start, seg.end], self.duration)?;
            if seg.start < previous {
                return Err(Error::signals(format!("{field}.start"), "must not precede the previous segment's start"));
            }
            previous = seg.start;
            if seg.text.trim().is_empty() {
                return Err(Error::signals(format!("{field}.text"), "must be non-empty"));
            }
            let mut word_previous = 0.0;
            for (j, w) in seg.words.iter().enumerate() {
                let wf = format!("{field}.words[{j}]");
                in_duration(&wf, [w.start, w.end], self.duration)?;
                if w.start < word_previous {
                    return Err(Error::signals(format!("{wf}.start"), "must not precede the previous word's start"));
                }
                word_previous = w.start;
                if w.word.trim().is_empty() {
                    return Err(Error::signals(format!("{wf}.word"), "must be non-empty"));
                }
                unit(|| format!("{wf}.probability"), w.probability)?;
            }
        }
        Ok(())
    }

    fn validate_visual(&self, v: &Visual) -> Result<()> {
        positive_finite("visual.interval", v.interval)?;
        let mut previous = f64::NEG_INFINITY;
        for (i, f) in v.frames.iter().enumerate() {
            let at = format!("visual.frames[{i}]");
            if !(f.time.is_finite() && f.time >= 0.0 && f.time <= self.duration) {
                return Err(Error::signals(format!("{at}.time"), "must be within [0, duration]"));
            }
            if f.time <= previous {
                return Err(Error::signals(format!("{at}.time"), "must be after the previous frame's"));
            }
            previous = f.time;
            if !(f.sharpness.is_finite() && f.sharpness >= 0.0) {
                return Err(Error::signals(format!("{at}.sharpness"), "must be finite and >= 0"));
            }
            for (j, l) in f.labels.iter().enumerate() {
                if l.name.trim().is_empty() {
                    return Err(Error::signals(format!("{at}.labels[{j}].name"), "must be non-empty"));
                }
                if !VISUAL_GROUPS.contains(&l.group.as_str()) {
                    return Err(Error::signals(
                        format!("{at}.labels[{j}].group"),
                        format!("must be one of {}", VISUAL_GROUPS.join(", ")),
                    ));
                }
                unit(|| format!("{at}.labels[{j}].score"), l.score)?;
            }
        }
        if !v.shot_types.is_empty() && v.shot_types.len() != self.shots.len() + 1 {
            return Err(Error::signals(
                "visual.shot_types",
                format!("must hold one entry per shot ({}), not {}", self.shots.len() + 1, v.shot_types.len()),
            ));
        }
        for (i, s) in v.shot_types.iter().enumerate() {
            in_duration(&format!("visual.shot_types[{i}]"), [s.start, s.end], self.duration)?;
            if !SHOT_KINDS.contains(&s.kind.as_str()) {
                return Err(Error::signals(
                    format!("visual.shot_types[{i}].kind"),
                    format!("must be one of {}", SHOT_KINDS.join(", ")),
                ));
            }
            if s.setting.as_deref().is_some_and(|x| x != "indoor" && x != "outdoor") {
                return Err(Error::signals(format!("visual.shot_types[{i}].setting"), "must be indoor or outdoor"));
            }
        }
        if let Some(features) = &v.scene_features {
            if features.len() != self.scenes.len() {
                return Err(Error::signals(
                    "visual.scene_features",
                    format!("must hold one feature per scene ({}), not {}", self.scenes.len(), features.len()),
                ));
            }
            for (i, f) in features.iter().enumerate() {
                unit_vector(&format!("visual.scene_features[{i}]"), f)?;
            }
        }
        if let Some(f) = &v.item_feature {
            unit_vector("visual.item_feature", f)?;
        }
        for (i, t) in v.tags.iter().enumerate() {
            in_duration(&format!("visual.tags[{i}]"), [t.start, t.end], self.duration)?;
            if t.name.trim().is_empty() {
                return Err(Error::signals(format!("visual.tags[{i}].name"), "must be non-empty"));
            }
            unit(|| format!("visual.tags[{i}].score"), t.score)?;
        }
        let mut previous = f64::NEG_INFINITY;
        for (i, c) in v.cues.iter().enumerate() {
            in_duration(&format!("visual.cues[{i}]"), [c.start, c.end], self.duration)?;
            if !["black", "color_bars", "scroll"].contains(&c.kind.as_str()) {
                return Err(Error::signals(format!("visual.cues[{i}].kind"), "must be black, color_bars or scroll"));
            }
            if c.start < previous {
                return Err(Error::signals(format!("visual.cues[{i}].start"), "must not precede the previous cue's"));
            }
            previous = c.start;
        }
        Ok(())
    }

    fn validate_text(&self, t: &OnScreenText) -> Result<()> {
        positive_finite("text.step", t.step)?;
        let limit = samples("text.step", self.duration, t.step)?;
        if t.density.len() > limit {
            return Err(Error::signals(
                "text.density",
                format!("must have at most ceil(duration / text.step) = {limit} samples (got {})", t.density.len()),
            ));
        }
        for (i, &d) in t.density.iter().enumerate() {
            unit(|| format!("text.density[{i}]"), f64::from(d))?;
        }
        let mut previous = 0.0;
        for (i, line) in t.lines.iter().enumerate() {
            in_duration(&format!("text.lines[{i}]"), [line.start, line.end], self.duration)?;
            if line.start < previous {
                return Err(Error::signals(
                    format!("text.lines[{i}].start"),
                    "must not precede the previous line's start",
                ));
            }
            previous = line.start;
            if line.text.trim().is_empty() {
                return Err(Error::signals(format!("text.lines[{i}].text"), "must be non-empty"));
            }
            unit(|| format!("text.lines[{i}].score"), line.score)?;
        }
        if let Some(c) = t.credits_start
            && !(c.is_finite() && (0.0..=self.duration).contains(&c))
        {
            return Err(Error::signals("text.credits_start", format!("must be within [0, duration] (got {c})")));
        }
        Ok(())
    }

    fn validate_shots(&self) -> Result<()> {
        for (i, &t) in self.shots.iter().enumerate() {
            if !(t.is_finite() && 0.0 < t && t < self.duration) {
                return Err(Error::signals(
                    format!("shots[{i}]"),
                    format!("must lie in (0, duration = {}) (got {t})", self.duration),
                ));
            }
            if i > 0 && t <= self.shots[i - 1] {
                return Err(Error::signals(
                    format!("shots[{i}]"),
                    format!("must be strictly increasing (got {t} after {})", self.shots[i - 1]),
                ));
            }
        }
        Ok(())
    }

    fn validate_characters(&self) -> Result<()> {
        let mut ranks = BTreeSet::new();
        for (i, c) in self.characters.iter().enumerate() {
            if !ranks.insert(c.rank) {
                return Err(Error::signals(
                    format!("characters[{i}].rank"),
                    format!("must be unique ({} repeats)", c.rank),
                ));
            }
            sorted_disjoint(&format!("characters[{i}].spans"), &c.spans, self.duration)?;
        }
        Ok(())
    }

    fn validate_tags(&self) -> Result<()> {
        for (i, tag) in self.tags.iter().enumerate() {
            if tag.name.is_empty() {
                return Err(Error::signals(format!("tags[{i}].name"), "must be non-empty"));
            }
            in_duration(&format!("tags[{i}]"), [tag.start, tag.end], self.duration)?;
            unit(|| format!("tags[{i}].score"), tag.score)?;
        }
        Ok(())
    }

    fn validate_scenes(&self) -> Result<()> {
        let scenes = &self.scenes;
        for (i, s) in scenes.iter().enumerate() {
            in_duration(&format!("scenes[{i}]"), [s.start, s.end], self.duration)?;
            let expected_start = if i == 0 { 0.0 } else { scenes[i - 1].end };
            if (s.start - expected_start).abs() > TIME_SLACK {
                let rule = if i == 0 {
                    format!("must start at 0 so that scenes cover the video (got {})", s.start)
                } else {
                    format!("must start where the previous scene ends ({expected_start}) (got {})", s.start)
                };
                return Err(Error::signals(format!("scenes[{i}].start"), rule));
            }
        }
        if let Some(last) = scenes.last() {
            if (last.end - self.duration).abs() > TIME_SLACK {
                return Err(Error::signals(
                    format!("scenes[{}].end", scenes.len() - 1),
                    format!(
                        "must equal duration ({}) so that scenes cover the video (got {})",
                        self.duration, last.end
                    ),
                ));
            }
        }
        if let Some(embeddings) = &self.scene_embeddings {
            if embeddings.len() != scenes.len() {
                return Err(Error::signals(
                    "scene_embeddings",
                    format!("must have one vector per scene ({}) (got {})", scenes.len(), embeddings.len()),
                ));
            }
            for (i, v) in embeddings.iter().enumerate() {
                finite_vector(&format!("scene_embeddings[{i}]"), v, SCENE_EMBEDDING_DIM)?;
            }
        }
        Ok(())
    }

    fn validate_emotions(&self, e: &Emotions) -> Result<()> {
        positive_finite("emotions.step", e.step)?;
        let mut names = BTreeSet::new();
        for (i, name) in e.names.iter().enumerate() {
            if name.is_empty() {
                return Err(Error::signals(format!("emotions.names[{i}]"), "must be non-empty"));
            }
            if !names.insert(name) {
                return Err(Error::signals(
                    format!("emotions.names[{i}]"),
                    format!("must be unique ({name:?} repeats)"),
                ));
            }
        }
        let limit = samples("emotions.step", self.duration, e.step)?;
        let m = e.probs.len();
        if m > limit {
            return Err(Error::signals(
                "emotions.probs",
                format!("must have at most ceil(duration / emotions.step) = {limit} samples (got {m})"),
            ));
        }
        for (i, row) in e.probs.iter().enumerate() {
            if row.len() != e.names.len() {
                return Err(Error::signals(
                    format!("emotions.probs[{i}]"),
                    format!("must have one probability per name ({}) (got {})", e.names.len(), row.len()),
                ));
            }
            for (j, &p) in row.iter().enumerate() {
                unit(|| format!("emotions.probs[{i}][{j}]"), f64::from(p))?;
            }
        }
        signed_unit("emotions.valence", &e.valence, m)?;
        signed_unit("emotions.arousal", &e.arousal, m)?;
        signed_unit("emotions.dominance", &e.dominance, m)?;
        Ok(())
    }

    fn validate_vertical(&self, v: &Vertical) -> Result<()> {
        positive_finite("vertical.step", v.step)?;
        let limit = samples("vertical.step", self.duration, v.step)?;
        if v.x_center.is_empty() || v.x_center.len() > limit {
            return Err(Error::signals(
                "vertical.x_center",
                format!(
                    "must have between 1 and ceil(duration / vertical.step) = {limit} samples (got {})",
                    v.x_center.len()
                ),
            ));
        }
        for (i, &x) in v.x_center.iter().enumerate() {
            unit(|| format!("vertical.x_center[{i}]"), f64::from(x))?;
        }
        let [top, bottom] = v.blackbars;
        if u64::from(top) + u64::from(bottom) >= u64::from(self.frame_height) {
            return Err(Error::signals(
                "vertical.blackbars",
                format!(
                    "must leave picture rows: top + bottom < frame_height ({}) (got [{top}, {bottom}])",
                    self.frame_height
                ),
            ));
        }
        Ok(())
    }
}

fn validate_analysis(a: &Analysis) -> Result<()> {
    if a.analyzer.is_empty() {
        return Err(Error::signals("analysis.analyzer", "must be non-empty"));
    }
    let mut seen = BTreeSet::new();
    for (list, names) in [("measured", &a.measured), ("absent", &a.absent)] {
        for (i, name) in names.iter().enumerate() {
            let field = format!("analysis.{list}[{i}]");
            if !ANALYSIS_CHANNELS.contains(&name.as_str()) {
                return Err(Error::signals(
                    field,
                    format!("must be one of the channel names {ANALYSIS_CHANNELS:?} (got {name:?})"),
                ));
            }
            if !seen.insert(name.as_str()) {
                return Err(Error::signals(
                    field,
                    format!("must name each channel once across measured and absent ({name:?} repeats)"),
                ));
            }
        }
    }
    for (map, list, names) in [("models", "measured", &a.measured), ("reasons", "absent", &a.absent)] {
        let entries = if map == "models" { &a.models } else { &a.reasons };
        for (channel, text) in entries {
            let field = format!("analysis.{map}.{channel}");
            if !names.contains(channel) {
                return Err(Error::signals(field, format!("must name a channel of analysis.{list}")));
            }
            if text.trim().is_empty() {
                return Err(Error::signals(field, "must be non-empty"));
            }
        }
    }
    Ok(())
}

/// Largest timeline the core accepts: 24 hours at 120 samples per second.
pub const MAX_SAMPLES: usize = 24 * 3600 * 120;

/// Longest video the core accepts, seconds: 48 hours, longer than any title or recording a
/// catalog holds. Every size derived from the duration (timelines, fingerprints, a page's time
/// axis) is bounded through it.
pub const MAX_DURATION: f64 = 48.0 * 3600.0;

/// Highest frame rate the core accepts, frames per second (high-speed footage is recorded faster,
/// but delivered at a playback rate far below this).
pub const MAX_FPS: f64 = 1000.0;

/// Largest frame width or height the core accepts, pixels (16K video).
pub const MAX_FRAME_SIZE: u32 = 16_384;

/// Finest fingerprint hop the core accepts, seconds: twice as fine as kino-media's 0.1 s. With
/// [`MAX_DURATION`] it bounds a fingerprint to 3,456,001 hashes.
pub const MIN_HOP: f64 = 0.05;

/// The groups of [`VisualLabel::group`].
pub const VISUAL_GROUPS: &[&str] = &["animal", "vehicle", "food", "place", "clothing", "object"];

/// The kinds of [`ShotType::kind`].
pub const SHOT_KINDS: &[&str] = &["extreme_close_up", "close_up", "medium", "wide", "extreme_wide", "no_people"];

/// A vector of 1 to 4096 finite numbers with unit length.
pub(super) fn unit_vector(field: &str, v: &[f32]) -> Result<()> {
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if !(1..=4096).contains(&v.len()) || v.iter().any(|x| !x.is_finite()) || (norm - 1.0).abs() > 0.01 {
        return Err(Error::signals(field, "must be 1 to 4096 finite numbers of unit length"));
    }
    Ok(())
}
