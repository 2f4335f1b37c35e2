//! The organisation's API keys and OAuth clients.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use crate::auth::CredentialError;
use crate::state::AppState;
use crate::web::common::{Failure, Query, Signed, SignedForm, blocking, csrf, fail, internal, notice, page, secret};

fn credential_error(e: CredentialError) -> Failure {
    match e {
        CredentialError::NotFound { .. } => fail(StatusCode::NOT_FOUND, e.to_string()),
        CredentialError::Ambiguous { .. } => fail(StatusCode::CONFLICT, e.to_string()),
        CredentialError::Store(e) => internal(e),
    }
}

/// The keys page, with `shown` (a secret just created) above the lists.
async fn keys_page(state: AppState, signed: Signed, shown: Markup, code: Option<String>) -> Response {
    let org = signed.session.org;
    let s = state.clone();
    let lists = blocking(move || {
        let keys = crate::auth::keys(&s.store, org).map_err(internal)?;
        let clients = crate::identity::clients(&s.store, org).map_err(internal)?;
        Ok((keys, clients))
    })
    .await;
    let (keys, clients) = match lists {
        Ok(l) => l,
        Err(f) => return f.into_response(),
    };
    let body = html! {
        (notice(code.as_deref()))
        (shown)
        section aria-labelledby="keys-h" {
            h2 #keys-h { "API keys" }
            p { "An API key reads results and sends the catalog (" code { "?key=" } "). It is shown once, when it is created." }
            form method="post" action="/app/keys" {
                (csrf(&signed))
                button type="submit" { "Create an API key" }
            }
            table.list #keys {
                caption.sr { "API keys" }
                thead { tr { th scope="col" { "Prefix" } th scope="col" { "Created" } th scope="col" { "State" } th scope="col" { span.sr { "Action" } } } }
                tbody {
                    @for k in &keys {
                        tr {
                            td { code { (k.prefix) "…" } }
                            td { (k.created_at) }
                            td { @if let Some(r) = &k.revoked_at { "revoked " (r) } @else { "live" } }
                            td {
                                @if k.revoked_at.is_none() {
                                    form method="post" action="/app/keys/revoke" {
                                        (csrf(&signed))
                                        input type="hidden" name="prefix" value=(k.prefix);
                                        button.danger type="submit" aria-label=(format!("Revoke key {}", k.prefix)) { "Revoke" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        section aria-labelledby="clients-h" {
            h2 #clients-h { "OAuth clients" }
            p { "Client credentials take access tokens at " code { "/oauth/token" } " for the portal and the previews. The secret is shown once." }
            form method="post" action="/app/clients" {
                (csrf(&signed))
                button type="submit" { "Create an OAuth client" }
            }
            table.list #clients {
                caption.sr { "OAuth clients" }
                thead { tr { th scope="col" { "Client id" } th scope="col" { "Created" } th scope="col" { "State" } th scope="col" { span.sr { "Action" } } } }
                tbody {
                    @for c in &clients {
                        tr {
                            td { code { (c.client_id) } }
                            td { (c.created_at) }
                            td { @if let Some(r) = &c.revoked_at { "revoked " (r) } @else { "live" } }
                            td {
                                @if c.revoked_at.is_none() {
                                    form method="post" action="/app/clients/revoke" {
                                        (csrf(&signed))
                                        input type="hidden" name="client_id" value=(c.client_id);
                                        button.danger type="submit" aria-label=(format!("Revoke client {}", c.client_id)) { "Revoke" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    page(&signed, "/app/keys", "API keys and OAuth clients", body).into_response()
}

/// `GET /app/keys`.
pub async fn keys(State(state): State<AppState>, signed: Signed, q: Query) -> Response {
    let code = q.get("notice").map(str::to_string);
    keys_page(state, signed, html! {}, code).await
}

/// `POST /app/keys`: a new key, shown on the page this once.
pub async fn create_key(State(state): State<AppState>, f: SignedForm) -> Response {
    let org = f.signed.session.org;
    let s = state.clone();
    match blocking(move || crate::auth::create_key(&s.store, org).map_err(internal)).await {
        Ok((key, _)) => keys_page(state, f.signed, secret("Your new API key", &key), None).await,
        Err(f) => f.into_response(),
    }
}

/// `POST /app/keys/revoke` `prefix`.
pub async fn revoke_key(State(state): State<AppState>, f: SignedForm) -> Response {
    let (org, prefix) = (f.signed.session.org, f.form.get("prefix").to_string());
    match blocking(move || crate::auth::revoke_key(&state.store, org, &prefix).map_err(credential_error)).await {
        Ok(_) => Redirect::to("/app/keys?notice=revoked").into_response(),
        Err(f) => f.into_response(),
    }
}

/// `POST /app/clients`: new client credentials, the secret shown this once.
pub async fn create_client(State(state): State<AppState>, f: SignedForm) -> Response {
    let org = f.signed.session.org;
    let s = state.clone();
    match blocking(move || crate::identity::create_client(&s.store, org).map_err(internal)).await {
        Ok((client_id, client_secret)) => {
            let shown = html! {
                p role="status" { "Client " code { (client_id) } " created." }
                (secret("Its client secret", &client_secret))
            };
            keys_page(state, f.signed, shown, None).await
        }
        Err(f) => f.into_response(),
    }
}

/// `POST /app/clients/revoke` `client_id`.
pub async fn revoke_client(State(state): State<AppState>, f: SignedForm) -> Response {
    let (org, id) = (f.signed.session.org, f.form.get("client_id").to_string());
    match blocking(move || crate::identity::revoke_client(&state.store, org, &id).map_err(credential_error)).await {
        Ok(()) => Redirect::to("/app/keys?notice=revoked").into_response(),
        Err(f) => f.into_response(),
    }
}
