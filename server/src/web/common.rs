//! What the application's pages share: cookies, the signed-in user and its forms, failures, the
//! blocking hand-off, the page frame and its parts, query parameters. A leaf of `web`: every page
//! module uses it, and it uses none of them.

use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{DOCTYPE, Markup, html};

use super::account;
use crate::state::AppState;
use crate::store::SessionRow;

/// The session cookie.
pub(super) const SESSION_COOKIE: &str = "kino_session";
/// The double-submit cookie of the forms shown before sign-in.
pub(super) const FORM_COOKIE: &str = "kino_form";

/// The value of a cookie of the request.
pub(super) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

/// A `Set-Cookie` value for the application's paths: HTTP only, same-site lax, secure (browsers
/// keep secure cookies of `http://localhost` and `http://127.0.0.1` too).
pub(super) fn set_cookie(name: &str, value: &str, max_age_s: i64) -> HeaderValue {
    let value = format!("{name}={value}; Path=/app; HttpOnly; Secure; SameSite=Lax; Max-Age={max_age_s}");
    HeaderValue::from_str(&value).expect("cookie values are hex")
}

/// The signed-in user of a request; a page that needs one sends the browser to the sign-in page
/// without it.
#[derive(Debug, Clone)]
pub struct Signed {
    /// The session.
    pub session: SessionRow,
}

impl FromRequestParts<AppState> for Signed {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Signed, Response> {
        let sign_in = || {
            // a form sent after the session expired comes back to the catalog: its path takes
            // only POST, and sign-in redirects with a GET
            let next = match parts.uri.path_and_query() {
                Some(p) if parts.method == axum::http::Method::GET => p.as_str(),
                _ => "/app/catalog",
            };
            let target = format!("/app/sign-in?next={}", urlencode(next));
            Redirect::to(&target).into_response()
        };
        let Some(token) = cookie(&parts.headers, SESSION_COOKIE).map(str::to_string) else { return Err(sign_in()) };
        let s = state.clone();
        match crate::blocking::blocking(move || account::session(&s, &token)).await {
            Ok(Some(session)) => Ok(Signed { session }),
            Ok(None) => Err(sign_in()),
            Err(e) => Err(internal(e).into_response()),
        }
    }
}

impl axum::extract::OptionalFromRequestParts<AppState> for Signed {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Option<Signed>, Self::Rejection> {
        Ok(<Signed as FromRequestParts<AppState>>::from_request_parts(parts, state).await.ok())
    }
}

/// A form's fields in order (a name may repeat: checkboxes).
#[derive(Debug, Default)]
pub struct Form(Vec<(String, String)>);

impl Form {
    /// Parses an `application/x-www-form-urlencoded` body.
    pub(super) fn parse(body: &Bytes) -> Result<Form, Failure> {
        serde_urlencoded::from_bytes(body)
            .map(Form)
            .map_err(|e| fail(StatusCode::BAD_REQUEST, format!("the form could not be read: {e}")))
    }

    /// The first value of a field ("" when absent).
    pub(super) fn get(&self, name: &str) -> &str {
        self.0.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str())
    }

    /// Every value of a field.
    pub(super) fn all(&self, name: &str) -> Vec<String> {
        self.0.iter().filter(|(k, _)| k == name).map(|(_, v)| v.clone()).collect()
    }
}

/// A signed-in user's form, its CSRF token checked against the session's.
#[derive(Debug)]
pub struct SignedForm {
    /// The user.
    pub signed: Signed,
    /// The fields.
    pub form: Form,
}

impl axum::extract::FromRequest<AppState> for SignedForm {
    type Rejection = Response;

    async fn from_request(req: axum::extract::Request, state: &AppState) -> Result<SignedForm, Response> {
        let (mut parts, body) = req.into_parts();
        let signed = <Signed as FromRequestParts<AppState>>::from_request_parts(&mut parts, state).await?;
        let bytes = axum::body::to_bytes(body, 64 * 1024)
            .await
            .map_err(|_| page_error(StatusCode::PAYLOAD_TOO_LARGE, "a form is at most 64 KiB"))?;
        let form = Form::parse(&bytes).map_err(IntoResponse::into_response)?;
        if !account::same_token(form.get("csrf"), &signed.session.csrf) {
            return Err(page_error(
                StatusCode::FORBIDDEN,
                "this form has expired or did not come from this application: reload the page and send it again",
            ));
        }
        Ok(SignedForm { signed, form })
    }
}

/// Percent-encodes a query value.
pub(super) fn urlencode(s: &str) -> String {
    serde_urlencoded::to_string([("", s)]).map(|q| q[1..].to_string()).unwrap_or_default()
}

/// `s` percent-encoded as one path segment: every byte but the unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`) as `%XX`, so a space is `%20` (a `+` in a path is a plus).
pub(super) fn path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// An error page.
pub(crate) fn page_error(status: StatusCode, message: &str) -> Response {
    let body = html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { "kino: " (status.as_u16()) } link rel="stylesheet" href="/app/static/app.css"; }
            body {
                main.narrow {
                    h1 { (status.canonical_reason().unwrap_or("Error")) }
                    p.error role="alert" { (message) }
                    p { a href="/app/" { "Back to kino" } }
                }
            }
        }
    };
    (status, body).into_response()
}

/// Why a page cannot be shown: an error page's status and message.
#[derive(Debug)]
pub struct Failure {
    pub(super) status: StatusCode,
    pub(super) message: String,
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        page_error(self.status, &self.message)
    }
}

/// A failure shown as an error page with `status` and `message`.
pub(super) fn fail(status: StatusCode, message: impl Into<String>) -> Failure {
    Failure { status, message: message.into() }
}

/// A failure that is not the user's (logged, not shown).
pub(super) fn internal(e: impl std::fmt::Display) -> Failure {
    tracing::error!(error = %e, "web application error");
    fail(StatusCode::INTERNAL_SERVER_ERROR, "kino could not do this; the error is in the service's log")
}

impl From<tokio::task::JoinError> for Failure {
    /// A panic or a cancelled task on the blocking pool: 500, the cause in the log.
    fn from(e: tokio::task::JoinError) -> Failure {
        internal(e)
    }
}

/// Runs blocking work (the store) off the async threads, through the service's one hand-off
/// (`kino_service::blocking`), typed for the pages' failures.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> Result<T, Failure> {
    crate::blocking::blocking(work).await
}

/// The sections of the navigation: path and name.
pub(super) const NAV: &[(&str, &str)] = &[
    ("/app/catalog", "Catalog"),
    ("/app/smartlists", "Smartlists"),
    ("/app/recipes", "Recipes"),
    ("/app/creative-assets", "Creative assets"),
    ("/app/keys", "API keys"),
    ("/app/webhooks", "Webhooks"),
    ("/app/users", "Users"),
    ("/app/api/", "API docs"),
];

/// The `<head>` of every page: its title, the stylesheet and, with `script`, the script.
pub(super) fn head(title: &str, script: bool) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) " · kino" }
            link rel="stylesheet" href="/app/static/app.css";
            @if script { script src="/app/static/app.js" defer {} }
        }
    }
}

/// A page of a signed-in user: the navigation with `current` marked, and `content`.
pub(super) fn page(signed: &Signed, current: &str, title: &str, content: Markup) -> Markup {
    let s = &signed.session;
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title, true))
            body {
                a.skip href="#main" { "Skip to the content" }
                header.top {
                    a.brand href="/app/catalog" { "kino" }
                    nav aria-label="Sections" {
                        ul {
                            @for (path, name) in NAV {
                                li {
                                    @if *path == current {
                                        a href=(path) aria-current="page" { (name) }
                                    } @else {
                                        a href=(path) { (name) }
                                    }
                                }
                            }
                        }
                    }
                    form.signout method="post" action="/app/sign-out" {
                        span.who { (s.email) " · " (s.org_name) }
                        input type="hidden" name="csrf" value=(s.csrf);
                        button type="submit" { "Sign out" }
                    }
                }
                main #main tabindex="-1" {
                    h1 { (title) }
                    (content)
                }
            }
        }
    }
}

/// A page shown before sign-in.
pub(super) fn public_page(title: &str, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title, false))
            body {
                main.narrow #main {
                    p.brand { "kino" }
                    h1 { (title) }
                    (content)
                }
            }
        }
    }
}

/// The hidden CSRF field of a signed-in user's forms.
pub(super) fn csrf(signed: &Signed) -> Markup {
    html! { input type="hidden" name="csrf" value=(signed.session.csrf); }
}

/// A secret shown once, with a copy button.
pub(super) fn secret(label: &str, value: &str) -> Markup {
    let id = format!("secret-{}", crate::auth::random_hex(4));
    html! {
        div.secret role="status" {
            label for=(id) { (label) }
            div.copyrow {
                input #(id) type="text" readonly value=(value) data-secret;
                button type="button" data-copy=(id) { "Copy" }
            }
            p.hint { "Shown once: kino keeps only a hash. Copy it now." }
        }
    }
}

/// A notice after a redirect, by its code (fixed texts, so a link cannot make the page say
/// anything).
pub(super) fn notice(code: Option<&str>) -> Markup {
    let text = match code {
        Some("revoked") => "Revoked.",
        Some("deleted") => "Deleted.",
        Some("enabled") => "Enabled.",
        Some("disabled") => "Disabled.",
        Some("test") => "A Test delivery is queued; it appears in the log below within seconds.",
        Some("redelivered") => "Queued again.",
        Some("added") => "Added.",
        Some("removed") => "Removed.",
        Some("render") => "Rendering is queued; reload the page to see the clips when it has finished.",
        _ => return html! {},
    };
    html! { p.notice role="status" { (text) } }
}

/// A form error shown above the form.
pub(super) fn form_error(message: Option<&str>) -> Markup {
    match message {
        Some(m) => html! { p.error role="alert" { (m) } },
        None => html! {},
    }
}

/// The query parameters of a request, in order.
#[derive(Debug, Default)]
pub struct Query(Vec<(String, String)>);

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Query, Self::Rejection> {
        Ok(Query(serde_urlencoded::from_str(parts.uri.query().unwrap_or("")).unwrap_or_default()))
    }
}

impl Query {
    /// The first value of a parameter.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_read_by_name() {
        let mut h = HeaderMap::new();
        h.append(header::COOKIE, HeaderValue::from_static("a=1; kino_session=abc"));
        h.append(header::COOKIE, HeaderValue::from_static("kino_form=f"));
        assert_eq!(cookie(&h, "kino_session"), Some("abc"));
        assert_eq!(cookie(&h, "kino_form"), Some("f"));
        assert_eq!(cookie(&h, "kino"), None);
    }

    #[test]
    fn forms_keep_repeated_fields() {
        let f = Form::parse(&Bytes::from_static(b"events=a&events=b&url=https%3A%2F%2Fx.io")).unwrap();
        assert_eq!(f.all("events"), vec!["a", "b"]);
        assert_eq!(f.get("url"), "https://x.io");
        assert_eq!(f.get("missing"), "");
        assert_eq!(urlencode("/app/catalog?q=a b"), "%2Fapp%2Fcatalog%3Fq%3Da+b");
        assert_eq!(path_segment("a b+c/d?é"), "a%20b%2Bc%2Fd%3F%C3%A9", "a path segment: a space is %20");
    }
}
