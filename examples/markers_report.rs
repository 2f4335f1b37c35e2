//! Binge markers of a season from its episodes' signals documents, and how long computing them
//! takes: the figure behind "markers of a 10-episode season in under 10 s" (docs/media.md). The
//! files are the episodes in order (episode numbers 1, 2, ...); `--episodes N` cycles through them
//! to N episodes (a longer season from a few analysed episodes, for timing), `--runs N` times N
//! runs and prints the median. `--generate MINUTES` times a generated season instead (no files):
//! `--episodes` episodes (default 10) of random sound and picture sharing a 60 s intro.
//!
//! ```text
//! kino analyze e1.mp4 -o e1.json   # ... for each episode
//! cargo run --release --example markers_report -- e1.json e2.json e3.json e4.json
//! cargo run --release --example markers_report -- --episodes 10 --runs 5 e1.json e2.json e3.json e4.json
//! cargo run --release --example markers_report -- --generate 45 --runs 3
//! ```

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |name: &str| -> Option<usize> {
        let at = args.iter().position(|a| a == name)?;
        match args.get(at + 1).and_then(|v| v.parse().ok()) {
            Some(n) if n > 0 => Some(n),
            _ => {
                eprintln!("markers_report: {name} needs a whole number of at least 1");
                std::process::exit(2);
            }
        }
    };
    let count = number("--episodes");
    let runs = number("--runs").unwrap_or(1);
    let mut skip = false;
    let files: Vec<&String> = args
        .iter()
        .filter(|a| {
            let flag = a.starts_with("--");
            let keep = !flag && !skip;
            skip = flag;
            keep
        })
        .collect();
    let docs: Vec<kino::Signals> = match number("--generate") {
        Some(minutes) => generated(count.unwrap_or(10), minutes as f64),
        None if files.is_empty() => {
            eprintln!("usage: markers_report [--episodes N] [--runs N] (EPISODE.json... | --generate MINUTES)");
            std::process::exit(2);
        }
        None => files
            .iter()
            .map(|f| {
                kino::Signals::load(f.as_str()).unwrap_or_else(|e| {
                    eprintln!("markers_report: {f}: {e}");
                    std::process::exit(1);
                })
            })
            .collect(),
    };
    let episodes: Vec<kino::markers::Episode<'_>> = docs
        .iter()
        .cycle()
        .take(count.unwrap_or(docs.len()))
        .enumerate()
        .map(|(i, s)| kino::markers::Episode { number: Some(i as i64 + 1), signals: s })
        .collect();
    let hours: f64 = episodes.iter().map(|e| e.signals.duration).sum::<f64>() / 3600.0;
    let mut times = Vec::with_capacity(runs);
    let mut markers = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        markers = kino::markers::season_markers(&episodes);
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let span = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{a:.2}–{b:.2}"),
        (Some(a), None) => format!("{a:.2}–"),
        _ => "—".to_string(),
    };
    println!("| episode | intro | recap | credits | post-credits scene |");
    println!("|---|---|---|---|---|");
    for (i, m) in markers.iter().enumerate() {
        println!(
            "| {} | {} | {} | {} | {} |",
            i + 1,
            span(m.intro_start, m.intro_end),
            span(m.recap_start, m.recap_end),
            span(m.credit_start, m.credit_end),
            span(m.post_credits_start, m.post_credits_end)
        );
    }
    println!(
        "markers of {} episodes ({hours:.2} h of video): {:.3} s (median of {runs} runs, one thread)",
        episodes.len(),
        times[times.len() / 2]
    );
}

/// `n` episodes of `minutes` each: random sound, and a picture of 3 s shots that move, sharing a
/// 60 s intro at a different place in each.
fn generated(n: usize, minutes: f64) -> Vec<kino::Signals> {
    let hops = (minutes * 600.0) as usize;
    let intro = kino::synth::fingerprint_hashes(600, 99);
    let titles = kino::synth::fingerprint_hashes(20, 98);
    (0..n as u64)
        .map(|i| {
            let mut s = kino::synth::demo_signals(&format!("e{}", i + 1), minutes * 60.0, 1.0, i);
            let at = (300 + 200 * i as usize).min(hops.saturating_sub(600));
            let mut sound = kino::synth::fingerprint_hashes(hops, i + 1);
            let shots = kino::synth::fingerprint_hashes(hops / 30 + 1, i + 100);
            let mut picture: Vec<u32> = (0..hops).map(|k| shots[k / 30] ^ (k % 30) as u32).collect();
            for k in 0..600.min(hops - at) {
                sound[at + k] = intro[k];
                picture[at + k] = titles[k / 30] ^ (k % 30) as u32;
            }
            s.audio_fingerprint = Some(kino::signals::AudioFingerprint { hop: 0.1, hashes: sound });
            s.picture_fingerprint = Some(kino::signals::PictureFingerprint { hop: 0.1, hashes: picture });
            s.text = None;
            s
        })
        .collect()
}
