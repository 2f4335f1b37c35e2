//! The stages after the pass, one function each, in the order they run: what the vision models
//! saw (nudity and on-screen text, faces, the picture), the sound events, the transcript and the
//! embeddings. Each fills its channels of the document and records them in the [`Ledger`]:
//! measured with the model, or absent with the reason.

use std::sync::atomic::{AtomicBool, Ordering};

use kino::report;
use kino::signals::{SpeakerTurn, Speakers, Tag};
use kino::{Signals, TextEncoder};
use kino_models::{SoundEvents, TranscribeOptions, Whisper};

use super::context::Context;
use super::feel::SoundHeard;
use super::provenance::Ledger;
use crate::embed::{Part, SceneFacts, describe_scene, item_embedding, normalise};
use crate::error::{Error, Result};
use crate::see::{self, Sight};
use crate::spilled::SpilledAudio;

/// Nudity from the nudity classifier and on-screen text from the text reader, on the sampled
/// frames.
pub(super) fn nudity_and_text(cx: &Context<'_>, doc: &mut Signals, ledger: &mut Ledger, sight: Option<&Sight>) {
    let options = cx.options;
    match sight.filter(|s| s.labels.nsfw.is_some()) {
        Some(sight) => {
            if let Some(nudity) =
                see::nudity_timeline(&sight.seen, options.vision_interval, cx.duration(), options.step)
            {
                doc.timelines.nudity = nudity;
                let label = sight.labels.nsfw.clone().unwrap_or_default();
                let rule = match (&sight.labels.faces, see::person_in_view(&sight.seen)) {
                    (Some(faces), Some(_)) => format!(
                        "; without a person in view ({faces} faces) a score below {} counts at most {}",
                        see::STRONG_NUDITY,
                        see::NO_PERSON_CAP
                    ),
                    _ => "; no person rule: the face model did not run".to_string(),
                };
                ledger.measured(
                    "timelines.nudity",
                    format!("{label} (frames every {} s{rule})", options.vision_interval),
                );
            }
        }
        None => ledger.absent("timelines.nudity", cx.absent_reason("open-nsfw", "nudity")),
    }
    match sight.filter(|s| s.labels.ocr.is_some()) {
        Some(sight) => {
            doc.text = see::on_screen_text(&sight.seen, options.vision_interval, cx.duration());
            if doc.text.is_some() {
                let label = sight.labels.ocr.clone().unwrap_or_default();
                ledger.measured(
                    "text",
                    format!("{label} (frames every {} s)", options.vision_interval * see::TEXT_EVERY as f64),
                );
            }
        }
        None => ledger.absent("text", cx.absent_reason("ppocr", "text")),
    }
}

/// Faces: characters ranked by screen time, their descriptors, and a subject track for the
/// vertical crop that follows the main one.
pub(super) fn faces(cx: &Context<'_>, doc: &mut Signals, ledger: &mut Ledger, sight: Option<&Sight>) {
    let Some((sight, label)) = sight.and_then(|s| Some((s, s.labels.faces.clone()?))) else {
        for channel in ["characters", "character_descriptors"] {
            ledger.absent(channel, cx.absent_reason("dlib-faces", "face"));
        }
        return;
    };
    let interval = cx.options.vision_interval;
    let samples: Vec<(f64, Vec<crate::faces::Face>)> =
        sight.seen.iter().filter_map(|s| s.faces.clone().map(|f| (s.time, f))).collect();
    let params = crate::faces::CharacterParams { interval: Some(interval), ..crate::faces::CharacterParams::default() };
    let found = crate::faces::characters(&samples, &doc.shots, cx.duration(), &params);
    doc.characters = found.characters;
    ledger.measured(
        "characters",
        format!(
            "{label} ({} identities, clustering threshold {:.2}, frames every {interval} s)",
            doc.characters.len(),
            found.threshold,
        ),
    );
    let descriptors: Vec<Vec<f32>> = found.identities.iter().map(|i| i.centroid.clone()).collect();
    if descriptors.iter().all(|d| !d.is_empty()) {
        doc.character_descriptors = Some(descriptors);
        ledger.measured("character_descriptors", format!("{label} (the mean descriptor of each character)"));
    }
    if let Some(vertical) = &mut doc.vertical {
        // Where no face is found, the largest person box (when the detector ran).
        let person_x = |t: f64| sight.seen.iter().find(|s| s.time == t).and_then(crate::objects::main_person_x);
        let per_sample: Vec<(f64, Option<f32>)> = samples
            .iter()
            .map(|(t, _)| *t)
            .zip(found.per_sample_main_x.iter().copied())
            .map(|(t, x)| (t, x.or_else(|| person_x(t))))
            .collect();
        if per_sample.iter().any(|(_, x)| x.is_some()) {
            vertical.x_center =
                crate::faces::follow_subject(&per_sample, &vertical.x_center, vertical.step, &doc.shots)
                    .into_iter()
                    .map(|x| report::score(f64::from(x)) as f32)
                    .collect();
            let people = match &sight.labels.objects {
                Some(objects) => format!("; else the largest {objects} person box"),
                None => String::new(),
            };
            ledger.measured(
                "vertical",
                format!("{label} (the main character's face{people}; saliency where neither is found)"),
            );
        }
    }
}

/// People and objects: the detector's boxes on the sampled frames, followed across each shot
/// ([`crate::objects`]).
pub(super) fn objects(cx: &Context<'_>, doc: &mut Signals, ledger: &mut Ledger, sight: Option<&Sight>) {
    let Some((sight, label)) = sight.and_then(|s| Some((s, s.labels.objects.clone()?))) else {
        ledger.absent("objects", cx.absent_reason("yolov3-tiny", "object detection"));
        return;
    };
    let interval = cx.options.vision_interval;
    doc.objects = crate::objects::objects(&sight.seen, &doc.shots, interval, cx.duration());
    if doc.objects.is_some() {
        ledger.measured(
            "objects",
            format!(
                "{label} (COCO's 80 classes, {side}x{side} letterboxed, confidence at least {min}, frames every \
                 {interval} s); tracks by rule: same-class boxes of consecutive frames of a shot overlapping by \
                 {iou} or more, the best overlaps first",
                side = kino_models::OBJECT_INPUT_SIDE,
                min = kino_models::OBJECT_MIN_CONFIDENCE,
                iou = crate::objects::TRACK_IOU,
            ),
        );
    }
}

/// Sound events: tags where the evidence is real, and what the affect stage reads (each sound
/// group's score, the clip types sound is evidence of). Gives the strongest sounds of each scene,
/// for its description.
pub(super) fn sounds(
    cx: &Context<'_>,
    doc: &mut Signals,
    ledger: &mut Ledger,
    sounds: Option<&(SoundEvents, String)>,
) -> (Vec<Vec<(String, f32)>>, Option<SoundHeard>) {
    let Some((events, label)) = sounds else {
        let reason = match cx.missing.get("yamnet") {
            Some(reason) => reason.to_string(),
            None if !cx.info.has_audio => "the video has no audio stream".to_string(),
            None => "the sound-event model is not loaded".to_string(),
        };
        ledger.absent("tags", reason);
        return (Vec::new(), None);
    };
    let channels = crate::sound::sound_channels(
        &events.names,
        events.hop,
        &events.scores,
        cx.duration(),
        cx.options.step,
        &doc.scenes,
    );
    doc.tags = channels.tags;
    ledger.measured("tags", format!("{label} (AudioSet sound events)"));
    let heard = SoundHeard { groups: channels.groups, clip_types: channels.clip_types, label: label.clone() };
    (channels.scene_sounds, Some(heard))
}

/// What the picture shows: labels, shot types, visual features, technical cues (from the
/// analysis frames, `cues`, looked for when the classifier is loaded), and tags. Gives the tags of
/// what is seen.
pub(super) fn picture(
    cx: &Context<'_>,
    doc: &mut Signals,
    ledger: &mut Ledger,
    sight: Option<&Sight>,
    cues: Option<crate::picture::CueDetector>,
) -> Vec<Tag> {
    let Some((sight, names, label)) = sight.and_then(|s| Some((s, s.label_names()?, s.labels.labeler.clone()?))) else {
        ledger.absent("visual", cx.absent_reason("efficientnet-lite0", "image classification"));
        return Vec::new();
    };
    let options = cx.options;
    let duration = cx.duration();
    let cues = cues.map(|c| c.finish(duration)).unwrap_or_default();
    let visual =
        crate::picture::visual(&sight.seen, names, options.vision_interval, (&doc.shots, &doc.scenes, duration), cues);
    let seen_tags = visual.tags.clone();
    doc.visual = Some(visual);
    let people = match (&sight.labels.objects, &sight.labels.faces) {
        (Some(objects), Some(faces)) => format!("the largest {objects} person box and the tallest {faces} face"),
        (Some(objects), None) => format!("the largest {objects} person box"),
        (None, Some(faces)) => format!("the tallest {faces} face"),
        (None, None) => "person labels alone".to_string(),
    };
    let object_tags = match &sight.labels.objects {
        Some(objects) => format!(", and {objects} objects of at least {}", crate::objects::OBJECT_TAG_MIN),
        None => String::new(),
    };
    ledger.measured(
        "visual",
        format!(
            "{label} (ImageNet-1k classes, frames every {} s, black bars cut off and letterboxed; the regions of the \
             detector's two largest non-person boxes read too; tags of labels of at least {} times the frame's \
             visibility{object_tags}); shot \
             types by rule from {people}; technical cues (black frames, colour bars, rolls) by rule from the \
             analysis frames, no model",
            options.vision_interval,
            crate::picture::TAG_MIN
        ),
    );
    seen_tags
}

/// Who speaks when: speaker turns over the speech intervals of the `kept` audio (the speaker
/// embedder's windows, clustered within the title: [`crate::voices`]), each speaker's voice, and
/// the character alone on screen while a speaker speaks, by rule. Runs after the faces stage.
pub(super) fn speakers(
    cx: &Context<'_>,
    doc: &mut Signals,
    ledger: &mut Ledger,
    kept: Option<&SpilledAudio>,
) -> Result<()> {
    const MODEL: &str = "voicefilter-dvector";
    let lent = if cx.info.has_audio { cx.models.voices() } else { None };
    let (Some(lent), Some(audio)) = (lent, kept) else {
        let reason = if cx.info.has_audio {
            cx.absent_reason(MODEL, "speaker voice")
        } else {
            "the video has no audio stream".to_string()
        };
        ledger.absent("speakers", reason);
        return Ok(());
    };
    let mut embedder = lent.map_err(|e| cx.model_error(e))?;
    let regions = crate::voices::listen(&mut embedder, audio, &doc.speech);
    cx.models.give_back(embedder);
    let regions = regions.map_err(|e| cx.model_error(e))?;
    audio.check().map_err(|e| Error::io(cx.path, e))?;
    let settings = crate::voices::Diarization::default();
    let found = crate::voices::diarize(&regions, &settings);
    let turns: Vec<SpeakerTurn> = found
        .turns
        .iter()
        .map(|t| SpeakerTurn {
            start: report::time(t.start),
            end: report::time(t.end),
            speaker: t.speaker as u32,
            embedding: t.embedding.clone(),
        })
        .filter(|t| t.start < t.end)
        .collect();
    let spans: Vec<Vec<[f64; 2]>> = doc.characters.iter().map(|c| c.spans.clone()).collect();
    let characters = if spans.is_empty() {
        Vec::new()
    } else {
        crate::voices::link_characters(&found.turns, found.voices.len(), &spans)
    };
    let linked = characters.iter().flatten().count();
    let label = cx.models.state(MODEL).map(|s| s.label()).unwrap_or_default();
    doc.speakers = Some(Speakers { turns, voices: found.voices, characters });
    ledger.measured(
        "speakers",
        format!(
            "{label} (0.82 s windows every 0.4 s of the speech intervals; 1.6 s segments clustered within \
             the title by average linkage on cosine less the title's mean voice, cut at the highest mean \
             silhouette, one speaker below {}; speakers under {} s folded into the nearest); characters \
             by rule, not measured: the one face alone on screen for at least {} of a speaker's speech \
             ({linked} linked)",
            settings.min_silhouette,
            settings.min_speaker_seconds,
            crate::voices::CHARACTER_MIN_SHARE,
        ),
    );
    Ok(())
}

/// Speech recognition over the speech intervals of the `kept` audio: the transcript, and
/// profanity from it. `progress` goes on from the pass's total by the seconds of speech. Gives
/// the seconds of work done in all (the duration, and the speech transcribed).
pub(super) fn transcript(
    cx: &Context<'_>,
    doc: &mut Signals,
    ledger: &mut Ledger,
    recognised: Option<(&Whisper, SpilledAudio)>,
    progress: &mut impl FnMut(f64, f64),
    interrupted: &AtomicBool,
) -> Result<f64> {
    let duration = cx.duration();
    let Some((whisper, samples)) = recognised else {
        let reason = match cx.missing.get("whisper-base") {
            Some(reason) => reason.to_string(),
            None if !cx.info.has_audio => "the video has no audio stream".to_string(),
            None => "the speech recognition model is not loaded".to_string(),
        };
        for channel in ["transcript", "profanity", "timelines.profanity"] {
            ledger.absent(channel, reason.clone());
        }
        return Ok(duration);
    };
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
        .map_err(|source| cx.model_error(source))?;
    samples.check().map_err(|e| Error::io(cx.path, e))?;
    if interrupted.load(Ordering::Relaxed) {
        return Err(Error::Interrupted { path: cx.path.to_path_buf(), signal: None });
    }
    let label = cx.models.state("whisper-base").map(|s| s.label()).unwrap_or_default();
    let doc_transcript = crate::speech::transcript(&transcript, duration);
    let events = kino::lexicon::transcript_events(&doc_transcript);
    doc.timelines.profanity = kino::lexicon::timeline(&events, cx.options.step, cx.n);
    doc.profanity = Some(events);
    doc.transcript = Some(doc_transcript);
    ledger.measured(
        "transcript",
        format!("{label} (speech intervals only, {} s transcribed)", report::time(transcript.transcribed_seconds)),
    );
    for channel in ["profanity", "timelines.profanity"] {
        ledger.measured(channel, format!("{label} transcript, kino profanity lexicon (word times)"));
    }
    Ok(duration + transcript.transcribed_seconds)
}

/// Scene descriptions (what is heard, said, written and seen in each), embedded by the sentence
/// model and mixed with what is seen; the item embedding from its metadata and content.
/// `loudness` is the pass's, `scene_sounds` and `seen_tags` the sound and picture stages'.
pub(super) fn embeddings(
    cx: &Context<'_>,
    doc: &mut Signals,
    ledger: &mut Ledger,
    sight: Option<&Sight>,
    loudness: &[f64],
    scene_sounds: &[Vec<(String, f32)>],
    seen_tags: &[Tag],
) -> Result<()> {
    let Some(encoder) = cx.models.sentence_encoder() else {
        let reason = cx.missing.get("all-minilm-l6-v2").copied().unwrap_or("the sentence model is not loaded");
        for channel in ["scene_embeddings", "item_embedding", "scene_channels"] {
            ledger.absent(channel, reason);
        }
        return Ok(());
    };
    let options = cx.options;
    let mut facts = scene_facts(doc, loudness, cx.info.has_audio);
    for (i, f) in facts.iter_mut().enumerate() {
        f.sounds = scene_sounds.get(i).cloned().unwrap_or_default();
        let scene = doc.scenes[i];
        if let Some(text) = &doc.text {
            f.text = see::lines_in(text, scene.start, scene.end, 3);
        }
        if let Some(t) = &doc.transcript {
            f.said = crate::speech::said_in(t, scene.start, scene.end, crate::embed::SAID_WORDS);
        }
        f.seen =
            seen_tags.iter().filter(|t| t.start == scene.start && t.end == scene.end).map(|t| t.name.clone()).collect();
        let framing = crate::embed::scene_framing(doc, scene.start, scene.end);
        (f.people, f.shot, f.voices) = (framing.people, framing.shot, framing.voices);
        f.mood = doc
            .tags
            .iter()
            .filter(|t| t.kind == kino::signals::TagKind::Mood && t.start == scene.start && t.end == scene.end)
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .map(|t| t.name.clone());
    }
    let texts: Vec<String> = facts.iter().map(describe_scene).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let fail = |source| cx.model_error(source);
    let sentence = encoder.encode_batch(&refs).map_err(fail)?;
    let seen = match (sight, &doc.visual) {
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
        .map(|(i, v)| crate::embed::scene_embedding(v, features.as_ref().and_then(|f| f.get(i)).map(Vec::as_slice)))
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
    doc.scene_channels = Some(scene_channels(&facts, &seen, encoder, options.seen_weight).map_err(fail)?);
    ledger.measured(
        "scene_channels",
        format!(
            "{label} (each scene's seen, said, written and heard texts embedded on their own{})",
            if doc.visual.is_some() {
                format!("; seen mixed with the image labels, {} of it", options.seen_weight)
            } else {
                String::new()
            }
        ),
    );
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
    ledger.measured("scene_embeddings", format!("{label} ({how})"));
    ledger.measured(
        "item_embedding",
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
    Ok(())
}

/// Each scene's channel vectors ([`crate::embed::channels`]): every channel's text embedded on its
/// own in one batch; what is seen mixed with the image labels' ConSE vector as the description is.
fn scene_channels(
    facts: &[SceneFacts],
    seen: &[Option<Vec<f32>>],
    encoder: &kino_models::SentenceEncoder,
    seen_weight: f32,
) -> std::result::Result<kino::signals::SceneChannels, kino_models::Error> {
    let texts: Vec<[Option<String>; 4]> =
        facts.iter().map(|f| crate::embed::channels::channel_texts(f).into_array()).collect();
    let flat: Vec<&str> = texts.iter().flatten().flatten().map(String::as_str).collect();
    let mut vectors = encoder.encode_batch(&flat)?.into_iter();
    let mut lists: [Vec<Option<Vec<f32>>>; 4] = Default::default();
    for (i, scene) in texts.iter().enumerate() {
        for (k, text) in scene.iter().enumerate() {
            let v = text.as_ref().and_then(|_| vectors.next());
            let v = match (k, v) {
                (0, Some(v)) => Some(crate::picture::mix(&v, seen.get(i).and_then(|s| s.as_deref()), seen_weight)),
                (_, v) => v,
            };
            lists[k].push(v);
        }
    }
    let [seen, said, written, heard] = lists;
    Ok(kino::signals::SceneChannels { seen, said, written, heard })
}

/// Most share of a scene with speech for its on-screen words to be taken for opening titles.
const TITLES_SPEECH: f64 = 0.15;

/// What each scene holds, for its description: mean brightness, cuts per minute, the fraction
/// with speech, the mean loudness, and whether it is in the end credits or after them
/// (`kino::markers::credits`).
fn scene_facts(doc: &Signals, loudness: &[f64], has_audio: bool) -> Vec<SceneFacts> {
    let step = doc.step;
    let credits = kino::markers::credits(doc);
    // The opening titles are looked for where intros are: the first quarter, at most 10 minutes.
    let opening = (doc.duration / 4.0).min(kino::markers::MAX_WINDOW);
    // The part of the title a scene is in: the end credits or after them by its middle, the
    // opening titles by words read on screen early in the title with little dialogue.
    let part = |start: f64, end: f64, speech: f64| {
        let middle = (start + end) / 2.0;
        if let Some(c) = credits {
            if c.mid_credits.is_some_and(|(a, b)| middle >= a && middle <= b) {
                return Some(Part::MidCredits);
            }
            if middle >= c.start && middle <= c.end.unwrap_or(doc.duration) {
                return Some(Part::EndCredits);
            }
            if c.post_credits.is_some_and(|(a, b)| middle >= a && middle <= b) {
                return Some(Part::AfterCredits);
            }
        }
        let titled =
            doc.text.iter().flat_map(|t| t.lines.iter()).any(|l| l.start < end && l.end > start && see::wordy(&l.text));
        (start < opening && speech < TITLES_SPEECH && titled).then_some(Part::OpeningTitles)
    };
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
                people: None,
                shot: None,
                voices: None,
                part: part(scene.start, scene.end, speech / length),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use kino::signals::{OnScreenText, Scene, TextSpan, Visual, VisualCue};

    use super::*;

    #[test]
    fn scenes_in_the_titles_the_end_credits_and_after_them_say_so() {
        let mut doc = kino::synth::demo_signals("film", 120.0, 1.0, 2);
        let scene = |start: f64, end: f64| Scene { start, end };
        doc.scenes =
            vec![scene(0.0, 10.0), scene(10.0, 25.0), scene(25.0, 60.0), scene(60.0, 100.0), scene(100.0, 120.0)];
        doc.speech = vec![[10.0, 25.0]];
        let line = |start: f64, text: &str| TextSpan { start, end: start + 4.0, text: text.into(), score: 0.9 };
        // A title card; a sign read while someone speaks; the credits.
        let mut lines: Vec<TextSpan> = vec![line(4.0, "Big Buck Bunny"), line(12.0, "Hotel Royal")];
        lines.extend((0..10).map(|k| line(60.0 + 4.0 * k as f64, "A Name")));
        doc.text = Some(OnScreenText { step: 4.0, density: vec![0.0; 30], lines, credits_start: Some(60.0) });
        doc.visual = Some(Visual {
            interval: 1.0,
            frames: Vec::new(),
            shot_types: Vec::new(),
            scene_features: None,
            item_feature: None,
            cues: vec![VisualCue { kind: "black".into(), start: 100.0, end: 101.0 }],
            tags: Vec::new(),
        });
        let loudness = vec![-30.0; 120];
        let parts: Vec<Option<Part>> = scene_facts(&doc, &loudness, true).iter().map(|f| f.part).collect();
        assert_eq!(parts, [Some(Part::OpeningTitles), None, None, Some(Part::EndCredits), Some(Part::AfterCredits)]);
        doc.text = None;
        assert!(scene_facts(&doc, &loudness, true).iter().all(|f| f.part.is_none()));
    }

    #[test]
    fn a_scene_between_two_parts_of_the_credits_says_so() {
        let mut doc = kino::synth::demo_signals("film", 200.0, 1.0, 2);
        let scene = |start: f64, end: f64| Scene { start, end };
        doc.scenes = vec![scene(0.0, 120.0), scene(120.0, 150.0), scene(150.0, 165.0), scene(165.0, 200.0)];
        doc.speech.clear();
        doc.characters.clear();
        doc.shots = vec![120.0, 150.0, 165.0];
        let line = |start: f64| TextSpan { start, end: start + 4.0, text: format!("Crew Member {start}"), score: 0.9 };
        // Credits read from 120 to 152 s and from 166 to 186 s; the text channel found the last part.
        let lines: Vec<TextSpan> =
            (0..8).map(|k| line(120.0 + 4.0 * k as f64)).chain((0..5).map(|k| line(166.0 + 4.0 * k as f64))).collect();
        doc.text = Some(OnScreenText { step: 4.0, density: vec![0.0; 50], lines, credits_start: Some(166.0) });
        let loudness = vec![-30.0; 200];
        let parts: Vec<Option<Part>> = scene_facts(&doc, &loudness, true).iter().map(|f| f.part).collect();
        assert_eq!(parts, [None, Some(Part::EndCredits), Some(Part::MidCredits), Some(Part::EndCredits)]);
    }
}
