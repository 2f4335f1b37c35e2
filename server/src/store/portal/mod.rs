//! Storage of the portal's resources: smartlists and their membership, recipes and their runs,
//! and the creative assets the runs make.

mod assets;
mod recipes;
mod smartlists;

pub use assets::{CreativeAssetRow, CreativeAssetStatus};
pub use recipes::{RecipeRow, RecipeStatus};
pub use smartlists::SmartlistRow;
