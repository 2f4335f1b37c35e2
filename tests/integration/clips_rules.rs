//! Sections 2 to 6 of clip-selection.md, one small hand-made document per rule.

use kino::clips::ClipType;
use kino::signals::{Scene, TagKind, Vertical};
use kino::{Error, LexicalEncoder, Prepared, TextEncoder, select, select_many};

use crate::support::*;

const OPEN: &str = "skip_start=0&skip_end=0&character_preference=None&start_bwd_speech_search=0&start_fwd_speech_search=0&end_bwd_speech_search=0&end_fwd_speech_search=0";

fn starts(p: &Prepared, extra: &str) -> Vec<f64> {
    select(p, &query(&format!("{OPEN}&{extra}")), None).unwrap().iter().map(|c| c.start_time).collect()
}

/// Relevance rising to a single peak at sample `peak`.
fn peaked(n: usize, peak: usize) -> Vec<f32> {
    (0..n).map(|i| 1.0 - (i as f32 - peak as f32).abs() / n as f32).collect()
}

#[test]
fn skip_window_bounds_candidates() {
    let p = prepared(flat_signals(&peaked(100, 2)));
    // The peak is at 2 s but 10% is skipped: the best allowed start is 10.
    let clips =
        select(&p, &query("character_preference=None&clip_length=10&number_of_top_candidates=1"), None).unwrap();
    assert_eq!(clips[0].start_time, 10.0);
    let p = prepared(flat_signals(&peaked(100, 97)));
    let clips =
        select(&p, &query("character_preference=None&clip_length=10&number_of_top_candidates=1"), None).unwrap();
    assert_eq!(clips[0].stop_time, 90.0);
    assert!(starts(&p, "skip_start=60&skip_end=60").is_empty());
    assert!(starts(&p, "clip_length=150").is_empty());
    assert!(starts(&p, "clip_length=0").is_empty());
}

#[test]
fn thresholds_filter_candidates() {
    let mut s = flat_signals(&peaked(100, 50));
    s.timelines.nudity[48..53].fill(0.9);
    s.timelines.brightness[60..].fill(0.05);
    let p = prepared(s);
    let clips =
        select(&p, &query(&format!("{OPEN}&clip_length=10&max_nudity=0.5&number_of_top_candidates=3")), None).unwrap();
    assert!(!clips.is_empty());
    for c in &clips {
        assert!(c.stop_time <= 48.0 || c.start_time >= 53.0, "{c:?}");
        assert_eq!(c.nudity, 0.1);
    }
    let clips =
        select(&p, &query(&format!("{OPEN}&clip_length=10&min_nudity=0.8&number_of_top_candidates=1")), None).unwrap();
    assert_eq!(clips[0].nudity, 0.9);
    assert_eq!(clips[0].start_time, 45.0, "the most relevant window that shows the nudity");
    for c in select(
        &p,
        &query(&format!(
            "{OPEN}&clip_length=10&min_brightness=0.3&number_of_top_candidates=5&minimum_clip_separation=0"
        )),
        None,
    )
    .unwrap()
    {
        assert!(c.stop_time <= 60.0 + 1e-9 && c.brightness >= 0.3);
    }
}

#[test]
fn character_preferences() {
    let mut s = flat_signals(&peaked(100, 50));
    s.characters = vec![character(0, &[[10.0, 20.0]]), character(1, &[[15.0, 30.0]]), character(2, &[[70.0, 80.0]])];
    let p = prepared(s);
    let q = |pref: &str| format!("clip_length=5&number_of_top_candidates=50&minimum_clip_separation=0&{pref}");
    let all = |pref: &str| {
        let clips =
            select(&p, &query(&format!("{OPEN}&{}", q(pref)).replace("character_preference=None&", "")), None).unwrap();
        assert!(!clips.is_empty(), "{pref}");
        clips
    };
    for c in all("character_preference=any") {
        assert!(!c.characters.is_empty());
    }
    for c in all("character_preference=avoid") {
        assert!(c.characters.is_empty());
    }
    for c in all("character_preference=any_of&character_list=2") {
        assert!(c.characters.contains(&2));
    }
    for c in all("character_preference=all_of&character_list=0,1") {
        assert!(c.characters.contains(&0) && c.characters.contains(&1), "{:?}", c.characters);
        assert!(c.start_time > 10.0 && c.stop_time < 25.0);
    }
    assert!(
        select(
            &p,
            &query(&format!("{}&character_preference=all_of&character_list=0,2", q("").trim_end_matches('&'))),
            None
        )
        .unwrap()
        .is_empty()
    );
    // A span touching the clip at one instant does not count: it must overlap by more than zero.
    let clips = select(&p, &query("skip_start=0&skip_end=0&clip_length=5&character_preference=any_of&character_list=0&number_of_top_candidates=50&minimum_clip_separation=0&start_bwd_speech_search=0&start_fwd_speech_search=0&end_bwd_speech_search=0&end_fwd_speech_search=0"), None).unwrap();
    let mut got: Vec<f64> = clips.iter().map(|c| c.start_time).collect();
    got.sort_by(f64::total_cmp);
    assert_eq!(got, (6..20).map(f64::from).collect::<Vec<_>>());
}

#[test]
fn ranking_by_clip_type_with_ties_to_relevance_then_start() {
    let mut rel = vec![0.5f32; 60];
    rel[30..40].fill(0.9);
    let mut s = flat_signals(&rel);
    let mut funny = vec![0.0f32; 60];
    funny[5..15].fill(0.7);
    funny[30..40].fill(0.7);
    s.timelines.clip_types.insert("Funny and comical".into(), funny);
    let p = prepared(s);
    let clips = select(
        &p,
        &query(&format!(
            "{OPEN}&clip_length=10&clip_type=Funny and comical&number_of_top_candidates=2&minimum_clip_separation=0"
        )),
        None,
    )
    .unwrap();
    // Both [5, 15] and [30, 40] have type score 0.7; [30, 40] is more relevant.
    assert_eq!(clips[0].start_time, 30.0);
    assert_eq!(clips[0].clip_type, ClipType::FunnyAndComical);
    assert_eq!(clips[0].type_score, 0.7);
    assert_eq!(clips[1].start_time, 5.0);
    // A type the document lacks scores 0 everywhere: ranking falls back to relevance, then start.
    let clips =
        select(&p, &query(&format!("{OPEN}&clip_length=10&clip_type=Epic&number_of_top_candidates=1")), None).unwrap();
    assert_eq!((clips[0].start_time, clips[0].type_score), (30.0, 0.0));
    // Equal relevance everywhere: the earliest start wins.
    let p = prepared(flat_signals(&[0.3; 50]));
    assert_eq!(starts(&p, "clip_length=10&number_of_top_candidates=1"), vec![0.0]);
}

#[test]
fn search_query_ranks_by_scene_similarity() {
    let enc = LexicalEncoder::default();
    let mut s = flat_signals(&peaked(90, 80));
    s.scenes =
        vec![Scene { start: 0.0, end: 30.0 }, Scene { start: 30.0, end: 60.0 }, Scene { start: 60.0, end: 90.0 }];
    s.scene_embeddings = Some(vec![
        enc.encode("kiss beach romantic").unwrap(),
        enc.encode("explosion city tense car chase").unwrap(),
        enc.encode("dinner kitchen joyful").unwrap(),
    ]);
    let p = prepared(s);
    let q = query(&format!("{OPEN}&clip_length=10&search_query=car chase explosion&number_of_top_candidates=1"));
    let emb = enc.encode("car chase explosion").unwrap();
    let clips = select(&p, &q, Some(&emb)).unwrap();
    assert!(clips[0].start_time > 20.0 && clips[0].stop_time <= 70.0, "{:?}", clips[0]);
    assert!(clips[0].query_relevance > 0.8);
    assert_eq!(clips[0].search_query, "car chase explosion");
    assert!(matches!(select(&p, &q, None), Err(Error::MissingQueryEmbedding)));
    assert!(matches!(
        select(&p, &q, Some(&emb[..10])),
        Err(Error::WrongVectorDimension { expected: 1024, received: 10, .. })
    ));
    let bare = prepared(flat_signals(&[0.5; 90]));
    assert!(matches!(select(&bare, &q, Some(&emb)), Err(Error::MissingSignal { field: "scene_embeddings", .. })));
}

#[test]
fn greedy_separation() {
    let p = prepared(flat_signals(&peaked(200, 100)));
    let got = starts(&p, "clip_length=10&number_of_top_candidates=3&minimum_clip_separation=20");
    // [95, 105] first; then starts <= 65 or >= 125 stay 20 s clear: [125, 135] (mean distance
    // from the peak 29.5) beats [65, 75] (30.5), which comes third.
    assert_eq!(got, vec![95.0, 125.0, 65.0]);
    let got = starts(&p, "clip_length=10&number_of_top_candidates=3&minimum_clip_separation=0");
    // Overlapping clips are allowed at separation 0; [96, 106] ties [95, 105] (samples 96..=105
    // sum the same distances), [94, 104] is one step worse.
    assert_eq!(got, vec![95.0, 96.0, 94.0]);
}

#[test]
fn snap_to_nearest_boundary_ties_earlier() {
    let mut s = flat_signals(&peaked(100, 50));
    s.shots = vec![43.0, 47.0, 56.0, 58.0, 64.0];
    let p = prepared(s);
    // Candidate [45, 55]: start boundaries within [43, 47] are 43 and 47, both 2 s away: the
    // earlier wins. The end moves to 56 (within [54, 57]).
    let clips = select(&p, &query(&format!("{OPEN}&clip_length=10&number_of_top_candidates=1&start_bwd_snap_search=2&start_fwd_snap_search=2&end_bwd_snap_search=1&end_fwd_snap_search=2")), None).unwrap();
    assert_eq!((clips[0].snapped_start, clips[0].snapped_stop), (43.0, 56.0));
    assert_eq!((clips[0].start_time, clips[0].stop_time), (43.0, 56.0));
    // No boundary in the window: unchanged.
    let clips = select(
        &p,
        &query(&format!(
            "{OPEN}&clip_length=10&number_of_top_candidates=1&start_fwd_snap_search=1&end_bwd_snap_search=0.5"
        )),
        None,
    )
    .unwrap();
    assert_eq!((clips[0].snapped_start, clips[0].snapped_stop), (45.0, 55.0));
}

#[test]
fn snap_is_not_applied_when_it_breaks_a_threshold() {
    let mut s = flat_signals(&peaked(100, 50));
    s.shots = vec![42.0];
    s.timelines.nudity[42..44].fill(0.9);
    let p = prepared(s);
    let clips = select(
        &p,
        &query(&format!("{OPEN}&clip_length=10&number_of_top_candidates=1&max_nudity=0.5&start_bwd_snap_search=5")),
        None,
    )
    .unwrap();
    assert_eq!(clips[0].start_time, 45.0);
    assert_eq!(clips[0].snapped_start, 45.0);
}

#[test]
fn speech_avoidance() {
    let mut s = flat_signals(&peaked(100, 50));
    s.speech = vec![[43.0, 46.0], [54.0, 57.0]];
    let p = prepared(s);
    let q = "skip_start=0&skip_end=0&character_preference=None&clip_length=10&number_of_top_candidates=1\
             &start_bwd_speech_search=3&start_fwd_speech_search=3&start_speech_stop_silence_before=0.5\
             &start_speech_stop_silence_after=0.5&end_bwd_speech_search=3&end_fwd_speech_search=3";
    let c = &select(&p, &query(q), None).unwrap()[0];
    // Start 45 is inside (42.5, 46.5): 46.5 (1.5 s) beats 42.5 (2.5 s). End 55 is inside (54, 57):
    // 54 (1 s) beats 57 (2 s).
    assert_eq!((c.start_time, c.stop_time), (46.5, 54.0));
    assert_eq!((c.start_speech_avoidance, c.end_speech_avoidance), (1.5, -1.0));
    // Windows too small to reach a safe time: the edges stay.
    let c = &select(&p, &query(&q.replace("=3", "=0.5")), None).unwrap()[0];
    assert_eq!((c.start_time, c.stop_time), (45.0, 55.0));
    assert_eq!((c.start_speech_avoidance, c.end_speech_avoidance), (0.0, 0.0));
    // Equidistant safe times: the earlier wins.
    let mut s = flat_signals(&peaked(100, 50));
    s.speech = vec![[44.0, 46.0]];
    let p = prepared(s);
    let c = &select(
        &p,
        &query(
            &q.replace("stop_silence_before=0.5", "stop_silence_before=0")
                .replace("stop_silence_after=0.5", "stop_silence_after=0"),
        ),
        None,
    )
    .unwrap()[0];
    assert_eq!(c.start_time, 44.0);
}

#[test]
fn descriptive_fields() {
    let mut s = flat_signals(&peaked(100, 50));
    s.tags = vec![
        tag(TagKind::Keyword, "dog", 40.0, 50.0, 0.4),
        tag(TagKind::Keyword, "dog", 50.0, 52.0, 0.6),
        tag(TagKind::Keyword, "cat", 44.0, 46.0, 0.9),
        tag(TagKind::Keyword, "far", 80.0, 90.0, 1.0),
        tag(TagKind::Environment, "city", 0.0, 100.0, 0.5),
        tag(TagKind::Mood, "calm", 55.0, 60.0, 0.5),
    ];
    let p = prepared(s);
    let c = &select(&p, &query(&format!("{OPEN}&clip_length=10&number_of_top_candidates=1")), None).unwrap()[0];
    assert_eq!((c.start_time, c.stop_time), (45.0, 55.0));
    let kw: Vec<(&str, f64)> = c.keywords.iter().map(|k| (k.name.as_str(), k.score)).collect();
    assert_eq!(kw, vec![("cat", 0.9), ("dog", 0.6)]);
    assert_eq!(c.keyword.as_ref().unwrap().name, "cat");
    assert_eq!(c.environment[0].name, "city");
    assert!(c.mood.is_empty() && c.mood_tag.is_none(), "calm starts at 55: touching is not overlapping");
    assert_eq!((c.start_frame, c.stop_frame, c.fps), (1125, 1375, 25.0));
    assert_eq!((c.source_frame_width, c.source_frame_height), (1920, 1080));
    assert_eq!(c.clip_type, ClipType::Any, "no clip type timelines");
    let c =
        &select(&p, &query(&format!("{OPEN}&clip_length=10&number_of_top_candidates=1&add_keyword_tags=false")), None)
            .unwrap()[0];
    assert!(c.keywords.is_empty() && c.keyword.is_none());
}

#[test]
fn vertical_conversion_for_9_16() {
    let mut s = flat_signals(&peaked(100, 50));
    let mut x = vec![0.5f32; 100];
    x[45..55].fill(0.9);
    x[45] = 0.1;
    s.vertical = Some(Vertical { step: 1.0, x_center: x, blackbars: [140, 140] });
    let p = prepared(s);
    let q = query(&format!("{OPEN}&clip_length=10&number_of_top_candidates=1&version=27-vertical&aspect_ratio=9:16"));
    let c = &select(&p, &q, None).unwrap()[0];
    let v = c.vertical_conversion.as_ref().unwrap();
    // Picture rows 140..940 (800 high): a 450 x 800 window. Median x_center 0.9 -> centre 1728,
    // clamped so the window stays inside the frame: x = 1920 - 450.
    assert_eq!((v.coordinates.width, v.coordinates.height, v.coordinates.y), (450, 800, 140));
    assert_eq!(v.coordinates.x, 1470);
    assert_eq!(v.blackbars, [140, 140]);
    assert_eq!(v.start_buffer.x, 0, "0.1 * 1920 - 225 < 0 is clamped to 0");
    assert_eq!(v.end_buffer.x, 1470);
    let bare = prepared(flat_signals(&peaked(100, 50)));
    assert!(matches!(select(&bare, &q, None), Err(Error::MissingSignal { field: "vertical", .. })));
    let plain = select(&p, &query(&format!("{OPEN}&clip_length=10&number_of_top_candidates=1")), None).unwrap();
    assert!(plain[0].vertical_conversion.is_none());
}

#[test]
fn custom_range_returns_exactly_that_clip() {
    let mut s = flat_signals(&peaked(100, 50));
    s.timelines.nudity[10] = 0.95;
    s.speech = vec![[9.0, 12.0]];
    let p = prepared(s);
    let clips =
        select(&p, &query("custom_start_timestamp=10.5&custom_stop_timestamp=12&max_nudity=0.2"), None).unwrap();
    assert_eq!(clips.len(), 1);
    let c = &clips[0];
    assert_eq!((c.start_time, c.stop_time, c.snapped_start, c.snapped_stop), (10.5, 12.0, 10.5, 12.0));
    assert_eq!(c.nudity, 0.95, "no filtering on a custom range");
    assert_eq!(c.start_speech_avoidance, 0.0);
    match select(&p, &query("custom_start_timestamp=10&custom_stop_timestamp=101"), None) {
        Err(Error::InvalidQuery { issues }) => assert_eq!(issues[0].param, "custom_stop_timestamp"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn select_many_matches_one_by_one() {
    let items: Vec<Prepared> = (0..16)
        .map(|i| Prepared::new(kino::synth::demo_signals(&format!("m{i}"), 600.0 + 37.0 * i as f64, 1.0, i)).unwrap())
        .collect();
    let refs: Vec<&Prepared> = items.iter().collect();
    let q = query("clip_length=20");
    let many = select_many(&refs, &q, None);
    for (p, got) in items.iter().zip(many) {
        assert_eq!(got.unwrap(), select(p, &q, None).unwrap());
    }
}

#[test]
fn a_filter_on_an_unmeasured_channel_is_refused_by_name() {
    let mut s = flat_signals(&peaked(100, 50));
    s.analysis = Some(kino::signals::Analysis {
        analyzer: "test".into(),
        measured: vec!["timelines.nudity".into()],
        absent: vec!["timelines.profanity".into(), "timelines.blood_gore".into()],
        models: Default::default(),
        reasons: [("timelines.profanity".to_string(), "pending: speech recognition".to_string())].into(),
    });
    let p = prepared(s);
    let refused = |extra: &str| match select(&p, &query(&format!("{OPEN}&clip_length=10&{extra}")), None) {
        Err(Error::InvalidParameter { param, rule }) => Some((param, rule)),
        Ok(_) => None,
        Err(e) => panic!("{extra}: {e}"),
    };
    let (param, rule) = refused("max_profanity=0.2").expect("refused");
    assert_eq!(param, "max_profanity");
    assert!(rule.contains("timelines.profanity") && rule.contains("pending: speech recognition"), "{rule}");
    assert_eq!(refused("min_blood_gore=0.1").map(|r| r.0), Some("min_blood_gore"));
    // Measured channels filter, and unused filters (their defaults) are never refused.
    assert_eq!(refused("max_nudity=0.2"), None);
    assert_eq!(refused("max_profanity=1&min_profanity=0"), None);
    // A document without provenance is taken as measured (customer-supplied signals).
    let bare = prepared(flat_signals(&peaked(100, 50)));
    assert!(select(&bare, &query(&format!("{OPEN}&clip_length=10&max_profanity=0.2")), None).is_ok());
}
