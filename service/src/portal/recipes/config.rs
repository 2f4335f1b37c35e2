//! A recipe's `config`: parsed and validated when the recipe is saved and again when it runs.

use kino::ClipQuery;
use kino::thumbnail::FrameRule;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::portal::{ManageError, is_uuid};

/// A validated recipe config.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the assets come from.
    pub targets: Targets,
    /// Assets of each type per item.
    pub per_item: usize,
    /// Whether to make the vertical forms too.
    pub vertical: bool,
    /// Whether to skip rendering.
    pub data_only: bool,
    /// The clip search.
    pub query: ClipQuery,
    /// The thumbnail frame rule.
    pub frame: FrameRule,
}

/// The assets a recipe applies to.
#[derive(Debug, Clone, PartialEq)]
pub enum Targets {
    /// The members of a smartlist.
    Smartlist(String),
    /// Listed items.
    Items(Vec<String>),
}

fn param_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn number(obj: &Value, key: &str, default: f64, lo: f64, hi: f64) -> Result<f64, ManageError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v.as_f64().filter(|x| (lo..=hi).contains(x)).ok_or_else(|| {
            ManageError::invalid(format!("config.thumbnail.{key}"), format!("must be a number from {lo} to {hi}"))
        }),
    }
}

impl Config {
    /// Validates a config; errors name the key (`config.previews.clip_length`) and the rule.
    pub fn parse(v: &Value) -> Result<Config, ManageError> {
        let obj = v.as_object().ok_or_else(|| ManageError::invalid("config", "must be a JSON object"))?;
        const KNOWN: [&str; 7] =
            ["smartlist_id", "inventory_ids", "per_item", "vertical", "data_only", "previews", "thumbnail"];
        if let Some(k) = obj.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(ManageError::invalid(
                format!("config.{k}"),
                format!("is not a config key (use {})", KNOWN.join(", ")),
            ));
        }
        let targets = match (obj.get("smartlist_id"), obj.get("inventory_ids")) {
            (Some(id), None) => match id.as_str() {
                Some(s) if is_uuid(s) => Targets::Smartlist(s.to_ascii_lowercase()),
                _ => return Err(ManageError::invalid("config.smartlist_id", "must be a smartlist UUID")),
            },
            (None, Some(ids)) => {
                let list = ids.as_array().filter(|a| !a.is_empty() && a.len() <= 10_000).ok_or_else(|| {
                    ManageError::invalid("config.inventory_ids", "must be a list of 1 to 10000 item ids")
                })?;
                let mut out = Vec::new();
                for id in list {
                    match id.as_str() {
                        Some(s) if !s.is_empty() => out.push(s.to_string()),
                        _ => return Err(ManageError::invalid("config.inventory_ids", "must hold non-empty strings")),
                    }
                }
                Targets::Items(out)
            }
            _ => return Err(ManageError::invalid("config", "needs exactly one of smartlist_id and inventory_ids")),
        };
        let per_item = match obj.get("per_item") {
            None => 1,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=10).contains(n))
                .ok_or_else(|| ManageError::invalid("config.per_item", "must be an integer from 1 to 10"))?
                as usize,
        };
        let flag = |key: &str| match obj.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ManageError::invalid(format!("config.{key}"), "must be true or false")),
        };
        let (vertical, data_only) = (flag("vertical")?, flag("data_only")?);
        let empty = json!({});
        let previews = obj.get("previews").unwrap_or(&empty);
        let pairs: Vec<(String, String)> = match previews.as_object() {
            Some(p) => p
                .iter()
                .map(|(k, v)| {
                    param_text(v).map(|t| (k.clone(), t)).ok_or_else(|| {
                        ManageError::invalid(format!("config.previews.{k}"), "must be a string, number or boolean")
                    })
                })
                .collect::<Result<_, _>>()?,
            None => return Err(ManageError::invalid("config.previews", "must be an object of previews parameters")),
        };
        for banned in ["trigger_generation", "generate", "aspect_ratio", "number_of_top_candidates"] {
            if pairs.iter().any(|(k, _)| k == banned) {
                return Err(ManageError::invalid(
                    format!("config.previews.{banned}"),
                    "is set by the recipe itself (use per_item, vertical)",
                ));
            }
        }
        let mut query =
            ClipQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(|e| match e {
                kino::Error::InvalidQuery { issues } => {
                    let i = &issues[0];
                    ManageError::invalid(format!("config.previews.{}", i.param), i.message.clone())
                }
                other => ManageError::invalid("config.previews", other.to_string()),
            })?;
        query.number_of_top_candidates = per_item;
        let t = obj.get("thumbnail").unwrap_or(&empty);
        if !t.is_object() {
            return Err(ManageError::invalid("config.thumbnail", "must be an object"));
        }
        let d = FrameRule::default();
        let frame = FrameRule {
            min_brightness: number(t, "min_brightness", d.min_brightness, 0.0, 1.0)?,
            max_brightness: number(t, "max_brightness", d.max_brightness, 0.0, 1.0)?,
            max_nudity: number(t, "max_nudity", d.max_nudity, 0.0, 1.0)?,
            max_blood_gore: number(t, "max_blood_gore", d.max_blood_gore, 0.0, 1.0)?,
            shot_margin: number(t, "shot_margin", d.shot_margin, 0.0, 60.0)?,
            main_character: match t.get("main_character") {
                None => d.main_character,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(ManageError::invalid("config.thumbnail.main_character", "must be true or false"));
                }
            },
        };
        if frame.min_brightness > frame.max_brightness {
            return Err(ManageError::invalid("config.thumbnail.min_brightness", "must not exceed max_brightness"));
        }
        Ok(Config { targets, per_item, vertical, data_only, query, frame })
    }
}

/// A recipe's config (docs/portal.md): exactly one of `smartlist_id` and `inventory_ids`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"inventory_ids": ["tt-demo-001"], "per_item": 1, "data_only": true})))]
pub struct RecipeConfig {
    /// A smartlist of the organisation: its members at run time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[0-9a-fA-F-]{36}$")]
    pub smartlist_id: Option<String>,
    /// Item ids (1 to 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_items = 1, max_items = 10000)]
    pub inventory_ids: Option<Vec<String>>,
    /// Moments per item, 1 to 10 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 10)]
    pub per_item: Option<u32>,
    /// Also make the 9:16 forms (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertical: Option<bool>,
    /// Choose moments and scores only, render no files (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_only: Option<bool>,
    /// Previews parameters (strings, numbers or booleans) except `trigger_generation`,
    /// `generate`, `aspect_ratio` and `number_of_top_candidates`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub previews: Option<BTreeMap<String, Value>>,
    /// The thumbnail frame rule's thresholds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<ThumbnailRule>,
}

/// The thumbnail frame rule's thresholds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ThumbnailRule {
    /// Lowest mean brightness (default 0.15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub min_brightness: Option<f64>,
    /// Highest mean brightness (default 0.85).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub max_brightness: Option<f64>,
    /// Highest nudity (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub max_nudity: Option<f64>,
    /// Highest blood/gore (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub max_blood_gore: Option<f64>,
    /// Seconds from every shot boundary (default 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.0, maximum = 60.0)]
    pub shot_margin: Option<f64>,
    /// Prefer frames with the main character (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_character: Option<bool>,
}
