//! The smartlist membership engine: a filter language over catalog items, the license
//! window, a stable order, and the difference between two memberships.
//!
//! A filter is a JSON object; every key is optional, values within a key are **any-of**, keys are
//! **all-of**:
//!
//! | key | value | an item matches when |
//! |---|---|---|
//! | `genres` | list of strings | one of its `metadata.genres` is listed (case-insensitive) |
//! | `keywords` | list of strings | one of its `metadata.keywords` or signals keyword tags is listed |
//! | `moods` | list of strings | one of its signals mood tags is listed |
//! | `cast` | list of strings | one of its `metadata.cast` is listed |
//! | `tag` | list of strings | one of its `tag` values is listed |
//! | `ratings` | list of strings | one of its ratings is listed, as `rating` or `scheme:rating` |
//! | `type` | list of item types | its `type` is listed |
//! | `release_year` | `{"gte": n, "lte": n}` (either bound optional) | its `release_year` lies within |
//! | `emotional_arc` | list of story shapes ([`ArcShape::as_str`]) | its emotional arc is nearest one listed |
//!
//! Only live, non-virtual items are members, and only while now lies in their `window_info`
//! (an absent bound is open). Members are ordered by title (case-insensitive), then id; `position`
//! counts from 1 in that order.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use kino::ArcShape;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

const LIST_KEYS: [&str; 7] = ["genres", "keywords", "moods", "cast", "tag", "ratings", "type"];
/// The key of the story-shape filter; its values are checked against [`ArcShape::ALL`].
const ARC_KEY: &str = "emotional_arc";

/// A validated filter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    lists: Vec<(&'static str, BTreeSet<String>)>,
    year: (Option<i64>, Option<i64>),
}

/// What the engine knows of an item.
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    /// Customer id.
    pub id: String,
    /// Title (for the order).
    pub title: String,
    /// Values by filter key (lower-cased).
    pub values: Vec<(&'static str, BTreeSet<String>)>,
    /// Release year.
    pub release_year: Option<i64>,
    /// License window.
    pub window: (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
    /// Deleted or virtual: never a member.
    pub excluded: bool,
}

fn strings(v: &Value) -> impl Iterator<Item = String> + '_ {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_lowercase)
}

impl Candidate {
    /// From a stored catalog item body and the names of its signals' keyword and mood tags.
    pub fn from_item(body: &Value, deleted: bool, keyword_tags: &[String], mood_tags: &[String]) -> Candidate {
        let meta = &body["metadata"];
        let mut keywords: BTreeSet<String> = strings(&meta["keywords"]).collect();
        keywords.extend(keyword_tags.iter().map(|k| k.to_lowercase()));
        let ratings: BTreeSet<String> = body["ratings"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|r| {
                let rating = r["rating"].as_str().unwrap_or("").to_lowercase();
                let scheme = r["scheme"].as_str().unwrap_or("").to_lowercase();
                [format!("{scheme}:{rating}"), rating]
            })
            .collect();
        let date = |k: &str| {
            body["window_info"][k]
                .as_str()
                .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
                .map(|d| d.with_timezone(&Utc))
        };
        Candidate {
            id: body["id"].as_str().unwrap_or("").to_string(),
            title: body["title"].as_str().unwrap_or("").to_string(),
            values: vec![
                ("genres", strings(&meta["genres"]).collect()),
                ("keywords", keywords),
                ("moods", mood_tags.iter().map(|m| m.to_lowercase()).collect()),
                ("cast", strings(&meta["cast"]).collect()),
                ("tag", strings(&body["tag"]).collect()),
                ("ratings", ratings),
                ("type", body["type"].as_str().map(|t| t.to_lowercase()).into_iter().collect()),
            ],
            release_year: body["release_year"].as_i64(),
            window: (date("start"), date("end")),
            excluded: deleted || body["virtual"].as_bool().unwrap_or(false),
        }
    }

    /// With the story shape of the item's emotional arc (none: no `emotional_arc` filter admits it).
    pub fn with_arc(mut self, shape: Option<ArcShape>) -> Candidate {
        self.values.push((ARC_KEY, shape.map(|s| s.as_str().to_string()).into_iter().collect()));
        self
    }
}

fn shape_names() -> String {
    ArcShape::ALL.map(ArcShape::as_str).join(", ")
}

impl Filter {
    /// Validates a filter; the error names the key and the rule.
    pub fn parse(v: &Value) -> Result<Filter, String> {
        let Some(obj) = v.as_object() else { return Err("filter must be a JSON object".into()) };
        let mut f = Filter::default();
        for (key, value) in obj {
            if key == "release_year" {
                let Some(range) = value.as_object() else {
                    return Err("filter.release_year must be an object like {\"gte\": 1990, \"lte\": 2010}".into());
                };
                for (bound, v) in range {
                    let n = v.as_i64().ok_or_else(|| format!("filter.release_year.{bound} must be an integer"))?;
                    match bound.as_str() {
                        "gte" => f.year.0 = Some(n),
                        "lte" => f.year.1 = Some(n),
                        other => return Err(format!("filter.release_year.{other} is not a bound: use gte and lte")),
                    }
                }
                continue;
            }
            if key == ARC_KEY {
                let list = value.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
                    format!("filter.{ARC_KEY} must be a non-empty list of story shapes: {}", shape_names())
                })?;
                let mut set = BTreeSet::new();
                for item in list {
                    let shape = item.as_str().and_then(ArcShape::parse).ok_or_else(|| {
                        format!("filter.{ARC_KEY} holds {item}, not a story shape: use {}", shape_names())
                    })?;
                    set.insert(shape.as_str().to_string());
                }
                f.lists.push((ARC_KEY, set));
                continue;
            }
            let Some(&name) = LIST_KEYS.iter().find(|k| **k == key) else {
                return Err(format!(
                    "filter.{key} is not a filter key: use {}, release_year, {ARC_KEY}",
                    LIST_KEYS.join(", ")
                ));
            };
            let list = value
                .as_array()
                .filter(|a| !a.is_empty())
                .ok_or_else(|| format!("filter.{key} must be a non-empty list of strings"))?;
            let mut set = BTreeSet::new();
            for item in list {
                match item.as_str() {
                    Some(s) if !s.trim().is_empty() => set.insert(s.trim().to_lowercase()),
                    _ => return Err(format!("filter.{key} must hold non-empty strings")),
                };
            }
            f.lists.push((name, set));
        }
        Ok(f)
    }

    /// Whether `c` is a member at `now`.
    pub fn admits(&self, c: &Candidate, now: DateTime<Utc>) -> bool {
        if c.excluded || c.window.0.is_some_and(|s| now < s) || c.window.1.is_some_and(|e| now > e) {
            return false;
        }
        let year_ok = match (self.year, c.release_year) {
            ((None, None), _) => true,
            ((lo, hi), Some(y)) => lo.is_none_or(|l| y >= l) && hi.is_none_or(|h| y <= h),
            (_, None) => false,
        };
        year_ok
            && self.lists.iter().all(|(key, wanted)| {
                c.values.iter().find(|(k, _)| k == key).is_some_and(|(_, have)| !have.is_disjoint(wanted))
            })
    }
}

/// The members at `now`, in the documented order.
pub fn members(filter: &Filter, candidates: &[Candidate], now: DateTime<Utc>) -> Vec<String> {
    let mut m: Vec<&Candidate> = candidates.iter().filter(|c| filter.admits(c, now)).collect();
    m.sort_by(|a, b| a.title.to_lowercase().cmp(&b.title.to_lowercase()).then_with(|| a.id.cmp(&b.id)));
    m.into_iter().map(|c| c.id.clone()).collect()
}

/// `(added, removed)` going from `old` to `new`.
pub fn diff(old: &[String], new: &[String]) -> (Vec<String>, Vec<String>) {
    let (o, n): (BTreeSet<&String>, BTreeSet<&String>) = (old.iter().collect(), new.iter().collect());
    (n.difference(&o).map(|s| s.to_string()).collect(), o.difference(&n).map(|s| s.to_string()).collect())
}

/// A smartlist's membership filter: every key optional; values within a key are any-of, keys
/// all-of; `{}` matches every item (docs/portal.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[schema(examples(json!({"genres": ["drama"], "release_year": {"gte": 2000, "lte": 2009}})))]
pub struct SmartlistFilter {
    /// One of the item's `metadata.genres` (case-insensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genres: Option<Vec<String>>,
    /// One of the item's `metadata.keywords` or its signals' keyword tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keywords: Option<Vec<String>>,
    /// One of the item's signals' mood tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moods: Option<Vec<String>>,
    /// One of the item's `metadata.cast`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast: Option<Vec<String>>,
    /// One of the item's `tag` values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<Vec<String>>,
    /// One of the item's ratings, as `rating` or `scheme:rating`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<Vec<String>>,
    /// The item's type (`standalone`, `series`, `season`, `episode`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Vec<String>>,
    /// The item's `release_year` lies within (either bound optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_year: Option<YearRange>,
    /// The story shape of the item's emotional arc (the nearest of the six; items without an arc
    /// never match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotional_arc: Option<Vec<ArcShape>>,
}

/// An inclusive range of years.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct YearRange {
    /// From this year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gte: Option<i64>,
    /// Up to this year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lte: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(id: &str, title: &str, extra: Value) -> Value {
        let mut v = json!({"id": id, "type": "standalone", "title": title});
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        v
    }

    fn now() -> DateTime<Utc> {
        "2026-06-01T00:00:00Z".parse().unwrap()
    }

    #[test]
    fn any_of_within_a_key_all_of_across_keys() {
        let items = [
            Candidate::from_item(
                &item("a", "Zeta", json!({"metadata": {"genres": ["Drama"]}, "release_year": 2001})),
                false,
                &[],
                &["tense".into()],
            ),
            Candidate::from_item(
                &item("b", "alpha", json!({"metadata": {"genres": ["comedy"]}, "release_year": 1999})),
                false,
                &[],
                &[],
            ),
            Candidate::from_item(
                &item("c", "Beta", json!({"metadata": {"genres": ["drama"]}, "release_year": 1980})),
                false,
                &[],
                &[],
            ),
        ];
        let f = Filter::parse(&json!({"genres": ["drama", "comedy"]})).unwrap();
        assert_eq!(members(&f, &items, now()), ["b", "c", "a"], "ordered by title, case-insensitive");
        let f = Filter::parse(&json!({"genres": ["drama"], "release_year": {"gte": 1990}})).unwrap();
        assert_eq!(members(&f, &items, now()), ["a"]);
        let f = Filter::parse(&json!({"moods": ["Tense"]})).unwrap();
        assert_eq!(members(&f, &items, now()), ["a"]);
        assert_eq!(members(&Filter::parse(&json!({})).unwrap(), &items, now()).len(), 3);
    }

    #[test]
    fn window_deleted_and_virtual_items() {
        let w = |s: &str, e: &str| json!({"window_info": {"start": s, "end": e}});
        let items = [
            Candidate::from_item(
                &item("open", "A", w("2026-01-01T00:00:00Z", "2026-12-31T00:00:00Z")),
                false,
                &[],
                &[],
            ),
            Candidate::from_item(
                &item("later", "B", w("2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z")),
                false,
                &[],
                &[],
            ),
            Candidate::from_item(
                &item("expired", "C", w("2025-01-01T00:00:00Z", "2026-05-31T00:00:00Z")),
                false,
                &[],
                &[],
            ),
            Candidate::from_item(&item("gone", "D", json!({})), true, &[], &[]),
            Candidate::from_item(&item("virt", "E", json!({"virtual": true})), false, &[], &[]),
        ];
        let f = Filter::default();
        assert_eq!(members(&f, &items, now()), ["open"]);
        let in_july: DateTime<Utc> = "2026-07-02T00:00:00Z".parse().unwrap();
        assert_eq!(members(&f, &items, in_july), ["open", "later"]);
        let (added, removed) =
            diff(&members(&f, &items, now()), &members(&f, &items, "2027-02-01T00:00:00Z".parse().unwrap()));
        assert_eq!((added, removed), (vec![], vec!["open".to_string()]));
    }

    #[test]
    fn ratings_and_bad_filters() {
        let items = [Candidate::from_item(
            &item("a", "A", json!({"ratings": [{"scheme": "MPAA", "rating": "PG-13"}]})),
            false,
            &[],
            &[],
        )];
        assert_eq!(members(&Filter::parse(&json!({"ratings": ["pg-13"]})).unwrap(), &items, now()), ["a"]);
        assert_eq!(members(&Filter::parse(&json!({"ratings": ["MPAA:PG-13"]})).unwrap(), &items, now()), ["a"]);
        for (bad, needle) in [
            (json!([]), "object"),
            (json!({"colour": ["red"]}), "filter.colour"),
            (json!({"genres": []}), "non-empty list"),
            (json!({"genres": [""]}), "non-empty strings"),
            (json!({"release_year": 1990}), "release_year"),
            (json!({"release_year": {"after": 1990}}), "gte and lte"),
            (json!({"emotional_arc": []}), "filter.emotional_arc must be a non-empty list of story shapes"),
            (
                json!({"emotional_arc": "tragedy"}),
                "rags_to_riches, tragedy, man_in_a_hole, icarus, cinderella, oedipus",
            ),
            (
                json!({"emotional_arc": ["man in a hole"]}),
                "filter.emotional_arc holds \"man in a hole\", not a story shape",
            ),
            (json!({"emotional_arc": [3]}), "filter.emotional_arc holds 3"),
        ] {
            let e = Filter::parse(&bad).unwrap_err();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn the_story_shape_of_the_emotional_arc() {
        let candidate = |id: &str, shape: Option<ArcShape>| {
            Candidate::from_item(&item(id, id, json!({})), false, &[], &[]).with_arc(shape)
        };
        let items = [
            candidate("hole", Some(ArcShape::ManInAHole)),
            candidate("icarus", Some(ArcShape::Icarus)),
            candidate("riches", Some(ArcShape::RagsToRiches)),
            candidate("none", None),
        ];
        let f = Filter::parse(&json!({"emotional_arc": ["man_in_a_hole", "rags_to_riches"]})).unwrap();
        assert_eq!(members(&f, &items, now()), ["hole", "riches"]);
        let f = Filter::parse(&json!({"emotional_arc": ["icarus"], "type": ["standalone"]})).unwrap();
        assert_eq!(members(&f, &items, now()), ["icarus"]);
        assert_eq!(members(&Filter::default(), &items, now()).len(), 4, "no arc filter: the arc does not matter");
        let schema: SmartlistFilter = serde_json::from_value(json!({"emotional_arc": ["oedipus"]})).unwrap();
        assert_eq!(schema.emotional_arc, Some(vec![ArcShape::Oedipus]));
    }
}
