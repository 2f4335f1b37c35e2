//! The portal's vocabulary as types: a smartlist's purposes, a recipe's type, a creative asset's
//! type. Parsed once where they come in (a request body, a query parameter, a stored row) and
//! written back as the interface's text; every list of allowed values is derived from these.

#[cfg(test)]
use crate::db::{FromValue, ToValue, Value};
use crate::vocabulary::vocabulary;

vocabulary! {
    "kebab-case",
    /// What a smartlist is for.
    Purpose {
        /// `editorial`
        Editorial = "editorial",
        /// `creative-lab`
        CreativeLab = "creative-lab",
        /// `review-filter`
        ReviewFilter = "review-filter",
    }
}

vocabulary! {
    "kebab-case",
    /// What a recipe makes.
    #[derive(Default)]
    RecipeType {
        /// Still frames.
        #[default]
        Thumbnails = "thumbnails",
        /// Clips.
        PreviewClips = "preview-clips",
    }
}

vocabulary! {
    "kebab-case",
    /// What a creative asset is.
    #[derive(Default)]
    CreativeAssetType {
        /// A still frame.
        #[default]
        Thumbnail = "thumbnail",
        /// A clip.
        Preview = "preview",
        /// A 9:16 still frame.
        ThumbnailVertical = "thumbnail-vertical",
        /// A 9:16 clip.
        PreviewVertical = "preview-vertical",
    }
}

impl RecipeType {
    /// The creative assets a recipe of this type makes: its own, and the 9:16 form with
    /// `vertical`.
    pub fn assets(self, vertical: bool) -> Vec<CreativeAssetType> {
        let (own, upright) = match self {
            RecipeType::Thumbnails => (CreativeAssetType::Thumbnail, CreativeAssetType::ThumbnailVertical),
            RecipeType::PreviewClips => (CreativeAssetType::Preview, CreativeAssetType::PreviewVertical),
        };
        std::iter::once(own).chain(vertical.then_some(upright)).collect()
    }
}

impl CreativeAssetType {
    /// A clip (with a video file), not a still frame.
    pub fn is_clip(self) -> bool {
        matches!(self, CreativeAssetType::Preview | CreativeAssetType::PreviewVertical)
    }

    /// The 9:16 form.
    pub fn is_vertical(self) -> bool {
        matches!(self, CreativeAssetType::ThumbnailVertical | CreativeAssetType::PreviewVertical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_round_trip_through_serde_parse_and_the_database() {
        for p in Purpose::ALL {
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
            assert_eq!(Purpose::parse(p.as_str()), Some(*p));
            assert_eq!(Purpose::from_value(&p.to_value()), Ok(*p));
        }
        for t in CreativeAssetType::ALL {
            assert_eq!(serde_json::from_value::<CreativeAssetType>(t.as_str().into()).unwrap(), *t);
        }
        for t in RecipeType::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
        assert_eq!(RecipeType::parse("preview-clips"), Some(RecipeType::PreviewClips));
        assert_eq!(RecipeType::parse("Thumbnails"), None, "the interface's texts are exact");
        let e = RecipeType::from_value(&Value::Text("gifs".into())).unwrap_err();
        assert!(e.contains("thumbnails, preview-clips"), "{e}");
        assert_eq!(
            RecipeType::PreviewClips.assets(true),
            [CreativeAssetType::Preview, CreativeAssetType::PreviewVertical]
        );
    }
}
