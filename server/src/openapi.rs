//! The OpenAPI 3.1 document of every endpoint, and a human docs page, both generated from one
//! table in this module (parameters of the clip search come from the core's `ClipQuery`).

use serde_json::{Map, Value, json};

/// A parameter's schema.
#[derive(Debug, Clone, Copy)]
enum Ty {
    Str,
    Int {
        min: Option<i64>,
    },
    /// An integer with both bounds (portal paging and ids).
    Range(i64, i64),
    /// The interface's UUID pattern.
    Uuid,
    /// An email address.
    Email,
    Num {
        min: Option<f64>,
        max: Option<f64>,
    },
    Bool,
    DateTime,
    Enum(&'static [&'static str]),
}

#[derive(Debug, Clone, Copy)]
struct P {
    name: &'static str,
    location: &'static str,
    ty: Ty,
    required: bool,
    default: Option<&'static str>,
    doc: &'static str,
}

const fn q(name: &'static str, ty: Ty, default: Option<&'static str>, doc: &'static str) -> P {
    P { name, location: "query", ty, required: false, default, doc }
}

const fn path(name: &'static str, ty: Ty) -> P {
    P { name, location: "path", ty, required: true, default: None, doc: "" }
}

/// The UUID pattern of the interface's portal path ids: versions 1 to 8 with variant 8/9/a/b, and
/// the nil and max UUIDs.
const UUID_PATTERN: &str = "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$";
const SAFE: i64 = crate::routes::portal::MAX_SAFE_INTEGER;

const INVENTORY: P = path("inventory_id", Ty::Str);
const VERSION: P = q("version", Ty::Str, None, "result version code");
const PAGE_NUM: P = q("page_num", Ty::Int { min: Some(0) }, Some("0"), "page number from 0");
const PAGE_500: P = q("page_size", Ty::Int { min: Some(1) }, Some("500"), "page size");
const FROM: P = q("from_utcdatetime", Ty::DateTime, None, "results updated at or after (ISO 8601)");
const TO: P = q("to_utcdatetime", Ty::DateTime, None, "results updated at or before (default: now)");
const CATALOG: P =
    P { name: "catalog", location: "query", ty: Ty::Str, required: true, default: None, doc: "catalog name" };
const ITEM_TYPES: Ty = Ty::Enum(&["standalone", "series", "season", "episode"]);
const UNIT: Ty = Ty::Num { min: Some(0.0), max: Some(1.0) };
const NONNEG: Ty = Ty::Num { min: Some(0.0), max: None };
const PERCENT: Ty = Ty::Num { min: Some(0.0), max: Some(100.0) };

/// The clip search parameters: name, schema, default.
fn clip_params() -> Vec<P> {
    let table: [(&str, Ty, Option<&str>); 36] = [
        ("version", Ty::Str, None),
        ("character_preference", Ty::Enum(&["any", "any_of", "all_of", "None", "avoid"]), Some("any")),
        ("character_list", Ty::Str, None),
        ("number_of_top_candidates", Ty::Int { min: Some(1) }, Some("5")),
        (
            "clip_type",
            Ty::Enum(&[
                "ANY",
                "High-octane action",
                "Exciting",
                "Emotional",
                "Dark & gritty",
                "Gory & bloody",
                "Epic",
                "Scary",
                "Romantic",
                "Funny and comical",
                "Heartfelt",
                "Epic scenery",
                "Creepy and scary",
            ]),
            Some("ANY"),
        ),
        ("min_nudity", UNIT, Some("0")),
        ("max_nudity", UNIT, Some("1")),
        ("min_blood_gore", UNIT, Some("0")),
        ("max_blood_gore", UNIT, Some("1")),
        ("min_profanity", UNIT, Some("0")),
        ("max_profanity", UNIT, Some("1")),
        ("min_brightness", UNIT, Some("0")),
        ("max_brightness", UNIT, Some("1")),
        ("clip_length", NONNEG, Some("30")),
        ("skip_start", PERCENT, Some("10")),
        ("skip_end", PERCENT, Some("10")),
        ("start_bwd_snap_search", NONNEG, Some("0")),
        ("start_fwd_snap_search", NONNEG, Some("0")),
        ("end_bwd_snap_search", NONNEG, Some("0")),
        ("end_fwd_snap_search", NONNEG, Some("0")),
        ("end_bwd_speech_search", NONNEG, Some("3")),
        ("end_fwd_speech_search", NONNEG, Some("3")),
        ("end_speech_stop_silence_before", NONNEG, Some("0")),
        ("end_speech_stop_silence_after", NONNEG, Some("0")),
        ("start_bwd_speech_search", NONNEG, Some("1")),
        ("start_fwd_speech_search", NONNEG, Some("1")),
        ("start_speech_stop_silence_before", NONNEG, Some("0.5")),
        ("start_speech_stop_silence_after", NONNEG, Some("0.5")),
        ("minimum_clip_separation", NONNEG, Some("60")),
        ("search_query", Ty::Str, None),
        ("add_keyword_tags", Ty::Bool, Some("true")),
        ("generate", Ty::Bool, Some("false")),
        ("trigger_generation", Ty::Bool, Some("false")),
        ("aspect_ratio", Ty::Enum(&["None", "9:16"]), Some("None")),
        ("custom_start_timestamp", NONNEG, None),
        ("custom_stop_timestamp", NONNEG, None),
    ];
    debug_assert!(table.iter().map(|t| t.0).eq(kino::ClipQuery::PARAMETERS.iter().copied()));
    table.into_iter().map(|(name, ty, default)| q(name, ty, default, "see clip-selection.md")).collect()
}

struct Endpoint {
    method: &'static str,
    path: &'static str,
    tag: &'static str,
    summary: &'static str,
    params: Vec<P>,
    body: Option<&'static str>,
    responses: &'static [(u16, &'static str)],
}

const OK: &[(u16, &str)] =
    &[(200, "success"), (401, "no or bad API key"), (404, "not found"), (422, "validation error")];
const ADMIN_OK: &[(u16, &str)] = &[(200, "success"), (401, "no or bad admin token"), (404, "no such organisation")];
const ADMIN_CREATED: &[(u16, &str)] =
    &[(201, "created"), (401, "no or bad admin token"), (404, "no such organisation")];
const ADMIN_REVOKE: &[(u16, &str)] = &[
    (200, "revoked"),
    (401, "no or bad admin token"),
    (404, "no such organisation, or no live credential of it with this id"),
    (409, "the key prefix matches several live keys (nothing revoked)"),
];
const TASK_OK: &[(u16, &str)] = &[
    (200, "task status"),
    (400, "task is not failed"),
    (401, "no or bad API key"),
    (404, "no task and no result"),
    (422, "validation error"),
];

fn endpoints() -> Vec<Endpoint> {
    let e = |method, path, tag, summary, params: Vec<P>| Endpoint {
        method,
        path,
        tag,
        summary,
        params,
        body: None,
        responses: OK,
    };
    let typed_item = vec![path("item_type", ITEM_TYPES), path("id", Ty::Str)];
    let task = vec![INVENTORY, path("product", Ty::Enum(&crate::products::PRODUCTS)), path("version", Ty::Str)];
    let mut clip = clip_params();
    clip.push(CATALOG);
    let portal_page = vec![
        q("page", Ty::Range(1, SAFE), Some("1"), "page number from 1"),
        q("limit", Ty::Range(1, 100), Some("20"), "items per page, 1 to 100"),
    ];
    vec![
        Endpoint {
            body: Some(
                "grant_type=client_credentials, scope (space-separated; default every scope: read:smartlist:published \
                 read:recipe:published read:creative-asset:published read:previews), and client_id + client_secret \
                 unless the client authenticates with HTTP Basic (Authorization: Basic \
                 base64(urlencode(client_id):urlencode(client_secret))), never both; JSON or form-encoded",
            ),
            responses: &[
                (200, "access token"),
                (
                    400,
                    "invalid_request (malformed, a missing field, or two client authentication methods), unsupported_grant_type, invalid_scope",
                ),
                (
                    401,
                    "invalid_client (unknown or revoked client, wrong secret, malformed Basic credential); WWW-Authenticate: Basic",
                ),
            ],
            ..e("post", "/oauth/token", "identity", "Issue an access token (OAuth 2.0 client credentials)", vec![])
        },
        Endpoint {
            responses: ADMIN_OK,
            ..e(
                "get",
                "/admin/v1/orgs/{org}/api-keys",
                "admin",
                "List API keys: prefix, created_at, revoked_at (never the key)",
                vec![path("org", Ty::Str)],
            )
        },
        Endpoint {
            responses: ADMIN_CREATED,
            ..e(
                "post",
                "/admin/v1/orgs/{org}/api-keys",
                "admin",
                "Create an API key (shown in this answer only)",
                vec![path("org", Ty::Str)],
            )
        },
        Endpoint {
            responses: ADMIN_REVOKE,
            ..e(
                "delete",
                "/admin/v1/orgs/{org}/api-keys/{id}",
                "admin",
                "Revoke a live API key by its prefix as listed (kino_ and 8 hex digits); effective at once",
                vec![path("org", Ty::Str), path("id", Ty::Str)],
            )
        },
        Endpoint {
            responses: ADMIN_OK,
            ..e(
                "get",
                "/admin/v1/orgs/{org}/clients",
                "admin",
                "List OAuth clients: client_id, created_at, revoked_at (never the secret)",
                vec![path("org", Ty::Str)],
            )
        },
        Endpoint {
            responses: ADMIN_CREATED,
            ..e(
                "post",
                "/admin/v1/orgs/{org}/clients",
                "admin",
                "Create an OAuth client (the secret is in this answer only)",
                vec![path("org", Ty::Str)],
            )
        },
        Endpoint {
            responses: ADMIN_REVOKE,
            ..e(
                "delete",
                "/admin/v1/orgs/{org}/clients/{id}",
                "admin",
                "Revoke an OAuth client: no new tokens, and the tokens it holds are refused at once",
                vec![path("org", Ty::Str), path("id", Ty::Str)],
            )
        },
        e(
            "get",
            "/catalogs/",
            "portal",
            "List catalogs (bearer token, scope read:smartlist:published)",
            portal_page.clone(),
        ),
        e("get", "/catalogs/{id}", "portal", "One catalog", vec![path("id", Ty::Range(-SAFE, SAFE))]),
        e("get", "/smartlists/", "portal", "List published smartlists (scope read:smartlist:published)", {
            let mut p = portal_page.clone();
            p.extend([
                q("catalogId", Ty::Range(-SAFE, SAFE), None, "catalog id"),
                q("catalogName", Ty::Str, None, "catalog name, exact"),
                q("creator", Ty::Email, None, "creator's email"),
                q("purpose", Ty::Enum(&crate::portal::smartlists::PURPOSES), None, "purpose"),
                q("is_ai_generated", Ty::Enum(&["true", "false"]), None, "made by a model"),
                q("search", Ty::Str, None, "case-insensitive part of the title"),
            ]);
            p
        }),
        e(
            "get",
            "/smartlists/{id}",
            "portal",
            "One published smartlist with its filter (id: UUID)",
            vec![path("id", Ty::Uuid)],
        ),
        e("get", "/smartlists/{id}/assets", "portal", "Members of a smartlist in position order", {
            let mut p = portal_page.clone();
            p.push(path("id", Ty::Uuid));
            p
        }),
        e("get", "/recipes/", "portal", "List published recipes (scope read:recipe:published)", {
            let mut p = portal_page.clone();
            p.extend([
                q("type", Ty::Enum(&crate::portal::recipes::TYPES), None, "recipe type"),
                q("creator", Ty::Email, None, "creator's email"),
                q("search", Ty::Str, None, "case-insensitive part of the title"),
            ]);
            p
        }),
        e(
            "get",
            "/recipes/{id}",
            "portal",
            "One published recipe with config and version (id: UUID)",
            vec![path("id", Ty::Uuid)],
        ),
        e(
            "get",
            "/creative-assets/",
            "portal",
            "List creative assets of published recipes (scope read:creative-asset:published)",
            {
                let mut p = portal_page.clone();
                p.extend([
                    q("recipeId", Ty::Uuid, None, "recipe UUID"),
                    q("inventoryId", Ty::Str, None, "customer item id"),
                    q(
                        "type",
                        Ty::Enum(&["thumbnail", "preview", "thumbnail-vertical", "preview-vertical"]),
                        None,
                        "asset type",
                    ),
                ]);
                p
            },
        ),
        e(
            "get",
            "/creative-assets/{id}",
            "portal",
            "One creative asset with run_number and asset_index (id: UUID)",
            vec![path("id", Ty::Uuid)],
        ),
        Endpoint {
            body: Some("a catalog item"),
            ..e("put", "/catalog/v1/item", "catalog", "Create or replace a catalog item", vec![])
        },
        e(
            "get",
            "/catalog/v1/item",
            "catalog",
            "List catalog items",
            vec![PAGE_NUM, PAGE_500, q("allow_deleted", Ty::Bool, Some("false"), "include deleted items")],
        ),
        e(
            "get",
            "/catalog/v1/item/{item_type}/{id}",
            "catalog",
            "Get a catalog item",
            [
                typed_item.clone(),
                vec![
                    q("allow_deleted", Ty::Bool, Some("false"), ""),
                    q("asset_model", Ty::Bool, Some("false"), "asset-structured episode format"),
                ],
            ]
            .concat(),
        ),
        e(
            "put",
            "/catalog/v1/delete/{item_type}/{id}",
            "catalog",
            "Delete a catalog item, keeping its data",
            typed_item.clone(),
        ),
        Endpoint {
            body: Some("a kino.signals/1 document"),
            ..e("put", "/analysis/v1/item/{item_type}/{id}", "catalog", "Store an item's analysis signals", typed_item)
        },
        Endpoint {
            responses: TASK_OK,
            ..e(
                "get",
                "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}",
                "tasks",
                "Task status",
                task.clone(),
            )
        },
        Endpoint {
            responses: TASK_OK,
            body: Some("options, e.g. {\"priority\": \"low\"}"),
            ..e(
                "post",
                "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}",
                "tasks",
                "Create or update a task",
                task.clone(),
            )
        },
        Endpoint {
            responses: TASK_OK,
            ..e(
                "delete",
                "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}",
                "tasks",
                "Deactivate a task",
                task.clone(),
            )
        },
        Endpoint {
            responses: TASK_OK,
            ..e(
                "put",
                "/tasks/catalog-item/{inventory_id}/product/{product}/version/{version}/reset",
                "tasks",
                "Reset a failed task",
                task,
            )
        },
        e("get", "/tasks/catalog-item/{inventory_id}", "tasks", "Every task of an item", vec![INVENTORY]),
        e(
            "get",
            "/results/jitpreviews/v2/{inventory_id}",
            "previews",
            "Preview clips of an item",
            [vec![INVENTORY], clip].concat(),
        ),
        e(
            "get",
            "/results/jitpreviews/v2/gen/{gen_id}/status",
            "previews",
            "Media generation status",
            vec![path("gen_id", Ty::Str), CATALOG],
        ),
        e(
            "get",
            "/results/jitpreviews/v2/info/clip_types",
            "previews",
            "Clip types of a version",
            vec![VERSION, CATALOG],
        ),
        e(
            "get",
            "/results/jitpreviews/v2/status/{inventory_id}",
            "previews",
            "Previews result status",
            vec![INVENTORY, VERSION, CATALOG],
        ),
        e(
            "get",
            "/results/jitpreviews/v2/",
            "previews",
            "Items with updated previews results",
            vec![FROM, TO, PAGE_NUM, q("page_size", Ty::Int { min: Some(1) }, Some("1000"), ""), VERSION, CATALOG],
        ),
        e(
            "get",
            "/results/semantic_scenes/v1/text-embedding",
            "retrieval",
            "Text embedding of a query",
            vec![
                P { name: "q", location: "query", ty: Ty::Str, required: true, default: None, doc: "text query" },
                VERSION,
            ],
        ),
        e(
            "get",
            "/results/semantic_scenes/v1/video-embedding/{inventory_id}",
            "retrieval",
            "Scene embeddings of an item",
            vec![INVENTORY, VERSION],
        ),
        e(
            "get",
            "/results/semantic_scenes/v1/status/{inventory_id}",
            "retrieval",
            "Scene embeddings status",
            vec![INVENTORY, VERSION],
        ),
        e(
            "get",
            "/results/semantic_scenes/v1/video-embedding",
            "retrieval",
            "Items with scene embeddings",
            vec![FROM, TO, PAGE_NUM, PAGE_500, q("include_episodes", Ty::Bool, Some("false"), ""), VERSION],
        ),
        e(
            "get",
            "/results/semantic/v2/video-embedding/{inventory_id}",
            "retrieval",
            "Item embedding (256 floats)",
            vec![INVENTORY, VERSION],
        ),
        e(
            "get",
            "/results/semantic/v2/status/{inventory_id}",
            "retrieval",
            "Item embedding status",
            vec![INVENTORY, VERSION],
        ),
        e(
            "get",
            "/results/semantic/v2/video-embedding",
            "retrieval",
            "Items with item embeddings",
            vec![FROM, TO, PAGE_NUM, PAGE_500, q("include_episodes", Ty::Bool, Some("false"), ""), VERSION],
        ),
        e(
            "get",
            "/results/profanity/v2/{inventory_id}",
            "profanity",
            "Profanity classification",
            vec![INVENTORY, VERSION],
        ),
        e(
            "get",
            "/results/profanity/v2/status/{inventory_id}",
            "profanity",
            "Profanity status",
            vec![INVENTORY, VERSION],
        ),
        e(
            "get",
            "/results/profanity/v2/segments/{inventory_id}",
            "profanity",
            "Profanity segments",
            vec![INVENTORY, VERSION],
        ),
        e(
            "get",
            "/results/profanity/v2/",
            "profanity",
            "Items with profanity results",
            vec![FROM, TO, PAGE_NUM, PAGE_500, VERSION],
        ),
        e(
            "get",
            "/results/similar/similar/v2/movies/{inventory_id}",
            "similar",
            "Similar movies (deprecated)",
            similar_params(),
        ),
        e(
            "get",
            "/results/similar/similar/v2/series/{inventory_id}",
            "similar",
            "Similar series (deprecated)",
            similar_params(),
        ),
        e(
            "get",
            "/results/similar/similar/v2/{inventory_id}",
            "similar",
            "Similar titles (deprecated)",
            similar_params(),
        ),
        e("get", "/results/emotions/v2/{inventory_id}", "emotions", "Emotion windows", vec![INVENTORY, VERSION]),
        e("get", "/results/emotions/v2/status/{inventory_id}", "emotions", "Emotions status", vec![INVENTORY, VERSION]),
        e(
            "get",
            "/results/emotions/v2/",
            "emotions",
            "Items with emotion results",
            vec![
                FROM,
                TO,
                PAGE_NUM,
                PAGE_500,
                q("type", Ty::Enum(&["all", "movie", "episode", "series", "season"]), Some("all"), "type of assets"),
                VERSION,
            ],
        ),
    ]
}

fn similar_params() -> Vec<P> {
    vec![
        INVENTORY,
        VERSION,
        q("skip", Ty::Int { min: Some(0) }, Some("0"), "items skipped from the start"),
        q("count", Ty::Int { min: Some(1) }, Some("10"), "items returned"),
        q("max_score", UNIT, None, "highest score included"),
    ]
}

fn schema(ty: Ty, default: Option<&str>) -> Value {
    let mut s = match ty {
        Ty::Str => json!({"type": "string"}),
        Ty::Int { min } => json!({"type": "integer", "minimum": min}),
        Ty::Range(min, max) => json!({"type": "integer", "minimum": min, "maximum": max}),
        Ty::Uuid => json!({"type": "string", "pattern": UUID_PATTERN}),
        Ty::Email => json!({"type": "string", "format": "email"}),
        Ty::Num { min, max } => json!({"type": "number", "minimum": min, "maximum": max}),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::DateTime => json!({"type": "string", "format": "date-time"}),
        Ty::Enum(values) => json!({"type": "string", "enum": values}),
    };
    if let Value::Object(m) = &mut s {
        m.retain(|_, v| !v.is_null());
        if let Some(d) = default {
            let value = match ty {
                Ty::Int { .. } | Ty::Range(..) => d.parse::<i64>().map(Value::from).unwrap_or(json!(d)),
                Ty::Num { .. } => d.parse::<f64>().map(Value::from).unwrap_or(json!(d)),
                Ty::Bool => json!(d == "true"),
                _ => json!(d),
            };
            m.insert("default".into(), value);
        }
    }
    s
}

/// The OpenAPI 3.1 document (parsed into, and written from, utoipa's model of OpenAPI).
pub fn document() -> Value {
    let raw = raw_document();
    match serde_json::from_value::<utoipa::openapi::OpenApi>(raw.clone()) {
        Ok(parsed) => serde_json::to_value(parsed).unwrap_or(raw),
        Err(e) => {
            tracing::error!(error = %e, "the OpenAPI table does not fit the OpenAPI model");
            raw
        }
    }
}

fn raw_document() -> Value {
    let mut paths = Map::new();
    for ep in endpoints() {
        let params: Vec<Value> = ep
            .params
            .iter()
            .map(|p| json!({"name": p.name, "in": p.location, "required": p.required, "description": p.doc, "schema": schema(p.ty, p.default)}))
            .collect();
        let mut responses: Map<String, Value> = ep
            .responses
            .iter()
            .map(|(code, d)| (code.to_string(), json!({"description": d, "content": {"application/json": {}}})))
            .collect();
        if ep.tag == "previews" {
            // An access token (rather than an API key) is rate limited and needs the previews scope.
            for (code, d) in [
                (403, "access token without the read:previews scope (insufficient_scope)"),
                (429, "access token over its organisation's portal rate limit (Retry-After)"),
            ] {
                responses.insert(code.to_string(), json!({"description": d, "content": {"application/json": {}}}));
            }
        }
        let mut op = json!({
            "tags": [ep.tag],
            "summary": ep.summary,
            "operationId": format!("{}_{}", ep.method, ep.path.replace(['/', '{', '}', '-'], "_")),
            "parameters": params,
            "responses": responses,
            "security": match ep.tag {
                "portal" => json!([{"bearer": []}]),
                "identity" => json!([]),
                "admin" => json!([{"admin_token": []}]),
                "previews" => json!([{"api_key_query": []}, {"api_key_header": []}, {"bearer": []}]),
                _ => json!([{"api_key_query": []}, {"api_key_header": []}]),
            },
        });
        if let Some(body) = ep.body {
            op["requestBody"] = json!({"description": body, "required": true, "content": {"application/json": {"schema": {"type": "object"}}}});
        }
        let entry = paths.entry(ep.path.to_string()).or_insert_with(|| json!({}));
        entry[ep.method] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "kino", "version": env!("CARGO_PKG_VERSION"), "description": "Content intelligence for video catalogs: processing and results interfaces."},
        "paths": paths,
        "components": {"securitySchemes": {
            "api_key_query": {"type": "apiKey", "in": "query", "name": "key"},
            "api_key_header": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
            "admin_token": {"type": "http", "scheme": "bearer", "description": "the admin token (--admin-token-file, KINO_ADMIN_TOKEN or <data-dir>/admin.token)"},
        }},
    })
}

/// A plain HTML page listing every endpoint and its parameters.
pub fn docs_page() -> String {
    let mut html = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>kino API</title><style>body{font-family:sans-serif;max-width:70em;margin:2em auto}code{background:#f4f4f4}td,th{padding:2px 8px;text-align:left;vertical-align:top}h3{margin-top:1.5em}</style></head><body><h1>kino API</h1><p>Machine-readable: <a href=\"/openapi.json\">/openapi.json</a> (OpenAPI 3.1). Authenticate with <code>?key=&lt;API key&gt;</code>.</p>",
    );
    for ep in endpoints() {
        html.push_str(&format!(
            "<h3><code>{} {}</code></h3><p>{}</p>",
            ep.method.to_uppercase(),
            escape(ep.path),
            escape(ep.summary)
        ));
        if !ep.params.is_empty() {
            html.push_str("<table><tr><th>parameter</th><th>in</th><th>schema</th><th>required</th></tr>");
            for p in &ep.params {
                html.push_str(&format!(
                    "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                    escape(p.name),
                    p.location,
                    escape(&schema(p.ty, p.default).to_string()),
                    if p.required { "yes" } else { "" }
                ));
            }
            html.push_str("</table>");
        }
    }
    html.push_str("</body></html>");
    html
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    #[test]
    fn document_lists_every_endpoint_and_parses_as_openapi() {
        serde_json::from_value::<utoipa::openapi::OpenApi>(super::raw_document()).unwrap();
        let doc = super::document();
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(doc["paths"].as_object().unwrap().len(), 43);
        assert!(doc["paths"]["/admin/v1/orgs/{org}/clients/{id}"]["delete"].is_object());
        assert!(doc["paths"]["/smartlists/{id}/assets"]["get"].is_object());
        let clip = &doc["paths"]["/results/jitpreviews/v2/{inventory_id}"]["get"]["parameters"];
        assert_eq!(clip.as_array().unwrap().len(), 1 + 36 + 1);
        assert!(super::docs_page().contains("/results/emotions/v2/"));
    }
}
