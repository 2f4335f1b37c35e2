//! Query parameters of the OpenAPI document, as `IntoParams` types. The handlers read their
//! query strings with [`crate::query::Params`] (to answer FastAPI-shaped 422s for every problem at
//! once); these types state what those parsers accept. The previews parameters come from the
//! core's own table ([`kino::ClipQuery::parameter_specs`]), so they cannot drift from the parser.

use kino::clips::{ParameterKind, ParameterSpec};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{Deprecated, Required};

/// Every parameter of the clip search (`GET /results/jitpreviews/v2/{inventory_id}`).
#[derive(Debug)]
pub struct ClipSearch;

impl IntoParams for ClipSearch {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        kino::ClipQuery::parameter_specs().iter().map(clip_parameter).collect()
    }
}

/// The thumbnails search's parameters: the clip search's and the frame rule's.
#[derive(Debug)]
pub struct ThumbnailSearch;

impl IntoParams for ThumbnailSearch {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        kino::thumbnail::ThumbnailQuery::parameter_specs().iter().map(clip_parameter).collect()
    }
}

fn clip_parameter(spec: &ParameterSpec) -> Parameter {
    let schema = match &spec.kind {
        ParameterKind::Version { pattern } => {
            ObjectBuilder::new().schema_type(Type::String).pattern(Some(*pattern)).examples(["27", "27-vertical"])
        }
        ParameterKind::Enum(values) => ObjectBuilder::new().schema_type(Type::String).enum_values(Some(values.clone())),
        ParameterKind::IntegerList => ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(r"^\s*[0-9]+\s*(,\s*[0-9]+\s*)*$"))
            .examples(["0", "0,1"]),
        ParameterKind::EnumList(values) => {
            let one = format!("({})", values.join("|"));
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(format!(r"^\s*$|^\s*{one}\s*(,\s*{one}\s*)*$")))
                .examples([values[0].to_string(), values[..2].join(",")])
        }
        ParameterKind::Integer { minimum } => {
            ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(*minimum as f64))
        }
        ParameterKind::Number { minimum, maximum } => {
            ObjectBuilder::new().schema_type(Type::Number).minimum(Some(*minimum)).maximum(*maximum)
        }
        ParameterKind::Text => ObjectBuilder::new().schema_type(Type::String).pattern(Some(r"\S")),
        ParameterKind::Boolean => ObjectBuilder::new().schema_type(Type::Boolean),
    };
    let schema = schema.default(spec.default.clone());
    ParameterBuilder::new()
        .name(spec.name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(spec.description.clone()))
        .deprecated(spec.deprecated.then_some(Deprecated::True))
        .schema(Some(schema))
        .build()
}

/// `catalog`: one of the caller's catalogs (the previews endpoints).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CatalogQuery {
    /// The name of one of the caller's catalogs.
    #[param(example = "demo")]
    pub catalog: String,
}

/// `version` of a result endpoint.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VersionQuery {
    /// A product or result version code; the latest result when absent.
    pub version: Option<String>,
}

/// A page of results updated in a time range (results lists).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResultListQuery {
    /// Results updated at or after this time (ISO 8601); all when absent.
    #[param(format = DateTime)]
    pub from_utcdatetime: Option<String>,
    /// Results updated at or before this time (ISO 8601); now when absent (fix it while paging).
    #[param(format = DateTime)]
    pub to_utcdatetime: Option<String>,
    /// The page, from 0.
    #[param(minimum = 0, default = 0)]
    pub page_num: Option<i64>,
    /// Results per page.
    #[param(minimum = 1, default = 500)]
    pub page_size: Option<i64>,
    /// A product or result version code.
    pub version: Option<String>,
}

/// A page of previews results (`page_size` defaults to 1000 here).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PreviewsListQuery {
    /// Results updated at or after this time (ISO 8601); all when absent.
    #[param(format = DateTime)]
    pub from_utcdatetime: Option<String>,
    /// Results updated at or before this time (ISO 8601); now when absent (fix it while paging).
    #[param(format = DateTime)]
    pub to_utcdatetime: Option<String>,
    /// The page, from 0.
    #[param(minimum = 0, default = 0)]
    pub page_num: Option<i64>,
    /// Results per page.
    #[param(minimum = 1, default = 1000)]
    pub page_size: Option<i64>,
    /// A previews version code.
    pub version: Option<String>,
}

/// `include_episodes` of the embedding lists.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EpisodesQuery {
    /// Whether episodes are listed too (series, seasons and standalone items always are).
    #[param(default = false)]
    pub include_episodes: Option<bool>,
}

/// `type` of the emotions list.
#[derive(Debug)]
pub struct EmotionsTypeQuery;

impl IntoParams for EmotionsTypeQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        // What `results::emotions_list` accepts.
        let names = ["all", "movie", "standalone", "episode", "series", "season"];
        let schema =
            ObjectBuilder::new().schema_type(Type::String).enum_values(Some(names)).default(Some("all".into()));
        vec![
            ParameterBuilder::new()
                .name("type")
                .parameter_in(ParameterIn::Query)
                .required(Required::False)
                .description(Some(
                    "Which items: `all`, or one type (`movie` or `standalone`, `episode`, `series`, `season`).",
                ))
                .schema(Some(schema))
                .build(),
        ]
    }
}

/// The query of the text embedding.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TextEmbeddingQuery {
    /// The text to embed (at least one non-blank character).
    #[param(min_length = 1, pattern = r"\S", example = "car chase")]
    pub q: String,
    /// The encoder version reported; the encoder's own when absent.
    pub version: Option<String>,
}

/// The similar titles query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SimilarQuery {
    /// A similarity version code (reported as `version_id`).
    pub version: Option<String>,
    /// Titles skipped from the start of the list.
    #[param(minimum = 0, default = 0)]
    pub skip: Option<i64>,
    /// Titles returned.
    #[param(minimum = 1, default = 10)]
    pub count: Option<i64>,
    /// Highest score included, 0 to 1.
    #[param(minimum = 0.0, maximum = 1.0)]
    pub max_score: Option<f64>,
}

/// The catalog-wide scene search: a query (`text`, or `item_id` with or without `start_ts`),
/// filters and paging.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SceneSearchQuery {
    /// Scenes matching this text (not with `item_id`).
    #[param(min_length = 1, example = "car chase")]
    pub text: Option<String>,
    /// Scenes like this item's (the mean of its scenes), or like one of its scenes with
    /// `start_ts`; the item itself is left out of the results.
    pub item_id: Option<String>,
    /// The start of the query scene in `item_id`, seconds (the scene starting nearest, within 1 s).
    #[param(minimum = 0.0)]
    pub start_ts: Option<f64>,
    /// Only members of the smartlists of this catalog.
    pub catalog_id: Option<i64>,
    /// Only items of these types, comma-separated (`standalone`, `episode`; series and seasons
    /// have no scenes of their own).
    #[param(rename = "type")]
    pub item_type: Option<String>,
    /// Only the episodes of this series.
    pub series_id: Option<String>,
    /// Only items released in this year or later.
    #[param(minimum = 1901, maximum = 2049)]
    pub release_year_gte: Option<i64>,
    /// Only items released in this year or earlier.
    #[param(minimum = 1901, maximum = 2049)]
    pub release_year_lte: Option<i64>,
    /// Only scenes starting at or after this time of their title, seconds.
    #[param(minimum = 0.0)]
    pub from_ts: Option<f64>,
    /// Only scenes ending at or before this time of their title, seconds (at least `from_ts`).
    #[param(minimum = 0.0)]
    pub to_ts: Option<f64>,
    /// Scenes skipped from the start of the list (`skip + count` at most 1000).
    #[param(minimum = 0, default = 0)]
    pub skip: Option<i64>,
    /// Scenes returned.
    #[param(minimum = 1, maximum = 100, default = 10)]
    pub count: Option<i64>,
}

/// Search by example (`POST /search/v1/scenes`): the filters and paging of the scene search; the
/// example itself is the body.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SceneExampleQuery {
    /// Only members of the smartlists of this catalog.
    pub catalog_id: Option<i64>,
    /// Only items of these types, comma-separated (`standalone`, `episode`).
    #[param(rename = "type")]
    pub item_type: Option<String>,
    /// Only the episodes of this series.
    pub series_id: Option<String>,
    /// Only items released in this year or later.
    #[param(minimum = 1901, maximum = 2049)]
    pub release_year_gte: Option<i64>,
    /// Only items released in this year or earlier.
    #[param(minimum = 1901, maximum = 2049)]
    pub release_year_lte: Option<i64>,
    /// Only scenes starting at or after this time of their title, seconds.
    #[param(minimum = 0.0)]
    pub from_ts: Option<f64>,
    /// Only scenes ending at or before this time of their title, seconds (at least `from_ts`).
    #[param(minimum = 0.0)]
    pub to_ts: Option<f64>,
    /// Scenes skipped from the start of the list (`skip + count` at most 1000).
    #[param(minimum = 0, default = 0)]
    pub skip: Option<i64>,
    /// Scenes returned.
    #[param(minimum = 1, maximum = 100, default = 10)]
    pub count: Option<i64>,
}

/// The catalog item list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ItemListQuery {
    /// The page, from 0.
    #[param(minimum = 0, default = 0)]
    pub page_num: Option<i64>,
    /// Items per page.
    #[param(minimum = 1, default = 500)]
    pub page_size: Option<i64>,
    /// Whether deleted items are listed too.
    #[param(default = false)]
    pub allow_deleted: Option<bool>,
}

/// Reading one catalog item.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ItemGetQuery {
    /// Whether a deleted item is returned.
    #[param(default = false)]
    pub allow_deleted: Option<bool>,
    /// Episodes only: answer the asset-structured form (`extended_episodic_info` with series and
    /// season titles).
    #[param(default = false)]
    pub asset_model: Option<bool>,
}

/// `page` and `limit` of every portal list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PortalPage {
    /// The page, from 1.
    #[param(minimum = 1, maximum = 9_007_199_254_740_991_i64, default = 1)]
    pub page: Option<i64>,
    /// Items per page, 1 to 100.
    #[param(minimum = 1, maximum = 100, default = 20)]
    pub limit: Option<i64>,
}

/// The filters of `GET /smartlists/`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case)]
pub struct SmartlistFilters {
    /// Only smartlists of this catalog id.
    #[param(minimum = -9_007_199_254_740_991_i64, maximum = 9_007_199_254_740_991_i64)]
    pub catalogId: Option<i64>,
    /// Only smartlists of the catalog with exactly this name.
    pub catalogName: Option<String>,
    /// Only smartlists of this creator (case-insensitive).
    #[param(format = Email)]
    pub creator: Option<String>,
    /// Only smartlists with this purpose.
    #[param(inline)]
    pub purpose: Option<crate::openapi::schemas::Purpose>,
    /// Only smartlists made (or not) by a model.
    #[param(inline)]
    pub is_ai_generated: Option<crate::openapi::schemas::TrueFalse>,
    /// Only smartlists whose title contains this text (case-insensitive).
    pub search: Option<String>,
}

/// The filters of `GET /recipes/`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RecipeFilters {
    /// Only recipes of this type.
    #[serde(rename = "type")]
    #[param(inline)]
    pub kind: Option<crate::openapi::schemas::RecipeType>,
    /// Only recipes of this creator (case-insensitive).
    #[param(format = Email)]
    pub creator: Option<String>,
    /// Only recipes whose title contains this text (case-insensitive).
    pub search: Option<String>,
}

/// The filters of `GET /creative-assets/`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case)]
pub struct CreativeAssetFilters {
    /// Only assets of this recipe.
    #[param(
        pattern = "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$"
    )]
    pub recipeId: Option<String>,
    /// Only assets of this item (the customer's id).
    pub inventoryId: Option<String>,
    /// Only assets of this type.
    #[serde(rename = "type")]
    #[param(inline)]
    pub kind: Option<crate::openapi::schemas::CreativeAssetType>,
}
