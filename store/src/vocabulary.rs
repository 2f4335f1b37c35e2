//! The service's vocabulary as types: the products of the tasks interface, the types of catalog
//! items and the statuses of results, and the macro that declares such an enumeration (also used
//! by the portal's `portal::kinds`). Each is parsed once where it comes in and written back as the interface's
//! text; every list of allowed values derives from the enumeration.

/// An enumeration of the interface, read from its text.
pub trait Vocabulary: Sized + Copy {
    /// The value of `text`, when it is one.
    fn from_text(text: &str) -> Option<Self>;
    /// The allowed texts, comma-separated (for error messages).
    fn allowed() -> String;
}

/// Declares an enumeration of the interface with its text form, its list of values, parsing
/// and the database's conversions. `$style` is serde's `rename_all` (matched as a token tree:
/// the OpenAPI derive does not read a `literal` fragment, which reaches it wrapped in a group).
macro_rules! vocabulary {
    ($style:tt, $(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        // The texts are the variants' names in `$style` (the derived schema reads only
        // `rename_all`); each use's tests check that they are `$text`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
        #[serde(rename_all = $style)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in the interface's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The interface's text.
            pub const fn as_str(self) -> &'static str {
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

        impl $crate::vocabulary::Vocabulary for $name {
            fn from_text(text: &str) -> Option<$name> {
                $name::parse(text)
            }

            fn allowed() -> String {
                $name::listed()
            }
        }

        impl $crate::db::ToValue for $name {
            fn to_value(&self) -> $crate::db::Value {
                $crate::db::Value::Text(self.as_str().to_string())
            }
        }

        impl $crate::db::FromValue for $name {
            fn from_value(v: &$crate::db::Value) -> Result<Self, String> {
                let text = <String as $crate::db::FromValue>::from_value(v)?;
                $name::parse(&text).ok_or_else(|| format!("{text:?} is not one of {}", $name::listed()))
            }
        }
    };
}
pub(crate) use vocabulary;

vocabulary! {
    "snake_case",
    /// A product of the tasks interface, in the interface's order.
    Product {
        /// Ad breaks.
        Adbreaks = "adbreaks",
        /// Ad breaks with their context.
        ContextualAdbreak = "contextual_adbreak",
        /// Emotion windows.
        Emotions = "emotions",
        /// The audio fingerprint.
        Fingerprint = "fingerprint",
        /// The fingerprint with a content profile.
        Fingerprintplus = "fingerprintplus",
        /// Clip search (previews are computed per request).
        Jitpreviews = "jitpreviews",
        /// Thumbnail search (chosen per request).
        Jitthumbnails = "jitthumbnails",
        /// Intro, recap and credits of an episode among its season.
        Markers = "markers",
        /// Nudity over time.
        Nudity = "nudity",
        /// Profanity.
        Profanity = "profanity",
        /// The item embedding.
        Semantic = "semantic",
        /// Similar titles (the item embedding).
        Similar = "similar",
        /// A summary of the dialogue.
        ContentSummary = "content_summary",
        /// The scene embeddings.
        SemanticScenes = "semantic_scenes",
        /// The 9:16 subject track.
        VerticalConversion = "vertical_conversion",
        /// Tags of the scenes.
        SceneTags = "scene_tags",
    }
}

vocabulary! {
    "snake_case",
    /// The type of a catalog item.
    ItemType {
        /// Non-episodic content such as a movie.
        Standalone = "standalone",
        /// A series.
        Series = "series",
        /// A season of a series.
        Season = "season",
        /// An episode of a season.
        Episode = "episode",
    }
}

impl ItemType {
    /// The interface's result `type` of an item of this type.
    pub fn result_type(self) -> &'static str {
        match self {
            ItemType::Standalone => "movie",
            ItemType::Series => "series",
            ItemType::Season => "season",
            ItemType::Episode => "episode",
        }
    }
}

vocabulary! {
    "lowercase",
    /// How a job ended: the status of its stored result.
    ResultStatus {
        /// Computed; the result holds the product's payload.
        Success = "success",
        /// Not computed; the result's error says why.
        Failed = "failed",
    }
}

/// The result type of an item: `movie` for a standalone item.
#[derive(Debug, Clone, Copy, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResultType {
    /// A standalone item.
    Movie,
    /// A series.
    Series,
    /// A season.
    Season,
    /// An episode.
    Episode,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{FromValue, ToValue};

    #[test]
    fn texts_round_trip_through_serde_parse_and_the_database() {
        for p in Product::ALL {
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
            assert_eq!(Product::parse(p.as_str()), Some(*p));
            assert_eq!(Product::from_value(&p.to_value()), Ok(*p));
        }
        for t in ItemType::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
        for s in ResultStatus::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(ResultStatus::from_value(&s.to_value()), Ok(*s));
        }
        assert_eq!(Product::ALL.len(), 16);
        assert_eq!(Product::parse("Markers"), None, "the interface's texts are exact");
    }
}
