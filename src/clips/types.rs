//! The enumerations of the previews interface: clip types, character preferences, aspect ratios,
//! and previews version codes.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A clip type of the interface (`clip_type` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum ClipType {
    /// No type preference: rank by relevance.
    #[default]
    Any,
    /// `High-octane action`
    HighOctaneAction,
    /// `Exciting`
    Exciting,
    /// `Emotional`
    Emotional,
    /// `Dark & gritty`
    DarkAndGritty,
    /// `Gory & bloody`
    GoryAndBloody,
    /// `Epic`
    Epic,
    /// `Scary`
    Scary,
    /// `Romantic`
    Romantic,
    /// `Funny and comical`
    FunnyAndComical,
    /// `Heartfelt`
    Heartfelt,
    /// `Epic scenery`
    EpicScenery,
    /// `Creepy and scary`
    CreepyAndScary,
}

impl ClipType {
    /// Every clip type, in the interface's order (`ANY` first).
    pub const ALL: [ClipType; 13] = [
        ClipType::Any,
        ClipType::HighOctaneAction,
        ClipType::Exciting,
        ClipType::Emotional,
        ClipType::DarkAndGritty,
        ClipType::GoryAndBloody,
        ClipType::Epic,
        ClipType::Scary,
        ClipType::Romantic,
        ClipType::FunnyAndComical,
        ClipType::Heartfelt,
        ClipType::EpicScenery,
        ClipType::CreepyAndScary,
    ];

    /// The interface's name of this type.
    pub fn as_str(self) -> &'static str {
        match self {
            ClipType::Any => "ANY",
            ClipType::HighOctaneAction => "High-octane action",
            ClipType::Exciting => "Exciting",
            ClipType::Emotional => "Emotional",
            ClipType::DarkAndGritty => "Dark & gritty",
            ClipType::GoryAndBloody => "Gory & bloody",
            ClipType::Epic => "Epic",
            ClipType::Scary => "Scary",
            ClipType::Romantic => "Romantic",
            ClipType::FunnyAndComical => "Funny and comical",
            ClipType::Heartfelt => "Heartfelt",
            ClipType::EpicScenery => "Epic scenery",
            ClipType::CreepyAndScary => "Creepy and scary",
        }
    }

    /// The type with this interface name (exact, case-sensitive).
    pub fn parse(name: &str) -> Option<ClipType> {
        ClipType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

impl fmt::Display for ClipType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ClipType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ClipType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        ClipType::parse(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown clip type {name:?}")))
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for ClipType {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(ClipType::ALL.map(ClipType::as_str)))
            .description(Some("A clip type of the interface; `ANY` means no type preference."))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for ClipType {}

/// Which characters a clip must (or must not) show (`character_preference`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CharacterPreference {
    /// At least one character appears.
    #[default]
    Any,
    /// At least one of `character_list` appears.
    AnyOf,
    /// Every character of `character_list` appears.
    AllOf,
    /// No requirement (`None` in the interface).
    NoPreference,
    /// No character appears.
    Avoid,
}

impl CharacterPreference {
    /// Every preference, in the interface's order.
    pub const ALL: [CharacterPreference; 5] = [
        CharacterPreference::Any,
        CharacterPreference::AnyOf,
        CharacterPreference::AllOf,
        CharacterPreference::NoPreference,
        CharacterPreference::Avoid,
    ];

    /// The interface's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CharacterPreference::Any => "any",
            CharacterPreference::AnyOf => "any_of",
            CharacterPreference::AllOf => "all_of",
            CharacterPreference::NoPreference => "None",
            CharacterPreference::Avoid => "avoid",
        }
    }

    /// Parses an interface name.
    pub fn parse(name: &str) -> Option<CharacterPreference> {
        CharacterPreference::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// Whether this preference takes a `character_list`.
    pub fn uses_list(self) -> bool {
        matches!(self, CharacterPreference::AnyOf | CharacterPreference::AllOf)
    }
}

/// Output aspect ratio (`aspect_ratio`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AspectRatio {
    /// The source's own (`None` in the interface).
    #[default]
    Source,
    /// Vertical 9:16, with a crop window per clip.
    Vertical9x16,
}

impl AspectRatio {
    /// Every value, in the interface's order.
    pub const ALL: [AspectRatio; 2] = [AspectRatio::Source, AspectRatio::Vertical9x16];

    /// The interface's name.
    pub fn as_str(self) -> &'static str {
        match self {
            AspectRatio::Source => "None",
            AspectRatio::Vertical9x16 => "9:16",
        }
    }

    /// Parses an interface name.
    pub fn parse(name: &str) -> Option<AspectRatio> {
        AspectRatio::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// A previews version code: an integer with an optional `-vertical` suffix (`27`, `27-vertical`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PreviewsVersion {
    /// The version number.
    pub number: u32,
    /// Whether the `-vertical` suffix is present (required for `aspect_ratio=9:16`).
    pub vertical: bool,
}

impl PreviewsVersion {
    /// The newest previews version this build offers; the default when none is requested.
    pub const NEWEST: PreviewsVersion = PreviewsVersion { number: 27, vertical: false };
    /// First version with nudity and profanity bounds.
    pub const NUDITY_PROFANITY_BOUNDS: u32 = 8;
    /// First version with custom start/stop timestamps.
    pub const CUSTOM_RANGE: u32 = 19;
    /// First version with blood/gore bounds.
    pub const BLOOD_GORE_BOUNDS: u32 = 27;

    /// Parses `27` or `27-vertical`; `None` for anything else.
    pub fn parse(code: &str) -> Option<PreviewsVersion> {
        let (digits, vertical) = match code.strip_suffix("-vertical") {
            Some(d) => (d, true),
            None => (code, false),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let number = digits.parse().ok()?;
        Some(PreviewsVersion { number, vertical })
    }

    /// Whether this build offers the version (1 up to [`PreviewsVersion::NEWEST`]).
    pub fn is_offered(self) -> bool {
        (1..=PreviewsVersion::NEWEST.number).contains(&self.number)
    }
}

impl fmt::Display for PreviewsVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number)?;
        if self.vertical {
            f.write_str("-vertical")?;
        }
        Ok(())
    }
}
