//! Smartlists, recipes and creative assets: browsing what editors read, with thumbnails and clip
//! players for the generated assets.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};

use super::common::{Signed, blocking, fail, internal, page, path_segment};
use super::timeline::clock;
use crate::state::AppState;
use crate::store::{CreativeAssetRow, CreativeAssetStatus};

fn media(uri: &str) -> String {
    format!("/media/{}", uri.trim_start_matches('/'))
}

fn item_link(id: &str, text: &str) -> Markup {
    html! { a href=(format!("/app/catalog/{}", path_segment(id))) { (text) } }
}

/// `GET /app/smartlists`.
pub async fn smartlists(State(state): State<AppState>, signed: Signed) -> Response {
    let org = signed.session.org;
    let rows = match blocking(move || state.store.smartlists(org).map_err(internal)).await {
        Ok(r) => r,
        Err(f) => return f.into_response(),
    };
    let body = html! {
        @if rows.is_empty() { p { "No smartlists yet: create them with the admin API (" code { "POST /admin/v1/orgs/ORG/smartlists" } ")." } }
        table.list #smartlists {
            caption.sr { "Smartlists" }
            thead { tr { th scope="col" { "Title" } th scope="col" { "Kind" } th scope="col" { "Catalog" } th scope="col" { "Items" } th scope="col" { "State" } th scope="col" { "Updated" } } }
            tbody {
                @for s in &rows {
                    tr {
                        td { a href=(format!("/app/smartlists/{}", s.id)) { (s.title) } }
                        td { (s.kind) }
                        td { (s.catalog_name) }
                        td { (s.item_count) }
                        td { @if s.published_at.is_some() { "published" } @else { "draft" } }
                        td { (s.updated_at) }
                    }
                }
            }
        }
    };
    page(&signed, "/app/smartlists", "Smartlists", body).into_response()
}

/// `GET /app/smartlists/{id}`: the smartlist and its members in order.
pub async fn smartlist(State(state): State<AppState>, Path(id): Path<String>, signed: Signed) -> Response {
    let org = signed.session.org;
    let found = blocking(move || {
        let s = state
            .store
            .smartlist(org, &id)
            .map_err(internal)?
            .ok_or_else(|| fail(StatusCode::NOT_FOUND, "the organisation has no such smartlist"))?;
        let mut members = Vec::new();
        for item_id in state.store.smartlist_members(&s.id).map_err(internal)? {
            let title = state.store.item(org, &item_id).map_err(internal)?.and_then(|i| i.title().map(str::to_string));
            members.push((item_id, title));
        }
        Ok((s, members))
    })
    .await;
    let (s, members) = match found {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let filter = serde_json::to_string_pretty(&s.filter).unwrap_or_default();
    let body = html! {
        @if !s.description.is_empty() { p { (s.description) } }
        dl.facts {
            dt { "Kind" } dd { (s.kind) }
            dt { "Catalog" } dd { (s.catalog_name) }
            dt { "State" } dd { @if let Some(p) = &s.published_at { "published " (p) } @else { "draft" } }
            dt { "Purpose" } dd { (s.purpose.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")) }
        }
        h2 { "Members" }
        ol #members {
            @for (item_id, title) in &members { li { (item_link(item_id, title.as_deref().unwrap_or(item_id))) } }
        }
        h2 { "Filter" }
        pre.body tabindex="0" { (filter) }
    };
    page(&signed, "/app/smartlists", &s.title, body).into_response()
}

/// `GET /app/recipes`.
pub async fn recipes(State(state): State<AppState>, signed: Signed) -> Response {
    let org = signed.session.org;
    let rows = match blocking(move || state.store.recipes(org).map_err(internal)).await {
        Ok(r) => r,
        Err(f) => return f.into_response(),
    };
    let body = html! {
        @if rows.is_empty() { p { "No recipes yet: create them with the admin API (" code { "POST /admin/v1/orgs/ORG/recipes" } ")." } }
        table.list #recipes {
            caption.sr { "Recipes" }
            thead { tr { th scope="col" { "Title" } th scope="col" { "Kind" } th scope="col" { "Catalog" } th scope="col" { "Status" } th scope="col" { "Runs" } th scope="col" { "Updated" } } }
            tbody {
                @for r in &rows {
                    tr {
                        td { a href=(format!("/app/recipes/{}", r.id)) { (r.title) } }
                        td { (r.kind) }
                        td { (r.catalog_name) }
                        td { (r.status.as_str()) }
                        td { (r.runs) }
                        td { (r.updated_at) }
                    }
                }
            }
        }
    };
    page(&signed, "/app/recipes", "Recipes", body).into_response()
}

/// `GET /app/recipes/{id}`: the recipe and the creative assets of its runs.
pub async fn recipe(State(state): State<AppState>, Path(id): Path<String>, signed: Signed) -> Response {
    let org = signed.session.org;
    let found = blocking(move || {
        let r = state
            .store
            .recipe(org, &id)
            .map_err(internal)?
            .ok_or_else(|| fail(StatusCode::NOT_FOUND, "the organisation has no such recipe"))?;
        let assets = state.store.creative_assets(org, Some(&r.id)).map_err(internal)?;
        Ok((r, assets))
    })
    .await;
    let (r, assets) = match found {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let config = serde_json::to_string_pretty(&r.config).unwrap_or_default();
    let body = html! {
        @if !r.description.is_empty() { p { (r.description) } }
        dl.facts {
            dt { "Kind" } dd { (r.kind) }
            dt { "Catalog" } dd { (r.catalog_name) }
            dt { "Status" } dd { (r.status.as_str()) }
            dt { "Runs" } dd { (r.runs) }
            @if let Some(e) = &r.last_error { dt { "Last error" } dd { (e) } }
        }
        h2 { "Creative assets" }
        (asset_grid(&assets))
        h2 { "Configuration" }
        pre.body tabindex="0" { (config) }
    };
    page(&signed, "/app/recipes", &r.title, body).into_response()
}

/// `GET /app/creative-assets`: every creative asset of the organisation, newest runs first.
pub async fn creative_assets(State(state): State<AppState>, signed: Signed) -> Response {
    let org = signed.session.org;
    let assets = match blocking(move || state.store.creative_assets(org, None).map_err(internal)).await {
        Ok(a) => a,
        Err(f) => return f.into_response(),
    };
    let body = html! {
        @if assets.is_empty() { p { "No creative assets yet: a recipe's run makes them." } }
        (asset_grid(&assets))
    };
    page(&signed, "/app/creative-assets", "Creative assets", body).into_response()
}

/// Creative assets as cards: thumbnail, clip player, title, item and state.
fn asset_grid(assets: &[CreativeAssetRow]) -> Markup {
    html! {
        ul.cards #assets {
            @for a in assets {
                li.card data-asset=(a.id) {
                    @if let Some(v) = &a.video_uri {
                        video controls preload="none" width="320" src=(media(v))
                            poster=[a.image_uri.as_deref().map(media)] aria-label=(format!("{} ({})", a.asset_title, a.title)) {
                            a href=(media(v)) { "Download the clip" }
                        }
                    } @else if let Some(img) = a.small_image_uri.as_ref().or(a.image_uri.as_ref()) {
                        img.thumb src=(media(img)) alt=(format!("{} ({})", a.asset_title, a.title));
                    }
                    h3 { (a.asset_title) }
                    p { (item_link(&a.item_id, &a.title)) " · " (clock(a.start_time)) "–" (clock(a.stop_time)) }
                    p { (a.kind) " · run " (a.run_number) " · "
                        @match a.status { CreativeAssetStatus::Failed => span.error { "failed" @if let Some(e) = &a.error { ": " (e) } }, s => (s.as_str()) } }
                    p.hint { "Recipe: " a href=(format!("/app/recipes/{}", a.recipe_id)) { (a.recipe_title) } }
                }
            }
        }
    }
}
