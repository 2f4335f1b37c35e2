//! Section 1 of clip-selection.md: every parameter rule, through the shared parser.

use kino::clips::{AspectRatio, CharacterPreference, ClipType, PreviewsVersion};
use kino::{ClipQuery, Error, IssueKind, clip_types_info};

use crate::support::pairs;

fn issues(text: &str) -> Vec<(String, IssueKind, String)> {
    match ClipQuery::from_pairs(pairs(text)) {
        Ok(q) => panic!("{text:?} was accepted: {q:?}"),
        Err(Error::InvalidQuery { issues }) => issues.into_iter().map(|i| (i.param, i.kind, i.message)).collect(),
        Err(other) => panic!("unexpected error {other}"),
    }
}

fn one(text: &str) -> (String, IssueKind, String) {
    let mut all = issues(text);
    assert_eq!(all.len(), 1, "{text:?} gave {all:?}");
    all.remove(0)
}

#[test]
fn defaults_are_the_interface_defaults() {
    let q = ClipQuery::from_pairs(Vec::<(String, String)>::new()).unwrap();
    assert_eq!(q, ClipQuery::default());
    assert_eq!(q.character_preference, CharacterPreference::Any);
    assert_eq!(q.number_of_top_candidates, 5);
    assert_eq!((q.clip_length, q.skip_start, q.skip_end), (30.0, 10.0, 10.0));
    assert_eq!((q.end_bwd_speech_search, q.end_fwd_speech_search), (3.0, 3.0));
    assert_eq!((q.start_bwd_speech_search, q.start_fwd_speech_search), (1.0, 1.0));
    assert_eq!((q.start_speech_stop_silence_before, q.start_speech_stop_silence_after), (0.5, 0.5));
    assert_eq!(q.minimum_clip_separation, 60.0);
    assert!(q.add_keyword_tags && !q.generate && !q.trigger_generation);
    assert_eq!(q.aspect_ratio, AspectRatio::Source);
    assert_eq!(q.effective_version(), PreviewsVersion::NEWEST);
}

#[test]
fn every_parameter_parses() {
    let q = ClipQuery::from_pairs(pairs(
        "version=27-vertical&character_preference=all_of&character_list=2, 0,2&number_of_top_candidates=9\
         &clip_type=Epic scenery&min_nudity=0.1&max_nudity=0.9&min_blood_gore=0&max_blood_gore=0.5\
         &min_profanity=0&max_profanity=0.3&min_brightness=0.2&max_brightness=0.8&clip_length=12.5\
         &skip_start=0&skip_end=100&start_bwd_snap_search=1&start_fwd_snap_search=2&end_bwd_snap_search=3\
         &end_fwd_snap_search=4&end_bwd_speech_search=5&end_fwd_speech_search=6&end_speech_stop_silence_before=0.1\
         &end_speech_stop_silence_after=0.2&start_bwd_speech_search=7&start_fwd_speech_search=8\
         &start_speech_stop_silence_before=0.3&start_speech_stop_silence_after=0.4&minimum_clip_separation=0\
         &add_keyword_tags=false&generate=0&trigger_generation=yes&aspect_ratio=9:16\
         &custom_start_timestamp=1&custom_stop_timestamp=2&key=secret&catalog=c1",
    ))
    .unwrap();
    assert_eq!(q.version, Some(PreviewsVersion { number: 27, vertical: true }));
    assert_eq!(q.character_list, vec![0, 2]);
    assert_eq!(q.clip_type, ClipType::EpicScenery);
    assert_eq!(q.number_of_top_candidates, 9);
    assert_eq!((q.min_nudity, q.max_profanity, q.clip_length, q.skip_end), (0.1, 0.3, 12.5, 100.0));
    assert_eq!((q.end_fwd_snap_search, q.start_fwd_speech_search), (4.0, 8.0));
    assert!(!q.add_keyword_tags && q.trigger_generation && !q.generate);
    assert_eq!((q.custom_start_timestamp, q.custom_stop_timestamp), (Some(1.0), Some(2.0)));
}

#[test]
fn ranges() {
    for (text, param, kind) in [
        ("min_nudity=-0.1", "min_nudity", IssueKind::GreaterThanEqual),
        ("max_brightness=1.5", "max_brightness", IssueKind::LessThanEqual),
        ("skip_start=101", "skip_start", IssueKind::LessThanEqual),
        ("skip_end=-1", "skip_end", IssueKind::GreaterThanEqual),
        ("clip_length=-3", "clip_length", IssueKind::GreaterThanEqual),
        ("end_fwd_speech_search=-1", "end_fwd_speech_search", IssueKind::GreaterThanEqual),
        ("start_bwd_snap_search=-0.5", "start_bwd_snap_search", IssueKind::GreaterThanEqual),
        ("minimum_clip_separation=-1", "minimum_clip_separation", IssueKind::GreaterThanEqual),
        ("number_of_top_candidates=0", "number_of_top_candidates", IssueKind::GreaterThanEqual),
        ("clip_length=abc", "clip_length", IssueKind::FloatParsing),
        ("clip_length=inf", "clip_length", IssueKind::FiniteNumber),
        ("min_nudity=NaN", "min_nudity", IssueKind::FiniteNumber),
        ("number_of_top_candidates=2.5", "number_of_top_candidates", IssueKind::IntParsing),
        ("add_keyword_tags=maybe", "add_keyword_tags", IssueKind::BoolParsing),
        ("clip_type=Boring", "clip_type", IssueKind::Enum),
        ("character_preference=some", "character_preference", IssueKind::Enum),
        ("aspect_ratio=4:3", "aspect_ratio", IssueKind::Enum),
        ("search_query=", "search_query", IssueKind::StringTooShort),
        ("version=abc", "version", IssueKind::ValueError),
        ("version=99", "version", IssueKind::ValueError),
    ] {
        let (p, k, msg) = one(text);
        assert_eq!((p.as_str(), k), (param, kind), "{text}: {msg}");
        assert!(!msg.is_empty());
    }
    let (_, _, msg) = one("max_nudity=2");
    assert_eq!(msg, "Input should be less than or equal to 1");
    let (_, _, msg) = one("character_preference=x");
    assert_eq!(msg, "Input should be 'any', 'any_of', 'all_of', 'None' or 'avoid'");
}

#[test]
fn every_problem_is_reported_at_once() {
    let all = issues("min_nudity=2&clip_length=x&number_of_top_candidates=0");
    let params: Vec<&str> = all.iter().map(|i| i.0.as_str()).collect();
    assert_eq!(params, ["number_of_top_candidates", "min_nudity", "clip_length"]);
}

#[test]
fn cross_parameter_rules() {
    for (text, param, needle) in [
        ("min_nudity=0.6&max_nudity=0.5", "min_nudity", "must not exceed max_nudity"),
        ("min_brightness=0.9&max_brightness=0.1", "min_brightness", "must not exceed"),
        ("clip_type=Epic&search_query=boats", "search_query", "clip_type"),
        ("generate=true&trigger_generation=true", "generate", "trigger_generation"),
        ("character_preference=any_of", "character_list", "required"),
        ("character_preference=all_of&character_list=", "character_list", "required"),
        ("character_preference=avoid&character_list=1", "character_list", "must be empty"),
        ("character_list=1", "character_list", "must be empty"),
        ("character_preference=None&character_list=2", "character_list", "must be empty"),
        ("character_preference=any_of&character_list=1,x", "character_list", "integers >= 0"),
        ("character_preference=any_of&character_list=-1", "character_list", "integers >= 0"),
        ("custom_start_timestamp=5", "custom_stop_timestamp", "give both"),
        ("custom_stop_timestamp=5", "custom_start_timestamp", "give both"),
        ("custom_start_timestamp=5&custom_stop_timestamp=5", "custom_start_timestamp", "less than"),
    ] {
        let (p, k, msg) = one(text);
        assert_eq!((p.as_str(), k), (param, IssueKind::ValueError), "{text}: {msg}");
        assert!(msg.contains(needle), "{text}: {msg}");
    }
}

#[test]
fn version_gates() {
    for (text, param, needle) in [
        ("version=7&max_nudity=0.5", "max_nudity", "version 8"),
        ("version=7&min_profanity=0.1", "min_profanity", "version 8"),
        ("version=26&max_blood_gore=0.5", "max_blood_gore", "version 27"),
        ("version=18&custom_start_timestamp=1&custom_stop_timestamp=2", "custom_start_timestamp", "version 19"),
        ("aspect_ratio=9:16", "aspect_ratio", "-vertical"),
        ("version=27&aspect_ratio=9:16", "aspect_ratio", "-vertical"),
    ] {
        let (p, _, msg) = one(text);
        assert_eq!(p, param, "{text}: {msg}");
        assert!(msg.contains(needle), "{text}: {msg}");
    }
    for ok in [
        "version=8&max_nudity=0.5",
        "version=27&max_blood_gore=0.5",
        "version=19&custom_start_timestamp=1&custom_stop_timestamp=2",
        "version=12-vertical&aspect_ratio=9:16",
        "version=3&max_brightness=0.5",
        "version=7&min_nudity=0&max_nudity=1",
    ] {
        ClipQuery::from_pairs(pairs(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}

#[test]
fn last_value_wins_and_unknown_keys_are_ignored() {
    let q = ClipQuery::from_pairs(pairs("clip_length=10&clip_length=20&catalog=x&key=y&whatever=1")).unwrap();
    assert_eq!(q.clip_length, 20.0);
}

#[test]
fn queries_built_in_rust_are_validated_too() {
    let q = ClipQuery { max_nudity: 3.0, ..ClipQuery::default() };
    assert!(matches!(q.validate(), Err(Error::InvalidQuery { .. })));
}

#[test]
fn clip_types_of_a_version() {
    let info = clip_types_info(None).unwrap();
    assert_eq!(info.version, "27");
    assert_eq!(info.clip_types.len(), 13);
    assert_eq!(info.clip_types[0], "ANY");
    assert_eq!(clip_types_info(Some("19-vertical")).unwrap().version, "19-vertical");
    assert!(clip_types_info(Some("nope")).is_err());
    assert_eq!(serde_json::to_value(&info).unwrap()["clip_types"][12], "Creepy and scary");
}
