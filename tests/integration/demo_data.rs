//! The checked-in demo catalog stays valid and useful.

use kino::{ClipQuery, LexicalEncoder, Prepared, Signals, TextEncoder, select};

fn demo() -> std::path::PathBuf {
    crate::support::manifest_dir().join("data/demo")
}

#[test]
fn every_playable_item_has_valid_signals_and_clips() {
    let catalog: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(demo().join("catalog.json")).unwrap()).unwrap();
    let items = catalog.as_array().unwrap();
    assert!(items.len() >= 12);
    assert!(items.iter().any(|i| i["type"] == "series"));
    assert_eq!(items.iter().filter(|i| i["type"] == "season").count(), 2);
    let mut at_frame_rate = 0;
    for item in items.iter().filter(|i| i["type"] == "standalone" || i["type"] == "episode") {
        let id = item["id"].as_str().unwrap();
        let signals = Signals::load(demo().join(format!("signals/{id}.json"))).unwrap();
        assert_eq!(signals.inventory_id, id);
        assert_eq!(signals.item_embedding.as_ref().map(Vec::len), Some(256));
        at_frame_rate += usize::from(signals.step < 0.1);
        let p = Prepared::new(signals).unwrap();
        let clips = select(&p, &ClipQuery::default(), None).unwrap();
        assert_eq!(clips.len(), 5, "{id}");
    }
    assert_eq!(at_frame_rate, 1);
}

#[test]
fn a_text_query_finds_the_scenes_it_names() {
    let p = Prepared::new(Signals::load(demo().join("signals/tt-demo-001.json")).unwrap()).unwrap();
    let q = ClipQuery { search_query: Some("car chase".into()), number_of_top_candidates: 3, ..ClipQuery::default() };
    let e = LexicalEncoder::default().encode("car chase").unwrap();
    for clip in select(&p, &q, Some(&e)).unwrap() {
        assert!(clip.keywords.iter().any(|k| k.name == "car chase"), "{:?}", clip.keywords);
    }
}
