//! The OpenAPI document itself: every schema in it is valid JSON Schema 2020-12 (the dialect of
//! OpenAPI 3.1), every operation it lists is routed, and the contract check used by the other
//! integration tests refuses answers that do not match. (The whole document is validated against
//! the OpenAPI 3.1 specification's own schema by `scripts/test-client.sh`, with
//! openapi-spec-validator.)

use crate::support;

use axum::body::Body;
use axum::http::Request;
use kino_server::{Config, Services, app};
use serde_json::{Value, json};

/// Every schema object of the document: the components and those inline in operations.
fn schemas(doc: &Value) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = doc["components"]["schemas"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, s)| (format!("components/schemas/{name}"), s.clone()))
        .collect();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for p in op["parameters"].as_array().into_iter().flatten() {
                out.push((format!("{method} {path} parameter {}", p["name"]), p["schema"].clone()));
            }
            let bodies = op["requestBody"]["content"].as_object().into_iter().flatten();
            let answers = op["responses"]
                .as_object()
                .into_iter()
                .flatten()
                .flat_map(|(_, r)| r["content"].as_object().into_iter().flatten());
            for (kind, media) in bodies.chain(answers) {
                out.push((format!("{method} {path} {kind}"), media["schema"].clone()));
            }
        }
    }
    out
}

#[test]
fn every_schema_is_json_schema_2020_12() {
    let doc = kino_server::openapi::api::document();
    assert_eq!(doc["openapi"], "3.1.0");
    let all = schemas(&doc);
    assert!(all.len() > 300, "{} schemas", all.len());
    for (name, schema) in all {
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            panic!("{name} is not a JSON Schema 2020-12 schema: {e}");
        }
        let mut root = schema.clone();
        root["components"] = doc["components"].clone();
        jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{name} does not compile: {e}"));
    }
}

#[test]
fn examples_in_the_document_match_their_schemas() {
    let doc = kino_server::openapi::api::document();
    let mut checked = 0;
    for (name, schema) in schemas(&doc) {
        let Some(examples) = schema["examples"].as_array() else { continue };
        let mut root = schema.clone();
        root["components"] = doc["components"].clone();
        let validator = jsonschema::draft202012::new(&root).unwrap();
        for example in examples {
            let errors: Vec<String> = validator.iter_errors(example).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{name}: example {example} does not match: {errors:?}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} examples");
}

/// Substitutes each `{name}` of a path template with its parameter's example (or `x`).
fn concrete(path: &str, op: &Value) -> String {
    let mut out = path.to_string();
    for p in op["parameters"].as_array().into_iter().flatten().filter(|p| p["in"] == "path") {
        let name = p["name"].as_str().unwrap();
        let value = match &p["example"] {
            Value::String(s) => s.clone(),
            Value::Null => "x".to_string(),
            other => other.to_string(),
        };
        out = out.replace(&format!("{{{name}}}"), &value);
    }
    out
}

#[tokio::test]
async fn every_documented_operation_is_routed() {
    let dir = tempfile::tempdir().unwrap();
    let state = Services::open(
        crate::support::store(dir.path()),
        Config { admin_token: Some("admin".into()), ..Config::in_dir(dir.path()) },
    )
    .unwrap();
    let doc = kino_server::openapi::api::document();
    let mut routed = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let uri = concrete(path, op);
            let req = Request::builder().method(method.to_uppercase().as_str()).uri(&uri).body(Body::empty()).unwrap();
            let res = support::send(app(state.clone()), req).await;
            let status = res.status().as_u16();
            let bytes = http_body_util::BodyExt::collect(res.into_body()).await.unwrap().to_bytes();
            let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let unrouted =
                status == 405 || body == json!({"detail": "no such endpoint"}) || body["message"] == "no such endpoint";
            assert!(!unrouted, "{} {uri} is documented but not routed ({status} {body})", method.to_uppercase());
            routed += 1;
        }
    }
    assert!(routed >= 85, "{routed} operations");
}

/// Every operation that takes an API key refuses a request without one, or with an unknown one,
/// whatever else the request lacks: the key is checked first, whether by the `ApiCaller`
/// extractor or inside a handler's own blocking work (`ApiCredential`, `PreviewsCredential`).
#[tokio::test]
async fn every_operation_behind_an_api_key_refuses_a_request_without_a_valid_one() {
    let dir = tempfile::tempdir().unwrap();
    let state = Services::open(crate::support::store(dir.path()), Config::in_dir(dir.path())).unwrap();
    let doc = kino_server::openapi::api::document();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let keyed = op["security"].as_array().into_iter().flatten().any(|s| s.get("api_key").is_some());
            if !keyed {
                continue;
            }
            // Also with every path segment and query value wrong: the key is still checked first.
            let wrong = path.split('/').map(|s| if s.starts_with('{') { "bogus" } else { s }).collect::<Vec<_>>();
            let wrong = format!("{}?page_num=-1&version=&min_nudity=9&catalog=", wrong.join("/"));
            let uri = concrete(path, op);
            let sep = if uri.contains('?') { '&' } else { '?' };
            for uri in [uri.clone(), format!("{uri}{sep}key=kino_unknown"), wrong] {
                let req =
                    Request::builder().method(method.to_uppercase().as_str()).uri(&uri).body(Body::empty()).unwrap();
                let status = support::send(app(state.clone()), req).await.status();
                assert_eq!(status, 401, "{} {uri}", method.to_uppercase());
                checked += 1;
            }
        }
    }
    assert!(checked >= 150, "{checked} requests");
}

#[test]
fn the_contract_refuses_answers_that_do_not_match() {
    let refused = |method: &str, uri: &str, status: u16, kind: &str, body: &str| {
        let (method, uri, kind, body) = (method.to_string(), uri.to_string(), kind.to_string(), body.to_string());
        std::panic::catch_unwind(move || {
            support::check_contract(&method, &uri, status, Some(&kind), body.as_bytes());
        })
        .is_err()
    };
    let status = json!({"status": "success", "error": "", "updated": "2026-01-01T00:00:00Z", "version_id": "1",
        "inventory_id": "a", "type": "movie"});
    let path = "/results/emotions/v2/status/a?key=k";
    assert!(!refused("GET", path, 200, "application/json", &status.to_string()));
    let mut missing = status.clone();
    missing.as_object_mut().unwrap().remove("updated");
    assert!(refused("GET", path, 200, "application/json", &missing.to_string()), "a missing field");
    let mut wrong = status.clone();
    wrong["type"] = json!("film");
    assert!(refused("GET", path, 200, "application/json", &wrong.to_string()), "a value outside its enum");
    wrong = status.clone();
    wrong["updated"] = json!("yesterday");
    assert!(refused("GET", path, 200, "application/json", &wrong.to_string()), "a malformed date-time");
    assert!(refused("GET", path, 418, "application/json", "{}"), "an undocumented status");
    assert!(refused("GET", path, 200, "text/plain", "ok"), "an undeclared content type");
    assert!(refused("GET", "/no/such/path", 200, "application/json", "{}"), "an undocumented path");
    assert!(!refused("GET", "/no/such/path", 404, "application/json", r#"{"detail": "no such endpoint"}"#));
    assert!(refused("GET", "/catalogs/", 401, "application/json", r#"{"detail": "wrong body"}"#), "portal body");
}

/// The routes `app()` declares, read from the sources of the route modules' `router()` functions
/// (and the results table, whose rows are routes): `(METHOD, OpenAPI path)`. A module whose router
/// nests its routes under a prefix (`.nest("/admin/v1", routes)`) gives them the prefix.
fn routes_in_app_source() -> Vec<(String, String)> {
    let src = crate::support::manifest_dir().join("src").display().to_string();
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(format!("{src}/routes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.push(format!("{src}/openapi/api.rs").into());
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        // a module whose router nests its routes (`.nest("/admin/v1", routes)`) gives them the prefix
        let router = source.split("pub fn router()").nth(1).unwrap_or("");
        let prefix = router
            .split("\n}\n")
            .next()
            .unwrap_or("")
            .split(".nest(\"")
            .nth(1)
            .map_or("", |rest| rest.split('"').next().unwrap());
        // The results table: each row `... at "/path":` is a GET route of the module's router.
        for row in source.split(" at \"").skip(1) {
            let path = row.split('"').next().unwrap();
            if path.starts_with('/') {
                out.push(("get".to_string(), format!("{prefix}{path}")));
            }
        }
        let Some(body) = source.split("pub fn router()").nth(1).and_then(|b| b.split("\n}\n").next()) else {
            continue;
        };
        let constant = |name: &str| {
            source
                .split(&format!("const {name}: &str = \""))
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_else(|| panic!("{} names the path constant {name}", file.display()))
                .to_string()
        };
        for call in body.split(".route(").skip(1) {
            let call = call.split("\n        .").next().unwrap();
            if call.starts_with('$') {
                continue; // the results table's rows, read above
            }
            let path = if call.trim_start().starts_with('"') {
                call.split('"').nth(1).expect("a route path literal").to_string()
            } else if let Some(rest) = call.trim_start().strip_prefix("&format!(\"{") {
                let (name, tail) = rest.split_once('}').unwrap();
                format!("{}{}", constant(name), tail.split('"').next().unwrap())
            } else {
                constant(call.trim_start().split(',').next().unwrap())
            };
            let path = format!("{prefix}{}", path.replace("{*", "{"));
            for method in ["get", "post", "put", "delete", "patch"] {
                let needle = format!("{method}(");
                let mut calls = call
                    .match_indices(&needle)
                    .filter(|(i, _)| call[..*i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_')));
                if calls.next().is_some() {
                    out.push((method.to_string(), path.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn every_route_of_the_app_is_documented() {
    let doc = kino_server::openapi::api::document();
    let routes = routes_in_app_source();
    assert!(routes.len() >= 80, "{} routes read from the route modules", routes.len());
    let missing: Vec<String> = routes
        .iter()
        .filter(|(method, path)| !doc["paths"][path.as_str()][method.as_str()].is_object())
        .map(|(method, path)| format!("{} {path}", method.to_uppercase()))
        .collect();
    assert!(missing.is_empty(), "routes without #[utoipa::path] in their module's Api: {missing:?}");
}
