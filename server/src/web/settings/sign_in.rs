//! Sign-in, the first user (made with the admin token), sign-out.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use subtle::ConstantTimeEq;

use crate::auth::hash_key;
use crate::state::AppState;
use crate::web::account::{self, AccountError};
use crate::web::{
    FORM_COOKIE, Form, Query, SESSION_COOKIE, SignedForm, blocking, cookie, form_error, internal, public_page,
    set_cookie,
};

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
