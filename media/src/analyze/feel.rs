//! The affect stage: every channel the analysis measured becomes a reading
//! ([`crate::affect::readings`]), the readings are fused into the emotion track, and the clip
//! types and the best moments are built on it. Runs for the fast document (without what is said)
//! and again for the final one; the sentence model's placements are made once
//! ([`Placed`]).

use std::collections::BTreeMap;

use kino::{Signals, TextEncoder};

use super::context::Context;
use super::pass::PictureValues;
use super::provenance::Ledger;
use crate::affect::anchors::Anchors;
use crate::affect::best::{BestMomentInputs, Relevance, best_moments};
use crate::affect::clip_types::{ClipTypeInputs, clip_types};
use crate::affect::readings::{self, FacesSeen};
use crate::affect::seen::{ACTION_CLASSES, SCENERY_CLASSES};
use crate::affect::{EMOTION_COUNT, Reading, fuse};
use crate::error::Result;
use crate::see::{Seen, Sight};
use crate::sound::SOUND_GROUPS;

/// What the sound stage heard, for the affect.
#[derive(Debug, Clone, Default)]
pub(super) struct SoundHeard {
    /// Each sound group's score per sample (`sound::SoundChannels::groups`).
    pub groups: Vec<Vec<f32>>,
    /// The clip types sound events are evidence of.
    pub clip_types: BTreeMap<String, Vec<f32>>,
    /// The tagger's `id version`.
    pub label: String,
}

/// The sentence model's placements, made once per analysis.
#[derive(Default)]
pub(super) struct Placed {
    anchors: Option<Anchors>,
    said: Option<Vec<(f64, f64, [f32; EMOTION_COUNT])>>,
}

/// Channels absent from the affect, each with the reason.
type Absent = Vec<(&'static str, String)>;

/// The readings of every channel with evidence, and why each absent one is absent.
fn readings_of(
    cx: &Context<'_>,
    doc: &Signals,
    sight: Option<&Sight>,
    loudness: &[f64],
    picture: &PictureValues,
    heard: Option<&SoundHeard>,
    placed: &mut Placed,
) -> Result<(Vec<Reading>, Absent)> {
    let n = doc.timelines.brightness.len();
    let step = doc.step;
    let interval = cx.options.vision_interval;
    let mut out = vec![
        readings::colour(&doc.timelines.brightness, &picture.saturation, n),
        readings::motion(&readings::motion_units(&picture.motion), &readings::cut_units(&doc.shots, step, n), n),
    ];
    let mut absent = Vec::new();
    match readings::loudness(loudness, cx.info.has_audio, n) {
        Some(r) => out.push(r),
        None => absent.push(("loudness", "the video has no audio stream".to_string())),
    }
    match heard {
        Some(h) => {
            out.push(readings::sound_events(&h.groups, &format!("{} (sound and music-mood classes)", h.label), n))
        }
        None if !cx.info.has_audio => absent.push(("sound events", "the video has no audio stream".to_string())),
        None => absent.push(("sound events", cx.absent_reason("yamnet", "sound-event"))),
    }
    let encoder = cx.models.sentence_encoder();
    let fail = |source| cx.model_error(source);
    if let Some(encoder) = encoder
        && placed.anchors.is_none()
    {
        placed.anchors = Some(Anchors::new(encoder).map_err(fail)?);
    }
    let sentence = encoder.map(|e| e.version().to_string()).unwrap_or_default();
    // What is seen: the labels of the table `affect::seen`, frame by frame.
    match sight.filter(|s| s.labels.labeler.is_some()) {
        Some(sight) => {
            let spans: Vec<(f64, f64, [f32; EMOTION_COUNT])> = sight
                .seen
                .iter()
                .filter_map(|s| Some((s.time, s.time + interval, crate::affect::seen::frame_probs(s.labels.as_ref()?))))
                .collect();
            let label = sight.labels.labeler.clone().unwrap_or_default();
            let source = format!("{label} labels, kino's table of the labels that carry an emotion");
            out.push(readings::placed("seen", &source, &spans, readings::SEEN_WEIGHT, step, n));
        }
        None => absent.push(("seen", cx.absent_reason("efficientnet-lite0", "image classification"))),
    }
    // What is said, segment by segment.
    match (encoder, placed.anchors.as_ref(), &doc.transcript) {
        (Some(encoder), Some(anchors), Some(transcript)) => {
            if placed.said.is_none() {
                let texts: Vec<String> = transcript.segments.iter().map(|s| s.text.clone()).collect();
                let probs = anchors.texts(encoder, &texts).map_err(fail)?;
                placed.said = Some(transcript.segments.iter().zip(probs).map(|(s, p)| (s.start, s.end, p)).collect());
            }
            let source = format!("the transcript placed by {sentence}");
            out.push(readings::placed(
                "speech",
                &source,
                placed.said.as_deref().unwrap_or(&[]),
                readings::SPEECH_WEIGHT,
                step,
                n,
            ));
            let segments: Vec<(f64, f64, usize)> = transcript
                .segments
                .iter()
                .map(|s| {
                    (s.start, s.end, if s.words.is_empty() { s.text.split_whitespace().count() } else { s.words.len() })
                })
                .collect();
            out.push(readings::prosody(&segments, n, step));
        }
        (_, _, None) => {
            let reason = if cx.info.has_audio {
                cx.absent_reason("whisper-base", "speech recognition")
            } else {
                "the video has no audio stream".to_string()
            };
            absent.push(("speech", reason.clone()));
            absent.push(("prosody", reason));
        }
        _ => absent.push(("speech", cx.absent_reason("all-minilm-l6-v2", "sentence"))),
    }
    match sight.filter(|s| s.labels.faces.is_some()) {
        Some(sight) => {
            let frames = faces_seen(&sight.seen);
            if frames.iter().any(|f| f.faces.iter().any(|(_, e)| e.is_some())) {
                let label = expression_label(sight);
                out.push(readings::faces(&frames, &label, interval, step, n));
            } else {
                absent.push(("faces", expression_absent(cx, sight)));
            }
        }
        None => absent.push(("faces", cx.absent_reason("dlib-faces", "face"))),
    }
    Ok((out, absent))
}

/// Each sampled frame's faces: height and expression.
fn faces_seen(seen: &[Seen]) -> Vec<FacesSeen> {
    seen.iter()
        .filter_map(|s| {
            let faces = s.faces.as_ref()?;
            let expressions = expressions_of(s);
            Some(FacesSeen {
                time: s.time,
                faces: faces.iter().enumerate().map(|(k, f)| (f.h, expressions.get(k).copied().flatten())).collect(),
            })
        })
        .collect()
}

/// The expression of each face of a frame, where the model gave one it stands by (it abstains
/// on unsure faces and weak detections: [`kino_models::expression_label`]).
fn expressions_of(seen: &Seen) -> Vec<Option<[f32; 7]>> {
    let (Some(faces), Some(rows)) = (&seen.faces, &seen.expressions) else { return Vec::new() };
    faces.iter().zip(rows).map(|(face, row)| kino_models::expression_label(row, face).map(|_| *row)).collect()
}

fn expression_label(sight: &Sight) -> String {
    format!(
        "{} (facial expressions of the faces found; abstains on unsure faces and weak detections)",
        sight.labels.expression.clone().unwrap_or_default()
    )
}

/// Why no face's expression counts: the model is missing, or it abstained on every face.
fn expression_absent(cx: &Context<'_>, sight: &Sight) -> String {
    if sight.labels.expression.is_none() {
        return cx.absent_reason("fer-expression", "facial expression");
    }
    if sight.seen.iter().any(|s| s.faces.as_ref().is_some_and(|f| !f.is_empty())) {
        "the facial expression model abstained on every face (unsure, or a weak detection)".to_string()
    } else {
        "no face was found".to_string()
    }
}

/// The affect of the document: its emotion track, clip types and best moments, each recorded in
/// the ledger with the channels that spoke.
#[allow(clippy::too_many_arguments)]
pub(super) fn feel(
    cx: &Context<'_>,
    doc: &mut Signals,
    ledger: &mut Ledger,
    sight: Option<&Sight>,
    loudness: &[f64],
    picture: &PictureValues,
    heard: Option<&SoundHeard>,
    placed: &mut Placed,
) -> Result<()> {
    let n = doc.timelines.brightness.len();
    let step = doc.step;
    let (readings, absent) = readings_of(cx, doc, sight, loudness, picture, heard, placed)?;
    let fused = fuse(&readings, step, n);
    let spoke = provenance(&readings, &absent);
    doc.emotions = Some(fused.emotions());
    ledger.measured("emotions", format!("kino affect model: {spoke}"));

    let motion = readings::motion_units(&picture.motion);
    let cues = Cues::new(doc, sight, cx.options.vision_interval, n);
    let music_group = SOUND_GROUPS.iter().position(|g| g.name == "music");
    let music: Vec<f32> = heard.and_then(|h| h.groups.get(music_group?).cloned()).unwrap_or_default();
    let no_sound = BTreeMap::new();
    let loud = if cx.info.has_audio { readings::loudness_units(loudness) } else { Vec::new() };
    let types = clip_types(&ClipTypeInputs {
        fused: &fused,
        brightness: &doc.timelines.brightness,
        saturation: &picture.saturation,
        warmth: &picture.warmth,
        motion: &motion,
        cuts: &readings::cut_units(&doc.shots, step, n),
        loudness: &loud,
        sound: heard.map_or(&no_sound, |h| &h.clip_types),
        music: &music,
        action_seen: &cues.action,
        scenery_seen: &cues.scenery,
        wide: &cues.wide,
        couple: &cues.couple,
        blood_gore: &doc.timelines.blood_gore,
    });
    doc.timelines.clip_types = types;
    ledger.measured(
        "timelines.clip_types",
        "kino clip-type rules over the emotion track (its channels as in `emotions`) and the picture's and the \
         sound's cues",
    );
    if cx.options.relevance == Relevance::Affect {
        doc.timelines.relevance = best_moments(&BestMomentInputs {
            fused: &fused,
            motion: &motion,
            people: &cues.people,
            said: &cues.said,
            text: &cues.text,
            brightness: &doc.timelines.brightness,
            credits: &cues.credits,
        });
        ledger.measured(
            "timelines.relevance",
            "kino best moments over the emotion track (its channels as in `emotions`): arousal and its peaks, \
             emotional change, faces and the main character, speech; credits, black, title cards and static \
             frames kept out",
        );
    }
    Ok(())
}

/// The channels that spoke, each with its share of the timeline and what measured it; then the
/// absent ones with the reason.
fn provenance(readings: &[Reading], absent: &[(&'static str, String)]) -> String {
    let mut parts: Vec<String> = readings
        .iter()
        .map(|r| format!("{} {:.0}% of the timeline ({})", r.channel, 100.0 * r.share(), r.source))
        .collect();
    parts.extend(absent.iter().map(|(channel, why)| format!("{channel} absent ({why})")));
    parts.join("; ")
}

/// Per-sample cues read by the clip types and the best moments.
struct Cues {
    action: Vec<f32>,
    scenery: Vec<f32>,
    wide: Vec<f32>,
    couple: Vec<f32>,
    people: Vec<f32>,
    said: Vec<f32>,
    text: Vec<f32>,
    credits: Vec<f32>,
}

impl Cues {
    fn new(doc: &Signals, sight: Option<&Sight>, interval: f64, n: usize) -> Cues {
        let step = doc.step;
        let mut c = Cues {
            action: vec![0.0; n],
            scenery: vec![0.0; n],
            wide: vec![0.0; n],
            couple: vec![0.0; n],
            people: vec![0.0; n],
            said: vec![0.0; n],
            text: vec![0.0; n],
            credits: vec![0.0; n],
        };
        let span = |a: f64, b: f64| readings::samples_of(a, b, step, n);
        for s in sight.map_or(&[][..], |s| &s.seen[..]) {
            let labels = s.labels.as_deref().unwrap_or(&[]);
            let of = |classes: &[u16]| labels.iter().filter(|(i, _)| classes.contains(i)).map(|&(_, p)| p).sum::<f32>();
            let (action, scenery) = (of(ACTION_CLASSES).min(1.0), of(SCENERY_CLASSES).min(1.0));
            let faces = s.faces.as_deref().unwrap_or(&[]);
            let couple = faces.iter().enumerate().any(|(k, a)| {
                faces[k + 1..].iter().any(|b| (a.x + a.w / 2.0 - b.x - b.w / 2.0).abs() < 1.5 * a.w.max(b.w))
            });
            for i in span(s.time, s.time + interval) {
                c.action[i] = c.action[i].max(action);
                c.scenery[i] = c.scenery[i].max(scenery);
                c.couple[i] = if couple { 1.0 } else { c.couple[i] };
                c.people[i] = c.people[i].max(if faces.is_empty() { 0.0 } else { 0.6 });
            }
        }
        if let Some(visual) = &doc.visual {
            for shot in visual.shot_types.iter().filter(|t| t.kind == "wide") {
                span(shot.start, shot.end).for_each(|i| c.wide[i] = 1.0);
            }
        }
        if let Some(main) = doc.characters.iter().find(|ch| ch.rank == 0) {
            for &[a, b] in &main.spans {
                span(a, b).for_each(|i| c.people[i] = 1.0);
            }
        }
        for &[a, b] in &doc.speech {
            span(a, b).for_each(|i| c.said[i] = 1.0);
        }
        if let Some(text) = &doc.text {
            for (k, &d) in text.density.iter().enumerate() {
                span(k as f64 * text.step, (k + 1) as f64 * text.step).for_each(|i| c.text[i] = c.text[i].max(d));
            }
        }
        if let Some(credits) = kino::markers::credits(doc) {
            span(credits.start, credits.end.unwrap_or(doc.duration)).for_each(|i| c.credits[i] = 1.0);
        }
        if let Some(visual) = &doc.visual {
            for cue in visual.cues.iter().filter(|q| q.kind == "black") {
                span(cue.start, cue.end).for_each(|i| c.credits[i] = 1.0);
            }
        }
        c
    }
}
