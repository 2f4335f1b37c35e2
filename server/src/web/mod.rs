//! The web application under `/app`: sign-in for an organisation's users, API keys and OAuth
//! clients, webhooks with their delivery log, the catalog with what kino measured of each title
//! drawn on a shared time axis and its preview clips playable in the page, smartlists, recipes and
//! creative assets, and an interactive viewer of the OpenAPI document.
//!
//! Pages are rendered on the server (maud) and work without script; the one script (`app.js`)
//! adds copy buttons and clip players that stop at a clip's end. Every script, style and the
//! OpenAPI viewer's assets are served by kino itself (no CDN). Forms carry a CSRF token: the
//! session's own once signed in, a double-submit cookie's before; every state change is a POST
//! that checks it. Handlers stay thin: the operations are the admin API's domain functions
//! ([`crate::auth`], [`crate::identity`], [`crate::webhooks`], the portal), scoped to the signed-in
//! user's organisation exactly as the API scopes a credential's.

pub mod account;
mod catalog;
mod library;
mod settings;
pub mod timeline;

use axum::Router;
use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use maud::{DOCTYPE, Markup, html};

use crate::state::AppState;
use crate::store::SessionRow;

/// The session cookie.
const SESSION_COOKIE: &str = "kino_session";
/// The double-submit cookie of the forms shown before sign-in.
const FORM_COOKIE: &str = "kino_form";

/// The application's routes, under `/app`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/app", get(home))
        .route("/app/", get(home))
        .route("/app/sign-in", get(settings::sign_in_page).post(settings::sign_in))
        .route("/app/setup", get(settings::setup_page).post(settings::setup))
        .route("/app/sign-out", post(settings::sign_out))
        .route("/app/keys", get(settings::keys).post(settings::create_key))
        .route("/app/keys/revoke", post(settings::revoke_key))
        .route("/app/clients", post(settings::create_client))
        .route("/app/clients/revoke", post(settings::revoke_client))
        .route("/app/users", get(settings::users).post(settings::add_user))
        .route("/app/users/{id}/remove", post(settings::remove_user))
        .route("/app/webhooks", get(settings::webhooks).post(settings::create_webhook))
        .route("/app/webhooks/{id}", get(settings::webhook))
        .route("/app/webhooks/{id}/{action}", post(settings::webhook_action))
        .route("/app/deliveries/{id}", get(settings::delivery))
        .route("/app/deliveries/{id}/redeliver", post(settings::redeliver))
        .route("/app/catalog", get(catalog::items))
        .route("/app/catalog/{id}", get(catalog::item))
        .route("/app/catalog/{id}/render", post(catalog::render))
        .route("/app/smartlists", get(library::smartlists))
        .route("/app/smartlists/{id}", get(library::smartlist))
        .route("/app/recipes", get(library::recipes))
        .route("/app/recipes/{id}", get(library::recipe))
        .route("/app/creative-assets", get(library::creative_assets))
        .route("/app/static/{file}", get(asset))
        .merge(api_viewer())
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn(refuse_cross_site))
}

/// The OpenAPI viewer (Swagger UI, its assets embedded in the `utoipa-swagger-ui` crate) at
/// `/app/api/`, reading the service's `/openapi.json`.
fn api_viewer() -> Router<AppState> {
    let config = utoipa_swagger_ui::Config::new(["/openapi.json"])
        .try_it_out_enabled(true)
        .display_request_duration(true)
        .persist_authorization(false);
    Router::from(utoipa_swagger_ui::SwaggerUi::new("/app/api").config(config))
}

async fn home(session: Option<Signed>) -> Redirect {
    Redirect::to(if session.is_some() { "/app/catalog" } else { "/app/sign-in" })
}

/// The static files, compiled in.
async fn asset(axum::extract::Path(file): axum::extract::Path<String>) -> Response {
    let (body, kind): (&'static str, &'static str) = match file.as_str() {
        "app.css" => (include_str!("assets/app.css"), "text/css; charset=utf-8"),
        "app.js" => (include_str!("assets/app.js"), "text/javascript; charset=utf-8"),
        _ => return page_error(StatusCode::NOT_FOUND, "no such file"),
    };
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "public, max-age=3600")], body).into_response()
}

/// Headers of every page: a content security policy that allows only the service's own scripts,
/// styles and media (the OpenAPI viewer, whose page sets its own styles inline, gets the same
/// policy with inline styles allowed), no framing, no sniffing, and no caching of pages that
/// show secrets.
async fn security_headers(uri: axum::http::Uri, mut res: Response) -> Response {
    let viewer = uri.path().starts_with("/app/api");
    let csp = if viewer {
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; form-action 'self'"
    } else {
        "default-src 'self'; img-src 'self' data:; media-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    };
    let h = res.headers_mut();
    h.insert("content-security-policy", HeaderValue::from_static(csp));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

/// Refuses a state change that a browser says comes from another site (`Sec-Fetch-Site:
/// cross-site`), before any handler runs; the forms' CSRF tokens are checked besides.
async fn refuse_cross_site(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let cross_site = req.headers().get("sec-fetch-site").is_some_and(|v| v.as_bytes() == b"cross-site");
    if req.method() != axum::http::Method::GET && req.method() != axum::http::Method::HEAD && cross_site {
        return page_error(StatusCode::FORBIDDEN, "a form of another site cannot change anything here");
    }
    next.run(req).await
}

/// The value of a cookie of the request.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
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
fn set_cookie(name: &str, value: &str, max_age_s: i64) -> HeaderValue {
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
        match tokio::task::spawn_blocking(move || account::session(&s, &token)).await {
            Ok(Ok(Some(session))) => Ok(Signed { session }),
            Ok(Ok(None)) => Err(sign_in()),
            Ok(Err(e)) => Err(internal(e).into_response()),
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
    fn parse(body: &Bytes) -> Result<Form, Failure> {
        serde_urlencoded::from_bytes(body)
            .map(Form)
            .map_err(|e| fail(StatusCode::BAD_REQUEST, format!("the form could not be read: {e}")))
    }

    /// The first value of a field ("" when absent).
    fn get(&self, name: &str) -> &str {
        self.0.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str())
    }

    /// Every value of a field.
    fn all(&self, name: &str) -> Vec<String> {
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
fn urlencode(s: &str) -> String {
    serde_urlencoded::to_string([("", s)]).map(|q| q[1..].to_string()).unwrap_or_default()
}

/// `s` percent-encoded as one path segment: every byte but the unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`) as `%XX`, so a space is `%20` (a `+` in a path is a plus).
fn path_segment(s: &str) -> String {
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
    status: StatusCode,
    message: String,
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        page_error(self.status, &self.message)
    }
}

/// A failure shown as an error page with `status` and `message`.
fn fail(status: StatusCode, message: impl Into<String>) -> Failure {
    Failure { status, message: message.into() }
}

/// A failure that is not the user's (logged, not shown).
fn internal(e: impl std::fmt::Display) -> Failure {
    tracing::error!(error = %e, "web application error");
    fail(StatusCode::INTERNAL_SERVER_ERROR, "kino could not do this; the error is in the service's log")
}

/// Runs blocking work (the store) off the async threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, Failure> + Send + 'static) -> Result<T, Failure> {
    tokio::task::spawn_blocking(work).await.map_err(internal)?
}

/// The sections of the navigation: path and name.
const NAV: &[(&str, &str)] = &[
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
fn head(title: &str, script: bool) -> Markup {
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
fn page(signed: &Signed, current: &str, title: &str, content: Markup) -> Markup {
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
fn public_page(title: &str, content: Markup) -> Markup {
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
fn csrf(signed: &Signed) -> Markup {
    html! { input type="hidden" name="csrf" value=(signed.session.csrf); }
}

/// A secret shown once, with a copy button.
fn secret(label: &str, value: &str) -> Markup {
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
fn notice(code: Option<&str>) -> Markup {
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
fn form_error(message: Option<&str>) -> Markup {
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
    fn get(&self, name: &str) -> Option<&str> {
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
