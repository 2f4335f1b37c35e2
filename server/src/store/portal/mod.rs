//! Storage of the portal's resources: smartlists and their membership, recipes and their runs,
//! and the creative assets the runs make.

use serde_json::Value;

mod assets;
mod recipes;
mod smartlists;

pub use assets::{CreativeAssetRow, CreativeAssetStatus};
pub use recipes::{RecipeRow, RecipeStatus};
pub use smartlists::SmartlistRow;

/// A stored JSON column's value (`null` when the text is not JSON).
fn json(text: String) -> Value {
    serde_json::from_str(&text).unwrap_or(Value::Null)
}
