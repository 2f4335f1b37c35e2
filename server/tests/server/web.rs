//! The web application over HTTP, without a browser: the first user made with the admin token,
//! sessions in cookies, CSRF tokens on every state change, failed sign-ins capped, pages scoped
//! to the user's organisation, keys and webhooks made from forms, the security headers and the
//! OpenAPI viewer's shipped assets. (`browser.rs` drives the same pages in Chromium.)

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use kino_server::{AppState, Config, Services, app};
use tower::ServiceExt;

const ADMIN: &str = "web-admin-token";

struct Web {
    state: AppState,
    _dir: tempfile::TempDir,
}

/// An answer: status, headers, body as text.
struct Page {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

impl Page {
    fn location(&self) -> &str {
        self.headers.get(header::LOCATION).map_or("", |v| v.to_str().unwrap())
    }

    /// The value of a cookie this answer sets.
    fn cookie(&self, name: &str) -> Option<String> {
        self.headers.get_all(header::SET_COOKIE).iter().find_map(|v| {
            let v = v.to_str().unwrap();
            v.strip_prefix(&format!("{name}="))?.split(';').next().map(str::to_string)
        })
    }

    /// The value of the first hidden `csrf` field.
    fn csrf(&self) -> String {
        let at = self.body.find("name=\"csrf\" value=\"").expect("a form with a CSRF token") + 19;
        self.body[at..at + 64].to_string()
    }
}

fn start() -> Web {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::support::store(dir.path());
    let config = Config { admin_token: Some(ADMIN.into()), webhook_allow_loopback: true, ..Config::in_dir(dir.path()) };
    Web { state: Services::open(store, config).unwrap(), _dir: dir }
}

impl Web {
    async fn send(&self, req: Request<Body>) -> Page {
        let res = app(self.state.clone()).oneshot(req).await.unwrap();
        let (parts, body) = res.into_parts();
        let body = String::from_utf8_lossy(&body.collect().await.unwrap().to_bytes()).into_owned();
        Page { status: parts.status, headers: parts.headers, body }
    }

    async fn get(&self, path: &str, cookies: &str) -> Page {
        self.send(Request::get(path).header(header::COOKIE, cookies).body(Body::empty()).unwrap()).await
    }

    async fn post(&self, path: &str, cookies: &str, form: &[(&str, &str)]) -> Page {
        let body = serde_urlencoded::to_string(form).unwrap();
        let req = Request::post(path)
            .header(header::COOKIE, cookies)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap();
        self.send(req).await
    }

    /// Makes a user of `org` through the setup form; the session cookie header.
    async fn user(&self, org: &str, email: &str) -> String {
        let form_page = self.get("/app/setup", "").await;
        let form_cookie = format!("kino_form={}", form_page.cookie("kino_form").unwrap());
        let csrf = form_page.csrf();
        let done = self
            .post(
                "/app/setup",
                &form_cookie,
                &[
                    ("csrf", &csrf),
                    ("admin_token", ADMIN),
                    ("org", org),
                    ("email", email),
                    ("password", "a long password"),
                ],
            )
            .await;
        assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
        assert_eq!(done.location(), "/app/catalog");
        format!("kino_session={}", done.cookie("kino_session").expect("a session cookie"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_need_a_session_and_the_first_user_needs_the_admin_token() {
    let w = start();
    let page = w.get("/app/keys", "").await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.location(), "/app/sign-in?next=%2Fapp%2Fkeys");
    assert_eq!(w.get("/app/", "").await.location(), "/app/sign-in");
    let expired = w.post("/app/keys", "kino_session=gone", &[("csrf", "x")]).await;
    assert_eq!(expired.location(), "/app/sign-in?next=%2Fapp%2Fcatalog", "a POST's path is not a page to return to");

    // the setup form: its double-submit token, then the admin token
    let form_page = w.get("/app/setup", "").await;
    assert_eq!(form_page.status, StatusCode::OK);
    let set = form_page.headers.get(header::SET_COOKIE).unwrap().to_str().unwrap();
    for attribute in ["HttpOnly", "Secure", "SameSite=Lax", "Path=/app"] {
        assert!(set.contains(attribute), "{set}");
    }
    let form_cookie = format!("kino_form={}", form_page.cookie("kino_form").unwrap());
    let csrf = form_page.csrf();
    let setup = |cookie: &str, token: &str, password: &str| {
        let form = [
            ("csrf", csrf.clone()),
            ("admin_token", token.into()),
            ("org", "acme".into()),
            ("email", "ada@example.com".into()),
            ("password", password.into()),
        ];
        let (w, cookie) = (&w, cookie.to_string());
        async move {
            let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            w.post("/app/setup", &cookie, &pairs).await
        }
    };
    let no_cookie = setup("", ADMIN, "a long password").await;
    assert_eq!(no_cookie.status, StatusCode::FORBIDDEN, "a form without its cookie");
    let wrong = setup(&form_cookie, "guess", "a long password").await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(wrong.body.contains("admin_token: not the service"), "{}", wrong.body);
    assert!(w.state.store.org_by_name("acme").unwrap().is_none(), "nothing is made without the admin token");
    let short = setup(&form_cookie, ADMIN, "short").await;
    assert_eq!(short.status, StatusCode::BAD_REQUEST);
    assert!(short.body.contains("password: must have 10 to 256 characters (it has 5)"), "{}", short.body);
    let made = setup(&form_cookie, ADMIN, "a long password").await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.body);
    assert!(w.state.store.org_by_name("acme").unwrap().is_some(), "the organisation is made with the admin token");
    let session = format!("kino_session={}", made.cookie("kino_session").unwrap());
    let again = setup(&form_cookie, ADMIN, "a long password").await;
    assert!(again.body.contains("ada@example.com already has an account"), "{}", again.body);

    // signed in: the pages answer, with their security headers
    let keys = w.get("/app/keys", &session).await;
    assert_eq!(keys.status, StatusCode::OK, "{}", keys.body);
    assert!(keys.body.contains("ada@example.com"));
    let csp = keys.headers.get("content-security-policy").unwrap().to_str().unwrap();
    assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(keys.headers.get(header::CACHE_CONTROL).unwrap(), "no-store");
    assert_eq!(keys.headers.get("x-content-type-options").unwrap(), "nosniff");

    // signing out ends the session in the database, not only in the browser
    let out = w.post("/app/sign-out", &session, &[("csrf", &keys.csrf())]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert_eq!(w.get("/app/keys", &session).await.status, StatusCode::SEE_OTHER);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_checks_the_password_and_caps_failures() {
    let w = start();
    w.user("acme", "ada@example.com").await;
    let form_page = w.get("/app/sign-in?next=%2Fapp%2Fwebhooks", "").await;
    assert!(form_page.body.contains("value=\"/app/webhooks\""), "the page to return to is kept");
    let cookie = format!("kino_form={}", form_page.cookie("kino_form").unwrap());
    let csrf = form_page.csrf();
    let sign_in = |password: &'static str, next: &'static str| {
        let (w, cookie, csrf) = (&w, cookie.clone(), csrf.clone());
        async move {
            w.post(
                "/app/sign-in",
                &cookie,
                &[("csrf", &csrf), ("email", "ADA@example.com "), ("password", password), ("next", next)],
            )
            .await
        }
    };
    let ok = sign_in("a long password", "/app/webhooks").await;
    assert_eq!((ok.status, ok.location()), (StatusCode::SEE_OTHER, "/app/webhooks"), "addresses in any case");
    let elsewhere = sign_in("a long password", "https://evil.example/").await;
    assert_eq!(elsewhere.location(), "/app/catalog", "never sent off the application");
    // Control characters in `next` (once a 500 with the session cookie set): the catalog.
    for next in ["/app/x\r\nSet-Cookie: a=b", "/app/x\n", "/app/x\0", "/app/x\x01", "/app/x\x7f"] {
        let odd = sign_in("a long password", next).await;
        assert_eq!((odd.status, odd.location()), (StatusCode::SEE_OTHER, "/app/catalog"), "{next:?}");
        let form = w.get(&format!("/app/sign-in?next={}", urlencode(next)), "").await;
        assert_eq!(form.status, StatusCode::OK, "{next:?}");
        assert!(form.body.contains("value=\"/app/catalog\""), "{next:?}");
    }
    for _ in 0..5 {
        let wrong = sign_in("not the password", "/app/catalog").await;
        assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
        assert!(wrong.body.contains("the e-mail address or the password is wrong"));
    }
    let capped = sign_in("a long password", "/app/catalog").await;
    assert_eq!(capped.status, StatusCode::TOO_MANY_REQUESTS, "five failures: the right password waits too");
    assert!(capped.body.contains("too many failed sign-ins"), "{}", capped.body);
    let unknown =
        w.post("/app/sign-in", &cookie, &[("csrf", &csrf), ("email", "nobody@example.com"), ("password", "x")]).await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED, "an unknown address reads as a wrong password");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_need_the_session_csrf_token_and_pages_are_scoped_to_the_organisation() {
    let w = start();
    let ada = w.user("acme", "ada@example.com").await;
    let bob = w.user("rival", "bob@example.com").await;

    // a key: refused without the token, from another site, and made with it (shown once)
    let keys = w.get("/app/keys", &ada).await;
    assert_eq!(w.post("/app/keys", &ada, &[]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(w.post("/app/keys", &ada, &[("csrf", &keys.csrf()[..63])]).await.status, StatusCode::FORBIDDEN);
    assert_eq!(
        w.post("/app/keys", &ada, &[("csrf", &w.get("/app/keys", &bob).await.csrf())]).await.status,
        StatusCode::FORBIDDEN,
        "another session's token"
    );
    let cross = Request::post("/app/keys")
        .header(header::COOKIE, &ada)
        .header("sec-fetch-site", "cross-site")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("csrf={}", keys.csrf())))
        .unwrap();
    assert_eq!(w.send(cross).await.status, StatusCode::FORBIDDEN);
    assert!(
        kino_server::auth::keys(&w.state.store, w.state.store.org_by_name("acme").unwrap().unwrap())
            .unwrap()
            .is_empty()
    );
    let made = w.post("/app/keys", &ada, &[("csrf", &keys.csrf())]).await;
    assert_eq!(made.status, StatusCode::OK);
    let at = made.body.find("value=\"kino_").expect("the key is shown") + 7;
    let key = &made.body[at..at + 69];
    let listed = w.get("/app/keys", &ada).await;
    assert!(!listed.body.contains(key), "shown once");
    assert!(listed.body.contains(&key[..13]), "listed by its prefix");
    let api = w.get(&format!("/catalog/v1/item?key={key}"), "").await;
    assert_eq!(api.status, StatusCode::OK, "the key works against the API: {}", api.body);
    assert!(!w.get("/app/keys", &bob).await.body.contains(&key[..13]), "another organisation's keys are not shown");
    let revoke_elsewhere = w
        .post("/app/keys/revoke", &bob, &[("csrf", &w.get("/app/keys", &bob).await.csrf()), ("prefix", &key[..13])])
        .await;
    assert_eq!(revoke_elsewhere.status, StatusCode::NOT_FOUND);
    let revoked = w.post("/app/keys/revoke", &ada, &[("csrf", &listed.csrf()), ("prefix", &key[..13])]).await;
    assert_eq!(revoked.location(), "/app/keys?notice=revoked");
    assert_eq!(w.get(&format!("/catalog/v1/item?key={key}"), "").await.status, StatusCode::UNAUTHORIZED);

    // a webhook from the form: validated, its secret shown once, and out of the other's reach
    let hooks = w.get("/app/webhooks", &ada).await;
    let bad = w
        .post("/app/webhooks", &ada, &[("csrf", &hooks.csrf()), ("url", "ftp://x"), ("events", "recipe.completed")])
        .await;
    assert_eq!(bad.status, StatusCode::OK);
    assert!(bad.body.contains("url: "), "the rule is named: {}", bad.body);
    let made = w
        .post(
            "/app/webhooks",
            &ada,
            &[
                ("csrf", &hooks.csrf()),
                ("url", "http://127.0.0.1:9/hook"),
                ("events", "recipe.completed"),
                ("events", "recipe.failed"),
                ("enabled", "true"),
            ],
        )
        .await;
    assert!(made.body.contains("Its signing secret"), "{}", made.body);
    let org = w.state.store.org_by_name("acme").unwrap().unwrap();
    let hook = kino_server::webhooks::list(&w.state.store, org).unwrap().pop().unwrap();
    assert_eq!(hook.events, vec!["recipe.completed", "recipe.failed"]);
    assert!(hook.enabled);
    assert_eq!(w.get(&format!("/app/webhooks/{}", hook.id), &bob).await.status, StatusCode::NOT_FOUND);
    let bob_csrf = w.get("/app/webhooks", &bob).await.csrf();
    assert_eq!(
        w.post(&format!("/app/webhooks/{}/delete", hook.id), &bob, &[("csrf", &bob_csrf)]).await.status,
        StatusCode::NOT_FOUND
    );
    let test = w.post(&format!("/app/webhooks/{}/test", hook.id), &ada, &[("csrf", &hooks.csrf())]).await;
    assert_eq!(test.location(), format!("/app/webhooks/{}?notice=test", hook.id));
    let log = w.get(&format!("/app/webhooks/{}", hook.id), &ada).await;
    assert!(log.body.contains("data-state=\"pending\"") && log.body.contains("data-refresh"), "{}", log.body);

    // the catalog: search and paging, and items of the organisation only
    for i in 0..30 {
        let body =
            serde_json::json!({"id": format!("tt-{i:02}"), "title": format!("Title {i:02}"), "type": "standalone"});
        w.state
            .store
            .upsert_item(org, &format!("tt-{i:02}"), kino_server::catalog::ItemType::Standalone, &body, false)
            .unwrap();
    }
    let first = w.get("/app/catalog", &ada).await;
    assert!(first.body.contains("30 items") && first.body.contains("page 1 of 2"), "{}", first.body);
    let second = w.get("/app/catalog?page=2", &ada).await;
    assert!(second.body.contains("Title 29") && !second.body.contains("Title 00"));
    let found = w.get("/app/catalog?q=title%2017", &ada).await;
    assert!(found.body.contains("1 items") && found.body.contains("/app/catalog/tt-17"), "{}", found.body);
    assert_eq!(w.get("/app/catalog?page=0", &ada).await.status, StatusCode::BAD_REQUEST);
    assert!(w.get("/app/catalog", &bob).await.body.contains("0 items"));
    assert_eq!(w.get("/app/catalog/tt-17", &bob).await.status, StatusCode::NOT_FOUND);
    let item = w.get("/app/catalog/tt-17", &ada).await;
    assert!(item.body.contains("no signals of this item yet"), "{}", item.body);

    // users: added by a signed-in user, who cannot remove themselves
    let users = w.get("/app/users", &ada).await;
    let added = w
        .post(
            "/app/users",
            &ada,
            &[("csrf", &users.csrf()), ("email", "cy@example.com"), ("password", "another long one")],
        )
        .await;
    assert_eq!(added.location(), "/app/users?notice=added");
    assert!(w.get("/app/users", &ada).await.body.contains("cy@example.com"));
    assert!(!w.get("/app/users", &bob).await.body.contains("cy@example.com"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_viewer_and_the_assets_are_served_by_kino() {
    let w = start();
    let viewer = w.get("/app/api/", "").await;
    assert_eq!(viewer.status, StatusCode::OK);
    assert!(viewer.body.contains("swagger-ui"), "{}", viewer.body);
    for asset in ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-initializer.js"] {
        let page = w.get(&format!("/app/api/{asset}"), "").await;
        assert_eq!(page.status, StatusCode::OK, "{asset}");
        assert!(!page.body.is_empty());
    }
    assert!(w.get("/app/api/swagger-initializer.js", "").await.body.contains("/openapi.json"));
    for asset in ["app.css", "app.js"] {
        assert_eq!(w.get(&format!("/app/static/{asset}"), "").await.status, StatusCode::OK);
    }
    // the application's own fallbacks answer with a page, under its security headers
    for (method, path, status) in [
        ("GET", "/app/no-such-page", StatusCode::NOT_FOUND),
        ("GET", "/app/catalog/a/b/c/", StatusCode::NOT_FOUND),
        ("DELETE", "/app/catalog", StatusCode::METHOD_NOT_ALLOWED),
        ("PUT", "/app/sign-in", StatusCode::METHOD_NOT_ALLOWED),
    ] {
        let page = w.send(Request::builder().method(method).uri(path).body(Body::empty()).unwrap()).await;
        assert_eq!(page.status, status, "{method} {path}");
        assert!(page.headers.get(header::CONTENT_TYPE).unwrap().to_str().unwrap().starts_with("text/html"));
        assert!(page.headers.contains_key("content-security-policy"), "{method} {path}");
    }
    // a path that only begins like the application's is the service's own
    let other = w.get("/application", "").await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
    assert!(other.body.contains("\"detail\""), "{}", other.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smartlists_recipes_and_assets_are_browsed_within_the_organisation() {
    let w = start();
    let ada = w.user("acme", "ada@example.com").await;
    let bob = w.user("rival", "bob@example.com").await;
    let admin = |path: &str, body: serde_json::Value| {
        Request::post(format!("/admin/v1/orgs/acme{path}"))
            .header(header::AUTHORIZATION, format!("Bearer {ADMIN}"))
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let list = w
        .send(admin(
            "/smartlists",
            serde_json::json!({"title": "Late <night> comedy", "catalog": "acme", "creator": "ed@example.com", "filter": {"genres": ["comedy"]}}),
        ))
        .await;
    assert_eq!(list.status, StatusCode::CREATED, "{}", list.body);
    let list_id = serde_json::from_str::<serde_json::Value>(&list.body).unwrap()["id"].as_str().unwrap().to_string();
    let config =
        serde_json::json!({"smartlist_id": list_id, "per_item": 1, "data_only": true, "previews": {"clip_length": 20}});
    let recipe = w
        .send(admin(
            "/recipes",
            serde_json::json!({"title": "Trailers", "type": "preview-clips", "catalog": "acme", "creator": "ed@example.com", "config": config}),
        ))
        .await;
    assert_eq!(recipe.status, StatusCode::CREATED, "{}", recipe.body);
    let recipe_id =
        serde_json::from_str::<serde_json::Value>(&recipe.body).unwrap()["id"].as_str().unwrap().to_string();

    let lists = w.get("/app/smartlists", &ada).await;
    assert!(lists.body.contains("Late &lt;night&gt; comedy"), "escaped: {}", lists.body);
    assert!(w.get(&format!("/app/smartlists/{list_id}"), &ada).await.body.contains("&quot;comedy&quot;"));
    assert_eq!(w.get(&format!("/app/smartlists/{list_id}"), &bob).await.status, StatusCode::NOT_FOUND);
    assert!(!w.get("/app/smartlists", &bob).await.body.contains("comedy"));
    let recipes = w.get("/app/recipes", &ada).await;
    assert!(recipes.body.contains("Trailers"), "{}", recipes.body);
    let page = w.get(&format!("/app/recipes/{recipe_id}"), &ada).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("Creative assets") && page.body.contains("per_item"), "{}", page.body);
    assert_eq!(w.get(&format!("/app/recipes/{recipe_id}"), &bob).await.status, StatusCode::NOT_FOUND);
    let assets = w.get("/app/creative-assets", &ada).await;
    assert_eq!(assets.status, StatusCode::OK);
    assert!(assets.body.contains("No creative assets yet"));
}

/// `s` percent-encoded for a query string.
fn urlencode(s: &str) -> String {
    serde_urlencoded::to_string([("v", s)]).unwrap()[2..].to_string()
}
