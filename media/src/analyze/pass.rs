//! The decoding pass: one ffmpeg decodes the video into small frames for the detectors read here
//! (and, when a vision model is loaded, larger sampled frames for the [`FrameSink`] of the vision
//! models, [`crate::vision`]); a second decodes the audio into the [`AudioSink`]s
//! ([`super::audio`]). Its product is the document of what signal processing measures, with the
//! audio and the sight the stages after it read.
//!
//! [`FrameSink`]: crate::vision::FrameSink
//! [`AudioSink`]: super::audio::AudioSink

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use kino::Signals;
use kino::report;
use kino::signals::{AudioFingerprint, FORMAT, Timelines as DocTimelines, Vertical};

use super::audio::{self, Heard, Listeners, Loudness, Voice};
use super::channels::MEASURED_CHANNELS;
use super::context::Context;
use super::options::AnalyzeOptions;
use super::provenance::Ledger;
use crate::error::{Error, Result};
use crate::fingerprint::AudioHasher;
use crate::frame::Frame;
use crate::picture::CueDetector;
use crate::picture_fingerprint::PictureHasher;
use crate::probe::MediaInfo;
use crate::relevance::{relevance, scenes};
use crate::see::Sight;
use crate::shots::{ContentDetector, ContentParams, FadeDetector, merge_boundaries};
use crate::spilled::{AudioSpill, SpilledAudio};
use crate::timeline::{BlackBars, Timelines};
use crate::tool::{self, Stream};
use crate::vision;

/// What the pass gives the stages.
#[derive(Debug)]
pub(super) struct Passed {
    /// The document of the channels the pass measures ([`MEASURED_CHANNELS`]); the learned
    /// channels are empty.
    pub doc: Signals,
    /// Their provenance.
    pub ledger: Ledger,
    /// Loudness (dBFS) per timeline sample (-100 without audio).
    pub loudness: Vec<f64>,
    /// The sound events, with the tagger's `id version`, when it ran.
    pub sounds: Option<(kino_models::SoundEvents, String)>,
    /// The audio kept for transcription, when the recogniser is to run.
    pub kept: Option<SpilledAudio>,
    /// What the vision models saw, when one is loaded.
    pub sight: Option<Sight>,
    /// The technical cues of the analysis frames, for the picture stage (`None` without the image
    /// classifier, whose channel would carry them).
    pub cues: Option<CueDetector>,
    /// Motion, saturation and warmth per timeline sample, for the affect stage.
    pub picture: PictureValues,
}

/// What the affect stage reads of the analysis frames, per timeline sample (see
/// [`crate::timeline::TimelineValues`]).
#[derive(Debug, Clone, Default)]
pub(super) struct PictureValues {
    pub motion: Vec<f64>,
    pub saturation: Vec<f32>,
    pub warmth: Vec<f32>,
}

/// Runs the pass over the video (`progress` gets processed and total seconds). The audio is kept
/// for transcription when `keep` is set.
pub(super) fn run(
    cx: &Context<'_>,
    keep: bool,
    progress: &mut impl FnMut(f64, f64),
    interrupted: &AtomicBool,
) -> Result<Passed> {
    let Context { path, options, ref info, n, models, .. } = *cx;
    let stop = || Error::Interrupted { path: path.to_path_buf(), signal: None };
    let model_error = |source| cx.model_error(source);
    let duration = info.duration;
    let rate = info.fps.min(options.max_fps);
    let (w, h) = analysis_size(info, options.width);

    // The audio models only for a video with audio (taking one is loading it, or borrowing a
    // loaded one).
    let vad = info.has_audio.then(|| models.vad()).flatten().transpose().map_err(model_error)?;
    let vad_label = vad.as_ref().and_then(|_| models.state("silero-vad")).map(|s| s.label());
    let tagger = info.has_audio.then(|| models.sound()).flatten().transpose().map_err(model_error)?;
    let tagger_label = tagger.as_ref().and_then(|_| models.state("yamnet")).map(|s| s.label());
    let audio = if info.has_audio {
        // Transcription needs the audio again after the pass: kept as 16-bit samples (2 bytes a
        // sample, 115 MB an hour) in an unnamed temporary file, only when the recogniser is loaded.
        let kept = if keep { Some(AudioSpill::new().map_err(|e| Error::io(path, e))?) } else { None };
        let listeners = Listeners {
            kept,
            voice: Voice::new(vad, options.speech.clone()),
            tagger,
            fingerprint: AudioHasher::new(),
            loudness: Loudness::new(options.step, n),
            duration,
        };
        Some(audio::spawn(path, listeners)?)
    } else {
        None
    };

    let sight = Sight::new(models).map_err(model_error)?;
    // The technical cues travel in the classifier's channel (`visual`): looked for only with it.
    let labelled = sight.as_ref().is_some_and(|s| s.label_names().is_some());
    let (cmd, vision_size) = video_command(path, options, rate, (w, h), info, sight.is_some());
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

    let mut detectors = Detectors::new(options, rate, (w, h), n, labelled);
    let mut buf = vec![0u8; w * h * 3];
    let mut reported = f64::NEG_INFINITY;
    while tool::read_chunk(&mut stdout, &mut buf).map_err(|e| Error::io(path, e))? {
        if interrupted.load(Ordering::Relaxed) {
            return Err(stop()); // dropping the streams kills both ffmpeg processes
        }
        let time = detectors.push(&buf);
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
    if detectors.frames == 0 {
        return Err(Error::Probe {
            path: path.into(),
            field: "streams".into(),
            rule: "must hold decodable video frames".into(),
        });
    }
    let mut heard = match audio {
        Some(job) => job.join(path, interrupted)?,
        None => Heard::silence(n),
    };
    // The stream models are reset by the end of their stream: another analysis may use them.
    if let Some(vad) = heard.vad.take() {
        models.give_back(vad);
    }
    if let Some(tagger) = heard.tagger.take() {
        models.give_back(tagger);
    }
    // A decoder may deliver a few samples past the container's duration.
    heard.fingerprint.hashes.truncate((duration / heard.fingerprint.hop).floor() as usize + 1);

    let mut ledger = Ledger::new(MEASURED_CHANNELS);
    if let Some(label) = vad_label {
        ledger.measured("speech", label);
    }
    let (doc, cues, picture) = detectors.document(cx, heard.speech, heard.fingerprint, &heard.loudness);
    Ok(Passed {
        picture,
        doc,
        ledger,
        loudness: heard.loudness,
        sounds: heard.sounds.zip(tagger_label),
        kept: heard.kept,
        sight,
        cues,
    })
}

/// The detectors of the analysis frames, every frame up to `max_fps`.
#[derive(Debug)]
struct Detectors {
    content: ContentDetector,
    fades: FadeDetector,
    bars: BlackBars,
    cues: Option<CueDetector>,
    timelines: Timelines,
    pictures: PictureHasher,
    previous: Option<Frame>,
    /// Frames pushed.
    frames: usize,
    rate: f64,
    size: (usize, usize),
    min_shot_frames: usize,
}

impl Detectors {
    fn new(options: &AnalyzeOptions, rate: f64, (w, h): (usize, usize), n: usize, cues: bool) -> Detectors {
        let min_shot_frames = (options.min_shot * rate).round() as usize;
        Detectors {
            content: ContentDetector::new(ContentParams { min_shot_frames, ..options.content.clone() }),
            fades: FadeDetector::new(options.fade.clone()),
            bars: BlackBars::new(h),
            cues: cues.then(|| CueDetector::new(rate)),
            timelines: Timelines::new(options.step, n),
            pictures: PictureHasher::new(rate),
            previous: None,
            frames: 0,
            rate,
            size: (w, h),
            min_shot_frames,
        }
    }

    /// The next frame (`rgb24` bytes); its time.
    fn push(&mut self, buf: &[u8]) -> f64 {
        let (w, h) = self.size;
        let time = self.frames as f64 / self.rate;
        let frame = Frame::from_rgb24(w, h, buf);
        self.fades.push(self.frames, frame.mean_luma());
        self.bars.push(&frame);
        if let Some(cues) = &mut self.cues {
            cues.push(time, buf, &frame);
        }
        self.timelines.push(time, &frame, self.previous.as_ref());
        self.pictures.push(time, &frame);
        self.content.push(self.frames, frame.clone());
        self.previous = Some(frame);
        self.frames += 1;
        time
    }

    /// The document of what the pass measured, with what it heard; and the cue detector, which
    /// only the picture stage finishes.
    fn document(
        self,
        cx: &Context<'_>,
        speech: Vec<[f64; 2]>,
        fingerprint: AudioFingerprint,
        loudness: &[f64],
    ) -> (Signals, Option<CueDetector>, PictureValues) {
        let Context { path, options, ref info, n, .. } = *cx;
        let duration = info.duration;
        // Times on the millisecond grid every result is reported on (`kino::report`), so clips that
        // snap to these cuts and avoid this speech report exactly the times the rules were checked on.
        let to_time = |f: usize| report::time(f as f64 / self.rate);
        let runs = self.fades.finish();
        let boundaries = merge_boundaries(&self.content.finish(), &runs, self.min_shot_frames);
        let shots: Vec<f64> = boundaries.iter().map(|&f| to_time(f)).filter(|&t| t > 0.0 && t < duration).collect();
        let fade_times: Vec<f64> = runs.iter().map(|r| to_time(r.darkest)).collect();
        let values = self.timelines.finish(self.size.0);
        let picture =
            PictureValues { motion: values.motion.clone(), saturation: values.saturation, warmth: values.warmth };
        let doc = Signals {
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
                relevance: relevance(loudness, &values.motion, &shots, options.step),
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
            vertical: Some(Vertical {
                step: options.step,
                x_center: values.x_center,
                blackbars: self.bars.finish(info.height),
            }),
            analysis: None,
            text: None,
            transcript: None,
            audio_fingerprint: Some(fingerprint),
            character_descriptors: None,
            visual: None,
            picture_fingerprint: Some(self.pictures.finish(duration)),
            objects: None,
            speakers: None,
            scene_channels: None,
        };
        (doc, self.cues, picture)
    }
}

/// The ffmpeg command of the video pass: the analysis frames (`w x h` at `rate`) on stdout, and
/// with `sampled`, also frames [`vision::VISION_WIDTH`] wide (at most the source width) every
/// `options.vision_interval` seconds on descriptor 3, from the same decode; their size.
pub(super) fn video_command(
    path: &Path,
    options: &AnalyzeOptions,
    rate: f64,
    (w, h): (usize, usize),
    info: &MediaInfo,
    sampled: bool,
) -> (std::process::Command, Option<(usize, usize)>) {
    let mut cmd = tool::command("ffmpeg");
    cmd.args(["-threads", &options.threads.to_string(), "-flags2", "+fast"]);
    tool::input(&mut cmd, path, tool::MEDIA_FORMATS);
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
pub(super) fn analysis_size(info: &MediaInfo, width: u32) -> (usize, usize) {
    let w = (width.min(info.width) / 2 * 2).max(2);
    let h = ((f64::from(w) * f64::from(info.height) / f64::from(info.width) / 2.0).round() as u32 * 2).max(2);
    (w as usize, h as usize)
}
