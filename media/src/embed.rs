//! From the sentence model's 384-float space to the interface's spaces, and the texts that are
//! embedded.
//!
//! - [`SceneSpace`]: 1024 floats for scene embeddings and text queries. The map is the canonical
//!   injection (the 384 values, then 640 zeros): a linear map with orthonormal columns, so dot
//!   products and norms are exactly those of the model. Queries and scenes go through the same
//!   map, so `search_query` ranks scenes exactly as the model does. A scene with a picture also
//!   carries what it looks like in the 640 free dimensions ([`scene_embedding`]), which a text
//!   query does not see and a scene query does.
//! - [`item_embedding`]: 256 floats for item embeddings: what the title is about in 192 of them
//!   ([`item_projection`]) and, when its picture was seen, what it looks like in the other 64.
//!   384 dimensions cannot fit in 192
//!   without loss; the map is a fixed orthonormal projection (256 orthonormal rows drawn from a
//!   seeded Gaussian, the same on every machine), scaled and renormalised. A random orthonormal
//!   projection distorts every direction alike (Johnson–Lindenstrauss), which is the least one can
//!   promise without a corpus that says which directions matter; `docs/media.md` gives the measured
//!   agreement of similarities before and after.
//! - [`describe_scene`]: the sentence a scene is embedded from, built from what was measured in it.
//! - [`item_text`]: the text of an item's catalog metadata.

use std::sync::{Arc, OnceLock};

use kino::TextEncoder;
use kino::signals::{ITEM_EMBEDDING_DIM, SCENE_EMBEDDING_DIM};
use kino_models::{Arithmetic, SENTENCE_DIM, SentenceEncoder};

/// The sentence model in the 1024-float scene space (see the module docs). Its `version` names the
/// model and the map, e.g. `all-minilm-l6-v2 1.0.0 (lift-1024)`.
///
/// Single queries ([`TextEncoder::encode`], e.g. the service's `/text-embedding`) wait in one
/// queue served by one worker thread per model session. With int8 products (the default) there
/// is a session per core and a worker takes one query at a time, in arrival order, so under
/// concurrent load every core encodes and each answer goes out as soon as its text is done (a
/// text's vector never depends on the queries beside it). With float products one session takes
/// every query waiting at that moment (up to [`MAX_BATCH`]) into one padded call. A lone query
/// waits for nothing. The vectors of the last [`QUERY_CACHE`] distinct queries are kept, so a
/// repeated query is a lookup. `encode` blocks its thread until its vector is ready;
/// [`TextEncoder::encode_then`] returns at once and hands the vector over from the worker (what
/// the service's handlers use, with no thread parked per waiting query).
#[derive(Debug, Clone)]
pub struct SceneSpace {
    encoder: Arc<SentenceEncoder>,
    version: String,
    batcher: Arc<Batcher>,
}

/// Most queries one model call takes (float products).
pub const MAX_BATCH: usize = 32;

/// Where a query's vector goes: to the thread waiting for it, or on to an async caller.
type Reply = Box<dyn FnOnce(Result<Vec<f32>, kino_models::Error>) + Send>;

/// A query waiting for its batch, and where its answer goes.
struct Job {
    text: String,
    reply: Reply,
}

/// The sending side of the batching thread; the thread ends when this is dropped.
struct Batcher {
    queue: std::sync::Mutex<std::sync::mpsc::Sender<Job>>,
    recent: Arc<std::sync::Mutex<Recent>>,
}

/// Most query vectors kept for repeated queries (384 floats each: about 6 MB).
pub const QUERY_CACHE: usize = 4096;

/// The vectors of the last [`QUERY_CACHE`] distinct queries, oldest evicted first. Queries to a
/// catalog repeat ("car chase", a genre, an actor): a repeated one costs a lookup, not a model call.
#[derive(Default)]
struct Recent {
    vectors: std::collections::HashMap<String, Vec<f32>>,
    order: std::collections::VecDeque<String>,
}

impl Recent {
    fn get(&self, text: &str) -> Option<Vec<f32>> {
        self.vectors.get(text).cloned()
    }

    fn put(&mut self, text: &str, v: &[f32]) {
        if self.vectors.contains_key(text) {
            return;
        }
        if self.order.len() >= QUERY_CACHE
            && let Some(old) = self.order.pop_front()
        {
            self.vectors.remove(&old);
        }
        self.order.push_back(text.to_string());
        self.vectors.insert(text.to_string(), v.to_vec());
    }
}

impl std::fmt::Debug for Batcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Batcher")
    }
}

impl Batcher {
    fn start(encoder: Arc<SentenceEncoder>) -> Batcher {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let rx = Arc::new(std::sync::Mutex::new(rx));
        let recent: Arc<std::sync::Mutex<Recent>> = Arc::default();
        // Int8 products encode one text per call (see `SentenceEncoder::encode_batch`): a worker per
        // session takes one query at a time, in arrival order, and answers it at once. Float
        // products batch every query waiting when the call starts.
        let most = match encoder.arithmetic() {
            Arithmetic::Int8 => 1,
            Arithmetic::Float => MAX_BATCH,
        };
        for _ in 0..encoder.sessions() {
            let (rx, encoder, recent) = (rx.clone(), encoder.clone(), recent.clone());
            std::thread::Builder::new()
                .name("kino-text-batcher".into())
                .spawn(move || {
                    loop {
                        let jobs = {
                            let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
                            let Ok(first) = rx.recv() else { break };
                            let mut jobs = vec![first];
                            while jobs.len() < most {
                                match rx.try_recv() {
                                    Ok(job) => jobs.push(job),
                                    Err(_) => break,
                                }
                            }
                            jobs
                        };
                        let texts: Vec<&str> = jobs.iter().map(|j| j.text.as_str()).collect();
                        match encoder.encode_batch(&texts) {
                            Ok(vectors) => {
                                for (job, v) in jobs.into_iter().zip(vectors) {
                                    recent.lock().unwrap_or_else(|e| e.into_inner()).put(&job.text, &v);
                                    answer(job.reply, Ok(v));
                                }
                            }
                            Err(e) => {
                                let reason = e.to_string();
                                for job in jobs {
                                    answer(job.reply, Err(inference_error(&reason)));
                                }
                            }
                        }
                    }
                })
                .expect("a thread for the text encoder");
        }
        Batcher { queue: std::sync::Mutex::new(tx), recent }
    }

    /// Hands `text`'s vector to `reply`: at once when it is a recent query, else from a worker
    /// when its turn comes.
    fn submit(&self, text: &str, reply: Reply) {
        // No lock is held while `reply` runs (it may encode again).
        let cached = self.recent.lock().unwrap_or_else(|e| e.into_inner()).get(text);
        if let Some(v) = cached {
            return reply(Ok(v));
        }
        let job = Job { text: text.to_string(), reply };
        let sent = self.queue.lock().unwrap_or_else(|e| e.into_inner()).send(job);
        if let Err(unsent) = sent {
            (unsent.0.reply)(Err(inference_error("the text encoder's thread has stopped")));
        }
    }

    /// `text`'s vector, waiting on this thread for it.
    fn encode(&self, text: &str) -> Result<Vec<f32>, kino_models::Error> {
        let (reply, answer) = std::sync::mpsc::sync_channel(1);
        self.submit(
            text,
            Box::new(move |v| {
                let _ = reply.send(v);
            }),
        );
        answer.recv().map_err(|_| inference_error("the text encoder's thread has stopped"))?
    }
}

/// Calls `reply` on a worker; a callback that panics loses its own answer, not the worker.
fn answer(reply: Reply, v: Result<Vec<f32>, kino_models::Error>) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || reply(v)));
}

fn inference_error(reason: &str) -> kino_models::Error {
    kino_models::Error::Inference { model: kino_models::manifest::MINILM.id.to_string(), reason: reason.to_string() }
}

impl SceneSpace {
    /// Wraps a loaded sentence encoder (and starts the thread that batches single queries).
    pub fn new(encoder: Arc<SentenceEncoder>) -> SceneSpace {
        let version = format!("{} (lift-{SCENE_EMBEDDING_DIM})", encoder.version());
        let batcher = Arc::new(Batcher::start(encoder.clone()));
        SceneSpace { encoder, version, batcher }
    }

    /// Encodes several texts in one model call each batch of 32.
    pub fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, kino_models::Error> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(32) {
            out.extend(self.encoder.encode_batch(batch)?.iter().map(|v| lift(v)));
        }
        Ok(out)
    }
}

impl TextEncoder for SceneSpace {
    fn dim(&self) -> usize {
        SCENE_EMBEDDING_DIM
    }

    fn encode(&self, text: &str) -> kino::Result<Vec<f32>> {
        if !text.chars().any(char::is_alphanumeric) {
            return Err(kino::Error::EmptyText);
        }
        self.batcher
            .encode(text)
            .map(|v| lift(&v))
            .map_err(|e| kino::Error::TextEncoder { encoder: self.version.clone(), reason: e.to_string() })
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn encode_then(&self, text: &str, done: Box<dyn FnOnce(kino::Result<Vec<f32>>) + Send>) {
        if !text.chars().any(char::is_alphanumeric) {
            return done(Err(kino::Error::EmptyText));
        }
        let encoder = self.version.clone();
        self.batcher.submit(
            text,
            Box::new(move |v| {
                done(v.map(|v| lift(&v)).map_err(|e| kino::Error::TextEncoder { encoder, reason: e.to_string() }))
            }),
        );
    }
}

/// The 1024-float vector of a 384-float one: the same values followed by zeros.
pub fn lift(v: &[f32]) -> Vec<f32> {
    let mut out = vec![0f32; SCENE_EMBEDDING_DIM.max(v.len())];
    out[..v.len()].copy_from_slice(v);
    out
}

/// Seed of the item projection; changing it changes every item embedding (a new `version_id`).
const ITEM_PROJECTION_SEED: u64 = 0x6b69_6e6f_6974_656d; // "kinoitem"

/// The name of the item map, reported in versions: `orthoproj-192+visual-64-v2`.
pub const ITEM_PROJECTION: &str = "orthoproj-192+visual-64-v2";

/// The dimensions of an item embedding that say what the title is about (its scenes' sentence
/// vectors and its metadata); the other [`ITEM_VISUAL_DIM`] say what it looks like.
pub const ITEM_TEXT_DIM: usize = 192;

/// The dimensions of an item embedding that hold the title's mean image feature (zero when no
/// picture was seen).
pub const ITEM_VISUAL_DIM: usize = ITEM_EMBEDDING_DIM - ITEM_TEXT_DIM;

/// The 192-float unit vector of a 384-float one (see the module docs), in the first
/// [`ITEM_TEXT_DIM`] of 256 floats; zero stays zero.
pub fn item_projection(v: &[f32]) -> Vec<f32> {
    let mut out = project(&projection_rows()[..ITEM_TEXT_DIM * SENTENCE_DIM], SENTENCE_DIM, v);
    out.resize(ITEM_EMBEDDING_DIM, 0.0);
    out
}

/// The 256-float item embedding of a title's sentence-space vector (384 floats) and its mean image
/// feature (1280 floats, unit length), when its picture was seen: [`item_projection`] in the first
/// 192 dimensions and a fixed seeded Gaussian projection of the feature (64 x 1280) in the other
/// 64, weighted by [`VISUAL_SHARE`] as scenes are. The two parts lie in separate dimensions, so the
/// dot product of two titles with pictures is exactly `(1 - share) * about + share * looks`, and a
/// title without a picture meets one with a picture on what they are about alone (scaled by
/// `sqrt(1 - share)`). Without a feature, the projection alone.
pub fn item_embedding(v: &[f32], feature: Option<&[f32]>) -> Vec<f32> {
    let mut out = item_projection(v);
    let Some(feature) = feature.filter(|f| f.len() == VISUAL_FEATURE_DIM) else {
        return out;
    };
    let projected = project(item_visual_rows(), VISUAL_FEATURE_DIM, feature);
    if projected.iter().all(|x| *x == 0.0) {
        return out;
    }
    let (about, looks) = ((1.0 - VISUAL_SHARE).sqrt(), VISUAL_SHARE.sqrt());
    out[..ITEM_TEXT_DIM].iter_mut().for_each(|x| *x *= about);
    out[ITEM_TEXT_DIM..].iter_mut().zip(&projected).for_each(|(o, p)| *o = looks * p);
    normalise(&mut out);
    out
}

/// Seed of the item embedding's visual projection.
const ITEM_VISUAL_SEED: u64 = 0x6b69_6e6f_7469_746c; // "kinotitl"

fn item_visual_rows() -> &'static [f32] {
    static ROWS: OnceLock<Vec<f32>> = OnceLock::new();
    ROWS.get_or_init(|| gaussian_rows(ITEM_VISUAL_SEED, ITEM_VISUAL_DIM * VISUAL_FEATURE_DIM))
}

/// The unit vector of `rows` (row-major, `dim` columns) times `v`; zero stays zero.
fn project(rows: &[f32], dim: usize, v: &[f32]) -> Vec<f32> {
    let mut out: Vec<f32> = rows
        .chunks_exact(dim)
        .map(|row| row.iter().zip(v).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum::<f64>() as f32)
        .collect();
    normalise(&mut out);
    out
}

/// `n` standard normal numbers from `seed` (the same on every machine).
fn gaussian_rows(seed: u64, n: usize) -> Vec<f32> {
    let mut gaussian = gaussian_source(seed);
    (0..n).map(|_| gaussian() as f32).collect()
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm > 0.0 {
        let scale = (1.0 / norm) as f32;
        v.iter_mut().for_each(|x| *x *= scale);
    }
}

/// Seed of the visual projection; changing it changes every scene embedding's visual part.
const VISUAL_PROJECTION_SEED: u64 = 0x6b69_6e6f_7669_7375; // "kinovisu"

/// The share of a scene embedding's squared length that is what the scene looks like (the image
/// feature, in the 640 dimensions the sentence model leaves free); the rest is the sentence-space
/// vector (its description and what is seen in words). A text query has nothing in the free
/// dimensions, so it ranks scenes with a picture exactly as the sentence model does (every score
/// scaled by the same `sqrt(1 - VISUAL_SHARE)`); a scene as the query ("scenes like this one")
/// also meets scenes that look alike.
pub const VISUAL_SHARE: f32 = 0.2;

/// The 1024-float scene embedding of a scene's sentence-space vector (384 floats, unit length)
/// and its image feature (1280 floats, unit length), when it has one: the sentence part in the
/// first 384 dimensions, a fixed seeded Gaussian projection of the feature (640 x 1280, the same
/// on every machine) in the other 640, weighted by [`VISUAL_SHARE`]. Without a feature, the lift.
pub fn scene_embedding(sentence: &[f32], feature: Option<&[f32]>) -> Vec<f32> {
    let free = SCENE_EMBEDDING_DIM - SENTENCE_DIM;
    let mut out = lift(sentence);
    let Some(feature) = feature.filter(|f| f.len() == VISUAL_FEATURE_DIM && sentence.len() == SENTENCE_DIM) else {
        return out;
    };
    let projected = project(visual_rows(), VISUAL_FEATURE_DIM, feature);
    let (text, seen) = ((1.0 - VISUAL_SHARE).sqrt(), VISUAL_SHARE.sqrt());
    out[..SENTENCE_DIM].iter_mut().for_each(|x| *x *= text);
    out[SENTENCE_DIM..SENTENCE_DIM + free].iter_mut().zip(&projected).for_each(|(o, p)| *o = seen * p);
    normalise(&mut out);
    out
}

/// The 1024-float query for the scenes that look like a picture whose image feature is `feature`
/// (1280 floats, any positive length): the feature through the projection of
/// [`scene_embedding`], unit length, in the 640 free dimensions; zero in the sentence model's
/// 384, so only what scenes look like ranks them (a score is `sqrt(VISUAL_SHARE)` times the
/// cosine of the projected features). `None` for a feature of another length or zero length.
pub fn picture_query(feature: &[f32]) -> Option<Vec<f32>> {
    if feature.len() != VISUAL_FEATURE_DIM
        || !feature.iter().all(|x| x.is_finite())
        || feature.iter().all(|x| *x == 0.0)
    {
        return None;
    }
    let mut out = vec![0f32; SCENE_EMBEDDING_DIM];
    out[SENTENCE_DIM..].copy_from_slice(&project(visual_rows(), VISUAL_FEATURE_DIM, feature));
    Some(out)
}

/// The image feature's length ([`kino_models::FEATURE_LEN`]).
const VISUAL_FEATURE_DIM: usize = kino_models::FEATURE_LEN;

fn visual_rows() -> &'static [f32] {
    static ROWS: OnceLock<Vec<f32>> = OnceLock::new();
    ROWS.get_or_init(|| {
        gaussian_rows(VISUAL_PROJECTION_SEED, (SCENE_EMBEDDING_DIM - SENTENCE_DIM) * VISUAL_FEATURE_DIM)
    })
}

/// Standard normal numbers from a seed: SplitMix64 and Box–Muller.
fn gaussian_source(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    move || {
        let (u, v) = (next().max(f64::MIN_POSITIVE), next());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// The 256 × 384 projection, rows orthonormal, computed once per process: a Gaussian matrix from
/// SplitMix64 (Box–Muller), orthonormalised row by row with modified Gram–Schmidt.
fn projection_rows() -> &'static [f32] {
    static ROWS: OnceLock<Vec<f32>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut gaussian = gaussian_source(ITEM_PROJECTION_SEED);
        let mut rows: Vec<Vec<f64>> = Vec::with_capacity(ITEM_EMBEDDING_DIM);
        while rows.len() < ITEM_EMBEDDING_DIM {
            let mut row: Vec<f64> = (0..SENTENCE_DIM).map(|_| gaussian()).collect();
            for done in &rows {
                let dot: f64 = row.iter().zip(done).map(|(a, b)| a * b).sum();
                row.iter_mut().zip(done).for_each(|(a, b)| *a -= dot * b);
            }
            let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 1e-6 {
                row.iter_mut().for_each(|x| *x /= norm);
                rows.push(row);
            }
        }
        rows.into_iter().flatten().map(|x| x as f32).collect()
    })
}

/// What was measured in one scene, the material of its description.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneFacts {
    /// Mean brightness in `[0, 1]`.
    pub brightness: f64,
    /// Cuts per minute inside the scene.
    pub cuts_per_minute: f64,
    /// Fraction of the scene with speech, `[0, 1]`.
    pub speech: f64,
    /// Mean loudness, dBFS (-100 for silence or no audio).
    pub loudness_db: f64,
    /// Whether the item has an audio stream at all.
    pub has_audio: bool,
    /// The strongest sound events heard in it, with scores, strongest first.
    pub sounds: Vec<(String, f32)>,
    /// The mood of its music, when a music-mood class stands out.
    pub mood: Option<String>,
    /// Text read on screen in it (a few distinct lines).
    pub text: Vec<String>,
    /// What is said in it (transcript segments, at most [`SAID_WORDS`] words in all).
    pub said: Vec<String>,
    /// What is seen in it: the image classifier's confident labels and the objects found.
    pub seen: Vec<String>,
    /// The most people seen at once in it (faces or person boxes), when the picture was read.
    pub people: Option<u32>,
    /// The shot type covering most of it (`close_up`, `medium`, `wide`, ...), when measured.
    pub shot: Option<String>,
    /// How many different voices speak in it, when the speakers were told apart.
    pub voices: Option<u32>,
    /// The part of the title it belongs to, when known.
    pub part: Option<Part>,
}

/// A part of a title a scene can belong to, named at the start of its description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The opening titles: words on screen early in the title, with little dialogue.
    OpeningTitles,
    /// Inside the end credits.
    EndCredits,
    /// A scene after the end credits.
    AfterCredits,
    /// A scene between two parts of the end credits.
    MidCredits,
}

/// The most words of dialogue a scene description quotes, so that the description stays inside
/// the sentence model's 256 tokens.
pub const SAID_WORDS: usize = 60;

/// The sentence a scene is embedded from: light, pace, dialogue, loudness, sounds and mood, in
/// plain words so that a query such as "a loud dark fight" or "quiet conversation" lands near it.
/// Only what is there is said: an absent channel is left out rather than negated.
pub fn describe_scene(f: &SceneFacts) -> String {
    let mut sentence = match f.part {
        Some(Part::OpeningTitles) => "The opening titles: ".to_string(),
        Some(Part::EndCredits) => "The end credits: ".to_string(),
        Some(Part::AfterCredits) => "A scene after the end credits: ".to_string(),
        Some(Part::MidCredits) => "A scene during the end credits: ".to_string(),
        None => String::new(),
    };
    sentence.push_str(&look(f));
    if !f.has_audio {
        sentence.push_str(", silent (no soundtrack)");
    } else {
        // Speech is named in the words a query about it uses ("someone speaking"), and its absence
        // is not named at all: the sentence model does not read negation, so "with no dialogue"
        // lands nearly as close to "a conversation" as "with some dialogue" does.
        if let Some(speech) = speech_phrase(f.speech) {
            sentence.push_str(&format!(", {speech}"));
        }
        if let Some(loudness) = loudness_phrase(f.loudness_db) {
            sentence.push_str(&format!(", {loudness}"));
        }
    }
    sentence.push('.');
    if let Some(people) = people_phrase(f.people, f.shot.as_deref()) {
        sentence.push_str(&format!(" {people}."));
    }
    match f.voices {
        Some(2) => sentence.push_str(" Two people talk, a conversation."),
        Some(n) if n >= 3 => sentence.push_str(" Several people talk, a group conversation."),
        _ => {}
    }
    if !f.sounds.is_empty() {
        let names: Vec<&str> = f.sounds.iter().map(|(n, _)| n.as_str()).collect();
        sentence.push_str(&format!(" Sounds: {}.", names.join(", ")));
    }
    if !f.seen.is_empty() {
        sentence.push_str(&format!(" Seen: {}.", f.seen.join(", ")));
    }
    if let Some(mood) = &f.mood {
        sentence.push_str(&format!(" The music is {mood}."));
    }
    // Lines without a word (a clock, a timecode, a score) say nothing a query can ask for.
    let worded: Vec<&String> = f.text.iter().filter(|t| has_word(t)).collect();
    if !worded.is_empty() {
        let quoted: Vec<String> = worded.iter().map(|t| format!("\"{t}\"")).collect();
        sentence.push_str(&format!(" On screen: {}.", quoted.join(", ")));
    }
    if !f.said.is_empty() {
        sentence.push_str(&format!(" Someone says: \"{}\"", f.said.join(" ")));
    }
    capitalise(&sentence)
}

/// Light and pace in words: "a very dark scene, in near darkness, fast-paced, with rapid cuts".
/// The darkest scenes are also named by the word a query about night uses.
fn look(f: &SceneFacts) -> String {
    let light = match f.brightness {
        b if b < 0.15 => "a very dark",
        b if b < 0.3 => "a dark",
        b if b < 0.6 => "a",
        b if b < 0.8 => "a bright",
        _ => "a very bright",
    };
    let pace = match f.cuts_per_minute {
        c if c >= 30.0 => "fast-paced, with rapid cuts",
        c if c >= 12.0 => "briskly cut",
        c if c >= 3.0 => "steadily paced",
        _ => "slow, with long takes",
    };
    let dusk = if f.brightness < 0.15 { ", in near darkness" } else { "" };
    format!("{light} scene{dusk}, {pace}")
}

/// The share of a scene with speech in the words a query about it uses; nothing when there is
/// little (the sentence model does not read negation).
fn speech_phrase(speech: f64) -> Option<&'static str> {
    match speech {
        s if s >= 0.5 => Some("full of dialogue, someone speaking"),
        s if s >= 0.15 => Some("with some dialogue, someone speaking"),
        _ => None,
    }
}

/// A scene's mean loudness (dBFS) in words, when it stands out.
fn loudness_phrase(db: f64) -> Option<&'static str> {
    match db {
        l if l <= -60.0 => Some("nearly silent"),
        l if l <= -35.0 => Some("quiet"),
        l if l >= -18.0 => Some("loud"),
        _ => None,
    }
}

/// `text` with its first letter in upper case.
fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Who is on screen in `[start, end)` of `doc`, how it is framed and how many voices speak there,
/// from what was measured (each `None` when its channel was not).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Framing {
    /// The most people seen at once: the shot types' counts (faces or person boxes) and the
    /// person boxes of one frame.
    pub people: Option<u32>,
    /// The shot type covering most of the span.
    pub shot: Option<String>,
    /// The speakers with at least half a second of speech in the span.
    pub voices: Option<u32>,
}

/// [`Framing`] of the span `[start, end)` of `doc`.
pub fn scene_framing(doc: &kino::Signals, start: f64, end: f64) -> Framing {
    let overlap = |a: f64, b: f64| (b.min(end) - a.max(start)).max(0.0);
    let shots = doc.visual.as_ref().map(|v| &v.shot_types).filter(|t| !t.is_empty());
    let mut people =
        shots.map(|t| t.iter().filter(|s| overlap(s.start, s.end) > 0.0).map(|s| s.people).max().unwrap_or(0));
    if let Some(objects) = &doc.objects {
        let boxed = objects
            .frames
            .iter()
            .filter(|f| f.time >= start && f.time < end)
            .map(|f| f.boxes.iter().filter(|b| b.class == "person").count() as u32)
            .max()
            .unwrap_or(0);
        people = Some(people.unwrap_or(0).max(boxed));
    }
    let shot = shots.and_then(|t| {
        let mut time: Vec<(&str, f64)> = Vec::new();
        for s in t.iter().filter(|s| overlap(s.start, s.end) > 0.0) {
            match time.iter_mut().find(|(k, _)| *k == s.kind) {
                Some((_, d)) => *d += overlap(s.start, s.end),
                None => time.push((s.kind.as_str(), overlap(s.start, s.end))),
            }
        }
        time.into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(k, _)| k.to_string())
    });
    let voices = doc.speakers.as_ref().map(|s| {
        let mut spoken: Vec<(u32, f64)> = Vec::new();
        for t in &s.turns {
            match spoken.iter_mut().find(|(k, _)| *k == t.speaker) {
                Some((_, d)) => *d += overlap(t.start, t.end),
                None => spoken.push((t.speaker, overlap(t.start, t.end))),
            }
        }
        spoken.iter().filter(|(_, d)| *d >= 0.5).count() as u32
    });
    Framing { people, shot, voices }
}

/// Who is on screen and how they are framed, in the words a query uses ("a close-up of a
/// face", "two people", "a crowd", "a wide shot of a landscape"); `None` when neither was measured
/// or nothing is worth saying.
fn people_phrase(people: Option<u32>, shot: Option<&str>) -> Option<String> {
    let framing = match shot {
        Some("extreme_close_up") => Some("an extreme close-up"),
        Some("close_up") => Some("a close-up"),
        Some("medium") => Some("a medium shot"),
        Some("wide") => Some("a wide shot"),
        Some("extreme_wide") => Some("an extreme wide shot, a vast view"),
        _ => None,
    };
    let who = match people {
        Some(0) => Some("no people"),
        Some(1) => Some("one person"),
        Some(2) => Some("two people"),
        Some(3..=5) => Some("a small group of people"),
        Some(_) => Some("a crowd of people"),
        None => None,
    };
    match (framing, who) {
        (Some(framing), Some("no people")) => Some(format!("{framing}, no people in view")),
        (Some(framing), Some(who)) => Some(format!("{framing} of {who}")),
        (Some(framing), None) => Some(framing.to_string()),
        (None, Some("no people")) => None,
        (None, Some(who)) => Some(who.to_string()),
        (None, None) => None,
    }
    .map(|p| capitalise(&p))
}

/// Whether `line` holds a word: two letters in a row.
fn has_word(line: &str) -> bool {
    line.chars().zip(line.chars().skip(1)).any(|(a, b)| a.is_alphabetic() && b.is_alphabetic())
}

mod item_text;
pub use item_text::{item_text, item_text_from_catalog};

pub mod channels;

#[cfg(test)]
mod tests;
