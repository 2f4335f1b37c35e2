//! The signals document (`kino.signals/1`): plain data, serde for JSON, bincode for the binary form.

use std::collections::BTreeMap;

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// The only format identifier this version reads and writes.
pub const FORMAT: &str = "kino.signals/1";

/// Length of a scene embedding (and of text query embeddings).
pub const SCENE_EMBEDDING_DIM: usize = 1024;

/// Length of an item embedding.
pub const ITEM_EMBEDDING_DIM: usize = 256;

/// A time interval `[start, end]` in seconds, written as a two-element JSON array.
pub type Interval = [f64; 2];

/// The OpenAPI schema of a list of [`Interval`]s.
#[cfg(feature = "openapi")]
fn interval_list() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    let interval = ArrayBuilder::new()
        .items(ObjectBuilder::new().schema_type(Type::Number))
        .min_items(Some(2))
        .max_items(Some(2))
        .description(Some("`[start, end]` in seconds"));
    ArrayBuilder::new().items(interval).into()
}

/// The per-item analysis data every result is computed from (see `signals.md`).
///
/// Build one from JSON with [`Signals::from_json`], check it with [`Signals::validate`], and turn
/// it into the query-ready [`Prepared`](crate::Prepared) form once per item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "A signals document (`kino.signals/1`, docs/signals.md): the per-item analysis data every \
            result is computed from. Every rule is validated; errors name the field and the rule.",
        examples(json!({"format": "kino.signals/1", "inventory_id": "tt1", "duration": 4.0, "fps": 24.0,
            "frame_width": 1920, "frame_height": 1080, "step": 1.0,
            "timelines": {"relevance": [0.1, 0.8, 0.9, 0.2], "nudity": [0.0, 0.0, 0.0, 0.0],
                "blood_gore": [0.0, 0.0, 0.0, 0.0], "profanity": [0.0, 0.0, 0.0, 0.0],
                "brightness": [0.5, 0.6, 0.6, 0.4], "clip_types": {"Exciting": [0.2, 0.9, 0.8, 0.1]}},
            "shots": [2.0], "speech": [[0.5, 1.5]], "characters": [{"rank": 0, "spans": [[0.0, 4.0]]}]}))
    )
)]
pub struct Signals {
    /// Always `kino.signals/1` (the constant `FORMAT`).
    #[cfg_attr(feature = "openapi", schema(examples("kino.signals/1")))]
    pub format: String,
    /// The customer's identifier of the item.
    pub inventory_id: String,
    /// Seconds, > 0 and at most 172,800 (48 hours).
    pub duration: f64,
    /// Frames per second, > 0 and at most 1000; frame `f` starts at `f / fps`.
    pub fps: f64,
    /// Source frame width in pixels, 1 to 16,384.
    pub frame_width: u32,
    /// Source frame height in pixels, 1 to 16,384.
    pub frame_height: u32,
    /// Seconds between timeline samples; sample `i` covers `[i*step, (i+1)*step)`.
    pub step: f64,
    /// Per-sample timelines.
    pub timelines: Timelines,
    /// Shot-boundary times, strictly increasing, inside `(0, duration)`.
    #[serde(default)]
    pub shots: Vec<f64>,
    /// Speech intervals, sorted and non-overlapping.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(schema_with = interval_list))]
    pub speech: Vec<Interval>,
    /// Characters with the spans in which they are on screen.
    #[serde(default)]
    pub characters: Vec<Character>,
    /// Keyword, mood and environment tags.
    #[serde(default)]
    pub tags: Vec<Tag>,
    /// Contiguous scene spans covering the video (empty when no scene analysis ran).
    #[serde(default)]
    pub scenes: Vec<Scene>,
    /// One 1024-float vector per scene, in the order of `scenes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_embeddings: Option<Vec<Vec<f32>>>,
    /// A 256-float vector describing the whole item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_embedding: Option<Vec<f32>>,
    /// Per-sample emotion probabilities and valence/arousal/dominance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotions: Option<Emotions>,
    /// Spoken profanity events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profanity: Option<Vec<ProfanityEvent>>,
    /// Horizontal subject position and black bars, for 9:16 conversion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertical: Option<Vertical>,
    /// Which analyser wrote the document and which channels it measured or left absent, so that a
    /// zero in an unmeasured timeline is never mistaken for a measurement. Older binary layouts
    /// are read by completing their end (see `binary.rs`): fields are only ever appended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    /// Text shown on screen: its density over time, the lines read, where the end credits start.
    /// A kino addition (binary layout 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<OnScreenText>,
    /// What is said: speech recognised in the speech intervals, with word times. A kino addition
    /// (binary layout 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Transcript>,
    /// Sub-band energy hashes of the soundtrack, for finding the same title in another encode
    /// and recurring stretches across episodes. A kino addition (binary layout 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_fingerprint: Option<AudioFingerprint>,
    /// One face descriptor per character, in `characters` order: the mean of its faces'
    /// descriptors, unit length, for recognising the same person in other titles (the episodes of
    /// a series). A kino addition (binary layout 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_descriptors: Option<Vec<Vec<f32>>>,
    /// What the picture shows, measured on sampled frames by an image classifier: labels per
    /// frame, the editorial shot type of each shot, visual features per scene and for the item,
    /// and technical cues (black frames, colour bars). A kino addition (binary layout 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visual: Option<Visual>,
    /// Small perceptual hashes of the picture, for finding the same pictures across episodes
    /// (intros, recaps) where the sound is silent or changes. A kino addition (binary layout 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picture_fingerprint: Option<PictureFingerprint>,
    /// People and objects on screen, measured by an object detector on sampled frames: boxes per
    /// frame, followed across each shot. A kino addition (binary layout 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects: Option<Objects>,
    /// Who speaks when: speaker turns, each turn's voice descriptor and each speaker's, and the
    /// character a speaker was seen as. A kino addition (binary layout 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speakers: Option<Speakers>,
    /// What each scene holds, channel by channel, as sentence vectors: what is seen, said,
    /// written on screen and heard, each embedded on its own, so that a text query can be scored
    /// against each channel at query time and the scores fused. A kino addition (binary layout 11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_channels: Option<SceneChannels>,
}

/// Per-scene channel vectors (see [`Signals::scene_channels`]). Each list holds one entry per
/// scene, in scene order: the unit-length vector of what that channel measured in the scene, or
/// `null` when it measured nothing there (no speech, no words on screen). Every vector of the
/// document has the same length (the sentence model's, 384 for all-MiniLM-L6-v2): the first
/// coordinates of the scene space, where a text query's vector lies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SceneChannels {
    /// What is seen: light, pace, the people and how they are framed, the picture's labels and
    /// the objects found.
    #[serde(default)]
    pub seen: Vec<Option<Vec<f32>>>,
    /// What is said: the scene's transcript.
    #[serde(default)]
    pub said: Vec<Option<Vec<f32>>>,
    /// What is written: the words read on screen, and whether the scene is in the titles or the
    /// credits.
    #[serde(default)]
    pub written: Vec<Option<Vec<f32>>>,
    /// What is heard: the sound events, the music's mood, loudness and whether someone speaks.
    #[serde(default)]
    pub heard: Vec<Option<Vec<f32>>>,
}

impl SceneChannels {
    /// The channels' names, in the order of [`SceneChannels::lists`].
    pub const NAMES: [&'static str; 4] = ["seen", "said", "written", "heard"];

    /// The four lists, in the order of [`SceneChannels::NAMES`].
    pub fn lists(&self) -> [&Vec<Option<Vec<f32>>>; 4] {
        [&self.seen, &self.said, &self.written, &self.heard]
    }
}

/// People and objects on screen (see [`Signals::objects`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Objects {
    /// Seconds between the sampled frames the detector saw, > 0.
    pub interval: f64,
    /// Every sampled frame, in time order, with what was found in it (possibly nothing).
    #[serde(default)]
    pub frames: Vec<ObjectFrame>,
    /// Boxes of one class followed across consecutive frames of one shot, sorted by start.
    #[serde(default)]
    pub tracks: Vec<ObjectTrack>,
}

/// The boxes found in one sampled frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ObjectFrame {
    /// Seconds into the video, in `[0, duration]`.
    pub time: f64,
    /// The boxes, most confident first.
    #[serde(default)]
    pub boxes: Vec<ObjectBox>,
}

/// One object found in a frame. The box is given in fractions of the frame (origin top left),
/// so it holds at any resolution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ObjectBox {
    /// The class's name, non-empty (COCO's: `person`, `car`, `dog`, ...).
    pub class: String,
    /// The detector's confidence in `[0, 1]`.
    pub confidence: f64,
    /// Left edge, fraction of the frame's width in `[0, 1]`.
    pub x: f64,
    /// Top edge, fraction of the frame's height in `[0, 1]`.
    pub y: f64,
    /// Width, fraction of the frame's width, > 0 with `x + w <= 1`.
    pub w: f64,
    /// Height, fraction of the frame's height, > 0 with `y + h <= 1`.
    pub h: f64,
    /// The index in `tracks` of the track the box belongs to, when it was followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track: Option<u32>,
}

/// One object followed across consecutive sampled frames of one shot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ObjectTrack {
    /// The class's name, non-empty.
    pub class: String,
    /// The time of the first frame it was found in.
    pub start: f64,
    /// The time of the last frame it was found in, >= `start`.
    pub end: f64,
    /// The frames it was found in, >= 1.
    pub frames: u32,
    /// Its boxes' mean confidence in `[0, 1]`.
    pub confidence: f64,
    /// Its largest box's area, a fraction of the frame in `[0, 1]`.
    pub largest: f64,
}

/// Who speaks when (see [`Signals::speakers`]). Speaker `i` is `voices[i]` and `characters[i]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Speakers {
    /// The turns, sorted by start.
    #[serde(default)]
    pub turns: Vec<SpeakerTurn>,
    /// One voice descriptor per speaker (the mean of its turns' descriptors, unit length, all of
    /// one length), for recognising the same voice in other titles (the episodes of a series).
    #[serde(default)]
    pub voices: Vec<Vec<f32>>,
    /// Per speaker, the index in `characters` of the character on screen while it spoke, when
    /// one face dominated; `null` otherwise. Empty, or as long as `voices`.
    #[serde(default)]
    pub characters: Vec<Option<u32>>,
}

/// One speaker's turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SpeakerTurn {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds, > `start`.
    pub end: f64,
    /// The speaker, an index in `voices`.
    pub speaker: u32,
    /// The turn's voice descriptor (unit length, the length of `voices`' ones), or empty when the
    /// turn was too short to describe on its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub embedding: Vec<f32>,
}

/// What the picture shows (see [`Signals::visual`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Visual {
    /// Seconds between the sampled frames, > 0.
    pub interval: f64,
    /// The labels of each sampled frame, in time order.
    #[serde(default)]
    pub frames: Vec<VisualFrame>,
    /// The editorial shot type of each shot (the spans between `shots`, so `shots.len() + 1` of
    /// them when any), in order.
    #[serde(default)]
    pub shot_types: Vec<ShotType>,
    /// One visual feature per scene (the mean of its frames' image features, unit length), in
    /// the order of `scenes`; what the scenes look like, for "scenes like this one".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_features: Option<Vec<Vec<f32>>>,
    /// The whole item's visual feature (the mean of every frame's, unit length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_feature: Option<Vec<f32>>,
    /// Technical cues: stretches of black frames and of colour bars, sorted by start.
    #[serde(default)]
    pub cues: Vec<VisualCue>,
    /// Tags of what is seen (keywords and environments), read with `tags` wherever tags are
    /// used, and reported with the source `picture`.
    #[serde(default)]
    pub tags: Vec<Tag>,
}

/// Where a tag came from, as results report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagSource {
    /// The document's `tags` (sound events, a sidecar, the customer's analysers).
    Tags,
    /// `visual.tags`: what the picture shows.
    Picture,
}

impl TagSource {
    /// `tags` or `picture`.
    pub fn as_str(self) -> &'static str {
        match self {
            TagSource::Tags => "tags",
            TagSource::Picture => "picture",
        }
    }
}

impl Signals {
    /// Every tag with its source: `tags`, then `visual.tags`.
    pub fn all_tags(&self) -> impl Iterator<Item = (&Tag, TagSource)> {
        self.tags
            .iter()
            .map(|t| (t, TagSource::Tags))
            .chain(self.visual.iter().flat_map(|v| v.tags.iter()).map(|t| (t, TagSource::Picture)))
    }
}

/// The labels of one sampled frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct VisualFrame {
    /// Seconds into the video.
    pub time: f64,
    /// The most probable labels, most probable first.
    #[serde(default)]
    pub labels: Vec<VisualLabel>,
    /// How sharp the frame is: the variance of the Laplacian of its luma (0 to 255), >= 0; a
    /// blurred or flat frame is near 0, a sharp detailed one in the hundreds or more.
    #[serde(default)]
    pub sharpness: f64,
}

/// One label of a frame: a class of the classifier, the group a catalog reader sees it in, and
/// its probability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct VisualLabel {
    /// The class's name, non-empty (e.g. `seashore`).
    pub name: String,
    /// Its group: `animal`, `vehicle`, `food`, `place`, `clothing` or `object`.
    pub group: String,
    /// Probability in `[0, 1]`.
    pub score: f64,
}

/// The editorial shot type of one shot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ShotType {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// `extreme_close_up`, `close_up`, `medium`, `wide`, `extreme_wide` or `no_people`.
    pub kind: String,
    /// The most people seen at once in the shot's frames, as faces or as person boxes (2: a
    /// two-shot; 3 or more: a group).
    pub people: u32,
    /// `indoor` or `outdoor` where the labels tell, else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<String>,
}

/// A technical cue over a time span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct VisualCue {
    /// `black`, `color_bars` or `scroll` (the picture moving steadily up: rolling credits).
    pub kind: String,
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
}

/// The audio fingerprint of a title: one 32-bit hash every `hop` seconds, hash `k` describing the
/// sound from `k * hop` (see `kino-media`'s `fingerprint` module for the definition; 0 where the
/// sound is silent). Compared by `kino::fingerprint`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AudioFingerprint {
    /// Seconds between hashes, in `[0.05, 10]` ([`crate::signals::MIN_HOP`]).
    pub hop: f64,
    /// The hashes, in time order; at most one per `hop` of the duration (plus one).
    pub hashes: Vec<u32>,
}

/// The picture fingerprint of a title: one 32-bit perceptual hash every `hop` seconds, hash `k`
/// describing the frame shown at `k * hop` (see `kino-media`'s `fingerprint` module for the
/// definition; 0 where the picture is blank: black, or one flat colour). The same shape as
/// [`AudioFingerprint`], compared the same way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PictureFingerprint {
    /// Seconds between hashes, in `[0.05, 10]` ([`crate::signals::MIN_HOP`]).
    pub hop: f64,
    /// The hashes, in time order; at most one per `hop` of the duration (plus one).
    pub hashes: Vec<u32>,
}

/// Speech recognised in a video, as segments of text with their words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Transcript {
    /// The spoken language, an ISO 639-1 code such as `en`; non-empty.
    pub language: String,
    /// Stretches of speech, sorted by start.
    #[serde(default)]
    pub segments: Vec<TranscriptSegment>,
}

/// A stretch of recognised speech.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct TranscriptSegment {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// What was said; non-empty.
    pub text: String,
    /// Its words with their times, sorted by start (empty when word times were not measured).
    #[serde(default)]
    pub words: Vec<TranscriptWord>,
}

/// A recognised word.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct TranscriptWord {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// The word as written (with its punctuation); non-empty.
    pub word: String,
    /// The recogniser's probability in `[0, 1]`.
    pub probability: f64,
}

/// Text shown on screen, measured on sampled frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct OnScreenText {
    /// Seconds between `density` samples.
    pub step: f64,
    /// Per sample, the fraction of the frame covered by detected text, in `[0, 1]`.
    pub density: Vec<f32>,
    /// The lines read, each over the span in which it was seen; sorted by start.
    #[serde(default)]
    pub lines: Vec<TextSpan>,
    /// Where the end credits start, when the end of the video carries them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credits_start: Option<f64>,
}

/// A line of on-screen text and when it was seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct TextSpan {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// The text as read; non-empty.
    pub text: String,
    /// Recognition confidence in `[0, 1]`.
    pub score: f64,
}

/// The per-sample timelines of a document; each has `ceil(duration / step)` values in `[0, 1]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Timelines {
    /// How well a moment would serve in a preview.
    pub relevance: Vec<f32>,
    /// Probability of nudity on screen.
    pub nudity: Vec<f32>,
    /// Probability of blood or gore on screen.
    pub blood_gore: Vec<f32>,
    /// Probability of spoken profanity.
    pub profanity: Vec<f32>,
    /// Mean luma, 0 black to 1 white.
    pub brightness: Vec<f32>,
    /// One timeline per clip type name of the interface; absent types score 0.
    #[serde(default)]
    pub clip_types: BTreeMap<String, Vec<f32>>,
}

/// A character and the spans in which it is on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Character {
    /// Importance rank, unique; 0 is the main character.
    pub rank: u32,
    /// Sorted, non-overlapping on-screen spans.
    #[cfg_attr(feature = "openapi", schema(schema_with = interval_list))]
    pub spans: Vec<Interval>,
}

/// The kind of a [`Tag`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", schema(description = "The kind of a tag."))]
pub enum TagKind {
    /// A keyword describing what is shown.
    Keyword,
    /// A mood.
    Mood,
    /// An environment (place, setting).
    Environment,
}

/// A descriptive tag over a time span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Tag {
    /// Keyword, mood or environment.
    pub kind: TagKind,
    /// Non-empty name.
    pub name: String,
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// Confidence in `[0, 1]`.
    pub score: f64,
}

/// A scene span.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
}

/// Emotion samples on their own time grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Emotions {
    /// Seconds between emotion samples.
    pub step: f64,
    /// Emotion names, unique.
    pub names: Vec<String>,
    /// One row of `names.len()` probabilities per sample.
    pub probs: Vec<Vec<f32>>,
    /// Valence per sample, in `[-1, 1]`.
    pub valence: Vec<f32>,
    /// Arousal per sample, in `[-1, 1]`.
    pub arousal: Vec<f32>,
    /// Dominance per sample, in `[-1, 1]`.
    pub dominance: Vec<f32>,
}

/// One spoken profanity event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ProfanityEvent {
    /// Start in seconds.
    pub start: f64,
    /// End in seconds.
    pub end: f64,
    /// Confidence in `[0, 1]`.
    pub score: f64,
    /// The word, when the analyser reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word: Option<String>,
}

/// Subject position and black bars, for vertical (9:16) conversion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Vertical {
    /// Seconds between `x_center` samples.
    pub step: f64,
    /// Horizontal centre of the subject per sample, as a fraction of the frame width.
    pub x_center: Vec<f32>,
    /// Rows of black bars at the top and bottom, in source pixels.
    pub blackbars: [u32; 2],
}

/// Channel names that [`Analysis::measured`] and [`Analysis::absent`] may hold: the document paths
/// of the measurable parts of a signals document.
pub const ANALYSIS_CHANNELS: &[&str] = &[
    "shots",
    "speech",
    "scenes",
    "timelines.relevance",
    "timelines.brightness",
    "timelines.nudity",
    "timelines.blood_gore",
    "timelines.profanity",
    "timelines.clip_types",
    "characters",
    "tags",
    "scene_embeddings",
    "item_embedding",
    "emotions",
    "profanity",
    "vertical",
    "text",
    "transcript",
    "audio_fingerprint",
    "character_descriptors",
    "visual",
    "picture_fingerprint",
    "objects",
    "speakers",
    "scene_channels",
];

/// Provenance of a document: who produced it, what was measured, what is absent (zero or empty
/// only because nothing measured it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    /// The analyser and its version, e.g. `kino-media 0.1.0`; non-empty.
    pub analyzer: String,
    /// Channels (names of `ANALYSIS_CHANNELS`: document paths such as `shots`, `timelines.nudity`)
    /// that hold measurements.
    #[serde(default)]
    pub measured: Vec<String>,
    /// Channels (names of `ANALYSIS_CHANNELS`) that hold no measurement: their timelines are
    /// zero and their lists empty or missing.
    #[serde(default)]
    pub absent: Vec<String>,
    /// For measured channels that a pretrained model produced: the channel and the model with
    /// its version, e.g. `"speech": "silero-vad 6.2.3"`. A measured channel not named here was
    /// measured by the analyser's own signal processing (or came from a sidecar).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, String>,
    /// For absent channels: why nothing measured them, e.g. `"timelines.clip_types": "model
    /// yamnet 0.2.1 is not in the models directory: run kino models fetch yamnet"`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reasons: BTreeMap<String, String>,
}
