//! A golden test on a small document whose answer was worked out by hand (see the comments).

use kino::select;
use kino::signals::TagKind;

use crate::support::*;

#[test]
fn hand_checked_document() {
    // 20 one-second samples; windows of 5 s: the best is [7, 12] (five samples of 0.9).
    let mut s = flat_signals(&[
        0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.2, 0.9, 0.9, 0.9, 0.9, 0.9, 0.1, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5,
    ]);
    s.shots = vec![6.5, 13.0];
    s.speech = vec![[12.5, 14.0]];
    s.characters = vec![character(0, &[[0.0, 7.0]]), character(1, &[[15.0, 18.0]])];
    s.tags = vec![
        tag(TagKind::Keyword, "storm", 5.0, 10.0, 0.8),
        tag(TagKind::Keyword, "storm", 11.0, 12.0, 0.9),
        tag(TagKind::Keyword, "dog", 0.0, 3.0, 0.7),
        tag(TagKind::Mood, "tense", 6.0, 14.0, 0.6),
    ];
    let mut exciting = vec![0.0f32; 20];
    exciting[15..].fill(0.8);
    s.timelines.clip_types.insert("Exciting".into(), exciting);
    let p = prepared(s);
    let q = query(
        "clip_length=5&skip_start=0&skip_end=0&character_preference=None&number_of_top_candidates=2\
         &minimum_clip_separation=2&start_bwd_snap_search=1&end_fwd_snap_search=1.5\
         &end_bwd_speech_search=1&end_fwd_speech_search=1.5",
    );
    let clips = select(&p, &q, None).unwrap();
    assert_eq!(clips.len(), 2);

    // Clip 0: candidate [7, 12]. Snap: start 7 -> 6.5 (boundary within [6, 7]); end 12 -> 13
    // (within [12, 13.5]). Speech: end 13 lies inside speech (12.5, 14): nearest safe time in
    // [12, 14.5] is 12.5 (0.5 back; 14 is 1.0 ahead), so the end moves by -0.5. The start 6.5 is
    // clear of (12 - 0.5, 14 + 0.5). Final [6.5, 12.5] covers samples 6..=12:
    // (0.2 + 5 * 0.9 + 0.1) / 7 = 0.685714.
    let c = &clips[0];
    assert_eq!((c.snapped_start, c.snapped_stop), (6.5, 13.0));
    assert_eq!((c.start_time, c.stop_time), (6.5, 12.5));
    assert_eq!((c.start_speech_avoidance, c.end_speech_avoidance), (0.0, -0.5));
    assert_eq!(c.relevance, 0.685714);
    assert_eq!(c.type_score, 0.685714);
    assert_eq!((c.start_frame, c.stop_frame), (163, 313)); // 162.5 and 312.5 round away from 0
    assert_eq!(c.characters, vec![0]);
    assert_eq!(c.keywords.len(), 1);
    assert_eq!(c.keyword.as_ref().map(|k| (k.name.as_str(), k.score)), Some(("storm", 0.9)));
    assert_eq!(c.mood_tag.as_ref().map(|k| k.name.as_str()), Some("tense"));
    assert_eq!(c.clip_type.as_str(), "ANY"); // Exciting is 0 over this clip
    assert_eq!((c.nudity, c.blood_gore, c.profanity, c.brightness), (0.1, 0.0, 0.0, 0.5));
    assert_eq!(c.clip_index, 0);

    // Clip 1: must be 2 s clear of [7, 12]: s <= 0 or s >= 14. [15, 20] has mean 0.5, [14, 19]
    // 0.4, [0, 5] 0. No boundary near 15 or 20, no speech near either edge.
    let c = &clips[1];
    assert_eq!((c.start_time, c.stop_time), (15.0, 20.0));
    assert_eq!((c.snapped_start, c.snapped_stop), (15.0, 20.0));
    assert_eq!(c.relevance, 0.5);
    assert_eq!(c.characters, vec![1]);
    assert!(c.keyword.is_none() && c.keywords.is_empty() && c.mood.is_empty());
    assert_eq!(c.clip_type.as_str(), "Exciting");
    assert_eq!((c.start_frame, c.stop_frame), (375, 500));
    assert_eq!(c.clip_index, 1);

    // The JSON carries exactly the interface's field names.
    let json = serde_json::to_value(&clips[1]).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    for k in [
        "start_time",
        "stop_time",
        "relevance",
        "query_relevance",
        "search_query",
        "start_frame",
        "stop_frame",
        "characters",
        "nudity",
        "blood_gore",
        "profanity",
        "brightness",
        "clip_index",
        "snapped_start",
        "snapped_stop",
        "clip_type",
        "environment",
        "keywords",
        "keyword",
        "mood",
        "mood_tag",
        "start_speech_avoidance",
        "end_speech_avoidance",
        "type_score",
        "inventory_id",
        "fps",
        "source_frame_width",
        "source_frame_height",
    ] {
        assert!(keys.contains(&k), "missing {k}");
    }
    assert_eq!(json["keyword"], serde_json::Value::Null);
}
