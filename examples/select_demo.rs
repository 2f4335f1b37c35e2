//! Selects preview clips for a demo title and prints them as the previews interface would.
//!
//! ```text
//! cargo run --release --example select_demo [-- <signals.json> [key=value ...]]
//! ```
//! Without arguments it reads the first demo title of `data/demo/`. Extra `key=value` arguments
//! are previews parameters (`clip_length=20`, `clip_type=Exciting`, `search_query=explosion`...).

use std::time::Instant;

use kino::{ClipQuery, LexicalEncoder, Prepared, Signals, TextEncoder, select};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    let path = match args.peek() {
        Some(a) if !a.contains('=') => args.next().expect("peeked"),
        // `cargo run` names the package's directory at run time; a path baked in at build time
        // would be stale when a shared build directory serves another clone.
        _ => std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()))
            .join("data/demo/signals/tt-demo-001.json")
            .display()
            .to_string(),
    };
    let pairs: Vec<(String, String)> = args
        .map(|a| match a.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => Err(format!("expected key=value, got {a:?}")),
        })
        .collect::<Result<_, _>>()?;
    let started = Instant::now();
    let signals = Signals::load(&path)?;
    let loaded = started.elapsed();
    let prepared = Prepared::new(signals)?;
    let query = ClipQuery::from_pairs(pairs)?;
    let embedding = match &query.search_query {
        Some(text) => Some(LexicalEncoder::default().encode(text)?),
        None => None,
    };
    let started = Instant::now();
    let clips = select(&prepared, &query, embedding.as_deref())?;
    let selected = started.elapsed();
    println!("{}", serde_json::to_string_pretty(&clips)?);
    eprintln!(
        "{}: {:.0} s at {} s steps, {} samples; loaded in {loaded:.2?}, {} clips selected in {selected:.2?}",
        prepared.signals().inventory_id,
        prepared.duration(),
        prepared.step(),
        prepared.samples(),
        clips.len()
    );
    Ok(())
}
