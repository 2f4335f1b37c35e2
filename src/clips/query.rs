//! `ClipQuery`: every parameter of the previews clip search, its defaults, and the one parser
//! (string pairs in, typed query or pydantic-style issues out) that the service and Python share;
//! and the clip types a version code offers, which parses the code the same way.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::json;

use super::shots::ShotKind;
use super::types::{AspectRatio, CharacterPreference, ClipType, PreviewsVersion};
use crate::error::{Error, IssueKind, QueryIssue, Result};

/// Every parameter of `GET /results/jitpreviews/v2/{inventory_id}` with the interface's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipQuery {
    /// Previews version code; `None` means [`PreviewsVersion::NEWEST`].
    pub version: Option<PreviewsVersion>,
    /// Which characters a clip must show.
    pub character_preference: CharacterPreference,
    /// Character ranks for `any_of` / `all_of`.
    pub character_list: Vec<u32>,
    /// How many clips to return at most (>= 1).
    pub number_of_top_candidates: usize,
    /// Rank by this clip type's timeline (`ANY`: by relevance).
    pub clip_type: ClipType,
    /// Lower bound on the clip's maximum nudity.
    pub min_nudity: f64,
    /// Upper bound on the clip's maximum nudity.
    pub max_nudity: f64,
    /// Lower bound on the clip's maximum blood/gore.
    pub min_blood_gore: f64,
    /// Upper bound on the clip's maximum blood/gore.
    pub max_blood_gore: f64,
    /// Lower bound on the clip's maximum spoken profanity.
    pub min_profanity: f64,
    /// Upper bound on the clip's maximum spoken profanity.
    pub max_profanity: f64,
    /// Lower bound on the clip's mean brightness.
    pub min_brightness: f64,
    /// Upper bound on the clip's mean brightness.
    pub max_brightness: f64,
    /// The shot types a clip's dominant shot type must be one of, in [`ShotKind::ALL`] order
    /// without repeats; empty: any.
    pub shot_type: Vec<ShotKind>,
    /// Target clip length in seconds.
    pub clip_length: f64,
    /// Percent of the duration excluded at the start.
    pub skip_start: f64,
    /// Percent of the duration excluded at the end.
    pub skip_end: f64,
    /// Seconds the start may move earlier to a shot boundary.
    pub start_bwd_snap_search: f64,
    /// Seconds the start may move later to a shot boundary.
    pub start_fwd_snap_search: f64,
    /// Seconds the end may move earlier to a shot boundary.
    pub end_bwd_snap_search: f64,
    /// Seconds the end may move later to a shot boundary.
    pub end_fwd_snap_search: f64,
    /// Seconds the end may move earlier to avoid speech.
    pub end_bwd_speech_search: f64,
    /// Seconds the end may move later to avoid speech.
    pub end_fwd_speech_search: f64,
    /// Silence required before the end.
    pub end_speech_stop_silence_before: f64,
    /// Silence required after the end.
    pub end_speech_stop_silence_after: f64,
    /// Seconds the start may move earlier to avoid speech.
    pub start_bwd_speech_search: f64,
    /// Seconds the start may move later to avoid speech.
    pub start_fwd_speech_search: f64,
    /// Silence required before the start.
    pub start_speech_stop_silence_before: f64,
    /// Silence required after the start.
    pub start_speech_stop_silence_after: f64,
    /// Minimum gap in seconds between accepted clips.
    pub minimum_clip_separation: f64,
    /// Text describing the wanted content; ranks by similarity to the item's scenes.
    pub search_query: Option<String>,
    /// Whether to fill `keywords` / `keyword`.
    pub add_keyword_tags: bool,
    /// Deprecated form of `trigger_generation`.
    pub generate: bool,
    /// Start asynchronous clip media generation (handled by the service).
    pub trigger_generation: bool,
    /// Output aspect ratio.
    pub aspect_ratio: AspectRatio,
    /// Start of a custom range (with `custom_stop_timestamp`).
    pub custom_start_timestamp: Option<f64>,
    /// End of a custom range (with `custom_start_timestamp`).
    pub custom_stop_timestamp: Option<f64>,
}

impl Default for ClipQuery {
    fn default() -> Self {
        ClipQuery {
            version: None,
            character_preference: CharacterPreference::Any,
            character_list: Vec::new(),
            number_of_top_candidates: 5,
            clip_type: ClipType::Any,
            min_nudity: 0.0,
            max_nudity: 1.0,
            min_blood_gore: 0.0,
            max_blood_gore: 1.0,
            min_profanity: 0.0,
            max_profanity: 1.0,
            min_brightness: 0.0,
            max_brightness: 1.0,
            shot_type: Vec::new(),
            clip_length: 30.0,
            skip_start: 10.0,
            skip_end: 10.0,
            start_bwd_snap_search: 0.0,
            start_fwd_snap_search: 0.0,
            end_bwd_snap_search: 0.0,
            end_fwd_snap_search: 0.0,
            end_bwd_speech_search: 3.0,
            end_fwd_speech_search: 3.0,
            end_speech_stop_silence_before: 0.0,
            end_speech_stop_silence_after: 0.0,
            start_bwd_speech_search: 1.0,
            start_fwd_speech_search: 1.0,
            start_speech_stop_silence_before: 0.5,
            start_speech_stop_silence_after: 0.5,
            minimum_clip_separation: 60.0,
            search_query: None,
            add_keyword_tags: true,
            generate: false,
            trigger_generation: false,
            aspect_ratio: AspectRatio::Source,
            custom_start_timestamp: None,
            custom_stop_timestamp: None,
        }
    }
}

/// A numeric parameter's accepted range.
#[derive(Clone, Copy)]
pub(super) enum Range {
    Unit,
    Percent,
    NonNegative,
}

impl Range {
    /// The inclusive bounds: minimum, and maximum when there is one.
    pub(super) fn bounds(self) -> (f64, Option<f64>) {
        match self {
            Range::Unit => (0.0, Some(1.0)),
            Range::Percent => (0.0, Some(100.0)),
            Range::NonNegative => (0.0, None),
        }
    }
}

/// The float parameters, their ranges and accessors, in the interface's order.
pub(super) type FloatField = (&'static str, Range, fn(&mut ClipQuery) -> &mut f64);

pub(super) const FLOAT_FIELDS: [FloatField; 24] = [
    ("min_nudity", Range::Unit, |q| &mut q.min_nudity),
    ("max_nudity", Range::Unit, |q| &mut q.max_nudity),
    ("min_blood_gore", Range::Unit, |q| &mut q.min_blood_gore),
    ("max_blood_gore", Range::Unit, |q| &mut q.max_blood_gore),
    ("min_profanity", Range::Unit, |q| &mut q.min_profanity),
    ("max_profanity", Range::Unit, |q| &mut q.max_profanity),
    ("min_brightness", Range::Unit, |q| &mut q.min_brightness),
    ("max_brightness", Range::Unit, |q| &mut q.max_brightness),
    ("clip_length", Range::NonNegative, |q| &mut q.clip_length),
    ("skip_start", Range::Percent, |q| &mut q.skip_start),
    ("skip_end", Range::Percent, |q| &mut q.skip_end),
    ("start_bwd_snap_search", Range::NonNegative, |q| &mut q.start_bwd_snap_search),
    ("start_fwd_snap_search", Range::NonNegative, |q| &mut q.start_fwd_snap_search),
    ("end_bwd_snap_search", Range::NonNegative, |q| &mut q.end_bwd_snap_search),
    ("end_fwd_snap_search", Range::NonNegative, |q| &mut q.end_fwd_snap_search),
    ("end_bwd_speech_search", Range::NonNegative, |q| &mut q.end_bwd_speech_search),
    ("end_fwd_speech_search", Range::NonNegative, |q| &mut q.end_fwd_speech_search),
    ("end_speech_stop_silence_before", Range::NonNegative, |q| &mut q.end_speech_stop_silence_before),
    ("end_speech_stop_silence_after", Range::NonNegative, |q| &mut q.end_speech_stop_silence_after),
    ("start_bwd_speech_search", Range::NonNegative, |q| &mut q.start_bwd_speech_search),
    ("start_fwd_speech_search", Range::NonNegative, |q| &mut q.start_fwd_speech_search),
    ("start_speech_stop_silence_before", Range::NonNegative, |q| &mut q.start_speech_stop_silence_before),
    ("start_speech_stop_silence_after", Range::NonNegative, |q| &mut q.start_speech_stop_silence_after),
    ("minimum_clip_separation", Range::NonNegative, |q| &mut q.minimum_clip_separation),
];

/// The (min, max) bound pairs and the version that first accepts non-default values.
pub(super) const BOUND_PAIRS: [(&str, &str, u32); 4] = [
    ("min_nudity", "max_nudity", PreviewsVersion::NUDITY_PROFANITY_BOUNDS),
    ("min_blood_gore", "max_blood_gore", PreviewsVersion::BLOOD_GORE_BOUNDS),
    ("min_profanity", "max_profanity", PreviewsVersion::NUDITY_PROFANITY_BOUNDS),
    ("min_brightness", "max_brightness", 0),
];

impl ClipQuery {
    /// Every parameter name the clip search accepts, in the interface's order.
    pub const PARAMETERS: [&'static str; 37] = [
        "version",
        "character_preference",
        "character_list",
        "number_of_top_candidates",
        "clip_type",
        "min_nudity",
        "max_nudity",
        "min_blood_gore",
        "max_blood_gore",
        "min_profanity",
        "max_profanity",
        "min_brightness",
        "max_brightness",
        "shot_type",
        "clip_length",
        "skip_start",
        "skip_end",
        "start_bwd_snap_search",
        "start_fwd_snap_search",
        "end_bwd_snap_search",
        "end_fwd_snap_search",
        "end_bwd_speech_search",
        "end_fwd_speech_search",
        "end_speech_stop_silence_before",
        "end_speech_stop_silence_after",
        "start_bwd_speech_search",
        "start_fwd_speech_search",
        "start_speech_stop_silence_before",
        "start_speech_stop_silence_after",
        "minimum_clip_separation",
        "search_query",
        "add_keyword_tags",
        "generate",
        "trigger_generation",
        "aspect_ratio",
        "custom_start_timestamp",
        "custom_stop_timestamp",
    ];

    /// The version in force: the requested one, or the newest.
    pub fn effective_version(&self) -> PreviewsVersion {
        self.version.unwrap_or(PreviewsVersion::NEWEST)
    }

    /// Parses query-string pairs. Unknown keys are ignored (the service's own `key`, `catalog`
    /// travel in the same query string); for a repeated key the last value wins. Every problem is
    /// reported, not just the first.
    pub fn from_pairs<I, K, V>(pairs: I) -> Result<ClipQuery>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut raw: Vec<(&'static str, String)> = Vec::new();
        for (k, v) in pairs {
            if let Some(&name) = ClipQuery::PARAMETERS.iter().find(|&&p| p == k.as_ref()) {
                raw.retain(|(n, _)| *n != name);
                raw.push((name, v.as_ref().to_string()));
            }
        }
        raw.sort_by_key(|(name, _)| ClipQuery::PARAMETERS.iter().position(|p| p == name));
        let mut query = ClipQuery::default();
        let mut issues = Vec::new();
        let mut failed = BTreeSet::new();
        for (name, value) in &raw {
            if let Err(issue) = query.set(name, value) {
                failed.insert(*name);
                issues.push(issue);
            }
        }
        query.check(&mut issues, &failed);
        issues.sort_by_key(|issue| ClipQuery::PARAMETERS.iter().position(|p| *p == issue.param));
        if issues.is_empty() { Ok(query) } else { Err(Error::InvalidQuery { issues }) }
    }

    fn set(&mut self, name: &'static str, value: &str) -> Result<(), QueryIssue> {
        match name {
            "version" => self.version = Some(parse_version(value)?),
            "character_preference" => {
                self.character_preference = parse_enum(name, value, &CharacterPreference::ALL.map(|p| p.as_str()))
                    .map(|i| CharacterPreference::ALL[i])?;
            }
            "character_list" => self.character_list = parse_character_list(value)?,
            "shot_type" => self.shot_type = parse_shot_types(value)?,
            "number_of_top_candidates" => {
                let n = parse_int(name, value)?;
                if n < 1 {
                    return Err(bound_issue(name, value, IssueKind::GreaterThanEqual, 1.0));
                }
                self.number_of_top_candidates = usize::try_from(n).unwrap_or(usize::MAX);
            }
            "clip_type" => {
                self.clip_type =
                    parse_enum(name, value, &ClipType::ALL.map(|t| t.as_str())).map(|i| ClipType::ALL[i])?;
            }
            "search_query" => {
                if value.trim().is_empty() {
                    return Err(QueryIssue {
                        param: name.into(),
                        kind: IssueKind::StringTooShort,
                        message: "String should have at least 1 character".into(),
                        input: Some(value.into()),
                        ctx: json!({"min_length": 1}),
                    });
                }
                self.search_query = Some(value.to_string());
            }
            "add_keyword_tags" => self.add_keyword_tags = parse_bool(name, value)?,
            "generate" => self.generate = parse_bool(name, value)?,
            "trigger_generation" => self.trigger_generation = parse_bool(name, value)?,
            "aspect_ratio" => {
                self.aspect_ratio =
                    parse_enum(name, value, &AspectRatio::ALL.map(|a| a.as_str())).map(|i| AspectRatio::ALL[i])?;
            }
            "custom_start_timestamp" => self.custom_start_timestamp = Some(parse_float(name, value)?),
            "custom_stop_timestamp" => self.custom_stop_timestamp = Some(parse_float(name, value)?),
            _ => {
                let (_, _, field) = FLOAT_FIELDS.iter().find(|(n, ..)| *n == name).expect("every parameter is handled");
                *field(self) = parse_float(name, value)?;
            }
        }
        Ok(())
    }

    /// Checks every range and cross-parameter rule of `clip-selection.md` section 1 that does not
    /// need the item's signals. Queries built in Rust go through this too.
    pub fn validate(&self) -> Result<()> {
        let mut issues = Vec::new();
        self.check(&mut issues, &BTreeSet::new());
        if issues.is_empty() { Ok(()) } else { Err(Error::InvalidQuery { issues }) }
    }

    fn check(&self, issues: &mut Vec<QueryIssue>, failed: &BTreeSet<&str>) {
        let mut copy = self.clone();
        for (name, range, field) in &FLOAT_FIELDS {
            if failed.contains(name) {
                continue;
            }
            if let Some(issue) = check_range(name, *field(&mut copy), *range) {
                issues.push(issue);
            }
        }
        for (name, value) in [
            ("custom_start_timestamp", self.custom_start_timestamp),
            ("custom_stop_timestamp", self.custom_stop_timestamp),
        ] {
            if let (Some(v), false) = (value, failed.contains(name)) {
                issues.extend(check_range(name, v, Range::NonNegative));
            }
        }
        if self.number_of_top_candidates == 0 && !failed.contains("number_of_top_candidates") {
            issues.push(bound_issue("number_of_top_candidates", "0", IssueKind::GreaterThanEqual, 1.0));
        }
        if !issues.is_empty() || !failed.is_empty() {
            return;
        }
        let version = self.effective_version();
        let mut values = |name: &str| {
            let (_, _, field) = FLOAT_FIELDS.iter().find(|(n, ..)| *n == name).expect("known bound");
            *field(&mut copy)
        };
        for (min_name, max_name, since) in BOUND_PAIRS {
            let (lo, hi) = (values(min_name), values(max_name));
            if lo > hi {
                issues.push(value_issue(min_name, format!("{min_name} ({lo}) must not exceed {max_name} ({hi})")));
            }
            if version.number < since && (lo != 0.0 || hi != 1.0) {
                issues.push(value_issue(
                    if lo != 0.0 { min_name } else { max_name },
                    format!(
                        "{min_name}/{max_name} other than 0/1 need version {since} or later (version is {version})"
                    ),
                ));
            }
        }
        if self.clip_type != ClipType::Any && self.search_query.is_some() {
            issues.push(value_issue(
                "search_query",
                "search_query cannot be combined with a clip_type other than ANY".into(),
            ));
        }
        if self.generate && self.trigger_generation {
            issues.push(value_issue(
                "generate",
                "generate (deprecated) cannot be combined with trigger_generation".into(),
            ));
        }
        let pref = self.character_preference;
        if pref.uses_list() && self.character_list.is_empty() {
            issues.push(value_issue(
                "character_list",
                format!("character_list is required and must be non-empty with character_preference={}", pref.as_str()),
            ));
        }
        if !pref.uses_list() && !self.character_list.is_empty() {
            issues.push(value_issue(
                "character_list",
                format!("character_list must be empty with character_preference={}", pref.as_str()),
            ));
        }
        match (self.custom_start_timestamp, self.custom_stop_timestamp) {
            (Some(_), None) => issues.push(value_issue(
                "custom_stop_timestamp",
                "custom_start_timestamp needs custom_stop_timestamp: give both or neither".into(),
            )),
            (None, Some(_)) => issues.push(value_issue(
                "custom_start_timestamp",
                "custom_stop_timestamp needs custom_start_timestamp: give both or neither".into(),
            )),
            (Some(start), Some(stop)) if start >= stop => issues.push(value_issue(
                "custom_start_timestamp",
                format!("custom_start_timestamp ({start}) must be less than custom_stop_timestamp ({stop})"),
            )),
            _ => {}
        }
        if (self.custom_start_timestamp.is_some() || self.custom_stop_timestamp.is_some())
            && version.number < PreviewsVersion::CUSTOM_RANGE
        {
            issues.push(value_issue(
                "custom_start_timestamp",
                format!(
                    "custom timestamps need version {} or later (version is {version})",
                    PreviewsVersion::CUSTOM_RANGE
                ),
            ));
        }
        if self.aspect_ratio == AspectRatio::Vertical9x16 && !version.vertical {
            issues.push(value_issue(
                "aspect_ratio",
                format!(
                    "aspect_ratio=9:16 needs a version with the -vertical suffix, such as {}-vertical (version is {version})",
                    version.number
                ),
            ));
        }
    }
}

fn check_range(name: &str, value: f64, range: Range) -> Option<QueryIssue> {
    let text = value.to_string();
    if !value.is_finite() {
        return Some(finite_issue(name, &text));
    }
    let (lo, hi) = range.bounds();
    if value < lo {
        return Some(bound_issue(name, &text, IssueKind::GreaterThanEqual, lo));
    }
    match hi {
        Some(hi) if value > hi => Some(bound_issue(name, &text, IssueKind::LessThanEqual, hi)),
        _ => None,
    }
}

fn bound_issue(name: &str, input: &str, kind: IssueKind, limit: f64) -> QueryIssue {
    let (word, key) = match kind {
        IssueKind::GreaterThanEqual => ("greater than or equal to", "ge"),
        _ => ("less than or equal to", "le"),
    };
    QueryIssue {
        param: name.into(),
        kind,
        message: format!("Input should be {word} {limit}"),
        input: Some(input.into()),
        ctx: json!({ key: limit }),
    }
}

fn finite_issue(name: &str, input: &str) -> QueryIssue {
    QueryIssue {
        param: name.into(),
        kind: IssueKind::FiniteNumber,
        message: "Input should be a finite number".into(),
        input: Some(input.into()),
        ctx: serde_json::Value::Null,
    }
}

fn value_issue(name: &str, rule: String) -> QueryIssue {
    QueryIssue {
        param: name.into(),
        kind: IssueKind::ValueError,
        message: format!("Value error, {rule}"),
        input: None,
        ctx: json!({ "error": rule }),
    }
}

fn parse_float(name: &str, value: &str) -> Result<f64, QueryIssue> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(finite_issue(name, value)),
        Err(_) => Err(QueryIssue {
            param: name.into(),
            kind: IssueKind::FloatParsing,
            message: "Input should be a valid number, unable to parse string as a number".into(),
            input: Some(value.into()),
            ctx: serde_json::Value::Null,
        }),
    }
}

fn parse_int(name: &str, value: &str) -> Result<i64, QueryIssue> {
    value.trim().parse::<i64>().map_err(|_| QueryIssue {
        param: name.into(),
        kind: IssueKind::IntParsing,
        message: "Input should be a valid integer, unable to parse string as an integer".into(),
        input: Some(value.into()),
        ctx: serde_json::Value::Null,
    })
}

fn parse_bool(name: &str, value: &str) -> Result<bool, QueryIssue> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" | "t" | "y" => Ok(true),
        "false" | "0" | "no" | "off" | "f" | "n" => Ok(false),
        _ => Err(QueryIssue {
            param: name.into(),
            kind: IssueKind::BoolParsing,
            message: "Input should be a valid boolean, unable to interpret input".into(),
            input: Some(value.into()),
            ctx: serde_json::Value::Null,
        }),
    }
}

fn expected_list(options: &[&str]) -> String {
    let quoted: Vec<String> = options.iter().map(|o| format!("'{o}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

fn parse_enum(name: &str, value: &str, options: &[&str]) -> Result<usize, QueryIssue> {
    options.iter().position(|o| *o == value).ok_or_else(|| {
        let expected = expected_list(options);
        QueryIssue {
            param: name.into(),
            kind: IssueKind::Enum,
            message: format!("Input should be {expected}"),
            input: Some(value.into()),
            ctx: json!({ "expected": expected }),
        }
    })
}

fn parse_character_list(value: &str) -> Result<Vec<u32>, QueryIssue> {
    if value.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut ranks = BTreeSet::new();
    for part in value.split(',') {
        let part = part.trim();
        match part.parse::<u32>() {
            Ok(rank) if !part.starts_with('+') => {
                ranks.insert(rank);
            }
            _ => {
                let rule = format!("character_list must be comma-separated integers >= 0 ({part:?} is not one)");
                return Err(QueryIssue { input: Some(value.into()), ..value_issue("character_list", rule) });
            }
        }
    }
    Ok(ranks.into_iter().collect())
}

/// Parses `shot_type`: comma-separated shot kinds (spaces allowed, repeats merged), empty for any.
fn parse_shot_types(value: &str) -> Result<Vec<ShotKind>, QueryIssue> {
    if value.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut kinds = BTreeSet::new();
    for part in value.split(',') {
        let part = part.trim();
        let Some(kind) = ShotKind::parse(part) else {
            let allowed = ShotKind::ALL.map(ShotKind::as_str).join(", ");
            let rule = format!("shot_type must be comma-separated shot types among {allowed} ({part:?} is not one)");
            return Err(QueryIssue { input: Some(value.into()), ..value_issue("shot_type", rule) });
        };
        kinds.insert(kind);
    }
    Ok(kinds.into_iter().collect())
}

/// Parses a version code, rejecting malformed codes and versions this build does not offer.
pub(crate) fn parse_version(code: &str) -> Result<PreviewsVersion, QueryIssue> {
    let newest = PreviewsVersion::NEWEST.number;
    match PreviewsVersion::parse(code.trim()) {
        Some(v) if v.is_offered() => Ok(v),
        Some(v) => Err(QueryIssue {
            input: Some(code.into()),
            ..value_issue(
                "version",
                format!("version {} is not offered: versions are 1 to {newest}, optionally with -vertical", v.number),
            )
        }),
        None => Err(QueryIssue {
            input: Some(code.into()),
            ..value_issue(
                "version",
                format!(
                    "version must be an integer with an optional -vertical suffix, such as {newest} or {newest}-vertical"
                ),
            )
        }),
    }
}

/// The clip types info response: `{version, clip_types}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClipTypesInfo {
    /// The version code described.
    pub version: String,
    /// Every clip type name the version accepts.
    pub clip_types: Vec<&'static str>,
}

/// The clip types of a previews version (the newest when `None`); an error for a malformed or
/// unknown version code.
pub fn clip_types_info(version: Option<&str>) -> crate::Result<ClipTypesInfo> {
    let version = match version {
        None => PreviewsVersion::NEWEST,
        Some(code) => parse_version(code).map_err(|issue| crate::Error::InvalidQuery { issues: vec![issue] })?,
    };
    Ok(ClipTypesInfo { version: version.to_string(), clip_types: ClipType::ALL.iter().map(|t| t.as_str()).collect() })
}
