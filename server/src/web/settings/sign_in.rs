//! Sign-in, the first user (made with the admin token), sign-out.

use std::net::SocketAddr;

use axum::Extension;
use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use subtle::ConstantTimeEq;

use crate::auth::hash_key;
use crate::state::AppState;
use crate::web::account::{self, AccountError};
use crate::web::common::{
    FORM_COOKIE, Form, Query, SESSION_COOKIE, SignedForm, blocking, cookie, form_error, internal, public_page,
    set_cookie,
};

/// The longest `next` followed after sign-in.
const MAX_NEXT: usize = 2048;

/// The largest form before sign-in (sign-in, the first user): a few short fields. Every form
/// after sign-in may have 64 KiB, and the API's bodies 2 MiB.
pub const MAX_FORM: usize = 16 * 1024;

/// Reads a form before sign-in: at most [`MAX_FORM`] bytes, else a 413 whose message says the
/// rules of the fields that could make it so large.
async fn small_form(body: Body) -> Result<Form, (StatusCode, String)> {
    let bytes = axum::body::to_bytes(body, MAX_FORM).await.map_err(|_| {
        let rule = format!(
            "this form is larger than {} KiB: email must have at most {} bytes, password at most {} characters",
            MAX_FORM / 1024,
            account::MAX_EMAIL,
            account::MAX_PASSWORD
        );
        (StatusCode::PAYLOAD_TOO_LARGE, rule)
    })?;
    Form::parse(&bytes).map_err(|f| (f.status, f.message))
}

/// An address as the form shows it again: at most [`account::MAX_EMAIL`] bytes of what was sent.
fn shown_email(raw: &str) -> &str {
    let mut end = raw.len().min(account::MAX_EMAIL);
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    &raw[..end]
}

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

/// `POST /app/sign-in` `email, password, csrf, next`: a form of at most [`MAX_FORM`] bytes whose
/// address is checked ([`account::email`]) before the throttle, the database or argon2 see it.
pub async fn sign_in(
    State(state): State<AppState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let (token, new) = form_token(&headers);
    let form = match small_form(body).await {
        Ok(f) => f,
        Err((status, error)) => {
            return with_form_cookie(status, &token, new, sign_in_form(&token, "/app/catalog", "", Some(&error)));
        }
    };
    let next = next_path(form.get("next")).to_string();
    let email = shown_email(form.get("email"));
    if !form_token_ok(&headers, &form) {
        let error = "this form has expired: sign in again";
        return with_form_cookie(StatusCode::FORBIDDEN, &token, new, sign_in_form(&token, &next, email, Some(error)));
    }
    let source = peer.map(|Extension(ConnectInfo(addr))| crate::serve::peer_of(addr.ip()));
    match account::sign_in(&state, form.get("email"), form.get("password"), source).await {
        Ok(session) => signed_in(&session, &next),
        Err(
            e @ (AccountError::WrongCredentials
            | AccountError::Throttled(_)
            | AccountError::SourceThrottled(_)
            | AccountError::Invalid { .. }),
        ) => {
            let status = match e {
                AccountError::Throttled(_) | AccountError::SourceThrottled(_) => StatusCode::TOO_MANY_REQUESTS,
                AccountError::Invalid { .. } => StatusCode::BAD_REQUEST,
                _ => StatusCode::UNAUTHORIZED,
            };
            with_form_cookie(status, &token, new, sign_in_form(&token, &next, email, Some(&e.to_string())))
        }
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
/// token, signed in at once. A form of at most [`MAX_FORM`] bytes; the password is hashed in a
/// password slot.
pub async fn setup(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let (token, new) = form_token(&headers);
    let form = match small_form(body).await {
        Ok(f) => f,
        Err((status, error)) => {
            return with_form_cookie(status, &token, new, setup_form(&token, "", "", Some(&error)));
        }
    };
    let org_name = form.get("org").trim().to_string();
    let email = shown_email(form.get("email")).to_string();
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
    // nothing is made unless the user can be: the fields are checked before a slot is taken
    let (raw_email, password) = (form.get("email").to_string(), form.get("password").to_string());
    if let Err(e) = account::email(&raw_email).and_then(|_| account::check_password(&password)) {
        return fail(StatusCode::BAD_REQUEST, &e.to_string());
    }
    let (s, o) = (state.clone(), org_name.clone());
    let made = account::with_password_slot(&state.guards.passwords, move || -> Result<_, AccountError> {
        let (org, created) = s.store.ensure_org(&o)?;
        if created {
            s.store.ensure_catalog(org, &o)?;
        }
        let (user, _) = account::add_user(&s, org, &raw_email, &password)?;
        account::open_session(&s, user)
    })
    .await;
    match made.and_then(|made| made) {
        Ok(session) => signed_in(&session, "/app/catalog"),
        Err(e @ AccountError::Invalid { .. }) => fail(StatusCode::BAD_REQUEST, &e.to_string()),
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
