//! The organisation's webhooks, their delivery log, and each delivery's body.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use crate::state::AppState;
use crate::store::DeliveryState;
use crate::web::common::{
    Failure, Query, Signed, SignedForm, blocking, csrf, fail, form_error, internal, notice, page, secret,
};
use crate::webhooks::{self, WebhookError};

fn webhook_error(e: WebhookError) -> Failure {
    match e {
        WebhookError::Invalid { .. } => fail(StatusCode::BAD_REQUEST, e.to_string()),
        WebhookError::NotFound { .. } => fail(StatusCode::NOT_FOUND, e.to_string()),
        WebhookError::TooManyPending { .. } => fail(StatusCode::TOO_MANY_REQUESTS, e.to_string()),
        WebhookError::Store(e) => internal(e),
    }
}

async fn webhooks_page(
    state: AppState,
    signed: Signed,
    shown: Markup,
    error: Option<String>,
    code: Option<String>,
) -> Response {
    let org = signed.session.org;
    let hooks = match blocking(move || webhooks::list(&state.store, org).map_err(webhook_error)).await {
        Ok(h) => h,
        Err(f) => return f.into_response(),
    };
    let body = html! {
        (notice(code.as_deref()))
        (shown)
        p { "Webhooks announce work in the portal (recipes, creative assets, smartlists) to an HTTPS address, signed with "
            code { "X-Service-Signature" } " (HMAC-SHA256 of the body with the webhook's signing secret)." }
        table.list #webhooks {
            caption.sr { "Webhooks" }
            thead { tr { th scope="col" { "URL" } th scope="col" { "Events" } th scope="col" { "State" } th scope="col" { "Actions" } } }
            tbody {
                @for h in &hooks {
                    tr data-webhook=(h.id) {
                        td { a href=(format!("/app/webhooks/{}", h.id)) { (h.url) } }
                        td { (h.events.join(", ")) }
                        td { @if h.enabled { "enabled" } @else { "disabled" } }
                        td.actions {
                            @for (action, label) in [(if h.enabled { "disable" } else { "enable" }, if h.enabled { "Disable" } else { "Enable" }), ("test", "Test"), ("delete", "Delete")] {
                                form method="post" action=(format!("/app/webhooks/{}/{action}", h.id)) {
                                    (csrf(&signed))
                                    button.danger[action == "delete"] type="submit" aria-label=(format!("{label} {}", h.url)) { (label) }
                                }
                            }
                            a href=(format!("/app/webhooks/{}", h.id)) { "Delivery log" }
                        }
                    }
                }
            }
        }
        h2 { "Create a webhook" }
        (form_error(error.as_deref()))
        form.stack method="post" action="/app/webhooks" {
            (csrf(&signed))
            label for="url" { "HTTPS URL that receives the events" }
            input #url type="url" name="url" required maxlength="2048" placeholder="https://example.com/kino-events";
            fieldset {
                legend { "Events" }
                @for event in webhooks::EVENTS {
                    label.check {
                        input type="checkbox" name="events" value=(event) checked;
                        " " (event)
                    }
                }
            }
            label.check {
                input type="checkbox" name="enabled" value="true" checked;
                " Enabled (events are delivered)"
            }
            button type="submit" { "Create the webhook" }
        }
    };
    page(&signed, "/app/webhooks", "Webhooks", body).into_response()
}

/// `GET /app/webhooks`.
pub async fn webhooks(State(state): State<AppState>, signed: Signed, q: Query) -> Response {
    let code = q.get("notice").map(str::to_string);
    webhooks_page(state, signed, html! {}, None, code).await
}

/// `POST /app/webhooks` `url, events*, enabled`: the signing secret shown this once.
pub async fn create_webhook(State(state): State<AppState>, f: SignedForm) -> Response {
    let org = f.signed.session.org;
    let url = f.form.get("url").trim().to_string();
    let events = f.form.all("events");
    let enable = f.form.get("enabled") == "true";
    let s = state.clone();
    // Creation resolves the URL's host: off the async threads.
    let made = blocking(move || {
        Ok(webhooks::create(&s.store, &s.keys.secrets, s.config.webhook_allow_loopback, org, &url, &events, enable))
    })
    .await;
    match made {
        Ok(Ok((view, signing_secret))) => {
            let shown = html! {
                p role="status" { "Webhook for " code { (view.url) } " created" @if view.enabled { " and enabled" } "." }
                (secret("Its signing secret", &signing_secret))
            };
            webhooks_page(state, f.signed, shown, None, None).await
        }
        Ok(Err(e @ WebhookError::Invalid { .. })) => {
            webhooks_page(state, f.signed, html! {}, Some(e.to_string()), None).await
        }
        Ok(Err(e)) => webhook_error(e).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `POST /app/webhooks/{id}/{enable|disable|test|delete}`.
pub async fn webhook_action(
    State(state): State<AppState>,
    Path((id, action)): Path<(String, String)>,
    f: SignedForm,
) -> Response {
    let org = f.signed.session.org;
    let back = format!("/app/webhooks/{id}");
    let done = blocking(move || {
        match action.as_str() {
            "enable" => webhooks::set_enabled(&state.store, org, &id, true).map(|_| "enabled"),
            "disable" => webhooks::set_enabled(&state.store, org, &id, false).map(|_| "disabled"),
            "test" => webhooks::test(&state.store, &state.effects, org, &id).map(|_| "test"),
            "delete" => webhooks::delete(&state.store, org, &id).map(|_| "deleted"),
            _ => return Err(fail(StatusCode::NOT_FOUND, "no such webhook action")),
        }
        .map_err(webhook_error)
    })
    .await;
    match done {
        Ok("deleted") => Redirect::to("/app/webhooks?notice=deleted").into_response(),
        Ok(code) => Redirect::to(&format!("{back}?notice={code}")).into_response(),
        Err(f) => f.into_response(),
    }
}

/// `GET /app/webhooks/{id}`: the webhook and its delivery log, newest first.
pub async fn webhook(State(state): State<AppState>, Path(id): Path<String>, signed: Signed, q: Query) -> Response {
    let org = signed.session.org;
    let code = q.get("notice").map(str::to_string);
    let found = blocking(move || {
        let hook = webhooks::list(&state.store, org)
            .map_err(webhook_error)?
            .into_iter()
            .find(|h| h.id == id)
            .ok_or_else(|| fail(StatusCode::NOT_FOUND, "the organisation has no such webhook"))?;
        let log = webhooks::deliveries(&state.store, org, &hook.id, 200).map_err(webhook_error)?;
        Ok((hook, log))
    })
    .await;
    let (hook, log) = match found {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let waiting = log.iter().any(|d| matches!(d.state, DeliveryState::Pending | DeliveryState::Sending));
    let body = html! {
        (notice(code.as_deref()))
        dl.facts {
            dt { "URL" } dd { code { (hook.url) } }
            dt { "Events" } dd { (hook.events.join(", ")) }
            dt { "State" } dd { @if hook.enabled { "enabled" } @else { "disabled" } }
            dt { "Created" } dd { (hook.created_at) }
        }
        div.actions {
            @for (action, label) in [(if hook.enabled { "disable" } else { "enable" }, if hook.enabled { "Disable" } else { "Enable" }), ("test", "Test")] {
                form method="post" action=(format!("/app/webhooks/{}/{action}", hook.id)) {
                    (csrf(&signed))
                    button type="submit" { (label) }
                }
            }
        }
        h2 { "Delivery log" }
        p { a href=(format!("/app/webhooks/{}", hook.id)) { "Refresh" } @if waiting { " · deliveries are on their way; this page reloads itself" } }
        table.list #deliveries data-refresh[waiting] {
            caption.sr { "Deliveries, newest first" }
            thead { tr {
                th scope="col" { "Event" } th scope="col" { "State" } th scope="col" { "Status code" }
                th scope="col" { "Duration" } th scope="col" { "Error" } th scope="col" { "Queued" } th scope="col" { "Actions" }
            } }
            tbody {
                @for d in &log {
                    tr data-delivery=(d.id) data-state=(d.state.as_str()) {
                        td { (d.event) @if d.redelivery_of.is_some() { " (again)" } }
                        td { (d.state.as_str()) }
                        td { @if let Some(c) = d.status_code { (c) } }
                        td { @if let Some(ms) = d.duration_ms { (ms) " ms" } }
                        td { @if let Some(e) = &d.error { (e) } }
                        td { (d.created_at) }
                        td.actions {
                            a href=(format!("/app/deliveries/{}", d.id)) aria-label=(format!("Body of delivery {}", d.id)) { "Body" }
                            form method="post" action=(format!("/app/deliveries/{}/redeliver", d.id)) {
                                (csrf(&signed))
                                button type="submit" aria-label=(format!("Redeliver {}", d.id)) { "Redeliver" }
                            }
                        }
                    }
                }
            }
        }
    };
    page(&signed, "/app/webhooks", "Webhook", body).into_response()
}

/// `GET /app/deliveries/{id}`: one delivery with the exact body it sends.
pub async fn delivery(State(state): State<AppState>, Path(id): Path<String>, signed: Signed) -> Response {
    let org = signed.session.org;
    let found = blocking(move || {
        state
            .store
            .delivery(org, &id)
            .map_err(internal)?
            .ok_or_else(|| fail(StatusCode::NOT_FOUND, "the organisation has no such delivery"))
    })
    .await;
    let (row, bytes) = match found {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let text = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned());
    let body = html! {
        p { a href=(format!("/app/webhooks/{}", row.webhook_id)) { "Back to the delivery log" } }
        dl.facts {
            dt { "Event" } dd { (row.event) }
            dt { "State" } dd { (row.state.as_str()) }
            dt { "Status code" } dd { @if let Some(c) = row.status_code { (c) } @else { "none" } }
            dt { "Duration" } dd { @if let Some(ms) = row.duration_ms { (ms) " ms" } @else { "none" } }
            dt { "Error" } dd { @if let Some(e) = &row.error { (e) } @else { "none" } }
            dt { "Queued" } dd { (row.created_at) }
            dt { "Attempted" } dd { @if let Some(a) = &row.attempted_at { (a) } @else { "not yet" } }
        }
        h2 { "Body" }
        pre.body tabindex="0" { (text) }
    };
    page(&signed, "/app/webhooks", "Delivery", body).into_response()
}

/// `POST /app/deliveries/{id}/redeliver`: the same bytes again.
pub async fn redeliver(State(state): State<AppState>, Path(id): Path<String>, f: SignedForm) -> Response {
    let org = f.signed.session.org;
    match blocking(move || webhooks::redeliver(&state.store, &state.effects, org, &id).map_err(webhook_error)).await {
        Ok(row) => Redirect::to(&format!("/app/webhooks/{}?notice=redelivered", row.webhook_id)).into_response(),
        Err(f) => f.into_response(),
    }
}
