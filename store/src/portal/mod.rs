//! Storage of the portal's resources: smartlists and their membership, recipes and their runs,
//! and the creative assets the runs make; the portal's words ([`kinds`]).

mod assets;
pub mod kinds;
mod recipes;
mod smartlists;

pub use assets::{CreativeAssetRow, CreativeAssetStatus};
pub use recipes::{RecipeRow, RecipeStatus};
pub use smartlists::SmartlistRow;
