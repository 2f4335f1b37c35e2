//! Two service states over one database, as two replicas of a deployment see it: what one stores,
//! the other reads at its next request, whatever it had cached.

use kino_server::indexes::Collection;
use kino_server::store::{OrgId, ResultStatus};
use kino_server::{AppState, Config, Services, signals};
use serde_json::json;

/// A replica: its own index directory and bucket root, the shared database.
fn replica(dir: &std::path::Path, name: &str) -> AppState {
    let config = Config {
        index_dir: dir.join(name).join("indexes"),
        bucket_root: dir.join(name).join("bucket"),
        ..Config::in_dir(dir)
    };
    Services::open(crate::support::store(dir), config).unwrap()
}

#[test]
fn a_replica_reads_the_signals_another_stored_over_its_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (replica(dir.path(), "a"), replica(dir.path(), "b"));
    let (org, _) = a.store.ensure_org("acme").unwrap();
    assert!(signals::prepared(&b.store, &b.signals, org, "m1").unwrap().is_none(), "nothing stored yet");

    signals::put(&a.store, &a.signals, &a.effects, org, "m1", kino::synth::demo_signals("m1", 600.0, 1.0, 1)).unwrap();
    let first = signals::prepared(&b.store, &b.signals, org, "m1").unwrap().expect("b reads what a stored");
    assert_eq!(first.signals().duration, 600.0);
    // b has them cached now; a stores new signals of the same item.
    signals::put(&a.store, &a.signals, &a.effects, org, "m1", kino::synth::demo_signals("m1", 900.0, 1.0, 2)).unwrap();
    let second = signals::prepared(&b.store, &b.signals, org, "m1").unwrap().unwrap();
    assert_eq!(second.signals().duration, 900.0, "b's cached version is stale, not served");
    // And back the other way, twice in a row (each store is a new version, even within a millisecond).
    signals::put(&b.store, &b.signals, &b.effects, org, "m1", kino::synth::demo_signals("m1", 300.0, 1.0, 3)).unwrap();
    signals::put(&b.store, &b.signals, &b.effects, org, "m1", kino::synth::demo_signals("m1", 120.0, 1.0, 4)).unwrap();
    assert_eq!(signals::prepared(&a.store, &a.signals, org, "m1").unwrap().unwrap().signals().duration, 120.0);
    assert_eq!(signals::prepared(&b.store, &b.signals, org, "m1").unwrap().unwrap().signals().duration, 120.0);
}

/// Stores `id` with one scene embedding, as a finished `semantic_scenes` job does.
pub(crate) fn store_scenes(state: &AppState, org: OrgId, id: &str) {
    state
        .store
        .upsert_item(
            org,
            id,
            kino_server::catalog::ItemType::Standalone,
            &json!({"id": id, "type": "standalone", "title": id}),
            false,
        )
        .unwrap();
    state
        .store
        .upsert_task(
            org,
            id,
            kino_server::vocabulary::Product::SemanticScenes,
            "1.0.0",
            "{}",
            kino_server::tasks::MAX_ACTIVE_VERSIONS,
        )
        .unwrap();
    let job = state.store.claim_job().unwrap().expect("the task's job");
    let embedding: Vec<f32> = (0..1024).map(|d| ((d * 7 + id.len()) % 13) as f32 - 6.0).collect();
    let scenes = json!({"scene_embeddings": [{"start_ts": 0.0, "end_ts": 9.0, "embedding": embedding}]});
    state.store.finish_job(&job, ResultStatus::Success, "", Some(&scenes)).unwrap();
    state.effects.indexes.sync_item(&state.store, org, id).unwrap();
}

#[test]
fn a_replica_finds_in_its_index_what_another_stored_once_it_refreshes() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (replica(dir.path(), "a"), replica(dir.path(), "b"));
    let (org, _) = a.store.ensure_org("acme").unwrap();
    let holds = |state: &AppState, id: &str| {
        state.effects.indexes.get(&state.store, org, Collection::Scenes).unwrap().contains(id)
    };
    assert!(!holds(&b, "m1"), "b's index is open, and empty");

    store_scenes(&a, org, "m1");
    assert!(holds(&a, "m1"), "a keeps its own changes current");
    assert!(!holds(&b, "m1"), "b learns of a's changes only when it refreshes");
    assert_eq!(b.effects.indexes.refresh_all(&b.store), 1, "one item loaded");
    assert!(holds(&b, "m1"));
    assert_eq!(b.effects.indexes.refresh_all(&b.store), 0, "nothing changed since");

    kino_server::catalog::delete(&a.store, &a.effects, org, kino_server::catalog::ItemType::Standalone, "m1").unwrap();
    assert!(!holds(&a, "m1"));
    assert!(holds(&b, "m1"));
    b.effects.indexes.refresh_all(&b.store);
    assert!(!holds(&b, "m1"), "a deletion reaches b at its refresh");
}

#[test]
fn the_daily_smartlist_refresh_runs_once_and_is_taken_over_when_its_runner_dies() {
    use kino_server::portal::smartlists::{DAILY_RUN_LEASE, Daily, begin_daily, end_daily};
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (replica(dir.path(), "a"), replica(dir.path(), "b"));
    let slot: chrono::DateTime<chrono::Utc> = "2026-11-25T04:00:00Z".parse().unwrap();
    let lease = i64::try_from(DAILY_RUN_LEASE.as_millis()).unwrap();
    let t0 = 1_764_043_200_000_i64;
    assert_eq!(begin_daily(&a.store, slot, "a", t0).unwrap(), Daily::Run, "the first to come runs it");
    assert_eq!(begin_daily(&b.store, slot, "b", t0 + 1_000).unwrap(), Daily::Running(t0 + lease), "the other waits");
    assert_eq!(begin_daily(&b.store, slot, "b", t0 + lease - 1).unwrap(), Daily::Running(t0 + lease));
    // `a` died without finishing: once its lease has run out, `b` takes the refresh over.
    assert_eq!(begin_daily(&b.store, slot, "b", t0 + lease).unwrap(), Daily::Run);
    end_daily(&b.store, slot, "b", t0 + lease + 5_000).unwrap();
    assert_eq!(begin_daily(&a.store, slot, "a", t0 + lease + 6_000).unwrap(), Daily::Done, "done is not run again");
    assert_eq!(begin_daily(&b.store, slot, "b", t0 + lease + 6_000).unwrap(), Daily::Done, "not even by its runner");
    let tomorrow = slot + chrono::Duration::days(1);
    assert_eq!(begin_daily(&a.store, tomorrow, "a", t0 + 86_400_000).unwrap(), Daily::Run, "each day has its own");
}

#[test]
fn work_claimed_by_a_live_replica_stays_its_own_and_is_recovered_once_it_dies() {
    use kino_server::store::{RecipeRow, Write};
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (replica(dir.path(), "a"), replica(dir.path(), "b"));
    assert_ne!(a.store.owner(), b.store.owner());
    let (org, _) = a.store.ensure_org("acme").unwrap();
    let catalog_id = a.store.ensure_catalog(org, "acme").unwrap();
    a.store
        .upsert_item(
            org,
            "m1",
            kino_server::catalog::ItemType::Standalone,
            &json!({"id": "m1", "type": "standalone"}),
            false,
        )
        .unwrap();
    a.store
        .upsert_task(
            org,
            "m1",
            kino_server::vocabulary::Product::Similar,
            "1.0.0",
            "{}",
            kino_server::tasks::MAX_ACTIVE_VERSIONS,
        )
        .unwrap();
    let recipe = RecipeRow {
        id: "r1".into(),
        org,
        catalog_id,
        title: "Posters".into(),
        kind: kino_server::portal::kinds::RecipeType::Thumbnails,
        config: json!({}),
        status: kino_server::store::RecipeStatus::Draft,
        created_at: kino_server::store::now(),
        updated_at: kino_server::store::now(),
        ..RecipeRow::default()
    };
    assert!(a.store.put_recipe(&recipe, Write::Insert).unwrap());

    let now = chrono::Utc::now().timestamp_millis();
    a.store.heartbeat(now, 60_000).unwrap();
    b.store.heartbeat(now, 60_000).unwrap();
    let job = a.store.claim_job().unwrap().expect("the task's job");
    assert_eq!(a.store.start_recipe_run(org, "r1").unwrap(), Some(1));
    // `a` is alive: `b` (starting, or recovering as it does every third of a lease) leaves its
    // work alone, and cannot claim the job `a` runs.
    assert_eq!(b.store.requeue_running().unwrap(), 0);
    assert!(b.store.fail_interrupted_recipes().unwrap().is_empty());
    assert!(b.store.claim_job().unwrap().is_none(), "the job is a's");

    // `a` dies: its lease lapses (renewed last a while ago); `b` recovers what it held.
    a.store.heartbeat(now - 120_000, 60_000).unwrap();
    assert_eq!(b.store.requeue_running().unwrap(), 1);
    assert_eq!(b.store.fail_interrupted_recipes().unwrap(), vec![(org, "r1".to_string())]);
    let again = b.store.claim_job().unwrap().expect("b takes the job over");
    assert_eq!((again.item_id.as_str(), again.product.as_str()), (job.item_id.as_str(), job.product.as_str()));
    let r = b.store.recipe(org, "r1").unwrap().unwrap();
    assert_eq!(
        (r.status, r.last_error.as_deref()),
        (kino_server::store::RecipeStatus::Failed, Some("interrupted by a restart"))
    );
    // ... and what `b` holds is its own: a later recovery (by anyone) leaves it alone.
    assert_eq!(a.store.requeue_running().unwrap(), 0);
}

#[test]
fn a_replica_without_index_files_maps_the_segments_another_published() {
    let dir = tempfile::tempdir().unwrap();
    let objects = dir.path().join("objects");
    std::fs::create_dir_all(&objects).unwrap();
    let shared = |name: &str| {
        let config = Config {
            index_dir: dir.path().join(name).join("indexes"),
            bucket_root: dir.path().join(name).join("bucket"),
            object_store: Some(format!("file://{}", objects.display())),
            ..Config::in_dir(dir.path())
        };
        Services::open(crate::support::store(dir.path()), config).unwrap()
    };
    let a = shared("a");
    let (org, _) = a.store.ensure_org("acme").unwrap();
    for id in ["m1", "m2", "m3"] {
        store_scenes(&a, org, id);
    }
    a.effects.indexes.get(&a.store, org, Collection::Scenes).unwrap().compact().unwrap();
    assert_eq!(a.effects.indexes.publish_all(&a.store), 1, "the scene index's files go up");
    assert_eq!(a.effects.indexes.publish_all(&a.store), 0, "unchanged since: nothing to publish");
    let published = objects.join(format!("indexes/org-{}/scenes", org.0));
    assert_eq!(std::fs::read_to_string(published.join("latest")).unwrap(), a.store.owner());

    // A new replica with no index files: it maps a's segments instead of building its own.
    let b = shared("b");
    let b_dir = dir.path().join("b/indexes").join(format!("org-{}", org.0)).join("scenes");
    assert!(!b_dir.exists());
    let index = b.effects.indexes.get(&b.store, org, Collection::Scenes).unwrap();
    let segments: Vec<String> = std::fs::read_dir(&b_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("seg-"))
        .collect();
    assert!(!segments.is_empty(), "segments fetched: {segments:?}");
    assert!(["m1", "m2", "m3"].iter().all(|id| index.contains(id)));
    assert_eq!(index.stats().delta_vectors, 0, "nothing loaded again from the database");

    // A damaged or hostile publication is refused and the index is built from the database.
    std::fs::write(published.join("latest"), "../../elsewhere").unwrap();
    let c = shared("c");
    let index = c.effects.indexes.get(&c.store, org, Collection::Scenes).unwrap();
    assert!(["m1", "m2", "m3"].iter().all(|id| index.contains(id)), "built from the database");
}
