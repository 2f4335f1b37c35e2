//! `analyze`: one streaming pass over a video (ffmpeg pipes small RGB frames) and its audio (a
//! second ffmpeg pipes 16 kHz mono samples, read on a thread), producing a signals document.
//!
//! The pass ([`pass`]) decodes once: the analysis frames go to the shot, fade, timeline and cue
//! detectors, the sampled frames to the vision models (a [`FrameSink`](crate::vision::FrameSink)),
//! the audio to the voice activity detector, sound tagger, fingerprint and loudness (each an
//! [`AudioSink`](audio::AudioSink)). The stages ([`stages`]) then turn what was seen and heard into
//! the learned channels, each recording its provenance ([`provenance`]): measured by which model,
//! or absent and why.

mod audio;
pub(crate) mod channels;
mod context;
mod feel;
mod options;
mod pass;
mod provenance;
mod stages;
#[cfg(all(test, unix))]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use kino::Signals;
use kino::signals::{MAX_SAMPLES, sample_count};
use kino_models::TranscribeOptions;

use self::audio::{Heard, Listeners, Loudness, Voice};
use self::context::Context;
use self::options::check;
use crate::error::{Error, Result};
use crate::fingerprint::AudioHasher;
use crate::models::AnalysisModels;
use crate::probe::probe;
use crate::sidecar::load as load_sidecar;
use crate::spilled::AudioSpill;
use crate::tool;

pub use self::channels::{AFFECT_CHANNELS, MEASURED_CHANNELS};
pub use self::options::{AnalyzeOptions, Sidecar};

/// The channels the speech recogniser changes: the transcript, profanity from it, and the scene
/// and item embeddings and the scenes' channel vectors (scene descriptions quote the dialogue). [`analyze_staged`] hands over a
/// document without them before transcription starts.
pub const SPEECH_STAGE_CHANNELS: &[&str] =
    &["transcript", "profanity", "timelines.profanity", "scene_embeddings", "item_embedding", "scene_channels"];

/// The reason a fast-pass document ([`analyze_staged`]) gives for each of
/// [`SPEECH_STAGE_CHANNELS`] that the final document will hold.
pub const PENDING_TRANSCRIPTION: &str = "pending: speech recognition runs after the fast pass";

pub use crate::affect::best::Relevance;

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
    check(options)?;
    tool::require_media(path)?;
    let sidecar = load_sidecar_of(path, &options.sidecar)?;
    let info = probe(path)?;
    let n = sample_count(info.duration, options.step);
    if n > MAX_SAMPLES {
        return Err(Error::argument("step", format!("gives {n} samples, more than the supported {MAX_SAMPLES}")));
    }
    let cx = Context { path, options, info, n, models, missing: models.missing() };
    // The speech recogniser only for a video with audio; the pass keeps the audio for it.
    let whisper = models.whisper().filter(|_| cx.info.has_audio).cloned();
    // Who speaks when reads the speech intervals of the audio again, like the recogniser.
    let voices = cx.info.has_audio && models.state("voicefilter-dvector").is_some_and(|s| s.loaded);

    let mut clock = Timings::start();
    let pass::Passed { mut doc, mut ledger, loudness, sounds, kept, sight, cues, picture } =
        pass::run(&cx, whisper.is_some() || voices, &mut progress, interrupted)?;
    clock.lap("pass");
    stages::nudity_and_text(&cx, &mut doc, &mut ledger, sight.as_ref());
    stages::faces(&cx, &mut doc, &mut ledger, sight.as_ref());
    stages::objects(&cx, &mut doc, &mut ledger, sight.as_ref());
    let (scene_sounds, heard) = stages::sounds(&cx, &mut doc, &mut ledger, sounds.as_ref());
    let seen_tags = stages::picture(&cx, &mut doc, &mut ledger, sight.as_ref(), cues);
    clock.lap("vision and sound stages");
    stages::speakers(&cx, &mut doc, &mut ledger, kept.as_ref())?;
    clock.lap("speakers");
    // The affect of what was seen and heard; again below once what is said is known.
    let mut placed = feel::Placed::default();
    feel::feel(&cx, &mut doc, &mut ledger, sight.as_ref(), &loudness, &picture, heard.as_ref(), &mut placed)?;
    clock.lap("affect");

    // Speech recognition, last (the slowest stage): the transcript, and profanity from it. The
    // fast channels are handed over first.
    let sidecar = sidecar.as_ref().map(|(s, p)| (s, p.as_path()));
    if whisper.is_some() && kept.is_some() {
        let mut early = doc.clone();
        let mut pending = ledger.clone();
        let embeddings = models.sentence_encoder().is_some();
        for channel in SPEECH_STAGE_CHANNELS.iter().filter(|c| {
            embeddings || !(c.ends_with("embedding") || c.ends_with("embeddings") || **c == "scene_channels")
        }) {
            pending.absent(channel, PENDING_TRANSCRIPTION);
        }
        pending.seal(&mut early, path, sidecar)?;
        fast(&early);
    }
    let recognised = whisper.as_deref().zip(kept);
    clock.lap("fast document");
    let work = stages::transcript(&cx, &mut doc, &mut ledger, recognised, &mut progress, interrupted)?;
    clock.lap("transcript");
    if doc.transcript.is_some() {
        feel::feel(&cx, &mut doc, &mut ledger, sight.as_ref(), &loudness, &picture, heard.as_ref(), &mut placed)?;
        clock.lap("affect");
    }
    stages::embeddings(&cx, &mut doc, &mut ledger, sight.as_ref(), &loudness, &scene_sounds, &seen_tags)?;
    clock.lap("embeddings");
    clock.report(path);

    ledger.seal(&mut doc, path, sidecar)?;
    // The vision models keep nothing of this video: another analysis may use them.
    if let Some(sight) = sight {
        sight.give_back(models);
    }
    progress(work, work);
    Ok(doc)
}

/// The environment variable that makes an analysis print the wall time of each of its stages to
/// standard error (a diagnostic, e.g. to measure what the affect stage costs: `docs/media.md`).
pub const TIMINGS_ENV: &str = "KINO_ANALYZE_TIMINGS";

/// Wall time per stage, printed when [`TIMINGS_ENV`] is set.
struct Timings {
    last: std::time::Instant,
    laps: Vec<(&'static str, f64)>,
}

impl Timings {
    fn start() -> Timings {
        Timings { last: std::time::Instant::now(), laps: Vec::new() }
    }

    fn lap(&mut self, stage: &'static str) {
        let now = std::time::Instant::now();
        let seconds = (now - self.last).as_secs_f64();
        match self.laps.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, total)) => *total += seconds,
            None => self.laps.push((stage, seconds)),
        }
        self.last = now;
    }

    fn report(&self, path: &Path) {
        if std::env::var_os(TIMINGS_ENV).is_none_or(|v| v.is_empty()) {
            return;
        }
        let total: f64 = self.laps.iter().map(|(_, s)| s).sum();
        let laps: Vec<String> = self.laps.iter().map(|(stage, s)| format!("{stage} {s:.3} s")).collect();
        eprintln!("timings of {}: {}; total {total:.3} s", path.display(), laps.join(", "));
    }
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
    let defaults = AnalyzeOptions::default();
    let listeners = Listeners {
        kept: Some(AudioSpill::new().map_err(|e| Error::io(path, e))?),
        voice: Voice::new(vad, defaults.speech),
        tagger: None,
        fingerprint: AudioHasher::new(),
        loudness: Loudness::new(defaults.step, 1),
        duration: info.duration,
    };
    let Heard { speech, kept, vad, .. } = audio::spawn(path, listeners)?.join(path, &AtomicBool::new(false))?;
    if let Some(vad) = vad {
        models.give_back(vad);
    }
    let samples = kept.ok_or_else(|| Error::io(path, std::io::Error::other("the audio was not kept")))?;
    let regions: Vec<(f64, f64)> = speech.iter().map(|&[a, b]| (a, b)).collect();
    let options = TranscribeOptions { language: language.map(str::to_string) };
    let t = whisper.transcribe(&samples, &regions, &options, &mut |_, _| {}).map_err(model_err)?;
    samples.check().map_err(|e| Error::io(path, e))?;
    Ok(crate::speech::transcript(&t, info.duration))
}
