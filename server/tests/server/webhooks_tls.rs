//! Webhook deliveries over HTTPS: a TLS receiver on loopback with a certificate from a private CA.
//! Trusted through `webhook_ca_pem`, deliveries succeed (signed, verified with an independent
//! HMAC); without it, the certificate is refused and the failure is logged.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kino_server::store::DeliveryState;
use kino_server::{Config, Services, webhooks};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;

use crate::support::{hmac_hex, until};

/// A private CA (its PEM) and a server configuration for `localhost` signed by it.
fn private_ca() -> (String, Arc<rustls::ServerConfig>) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&leaf_key, &issuer).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(leaf.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
        )
        .unwrap();
    (ca_cert.pem(), Arc::new(config))
}

/// Request bodies and signature headers received; every request is answered 200.
type Received = Arc<Mutex<Vec<(Vec<u8>, String)>>>;

/// An HTTPS receiver on 127.0.0.1 (a minimal HTTP/1.1 reader: headers, then `Content-Length` bytes).
async fn tls_receiver(config: Arc<rustls::ServerConfig>) -> (u16, Received) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received: Received = Arc::default();
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    let log = received.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, log) = (acceptor.clone(), log.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                let head_end = loop {
                    let Ok(n) = tls.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i + 4;
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
                let header = |name: &str| {
                    head.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")).map(|v| v.trim().to_string()))
                };
                let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
                while buf.len() < head_end + length {
                    let Ok(n) = tls.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let body = buf[head_end..head_end + length].to_vec();
                log.lock().unwrap().push((body, header("x-service-signature").unwrap_or_default()));
                let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                let _ = tls.shutdown().await;
            });
        }
    });
    (port, received)
}

/// Delivers one event to `https://localhost:<port>/hook`; returns the delivery log entry.
async fn deliver(ca_pem: Option<Vec<u8>>, port: u16) -> (webhooks::DeliveryView, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config { webhook_allow_loopback: true, webhook_ca_pem: ca_pem, ..Config::in_dir(dir.path()) };
    let state = Services::open(crate::support::store(dir.path()), config).unwrap();
    let (org, _) = state.store.ensure_org("acme").unwrap();
    let (stop, stopped) = watch::channel(false);
    let dispatcher = tokio::spawn(webhooks::run_dispatcher(state.dispatcher(), stopped));
    let url = format!("https://localhost:{port}/hook");
    let (view, secret) = webhooks::create(
        &state.store,
        &state.keys.secrets,
        state.config.webhook_allow_loopback,
        org,
        &url,
        &["smart_list.updated".to_string()],
        false,
    )
    .unwrap();
    webhooks::set_enabled(&state.store, org, &view.id, true).unwrap();
    let data = json!({"smartListId": "s", "smartListTitle": "t", "addedAssetIds": [], "removedAssetIds": []});
    webhooks::emit(&state.store, &state.effects, org, "smart_list.updated", data).unwrap();
    let mut log = Vec::new();
    assert!(
        until(|| {
            log = webhooks::deliveries(&state.store, org, &view.id, 10).unwrap();
            log.len() == 1 && matches!(log[0].state, DeliveryState::Succeeded | DeliveryState::Failed)
        })
        .await,
        "{log:?}"
    );
    let _ = stop.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(10), dispatcher).await;
    (log.remove(0), secret)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_receivers_are_verified_against_the_trusted_roots() {
    let (ca_pem, server) = private_ca();
    let (port, received) = tls_receiver(server).await;

    let (delivery, secret) = deliver(Some(ca_pem.into_bytes()), port).await;
    assert_eq!((delivery.state.as_str(), delivery.status_code), ("succeeded", Some(200)), "{delivery:?}");
    let (body, signature) = received.lock().unwrap()[0].clone();
    assert_eq!(signature, hmac_hex(&secret, &body), "signed over the exact bytes, checked independently");

    let (refused, _) = deliver(None, port).await;
    assert_eq!((refused.state.as_str(), refused.status_code), ("failed", None), "{refused:?}");
    assert!(refused.error.as_deref().is_some_and(|e| !e.is_empty()), "the TLS failure is logged");
    assert_eq!(received.lock().unwrap().len(), 1, "an untrusted receiver gets nothing");
}
