//! Generates the demo catalog in `data/demo/`: catalog items in the interface's ingestion shape
//! (`catalog.json`) and one signals document per playable item (`signals/<id>.json`).
//!
//! ```text
//! cargo run --release --example generate_demo [-- <output dir>]
//! ```
//! Deterministic: the same code always writes the same bytes.

use std::path::{Path, PathBuf};

use kino::clips::ClipType;
use kino::synth::{SplitMix64, SynthOptions, generate};
use kino::{LexicalEncoder, Signals, TextEncoder};
use serde_json::{Value, json};

struct Title {
    id: &'static str,
    title: &'static str,
    year: u32,
    minutes: f64,
    genres: &'static [&'static str],
    keywords: &'static [&'static str],
    cast: &'static [&'static str],
    rating: &'static str,
    scene_embeddings: bool,
    step: f64,
}

const MOVIES: &[Title] = &[
    Title {
        id: "tt-demo-001",
        title: "Iron Harbor",
        year: 2019,
        minutes: 118.0,
        genres: &["action", "thriller"],
        keywords: &["car chase", "explosion", "gunfight"],
        cast: &["Ada Stone", "Rui Tanaka", "Mila Ortiz"],
        rating: "PG-13",
        scene_embeddings: true,
        step: 1.0,
    },
    Title {
        id: "tt-demo-002",
        title: "The Quiet Orchard",
        year: 2021,
        minutes: 104.0,
        genres: &["drama", "romance"],
        keywords: &["wedding", "kiss", "dinner"],
        cast: &["Lena Fischer", "Tom Arkwright"],
        rating: "PG",
        scene_embeddings: true,
        step: 1.0,
    },
    Title {
        id: "tt-demo-003",
        title: "Night Shift at Saint Vera",
        year: 2017,
        minutes: 96.0,
        genres: &["horror"],
        keywords: &["hospital", "storm", "fire"],
        cast: &["Noor Haddad", "Piotr Nowak", "Jade Kim"],
        rating: "R",
        scene_embeddings: true,
        step: 1.0,
    },
    Title {
        id: "tt-demo-004",
        title: "Starfall Protocol",
        year: 2023,
        minutes: 131.0,
        genres: &["science fiction", "action"],
        keywords: &["spaceship", "robot", "explosion"],
        cast: &["Kofi Mensah", "Ada Stone"],
        rating: "PG-13",
        scene_embeddings: false,
        step: 1.0,
    },
    Title {
        id: "tt-demo-005",
        title: "Grandma's Secret Recipe",
        year: 2015,
        minutes: 92.0,
        genres: &["comedy", "family"],
        keywords: &["dinner", "dog", "party"],
        cast: &["Rosa Bell", "Sam Okafor"],
        rating: "G",
        scene_embeddings: false,
        step: 1.0,
    },
    Title {
        id: "tt-demo-006",
        title: "Desert of Glass",
        year: 2011,
        minutes: 125.0,
        genres: &["adventure", "drama"],
        keywords: &["horse", "storm", "train"],
        cast: &["Omar Farouk", "Ines Duarte"],
        rating: "PG-13",
        scene_embeddings: false,
        step: 1.0,
    },
    Title {
        id: "tt-demo-007",
        title: "Laugh Track",
        year: 2020,
        minutes: 88.0,
        genres: &["comedy"],
        keywords: &["party", "dance", "beach"],
        cast: &["Jade Kim", "Tom Arkwright"],
        rating: "PG",
        scene_embeddings: false,
        step: 1.0,
    },
    Title {
        id: "tt-demo-008",
        title: "Frames of Snow (short, 24 fps analysis)",
        year: 2022,
        minutes: 12.0,
        genres: &["drama", "short"],
        keywords: &["snow", "mountains", "funeral"],
        cast: &["Lena Fischer"],
        rating: "PG",
        scene_embeddings: false,
        step: 1.0 / 24.0,
    },
];

const SERIES_ID: &str = "series-harbor-lights";

fn clip_types_for(genres: &[&str]) -> Vec<ClipType> {
    let mut out = Vec::new();
    for g in genres {
        out.extend(match *g {
            "action" | "science fiction" => &[ClipType::HighOctaneAction, ClipType::Exciting, ClipType::Epic][..],
            "thriller" => &[ClipType::Exciting, ClipType::DarkAndGritty][..],
            "horror" => {
                &[ClipType::Scary, ClipType::CreepyAndScary, ClipType::GoryAndBloody, ClipType::DarkAndGritty][..]
            }
            "romance" => &[ClipType::Romantic, ClipType::Heartfelt][..],
            "drama" | "short" => &[ClipType::Emotional, ClipType::Heartfelt][..],
            "comedy" | "family" => &[ClipType::FunnyAndComical, ClipType::Heartfelt][..],
            "adventure" => &[ClipType::EpicScenery, ClipType::Epic, ClipType::Exciting][..],
            _ => &[][..],
        });
    }
    out.sort();
    out.dedup();
    out
}

/// A 256-float item embedding from the item's genres and keywords (plus noise), so that similar
/// titles share words.
fn item_embedding(genres: &[&str], keywords: &[&str], rng: &mut SplitMix64) -> Vec<f32> {
    let text = format!("{} {}", genres.join(" "), keywords.join(" "));
    let base = LexicalEncoder::with_dim(256).encode(&text).expect("item text has words");
    let noisy: Vec<f64> = base.iter().map(|&v| f64::from(v) + 0.02 * rng.normal()).collect();
    let norm = noisy.iter().map(|v| v * v).sum::<f64>().sqrt();
    noisy.iter().map(|v| ((v / norm * 10_000.0).round() / 10_000.0) as f32).collect()
}

fn signals_for(
    id: &str,
    minutes: f64,
    step: f64,
    genres: &[&str],
    keywords: &[&str],
    scenes: bool,
    seed: u64,
) -> Signals {
    let mut o = SynthOptions::new(id, minutes * 60.0, step, seed);
    o.scene_embeddings = scenes;
    let types = clip_types_for(genres);
    if !types.is_empty() {
        o.clip_types = types;
    }
    let mut s = generate(&o);
    let mut rng = SplitMix64::new(seed ^ 0xabcd);
    s.item_embedding = Some(item_embedding(genres, keywords, &mut rng));
    s
}

fn item(t: &Title) -> Value {
    json!({
        "id": t.id,
        "type": "standalone",
        "title": t.title,
        "release_year": t.year,
        "tag": ["demo"],
        "poster_urls": [format!("https://images.example.invalid/{}/poster.jpg", t.id)],
        "external_ids": [{"provider": "IMDB", "id": format!("tt9{:06}", t.id[8..].parse::<u32>().unwrap_or(0))}],
        "metadata": {
            "genres": t.genres,
            "keywords": t.keywords,
            "cast": t.cast,
            "short_description": format!("{} ({}), a demo title.", t.title, t.year),
        },
        "ratings": [{"scheme": "MPAA", "rating": t.rating}],
        "window_info": {"start": "2024-01-01T00:00:00Z", "end": "2030-12-31T23:59:59Z"},
        "logo_urls": {"dark": format!("https://images.example.invalid/{}/logo-dark.png", t.id)},
        "asset_info": {"file_uri": format!("media/{}.mp4", t.id), "duration": t.minutes * 60.0},
    })
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn main() {
    let out = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        // `cargo run` names the package's directory at run time; a path baked in at build time
        // would lead into another clone when a shared build directory serves several.
        .unwrap_or_else(|| Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or(".".into())).join("data/demo"));
    let signals_dir = out.join("signals");
    std::fs::create_dir_all(&signals_dir).expect("create output directory");
    let mut items = Vec::new();
    for (i, t) in MOVIES.iter().enumerate() {
        items.push(item(t));
        let s = signals_for(t.id, t.minutes, t.step, t.genres, t.keywords, t.scene_embeddings, 100 + i as u64);
        write(&signals_dir.join(format!("{}.json", t.id)), &s.to_json());
    }
    items.push(json!({
        "id": SERIES_ID, "type": "series", "title": "Harbor Lights", "release_year": 2022,
        "tag": ["demo"], "metadata": {"genres": ["drama", "crime"], "keywords": ["harbor", "storm"], "cast": ["Mila Ortiz", "Kofi Mensah"]},
        "window_info": {"start": "2024-01-01T00:00:00Z", "end": "2030-12-31T23:59:59Z"},
        "external_ids": [{"provider": "IMDB", "id": "tt9100000"}],
    }));
    for season in 1..=2u32 {
        let season_id = format!("season-harbor-lights-{season}");
        items.push(json!({
            "id": season_id, "type": "season", "title": format!("Harbor Lights, season {season}"),
            "episodic_info": {"series_id": SERIES_ID, "season_number": season},
        }));
        for episode in 1..=3u32 {
            let id = format!("ep-harbor-lights-s{season}e{episode}");
            let minutes = 42.0 + f64::from(episode) * 2.5;
            items.push(json!({
                "id": id, "type": "episode", "title": format!("Harbor Lights S{season}E{episode}"), "release_year": 2021 + season,
                "metadata": {"genres": ["drama", "crime"], "keywords": ["harbor", "storm", "train"]},
                "episodic_info": {"series_id": SERIES_ID, "season_id": season_id, "season_number": season, "episode_number": episode},
                "window_info": {"start": "2024-01-01T00:00:00Z", "end": "2030-12-31T23:59:59Z"},
                "asset_info": {"file_uri": format!("media/{id}.mp4"), "duration": minutes * 60.0},
            }));
            let scenes = season == 1 && episode == 1;
            let s = signals_for(
                &id,
                minutes,
                1.0,
                &["drama", "crime"],
                &["harbor", "storm", "train"],
                scenes,
                u64::from(season * 10 + episode),
            );
            write(&signals_dir.join(format!("{id}.json")), &s.to_json());
        }
    }
    write(&out.join("catalog.json"), &(serde_json::to_string_pretty(&items).expect("JSON") + "\n"));
    eprintln!("wrote {} catalog items and their signals to {}", items.len(), out.display());
}
