//! Scene search by what is on screen, measured on real footage judged by eye (issue 33):
//! `scripts/visual-search-eval.sh` builds the videos and runs this. Every video of the ground
//! truth (`data/visual-search/ground-truth.json`) is analysed with every model, once without the
//! image classifier ("before") and once per share of what is seen in the scene embeddings; each
//! text query is then ranked against every scene of the catalog exactly as `/search/v1/scenes`
//! ranks them (the query encoded by the scene space, scenes by cosine similarity). Prints hit@3
//! and recall@10 per setting and query kind, the image labels' precision on the stills, and the
//! shot-type rule's agreement with the types judged by eye.
//!
//!   cargo run --release -p kino-media --example visual_search_eval -- GROUND_TRUTH VIDEO_DIR

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kino::Signals;
use kino_media::{AnalysisModels, AnalyzeOptions, analyze};
use kino_models::ModelsDir;
use serde_json::Value;

/// The shares of what is seen tried (0: the labels only named in the description).
const WEIGHTS: [f32; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

struct Scene {
    video: String,
    start: f64,
    end: f64,
    vector: Vec<f32>,
}

fn analyse_all(videos: &[(String, PathBuf)], models: &AnalysisModels, weight: f32) -> Vec<(String, Signals)> {
    videos
        .iter()
        .map(|(name, path)| {
            let options = AnalyzeOptions { seen_weight: weight, ..AnalyzeOptions::default() };
            let doc = analyze(path, &options, models, |_, _| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name.clone(), doc)
        })
        .collect()
}

fn scenes(docs: &[(String, Signals)]) -> Vec<Scene> {
    docs.iter()
        .flat_map(|(name, doc)| {
            let vectors = doc.scene_embeddings.clone().unwrap_or_default();
            doc.scenes.iter().zip(vectors).map(|(s, v)| Scene {
                video: name.clone(),
                start: s.start,
                end: s.end,
                vector: v,
            })
        })
        .collect()
}

/// Whether `scene` counts for the relevant span: at least half of it inside.
fn relevant(scene: &Scene, span: &(String, f64, f64)) -> bool {
    let overlap = (scene.end.min(span.2) - scene.start.max(span.1)).max(0.0);
    scene.video == span.0 && overlap >= 0.5 * (scene.end - scene.start)
}

/// (hit@3, recall@10) by query kind, and overall.
fn rank(truth: &Value, scenes: &[Scene], models: &AnalysisModels) -> BTreeMap<String, (f64, f64, usize)> {
    let encoder = models.scene_text_encoder();
    let mut by_kind: BTreeMap<String, (f64, f64, usize)> = BTreeMap::new();
    for q in truth["queries"].as_array().unwrap() {
        let text = q["text"].as_str().unwrap();
        let spans: Vec<(String, f64, f64)> = q["relevant"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_f64().unwrap(), r[2].as_f64().unwrap()))
            .collect();
        let v = encoder.encode(text).unwrap();
        let mut order: Vec<(f32, usize)> =
            scenes.iter().enumerate().map(|(i, s)| (s.vector.iter().zip(&v).map(|(a, b)| a * b).sum(), i)).collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0));
        let hit3 = order.iter().take(3).any(|&(_, i)| spans.iter().any(|sp| relevant(&scenes[i], sp)));
        let found10 = spans.iter().filter(|sp| order.iter().take(10).any(|&(_, i)| relevant(&scenes[i], sp))).count();
        let recall10 = found10 as f64 / spans.len() as f64;
        for kind in [q["kind"].as_str().unwrap(), "all"] {
            let e = by_kind.entry(kind.to_string()).or_insert((0.0, 0.0, 0));
            e.0 += f64::from(u8::from(hit3));
            e.1 += recall10;
            e.2 += 1;
        }
    }
    by_kind
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (truth_path, video_dir) = match args.as_slice() {
        [_, t, v] => (PathBuf::from(t), PathBuf::from(v)),
        _ => {
            eprintln!("usage: visual_search_eval GROUND_TRUTH VIDEO_DIR");
            std::process::exit(2);
        }
    };
    let truth: Value = serde_json::from_slice(&std::fs::read(&truth_path).unwrap()).unwrap();
    let videos: Vec<(String, PathBuf)> = truth["videos"]
        .as_object()
        .unwrap()
        .keys()
        .map(|name| (name.clone(), video_dir.join(format!("{name}.mp4"))))
        .collect();
    for (_, p) in &videos {
        assert!(Path::new(p).is_file(), "{} is missing (run scripts/visual-search-eval.sh)", p.display());
    }
    let dir = ModelsDir::resolve(None).unwrap();
    // ONNX Runtime is initialised once per process: one set of models, the classifier left out
    // of "before" by hand.
    let full = AnalysisModels::load(&dir, 2);
    let mut partial = AnalysisModels::load(&dir, 2);
    partial.disable("efficientnet-lite0", "left out of the measurement's baseline");
    assert!(full.state("efficientnet-lite0").is_some_and(|s| s.loaded), "the image classifier must be fetched");

    println!("| setting | seen hit@3 | seen recall@10 | said+written hit@3 | all hit@3 | all recall@10 |");
    println!("|---|---|---|---|---|---|");
    let row = |name: &str, r: &BTreeMap<String, (f64, f64, usize)>| {
        let get = |k: &str| r.get(k).copied().unwrap_or((0.0, 0.0, 0));
        let (seen, all) = (get("seen"), get("all"));
        let other = (get("said").0 + get("written").0, get("said").2 + get("written").2);
        println!(
            "| {name} | {}/{} | {:.2} | {}/{} | {}/{} | {:.2} |",
            seen.0,
            seen.2,
            seen.1 / seen.2.max(1) as f64,
            other.0,
            other.1,
            all.0,
            all.2,
            all.1 / all.2.max(1) as f64
        );
    };
    let before = analyse_all(&videos, &partial, 0.0);
    row("before: no image classifier", &rank(&truth, &scenes(&before), &partial));
    let mut analysed = Vec::new();
    for w in WEIGHTS {
        let docs = analyse_all(&videos, &full, w);
        row(&format!("with the picture, {w} seen"), &rank(&truth, &scenes(&docs), &full));
        analysed = docs;
    }

    // Label precision: the top label of every frame, against the classes judged right by eye.
    let names: Vec<String> = serde_json::from_slice(
        &std::fs::read(dir.model_dir(&kino_models::manifest::EFFICIENTNET_LITE0).join("imagenet1k_clean_names.json"))
            .unwrap(),
    )
    .unwrap();
    let still_at = |video: &str, t: f64| -> Option<&Value> {
        truth["videos"][video]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| t >= s["start"].as_f64().unwrap() && t < s["end"].as_f64().unwrap())
    };
    println!("\n| top label at least | frames | right (judged by eye) | precision |");
    println!("|---|---|---|---|");
    for threshold in [0.0, 0.2, 0.35, 0.5, 0.7] {
        let (mut n, mut right) = (0, 0);
        for (video, doc) in &analysed {
            for f in doc.visual.as_ref().map(|v| v.frames.as_slice()).unwrap_or_default() {
                let (Some(top), Some(still)) = (f.labels.first(), still_at(video, f.time)) else { continue };
                if top.score < threshold {
                    continue;
                }
                n += 1;
                let accept: Vec<u64> = still["accept"].as_array().unwrap().iter().filter_map(Value::as_u64).collect();
                let index = names.iter().position(|x| *x == top.name).map(|i| i as u64);
                let same_name = accept.iter().any(|&a| names.get(a as usize).is_some_and(|x| *x == top.name));
                right += usize::from(index.is_some_and(|i| accept.contains(&i)) || same_name);
            }
        }
        println!("| {threshold} | {n} | {right} | {:.2} |", right as f64 / n.max(1) as f64);
    }

    // The shot-type rule against the types judged by eye: the type of the shot covering each
    // still's middle.
    println!("\n| still | judged | rule | people | setting |");
    println!("|---|---|---|---|---|");
    let (mut agree, mut total) = (0, 0);
    for (video, doc) in &analysed {
        for still in truth["videos"][video].as_array().unwrap() {
            let middle = (still["start"].as_f64().unwrap() + still["end"].as_f64().unwrap()) / 2.0;
            let judged = still["shot_type"].as_str().unwrap();
            let Some(shot) =
                doc.visual.as_ref().and_then(|v| v.shot_types.iter().find(|s| middle >= s.start && middle < s.end))
            else {
                continue;
            };
            total += 1;
            agree += usize::from(shot.kind == judged);
            println!(
                "| {} | {judged} | {} | {} | {} |",
                still["image"].as_str().unwrap(),
                shot.kind,
                shot.people,
                shot.setting.as_deref().unwrap_or("-")
            );
        }
    }
    println!("\nshot types: {agree} of {total} agree with the judgement by eye");
    nudity_without_nudity(&dir, &video_dir);
    for (video, doc) in &analysed {
        let tags: Vec<String> = doc
            .all_tags()
            .map(|(t, source)| format!("{} ({}) {:.0}-{:.0} s {:.2}", t.name, source.as_str(), t.start, t.end, t.score))
            .collect();
        println!("{video}: {} scenes; tags {}", doc.scenes.len(), tags.join(", "));
    }
}

/// Frames of the videos, decoded at 640x360 every 0.2 s (every frame of the cartoon excerpt's
/// loop, near enough, and five a second of each still).
fn frames_of(path: &Path) -> Vec<Vec<u8>> {
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-vf", "fps=5,scale=640:360", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .unwrap();
    out.stdout.chunks_exact(640 * 360 * 3).map(<[u8]>::to_vec).collect()
}

/// open_nsfw on real frames without nudity (every frame of the evaluation videos, judged by eye:
/// a cartoon rabbit, a cat, a cup, a motorcycle, a rocket, people fully dressed, textures, text),
/// before and after the person rule: the frames scoring above 0.5 (the common filter) and 0.3.
fn nudity_without_nudity(dir: &ModelsDir, video_dir: &Path) {
    use kino_media::see::{Seen, nudity_scores};
    let runtime = kino_models::Runtime::load(dir).unwrap();
    let mut nsfw = kino_models::NsfwClassifier::load(&runtime, dir, 2).unwrap();
    let mut faces = kino_models::FaceAnalyzer::load(&runtime, dir, 2).unwrap();
    let mut labeler = kino_models::ImageLabeler::load(&runtime, dir, 2).unwrap();
    println!(
        "\n| frames (no nudity, judged by eye) | n | raw > 0.5 | ruled > 0.5 | raw > 0.3 | ruled > 0.3 | raw max | ruled max |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for name in ["eval-bbb", "eval-stills-a", "eval-stills-b", "eval-talk"] {
        let frames = frames_of(&video_dir.join(format!("{name}.mp4")));
        let (mut raw, mut ruled) = (Vec::new(), Vec::new());
        for data in &frames {
            let frame = kino_models::RgbFrame::new(640, 360, data).unwrap();
            let p = nsfw.classify(&[frame]).unwrap()[0];
            let found: Vec<kino_media::faces::Face> = faces.faces(frame).unwrap();
            let labels = labeler.label(&[frame], 5).unwrap().remove(0).top;
            let seen = Seen { time: 0.0, nsfw: Some(p), faces: Some(found), labels: Some(labels), ..Seen::default() };
            raw.push(p);
            ruled.push(nudity_scores(std::slice::from_ref(&seen))[0].unwrap_or(0.0));
        }
        let above = |v: &[f32], t: f32| v.iter().filter(|&&x| x > t).count();
        let max = |v: &[f32]| v.iter().copied().fold(0.0f32, f32::max);
        println!(
            "| {name} | {} | {} | {} | {} | {} | {:.3} | {:.3} |",
            raw.len(),
            above(&raw, 0.5),
            above(&ruled, 0.5),
            above(&raw, 0.3),
            above(&ruled, 0.3),
            max(&raw),
            max(&ruled)
        );
    }
}
