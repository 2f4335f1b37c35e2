//! The real binary: first start with the demo, a request, SIGTERM, and a restart on the same data
//! directory that keeps everything.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn start(dir: &std::path::Path) -> (Child, mpsc::Receiver<String>) {
    // The demo catalog by path: the binary may be built outside the checkout (CARGO_TARGET_DIR),
    // and the tests run in the crate's directory.
    let demo = crate::support::manifest_dir().join("../data/demo");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .args(["--bind", "127.0.0.1:0", "--demo-dir"])
        .arg(&demo)
        .arg("--data-dir")
        .arg(dir)
        .envs(crate::support::database_env(dir))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start kino-server");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Lines up to and including "listening on ...".
fn until_listening(rx: &mpsc::Receiver<String>) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let line = rx.recv_timeout(Duration::from_secs(120)).expect("the server prints its address");
        let done = line.starts_with("listening on ");
        lines.push(line);
        if done {
            return lines;
        }
    }
}

fn get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

fn stop(mut child: Child) {
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "graceful shutdown exits 0, got {exit:?}");
}

#[test]
fn start_serve_stop_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (child, rx) = start(dir.path());
    let lines = until_listening(&rx);
    let key = lines
        .iter()
        .find_map(|l| l.split("(shown once): ").nth(1))
        .expect("the first start prints the demo key")
        .to_string();
    let addr = lines.last().unwrap().trim_start_matches("listening on http://").to_string();
    let res = get(&addr, &format!("/results/jitpreviews/v2/tt-demo-001?catalog=demo&key={key}"));
    assert!(res.starts_with("HTTP/1.1 200"), "{}", &res[..res.len().min(300)]);
    stop(child);

    let (child, rx) = start(dir.path());
    let lines = until_listening(&rx);
    assert!(!lines.iter().any(|l| l.contains("shown once")), "the demo is created once: {lines:?}");
    let addr = lines.last().unwrap().trim_start_matches("listening on http://").to_string();
    let res = get(&addr, &format!("/catalog/v1/item/standalone/tt-demo-002?key={key}"));
    assert!(res.starts_with("HTTP/1.1 200") && res.contains("The Quiet Orchard"), "{}", &res[..res.len().min(300)]);
    let res = get(&addr, &format!("/tasks/catalog-item/tt-demo-001?key={key}"));
    assert!(res.starts_with("HTTP/1.1 200") && res.contains("jitpreviews"));
    stop(child);
}

fn admin(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .arg("admin")
        .args(args)
        .env("KINO_DATA_DIR", dir)
        .envs(crate::support::database_env(dir))
        .env("KINO_ADMIN_TOKEN", "t")
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn admin_commands_manage_the_portal() {
    let dir = tempfile::tempdir().unwrap();
    assert!(admin(dir.path(), &["create-org", "acme"]).0);
    let (ok, out, err) = admin(
        dir.path(),
        &["create-smartlist", "acme", r#"{"title": "All", "catalog": "acme", "creator": "e@x.io", "published": true}"#],
    );
    assert!(ok, "{err}");
    let created: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(created["publishing_state"], "published");
    let (ok, out, _) = admin(dir.path(), &["list-smartlists", "acme"]);
    let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(ok && listed[0]["id"] == created["id"]);
    let (ok, _, err) = admin(dir.path(), &["create-smartlist", "acme", r#"{"title": "x"}"#]);
    assert!(!ok && err.contains("catalog: is required"), "{err}");
    let (ok, out, _) = admin(dir.path(), &["set-generation", "acme", "acme", "on"]);
    assert!(ok && out.contains("media generation on"), "{out}");
    let (ok, _, err) = admin(dir.path(), &["set-generation", "acme", "nope", "on"]);
    assert!(!ok && err.contains("no catalog"), "{err}");
    let (ok, _, err) = admin(dir.path(), &["create-webhook", "acme", "https://10.0.0.1/hook"]);
    assert!(!ok && err.contains("url:"), "{err}");
    let recipe = r#"{"title": "r", "type": "thumbnails", "catalog": "acme", "creator": "e@x.io", "config": {"inventory_ids": ["nope"]}}"#;
    let (ok, out, _) = admin(dir.path(), &["create-recipe", "acme", recipe]);
    let id = serde_json::from_str::<serde_json::Value>(&out).unwrap()["id"].as_str().unwrap().to_string();
    assert!(ok);
    let (ok, out, _) = admin(dir.path(), &["run-recipe", "acme", &id]);
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(ok);
    assert_eq!((run["status"].as_str(), run["run_number"].as_i64()), (Some("failed"), Some(1)), "{run}");
    assert!(run["error"].as_str().unwrap().contains("no live catalog item"));
}

#[test]
fn a_busy_port_creates_nothing_and_the_data_directory_is_private() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_kino-server"))
        .args(["--bind", &port, "--data-dir"])
        .arg(&data)
        .envs(crate::support::database_env(&data))
        .env("RUST_LOG", "warn")
        .output()
        .expect("run kino-server");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot listen on"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("shown once"), "no key printed for nothing");
    assert!(!stderr.contains('\u{1b}'), "no colour codes when the log is not a terminal: {stderr}");
    // the demo was not created: a later start still creates it and shows its key
    drop(taken);
    let (child, rx) = start(&data);
    let lines = until_listening(&rx);
    assert!(lines.iter().any(|l| l.contains("(shown once)")), "{lines:?}");
    stop(child);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&data), 0o700);
        let database = crate::support::postgres().is_none().then_some("kino.sqlite3");
        for name in database.into_iter().chain(["token-hs256.key", "secrets.key", "admin.token"]) {
            assert_eq!(mode(&data.join(name)), 0o600, "{name}");
        }
    }
}
