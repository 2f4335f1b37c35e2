//! The `kino` binary end to end: build a demo scene index, inspect it, search it by text.

use std::process::Command;

fn kino(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kino")).args(args).output().expect("the kino binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn builds_inspects_and_searches_a_demo_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("demo.kvx");
    let index = index.to_str().unwrap();
    let (ok, _, err) = kino(&["index", "build", "--demo", "4", "--out", index, "--m", "8", "--ef-construction", "40"]);
    assert!(ok, "{err}");
    assert!(err.contains("vectors of dimension 1024"), "{err}");
    let (ok, out, err) = kino(&["index", "info", index, "--verify"]);
    assert!(ok, "{err}");
    assert!(out.contains("M = 8") && out.contains("verify:  ok"), "{out}");
    let (ok, out, err) = kino(&["index", "search", index, "--text", "car chase", "-k", "3", "--per-item"]);
    assert!(ok, "{err}");
    let items: Vec<&str> = out.lines().map(|l| l.split('\t').nth(1).unwrap_or("")).collect();
    assert_eq!(items.len(), 3, "{out}");
    assert!(items.iter().all(|i| i.starts_with("demo-")), "{out}");
}

#[test]
fn a_broken_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.kvx");
    std::fs::write(&path, b"KINOVECS and nothing else").unwrap();
    let (ok, _, err) = kino(&["index", "info", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("truncated"), "{err}");
}
