//! A readable HTML page of the document: every operation with its parameters (schema, default,
//! range, description), request body and answers.

use serde_json::Value;

/// The docs page (`/docs`), generated from the document ([`super::api::document`]).
pub fn docs_page(doc: &Value) -> String {
    let mut html = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>kino API</title><style>\
         body{font-family:sans-serif;max-width:75em;margin:2em auto;padding:0 1em}code{background:#f4f4f4}\
         td,th{padding:2px 8px;text-align:left;vertical-align:top}h3{margin-top:1.5em}.dep{color:#a00}</style>\
         </head><body><h1>kino API</h1><p>Machine-readable: <a href=\"/openapi.json\">/openapi.json</a> \
         (OpenAPI 3.1).</p>",
    );
    if let Some(d) = doc["info"]["description"].as_str() {
        html.push_str(&format!("<p>{}</p>", escape(d)));
    }
    let Some(paths) = doc["paths"].as_object() else { return html };
    for (path, item) in paths {
        for method in ["get", "put", "post", "delete", "patch"] {
            let op = &item[method];
            if op.is_null() {
                continue;
            }
            html.push_str(&operation(method, path, op));
        }
    }
    html.push_str("</body></html>");
    html
}

fn operation(method: &str, path: &str, op: &Value) -> String {
    let mut out = format!("<h3><code>{} {}</code></h3>", method.to_uppercase(), escape(path));
    if op["deprecated"] == true {
        out.push_str("<p class=\"dep\">Deprecated.</p>");
    }
    for key in ["summary", "description"] {
        if let Some(text) = op[key].as_str() {
            out.push_str(&format!("<p>{}</p>", escape(text)));
        }
    }
    if let Some(security) = op["security"].as_array().filter(|s| !s.is_empty()) {
        let names: Vec<String> = security
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|m| {
                m.iter().map(
                    |(k, v)| if v.as_array().is_some_and(|a| !a.is_empty()) { format!("{k} {v}") } else { k.clone() },
                )
            })
            .collect();
        if !names.is_empty() {
            out.push_str(&format!("<p>Credentials (any one): <code>{}</code></p>", escape(&names.join(", "))));
        }
    }
    if let Some(params) = op["parameters"].as_array().filter(|p| !p.is_empty()) {
        out.push_str(
            "<table><tr><th>parameter</th><th>in</th><th>schema</th><th>required</th><th>description</th></tr>",
        );
        for p in params {
            out.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                escape(p["name"].as_str().unwrap_or("")),
                escape(p["in"].as_str().unwrap_or("")),
                escape(&p["schema"].to_string()),
                if p["required"] == true { "yes" } else { "" },
                escape(p["description"].as_str().unwrap_or("")),
            ));
        }
        out.push_str("</table>");
    }
    if let Some(content) = op["requestBody"]["content"].as_object() {
        for (kind, media) in content {
            out.push_str(&format!(
                "<p>Body (<code>{}</code>): <code>{}</code></p>",
                escape(kind),
                escape(&schema_name(&media["schema"]))
            ));
        }
    }
    if let Some(responses) = op["responses"].as_object() {
        out.push_str("<table><tr><th>status</th><th>answer</th><th>body</th></tr>");
        for (status, r) in responses {
            let bodies: Vec<String> = r["content"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(kind, media)| format!("{kind}: {}", schema_name(&media["schema"])))
                .collect();
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                escape(status),
                escape(r["description"].as_str().unwrap_or("")),
                escape(&bodies.join("; ")),
            ));
        }
        out.push_str("</table>");
    }
    out
}

/// A schema as a short name: the component it refers to, or its JSON.
fn schema_name(schema: &Value) -> String {
    if let Some(r) = schema["$ref"].as_str() {
        return r.rsplit('/').next().unwrap_or(r).to_string();
    }
    if schema["type"] == "array" {
        return format!("[{}]", schema_name(&schema["items"]));
    }
    schema.to_string()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
