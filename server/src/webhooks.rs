//! Portal webhook delivery (being built on the `webhooks` branch; this placeholder only logs).

use serde_json::Value;

use crate::state::AppState;
use crate::store::OrgId;

/// Queues deliveries of `event` (placeholder: logs it).
pub fn emit(_state: &AppState, org: OrgId, event: &str, data: Value) -> Result<usize, std::convert::Infallible> {
    tracing::info!(org = org.0, event, %data, "portal event");
    Ok(0)
}
