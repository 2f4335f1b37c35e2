//! Two service states over one database, as two replicas of a deployment see it: what one stores,
//! the other reads at its next request, whatever it had cached.

use kino_server::store::Store;
use kino_server::{AppState, Config, signals};

/// A replica: its own index directory and bucket root, the shared database.
fn replica(dir: &std::path::Path, name: &str) -> AppState {
    let config = Config {
        index_dir: dir.join(name).join("indexes"),
        bucket_root: dir.join(name).join("bucket"),
        ..Config::in_dir(dir)
    };
    AppState::new(Store::open(&dir.join("kino.sqlite3")).unwrap(), config).unwrap()
}

#[test]
fn a_replica_reads_the_signals_another_stored_over_its_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (replica(dir.path(), "a"), replica(dir.path(), "b"));
    let (org, _) = a.store.ensure_org("acme").unwrap();
    assert!(signals::prepared(&b, org, "m1").unwrap().is_none(), "nothing stored yet");

    signals::put(&a, org, "m1", kino::synth::demo_signals("m1", 600.0, 1.0, 1)).unwrap();
    let first = signals::prepared(&b, org, "m1").unwrap().expect("b reads what a stored");
    assert_eq!(first.signals().duration, 600.0);
    // b has them cached now; a stores new signals of the same item.
    signals::put(&a, org, "m1", kino::synth::demo_signals("m1", 900.0, 1.0, 2)).unwrap();
    let second = signals::prepared(&b, org, "m1").unwrap().unwrap();
    assert_eq!(second.signals().duration, 900.0, "b's cached version is stale, not served");
    // And back the other way, twice in a row (each store is a new version, even within a millisecond).
    signals::put(&b, org, "m1", kino::synth::demo_signals("m1", 300.0, 1.0, 3)).unwrap();
    signals::put(&b, org, "m1", kino::synth::demo_signals("m1", 120.0, 1.0, 4)).unwrap();
    assert_eq!(signals::prepared(&a, org, "m1").unwrap().unwrap().signals().duration, 120.0);
    assert_eq!(signals::prepared(&b, org, "m1").unwrap().unwrap().signals().duration, 120.0);
}
