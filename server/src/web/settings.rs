//! Sign-in, the first user, API keys and OAuth clients, users, and webhooks with their delivery
//! log: the pages and their forms.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use subtle::ConstantTimeEq;

use super::account::{self, AccountError};
use super::{
    FORM_COOKIE, Failure, Form, Query, SESSION_COOKIE, Signed, SignedForm, blocking, cookie, csrf, fail, form_error,
    internal, notice, page, page_error, public_page, secret, set_cookie,
};
use crate::auth::{CredentialError, hash_key};
use crate::state::AppState;
use crate::store::DeliveryState;
use crate::webhooks::{self, WebhookError};

// ---- sign-in, the first user, sign-out ----

/// The longest `next` followed after sign-in.
const MAX_NEXT: usize = 2048;

/// Where to go after signing in: a same-origin path of the application (printable ASCII only,
/// so it is always a valid `Location` header: no control character, space or non-ASCII byte),
/// else the catalog.
fn next_path(raw: &str) -> &str {
    let ok = raw.starts_with("/app/")
        && raw.len() <= MAX_NEXT
        && raw.bytes().all(|b| b.is_ascii_graphic())
        && !raw.contains('\\')
        && !raw.contains("://");
    if ok { raw } else { "/app/catalog" }
}

/// The double-submit token of the forms before sign-in: the cookie's, or a new one to set.
fn form_token(headers: &HeaderMap) -> (String, bool) {
    match cookie(headers, FORM_COOKIE) {
        Some(t) if t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()) => (t.to_string(), false),
        _ => (crate::auth::random_hex(32), true),
    }
}

/// A page before sign-in, setting the form cookie when it was new.
fn with_form_cookie(status: StatusCode, token: &str, new: bool, body: Markup) -> Response {
    let mut res = (status, body).into_response();
    if new {
        res.headers_mut().append(header::SET_COOKIE, set_cookie(FORM_COOKIE, token, 3600));
    }
    res
}

/// Whether a form before sign-in carries the token of its cookie.
fn form_token_ok(headers: &HeaderMap, form: &Form) -> bool {
    cookie(headers, FORM_COOKIE).is_some_and(|c| account::same_token(form.get("csrf"), c))
}

fn sign_in_form(token: &str, next: &str, email: &str, error: Option<&str>) -> Markup {
    public_page(
        "Sign in",
        html! {
            (form_error(error))
            form.stack method="post" action="/app/sign-in" {
                input type="hidden" name="csrf" value=(token);
                input type="hidden" name="next" value=(next);
                label for="email" { "E-mail address" }
                input #email type="email" name="email" autocomplete="username" required value=(email);
                label for="password" { "Password" }
                input #password type="password" name="password" autocomplete="current-password" required;
                button type="submit" { "Sign in" }
            }
            p.hint {
                "No account yet? The service's administrator creates the first user of an organisation "
                a href="/app/setup" { "with the admin token" } "."
            }
        },
    )
}

/// `GET /app/sign-in`.
pub async fn sign_in_page(headers: HeaderMap, q: Query) -> Response {
    let (token, new) = form_token(&headers);
    let next = next_path(q.get("next").unwrap_or(""));
    with_form_cookie(StatusCode::OK, &token, new, sign_in_form(&token, next, "", None))
}

/// The answer to a successful sign-in: the session cookie, and off to `next`.
fn signed_in(session: &account::NewSession, next: &str) -> Response {
    let max_age = (session.expires_ms - crate::store::now_ms()) / 1000;
    let mut res = Redirect::to(next_path(next)).into_response();
    let h = res.headers_mut();
    h.append(header::SET_COOKIE, set_cookie(SESSION_COOKIE, &session.token, max_age));
    h.append(header::SET_COOKIE, set_cookie(FORM_COOKIE, "", 0));
    res
}

/// `POST /app/sign-in` `email, password, csrf, next`.
pub async fn sign_in(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let form = match Form::parse(&body) {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let (token, new) = form_token(&headers);
    let next = next_path(form.get("next")).to_string();
    let email = form.get("email").to_string();
    if !form_token_ok(&headers, &form) {
        let error = "this form has expired: sign in again";
        return with_form_cookie(StatusCode::FORBIDDEN, &token, new, sign_in_form(&token, &next, &email, Some(error)));
    }
    let password = form.get("password").to_string();
    let (e, p) = (email.clone(), password);
    match tokio::task::spawn_blocking(move || account::sign_in(&state, &e, &p)).await {
        Ok(Ok(session)) => signed_in(&session, &next),
        Ok(Err(e @ (AccountError::WrongCredentials | AccountError::Throttled(_) | AccountError::Invalid { .. }))) => {
            let status = match e {
                AccountError::Throttled(_) => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::UNAUTHORIZED,
            };
            with_form_cookie(status, &token, new, sign_in_form(&token, &next, &email, Some(&e.to_string())))
        }
        Ok(Err(e)) => internal(e).into_response(),
        Err(e) => internal(e).into_response(),
    }
}

fn setup_form(token: &str, org: &str, email: &str, error: Option<&str>) -> Markup {
    public_page(
        "Create a user with the admin token",
        html! {
            p {
                "The service's admin token (printed on first start, kept in "
                code { "kino-data/admin.token" } ") creates a user of an organisation, "
                "the organisation too when it does not exist. Signed-in users add more users on the Users page."
            }
            (form_error(error))
            form.stack method="post" action="/app/setup" {
                input type="hidden" name="csrf" value=(token);
                label for="admin_token" { "Admin token" }
                input #admin_token type="password" name="admin_token" autocomplete="off" required;
                label for="org" { "Organisation" }
                input #org type="text" name="org" required maxlength="100" value=(org) placeholder="demo";
                label for="email" { "Your e-mail address" }
                input #email type="email" name="email" autocomplete="username" required value=(email);
                label for="password" { "Password (" (account::MIN_PASSWORD) " characters or more)" }
                input #password type="password" name="password" autocomplete="new-password" required
                    minlength=(account::MIN_PASSWORD) maxlength=(account::MAX_PASSWORD);
                button type="submit" { "Create the user and sign in" }
            }
            p { a href="/app/sign-in" { "Sign in instead" } }
        },
    )
}

/// `GET /app/setup`.
pub async fn setup_page(headers: HeaderMap) -> Response {
    let (token, new) = form_token(&headers);
    with_form_cookie(StatusCode::OK, &token, new, setup_form(&token, "", "", None))
}

/// `POST /app/setup` `admin_token, org, email, password, csrf`: a user made with the admin
/// token, signed in at once.
pub async fn setup(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let form = match Form::parse(&body) {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let (token, new) = form_token(&headers);
    let org_name = form.get("org").trim().to_string();
    let email = form.get("email").to_string();
    let fail = |status: StatusCode, error: &str| {
        with_form_cookie(status, &token, new, setup_form(&token, &org_name, &email, Some(error)))
    };
    if !form_token_ok(&headers, &form) {
        return fail(StatusCode::FORBIDDEN, "this form has expired: send it again");
    }
    let admin_ok = state.config.admin_token.as_ref().is_some_and(|expected| {
        bool::from(hash_key(form.get("admin_token")).as_bytes().ct_eq(hash_key(expected).as_bytes()))
    });
    if !admin_ok {
        return fail(StatusCode::UNAUTHORIZED, "admin_token: not the service's admin token");
    }
    if org_name.is_empty() || org_name.chars().count() > 100 || org_name.chars().any(char::is_control) {
        return fail(StatusCode::BAD_REQUEST, "org: must be a name of 1 to 100 characters");
    }
    let password = form.get("password").to_string();
    let (s, o, e) = (state.clone(), org_name.clone(), email.clone());
    let made = tokio::task::spawn_blocking(move || -> Result<account::NewSession, AccountError> {
        // nothing is made unless the user can be
        account::email(&e)?;
        account::check_password(&password)?;
        let (org, created) = s.store.ensure_org(&o)?;
        if created {
            s.store.ensure_catalog(org, &o)?;
        }
        let (user, _) = account::add_user(&s, org, &e, &password)?;
        account::open_session(&s, user)
    })
    .await;
    match made {
        Ok(Ok(session)) => signed_in(&session, "/app/catalog"),
        Ok(Err(e @ AccountError::Invalid { .. })) => fail(StatusCode::BAD_REQUEST, &e.to_string()),
        Ok(Err(e)) => internal(e).into_response(),
        Err(e) => internal(e).into_response(),
    }
}

/// `POST /app/sign-out`.
pub async fn sign_out(State(state): State<AppState>, headers: HeaderMap, f: SignedForm) -> Response {
    let _ = f;
    if let Some(token) = cookie(&headers, SESSION_COOKIE).map(str::to_string)
        && let Err(f) = blocking(move || account::sign_out(&state, &token).map_err(internal)).await
    {
        return f.into_response();
    }
    let mut res = Redirect::to("/app/sign-in").into_response();
    res.headers_mut().append(header::SET_COOKIE, set_cookie(SESSION_COOKIE, "", 0));
    res
}

// ---- API keys and OAuth clients ----

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

// ---- users ----

async fn users_page(state: AppState, signed: Signed, error: Option<String>, code: Option<String>) -> Response {
    let org = signed.session.org;
    let users = match blocking(move || state.store.users(org).map_err(internal)).await {
        Ok(u) => u,
        Err(f) => return f.into_response(),
    };
    let me = signed.session.user_id;
    let body = html! {
        (notice(code.as_deref()))
        p { "Everyone here signs in to the organisation " strong { (signed.session.org_name) } " and sees what it sees." }
        table.list #users {
            caption.sr { "Users" }
            thead { tr { th scope="col" { "E-mail address" } th scope="col" { "Created" } th scope="col" { span.sr { "Action" } } } }
            tbody {
                @for (id, email, created) in &users {
                    tr {
                        td { (email) @if *id == me { " (you)" } }
                        td { (created) }
                        td {
                            @if *id != me {
                                form method="post" action=(format!("/app/users/{id}/remove")) {
                                    (csrf(&signed))
                                    button.danger type="submit" aria-label=(format!("Remove {email}")) { "Remove" }
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Add a user" }
        (form_error(error.as_deref()))
        form.stack method="post" action="/app/users" {
            (csrf(&signed))
            label for="new-email" { "E-mail address" }
            input #new-email type="email" name="email" required autocomplete="off";
            label for="new-password" { "Password (" (account::MIN_PASSWORD) " characters or more)" }
            input #new-password type="password" name="password" required autocomplete="new-password"
                minlength=(account::MIN_PASSWORD) maxlength=(account::MAX_PASSWORD);
            button type="submit" { "Add the user" }
        }
    };
    page(&signed, "/app/users", "Users", body).into_response()
}

/// `GET /app/users`.
pub async fn users(State(state): State<AppState>, signed: Signed, q: Query) -> Response {
    let code = q.get("notice").map(str::to_string);
    users_page(state, signed, None, code).await
}

/// `POST /app/users` `email, password`.
pub async fn add_user(State(state): State<AppState>, f: SignedForm) -> Response {
    let (org, email, password) =
        (f.signed.session.org, f.form.get("email").to_string(), f.form.get("password").to_string());
    let s = state.clone();
    match tokio::task::spawn_blocking(move || account::add_user(&s, org, &email, &password)).await {
        Ok(Ok(_)) => Redirect::to("/app/users?notice=added").into_response(),
        Ok(Err(e @ AccountError::Invalid { .. })) => users_page(state, f.signed, Some(e.to_string()), None).await,
        Ok(Err(e)) => internal(e).into_response(),
        Err(e) => internal(e).into_response(),
    }
}

/// `POST /app/users/{id}/remove`: another user of the organisation.
pub async fn remove_user(State(state): State<AppState>, Path(id): Path<i64>, f: SignedForm) -> Response {
    if id == f.signed.session.user_id {
        return page_error(StatusCode::BAD_REQUEST, "you cannot remove yourself: another user of the organisation can");
    }
    let org = f.signed.session.org;
    match blocking(move || state.store.remove_user(org, id).map_err(internal)).await {
        Ok(true) => Redirect::to("/app/users?notice=removed").into_response(),
        Ok(false) => page_error(StatusCode::NOT_FOUND, "the organisation has no such user"),
        Err(f) => f.into_response(),
    }
}

// ---- webhooks ----

fn webhook_error(e: WebhookError) -> Failure {
    match e {
        WebhookError::Invalid { .. } => fail(StatusCode::BAD_REQUEST, e.to_string()),
        WebhookError::NotFound { .. } => fail(StatusCode::NOT_FOUND, e.to_string()),
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
    let hooks = match blocking(move || webhooks::list(&state, org).map_err(webhook_error)).await {
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
    let made = tokio::task::spawn_blocking(move || {
        let (mut view, secret) = webhooks::create(&s, org, &url, &events)?;
        if enable {
            view = webhooks::set_enabled(&s, org, &view.id, true)?;
        }
        Ok::<_, WebhookError>((view, secret))
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
        Err(e) => internal(e).into_response(),
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
            "enable" => webhooks::set_enabled(&state, org, &id, true).map(|_| "enabled"),
            "disable" => webhooks::set_enabled(&state, org, &id, false).map(|_| "disabled"),
            "test" => webhooks::test(&state, org, &id).map(|_| "test"),
            "delete" => webhooks::delete(&state, org, &id).map(|_| "deleted"),
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
        let hook = webhooks::list(&state, org)
            .map_err(webhook_error)?
            .into_iter()
            .find(|h| h.id == id)
            .ok_or_else(|| fail(StatusCode::NOT_FOUND, "the organisation has no such webhook"))?;
        let log = webhooks::deliveries(&state, org, &hook.id, 200).map_err(webhook_error)?;
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
    match blocking(move || webhooks::redeliver(&state, org, &id).map_err(webhook_error)).await {
        Ok(row) => Redirect::to(&format!("/app/webhooks/{}?notice=redelivered", row.webhook_id)).into_response(),
        Err(f) => f.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_application_paths_are_followed_after_sign_in() {
        assert_eq!(next_path("/app/webhooks?x=1"), "/app/webhooks?x=1");
        let long = format!("/app/{}", "a".repeat(MAX_NEXT));
        for bad in [
            "https://evil.example/app/",
            "//evil.example",
            "/app/\\evil",
            "/admin/v1/orgs",
            "",
            "/app/x\r\nSet-Cookie: a=b",
            "/app/x\n",
            "/app/x\0",
            "/app/x\x01",
            "/app/x\x7f",
            "/app/x y",
            "/app/caf\u{e9}",
            &long,
        ] {
            assert_eq!(next_path(bad), "/app/catalog", "{bad}");
        }
    }
}
