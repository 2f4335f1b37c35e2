//! The organisation's users.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;

use crate::state::AppState;
use crate::web::account::{self, AccountError};
use crate::web::common::{Query, Signed, SignedForm, blocking, csrf, form_error, internal, notice, page, page_error};

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
    // the fields are checked before a password slot is taken; the hash is made in one
    if let Err(e) = account::email(&email).and_then(|_| account::check_password(&password)) {
        return users_page(state, f.signed, Some(e.to_string()), None).await;
    }
    let s = state.clone();
    let added =
        account::with_password_slot(&state.guards.passwords, move || account::add_user(&s, org, &email, &password));
    match added.await.and_then(|added| added) {
        Ok(_) => Redirect::to("/app/users?notice=added").into_response(),
        Err(e @ AccountError::Invalid { .. }) => users_page(state, f.signed, Some(e.to_string()), None).await,
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
