//! Binge markers of a season from its episodes' signals documents, and how long computing them
//! takes: the figure behind "markers of a 10-episode season in under 10 s" (docs/media.md). The
//! files are the episodes in order (episode numbers 1, 2, ...); `--episodes N` cycles through them
//! to N episodes (a longer season from a few analysed episodes, for timing), `--runs N` times N
//! runs and prints the median.
//!
//! ```text
//! kino analyze e1.mp4 -o e1.json   # ... for each episode
//! cargo run --release --example markers_report -- e1.json e2.json e3.json e4.json
//! cargo run --release --example markers_report -- --episodes 10 --runs 5 e1.json e2.json e3.json e4.json
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
    if files.is_empty() {
        eprintln!("usage: markers_report [--episodes N] [--runs N] EPISODE.json...");
        std::process::exit(2);
    }
    let docs: Vec<kino::Signals> = files
        .iter()
        .map(|f| {
            kino::Signals::load(f.as_str()).unwrap_or_else(|e| {
                eprintln!("markers_report: {f}: {e}");
                std::process::exit(1);
            })
        })
        .collect();
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
