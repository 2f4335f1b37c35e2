//! `analyze`: one streaming pass over a video (ffmpeg pipes small RGB frames) and its audio (a
//! second ffmpeg pipes 16 kHz mono samples, read on a thread), producing a signals document.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use std::collections::BTreeMap;

use kino::signals::{
    Analysis, AudioFingerprint, FORMAT, MAX_SAMPLES, Timelines as DocTimelines, Vertical, sample_count,
};
use kino::{Signals, TextEncoder, report};
use kino_models::{SileroVad, SoundEvents, SoundTagger, TranscribeOptions};

use crate::embed::{SceneFacts, describe_scene, item_embedding, normalise};
use crate::error::{Error, Result};
use crate::frame::Frame;
use crate::models::AnalysisModels;
use crate::probe::{MediaInfo, probe};
use crate::relevance::{relevance, scenes};
use crate::see::{self, Sight};
use crate::shots::{ContentDetector, ContentParams, FadeDetector, FadeParams, merge_boundaries};
use crate::sidecar::{learned_channels, load as load_sidecar, merge as merge_sidecar};
use crate::speech::{SAMPLE_RATE, SpeechDetector, SpeechParams};
use crate::spilled::{AudioSpill, SpilledAudio};
use crate::timeline::{BlackBars, Timelines};
use crate::tool::{self, Stream};
use crate::vision;

/// The channels `analyze` measures itself (see `kino::signals::ANALYSIS_CHANNELS`).
pub const MEASURED_CHANNELS: &[&str] =
    &["shots", "scenes", "speech", "timelines.brightness", "timelines.relevance", "vertical", "audio_fingerprint"];

/// The channels the speech recogniser changes: the transcript, profanity from it, and the scene
/// and item embeddings (scene descriptions quote the dialogue). [`analyze_staged`] hands over a
/// document without them before transcription starts.
pub const SPEECH_STAGE_CHANNELS: &[&str] =
    &["transcript", "profanity", "timelines.profanity", "scene_embeddings", "item_embedding"];

/// The reason a fast-pass document ([`analyze_staged`]) gives for each of
/// [`SPEECH_STAGE_CHANNELS`] that the final document will hold.
pub const PENDING_TRANSCRIPTION: &str = "pending: speech recognition runs after the fast pass";

/// Options of [`analyze`]. `Default` gives the documented settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyzeOptions {
    /// The document's `inventory_id`; the file stem when `None`.
    pub inventory_id: Option<String>,
    /// Seconds between timeline samples (default 1: the clip-selection grid).
    pub step: f64,
    /// The sidecar signals document with the learned channels: looked for beside the video
    /// ([`Sidecar::Discover`], the default), a given file, a document already read, or none.
    pub sidecar: Sidecar,
    /// Frames are analysed at the source rate up to this many per second (default 30); above it,
    /// at this rate, and cuts are accurate to one analysed frame.
    pub max_fps: f64,
    /// Width of the analysis frames in pixels (default 160; height keeps the aspect ratio).
    pub width: u32,
    /// ffmpeg decoder threads (0 = ffmpeg's choice).
    pub threads: u32,
    /// Shortest shot, seconds (default 0.5).
    pub min_shot: f64,
    /// Shots are grouped into scenes of at least this many seconds (default 8).
    pub min_scene: f64,
    /// Content detector parameters (`min_shot_frames` is derived from `min_shot`).
    pub content: ContentParams,
    /// Fade detector parameters.
    pub fade: FadeParams,
    /// Parameters of the spectral voice activity detector (used when the Silero VAD is absent).
    pub speech: SpeechParams,
    /// The item's catalog metadata as text ([`crate::embed::item_text`]); with the sentence model,
    /// the item embedding combines it with the content. `None`: the content alone.
    pub item_text: Option<String>,
    /// Seconds between the frames the vision models see (default 2), decoded at
    /// [`vision::VISION_WIDTH`] pixels wide from the same pass as the analysis frames.
    pub vision_interval: f64,
    /// How much of a scene's embedding is what is seen (the image classifier's labels put into
    /// the sentence space, [`crate::picture::conse`]) against its description (what is heard, said
    /// and written, and the labels named): in `[0, 1]`, default [`SEEN_WEIGHT`].
    pub seen_weight: f32,
}

/// The default [`AnalyzeOptions::seen_weight`], measured on real footage judged by eye
/// (`docs/media.md`, "What the picture shows").
pub const SEEN_WEIGHT: f32 = 0.5;

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            inventory_id: None,
            step: 1.0,
            sidecar: Sidecar::Discover,
            max_fps: 30.0,
            width: 160,
            threads: 0,
            min_shot: 0.5,
            min_scene: 8.0,
            content: ContentParams::default(),
            fade: FadeParams::default(),
            speech: SpeechParams::default(),
            item_text: None,
            vision_interval: 2.0,
            seen_weight: SEEN_WEIGHT,
        }
    }
}

fn check(options: &AnalyzeOptions) -> Result<()> {
    let positive = |name: &'static str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(Error::argument(name, format!("must be finite and > 0 (got {v})")))
        }
    };
    positive("step", options.step)?;
    positive("max_fps", options.max_fps)?;
    positive("min_scene", options.min_scene)?;
    positive("vision_interval", options.vision_interval)?;
    if !(0.0..=1.0).contains(&options.seen_weight) {
        return Err(Error::argument("seen_weight", format!("must be in [0, 1] (got {})", options.seen_weight)));
    }
    if !(options.min_shot.is_finite() && options.min_shot >= 0.0) {
        return Err(Error::argument("min_shot", format!("must be finite and >= 0 (got {})", options.min_shot)));
    }
    if !(8..=1920).contains(&options.width) {
        return Err(Error::argument("width", format!("must be in [8, 1920] (got {})", options.width)));
    }
    Ok(())
}

/// Where the sidecar signals document of an analysis comes from. The caller decides: a service
/// that opened the video and its sidecar itself (beneath its media root) passes the document it
/// read, and the analysis never looks beside the path it was given.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Sidecar {
    /// `<video>.signals.json` (e.g. `movie.mp4.signals.json`), then `<stem>.signals.json`, when
    /// one exists beside the video (the command line's and Python's behaviour).
    #[default]
    Discover,
    /// This file, which must exist.
    File(PathBuf),
    /// This document, already read; `name` names it in errors.
    Document {
        /// The document.
        signals: Box<Signals>,
        /// Where it came from (for errors).
        name: PathBuf,
    },
    /// No sidecar.
    None,
}

/// The sidecar to merge and its name.
fn load_sidecar_of(video: &Path, sidecar: &Sidecar) -> Result<Option<(Signals, PathBuf)>> {
    let path = match sidecar {
        Sidecar::None => return Ok(None),
        Sidecar::Document { signals, name } => return Ok(Some(((**signals).clone(), name.clone()))),
        Sidecar::File(path) => path.clone(),
        Sidecar::Discover => {
            let mut beside = video.as_os_str().to_owned();
            beside.push(".signals.json");
            let candidates = [PathBuf::from(beside), video.with_extension("signals.json")];
            match candidates.into_iter().find(|p| p.is_file()) {
                Some(p) => p,
                None => return Ok(None),
            }
        }
    };
    Ok(Some((load_sidecar(&path)?, path)))
}

/// The ffmpeg command of the video pass: the analysis frames (`w x h` at `rate`) on stdout, and
/// with `sampled`, also frames [`vision::VISION_WIDTH`] wide (at most the source width) every
/// `options.vision_interval` seconds on descriptor 3, from the same decode; their size.
fn video_command(
    path: &Path,
    options: &AnalyzeOptions,
    rate: f64,
    (w, h): (usize, usize),
    info: &MediaInfo,
    sampled: bool,
) -> (std::process::Command, Option<(usize, usize)>) {
    let mut cmd = tool::command("ffmpeg");
    cmd.args(["-threads", &options.threads.to_string(), "-flags2", "+fast", "-i"]).arg(path);
    let small = format!("fps={rate:.6},scale={w}:{h}:flags=area,format=rgb24");
    if !sampled || !cfg!(unix) {
        cmd.args(["-map", "0:v:0", "-an", "-sn", "-dn", "-vf"])
            .arg(small)
            .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]);
        return (cmd, None);
    }
    let (vw, vh) = analysis_size(info, vision::VISION_WIDTH);
    let every = options.vision_interval;
    cmd.args(["-an", "-sn", "-dn", "-filter_complex"])
        .arg(format!(
            "[0:v:0]split=2[a][b];[a]{small}[small];[b]fps=fps=1/{every:.6},scale={vw}:{vh}:flags=area,format=rgb24[big]"
        ))
        .args(["-map", "[small]", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"])
        .args(["-map", "[big]", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:3"]);
    (cmd, Some((vw, vh)))
}

/// Analysis frame size: `width` wide (at most the source width), height by aspect ratio, both even.
fn analysis_size(info: &MediaInfo, width: u32) -> (usize, usize) {
    let w = (width.min(info.width) / 2 * 2).max(2);
    let h = ((f64::from(w) * f64::from(info.height) / f64::from(info.width) / 2.0).round() as u32 * 2).max(2);
    (w as usize, h as usize)
}

/// Analyses the video at `path` into a signals document (see `docs/media.md`). `progress` is called
/// with (processed seconds, total seconds) as frames are read; when the speech recogniser runs, the
/// total then grows by the seconds of speech to transcribe and progress goes on over them. Memory
/// stays bounded by the analysis frame size and the timeline length, whatever the video's length:
/// the audio kept for transcription (16-bit, 16 kHz: 115 MB an hour) when the recogniser is
/// loaded goes to an unnamed temporary file in `TMPDIR`, not to memory.
///
/// `models` are the pretrained models to use ([`AnalysisModels::load`]); each missing one leaves
/// its channels absent (with the reason in `analysis.reasons`) or falls back to signal processing
/// (speech), and [`AnalysisModels::none`] gives the model-free analysis.
pub fn analyze(
    path: impl AsRef<Path>,
    options: &AnalyzeOptions,
    models: &AnalysisModels,
    progress: impl FnMut(f64, f64),
) -> Result<Signals> {
    analyze_interruptible(path, options, models, progress, &AtomicBool::new(false))
}

/// [`analyze`], stopping with [`Error::Interrupted`] soon after `interrupted` is set (it is read
/// between frames; a signal handler can set it): the ffmpeg processes are killed and nothing is
/// returned. A signal that reaches ffmpeg itself (Ctrl-C in a terminal reaches the whole
/// process group) gives the same error.
pub fn analyze_interruptible(
    path: impl AsRef<Path>,
    options: &AnalyzeOptions,
    models: &AnalysisModels,
    progress: impl FnMut(f64, f64),
    interrupted: &AtomicBool,
) -> Result<Signals> {
    analyze_staged(path, options, models, progress, interrupted, |_| {})
}

/// [`analyze_interruptible`] in two stages: when the speech recogniser is to run, `fast` is first
/// given a complete, valid document of everything but [`SPEECH_STAGE_CHANNELS`] (those listed in
/// `analysis.absent`, each with the reason [`PENDING_TRANSCRIPTION`]), so a service can offer the
/// fast channels while the slowest stage, transcription, runs. The final document is returned as
/// usual. Without the recogniser (or without audio), `fast` is not called.
pub fn analyze_staged(
    path: impl AsRef<Path>,
    options: &AnalyzeOptions,
    models: &AnalysisModels,
    mut progress: impl FnMut(f64, f64),
    interrupted: &AtomicBool,
    mut fast: impl FnMut(&Signals),
) -> Result<Signals> {
    let path = path.as_ref();
    let stop = || Error::Interrupted { path: path.to_path_buf(), signal: None };
    check(options)?;
    tool::require_media(path)?;
    let sidecar = load_sidecar_of(path, &options.sidecar)?;
    let info = probe(path)?;
    let duration = info.duration;
    let n = sample_count(duration, options.step);
    if n > MAX_SAMPLES {
        return Err(Error::argument("step", format!("gives {n} samples, more than the supported {MAX_SAMPLES}")));
    }
    let rate = info.fps.min(options.max_fps);
    let (w, h) = analysis_size(&info, options.width);

    let vad = match models.vad().filter(|_| info.has_audio) {
        Some(loaded) => Some(loaded.map_err(|source| Error::Model { path: path.into(), source })?),
        None => None,
    };
    let vad_label = vad.as_ref().and_then(|_| models.state("silero-vad")).map(|s| s.label());
    let tagger = match models.sound().filter(|_| info.has_audio) {
        Some(loaded) => Some(loaded.map_err(|source| Error::Model { path: path.into(), source })?),
        None => None,
    };
    let tagger_label = tagger.as_ref().and_then(|_| models.state("yamnet")).map(|s| s.label());
    // Transcription needs the audio again after the pass: kept as 16-bit samples (2 bytes a
    // sample, 115 MB an hour) in an unnamed temporary file, only when the recogniser is loaded.
    let whisper = models.whisper().filter(|_| info.has_audio).cloned();
    let audio =
        if info.has_audio { Some(spawn_audio(path, options, n, vad, tagger, whisper.is_some())?) } else { None };

    let sight = Sight::new(models).map_err(|source| Error::Model { path: path.into(), source })?;
    let (cmd, vision_size) = video_command(path, options, rate, (w, h), &info, sight.is_some());
    let (stream, mut stdout, vision) = match (sight, vision_size) {
        (Some(sight), Some((vw, vh))) => {
            let (stream, stdout, pipe) = Stream::spawn_with_fd3("ffmpeg", cmd, path)?;
            (stream, stdout, Some(vision::spawn(pipe, vw, vh, options.vision_interval, sight)))
        }
        _ => {
            let (stream, stdout) = Stream::spawn("ffmpeg", cmd, path)?;
            (stream, stdout, None)
        }
    };

    let min_shot_frames = (options.min_shot * rate).round() as usize;
    let mut content = ContentDetector::new(ContentParams { min_shot_frames, ..options.content.clone() });
    let mut fades = FadeDetector::new(options.fade.clone());
    let mut bars = BlackBars::new(h);
    let mut cues = crate::picture::CueDetector::new(rate);
    let mut timelines = Timelines::new(options.step, n);
    let mut buf = vec![0u8; w * h * 3];
    let mut previous: Option<Frame> = None;
    let mut frames = 0usize;
    let mut reported = f64::NEG_INFINITY;
    while tool::read_chunk(&mut stdout, &mut buf).map_err(|e| Error::io(path, e))? {
        if interrupted.load(Ordering::Relaxed) {
            return Err(stop()); // dropping the streams kills both ffmpeg processes
        }
        let time = frames as f64 / rate;
        let frame = Frame::from_rgb24(w, h, &buf);
        fades.push(frames, frame.mean_luma());
        bars.push(&frame);
        cues.push(time, w, h, &buf);
        timelines.push(time, &frame, previous.as_ref());
        content.push(frames, frame.clone());
        previous = Some(frame);
        frames += 1;
        if time - reported >= 0.5 {
            progress(time.min(duration), duration);
            reported = time;
        }
    }
    drop(stdout);
    let finished = stream.finish();
    if interrupted.load(Ordering::Relaxed) {
        return Err(stop());
    }
    finished?;
    // ffmpeg has exited, so the sampled-frame pipe has ended: the models finish the last frames.
    let sight = match vision {
        Some(job) => Some(job.join().map_err(|e| Error::io(path, e))?.0),
        None => None,
    };
    if frames == 0 {
        return Err(Error::Probe {
            path: path.into(),
            field: "streams".into(),
            rule: "must hold decodable video frames".into(),
        });
    }
    let (speech, loudness, sounds, kept, mut fingerprint) = match audio {
        Some(handle) => handle.join(path, duration, interrupted)?,
        None => (Vec::new(), vec![-100.0; n], None, None, AudioFingerprint { hop: 0.1, hashes: Vec::new() }),
    };
    // A decoder may deliver a few samples past the container's duration.
    fingerprint.hashes.truncate((duration / fingerprint.hop).floor() as usize + 1);

    // Times on the millisecond grid every result is reported on (`kino::report`), so clips that
    // snap to these cuts and avoid this speech report exactly the times the rules were checked on.
    let to_time = |f: usize| report::time(f as f64 / rate);
    let runs = fades.finish();
    let boundaries = merge_boundaries(&content.finish(), &runs, min_shot_frames);
    let shots: Vec<f64> = boundaries.iter().map(|&f| to_time(f)).filter(|&t| t > 0.0 && t < duration).collect();
    let fade_times: Vec<f64> = runs.iter().map(|r| to_time(r.darkest)).collect();
    let values = timelines.finish(w);
    let mut doc = Signals {
        format: FORMAT.into(),
        inventory_id: options.inventory_id.clone().unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or("video".into())
        }),
        duration,
        fps: info.fps,
        frame_width: info.width,
        frame_height: info.height,
        step: options.step,
        timelines: DocTimelines {
            relevance: relevance(&loudness, &values.motion, &shots, options.step),
            nudity: vec![0.0; n],
            blood_gore: vec![0.0; n],
            profanity: vec![0.0; n],
            brightness: values.brightness,
            clip_types: Default::default(),
        },
        scenes: scenes(&shots, &fade_times, duration, options.min_scene),
        shots,
        speech,
        characters: Vec::new(),
        tags: Vec::new(),
        scene_embeddings: None,
        item_embedding: None,
        emotions: None,
        profanity: None,
        vertical: Some(Vertical { step: options.step, x_center: values.x_center, blackbars: bars.finish(info.height) }),
        analysis: None,
        text: None,
        transcript: None,
        audio_fingerprint: Some(fingerprint),
        character_descriptors: None,
        visual: None,
    };
    let mut measured: Vec<String> = MEASURED_CHANNELS.iter().map(|s| s.to_string()).collect();
    let mut model_of: BTreeMap<String, String> = BTreeMap::new();
    let mut reasons: BTreeMap<String, String> = BTreeMap::new();
    if let Some(label) = vad_label {
        model_of.insert("speech".into(), label);
    }

    // What the vision models saw in the sampled frames.
    let missing = models.missing();
    let absent_reason = |id: &str, what: &str| {
        missing.get(id).map_or_else(|| format!("the {what} model is not loaded"), |r| r.to_string())
    };
    match sight.as_ref().filter(|s| s.labels.nsfw.is_some()) {
        Some(sight) => {
            if let Some(nudity) = see::nudity_timeline(&sight.seen, options.vision_interval, duration, options.step) {
                doc.timelines.nudity = nudity;
                measured.push("timelines.nudity".to_string());
                let label = sight.labels.nsfw.clone().unwrap_or_default();
                let rule = match (&sight.labels.faces, see::person_in_view(&sight.seen)) {
                    (Some(faces), Some(_)) => format!(
                        "; without a person in view ({faces} faces) a score below {} counts at most {}",
                        see::STRONG_NUDITY,
                        see::NO_PERSON_CAP
                    ),
                    _ => "; no person rule: the face model did not run".to_string(),
                };
                model_of.insert(
                    "timelines.nudity".into(),
                    format!("{label} (frames every {} s{rule})", options.vision_interval),
                );
            }
        }
        None => {
            reasons.insert("timelines.nudity".into(), absent_reason("open-nsfw", "nudity"));
        }
    }
    match sight.as_ref().filter(|s| s.labels.ocr.is_some()) {
        Some(sight) => {
            doc.text = see::on_screen_text(&sight.seen, options.vision_interval, duration);
            if doc.text.is_some() {
                measured.push("text".to_string());
                let label = sight.labels.ocr.clone().unwrap_or_default();
                model_of.insert(
                    "text".into(),
                    format!("{label} (frames every {} s)", options.vision_interval * see::TEXT_EVERY as f64),
                );
            }
        }
        None => {
            reasons.insert("text".into(), absent_reason("ppocr", "text"));
        }
    }

    // Faces: characters ranked by screen time, and a subject track that follows the main one.
    match sight.as_ref().filter(|s| s.labels.faces.is_some()) {
        Some(sight) => {
            let samples: Vec<(f64, Vec<crate::faces::FaceObs>)> =
                sight.seen.iter().filter_map(|s| s.faces.clone().map(|f| (s.time, f))).collect();
            let params = crate::faces::CharacterParams {
                interval: Some(options.vision_interval),
                ..crate::faces::CharacterParams::default()
            };
            let found = crate::faces::characters(&samples, &doc.shots, duration, &params);
            let label = sight.labels.faces.clone().unwrap_or_default();
            doc.characters = found.characters;
            let descriptors: Vec<Vec<f32>> = found.identities.iter().map(|i| i.centroid.clone()).collect();
            measured.push("characters".to_string());
            if descriptors.iter().all(|d| !d.is_empty()) {
                doc.character_descriptors = Some(descriptors);
                measured.push("character_descriptors".to_string());
                model_of
                    .insert("character_descriptors".into(), format!("{label} (the mean descriptor of each character)"));
            }
            model_of.insert(
                "characters".into(),
                format!(
                    "{label} ({} identities, clustering threshold {:.2}, frames every {} s)",
                    doc.characters.len(),
                    found.threshold,
                    options.vision_interval
                ),
            );
            if let Some(vertical) = &mut doc.vertical {
                let per_sample: Vec<(f64, Option<f32>)> =
                    samples.iter().map(|(t, _)| *t).zip(found.per_sample_main_x.iter().copied()).collect();
                if per_sample.iter().any(|(_, x)| x.is_some()) {
                    vertical.x_center =
                        crate::faces::follow_subject(&per_sample, &vertical.x_center, vertical.step, &doc.shots)
                            .into_iter()
                            .map(|x| report::score(f64::from(x)) as f32)
                            .collect();
                    model_of.insert(
                        "vertical".into(),
                        format!("{label} (the main character's face; saliency where no face)"),
                    );
                }
            }
        }
        None => {
            for channel in ["characters", "character_descriptors"] {
                reasons.insert(channel.into(), absent_reason("dlib-faces", "face"));
            }
        }
    }

    // Sound events: clip types, tags and emotions where the evidence is real.
    let mut scene_sounds = Vec::new();
    match (&sounds, &tagger_label) {
        (Some(events), Some(label)) => {
            let channels = crate::sound::sound_channels(
                &events.names,
                events.hop,
                &events.scores,
                duration,
                options.step,
                &doc.scenes,
            );
            doc.timelines.clip_types = channels.clip_types;
            doc.tags = channels.tags;
            for channel in ["timelines.clip_types", "tags"] {
                measured.push(channel.to_string());
                model_of.insert(channel.to_string(), format!("{label} (AudioSet sound events)"));
            }
            match channels.emotions {
                Some(emotions) => {
                    doc.emotions = Some(emotions);
                    measured.push("emotions".to_string());
                    model_of.insert("emotions".into(), format!("{label} (sound and music-mood classes)"));
                }
                None => {
                    reasons.insert(
                        "emotions".into(),
                        format!("{label} heard no sound or music-mood class that is evidence of an emotion"),
                    );
                }
            }
            scene_sounds = channels.scene_sounds;
        }
        _ => {
            let reason = match missing.get("yamnet") {
                Some(reason) => reason.to_string(),
                None if !info.has_audio => "the video has no audio stream".to_string(),
                None => "the sound-event model is not loaded".to_string(),
            };
            for channel in ["timelines.clip_types", "tags", "emotions"] {
                reasons.insert(channel.into(), reason.clone());
            }
        }
    }

    // What the picture shows: labels, shot types, visual features, technical cues, and tags.
    let mut seen_tags = Vec::new();
    match sight.as_ref().and_then(|s| Some((s, s.label_names()?, s.labels.labeler.clone()?))) {
        Some((sight, names, label)) => {
            let cues = cues.finish(duration);
            let visual = crate::picture::visual(
                &sight.seen,
                names,
                options.vision_interval,
                (&doc.shots, &doc.scenes, duration),
                cues,
            );
            seen_tags.clone_from(&visual.tags);
            doc.visual = Some(visual);
            measured.push("visual".to_string());
            model_of.insert(
                "visual".into(),
                format!(
                    "{label} (ImageNet-1k classes, frames every {} s; tags of labels of at least {})",
                    options.vision_interval,
                    crate::picture::TAG_MIN
                ),
            );
        }
        None => {
            reasons.insert("visual".into(), absent_reason("efficientnet-lite0", "image classification"));
        }
    }

    // Speech recognition, last (the slowest stage): the transcript, and profanity from it. The
    // fast channels are handed over first.
    let mut work = duration;
    let sidecar_ref = sidecar.as_ref().map(|(s, p)| (s, p.as_path()));
    if whisper.is_some() && kept.is_some() {
        let mut early = doc.clone();
        let mut pending = reasons.clone();
        let embeddings = models.sentence_encoder().is_some();
        for channel in SPEECH_STAGE_CHANNELS
            .iter()
            .filter(|c| embeddings || !c.ends_with("embedding") && !c.ends_with("embeddings"))
        {
            pending.insert(channel.to_string(), PENDING_TRANSCRIPTION.to_string());
        }
        seal(&mut early, path, measured.clone(), model_of.clone(), pending, sidecar_ref)?;
        fast(&early);
    }
    match (&whisper, kept) {
        (Some(whisper), Some(samples)) => {
            let speech: Vec<(f64, f64)> = doc.speech.iter().map(|&[a, b]| (a, b)).collect();
            let started = duration;
            let transcript = whisper
                .transcribe(&samples, &speech, &TranscribeOptions::default(), &mut |done, total| {
                    if interrupted.load(Ordering::Relaxed) {
                        return;
                    }
                    // The total grows by the seconds of speech to transcribe.
                    progress(started + done, started + total);
                })
                .map_err(|source| Error::Model { path: path.into(), source })?;
            samples.check().map_err(|e| Error::io(path, e))?;
            if interrupted.load(Ordering::Relaxed) {
                return Err(stop());
            }
            work = duration + transcript.transcribed_seconds;
            let label = models.state("whisper-base").map(|s| s.label()).unwrap_or_default();
            let doc_transcript = crate::speech::transcript(&transcript, duration);
            let events = kino::lexicon::transcript_events(&doc_transcript);
            doc.timelines.profanity = kino::lexicon::timeline(&events, options.step, n);
            doc.profanity = Some(events);
            doc.transcript = Some(doc_transcript);
            for channel in ["transcript", "profanity", "timelines.profanity"] {
                measured.push(channel.to_string());
            }
            model_of.insert(
                "transcript".into(),
                format!(
                    "{label} (speech intervals only, {} s transcribed)",
                    report::time(transcript.transcribed_seconds)
                ),
            );
            for channel in ["profanity", "timelines.profanity"] {
                model_of.insert(channel.into(), format!("{label} transcript, kino profanity lexicon (word times)"));
            }
        }
        _ => {
            let reason = match missing.get("whisper-base") {
                Some(reason) => reason.to_string(),
                None if !info.has_audio => "the video has no audio stream".to_string(),
                None => "the speech recognition model is not loaded".to_string(),
            };
            for channel in ["transcript", "profanity", "timelines.profanity"] {
                reasons.insert(channel.into(), reason.clone());
            }
        }
    }

    // Scene descriptions, embedded by the sentence model; the item from its metadata and content.
    match models.sentence_encoder() {
        Some(encoder) => {
            let mut facts = scene_facts(&doc, &loudness, info.has_audio);
            for (i, f) in facts.iter_mut().enumerate() {
                f.sounds = scene_sounds.get(i).cloned().unwrap_or_default();
                let scene = doc.scenes[i];
                if let Some(text) = &doc.text {
                    f.text = see::lines_in(text, scene.start, scene.end, 3);
                }
                if let Some(t) = &doc.transcript {
                    f.said = crate::speech::said_in(t, scene.start, scene.end, crate::embed::SAID_WORDS);
                }
                f.seen = seen_tags
                    .iter()
                    .filter(|t| t.start == scene.start && t.end == scene.end)
                    .map(|t| t.name.clone())
                    .collect();
                f.mood = doc
                    .tags
                    .iter()
                    .filter(|t| t.kind == kino::signals::TagKind::Mood && t.start == scene.start && t.end == scene.end)
                    .max_by(|a, b| a.score.total_cmp(&b.score))
                    .map(|t| t.name.clone());
            }
            let texts: Vec<String> = facts.iter().map(describe_scene).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let fail = |source| Error::Model { path: path.into(), source };
            let sentence = encoder.encode_batch(&refs).map_err(fail)?;
            let seen = match (&sight, &doc.visual) {
                (Some(sight), Some(_)) => {
                    crate::picture::conse(&sight.seen, sight.label_names(), &doc.scenes, encoder).map_err(fail)?
                }
                _ => vec![None; doc.scenes.len()],
            };
            let mixed: Vec<Vec<f32>> = sentence
                .iter()
                .zip(&seen)
                .map(|(text, seen)| crate::picture::mix(text, seen.as_deref(), options.seen_weight))
                .collect();
            let features = doc.visual.as_ref().and_then(|v| v.scene_features.clone());
            let scene_vectors: Vec<Vec<f32>> = mixed
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    crate::embed::scene_embedding(v, features.as_ref().and_then(|f| f.get(i)).map(Vec::as_slice))
                })
                .collect();
            let mut content = vec![0f32; kino_models::SENTENCE_DIM];
            for (v, scene) in mixed.iter().zip(&doc.scenes) {
                let weight = (scene.end - scene.start) as f32;
                content.iter_mut().zip(v).for_each(|(c, x)| *c += weight * x);
            }
            normalise(&mut content);
            let mut item = content;
            if let Some(text) = options.item_text.as_deref().filter(|t| t.chars().any(char::is_alphanumeric)) {
                let meta = encoder.encode_batch(&[text]).map_err(fail)?.pop().unwrap_or_default();
                // Equal parts metadata and content: each is a unit vector.
                item.iter_mut().zip(&meta).for_each(|(c, m)| *c += m);
                normalise(&mut item);
            }
            let label = encoder.version().to_string();
            doc.scene_embeddings = Some(scene_vectors);
            let look = doc.visual.as_ref().and_then(|v| v.item_feature.as_deref());
            doc.item_embedding = Some(item_embedding(&item, look));
            let how = if doc.visual.is_some() {
                format!(
                    "scene descriptions and what is seen (ConSE over the image labels), {} of it seen, lift-1024; \
                     the image feature in the free dimensions, {} of the length",
                    options.seen_weight,
                    crate::embed::VISUAL_SHARE
                )
            } else {
                "scene descriptions, lift-1024".to_string()
            };
            model_of.insert("scene_embeddings".into(), format!("{label} ({how})"));
            model_of.insert(
                "item_embedding".into(),
                format!(
                    "{label} ({}{}, {})",
                    if options.item_text.is_some() { "metadata and content" } else { "content" },
                    match look {
                        Some(_) => format!(
                            "; what the title looks like (its mean image feature), {} of the length",
                            crate::embed::VISUAL_SHARE
                        ),
                        None => String::new(),
                    },
                    crate::embed::ITEM_PROJECTION
                ),
            );
            measured.extend(["scene_embeddings".to_string(), "item_embedding".to_string()]);
        }
        None => {
            let reason = missing.get("all-minilm-l6-v2").copied().unwrap_or("the sentence model is not loaded");
            for channel in ["scene_embeddings", "item_embedding"] {
                reasons.insert(channel.into(), reason.to_string());
            }
        }
    }

    seal(&mut doc, path, measured, model_of, reasons, sidecar_ref)?;
    progress(work, work);
    Ok(doc)
}

/// Finishes a document: merges the sidecar's channels (which replace what was measured), lists
/// what is absent and why in `analysis`, and validates it.
fn seal(
    doc: &mut Signals,
    path: &Path,
    mut measured: Vec<String>,
    mut model_of: BTreeMap<String, String>,
    mut reasons: BTreeMap<String, String>,
    sidecar: Option<(&Signals, &Path)>,
) -> Result<()> {
    if let Some((side, side_path)) = sidecar {
        let from_sidecar = merge_sidecar(doc, side, side_path)?;
        // Characters from the sidecar replace the measured ones, and their descriptors with them.
        if doc.character_descriptors.as_ref().is_some_and(|d| d.len() != doc.characters.len())
            || from_sidecar.contains(&"characters")
        {
            doc.character_descriptors = side.character_descriptors.clone().filter(|d| d.len() == doc.characters.len());
            if doc.character_descriptors.is_none() {
                measured.retain(|m| m != "character_descriptors");
                model_of.remove("character_descriptors");
                reasons.insert(
                    "character_descriptors".into(),
                    "the characters come from the sidecar, without descriptors".into(),
                );
            }
        }
        for channel in &from_sidecar {
            // A sidecar channel replaces what was measured here, model included.
            model_of.remove(*channel);
            reasons.remove(*channel);
            if !measured.iter().any(|m| m == channel) {
                measured.push(channel.to_string());
            }
        }
    }
    let absent: Vec<String> =
        learned_channels().into_iter().filter(|c| !measured.iter().any(|m| m == c)).map(String::from).collect();
    reasons.retain(|channel, _| absent.contains(channel));
    for channel in &absent {
        reasons.entry(channel.clone()).or_insert_with(|| "no model of this build measures it".to_string());
    }
    doc.analysis = Some(Analysis {
        analyzer: format!("kino-media {}", env!("CARGO_PKG_VERSION")),
        measured,
        absent,
        models: model_of,
        reasons,
    });
    doc.validate().map_err(|source| Error::InvalidOutput { path: path.into(), source })?;
    Ok(())
}

/// Transcribes the speech of the media file at `path` (video or audio alone): speech intervals by
/// the Silero VAD (the spectral detector without it), then Whisper on them. `language` is an ISO
/// 639-1 code, or `None` to detect it. Fails when the speech recognition model is not loaded, with
/// the reason.
pub fn transcribe(
    path: impl AsRef<Path>,
    models: &AnalysisModels,
    language: Option<&str>,
) -> Result<kino::signals::Transcript> {
    let path = path.as_ref();
    let model_err = |source| Error::Model { path: path.into(), source };
    let whisper = models.whisper().cloned().ok_or_else(|| {
        let reason = models.missing().get("whisper-base").map(|r| r.to_string());
        model_err(kino_models::Error::ModelLoad {
            model: "whisper-base".into(),
            reason: reason.unwrap_or_else(|| "the speech recognition model is not loaded".into()),
        })
    })?;
    if let Some(code) = language
        && !whisper.languages().any(|l| l == code)
    {
        return Err(Error::argument(
            "language",
            format!("`{code}` is not one of Whisper's languages (ISO 639-1 codes such as en, fr, de)"),
        ));
    }
    tool::require_media(path)?;
    let info = probe(path)?;
    if !info.has_audio {
        return Ok(kino::signals::Transcript { language: language.unwrap_or("en").to_string(), segments: Vec::new() });
    }
    let vad = models.vad().transpose().map_err(model_err)?;
    let job = spawn_audio(path, &AnalyzeOptions::default(), 1, vad, None, true)?;
    let (speech, _, _, kept, _) = job.join(path, info.duration, &AtomicBool::new(false))?;
    let samples = kept.ok_or_else(|| Error::io(path, std::io::Error::other("the audio was not kept")))?;
    let regions: Vec<(f64, f64)> = speech.iter().map(|&[a, b]| (a, b)).collect();
    let options = TranscribeOptions { language: language.map(str::to_string) };
    let t = whisper.transcribe(&samples, &regions, &options, &mut |_, _| {}).map_err(model_err)?;
    samples.check().map_err(|e| Error::io(path, e))?;
    Ok(crate::speech::transcript(&t, info.duration))
}

/// What each scene holds, for its description: mean brightness, cuts per minute, the fraction
/// with speech and the mean loudness.
fn scene_facts(doc: &Signals, loudness: &[f64], has_audio: bool) -> Vec<SceneFacts> {
    let step = doc.step;
    doc.scenes
        .iter()
        .map(|scene| {
            let length = (scene.end - scene.start).max(1e-9);
            let (a, b) = ((scene.start / step) as usize, ((scene.end / step).ceil() as usize).max(1));
            let mean = |v: &[f64]| {
                let part = &v[a.min(v.len())..b.min(v.len())];
                if part.is_empty() { 0.0 } else { part.iter().sum::<f64>() / part.len() as f64 }
            };
            let brightness: Vec<f64> = doc.timelines.brightness.iter().map(|x| f64::from(*x)).collect();
            let cuts = doc.shots.iter().filter(|&&t| t > scene.start && t < scene.end).count();
            let speech: f64 =
                doc.speech.iter().map(|&[s, e]| (e.min(scene.end) - s.max(scene.start)).max(0.0)).sum::<f64>();
            SceneFacts {
                brightness: mean(&brightness),
                cuts_per_minute: cuts as f64 * 60.0 / length,
                speech: (speech / length).min(1.0),
                loudness_db: if has_audio { mean(loudness) } else { -100.0 },
                has_audio,
                sounds: Vec::new(),
                mood: None,
                text: Vec::new(),
                said: Vec::new(),
                seen: Vec::new(),
            }
        })
        .collect()
}

/// What the audio thread measures: speech intervals, loudness (dBFS) per timeline sample, and the
/// sound events when the tagger ran, and the samples themselves when asked to keep them.
type AudioResult = (Vec<[f64; 2]>, Vec<f64>, Option<SoundEvents>, Option<SpilledAudio>, AudioFingerprint);

/// The audio side: a second ffmpeg process read on its own thread.
#[derive(Debug)]
struct AudioJob {
    stream: Stream,
    thread: std::thread::JoinHandle<std::io::Result<AudioResult>>,
}

fn spawn_audio(
    path: &Path,
    options: &AnalyzeOptions,
    n: usize,
    mut vad: Option<SileroVad>,
    mut tagger: Option<SoundTagger>,
    keep: bool,
) -> Result<AudioJob> {
    let mut cmd = tool::command("ffmpeg");
    cmd.arg("-i")
        .arg(path)
        .args(["-map", "0:a:0", "-vn", "-sn", "-dn", "-ac", "1", "-ar", &SAMPLE_RATE.to_string()])
        .args(["-f", "s16le", "-acodec", "pcm_s16le", "pipe:1"]);
    let (stream, mut stdout) = Stream::spawn("ffmpeg", cmd, path)?;
    let params = options.speech.clone();
    let step = options.step;
    let waiter = std::thread::current();
    let thread = std::thread::spawn(move || {
        // Wakes `AudioJob::join` at once, whatever the outcome.
        let _wake = Unpark(waiter);
        // The spectral detector only when the neural one is absent.
        let mut spectral = vad.is_none().then(|| SpeechDetector::new(params));
        let mut energy = vec![(0.0f64, 0u64); n.max(1)];
        let mut samples32: Vec<f32> = Vec::with_capacity(4096);
        let per_sample = step * f64::from(SAMPLE_RATE);
        let mut buf = vec![0u8; 8192];
        let mut samples = Vec::with_capacity(4096);
        let mut count: u64 = 0;
        let mut carry: Option<u8> = None;
        let mut kept = if keep { Some(AudioSpill::new()?) } else { None };
        let mut raws: Vec<i16> = Vec::with_capacity(4096);
        let mut hasher = crate::fingerprint::AudioHasher::new();
        loop {
            let got = stdout.read(&mut buf)?;
            if got == 0 {
                break;
            }
            samples.clear();
            samples32.clear();
            raws.clear();
            let mut bytes = buf[..got].iter().copied();
            let mut pending = carry.take();
            while let Some(lo) = pending.take().or_else(|| bytes.next()) {
                let Some(hi) = bytes.next() else {
                    carry = Some(lo);
                    break;
                };
                let raw = i16::from_le_bytes([lo, hi]);
                raws.push(raw);
                let x = f64::from(raw) / 32768.0;
                let i = ((count as f64 / per_sample) as usize).min(energy.len() - 1);
                energy[i].0 += x * x;
                energy[i].1 += 1;
                count += 1;
                samples.push(x);
                samples32.push(x as f32);
            }
            if let Some(k) = &mut kept {
                k.push(&raws)?;
            }
            match (&mut spectral, &mut vad) {
                (Some(detector), _) => detector.push(&samples),
                (None, Some(vad)) => vad.push(&samples32).map_err(std::io::Error::other)?,
                (None, None) => {}
            }
            if let Some(tagger) = &mut tagger {
                tagger.push(&samples32).map_err(std::io::Error::other)?;
            }
            hasher.push(&samples32);
        }
        let loudness = energy.iter().map(|&(sum, k)| 10.0 * (sum / k.max(1) as f64 + 1e-10).log10()).collect();
        let speech = match (spectral, vad) {
            (Some(detector), _) => detector.finish(),
            (None, Some(mut vad)) => vad.finish().map_err(std::io::Error::other)?.segments,
            (None, None) => Vec::new(),
        };
        let sounds = tagger.map(|mut t| t.finish()).transpose().map_err(std::io::Error::other)?;
        let kept = kept.map(AudioSpill::finish).transpose()?;
        Ok((speech, loudness, sounds, kept, hasher.finish()))
    });
    Ok(AudioJob { stream, thread })
}

/// Unparks a thread when dropped.
struct Unpark(std::thread::Thread);

impl Drop for Unpark {
    fn drop(&mut self) {
        self.0.unpark();
    }
}

/// How often a wait for the audio thread looks at the interrupt flag (a signal handler cannot
/// wake a thread; the audio thread itself wakes the waiter when it ends).
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

impl AudioJob {
    /// Waits for the audio side (on the thread that spawned it); dropping the job on an interrupt
    /// kills its ffmpeg.
    fn join(self, path: &Path, duration: f64, interrupted: &AtomicBool) -> Result<AudioResult> {
        while !self.thread.is_finished() {
            if interrupted.load(Ordering::Relaxed) {
                return Err(Error::Interrupted { path: path.to_path_buf(), signal: None });
            }
            std::thread::park_timeout(INTERRUPT_POLL);
        }
        let result = self.thread.join().map_err(|_| Error::io(path, std::io::Error::other("audio reader panicked")))?;
        self.stream.finish()?;
        let (speech, loudness, sounds, kept, fingerprint) = result.map_err(|e| Error::io(path, e))?;
        let speech = speech
            .into_iter()
            .filter_map(|[a, b]| {
                let (a, b) = (report::time(a).max(0.0), report::time(b).min(duration));
                (a < b).then_some([a, b])
            })
            .collect();
        Ok((speech, loudness, sounds, kept, fingerprint))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// One decode, two streams: the analysis frames at the video's rate and the sampled frames
    /// every `vision_interval` seconds, read concurrently to the end.
    #[test]
    fn the_video_pass_also_writes_sampled_frames() {
        let ok = std::process::Command::new("ffmpeg").arg("-version").output().is_ok_and(|o| o.status.success());
        if !ok {
            assert!(
                std::env::var_os("KINO_REQUIRE_FFMPEG").is_none(),
                "KINO_REQUIRE_FFMPEG is set but ffmpeg is missing"
            );
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let video = dir.path().join("v.mp4");
        let made = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=6", "-pix_fmt", "yuv420p"])
            .arg(&video)
            .status()
            .unwrap();
        assert!(made.success());
        let info = probe(&video).unwrap();
        let options = AnalyzeOptions { vision_interval: 0.5, ..AnalyzeOptions::default() };
        let (w, h) = analysis_size(&info, options.width);
        let (cmd, size) = video_command(&video, &options, info.fps, (w, h), &info, true);
        assert_eq!(size, Some((640, 360)));
        let (stream, mut stdout, pipe) = Stream::spawn_with_fd3("ffmpeg", cmd, &video).unwrap();
        let job = vision::spawn(pipe, 640, 360, 0.5, Sight::empty());
        let mut buf = vec![0u8; w * h * 3];
        let mut small = 0;
        while tool::read_chunk(&mut stdout, &mut buf).unwrap() {
            small += 1;
        }
        stream.finish().unwrap();
        let (sight, big) = job.join().unwrap();
        assert_eq!(small, 150);
        assert_eq!(big, 12, "one frame every 0.5 s of 6 s");
        let times: Vec<f64> = sight.seen.iter().map(|s| s.time).collect();
        assert_eq!(times, (0..12).map(|i| f64::from(i) * 0.5).collect::<Vec<_>>());
    }
}
