//! Two real `kino-server` processes on one database (PostgreSQL under
//! `scripts/test-postgres.sh`, one SQLite file otherwise), requests spread across both; one is
//! killed with SIGKILL in the middle of ingestion, processing, a recipe run and webhook
//! deliveries. Nothing acknowledged is lost, no delivery is sent twice, every result is readable
//! from the survivor, and the killed one comes back and takes work again.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const ADMIN: &str = "failover-admin-token";

struct Dirs {
    data: PathBuf,
    media: PathBuf,
}

fn command(dirs: &Dirs) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kino-server"));
    c.arg("--data-dir")
        .arg(&dirs.data)
        .arg("--media-root")
        .arg(&dirs.media)
        .args(["--no-models", "--webhook-allow-loopback", "--demo", "false", "--lease", "2"])
        .envs(crate::support::database_env(&dirs.data))
        .env("KINO_ADMIN_TOKEN", ADMIN)
        .env("RUST_LOG", "warn");
    c
}

fn admin(dirs: &Dirs, args: &[&str]) -> String {
    let out = command(dirs).arg("admin").args(args).output().unwrap();
    assert!(out.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A running replica: killed when dropped (a failed assertion leaves no process behind).
struct Replica {
    child: Child,
    addr: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Replica {
    fn start(dirs: &Dirs) -> Replica {
        let mut child = command(dirs)
            .args(["--bind", "127.0.0.1:0", "--workers", "2"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start kino-server");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next().expect("the server prints its address").unwrap();
            if let Some(addr) = line.strip_prefix("listening on http://") {
                break addr.to_string();
            }
        };
        // Keep reading its output, so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Replica { child, addr }
    }

    /// SIGKILL: no shutdown, no lease given up.
    fn kill(mut self) {
        let status = Command::new("kill").args(["-KILL", &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
        let _ = self.child.wait();
    }

    fn stop(mut self) {
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
        assert!(self.child.wait().unwrap().success(), "graceful shutdown exits 0");
    }
}

/// One HTTP/1.1 request; `None` when the server did not answer (it was killed).
fn http(addr: &str, method: &str, path: &str, body: Option<&str>, headers: &[(&str, &str)]) -> Option<(u16, Value)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
    let body = body.unwrap_or("");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).ok()?;
    s.write_all(body.as_bytes()).ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    let text = String::from_utf8_lossy(&out);
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let json = text.split_once("\r\n\r\n").and_then(|(_, b)| serde_json::from_str(b).ok()).unwrap_or(Value::Null);
    Some((status, json))
}

/// Polls `check` until it holds, for at most `secs` seconds.
fn eventually(secs: u64, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    check()
}

fn task(id: &str, key: &str) -> String {
    format!("/tasks/catalog-item/{id}/product/profanity/version/1.0.0?key={key}")
}

/// Ingests `id` through `addr`: the item, its signals, a task. Whether all three were
/// acknowledged (2xx).
fn ingest(addr: &str, key: &str, id: &str) -> bool {
    let item = json!({"id": id, "type": "standalone", "title": id}).to_string();
    let ok = |r: Option<(u16, Value)>| r.is_some_and(|(s, _)| (200..300).contains(&s));
    let signals = kino::synth::demo_signals(id, 600.0, 1.0, 3).to_json();
    ok(http(addr, "PUT", &format!("/catalog/v1/item?key={key}"), Some(&item), &[]))
        && ok(http(addr, "PUT", &format!("/analysis/v1/item/standalone/{id}?key={key}"), Some(&signals), &[]))
        && ok(http(addr, "POST", &task(id, key), None, &[]))
}

fn ready(addr: &str, key: &str, id: &str) -> bool {
    http(addr, "GET", &task(id, key), None, &[]).is_some_and(|(s, t)| s == 200 && t["status"] == "ready")
}

#[test]
fn a_replica_killed_mid_work_loses_nothing_acknowledged_and_comes_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = Dirs { data: tmp.path().join("data"), media: tmp.path().join("media") };
    std::fs::create_dir_all(&dirs.media).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let receiver = runtime.block_on(crate::support::Receiver::start());

    admin(&dirs, &["create-org", "acme"]);
    let key = admin(&dirs, &["create-key", "acme"]).trim().to_string();
    admin(
        &dirs,
        &["create-smartlist", "acme", r#"{"title": "All", "catalog": "acme", "creator": "e@x.io", "published": true}"#],
    );
    // A slow receiver (2 s an answer), so deliveries are in flight when the replica dies.
    admin(&dirs, &["create-webhook", "acme", &receiver.url("/slow"), "--enable", "--events", "smart_list.updated"]);
    let recipe = json!({"title": "Posters", "type": "thumbnails", "catalog": "acme", "creator": "e@x.io",
                        "config": {"inventory_ids": ["m0", "m1", "m2"]}});
    let recipe: Value = serde_json::from_str(&admin(&dirs, &["create-recipe", "acme", &recipe.to_string()])).unwrap();
    let recipe_id = recipe["id"].as_str().unwrap().to_string();

    let a = Replica::start(&dirs);
    let b = Replica::start(&dirs);
    let (a_addr, b_addr) = (a.addr.clone(), b.addr.clone());

    // Ingestion spread across both replicas, from two clients; `a` is killed half-way.
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let sent = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..2)
        .map(|client| {
            let (acknowledged, sent) = (acknowledged.clone(), sent.clone());
            let (a_addr, b_addr, key) = (a_addr.clone(), b_addr.clone(), key.clone());
            std::thread::spawn(move || {
                for i in (client..40).step_by(2) {
                    let id = format!("m{i}");
                    let addr = if i % 4 < 2 { &a_addr } else { &b_addr };
                    if ingest(addr, &key, &id) {
                        acknowledged.lock().unwrap().push(id);
                    }
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    assert!(eventually(120, || sent.load(Ordering::SeqCst) >= 12), "ingestion started");
    // A recipe run on `a`, then `a` dies with jobs, deliveries and perhaps the run in flight.
    let run = http(
        &a_addr,
        "POST",
        &format!("/admin/v1/orgs/acme/recipes/{recipe_id}/run"),
        None,
        &[("Authorization", &format!("Bearer {ADMIN}"))],
    );
    assert!(run.is_some_and(|(s, _)| s == 202), "the run was accepted");
    a.kill();
    for c in clients {
        c.join().unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() >= 20, "the survivor acknowledged its half at least: {acknowledged:?}");

    // Everything acknowledged is on the survivor: items at once, results once `a`'s lease lapsed
    // and its jobs came back to the queue.
    for id in &acknowledged {
        let item = http(&b_addr, "GET", &format!("/catalog/v1/item/standalone/{id}?key={key}"), None, &[]);
        assert!(item.is_some_and(|(s, _)| s == 200), "{id} was acknowledged and is kept");
    }
    for id in &acknowledged {
        assert!(eventually(180, || ready(&b_addr, &key, id)), "the profanity of {id} is computed by the survivor");
    }
    // The recipe run is not left running by the dead replica: it finished there, or the
    // survivor failed it as interrupted.
    let auth = format!("Bearer {ADMIN}");
    let recipe_status = || {
        http(&b_addr, "GET", &format!("/admin/v1/orgs/acme/recipes/{recipe_id}"), None, &[("Authorization", &auth)])
            .map(|(_, r)| r["status"].as_str().unwrap_or_default().to_string())
            .unwrap_or_default()
    };
    assert!(eventually(60, || recipe_status() != "running"), "the run is settled: {}", recipe_status());
    // Every delivery is settled (sent once, or failed as interrupted), and none was sent twice.
    let deliveries = || {
        let hooks = admin(&dirs, &["list-webhooks", "acme"]);
        let hooks: Value = serde_json::from_str(&hooks).unwrap();
        let hook = if hooks.is_array() { &hooks[0] } else { &hooks["webhooks"][0] };
        let id = hook["id"].as_str().unwrap().to_string();
        let log: Value = serde_json::from_str(&admin(&dirs, &["deliveries", "acme", &id])).unwrap();
        let log = if log.is_array() { &log } else { &log["deliveries"] };
        log.as_array().unwrap().clone()
    };
    assert!(
        eventually(120, || deliveries().iter().all(|d| d["state"] == "succeeded" || d["state"] == "failed")),
        "deliveries settle: {:?}",
        deliveries()
    );
    let hits = receiver.hits_on("/slow");
    let bodies: HashSet<&[u8]> = hits.iter().map(|h| h.body.as_slice()).collect();
    assert_eq!(bodies.len(), hits.len(), "no delivery was sent twice");
    assert!(!hits.is_empty(), "membership changes were delivered");

    // `a` comes back; with `b` stopped, the work it takes is done by it alone.
    let a = Replica::start(&dirs);
    b.stop();
    for i in 40..43 {
        let id = format!("m{i}");
        assert!(ingest(&a.addr, &key, &id), "{id} acknowledged by the restarted replica");
        assert!(eventually(180, || ready(&a.addr, &key, &id)), "{id} processed by the restarted replica");
    }
    a.stop();
    runtime.block_on(receiver.stop());
}
