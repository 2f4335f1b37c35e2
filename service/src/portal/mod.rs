//! The portal's resources and what the web application does with them: smartlists (with the
//! membership engine and its refresh), recipes and the creative assets they produce, the events
//! they emit, and the JSON views the portal interface shows.
//!
//! The admin HTTP API and the `kino-server admin` subcommands both call these functions, so the
//! rules (validation, publishing, events) live in one place.

pub mod events;
pub mod filter;
pub use kino_store::portal::kinds;
pub mod pages;
pub mod recipes;
pub mod refresh;
pub mod smartlists;
pub mod views;

use std::sync::Arc;

use crate::changes::Effects;
use crate::jobs::render::Renderer;
use crate::signals::SignalsCache;
use crate::store::{Store, StoreError};

/// What the portal's operations use: the store, the items' signals, what a change sets off, the
/// query encoder of recipes' `search_query`, and the renderer of creative assets. Cheap to clone
/// (recipe runs take it onto their own thread).
#[derive(Debug, Clone)]
pub struct Portal {
    /// The database.
    pub store: Arc<Store>,
    /// Prepared signals.
    pub signals: Arc<SignalsCache>,
    /// What a change sets off (smartlist refreshes, webhook deliveries).
    pub effects: std::sync::Arc<Effects>,
    /// Encodes recipes' `search_query`.
    pub encoder: Arc<dyn kino::TextEncoder>,
    /// Renders creative assets.
    pub renderer: Renderer,
}

/// Largest page number and catalog id (2^53 - 1), as the interface states.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// Why a management operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    /// A field breaks a rule.
    #[error("{field}: {rule}")]
    Invalid {
        /// The field, as the caller named it (`filter.genres`, `config.smartlist_id`).
        field: String,
        /// The rule it breaks.
        rule: String,
    },
    /// No such resource in the organisation.
    #[error("{what} {id:?} not found")]
    NotFound {
        /// `smartlist`, `recipe`, `catalog`, ...
        what: &'static str,
        /// The id asked for.
        id: String,
    },
    /// The resource is busy (a recipe run in progress).
    #[error("{0}")]
    Conflict(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ManageError {
    /// A field error.
    pub fn invalid(field: impl Into<String>, rule: impl Into<String>) -> ManageError {
        ManageError::Invalid { field: field.into(), rule: rule.into() }
    }
}

/// A new random (version 4) UUID.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Whether `s` matches the interface's UUID pattern: versions 1 to 8 with variant 8, 9, a or b,
/// plus the all-zero (nil) and all-f (max) UUIDs. Hyphenated, case-insensitive.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
        return false;
    }
    let hex = b.iter().enumerate().filter(|(i, _)| ![8, 13, 18, 23].contains(i)).all(|(_, c)| c.is_ascii_hexdigit());
    if !hex {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    if lower == "00000000-0000-0000-0000-000000000000" || lower == "ffffffff-ffff-ffff-ffff-ffffffffffff" {
        return true;
    }
    matches!(b[14], b'1'..=b'8') && matches!(b[19].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b')
}

/// A plausible email address: one `@`, a non-empty local part without spaces, a domain with a dot.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else { return false };
    // The local part: RFC 5322's dot-atom (letters, digits and ! # $ % & ' * + / = ? ^ _ ` { | } ~ -,
    // dots between them); no quoted forms, no <, >, (, ), [, ], \, ", comma, ; or :.
    let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~-".contains(c);
    let local_ok = local.len() <= 64 && local.split('.').all(|part| !part.is_empty() && part.chars().all(atext));
    // The domain: at least two dot-separated labels of letters, digits and inner hyphens (an
    // internationalised name in its xn-- form), each 1 to 63 characters, the last not numeric.
    let labels: Vec<&str> = domain.split('.').collect();
    let label_ok = |l: &&str| {
        (1..=63).contains(&l.len())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let domain_ok = labels.len() >= 2
        && labels.iter().all(label_ok)
        && labels.last().is_some_and(|tld| tld.len() >= 2 && !tld.chars().all(|c| c.is_ascii_digit()));
    s.len() <= 254 && local_ok && domain_ok
}

/// A required, trimmed, bounded text field.
pub fn text(
    field: &str,
    v: Option<&serde_json::Value>,
    required: bool,
    max: usize,
) -> Result<Option<String>, ManageError> {
    match v {
        None | Some(serde_json::Value::Null) if required => Err(ManageError::invalid(field, "is required")),
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => {
            let s = s.trim();
            if required && s.is_empty() {
                Err(ManageError::invalid(field, "must not be empty"))
            } else if s.chars().count() > max {
                Err(ManageError::invalid(field, format!("must be at most {max} characters")))
            } else {
                Ok(Some(s.to_string()))
            }
        }
        Some(_) => Err(ManageError::invalid(field, "must be a string")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_pattern_of_the_interface() {
        assert!(is_uuid(&new_id()));
        assert!(is_uuid("00000000-0000-0000-0000-000000000000"));
        assert!(is_uuid("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"));
        assert!(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(is_uuid("123e4567-e89b-82d3-b456-426614174000"));
        assert!(!is_uuid("123e4567-e89b-92d3-a456-426614174000"), "version 9");
        assert!(!is_uuid("123e4567-e89b-02d3-a456-426614174000"), "version 0");
        assert!(!is_uuid("123e4567-e89b-12d3-c456-426614174000"), "variant c");
        assert!(!is_uuid("123e4567e89b12d3a456426614174000"));
        assert!(!is_uuid("123e4567-e89b-12d3-a456-42661417400g"));
        assert!(!is_uuid(""));
    }

    #[test]
    fn emails() {
        assert!(is_email("editor@example.com"));
        for good in ["first.last+tag@sub.example.co.uk", "o'neil@example.org", "x@xn--bcher-kva.example"] {
            assert!(is_email(good), "{good}");
        }
        for bad in [
            "",
            "a",
            "a@b",
            "@b.com",
            "a@.com",
            "a@b.",
            "a b@c.com",
            "a@b@c.com",
            "x@x.test<script>",
            "<script>@x.test",
            "a\"b@x.test",
            "a..b@x.test",
            ".a@x.test",
            "a@-x.test",
            "a@x_y.test",
            "a@x.123",
            "a@x.t",
            "a@x..test",
            "a,b@x.test",
            "a@x.test\u{0}",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }
}
