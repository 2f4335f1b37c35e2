//! Scene search on full real videos (issue 48): ranks every scene of the analysed videos for
//! each query of the ground truth, as `/search/v1/scenes` ranks a catalog's scenes by text, and
//! writes the rankings for `scripts/scene_search_eval.py` to score. `scripts/scene-search-eval.sh`
//! analyses the videos and runs both.
//!
//!   scene_search GROUND_TRUTH.json OUT.json NAME=SIGNALS.json...
//!
//! Methods written: `description` (the scene embedding alone: the service before channels),
//! `fused` (the service's fusion, `kino::vectors::fusion::Fusion::DEFAULT`), `fused-w<W>` (the
//! description's weight `W` swept), and `seen`, `said`, `written`, `heard` (one channel alone;
//! scenes without it last). With `KINO_SEARCH_SWEEP=1`, also the grid of weights and channel
//! offsets the fusion's settings were chosen from, on the tuning half only.

use std::collections::BTreeMap;

use kino::signals::SceneChannels;
use kino::vectors::fusion::{ChannelScores, Fusion, dot_prefix};
use kino::{Signals, TextEncoder};
use kino_models::{ModelsDir, Runtime, SentenceEncoder};
use serde_json::{Value, json};

/// Scenes kept per query and method.
const TOP: usize = 20;

/// Description weights swept.
const WEIGHTS: [f32; 6] = [0.0, 0.2, 0.4, 0.5, 0.6, 0.8];

/// The grid `KINO_SEARCH_SWEEP=1` adds (`sweep-w<W>-o<seen>/<said>/<written>/<heard>`): the
/// description's weight and the offsets of the channels, the fusion's settings chosen on the
/// tuning half (docs/media.md).
fn sweep_grid() -> Vec<Fusion> {
    let mut grid = Vec::new();
    for w in [0.5, 0.6, 0.7, 0.8, 0.9] {
        for seen in [0.0, -0.05, -0.1, -0.2] {
            for heard in [0.0, -0.05, -0.1, -0.2] {
                for said_written in [0.0, 0.05] {
                    grid.push(Fusion { description_weight: w, offsets: [seen, said_written, said_written, heard] });
                }
            }
        }
    }
    grid
}

struct Scene {
    video: String,
    start: f64,
    end: f64,
    description: Vec<f32>,
    channels: [Option<Vec<f32>>; 4],
}

/// Every object of the ground truth with an `id` and a `text`: the queries, wherever they sit.
fn queries(v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            if let (Some(Value::String(id)), Some(Value::String(text))) = (map.get("id"), map.get("text")) {
                out.push((id.clone(), text.clone()));
            }
            map.values().for_each(|x| queries(x, out));
        }
        Value::Array(list) => list.iter().for_each(|x| queries(x, out)),
        _ => {}
    }
}

fn scenes_of(name: &str, doc: &Signals) -> Vec<Scene> {
    let none = SceneChannels::default();
    let channels = doc.scene_channels.as_ref().unwrap_or(&none);
    let lists = channels.lists();
    doc.scenes
        .iter()
        .zip(doc.scene_embeddings.as_deref().unwrap_or_default())
        .enumerate()
        .map(|(i, (s, e))| Scene {
            video: name.to_string(),
            start: s.start,
            end: s.end,
            description: e.clone(),
            channels: std::array::from_fn(|k| lists[k].get(i).cloned().flatten()),
        })
        .collect()
}

fn ranked(scenes: &[Scene], score: impl Fn(&Scene) -> f32) -> Value {
    let mut order: Vec<(f32, usize)> = scenes.iter().enumerate().map(|(i, s)| (score(s), i)).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Value::Array(
        order
            .iter()
            .take(TOP)
            .map(|&(_, i)| json!({"video": scenes[i].video, "start": scenes[i].start, "end": scenes[i].end}))
            .collect(),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(truth), Some(out), docs) = (args.first(), args.get(1), args.get(2..).unwrap_or_default()) else {
        return Err("usage: scene_search GROUND_TRUTH.json OUT.json NAME=SIGNALS.json...".into());
    };
    let truth: Value = serde_json::from_slice(&std::fs::read(truth)?)?;
    let mut all = Vec::new();
    let mut spans: BTreeMap<String, Vec<[f64; 2]>> = BTreeMap::new();
    for doc in docs {
        let (name, path) = doc.split_once('=').ok_or("each document is NAME=SIGNALS.json")?;
        let signals = Signals::load(path)?;
        if signals.scene_channels.is_none() {
            eprintln!("scene_search: {name} has no scene_channels (analysed by an older build?)");
        }
        spans.insert(name.to_string(), signals.scenes.iter().map(|s| [s.start, s.end]).collect());
        all.extend(scenes_of(name, &signals));
    }
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let encoder = SentenceEncoder::load(&runtime, &dir, 1)?;
    let mut asked = Vec::new();
    queries(&truth, &mut asked);
    let texts: Vec<&str> = asked.iter().map(|(_, t)| t.as_str()).collect();
    let vectors = encoder.encode_batch(&texts)?;
    let sweep = std::env::var_os("KINO_SEARCH_SWEEP").is_some();
    let mut methods: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    for ((id, _), q) in asked.iter().zip(&vectors) {
        // The scene space's text part is the sentence model's (the lift is the identity on it).
        let scores = |s: &Scene| ChannelScores {
            description: dot_prefix(q, &s.description),
            channels: std::array::from_fn(|k| s.channels[k].as_deref().map(|v| dot_prefix(q, v))),
        };
        let mut put = |method: String, ranking: Value| {
            methods.entry(method).or_default().insert(id.clone(), ranking);
        };
        put("description".into(), ranked(&all, |s| scores(s).description));
        put("fused".into(), ranked(&all, |s| Fusion::DEFAULT.fuse(&scores(s))));
        for w in WEIGHTS {
            let fusion = Fusion { description_weight: w, ..Fusion::DEFAULT };
            put(format!("fused-w{w}"), ranked(&all, |s| fusion.fuse(&scores(s))));
        }
        if sweep {
            for fusion in sweep_grid() {
                let name = format!(
                    "sweep-w{}-o{}",
                    fusion.description_weight,
                    fusion.offsets.iter().map(|o| o.to_string()).collect::<Vec<_>>().join("/")
                );
                put(name, ranked(&all, |s| fusion.fuse(&scores(s))));
            }
        }
        for (k, name) in SceneChannels::NAMES.iter().enumerate() {
            put(name.to_string(), ranked(&all, |s| scores(s).channels[k].unwrap_or(-2.0)));
        }
    }
    let machine = format!(
        "{} cores, {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|c| c.lines().find(|l| l.starts_with("model name")).map(|l| l
                .split(':')
                .nth(1)
                .unwrap_or("")
                .trim()
                .to_string()))
            .unwrap_or_default()
    );
    let results = json!({"machine": machine, "encoder": encoder.version(), "scenes": spans, "methods": methods});
    std::fs::write(out, serde_json::to_vec_pretty(&results)?)?;
    eprintln!("scene_search: {} queries over {} scenes of {} videos -> {out}", asked.len(), all.len(), spans.len());
    Ok(())
}
