//! The store's small shared types and clocks (a leaf: every store module reads them).

/// An organisation's identity, resolved from a credential.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct OrgId(pub i64);

/// Whether a write creates a row or changes one that must still exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    Insert,
    Update,
}

/// Now in milliseconds since the epoch, as leases count.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A duration in milliseconds, as leases count (saturating).
pub fn millis(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Now, as stored: RFC 3339 UTC with milliseconds.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A stored JSON column's value (`null` when the text is not JSON).
pub(crate) fn json(text: String) -> serde_json::Value {
    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
}
