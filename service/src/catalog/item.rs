//! The catalog item of the ingestion interface, its validation, and the episodic rules.
//!
//! Episodic rules (the interface leaves them open; these are kino's):
//! - an `episode` names its series (`episodic_info.series_id` or `extended_episodic_info.series_id`);
//!   a `season` names its series in `episodic_info.series_id`;
//! - when an episode's or season's series (or an episode's season) does not exist, it is created
//!   as a **virtual** item of that type, so the hierarchy is always complete;
//! - deleting a series deletes its seasons and episodes; deleting a season deletes its episodes;
//!   deleting an episode touches nothing else; data is kept (`allow_deleted=true` shows it);
//! - `standalone` and `series` items carry no episodic info; only `standalone` and `episode`
//!   items carry `asset_info`;
//! - nothing is its own series or season, an episode's season and series differ, and when both
//!   `episodic_info` and `extended_episodic_info` name a series (or season) they name the same;
//! - the series a season or episode names, when it exists (deleted or not), is a `series`; the
//!   season an episode names, when it exists, is a `season` of that same series;
//! - a live item keeps its type (delete it first to re-create the id with another type).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::CatalogError;
use crate::error::Detail;
use crate::store::{ItemRow, StoreError};

pub use crate::vocabulary::ItemType;

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct ExternalId {
    pub provider: String,
    pub id: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct Metadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genres: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keywords: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categorized_keywords: Option<Vec<CategorizedKeyword>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crew: Option<Vec<Crew>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_description: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct CategorizedKeyword {
    pub category: String,
    pub keyword: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct Crew {
    pub crew_member: String,
    pub role: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct Rating {
    pub scheme: String,
    pub rating: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct WindowInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct EpisodicInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_number: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episode_number: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct ExtendedEpisodicInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_number: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episode_number: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct AssetInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_playback_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_params: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
pub struct Operations {
    #[serde(default)]
    pub deleted: bool,
    #[serde(default)]
    pub force_asset_reprocess: bool,
}

/// A catalog item as the ingestion interface describes it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[allow(missing_docs)]
#[schema(examples(json!({"id": "tt1", "type": "standalone", "title": "A film", "release_year": 2001,
    "metadata": {"genres": ["drama"]}, "asset_info": {"file_uri": "videos/a-film.mp4"}})))]
pub struct CatalogItem {
    /// The customer's id, unique across every type.
    #[schema(min_length = 1)]
    pub id: String,
    #[serde(rename = "type")]
    #[schema(value_type = ItemType)]
    pub item_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A title without content; needs an IMDB id in `external_ids`.
    #[serde(default, rename = "virtual")]
    pub is_virtual: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poster_urls: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative_lang_title: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_ids: Option<Vec<ExternalId>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<Vec<Rating>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_info: Option<WindowInfo>,
    /// 1900 < year < 2050.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(exclusive_minimum = 1900, exclusive_maximum = 2050)]
    pub release_year: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo_urls: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episodic_info: Option<EpisodicInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended_episodic_info: Option<ExtendedEpisodicInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_info: Option<AssetInfo>,
    #[serde(default)]
    pub operations: Operations,
}

fn body_issue(path: &[&str], kind: &str, msg: impl Into<String>, input: Value, ctx: Value) -> Detail {
    Detail {
        kind: kind.into(),
        loc: std::iter::once("body").chain(path.iter().copied()).map(String::from).collect(),
        msg: msg.into(),
        input,
        ctx,
    }
}

impl CatalogItem {
    /// Parses and validates a request body; every problem is reported.
    pub fn parse(body: &[u8]) -> Result<CatalogItem, CatalogError> {
        let de = &mut serde_json::Deserializer::from_slice(body);
        let item: CatalogItem = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let kind = if inner.is_data() && inner.to_string().starts_with("missing field") {
                "missing"
            } else {
                "model_attributes_type"
            };
            let kind = if inner.is_syntax() || inner.is_eof() { "json_invalid" } else { kind };
            let mut loc: Vec<&str> = if path == "." { vec![] } else { path.split('.').collect() };
            let msg = inner.to_string();
            let field;
            if kind == "missing" {
                field = msg.split('`').nth(1).unwrap_or("").to_string();
                loc.push(&field);
                return CatalogError::Invalid(vec![body_issue(&loc, kind, "Field required", Value::Null, Value::Null)]);
            }
            CatalogError::Invalid(vec![body_issue(&loc, kind, msg, Value::Null, Value::Null)])
        })?;
        item.validate()?;
        Ok(item)
    }

    fn validate(&self) -> Result<(), CatalogError> {
        let mut issues = serde_json::to_value(self).map(|v| super::text::check(&v)).unwrap_or_default();
        if self.id.is_empty() {
            issues.push(body_issue(
                &["id"],
                "string_too_short",
                "String should have at least 1 character",
                json!(self.id),
                json!({"min_length": 1}),
            ));
        }
        if let Err(CatalogError::Invalid(mut issue)) = self.checked_kind() {
            issues.append(&mut issue);
        }
        if let Some(y) = self.release_year {
            if y <= 1900 {
                issues.push(body_issue(
                    &["release_year"],
                    "greater_than",
                    "Input should be greater than 1900",
                    json!(y),
                    json!({"gt": 1900}),
                ));
            }
            if y >= 2050 {
                issues.push(body_issue(
                    &["release_year"],
                    "less_than",
                    "Input should be less than 2050",
                    json!(y),
                    json!({"lt": 2050}),
                ));
            }
        }
        if self.is_virtual
            && !self.external_ids.iter().flatten().any(|e| e.provider.eq_ignore_ascii_case("IMDB") && !e.id.is_empty())
        {
            issues.push(value_issue(&["external_ids"], "a virtual item needs an IMDB external id"));
        }
        let series_of_episode = self.series_id();
        match self.kind() {
            Some(ItemType::Episode) if series_of_episode.is_none() => issues.push(value_issue(
                &["episodic_info", "series_id"],
                "an episode needs episodic_info.series_id (or extended_episodic_info.series_id)",
            )),
            Some(ItemType::Season) if self.episodic_info.as_ref().and_then(|e| e.series_id.as_ref()).is_none() => {
                issues.push(value_issue(&["episodic_info", "series_id"], "a season needs episodic_info.series_id"))
            }
            Some(ItemType::Standalone | ItemType::Series)
                if self.episodic_info.is_some() || self.extended_episodic_info.is_some() =>
            {
                issues.push(value_issue(&["episodic_info"], "only seasons and episodes carry episodic info"))
            }
            _ => {}
        }
        self.check_references(&mut issues);
        if matches!(self.kind(), Some(ItemType::Series | ItemType::Season)) && self.asset_info.is_some() {
            issues.push(value_issue(&["asset_info"], "asset_info is for standalone and episode items only"));
        }
        if let Some(d) = self.asset_info.as_ref().and_then(|a| a.duration)
            && !(d.is_finite() && d >= 0.0)
        {
            issues.push(body_issue(
                &["asset_info", "duration"],
                "greater_than_equal",
                "Input should be greater than or equal to 0",
                json!(d),
                json!({"ge": 0}),
            ));
        }
        for (part, n) in [
            ("season_number", self.episodic_info.as_ref().and_then(|e| e.season_number)),
            ("episode_number", self.episodic_info.as_ref().and_then(|e| e.episode_number)),
        ] {
            if n.is_some_and(|n| n < 0) {
                issues.push(body_issue(
                    &["episodic_info", part],
                    "greater_than_equal",
                    "Input should be greater than or equal to 0",
                    json!(n),
                    json!({"ge": 0}),
                ));
            }
        }
        if let Some(w) = &self.window_info {
            let parse = |s: &Option<String>| s.as_deref().map(chrono::DateTime::parse_from_rfc3339);
            match (parse(&w.start), parse(&w.end)) {
                (Some(Err(_)), _) => {
                    issues.push(value_issue(&["window_info", "start"], "must be an ISO 8601 date-time"))
                }
                (_, Some(Err(_))) => issues.push(value_issue(&["window_info", "end"], "must be an ISO 8601 date-time")),
                (Some(Ok(a)), Some(Ok(b))) if a > b => {
                    issues.push(value_issue(&["window_info"], "start must not be after end"))
                }
                _ => {}
            }
        }
        if issues.is_empty() { Ok(()) } else { Err(CatalogError::Invalid(issues)) }
    }

    /// Where the item names its series or season: `episodic_info` when it carries one, else
    /// `extended_episodic_info`.
    fn loc_of(&self, field: &'static str) -> [&'static str; 2] {
        let in_plain = self.episodic_info.as_ref().is_some_and(|e| match field {
            "series_id" => e.series_id.is_some(),
            _ => e.season_id.is_some(),
        });
        [if in_plain { "episodic_info" } else { "extended_episodic_info" }, field]
    }

    /// Rules on the ids an item names, checkable without the catalog: nothing is its own series or
    /// season, an episode's season and series differ, and the two episodic forms agree.
    fn check_references(&self, issues: &mut Vec<Detail>) {
        let (series, season) = (self.series_id(), self.season_id());
        if series == Some(self.id.as_str()) {
            issues.push(value_issue(&self.loc_of("series_id"), "an item cannot be its own series"));
        }
        if self.kind() == Some(ItemType::Episode) {
            if season == Some(self.id.as_str()) {
                issues.push(value_issue(&self.loc_of("season_id"), "an episode cannot be its own season"));
            } else if season.is_some() && season == series {
                issues.push(value_issue(&self.loc_of("season_id"), "an episode's season and series must differ"));
            }
        }
        if let (Some(a), Some(b)) = (&self.episodic_info, &self.extended_episodic_info) {
            for (field, x, y) in [("series_id", &a.series_id, &b.series_id), ("season_id", &a.season_id, &b.season_id)]
            {
                if x.is_some() && y.is_some() && x != y {
                    issues.push(value_issue(
                        &["extended_episodic_info", field],
                        &format!("must agree with episodic_info.{field}"),
                    ));
                }
            }
        }
    }

    /// Rules against the stored catalog (`lookup` reads an item by id): a live item keeps its
    /// type; the series a season or episode names, when it exists, is a series; the season an
    /// episode names, when it exists, is a season of the same series.
    pub fn check_hierarchy(
        &self,
        lookup: impl Fn(&str) -> Result<Option<ItemRow>, StoreError>,
    ) -> Result<(), CatalogError> {
        let mut issues = Vec::new();
        if let Some(existing) = lookup(&self.id)?.filter(|e| !e.deleted && Some(e.item_type) != self.kind()) {
            issues.push(value_issue(
                &["type"],
                &format!(
                    "item {:?} exists as a {}; delete it before giving it another type",
                    self.id, existing.item_type
                ),
            ));
        }
        let series = self.series_id().filter(|_| matches!(self.kind(), Some(ItemType::Season | ItemType::Episode)));
        if let Some(series) = series
            && let Some(parent) = lookup(series)?.filter(|p| p.item_type != ItemType::Series)
        {
            issues.push(value_issue(
                &self.loc_of("series_id"),
                &format!("{series:?} is a {}, not a series", parent.item_type),
            ));
        }
        if self.kind() == Some(ItemType::Episode)
            && let Some(season) = self.season_id()
            && let Some(parent) = lookup(season)?
        {
            let parent_series = serde_json::from_value::<CatalogItem>(parent.body.clone())
                .ok()
                .and_then(|c| c.series_id().map(String::from));
            if parent.item_type != ItemType::Season {
                issues.push(value_issue(
                    &self.loc_of("season_id"),
                    &format!("{season:?} is a {}, not a season", parent.item_type),
                ));
            } else if parent_series.as_deref() != series {
                issues.push(value_issue(
                    &self.loc_of("season_id"),
                    &format!(
                        "season {season:?} belongs to series {:?}, not {:?}",
                        parent_series.unwrap_or_default(),
                        series.unwrap_or_default()
                    ),
                ));
            }
        }
        if issues.is_empty() { Ok(()) } else { Err(CatalogError::Invalid(issues)) }
    }

    /// The item's type; `None` only before validation ([`CatalogItem::parse`] refuses others).
    pub fn kind(&self) -> Option<ItemType> {
        ItemType::parse(&self.item_type)
    }

    /// The item's type, or the error that names the rule it breaks.
    pub fn checked_kind(&self) -> Result<ItemType, CatalogError> {
        self.kind().ok_or_else(|| {
            CatalogError::Invalid(vec![body_issue(
                &["type"],
                "enum",
                "Input should be 'standalone', 'series', 'season' or 'episode'",
                json!(self.item_type),
                json!({"expected": "'standalone', 'series', 'season' or 'episode'"}),
            )])
        })
    }

    /// The series this item belongs to (seasons and episodes).
    pub fn series_id(&self) -> Option<&str> {
        self.episodic_info
            .as_ref()
            .and_then(|e| e.series_id.as_deref())
            .or_else(|| self.extended_episodic_info.as_ref().and_then(|e| e.series_id.as_deref()))
    }

    /// The season an episode belongs to, when given.
    pub fn season_id(&self) -> Option<&str> {
        self.episodic_info
            .as_ref()
            .and_then(|e| e.season_id.as_deref())
            .or_else(|| self.extended_episodic_info.as_ref().and_then(|e| e.season_id.as_deref()))
    }

    /// A virtual stand-in for a missing parent.
    pub fn virtual_parent(id: &str, item_type: ItemType, series_id: Option<&str>) -> CatalogItem {
        CatalogItem {
            id: id.into(),
            item_type: item_type.as_str().into(),
            title: None,
            is_virtual: true,
            tag: None,
            poster_urls: None,
            alternative_lang_title: None,
            external_ids: None,
            metadata: None,
            ratings: None,
            window_info: None,
            release_year: None,
            logo_urls: None,
            episodic_info: series_id.map(|s| EpisodicInfo { series_id: Some(s.into()), ..EpisodicInfo::default() }),
            extended_episodic_info: None,
            asset_info: None,
            operations: Operations::default(),
        }
    }
}

fn value_issue(path: &[&str], rule: &str) -> Detail {
    body_issue(path, "value_error", format!("Value error, {rule}"), Value::Null, json!({"error": rule}))
}
