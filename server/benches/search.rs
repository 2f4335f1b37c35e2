//! The catalog-wide scene search under load: a generated catalog (titles of `--per-item` scene
//! embeddings of 1024 floats, clustered), its index built the way the service builds it (loaded
//! from the database, then compacted into one HNSW segment), then `--clients` concurrent clients
//! over a real socket, each sending its requests one after another. Prints the build figures,
//! latency percentiles and throughput per kind of query, and the recall@10 of the index against
//! a brute force over the same vectors.
//!
//! ```text
//! cargo bench -p kino-server --bench search -- [--scenes 100000] [--per-item 100] [--clients 16] [--requests 3200]
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use kino::vectors::{ExactIndex, SegmentFilter, VectorIndex, VectorSet, clustered};
use kino_server::indexes::Collection;
use kino_server::store::{ResultStatus, Store};
use kino_server::{Config, Services, app};
use serde_json::json;

struct Args {
    scenes: usize,
    per_item: usize,
    clients: usize,
    requests: usize,
}

fn args() -> Args {
    let mut a = Args { scenes: 100_000, per_item: 100, clients: 16, requests: 3200 };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let value = || argv.get(i + 1).and_then(|v| v.parse().ok());
        match argv[i].as_str() {
            "--scenes" => a.scenes = value().expect("--scenes N"),
            "--per-item" => a.per_item = value().expect("--per-item N"),
            "--clients" => a.clients = value().expect("--clients N"),
            "--requests" => a.requests = value().expect("--requests N"),
            // `cargo bench` passes `--bench`; anything else is ignored too.
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    a
}

const DIM: usize = kino::signals::SCENE_EMBEDDING_DIM;

/// The URL of a workload's `n`th request.
type UrlOf = Arc<dyn Fn(usize) -> String + Send + Sync>;

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let a = args();
    let items = a.scenes.div_ceil(a.per_item);
    let dir = tempfile::tempdir().expect("temporary directory");
    let state =
        Services::open(Store::open(&dir.path().join("kino.sqlite3")).expect("store"), Config::in_dir(dir.path()))
            .expect("state");
    let (org, _) = state.store.ensure_org("bench").unwrap();
    state.store.ensure_catalog(org, "bench").unwrap();
    let key = kino_server::auth::generate_key();
    state.store.add_key(org, &kino_server::auth::hash_key(&key), &kino_server::auth::key_prefix(&key)).unwrap();

    println!(
        "catalog: {items} titles x {} scenes = {} scene vectors of {DIM} floats; {} cores",
        a.per_item,
        items * a.per_item,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let started = Instant::now();
    let flat = clustered(items * a.per_item, DIM, 500, 7);
    let mut all = VectorSet::scenes(DIM, kino::vectors::Metric::Cosine).unwrap();
    for i in 0..items {
        let id = format!("t{i:06}");
        let kind = if i % 2 == 0 { "standalone" } else { "episode" };
        let mut body = json!({"id": id, "type": kind, "title": format!("Title {i}"), "release_year": 1950 + (i % 70)});
        if kind == "episode" {
            body["episodic_info"] = json!({"series_id": format!("s{}", i % 50), "season_id": format!("s{}-1", i % 50)});
        }
        state
            .store
            .upsert_item(org, &id, kino_server::catalog::ItemType::parse(kind).expect("a type"), &body, false)
            .unwrap();
        state
            .store
            .upsert_task(
                org,
                &id,
                kino_server::vocabulary::Product::SemanticScenes,
                "1.0.0",
                "{}",
                kino_server::tasks::MAX_ACTIVE_VERSIONS,
            )
            .unwrap();
        let job = state.store.claim_job().unwrap().expect("the task's job");
        let scenes: Vec<serde_json::Value> = (0..a.per_item)
            .map(|s| {
                let n = i * a.per_item + s;
                let v = &flat[n * DIM..(n + 1) * DIM];
                all.push_scene(&id, kino::vectors::ItemKind::Movie, s as f64 * 10.0, s as f64 * 10.0 + 9.0, v).unwrap();
                json!({"start_ts": s as f64 * 10.0, "end_ts": s as f64 * 10.0 + 9.0, "embedding": v})
            })
            .collect();
        state.store.finish_job(&job, ResultStatus::Success, "", Some(&json!({"scene_embeddings": scenes}))).unwrap();
    }
    println!("stored the results: {:.1} s", started.elapsed().as_secs_f64());

    let started = Instant::now();
    let index = state.effects.indexes.get(&state.store, org, Collection::Scenes).expect("index");
    println!("opened the index and loaded every title from the database: {:.1} s", started.elapsed().as_secs_f64());
    let started = Instant::now();
    index.compact().expect("compact");
    println!("built one HNSW segment (compact): {:.1} s; {:?}", started.elapsed().as_secs_f64(), index.stats());

    // Recall@10 of the index against the brute force, scene queries.
    let exact = ExactIndex::new(&all).unwrap();
    let (mut hit, mut total) = (0usize, 0usize);
    for q in 0..200 {
        let n = (q * 7919) % (items * a.per_item);
        let v = &flat[n * DIM..(n + 1) * DIM];
        let want: Vec<(String, u64)> = exact
            .search(v, 10)
            .unwrap()
            .iter()
            .map(|h| (exact.id(h.node).unwrap().to_string(), exact.span(h.node)[0] as u64))
            .collect();
        let got: Vec<(String, u64)> = index
            .search(v, 10, &SegmentFilter::default())
            .unwrap()
            .into_iter()
            .map(|h| (h.id, h.span[0] as u64))
            .collect();
        hit += got.iter().filter(|g| want.contains(g)).count();
        total += want.len();
    }
    println!("recall@10 against the brute force (200 scene queries): {:.3}", hit as f64 / total as f64);
    // The same with the filter of the 7% row (episodes of 1990-1999), which scans int8 codes
    // and re-ranks a shortlist with the floats.
    let allowed: std::collections::HashSet<String> =
        (0..items).filter(|i| i % 2 == 1 && (40..50).contains(&(i % 70))).map(|i| format!("t{i:06}")).collect();
    let only = |node: u32, _: kino::vectors::ItemKind| exact.id(node).is_ok_and(|id| allowed.contains(id));
    let filter = SegmentFilter { ids: Some(&allowed), ..SegmentFilter::default() };
    let (mut hit, mut total) = (0usize, 0usize);
    let mut searching = Duration::ZERO;
    for q in 0..200 {
        let n = (q * 7919) % (items * a.per_item);
        let v = &flat[n * DIM..(n + 1) * DIM];
        let want: Vec<(String, u64)> = exact
            .search_with(v, 10, Some(&only))
            .unwrap()
            .iter()
            .map(|h| (exact.id(h.node).unwrap().to_string(), exact.span(h.node)[0] as u64))
            .collect();
        let t = Instant::now();
        let found = index.search(v, 10, &filter).unwrap();
        searching += t.elapsed();
        let got: Vec<(String, u64)> = found.into_iter().map(|h| (h.id, h.span[0] as u64)).collect();
        hit += got.iter().filter(|g| want.contains(g)).count();
        total += want.len();
    }
    println!(
        "recall@10 with the 7% filter ({} titles allowed), int8 scan and re-ranking: {:.3}; {:.0} µs per search in process, one thread",
        allowed.len(),
        hit as f64 / total as f64,
        searching.as_secs_f64() * 1e6 / 200.0
    );
    drop(all);

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = app(state.clone());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = reqwest::Client::builder().pool_max_idle_per_host(a.clients).build().unwrap();
    let base = format!("http://{addr}/search/v1/scenes?key={key}&count=10");
    let words = ["car chase", "a storm at sea", "two people talk in a kitchen", "crowd at night", "forest fire"];
    let workloads: Vec<(&str, UrlOf)> = vec![
        (
            "a scene as the query (item_id + start_ts)",
            Arc::new({
                let base = base.clone();
                move |n| format!("{base}&item_id=t{:06}&start_ts={}", (n * 7) % items, (n % a.per_item) * 10)
            }),
        ),
        (
            "a text as the query (lexical encoder)",
            Arc::new({
                let base = base.clone();
                move |n| format!("{base}&text={}", words[n % words.len()].replace(' ', "%20"))
            }),
        ),
        (
            "a scene, episodes of 1990-1999 only",
            Arc::new({
                let base = base.clone();
                move |n| {
                    format!(
                        "{base}&item_id=t{:06}&start_ts=0&type=episode&release_year_gte=1990&release_year_lte=1999",
                        (n * 7) % items
                    )
                }
            }),
        ),
        (
            "a scene, within the first 5 minutes of each title",
            Arc::new({
                let base = base.clone();
                move |n| format!("{base}&item_id=t{:06}&start_ts=0&from_ts=0&to_ts=300", (n * 7) % items)
            }),
        ),
    ];
    // Warm-up: connections, page cache, the first search of each kind.
    for (_, url) in &workloads {
        for n in 0..20 {
            let r = client.get(url(n)).send().await.unwrap();
            assert!(r.status().is_success(), "{}", r.text().await.unwrap_or_default());
        }
    }
    println!("\n{} clients, {} requests per kind of query, 10 scenes per answer:", a.clients, a.requests);
    println!("| query | p50 ms | p95 ms | p99 ms | max ms | requests/s |");
    println!("|---|---|---|---|---|---|");
    for (name, url) in &workloads {
        let per_client = a.requests / a.clients;
        let started = Instant::now();
        let tasks: Vec<_> = (0..a.clients)
            .map(|c| {
                let client = client.clone();
                let url = url.clone();
                tokio::spawn(async move {
                    let mut times = Vec::with_capacity(per_client);
                    for r in 0..per_client {
                        let t = Instant::now();
                        let res = client.get(url(c * per_client + r)).send().await.unwrap();
                        assert!(res.status().is_success());
                        let _ = res.bytes().await.unwrap();
                        times.push(t.elapsed());
                    }
                    times
                })
            })
            .collect();
        let mut times = Vec::new();
        for t in tasks {
            times.extend(t.await.unwrap());
        }
        let wall = started.elapsed().as_secs_f64();
        times.sort();
        println!(
            "| {name} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} |",
            percentile(&times, 0.50),
            percentile(&times, 0.95),
            percentile(&times, 0.99),
            percentile(&times, 1.0),
            times.len() as f64 / wall
        );
    }
}
