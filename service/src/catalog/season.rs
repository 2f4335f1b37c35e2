//! Which season an episode belongs to (a leaf module: catalog, products and changes read it).

use serde_json::Value;

/// The season of an episode (`episodic_info.season_id`), `None` for any other item.
pub fn season_id(item: &crate::store::ItemRow) -> Option<String> {
    if item.item_type != crate::vocabulary::ItemType::Episode {
        return None;
    }
    item.episodic("season_id").and_then(Value::as_str).map(String::from)
}
