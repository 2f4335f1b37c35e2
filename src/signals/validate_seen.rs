//! The rules of the people, objects and voices channels (`objects`, `speakers`; signals.md),
//! checked by [`Signals::validate`].

use super::model::{Objects, SceneChannels, Signals, Speakers};
use super::validate::{in_duration, positive_finite, unit, unit_vector};
use crate::error::{Error, Result};

impl Signals {
    /// Each channel list empty (not measured) or one entry per scene; every vector finite, of
    /// unit length and of one length, at most the scene space's.
    pub(super) fn validate_scene_channels(&self, c: &SceneChannels) -> Result<()> {
        let mut dim = None;
        for (name, list) in SceneChannels::NAMES.iter().zip(c.lists()) {
            if !list.is_empty() && list.len() != self.scenes.len() {
                return Err(Error::signals(
                    format!("scene_channels.{name}"),
                    format!("must be empty or hold one entry per scene ({}), not {}", self.scenes.len(), list.len()),
                ));
            }
            for (i, v) in list.iter().enumerate() {
                let Some(v) = v else { continue };
                let at = format!("scene_channels.{name}[{i}]");
                unit_vector(&at, v)?;
                if v.len() > super::SCENE_EMBEDDING_DIM {
                    return Err(Error::signals(
                        at,
                        format!("must have at most {} numbers (the scene space's)", super::SCENE_EMBEDDING_DIM),
                    ));
                }
                match dim {
                    None => dim = Some(v.len()),
                    Some(d) if d != v.len() => {
                        return Err(Error::signals(
                            at,
                            format!("must have the length of the other channel vectors ({d})"),
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }

    pub(super) fn validate_objects(&self, o: &Objects) -> Result<()> {
        positive_finite("objects.interval", o.interval)?;
        let mut previous = f64::NEG_INFINITY;
        for (i, f) in o.frames.iter().enumerate() {
            let at = format!("objects.frames[{i}]");
            if !(f.time.is_finite() && f.time >= 0.0 && f.time <= self.duration) {
                return Err(Error::signals(format!("{at}.time"), "must be within [0, duration]"));
            }
            if f.time <= previous {
                return Err(Error::signals(format!("{at}.time"), "must be after the previous frame's"));
            }
            previous = f.time;
            for (j, b) in f.boxes.iter().enumerate() {
                let at = format!("{at}.boxes[{j}]");
                if b.class.trim().is_empty() {
                    return Err(Error::signals(format!("{at}.class"), "must be non-empty"));
                }
                unit(|| format!("{at}.confidence"), b.confidence)?;
                unit(|| format!("{at}.x"), b.x)?;
                unit(|| format!("{at}.y"), b.y)?;
                for (name, side, origin) in [("w", b.w, b.x), ("h", b.h, b.y)] {
                    if !(side.is_finite() && side > 0.0 && origin + side <= 1.0 + 1e-6) {
                        return Err(Error::signals(
                            format!("{at}.{name}"),
                            format!("must be > 0 and keep the box inside the frame (got {side})"),
                        ));
                    }
                }
                if let Some(t) = b.track {
                    match o.tracks.get(t as usize) {
                        None => {
                            return Err(Error::signals(
                                format!("{at}.track"),
                                format!("must be an index in objects.tracks (0 to {})", o.tracks.len() as i64 - 1),
                            ));
                        }
                        Some(track) if track.class != b.class => {
                            return Err(Error::signals(format!("{at}.track"), "must name a track of the box's class"));
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        let mut previous = f64::NEG_INFINITY;
        for (i, t) in o.tracks.iter().enumerate() {
            let at = format!("objects.tracks[{i}]");
            if t.class.trim().is_empty() {
                return Err(Error::signals(format!("{at}.class"), "must be non-empty"));
            }
            if !(t.start.is_finite()
                && t.end.is_finite()
                && 0.0 <= t.start
                && t.start <= t.end
                && t.end <= self.duration)
            {
                return Err(Error::signals(
                    format!("{at}.start"),
                    format!("must satisfy 0 <= start <= end <= duration (got [{}, {}])", t.start, t.end),
                ));
            }
            if t.start < previous {
                return Err(Error::signals(format!("{at}.start"), "must not precede the previous track's"));
            }
            previous = t.start;
            if t.frames == 0 {
                return Err(Error::signals(format!("{at}.frames"), "must be at least 1"));
            }
            unit(|| format!("{at}.confidence"), t.confidence)?;
            unit(|| format!("{at}.largest"), t.largest)?;
        }
        Ok(())
    }

    pub(super) fn validate_speakers(&self, s: &Speakers) -> Result<()> {
        let dim = s.voices.first().map_or(0, Vec::len);
        for (i, v) in s.voices.iter().enumerate() {
            unit_vector(&format!("speakers.voices[{i}]"), v)?;
            if v.len() != dim {
                return Err(Error::signals(
                    format!("speakers.voices[{i}]"),
                    format!("must have the first voice's length ({dim}), not {}", v.len()),
                ));
            }
        }
        if !s.characters.is_empty() && s.characters.len() != s.voices.len() {
            return Err(Error::signals(
                "speakers.characters",
                format!("must be empty or hold one entry per voice ({}), not {}", s.voices.len(), s.characters.len()),
            ));
        }
        for (i, c) in s.characters.iter().enumerate() {
            if c.is_some_and(|c| c as usize >= self.characters.len()) {
                return Err(Error::signals(
                    format!("speakers.characters[{i}]"),
                    format!("must be an index in characters ({} of them) or null", self.characters.len()),
                ));
            }
        }
        let mut previous = f64::NEG_INFINITY;
        for (i, t) in s.turns.iter().enumerate() {
            let at = format!("speakers.turns[{i}]");
            in_duration(&at, [t.start, t.end], self.duration)?;
            if t.start < previous {
                return Err(Error::signals(format!("{at}.start"), "must not precede the previous turn's"));
            }
            previous = t.start;
            if t.speaker as usize >= s.voices.len() {
                return Err(Error::signals(
                    format!("{at}.speaker"),
                    format!("must be an index in speakers.voices ({} of them)", s.voices.len()),
                ));
            }
            if !t.embedding.is_empty() {
                unit_vector(&format!("{at}.embedding"), &t.embedding)?;
                if t.embedding.len() != dim {
                    return Err(Error::signals(
                        format!("{at}.embedding"),
                        format!("must have the voices' length ({dim}), not {}", t.embedding.len()),
                    ));
                }
            }
        }
        Ok(())
    }
}
