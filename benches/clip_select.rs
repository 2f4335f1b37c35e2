//! Clip selection: one query on one thread, at 1 s and 24 fps steps, by clip type, by search
//! query, across a catalog, and the load of a document (JSON vs binary).
//!
//! `cargo bench --bench clip_select`

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kino::{ClipQuery, LexicalEncoder, Prepared, Signals, TextEncoder, select, select_many};

fn query(pairs: &[(&str, &str)]) -> ClipQuery {
    ClipQuery::from_pairs(pairs.iter().copied()).unwrap()
}

fn single_queries(c: &mut Criterion) {
    let one_s = Prepared::new(common::two_hours_1s()).unwrap();
    let fps = Prepared::new(common::two_hours_24fps()).unwrap();
    let mut g = c.benchmark_group("clip_select");
    for (name, p) in [("2h_1s", &one_s), ("2h_24fps", &fps)] {
        g.throughput(Throughput::Elements(p.samples() as u64));
        let defaults = ClipQuery::default();
        g.bench_function(BenchmarkId::new("defaults", name), |b| {
            b.iter(|| select(p, black_box(&defaults), None).unwrap())
        });
        let present = p.signals().timelines.clip_types.keys().next().unwrap().clone();
        let typed = query(&[("clip_type", &present)]);
        g.bench_function(BenchmarkId::new("clip_type", name), |b| {
            b.iter(|| select(p, black_box(&typed), None).unwrap())
        });
        let strict = query(&[
            ("max_nudity", "0.3"),
            ("max_blood_gore", "0.3"),
            ("min_brightness", "0.2"),
            ("character_preference", "avoid"),
            ("start_bwd_snap_search", "2"),
            ("end_fwd_snap_search", "2"),
        ]);
        g.bench_function(BenchmarkId::new("filtered", name), |b| {
            b.iter(|| select(p, black_box(&strict), None).unwrap())
        });
    }
    let scenes = Prepared::new(common::with_scenes(1500)).unwrap();
    let q = query(&[("search_query", "car chase tense")]);
    let embedding = LexicalEncoder::default().encode("car chase tense").unwrap();
    g.throughput(Throughput::Elements(scenes.samples() as u64));
    g.bench_function("search_query_1500_scenes/2h_1s", |b| {
        b.iter(|| select(&scenes, black_box(&q), Some(&embedding)).unwrap())
    });
    g.bench_function("encode_and_search_1500_scenes/2h_1s", |b| {
        b.iter(|| {
            let e = LexicalEncoder::default().encode(black_box("car chase tense")).unwrap();
            select(&scenes, &q, Some(&e)).unwrap()
        })
    });
    g.finish();
}

/// Time must grow linearly with duration and not at all with clip length.
fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("clip_select_scaling");
    for minutes in [30.0, 60.0, 120.0, 240.0] {
        let p = common::at_24fps(minutes * 60.0);
        g.throughput(Throughput::Elements(p.samples() as u64));
        g.bench_with_input(BenchmarkId::new("duration_min_24fps", minutes as u64), &p, |b, p| {
            b.iter(|| select(p, &ClipQuery::default(), None).unwrap())
        });
    }
    let p = common::at_24fps(7200.0);
    for clip_length in [10.0, 30.0, 120.0, 600.0] {
        let q = ClipQuery { clip_length, ..ClipQuery::default() };
        g.throughput(Throughput::Elements(p.samples() as u64));
        g.bench_with_input(BenchmarkId::new("clip_length_s_2h_24fps", clip_length as u64), &q, |b, q| {
            b.iter(|| select(&p, q, None).unwrap())
        });
    }
    g.finish();
}

fn catalog(c: &mut Criterion) {
    let items = common::catalog(1000);
    let refs: Vec<&Prepared> = items.iter().collect();
    let q = ClipQuery::default();
    let mut g = c.benchmark_group("clip_select_many");
    g.sample_size(10);
    g.throughput(Throughput::Elements(items.len() as u64));
    g.bench_function("1000_titles_1s", |b| b.iter(|| select_many(black_box(&refs), &q, None)));
    g.finish();
}

fn loading(c: &mut Criterion) {
    let mut g = c.benchmark_group("signals_load");
    g.sample_size(10);
    for (name, s) in [("2h_1s", common::two_hours_1s()), ("2h_24fps", common::two_hours_24fps())] {
        let json = s.to_json();
        let binary = s.to_binary();
        g.throughput(Throughput::Bytes(json.len() as u64));
        g.bench_function(BenchmarkId::new("json", name), |b| b.iter(|| Signals::from_json(black_box(&json)).unwrap()));
        g.throughput(Throughput::Bytes(binary.len() as u64));
        g.bench_function(BenchmarkId::new("binary", name), |b| {
            b.iter(|| Signals::from_binary(black_box(&binary)).unwrap())
        });
        g.bench_function(BenchmarkId::new("prepare", name), |b| {
            b.iter(|| Prepared::new(black_box(s.clone())).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, single_queries, scaling, catalog, loading);
criterion_main!(benches);
