//! The texts of a scene's channels, each embedded on its own (`Signals::scene_channels`): what is
//! seen, said, written on screen and heard. A text query is scored against each at query time
//! and the scores fused (`kino::vectors::fusion`), so that a query about one channel ("someone
//! says the train leaves at noon", "a title that reads Big Buck Bunny") meets that channel's
//! words undiluted by the rest of the scene's description.

use super::{Part, SceneFacts, capitalise, has_word, look, loudness_phrase, people_phrase, speech_phrase};

/// The text of each channel of one scene; `None` where the channel measured nothing in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChannelTexts {
    /// Light, pace, people and framing, the picture's labels and the objects found.
    pub seen: Option<String>,
    /// The transcript, and how many voices speak.
    pub said: Option<String>,
    /// The words read on screen, and the part of the title (opening titles, end credits).
    pub written: Option<String>,
    /// Speech, loudness, the sound events and the music's mood.
    pub heard: Option<String>,
}

impl ChannelTexts {
    /// The four texts in the order of `kino::signals::SceneChannels::NAMES`.
    pub fn into_array(self) -> [Option<String>; 4] {
        [self.seen, self.said, self.written, self.heard]
    }
}

/// The channel texts of a scene, in the words of [`super::describe_scene`] (a query lands near
/// a channel as it lands near the description), each channel on its own.
pub fn channel_texts(f: &SceneFacts) -> ChannelTexts {
    let mut seen = format!("{}.", capitalise(&look(f)));
    if let Some(people) = people_phrase(f.people, f.shot.as_deref()) {
        seen.push_str(&format!(" {people}."));
    }
    if !f.seen.is_empty() {
        seen.push_str(&format!(" Seen: {}.", f.seen.join(", ")));
    }

    let said = (!f.said.is_empty()).then(|| {
        let mut said = format!("Someone says: \"{}\"", f.said.join(" "));
        match f.voices {
            Some(2) => said.push_str(" Two people talk, a conversation."),
            Some(n) if n >= 3 => said.push_str(" Several people talk, a group conversation."),
            _ => {}
        }
        said
    });

    let worded: Vec<String> = f.text.iter().filter(|t| has_word(t)).map(|t| format!("\"{t}\"")).collect();
    let part = match f.part {
        Some(Part::OpeningTitles) => Some("The opening titles."),
        Some(Part::EndCredits) => Some("The end credits."),
        Some(Part::AfterCredits) => Some("A scene after the end credits."),
        Some(Part::MidCredits) => Some("A scene during the end credits."),
        None => None,
    };
    let written = match (part, worded.is_empty()) {
        (None, true) => None,
        (Some(part), true) => Some(part.to_string()),
        (None, false) => Some(format!("On screen: {}.", worded.join(", "))),
        (Some(part), false) => Some(format!("{part} On screen: {}.", worded.join(", "))),
    };

    let heard = if f.has_audio {
        let mut parts: Vec<String> = Vec::new();
        // On its own, without the description's "a scene ... with": "Some dialogue, ...".
        parts.extend(speech_phrase(f.speech).map(|s| capitalise(s.strip_prefix("with ").unwrap_or(s))));
        parts.extend(loudness_phrase(f.loudness_db).map(capitalise));
        if !f.sounds.is_empty() {
            let names: Vec<&str> = f.sounds.iter().map(|(n, _)| n.as_str()).collect();
            parts.push(format!("Sounds: {}", names.join(", ")));
        }
        if let Some(mood) = &f.mood {
            parts.push(format!("The music is {mood}"));
        }
        (!parts.is_empty()).then(|| format!("{}.", parts.join(". ")))
    } else {
        Some("Silent, no soundtrack.".to_string())
    };
    ChannelTexts { seen: Some(seen), said, written, heard }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_channel_holds_only_its_own_words() {
        let f = SceneFacts {
            brightness: 0.1,
            cuts_per_minute: 40.0,
            speech: 0.6,
            loudness_db: -10.0,
            has_audio: true,
            sounds: vec![("Dog".into(), 0.8)],
            mood: Some("tense".into()),
            text: vec!["HARBOR CITY".into(), "12:04".into()],
            said: vec!["the train leaves at noon".into()],
            seen: vec!["car".into()],
            people: Some(2),
            shot: Some("medium".into()),
            voices: Some(2),
            part: Some(Part::OpeningTitles),
        };
        let c = channel_texts(&f);
        assert_eq!(
            c.seen.as_deref(),
            Some(
                "A very dark scene, in near darkness, fast-paced, with rapid cuts. A medium shot of two people. Seen: car."
            )
        );
        assert_eq!(
            c.said.as_deref(),
            Some("Someone says: \"the train leaves at noon\" Two people talk, a conversation.")
        );
        assert_eq!(c.written.as_deref(), Some("The opening titles. On screen: \"HARBOR CITY\"."));
        assert_eq!(
            c.heard.as_deref(),
            Some("Full of dialogue, someone speaking. Loud. Sounds: Dog. The music is tense.")
        );
    }

    #[test]
    fn a_channel_that_measured_nothing_has_no_text() {
        let f = SceneFacts {
            brightness: 0.5,
            cuts_per_minute: 5.0,
            has_audio: true,
            loudness_db: -25.0,
            ..Default::default()
        };
        let c = channel_texts(&f);
        assert_eq!(c.seen.as_deref(), Some("A scene, steadily paced."));
        assert_eq!((c.said, c.written, c.heard), (None, None, None));
        let some = channel_texts(&SceneFacts { speech: 0.3, ..f.clone() });
        assert_eq!(some.heard.as_deref(), Some("Some dialogue, someone speaking."));
        let silent = channel_texts(&SceneFacts { has_audio: false, ..f });
        assert_eq!(silent.heard.as_deref(), Some("Silent, no soundtrack."));
    }
}
