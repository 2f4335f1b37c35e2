//! The catalog: items with search and paging, and one item's page: what kino measured (the
//! signals' own account of it, and the signals drawn on one time axis), the preview clips of a
//! chosen parameter set marked on that axis, and, once rendered, the clips playable in the page
//! with their thumbnails.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::common::{
    Query, Signed, SignedForm, blocking, csrf, fail, internal, notice, page, page_error, path_segment, urlencode,
};
use super::timeline::{self, Mark, clock};
use crate::generation::GenerationRequest;
use crate::state::AppState;
use crate::store::{ItemRow, OrgId};

/// Items per page of the catalog.
const PER_PAGE: i64 = 25;
/// The parameter set shown when none is chosen.
const DEFAULT_PARAMS: &str = "number_of_top_candidates=3";
/// Longest search text.
const MAX_SEARCH: usize = 200;

fn title(item: &ItemRow) -> String {
    item.title_or_id().to_string()
}

/// `GET /app/catalog?q=&page=`.
pub async fn items(State(state): State<AppState>, signed: Signed, q: Query) -> Response {
    let search: String = q.get("q").unwrap_or("").trim().chars().take(MAX_SEARCH).collect();
    let page_no = match q.get("page").map(str::parse::<i64>) {
        None => 1,
        Some(Ok(n)) if (1..=1_000_000).contains(&n) => n,
        Some(_) => return page_error(StatusCode::BAD_REQUEST, "page: must be a whole number from 1 to 1000000"),
    };
    let org = signed.session.org;
    let s = search.clone();
    let found = blocking(move || {
        let (rows, total) = state.store.search_items(org, &s, (page_no - 1) * PER_PAGE, PER_PAGE).map_err(internal)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let analysed = state.store.signals_version(org, &row.id).map_err(internal)?.is_some();
            out.push((row, analysed));
        }
        Ok((out, total))
    })
    .await;
    let (rows, total) = match found {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let pages = ((total + PER_PAGE - 1) / PER_PAGE).max(1);
    let link = |p: i64| format!("/app/catalog?q={}&page={p}", urlencode(&search));
    let body = html! {
        form.search role="search" method="get" action="/app/catalog" {
            label for="q" { "Search by title or id" }
            input #q type="search" name="q" value=(search) maxlength=(MAX_SEARCH);
            button type="submit" { "Search" }
        }
        p #count { (total) " items" @if !search.is_empty() { " matching “" (search) "”" } ", page " (page_no) " of " (pages) }
        table.list #items {
            caption.sr { "Catalog items" }
            thead { tr { th scope="col" { "Title" } th scope="col" { "Id" } th scope="col" { "Type" } th scope="col" { "Year" } th scope="col" { "Signals" } } }
            tbody {
                @for (item, analysed) in &rows {
                    tr {
                        td { a href=(format!("/app/catalog/{}", path_segment(&item.id))) { (title(item)) } }
                        td { code { (item.id) } }
                        td { (item.item_type) }
                        td { @if let Some(y) = item.release_year() { (y) } }
                        td { @if *analysed { "analysed" } @else { "none yet" } }
                    }
                }
            }
        }
        nav.pager aria-label="Pages" {
            @if page_no > 1 { a href=(link(page_no - 1)) rel="prev" { "← Previous" } }
            @if page_no < pages { a href=(link(page_no + 1)) rel="next" { "Next →" } }
        }
    };
    page(&signed, "/app/catalog", "Catalog", body).into_response()
}

/// What an item's page shows about its clips.
enum Rendered {
    /// The files of each clip (paths relative to the bucket).
    Files(Vec<crate::generation::GeneratedFiles>),
    /// Queued or rendering.
    Waiting,
    /// The last attempt failed.
    Failed(String),
    /// Never asked for.
    None,
}

/// The clips of `params` for the item, their generation request, and how far rendering came.
struct Clips {
    clips: Vec<kino::Clip>,
    request: GenerationRequest,
    rendered: Rendered,
}

fn clips_of(
    state: &AppState,
    org: OrgId,
    item: &ItemRow,
    prepared: &kino::Prepared,
    params: &str,
) -> Result<Clips, String> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(params).map_err(|e| format!("the parameters could not be read: {e}"))?;
    let pairs = pairs.iter().filter(|(k, _)| k != "key" && k != "catalog").map(|(k, v)| (k.as_str(), v.as_str()));
    let query = kino::ClipQuery::from_pairs(pairs).map_err(|e| e.to_string())?;
    let embedding = match query.search_query.as_deref() {
        Some(text) => Some(state.analysis.encoder.encode(text).map_err(|e| e.to_string())?),
        None => None,
    };
    let clips = kino::select(prepared, &query, embedding.as_deref()).map_err(|e| e.to_string())?;
    let vertical = query.aspect_ratio == kino::clips::AspectRatio::Vertical9x16;
    let request = GenerationRequest::new(&clips, vertical, &query.effective_version().to_string());
    let fingerprint = request.fingerprint(&item.id);
    let rendered = match state.store.rendered(org, &item.id, &fingerprint).map_err(|e| e.to_string())? {
        Some((_, data)) => {
            let files = serde_json::from_str::<serde_json::Value>(&data)
                .ok()
                .and_then(|v| v["jitpreview"].as_array().cloned())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|c| serde_json::from_value::<crate::generation::GeneratedFiles>(c["gen"].clone()).ok())
                .collect();
            Rendered::Files(files)
        }
        None => match state.store.unrendered(org, &item.id, &fingerprint).map_err(|e| e.to_string())? {
            Some((_, s, error)) if s == "FAILED" => Rendered::Failed(error),
            Some(_) => Rendered::Waiting,
            None => Rendered::None,
        },
    };
    Ok(Clips { clips, request, rendered })
}

/// `GET /app/catalog/{id}?params=`: the item's page.
pub async fn item(State(state): State<AppState>, Path(id): Path<String>, signed: Signed, q: Query) -> Response {
    let org = signed.session.org;
    let params = q.get("params").unwrap_or(DEFAULT_PARAMS).trim().to_string();
    if params.len() > 2000 {
        return page_error(StatusCode::BAD_REQUEST, "params: at most 2000 characters");
    }
    let code = q.get("notice").map(str::to_string);
    let p = params.clone();
    let found = blocking(move || {
        let item = match state.store.item(org, &id).map_err(internal)? {
            Some(item) if !item.deleted => item,
            _ => return Err(fail(StatusCode::NOT_FOUND, format!("the catalog has no item {id:?}"))),
        };
        let prepared = crate::signals::prepared(&state.store, &state.signals, org, &id).map_err(internal)?;
        let clips = prepared.as_ref().map(|prep| clips_of(&state, org, &item, prep, &p));
        let markers = state.store.result(org, &item.id, crate::products::Product::Markers, None).map_err(internal)?;
        let markers = binge_marks(markers.as_ref(), prepared.as_ref().map_or(0.0, |p| p.signals().duration));
        let tasks = state.store.tasks(org, &id).map_err(internal)?;
        let mut jobs = Vec::new();
        for t in tasks.into_iter().filter(|t| t.active) {
            let job = state.store.job_state(org, &id, t.product, &t.version).map_err(internal)?;
            jobs.push((t.product, t.version, job.map(|j| j.as_str())));
        }
        let progress = state.analysis.progress(org, &id);
        Ok((item, prepared, clips, jobs, progress, markers))
    })
    .await;
    let (item, prepared, clips, jobs, progress, markers) = match found {
        Ok(f) => f,
        Err(f) => return f.into_response(),
    };
    let heading = title(&item);
    let body = html! {
        (notice(code.as_deref()))
        dl.facts {
            dt { "Id" } dd { code { (item.id) } }
            dt { "Type" } dd { (item.item_type) }
            @if let Some(y) = item.release_year() { dt { "Year" } dd { (y) } }
            @if let Some(d) = item.short_description() { dt { "Description" } dd { (d) } }
            @let genres = item.genres().collect::<Vec<_>>();
            @if !genres.is_empty() {
                dt { "Genres" } dd { (genres.join(", ")) }
            }
            @if let Some(p) = progress { dt { "Analysis" } dd { "running, " (format!("{:.0}", p * 100.0)) "% done" } }
        }
        @match &prepared {
            None => {
                p #no-signals { "kino has no signals of this item yet: send its video (" code { "asset_info.file_uri" } ") and request a product, or upload signals." }
            }
            Some(prep) => {
                (measured(prep.signals()))
                (clips_section(&signed, &item, prep.signals(), &params, clips.as_ref(), &markers))
            }
        }
        @if !jobs.is_empty() {
            h2 { "Products requested" }
            table.list #tasks {
                caption.sr { "Products requested for this item" }
                thead { tr { th scope="col" { "Product" } th scope="col" { "Version" } th scope="col" { "Processing" } } }
                tbody { @for (product, version, job) in &jobs { tr { td { (product) } td { (version) } td { (job.unwrap_or("not queued")) } } } }
            }
        }
    };
    page(&signed, "/app/catalog", &heading, body).into_response()
}

/// The signals' own account of how they were made: measured channels with their models, and
/// what is absent and why.
fn measured(s: &kino::Signals) -> Markup {
    html! {
        h2 { "What kino measured" }
        @match &s.analysis {
            None => p { "These signals carry no account of how they were made (uploaded by the customer, or from before analyses recorded one)." }
            Some(a) => {
                p { "Analyser: " code { (a.analyzer) } }
                table.list #measured {
                    caption.sr { "Channels measured and absent" }
                    thead { tr { th scope="col" { "Channel" } th scope="col" { "State" } th scope="col" { "By / why" } } }
                    tbody {
                        @for ch in &a.measured {
                            tr { td { code { (ch) } } td { "measured" } td { (a.models.get(ch).map_or("", String::as_str)) } }
                        }
                        @for ch in &a.absent {
                            tr.absent { td { code { (ch) } } td { "absent" } td { (a.reasons.get(ch).map_or("", String::as_str)) } }
                        }
                    }
                }
            }
        }
    }
}

/// The spans of an item's stored binge markers (its `markers` result, when it succeeded):
/// intro, recap, end credits (to `duration` when their end is unknown), mid- and post-credits
/// scenes.
fn binge_marks(row: Option<&crate::store::ResultRow>, duration: f64) -> Vec<Mark> {
    let Some(p) = crate::products::stored_markers(row) else { return Vec::new() };
    let credits_end = p.credit_end.or(p.credit_start.map(|_| duration));
    [
        ("intro", p.intro_start, p.intro_end),
        ("recap", p.recap_start, p.recap_end),
        ("end credits", p.credit_start, credits_end),
        ("mid-credits scene", p.mid_credits_start, p.mid_credits_end),
        ("post-credits scene", p.post_credits_start, p.post_credits_end),
    ]
    .into_iter()
    .filter_map(|(label, a, b)| Some(Mark { start: a?, end: b?, label: label.into() }))
    .collect()
}

fn clips_section(
    signed: &Signed,
    item: &ItemRow,
    s: &kino::Signals,
    params: &str,
    clips: Option<&Result<Clips, String>>,
    markers: &[Mark],
) -> Markup {
    let (marks, error): (Vec<Mark>, Option<&str>) = match clips {
        Some(Ok(c)) => (
            c.clips
                .iter()
                .enumerate()
                .map(|(i, c)| Mark {
                    start: c.start_time,
                    end: c.stop_time,
                    label: format!("clip {} · {} · relevance {:.2}", i + 1, c.clip_type, c.relevance),
                })
                .collect(),
            None,
        ),
        Some(Err(e)) => (Vec::new(), Some(e.as_str())),
        None => (Vec::new(), None),
    };
    let item_path = format!("/app/catalog/{}", path_segment(&item.id));
    html! {
        h2 { "Timelines" }
        form.inline method="get" action=(item_path) {
            label for="params" { "Preview parameters (the previews API's query)" }
            input #params type="text" name="params" value=(params) size="60" maxlength="2000";
            button type="submit" { "Show the clips" }
            a href="/app/api/#/previews" { "What the parameters mean" }
        }
        @if let Some(e) = error { p.error role="alert" { (e) } }
        figure.timeline-box {
            (timeline::draw(s, &marks, markers))
            figcaption {
                "Duration " (clock(s.duration)) "; the clips of these parameters are marked and numbered across every lane."
                @if !markers.is_empty() { " The first lane shows the item's binge markers (its " code { "markers" } " result)." }
                @if let Some(arc) = kino::emotional_arc(s) {
                    " The emotional arc lane is the valence smoothed over a tenth of the runtime; its story shape is "
                    strong { (arc.name) } " (distance " (format!("{:.2}", arc.distance)) " of 2, 0 being the shape itself)."
                }
            }
        }
        @if let Some(Ok(c)) = clips {
            h2 { "Preview clips" }
            @if c.clips.is_empty() { p { "These parameters select no clip." } }
            ol.clips #clips {
                @for (i, clip) in c.clips.iter().enumerate() {
                    li.clip {
                        h3 { "Clip " (i + 1) ": " (clock(clip.start_time)) "–" (clock(clip.stop_time)) }
                        p { (clip.clip_type) " · relevance " (format!("{:.2}", clip.relevance)) " · " (format!("{:.1}", clip.stop_time - clip.start_time)) " s" }
                        @if let Rendered::Files(files) = &c.rendered {
                            @if let Some(f) = files.get(i) {
                                video controls preload="metadata" width="480"
                                    src=(media(&f.clip_path)) poster=(media(&f.large_image_path))
                                    aria-label=(format!("Clip {} of {}", i + 1, title(item))) {
                                    "Your browser cannot play this clip: " a href=(media(&f.clip_path)) { "download it" } "."
                                }
                                img.thumb src=(media(&f.small_image_path)) alt=(format!("Thumbnail of clip {}", i + 1))
                                    width=(f.small_image_width) height=(f.small_image_height);
                            }
                        }
                    }
                }
            }
            @match &c.rendered {
                Rendered::Files(_) => {}
                Rendered::Waiting => p #render-state data-refresh { "Rendering is queued or running; this page reloads itself." }
                Rendered::Failed(e) => p.error #render-state { "Rendering failed: " (e) }
                Rendered::None => {}
            }
            @if !matches!(c.rendered, Rendered::Files(_) | Rendered::Waiting) && !c.clips.is_empty() {
                form method="post" action=(format!("{item_path}/render")) {
                    (csrf(signed))
                    input type="hidden" name="params" value=(params);
                    button type="submit" { "Render these clips" }
                    " (with ffmpeg, from the item's video; the catalog's media generation must be on)"
                }
            }
        }
    }
}

/// The URL of a rendered file.
fn media(path: &str) -> String {
    format!("/media/{}", path.trim_start_matches('/'))
}

/// `POST /app/catalog/{id}/render` `params`: queues the rendering of the clips of `params`.
pub async fn render(State(state): State<AppState>, Path(id): Path<String>, f: SignedForm) -> Response {
    let org = f.signed.session.org;
    let params = f.form.get("params").trim().to_string();
    let p = params.clone();
    let i = id.clone();
    let queued = blocking(move || {
        let item = match state.store.item(org, &i).map_err(internal)? {
            Some(item) if !item.deleted => item,
            _ => return Err(fail(StatusCode::NOT_FOUND, format!("the catalog has no item {i:?}"))),
        };
        let catalogs = state.store.catalogs(org).map_err(internal)?;
        let mut enabled = false;
        for (_, name, _) in &catalogs {
            enabled |= state.store.catalog_generation(org, name).map_err(internal)?;
        }
        if !enabled {
            return Err(fail(
                StatusCode::BAD_REQUEST,
                "media generation is off for every catalog of the organisation (kino-server admin set-generation ORG CATALOG on)",
            ));
        }
        let Some(prepared) = crate::signals::prepared(&state.store, &state.signals, org, &i).map_err(internal)? else {
            return Err(fail(StatusCode::CONFLICT, "the item has no signals yet"));
        };
        let clips = clips_of(&state, org, &item, &prepared, &p).map_err(|e| fail(StatusCode::BAD_REQUEST, format!("params: {e}")))?;
        crate::generation::queue(&state.store, &state.effects, state.config.max_queued_generations, org, &i, clips.request).map_err(|e| match e {
            crate::generation::GenerationError::QueueFull(_) => fail(StatusCode::TOO_MANY_REQUESTS, e.to_string()),
            e => internal(e),
        })
    })
    .await;
    match queued {
        Ok(_) => {
            Redirect::to(&format!("/app/catalog/{}?params={}&notice=render", path_segment(&id), urlencode(&params)))
                .into_response()
        }
        Err(f) => f.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ResultRow, ResultStatus};

    fn row(status: ResultStatus, data: serde_json::Value) -> ResultRow {
        ResultRow {
            item_id: "e1".into(),
            version: "1.0.0".into(),
            status,
            error: String::new(),
            data: Some(data),
            updated_at: String::new(),
            models: String::new(),
        }
    }

    #[test]
    fn the_timeline_shows_the_stored_binge_markers() {
        let data = serde_json::json!({"intro_start": 12.0, "intro_end": 43.0, "recap_start": null, "recap_end": null,
            "credit_start": 240.0, "credit_end": null, "post_credits_start": null, "post_credits_end": null,
            "episodes_compared": 3});
        let marks = binge_marks(Some(&row(ResultStatus::Success, data.clone())), 300.0);
        let spans: Vec<(&str, f64, f64)> = marks.iter().map(|m| (m.label.as_str(), m.start, m.end)).collect();
        assert_eq!(spans, [("intro", 12.0, 43.0), ("end credits", 240.0, 300.0)]);
        assert!(binge_marks(Some(&row(ResultStatus::Failed, data.clone())), 300.0).is_empty());
        let mut mid = data;
        mid["mid_credits_start"] = serde_json::json!(260.0);
        mid["mid_credits_end"] = serde_json::json!(275.0);
        let marks = binge_marks(Some(&row(ResultStatus::Success, mid)), 300.0);
        assert_eq!(
            marks.iter().map(|m| m.label.as_str()).collect::<Vec<_>>(),
            ["intro", "end credits", "mid-credits scene"]
        );
        assert!(binge_marks(None, 300.0).is_empty());
    }
}
