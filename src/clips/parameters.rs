//! What each previews parameter accepts, as data: its meaning, type, range, default and version
//! gate. The parser's own tables (ranges, bound pairs, defaults) are read here, so a description
//! cannot disagree with what [`ClipQuery::from_pairs`] accepts; the service's OpenAPI document is
//! generated from [`ClipQuery::parameter_specs`].

use serde_json::{Value, json};

use super::ClipQuery;
use super::query::{BOUND_PAIRS, FLOAT_FIELDS, Range};
use super::shots::ShotKind;
use super::types::{AspectRatio, CharacterPreference, ClipType, PreviewsVersion};

/// The type and accepted values of one previews parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum ParameterKind {
    /// A version code: an integer from 1 to [`PreviewsVersion::NEWEST`], optionally `-vertical`.
    Version {
        /// A regular expression every accepted code matches.
        pattern: &'static str,
    },
    /// One of the listed names, exactly.
    Enum(Vec<&'static str>),
    /// Comma-separated integers `>= 0`.
    IntegerList,
    /// Comma-separated names from the list (spaces allowed, repeats merged); empty for none.
    EnumList(Vec<&'static str>),
    /// An integer `>= minimum`.
    Integer {
        /// The smallest accepted value.
        minimum: i64,
    },
    /// A finite number within the bounds (inclusive).
    Number {
        /// The smallest accepted value.
        minimum: f64,
        /// The largest accepted value, if any.
        maximum: Option<f64>,
    },
    /// Text with at least one non-blank character.
    Text,
    /// A boolean (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, `t`/`f`, `y`/`n`).
    Boolean,
}

/// One previews parameter, as documentation and generated interfaces show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParameterSpec {
    /// The query-string name.
    pub name: &'static str,
    /// What the parameter does, how it combines with others, and its version gate.
    pub description: String,
    /// Type and range.
    pub kind: ParameterKind,
    /// The value in force when the parameter is absent (`None`: absent means "not used").
    pub default: Option<Value>,
    /// The first previews version that accepts a value other than the default.
    pub since_version: Option<u32>,
    /// Whether the parameter is deprecated.
    pub deprecated: bool,
}

/// The meaning of each parameter, in [`ClipQuery::PARAMETERS`] order.
const MEANINGS: [(&str, &str); 37] = [
    ("version", "Previews version code; the newest when absent."),
    (
        "character_preference",
        "Which characters a clip must show: `any` at least one character, `any_of` at least one of \
         `character_list`, `all_of` every one of `character_list`, `None` no requirement, `avoid` no character.",
    ),
    (
        "character_list",
        "Comma-separated character ranks (integers >= 0; spaces allowed, repeats merged). Required and \
         non-empty with `any_of` and `all_of`, empty otherwise.",
    ),
    ("number_of_top_candidates", "The most clips returned; fewer when the criteria are strict."),
    (
        "clip_type",
        "Rank by this clip type's timeline (`ANY`: by relevance). Not combined with `search_query` unless `ANY`.",
    ),
    ("min_nudity", "Lower bound on the clip's maximum nudity; at most `max_nudity`."),
    ("max_nudity", "Upper bound on the clip's maximum nudity."),
    ("min_blood_gore", "Lower bound on the clip's maximum blood/gore; at most `max_blood_gore`."),
    ("max_blood_gore", "Upper bound on the clip's maximum blood/gore."),
    ("min_profanity", "Lower bound on the clip's maximum spoken profanity; at most `max_profanity`."),
    ("max_profanity", "Upper bound on the clip's maximum spoken profanity."),
    ("min_brightness", "Lower bound on the clip's mean brightness; at most `max_brightness`."),
    ("max_brightness", "Upper bound on the clip's mean brightness."),
    (
        "shot_type",
        "Comma-separated shot types (`close_up,medium`): only clips whose own `shot_type`, the shot type \
         covering the most of the clip, is listed. Empty or absent: any. Needs the item's shot types \
         (`visual.shot_types`); refused for an item without them.",
    ),
    ("clip_length", "Target clip length in seconds (refinement may change it); 0 returns no clips."),
    ("skip_start", "Percent of the duration no clip may use at the start."),
    ("skip_end", "Percent of the duration no clip may use at the end."),
    ("start_bwd_snap_search", "Seconds the start may move earlier to a shot boundary (lengthens the clip)."),
    ("start_fwd_snap_search", "Seconds the start may move later to a shot boundary (shortens the clip)."),
    ("end_bwd_snap_search", "Seconds the end may move earlier to a shot boundary (shortens the clip)."),
    ("end_fwd_snap_search", "Seconds the end may move later to a shot boundary (lengthens the clip)."),
    ("end_bwd_speech_search", "Seconds the end may move earlier to leave speech."),
    ("end_fwd_speech_search", "Seconds the end may move later to leave speech."),
    ("end_speech_stop_silence_before", "Seconds of silence the end needs before it."),
    ("end_speech_stop_silence_after", "Seconds of silence the end needs after it."),
    ("start_bwd_speech_search", "Seconds the start may move earlier to leave speech."),
    ("start_fwd_speech_search", "Seconds the start may move later to leave speech."),
    ("start_speech_stop_silence_before", "Seconds of silence the start needs before it."),
    ("start_speech_stop_silence_after", "Seconds of silence the start needs after it."),
    ("minimum_clip_separation", "Seconds between any two returned clips (before refinement)."),
    (
        "search_query",
        "Text describing the wanted content; clips are ranked by it. Needs the item's scene embeddings; \
         not combined with a `clip_type` other than `ANY`.",
    ),
    ("add_keyword_tags", "Whether to fill each clip's `keywords` and `keyword`."),
    ("generate", "Deprecated form of `trigger_generation`; not together with it."),
    (
        "trigger_generation",
        "Render the clips and thumbnails in the background; the answer carries `gen_id` (poll the \
         generation status). The catalog must have media generation switched on (off by default).",
    ),
    (
        "aspect_ratio",
        "`None` keeps the source's frame; `9:16` adds a crop window per clip and needs the item's \
         vertical track.",
    ),
    (
        "custom_start_timestamp",
        "Start in seconds of one exact range to return instead of searching; with `custom_stop_timestamp`, \
         before it.",
    ),
    (
        "custom_stop_timestamp",
        "End in seconds of one exact range to return instead of searching; with `custom_start_timestamp`, \
         at most the duration.",
    ),
];

impl ClipQuery {
    /// Every parameter of the clip search with its meaning, type, range, default and version gate,
    /// in [`ClipQuery::PARAMETERS`] order.
    pub fn parameter_specs() -> Vec<ParameterSpec> {
        let mut defaults = ClipQuery::default();
        MEANINGS
            .iter()
            .map(|&(name, meaning)| {
                let (kind, default) = kind_and_default(name, &mut defaults);
                let since_version = since_version(name);
                let mut description = meaning.to_string();
                match since_version {
                    Some(v) if name.starts_with("custom_") => {
                        description.push_str(&format!(" Needs version {v} or later."));
                    }
                    Some(v) => {
                        description.push_str(&format!(" Values other than the default need version {v} or later."))
                    }
                    None => {}
                }
                if name == "aspect_ratio" {
                    description
                        .push_str(" `9:16` only with a version code ending in `-vertical` (such as `27-vertical`).");
                }
                ParameterSpec { name, description, kind, default, since_version, deprecated: name == "generate" }
            })
            .collect()
    }
}

fn kind_and_default(name: &'static str, defaults: &mut ClipQuery) -> (ParameterKind, Option<Value>) {
    if let Some((_, range, field)) = FLOAT_FIELDS.iter().find(|(n, ..)| *n == name) {
        let (minimum, maximum) = range.bounds();
        return (ParameterKind::Number { minimum, maximum }, Some(json!(*field(defaults))));
    }
    let names = |all: &[&'static str]| ParameterKind::Enum(all.to_vec());
    match name {
        "version" => (
            ParameterKind::Version { pattern: "^[0-9]+(-vertical)?$" },
            Some(json!(PreviewsVersion::NEWEST.to_string())),
        ),
        "character_preference" => (
            names(&CharacterPreference::ALL.map(CharacterPreference::as_str)),
            Some(json!(defaults.character_preference.as_str())),
        ),
        "character_list" => (ParameterKind::IntegerList, None),
        "shot_type" => (ParameterKind::EnumList(ShotKind::ALL.map(ShotKind::as_str).to_vec()), None),
        "number_of_top_candidates" => {
            (ParameterKind::Integer { minimum: 1 }, Some(json!(defaults.number_of_top_candidates)))
        }
        "clip_type" => (names(&ClipType::ALL.map(ClipType::as_str)), Some(json!(defaults.clip_type.as_str()))),
        "search_query" => (ParameterKind::Text, None),
        "add_keyword_tags" => (ParameterKind::Boolean, Some(json!(defaults.add_keyword_tags))),
        "generate" => (ParameterKind::Boolean, Some(json!(defaults.generate))),
        "trigger_generation" => (ParameterKind::Boolean, Some(json!(defaults.trigger_generation))),
        "aspect_ratio" => {
            (names(&AspectRatio::ALL.map(AspectRatio::as_str)), Some(json!(defaults.aspect_ratio.as_str())))
        }
        "custom_start_timestamp" | "custom_stop_timestamp" => {
            let (minimum, maximum) = Range::NonNegative.bounds();
            (ParameterKind::Number { minimum, maximum }, None)
        }
        other => unreachable!("every previews parameter has a kind ({other} has none)"),
    }
}

fn since_version(name: &str) -> Option<u32> {
    if name.starts_with("custom_") {
        return Some(PreviewsVersion::CUSTOM_RANGE);
    }
    BOUND_PAIRS.iter().find(|(lo, hi, since)| (*lo == name || *hi == name) && *since > 1).map(|(.., since)| *since)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_is_described_in_order() {
        let specs = ClipQuery::parameter_specs();
        assert!(specs.iter().map(|s| s.name).eq(ClipQuery::PARAMETERS.iter().copied()));
    }

    #[test]
    fn the_described_defaults_are_the_parsers_defaults() {
        let pairs: Vec<(String, String)> = ClipQuery::parameter_specs()
            .into_iter()
            .filter_map(|s| {
                let text = match s.default? {
                    Value::String(t) => t,
                    other => other.to_string(),
                };
                Some((s.name.to_string(), text))
            })
            .collect();
        let parsed = ClipQuery::from_pairs(pairs).unwrap();
        assert_eq!(parsed, ClipQuery { version: Some(PreviewsVersion::NEWEST), ..ClipQuery::default() });
    }

    #[test]
    fn the_described_bounds_and_version_gates_are_the_parsers() {
        for spec in ClipQuery::parameter_specs() {
            if let ParameterKind::Number { minimum, maximum } = spec.kind {
                let below = (minimum - 0.5).to_string();
                assert!(ClipQuery::from_pairs([(spec.name, below.as_str())]).is_err(), "{}", spec.name);
                if let Some(max) = maximum {
                    let above = (max + 0.5).to_string();
                    assert!(ClipQuery::from_pairs([(spec.name, above.as_str())]).is_err(), "{}", spec.name);
                }
            }
        }
        let gated: Vec<_> =
            ClipQuery::parameter_specs().into_iter().filter_map(|s| Some((s.name, s.since_version?))).collect();
        assert_eq!(gated.len(), 8, "{gated:?}");
        for (name, since) in gated {
            let mut pairs = vec![(name, if name.starts_with("min_") { "0.1" } else { "0.9" })];
            if name.starts_with("custom_") {
                pairs = vec![("custom_start_timestamp", "1"), ("custom_stop_timestamp", "2")];
            }
            let (before, at) = ((since - 1).to_string(), since.to_string());
            let with = |v: &str| {
                pairs
                    .iter()
                    .map(|&(k, x)| (k.to_string(), x.to_string()))
                    .chain([("version".to_string(), v.to_string())])
                    .collect::<Vec<_>>()
            };
            assert!(ClipQuery::from_pairs(with(&before)).is_err(), "{name} before {since}");
            assert!(ClipQuery::from_pairs(with(&at)).is_ok(), "{name} at {since}");
        }
    }
}
