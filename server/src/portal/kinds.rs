//! The portal's vocabulary as types: a smartlist's purposes, a recipe's type, a creative asset's
//! type. Parsed once where they come in (a request body, a query parameter, a stored row) and
//! written back as the interface's text; every list of allowed values is derived from these.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::db::{FromValue, ToValue, Value};

/// An enumeration of the interface, read from its text.
pub trait Vocabulary: Sized + Copy {
    /// The value of `text`, when it is one.
    fn from_text(text: &str) -> Option<Self>;
    /// The allowed texts, comma-separated (for error messages).
    fn allowed() -> String;
}

/// Declares an enumeration of the interface with its text form, its list of values, parsing
/// and the database's conversions.
macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        // The texts are the variants' names in kebab case (the derived schema reads only
        // `rename_all`); the test below checks that they are `$text`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
        #[serde(rename_all = "kebab-case")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in the interface's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The interface's text.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value of `text`, when it is one.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }

            /// The allowed texts, comma-separated (for error messages).
            pub fn listed() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Vocabulary for $name {
            fn from_text(text: &str) -> Option<$name> {
                $name::parse(text)
            }

            fn allowed() -> String {
                $name::listed()
            }
        }

        impl ToValue for $name {
            fn to_value(&self) -> Value {
                Value::Text(self.as_str().to_string())
            }
        }

        impl FromValue for $name {
            fn from_value(v: &Value) -> Result<Self, String> {
                let text = String::from_value(v)?;
                $name::parse(&text).ok_or_else(|| format!("{text:?} is not one of {}", $name::listed()))
            }
        }
    };
}

vocabulary! {
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
