//! Checks across the layers: what no one module sees whole.

use std::path::Path;

/// Every type of the service that holds a secret formats it as `<redacted>` with `{:?}`
/// (the admin API's answers and the token request of the token endpoint are checked in
/// their own modules, where those types are visible).
#[test]
fn secrets_never_show_in_debug_output() {
    const SECRET: &str = "s3cr3t-0123456789abcdef";
    let shown = [
        format!(
            "{:?}",
            crate::Config { admin_token: Some(SECRET.into()), ..crate::Config::in_dir(Path::new("/srv/kino")) }
        ),
        format!(
            "{:?}",
            crate::routes::ApiCaller::for_test(
                crate::store::OrgId(1),
                crate::query::Params::parse(Some(&format!("catalog=c&key={SECRET}&KEY={SECRET}"))).unwrap(),
            )
        ),
        format!("{:?}", crate::web::account::NewSession { token: SECRET.into(), expires_ms: 1 }),
        format!(
            "{:?}",
            crate::store::SessionRow {
                user_id: 1,
                org: crate::store::OrgId(1),
                org_name: "acme".into(),
                email: "ada@example.com".into(),
                csrf: SECRET.into(),
                expires_ms: 1,
            }
        ),
        format!(
            "{:?}",
            crate::store::UserRow {
                id: 1,
                org: crate::store::OrgId(1),
                email: "ada@example.com".into(),
                password_hash: SECRET.into(),
            }
        ),
        format!(
            "{:?}",
            crate::store::ClaimedDelivery {
                id: "d".into(),
                url: "https://example.com/hook".into(),
                secret: SECRET.into(),
                event: "test".into(),
                body: b"{}".to_vec(),
            }
        ),
        format!(
            "{:?}",
            crate::routes::oauth::Token {
                access_token: SECRET.into(),
                expires_in: 3600,
                token_type: "bearer".into(),
                scope: "s".into(),
            }
        ),
        format!(
            "{:?}",
            crate::openapi::schemas::TokenRequest {
                client_id: Some("kc_1".into()),
                client_secret: Some(SECRET.into()),
                grant_type: "client_credentials".into(),
                scope: None,
            }
        ),
    ];
    for text in shown {
        assert!(!text.contains(SECRET), "{text}");
        assert!(text.contains("<redacted>"), "{text}");
    }
    let params = crate::query::Params::parse(Some("catalog=c&limit=3")).unwrap();
    assert_eq!(format!("{params:?}"), r#"[("catalog", "c"), ("limit", "3")]"#, "other parameters are shown");
}
