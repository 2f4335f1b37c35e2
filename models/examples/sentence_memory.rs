//! Memory of the sentence encoder's model sessions (int8, one per core in the service): the
//! process's resident memory before loading, after loading `SESSIONS` sessions, and after each has
//! encoded a query.
//!
//! ```text
//! for n in 1 2 4 8; do cargo run --release -q -p kino-models --example sentence_memory -- $n; done
//! ```

use kino_models::{ModelsDir, Runtime, SentenceEncoder};

/// The resident set of this process, MiB (`VmRSS` of `/proc/self/status`).
fn resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sessions: usize = std::env::args().nth(1).ok_or("usage: sentence_memory SESSIONS")?.parse()?;
    let dir = ModelsDir::resolve(None)?;
    let runtime = Runtime::load(&dir)?;
    let before = resident_mib();
    let encoder = SentenceEncoder::load(&runtime, &dir, sessions)?;
    let loaded = resident_mib();
    // As many texts as sessions: one call each, spread over every session.
    let texts: Vec<String> =
        (0..sessions).map(|i| format!("a car chase through the city at night, take {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    encoder.encode_batch(&refs)?;
    let used = resident_mib();
    println!(
        "{sessions} session(s): {before:.0} MiB before, {loaded:.0} MiB loaded (+{:.1} per session), {used:.0} MiB after a query on each (+{:.1} per session)",
        (loaded - before) / sessions as f64,
        (used - before) / sessions as f64,
    );
    Ok(())
}
