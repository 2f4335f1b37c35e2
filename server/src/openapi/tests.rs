use serde_json::Value;

use super::api::document;
use super::docs::docs_page;

fn operations(doc: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            out.push((method.clone(), path.clone(), op));
        }
    }
    out
}

#[test]
fn every_operation_is_typed_described_and_secured() {
    let doc = document();
    assert_eq!(doc["openapi"], "3.1.0");
    let ops = operations(&doc);
    assert!(ops.len() >= 83, "{} operations", ops.len());
    let mut ids = std::collections::HashSet::new();
    for (method, path, op) in &ops {
        let id = format!("{method} {path}");
        assert!(op["summary"].as_str().is_some_and(|s| !s.is_empty()), "{id} has no summary");
        assert!(op["tags"].as_array().is_some_and(|t| t.len() == 1), "{id} has no tag");
        assert!(op["security"].is_array(), "{id} states no security");
        let op_id = op["operationId"].as_str().unwrap_or_else(|| panic!("{id} has no operationId"));
        assert!(ids.insert(op_id.to_string()), "{id}: operationId {op_id} is not unique");
        let responses = op["responses"].as_object().unwrap();
        assert!(responses.keys().any(|s| s.starts_with('2')), "{id} has no success answer");
        for (status, r) in responses {
            let content = r["content"].as_object().unwrap_or_else(|| panic!("{id} {status} has no body"));
            for (kind, media) in content {
                assert!(media["schema"].is_object(), "{id} {status} {kind} has no schema");
            }
        }
        for p in op["parameters"].as_array().into_iter().flatten() {
            let name = p["name"].as_str().unwrap();
            assert!(p["description"].as_str().is_some_and(|d| !d.is_empty()), "{id}: {name} is not described");
            assert!(p["schema"].is_object(), "{id}: {name} has no schema");
        }
    }
}

/// The keywords that give a schema a shape; a schema with none of them (`{}`, or only a
/// description) accepts anything, so a client generated from it gets an untyped answer.
const SHAPING: [&str; 8] = ["$ref", "type", "oneOf", "anyOf", "allOf", "enum", "const", "not"];

/// `schema`, with a `$ref` to a component followed.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) {
        Some(name) => {
            let target = &doc["components"]["schemas"][name];
            assert!(target.is_object(), "{name} is referred to but not among the components");
            resolve(doc, target)
        }
        None => schema,
    }
}

/// Where `doc` describes an answer without a shape: a response other than 204 without content, a
/// content type without a schema or with an empty one, or a property of an answer's object with an
/// empty schema.
fn untyped_answers(doc: &Value) -> Vec<String> {
    let shaped = |s: &Value| s.as_object().is_some_and(|s| SHAPING.iter().any(|k| s.contains_key(*k)));
    let mut problems = Vec::new();
    for (method, path, op) in operations(doc) {
        for (status, response) in op["responses"].as_object().unwrap() {
            let id = format!("{method} {path} {status}");
            let content = response["content"].as_object().filter(|c| !c.is_empty());
            let Some(content) = content else {
                if status != "204" {
                    problems.push(format!("{id}: a body is sent but none is described"));
                }
                continue;
            };
            for (kind, media) in content {
                let schema = resolve(doc, &media["schema"]);
                if !shaped(schema) {
                    problems.push(format!("{id} {kind}: the schema is empty ({schema})"));
                }
                for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                    let property = resolve(doc, property);
                    if !shaped(property) {
                        problems.push(format!("{id} {kind}: property {name} has an empty schema ({property})"));
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn no_answer_has_an_empty_schema() {
    let doc = document();
    assert_eq!(untyped_answers(&doc), Vec::<String>::new());
    // The check itself: an empty schema, a missing content and an empty property are each caught.
    let mut broken = doc.clone();
    broken["paths"]["/health"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] =
        serde_json::json!({});
    broken["paths"]["/catalog/v1/item"]["put"]["responses"]["200"]["content"] = Value::Null;
    broken["components"]["schemas"]["Token"]["properties"]["scope"] = serde_json::json!({"description": "x"});
    let problems = untyped_answers(&broken);
    assert_eq!(problems.len(), 3, "{problems:#?}");
}

#[test]
fn every_previews_parameter_is_described_with_its_rules() {
    let doc = document();
    let params = doc["paths"]["/results/jitpreviews/v2/{inventory_id}"]["get"]["parameters"].as_array().unwrap();
    assert_eq!(params.len(), 1 + kino::ClipQuery::PARAMETERS.len() + 1);
    let by_name = |n: &str| params.iter().find(|p| p["name"] == n).unwrap_or_else(|| panic!("{n}"));
    assert_eq!(by_name("max_nudity")["schema"]["maximum"], 1.0);
    assert_eq!(by_name("max_nudity")["schema"]["default"], 1.0);
    assert!(by_name("max_blood_gore")["description"].as_str().unwrap().contains("version 27"));
    assert!(by_name("custom_start_timestamp")["description"].as_str().unwrap().contains("version 19"));
    assert_eq!(by_name("clip_type")["schema"]["enum"].as_array().unwrap().len(), 13);
    assert_eq!(by_name("generate")["deprecated"], true);
    let shot_type = by_name("shot_type")["schema"]["pattern"].as_str().unwrap().to_string();
    assert!(shot_type.contains("extreme_close_up") && shot_type.contains("no_people"), "{shot_type}");
    let kinds = &doc["components"]["schemas"]["ShotKind"]["enum"];
    assert_eq!(kinds.as_array().map(Vec::len), Some(6), "{kinds}");
    assert!(doc["components"]["schemas"]["Clip"]["properties"]["shot_type"].is_object());
    assert_eq!(by_name("catalog")["required"], true);
}

#[test]
fn the_document_has_its_security_schemes_and_the_docs_page_shows_it() {
    let doc = document();
    for scheme in ["api_key", "api_key_header", "bearer", "oauth2", "admin_token"] {
        assert!(doc["components"]["securitySchemes"][scheme].is_object(), "{scheme}");
    }
    let page = docs_page(&document());
    assert!(page.contains("/results/emotions/v2/"));
    assert!(page.contains("minimum_clip_separation"));
    assert!(page.contains("/admin/v1/orgs/{org}/recipes/{id}/run"));
}

#[test]
#[ignore = "writes the document to $OPENAPI_OUT for inspection"]
fn write_document() {
    let path = std::env::var("OPENAPI_OUT").unwrap_or_else(|_| "/tmp/openapi.json".into());
    std::fs::write(path, serde_json::to_string_pretty(&document()).unwrap()).unwrap();
}
