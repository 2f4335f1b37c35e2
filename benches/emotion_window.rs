//! Emotion windows over a 2-hour title at 24 fps (172,800 samples of 7 emotions plus valence,
//! arousal and dominance), reported in samples per second, against a plain memory pass that reads
//! the same arrays once and sums them: the floor any one-pass aggregation pays.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kino::Signals;
use kino::emotions::{DEFAULT_WINDOW, emotion_windows, emotion_windows_many};
use kino::signals::Emotions;

const DURATION: f64 = 2.0 * 3600.0;
const STEP: f64 = 1.0 / 24.0;
const SEED: u64 = 20;

/// Sums every value of every sample: one read of the arrays `emotion_windows` reads.
fn plain_pass(e: &Emotions) -> f64 {
    let mut total = 0.0;
    for (i, row) in e.probs.iter().enumerate() {
        for &p in row {
            total += f64::from(p);
        }
        total += f64::from(e.valence[i]) + f64::from(e.arousal[i]) + f64::from(e.dominance[i]);
    }
    total
}

fn bench(c: &mut Criterion) {
    let signals = kino::synth::demo_signals("bench-2h-24fps", DURATION, STEP, SEED);
    let emotions = signals.emotions.as_ref().expect("demo signals carry emotions");
    let samples = emotions.probs.len() as u64;
    let mut group = c.benchmark_group("emotion_window/2h_24fps");
    group.throughput(Throughput::Elements(samples));
    group.bench_function("plain_memory_pass", |b| b.iter(|| plain_pass(black_box(emotions))));
    group.bench_function("windows_10s", |b| b.iter(|| emotion_windows(black_box(&signals), DEFAULT_WINDOW).unwrap()));
    group.bench_function("windows_1s", |b| b.iter(|| emotion_windows(black_box(&signals), 1.0).unwrap()));
    group.finish();

    let titles: Vec<Signals> =
        (0..8).map(|i| kino::synth::demo_signals(&format!("t{i}"), DURATION, STEP, SEED + i)).collect();
    let refs: Vec<&Signals> = titles.iter().collect();
    let mut group = c.benchmark_group("emotion_window/8_titles_2h_24fps");
    group.throughput(Throughput::Elements(samples * 8));
    group.sample_size(20);
    group.bench_function("windows_10s_parallel", |b| b.iter(|| emotion_windows_many(black_box(&refs), DEFAULT_WINDOW)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
