//! Ad breaks, computed per request from the item's signals (`kino::adbreaks`): by window, in
//! milliseconds or frames, and contextual (what surrounds each break).

use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

use super::envelope::{ItemIdentity, ResultType};
use super::{ApiCaller, ApiCredential, blocking, live_item};
use crate::error::AppError;
use crate::products::Product;
use crate::query::{Collect, Params};
use crate::state::AppState;
use crate::store::{ItemRow, OrgId, ResultStatus};

/// Parameters of the ad breaks by window (minutes).
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AdbreakQuery {
    /// Minutes in which one break is looked for; `>= 0.1`.
    #[param(default = 5.0, minimum = 0.1)]
    pub window: Option<f64>,
    /// Least minutes between two breaks; `>= 0`.
    #[param(default = 1.0, minimum = 0.0)]
    pub separation: Option<f64>,
    /// Minutes at the start without breaks; `>= 0`.
    #[param(default = 1.0, minimum = 0.0)]
    pub skip_first: Option<f64>,
    /// Minutes at the end without breaks; `>= 0`.
    #[param(default = 1.0, minimum = 0.0)]
    pub skip_last: Option<f64>,
}

/// Parameters of the contextual ad breaks (minutes).
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContextualQuery {
    /// Least minutes between two breaks; `>= 0`.
    #[param(default = 1.0, minimum = 0.0)]
    pub minimum_separation: Option<f64>,
    /// Most minutes between two breaks; `>= 0.1` and `> minimum_separation`.
    #[param(default = 5.0, minimum = 0.1)]
    pub maximum_separation: Option<f64>,
    /// Minutes at the start without breaks; `>= 0`.
    #[param(default = 1.0, minimum = 0.0)]
    pub skip_first: Option<f64>,
    /// Minutes at the end without breaks; `>= 0`.
    #[param(default = 1.0, minimum = 0.0)]
    pub skip_last: Option<f64>,
}

/// One break: its candidate positions, the chosen one first, with their scores.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AdbreakPositions {
    /// 1 for the first break, in time order.
    pub rank: usize,
    /// Positions (milliseconds or frame numbers), the chosen one first.
    pub candidates: Vec<i64>,
    /// How clean each candidate is, in `[0, 1]` (docs/interface.md).
    pub scores: Vec<f64>,
}

/// The breaks of an item by window.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AdbreaksAnswer {
    /// Identity.
    #[serde(flatten)]
    pub item: ItemIdentity,
    /// The unit of `candidates`: `millisec` or `frame`.
    pub unit: &'static str,
    /// The breaks, in time order.
    pub adbreak: Vec<AdbreakPositions>,
}

/// The contextual breaks of an item, in the result envelope's shape.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ContextualEnvelope {
    /// `success`.
    pub status: ResultStatus,
    /// Empty.
    pub error: &'static str,
    /// When the answer was computed (RFC 3339, UTC).
    #[schema(format = DateTime)]
    pub updated: String,
    /// The product version.
    pub version_id: String,
    /// The customer's item id.
    pub inventory_id: String,
    /// The item's result type.
    #[serde(rename = "type")]
    #[schema(value_type = ResultType)]
    pub item_type: &'static str,
    /// Identity and the breaks.
    pub data: ContextualData,
}

/// `data` of the contextual breaks.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ContextualData {
    /// Identity.
    #[serde(flatten)]
    pub item: ItemIdentity,
    /// The breaks, in time order.
    pub context_adbreak: Vec<kino::adbreaks::ContextualAdbreak>,
}

fn signals_of(state: &AppState, org: OrgId, id: &str) -> Result<(ItemRow, std::sync::Arc<kino::Prepared>), AppError> {
    let item = live_item(state, org, id)?;
    match crate::signals::prepared(&state.store, &state.signals, org, id)? {
        Some(p) => Ok((item, p)),
        None => Err(AppError::NotFound(format!("item {id:?} has no analysis signals yet"))),
    }
}

fn minutes(c: &mut Collect, params: &Params, name: &str, default: f64) -> f64 {
    c.take(params.float(name, Some(0.0), None), None).unwrap_or(default)
}

fn version_id(product: Product, s: &kino::Signals) -> String {
    let models = crate::products::models_of(product, s);
    if models.is_empty() { "1.0.0".to_string() } else { format!("1.0.0+{models}") }
}

fn by_window(
    state: &AppState,
    org: OrgId,
    params: &Params,
    id: &str,
    frames: bool,
) -> Result<AdbreaksAnswer, AppError> {
    let mut c = Collect::default();
    let options = kino::adbreaks::AdbreakOptions {
        window: minutes(&mut c, params, "window", 5.0),
        separation: minutes(&mut c, params, "separation", 1.0),
        skip_first: minutes(&mut c, params, "skip_first", 1.0),
        skip_last: minutes(&mut c, params, "skip_last", 1.0),
    };
    c.finish()?;
    let (item, prepared) = signals_of(state, org, id)?;
    let s = prepared.signals();
    let breaks = kino::adbreaks::adbreaks(s, &options)?;
    let position = |t: f64| if frames { (t * s.fps).round() as i64 } else { (t * 1000.0).round() as i64 };
    Ok(AdbreaksAnswer {
        item: ItemIdentity {
            inventory_id: item.id.clone(),
            item_type: item.item_type.result_type(),
            service_id: item.service_id.clone(),
            version_id: version_id(Product::Adbreaks, s),
        },
        unit: if frames { "frame" } else { "millisec" },
        adbreak: breaks
            .into_iter()
            .map(|b| AdbreakPositions {
                rank: b.rank,
                candidates: b.candidates.iter().map(|c| position(c.time)).collect(),
                scores: b.candidates.iter().map(|c| c.score).collect(),
            })
            .collect(),
    })
}

/// The item's ad breaks by window, in milliseconds.
#[utoipa::path(
    get,
    path = "/results/adbreaks/v2/filter/millisec/{inventory_id}",
    tag = "adbreaks",
    params(crate::openapi::InventoryId, AdbreakQuery),
    responses((status = 200, description = "The breaks", body = AdbreaksAnswer), super::results::ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn millisec(
    State(state): State<AppState>,
    Path(id): Path<String>,
    credential: ApiCredential,
) -> Result<Json<AdbreaksAnswer>, AppError> {
    blocking(move || {
        let ApiCaller { org, params, .. } = credential.check(&state.store)?;
        by_window(&state, org, &params, &id, false).map(Json)
    })
    .await
}

/// The item's ad breaks by window, in frame numbers.
#[utoipa::path(
    get,
    path = "/results/adbreaks/v2/filter/frame/{inventory_id}",
    tag = "adbreaks",
    params(crate::openapi::InventoryId, AdbreakQuery),
    responses((status = 200, description = "The breaks", body = AdbreaksAnswer), super::results::ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn frame(
    State(state): State<AppState>,
    Path(id): Path<String>,
    credential: ApiCredential,
) -> Result<Json<AdbreaksAnswer>, AppError> {
    blocking(move || {
        let ApiCaller { org, params, .. } = credential.check(&state.store)?;
        by_window(&state, org, &params, &id, true).map(Json)
    })
    .await
}

/// The item's contextual ad breaks: each with the nudity and profanity near it and the tags of the
/// scene before it.
#[utoipa::path(
    get,
    path = "/results/contextual_adbreak/v2/{inventory_id}",
    tag = "adbreaks",
    params(crate::openapi::InventoryId, ContextualQuery),
    responses((status = 200, description = "The breaks", body = ContextualEnvelope), super::results::ItemErrors),
    security(("api_key" = []), ("api_key_header" = [])),
)]
pub async fn contextual(
    State(state): State<AppState>,
    Path(id): Path<String>,
    credential: ApiCredential,
) -> Result<Json<ContextualEnvelope>, AppError> {
    blocking(move || {
        let ApiCaller { org, params, .. } = credential.check(&state.store)?;
        let mut c = Collect::default();
        let options = kino::adbreaks::ContextualOptions {
            minimum_separation: minutes(&mut c, &params, "minimum_separation", 1.0),
            maximum_separation: minutes(&mut c, &params, "maximum_separation", 5.0),
            skip_first: minutes(&mut c, &params, "skip_first", 1.0),
            skip_last: minutes(&mut c, &params, "skip_last", 1.0),
        };
        c.finish()?;
        let (item, prepared) = signals_of(&state, org, &id)?;
        let s = prepared.signals();
        let breaks = kino::adbreaks::contextual_adbreaks(s, &options)?;
        let version_id = version_id(Product::ContextualAdbreak, s);
        let identity = ItemIdentity {
            inventory_id: item.id.clone(),
            item_type: item.item_type.result_type(),
            service_id: item.service_id.clone(),
            version_id: version_id.clone(),
        };
        Ok(Json(ContextualEnvelope {
            status: ResultStatus::Success,
            error: "",
            updated: crate::store::now(),
            version_id,
            inventory_id: item.id.clone(),
            item_type: item.item_type.result_type(),
            data: ContextualData { item: identity, context_adbreak: breaks },
        }))
    })
    .await
}

/// This module's routes (merged in `app.rs`).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/results/adbreaks/v2/filter/millisec/{inventory_id}", get(millisec))
        .route("/results/adbreaks/v2/filter/frame/{inventory_id}", get(frame))
        .route("/results/contextual_adbreak/v2/{inventory_id}", get(contextual))
}

/// This module's operations in the OpenAPI document (merged in `openapi/api.rs`).
#[derive(Debug, utoipa::OpenApi)]
#[openapi(paths(millisec, frame, contextual))]
pub struct Api;
