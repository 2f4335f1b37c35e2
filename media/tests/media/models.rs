//! Analysis with the pretrained models: the Silero VAD as the speech detector, scene and item
//! embeddings from the sentence model, and provenance that names them. Skipped loudly without the
//! models, a failure when `KINO_REQUIRE_MODELS` is set (as in `scripts/test.sh`).

use kino::TextEncoder;
use kino_media::{AnalyzeOptions, analyze, analyze_staged};

use crate::speech::placed_speech;
use crate::support::*;

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn the_neural_vad_finds_the_placed_speech() {
    let test = "the_neural_vad_finds_the_placed_speech";
    let Some(models) = models(test) else { return };
    if !tools(test, true) {
        return;
    }
    for noise in [None, Some(0.05)] {
        let (found, truth) = placed_speech(noise, models);
        let score = iou(&found, &truth);
        eprintln!("silero speech IoU {score:.3} (noise {noise:?}): found {found:?}, placed {truth:?}");
        assert!(score >= 0.8, "IoU {score} (noise {noise:?}): found {found:?}, placed {truth:?}");
    }
}

#[test]
fn music_is_not_speech_for_the_neural_vad() {
    let test = "music_is_not_speech_for_the_neural_vad";
    let Some(models) = models(test) else { return };
    if !tools(test, false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 20 s of a chord progression with a beat: harmonic, in the speech band, and not speech.
    let chords = "aevalsrc='0.2*sin(2*PI*(220+110*floor(mod(t,4)))*t)+0.15*sin(2*PI*330*t)*gt(mod(t,0.5),0.25)+0.1*sin(2*PI*660*t)':s=48000:d=20";
    let graph = format!("color=c=navy:s=320x180:r=25:d=20,format=yuv420p[v];{chords}[a]");
    let video = encode(dir.path(), "music.mp4", &graph, true, 25);
    let doc = analyze(&video, &AnalyzeOptions::default(), models, |_, _| {}).unwrap();
    let seconds: f64 = doc.speech.iter().map(|[a, b]| b - a).sum();
    let spectral = analyze(&video, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap();
    let spectral_seconds: f64 = spectral.speech.iter().map(|[a, b]| b - a).sum();
    eprintln!("speech on music: silero {seconds:.1} s, spectral {spectral_seconds:.1} s");
    assert!(seconds <= 2.0, "the VAD heard {seconds} s of speech in music: {:?}", doc.speech);
}

/// The models are loaded once and lent to one analysis at a time: the stream models (the VAD and
/// the sound tagger) come back reset and the vision models keep nothing, so an analysis with
/// models that already served one measures what the first did.
#[test]
fn models_lent_again_measure_the_same() {
    let test = "models_lent_again_measure_the_same";
    let Some(models) = models(test) else { return };
    if !tools(test, false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let chords =
        "aevalsrc='0.2*sin(2*PI*(220+110*floor(mod(t,4)))*t)+0.15*sin(2*PI*330*t)*gt(mod(t,0.5),0.25)':s=48000:d=8";
    let graph = format!("testsrc2=r=25:s=320x180:d=8,format=yuv420p[v];{chords}[a]");
    let video = encode(dir.path(), "twice.mp4", &graph, true, 25);
    let first = analyze(&video, &AnalyzeOptions::default(), models, |_, _| {}).unwrap();
    let second = analyze(&video, &AnalyzeOptions::default(), models, |_, _| {}).unwrap();
    assert!(first.analysis.as_ref().unwrap().models["speech"].starts_with("silero-vad"), "{:?}", first.analysis);
    assert_eq!(first, second);
}

#[test]
fn models_measure_embeddings_and_say_so() {
    let test = "models_measure_embeddings_and_say_so";
    let Some(models) = models(test) else { return };
    if !tools(test, false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A dark, still first half and a bright, busy second half: two scenes that read differently.
    let graph = "color=c=black:s=320x180:r=25:d=10,format=yuv420p[d];testsrc2=r=25:s=320x180:d=10,format=yuv420p[b];[d][b]concat=n=2:v=1:a=0[v]";
    let video = encode(dir.path(), "two.mp4", graph, false, 25);
    let options = AnalyzeOptions {
        min_scene: 4.0,
        item_text: Some("Iron Harbor. Genres: action, thriller.".into()),
        ..AnalyzeOptions::default()
    };
    let doc = analyze(&video, &options, models, |_, _| {}).unwrap();
    doc.validate().unwrap();
    let analysis = doc.analysis.as_ref().unwrap();
    for channel in ["scene_embeddings", "item_embedding"] {
        assert!(analysis.measured.iter().any(|c| c == channel), "{channel}: {analysis:?}");
        assert!(analysis.models[channel].starts_with("all-minilm-l6-v2 1.0.0"), "{analysis:?}");
    }
    // No audio stream: speech is measured (nothing), not by a model.
    assert!(!analysis.models.contains_key("speech"), "{analysis:?}");
    assert!(analysis.absent.iter().any(|c| c == "tags") && !analysis.reasons["tags"].is_empty(), "{analysis:?}");
    // Without sound the affect comes from the picture, and its provenance says so: the dark, still
    // half is less pleasant and calmer than the bright, busy one.
    let feel = &analysis.models["emotions"];
    assert!(feel.contains("colour 100%") && feel.contains("loudness absent (the video has no audio stream)"), "{feel}");
    let e = doc.emotions.as_ref().expect("a title with a picture has emotions");
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    assert!(mean(&e.valence[12..19]) - mean(&e.valence[1..8]) > 0.2, "{:?}", e.valence);
    assert!(mean(&e.arousal[12..19]) - mean(&e.arousal[1..8]) > 0.2, "{:?}", e.arousal);
    // The picture is measured, its tags in `visual.tags`.
    assert!(analysis.models["visual"].starts_with("efficientnet-lite0 0.1.0"), "{analysis:?}");
    let visual = doc.visual.as_ref().unwrap();
    assert_eq!(visual.shot_types.len(), doc.shots.len() + 1);
    assert_eq!(visual.scene_features.as_ref().unwrap().len(), doc.scenes.len());
    assert!(!visual.frames.is_empty(), "every sampled frame is in the channel, labelled or not");
    // The vision models saw the sampled frames: nudity (none in test patterns) and text.
    assert!(analysis.models["timelines.nudity"].starts_with("open-nsfw 0.1.0"), "{analysis:?}");
    assert!(doc.timelines.nudity.iter().all(|&p| p < 0.5), "{:?}", doc.timelines.nudity);
    assert!(analysis.models["text"].starts_with("ppocr 3.10.0"), "{analysis:?}");
    // The object detector saw every sampled frame too, and the shot types say what decided them.
    assert!(analysis.models["objects"].starts_with("yolov3-tiny 0.0.5"), "{analysis:?}");
    assert_eq!(doc.objects.as_ref().unwrap().frames.len(), visual.frames.len());
    assert!(analysis.models["visual"].contains("person box"), "{analysis:?}");
    let text = doc.text.as_ref().unwrap();
    assert_eq!(text.credits_start, None);
    let scenes = doc.scene_embeddings.as_ref().unwrap();
    assert_eq!(scenes.len(), doc.scenes.len());
    assert!(doc.scenes.len() >= 2, "{:?}", doc.scenes);
    assert!(scenes.iter().all(|v| v.len() == 1024 && (dot(v, v) - 1.0).abs() < 1e-4));
    let item = doc.item_embedding.as_ref().unwrap();
    assert!(item.len() == 256 && (dot(item, item) - 1.0).abs() < 1e-4);
    // What the title looks like is in the item embedding's last 64 dimensions, and it says so.
    assert!(visual.item_feature.is_some());
    let looks: f64 = item[kino_media::embed::ITEM_TEXT_DIM..].iter().map(|x| f64::from(*x).powi(2)).sum();
    assert!((looks - f64::from(kino_media::embed::VISUAL_SHARE)).abs() < 1e-4, "{looks}");
    assert!(analysis.models["item_embedding"].contains("what the title looks like"), "{analysis:?}");
    // The query space is the scene space: a query about darkness prefers the dark scene.
    let encoder = models.scene_text_encoder();
    assert_eq!(encoder.dim(), 1024);
    let query = encoder.encode("a pitch black night scene").unwrap();
    let (first, last) = (dot(&query, &scenes[0]), dot(&query, scenes.last().unwrap()));
    eprintln!("dark query: dark scene {first:.3}, bright scene {last:.3}, margin {:.3}", first - last);
    assert!(first - last >= MEANING_MARGIN, "dark query: dark scene {first}, bright scene {last}");
    let binary = kino::Signals::from_binary(&doc.to_binary()).unwrap();
    assert_eq!(binary, doc);
}

#[test]
fn without_models_the_analysis_says_why_channels_are_absent() {
    let test = "without_models_the_analysis_says_why_channels_are_absent";
    if !tools(test, false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = encode(dir.path(), "plain.mp4", "testsrc2=r=25:s=320x180:d=4,format=yuv420p[v]", false, 25);
    let empty = tempfile::tempdir().unwrap();
    let models = kino_media::AnalysisModels::load(&kino_models::ModelsDir::at(empty.path()), 1);
    let doc = analyze(&video, &AnalyzeOptions::default(), &models, |_, _| {}).unwrap();
    let analysis = doc.analysis.as_ref().unwrap();
    // No model measured anything; the affect rules did, and name every model that was missing.
    let by_rule = ["emotions", "timelines.clip_types", "timelines.relevance"];
    assert!(analysis.models.keys().all(|c| by_rule.contains(&c.as_str())), "{analysis:?}");
    assert!(analysis.models["emotions"].contains("run `kino models fetch`"), "{analysis:?}");
    assert!(analysis.reasons["scene_embeddings"].contains("kino models fetch"), "{analysis:?}");
    assert!(analysis.reasons["tags"].contains("kino models fetch yamnet"), "{analysis:?}");
    assert!(doc.scene_embeddings.is_none() && doc.item_embedding.is_none());
}

#[test]
fn sound_events_become_tags_clip_types_and_descriptions() {
    let test = "sound_events_become_tags_clip_types_and_descriptions";
    let Some(models) = models(test) else { return };
    if !models.state("yamnet").is_some_and(|s| s.loaded) {
        if std::env::var_os("KINO_REQUIRE_MODELS").is_some_and(|v| v != "0") {
            panic!("{test}: KINO_REQUIRE_MODELS is set but yamnet is not loaded; run `kino models fetch yamnet`");
        }
        eprintln!("!!! SKIPPED {test}: yamnet not fetched (kino models fetch yamnet)");
        return;
    }
    if !tools(test, true) {
        return;
    }
    // Speech over silence: YAMNet hears "Speech", which is evidence of no clip type.
    let dir = tempfile::tempdir().unwrap();
    let (wav, _) = speak(dir.path(), "line.wav", "The old lighthouse keeper told us a story about the sea.");
    let graph = "color=c=gray:s=320x180:r=25:d=6,format=yuv420p[v]";
    let video = dir.path().join("talk.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "anullsrc=r=16000:cl=mono:d=6",
        "-i",
        wav.to_str().unwrap(),
        "-filter_complex",
        &format!("{graph};[0:a][1:a]amix=inputs=2:normalize=0:duration=first[a]"),
        "-map",
        "[v]",
        "-map",
        "[a]",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        "-t",
        "6",
        video.to_str().unwrap(),
    ]);
    let doc = analyze(&video, &AnalyzeOptions::default(), models, |_, _| {}).unwrap();
    let analysis = doc.analysis.as_ref().unwrap();
    assert!(analysis.measured.iter().any(|c| c == "tags"), "{analysis:?}");
    assert!(analysis.models["tags"].starts_with("yamnet 0.2.1"), "{analysis:?}");
    assert!(analysis.models["emotions"].contains("sound events 0% of the timeline (yamnet 0.2.1"), "{analysis:?}");
    // Speech alone is evidence of no clip type and of no emotion among the sound events: their
    // reading says nothing, and the emotion track says so.
    assert!(!doc.timelines.clip_types.contains_key("Funny and comical"), "{:?}", doc.timelines.clip_types.keys());
}

/// The least lead of the right scene in [`scenes_are_found_by_meaning_not_by_shared_words`]: ten
/// times what ONNX Runtime's kernels move a score between CPUs.
const MEANING_MARGIN: f32 = 0.05;

/// Scenes found by meaning: the descriptions of a dark silent scene and a lit scene with dialogue,
/// queried in words that share none of theirs. The sentence model ranks them right; the lexical
/// encoder (the fallback) finds nothing. The printed table is the one in `docs/media.md`.
#[test]
fn scenes_are_found_by_meaning_not_by_shared_words() {
    let test = "scenes_are_found_by_meaning_not_by_shared_words";
    let Some(models) = models(test) else { return };
    if !tools(test, true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (wav, _) = speak(
        dir.path(),
        "line.wav",
        "Where were you last night? I waited for hours. I was at the station, I missed the train.",
    );
    let video = dir.path().join("two.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=black:s=320x180:r=25:d=10",
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=320x180:r=25:d=10",
        "-f",
        "lavfi",
        "-i",
        "anullsrc=r=16000:cl=mono:d=20",
        "-i",
        wav.to_str().unwrap(),
        "-filter_complex",
        "[0:v][1:v]concat=n=2:v=1:a=0,format=yuv420p[v];[3:a]adelay=11000:all=1[s];[2:a][s]amix=inputs=2:normalize=0:duration=first[a]",
        "-map",
        "[v]",
        "-map",
        "[a]",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        "-t",
        "20",
        video.to_str().unwrap(),
    ]);
    let options = AnalyzeOptions { min_scene: 4.0, ..AnalyzeOptions::default() };
    let doc = analyze(&video, &options, models, |_, _| {}).unwrap();
    let scenes = doc.scene_embeddings.as_ref().unwrap();
    let (dark, talk) = (0, scenes.len() - 1);
    let semantic = models.scene_text_encoder();
    let lexical = kino::LexicalEncoder::default();
    // The lexical column embeds sentences of the same form (`describe_scene`) with the lexical
    // encoder: no query word appears in them, so it scores near 0 (hash collisions of character
    // trigrams) whatever the scene.
    let facts_dark = "A very dark scene, in near darkness, slow, with long takes, nearly silent.";
    let facts_talk = "A scene, slow, with long takes, with some dialogue, someone speaking.";
    let lexical_scenes = [lexical.encode(facts_dark).unwrap(), lexical.encode(facts_talk).unwrap()];
    eprintln!("| query | semantic: dark / dialogue scene | lexical: dark / dialogue scene |");
    for (query, want) in
        [("people talking", talk), ("a conversation between two people", talk), ("pitch black night", dark)]
    {
        let q = semantic.encode(query).unwrap();
        let (s_dark, s_talk) = (dot(&q, &scenes[dark]), dot(&q, &scenes[talk]));
        let l = lexical.encode(query).unwrap();
        let (l_dark, l_talk) = (dot(&l, &lexical_scenes[0]), dot(&l, &lexical_scenes[1]));
        let margin = if want == talk { s_talk - s_dark } else { s_dark - s_talk };
        eprintln!("| {query} | {s_dark:.3} / {s_talk:.3} | {l_dark:.3} / {l_talk:.3} | margin {margin:.3} |");
        // A margin, not an order: scores move by about 0.005 between CPUs (ONNX Runtime's kernels).
        assert!(
            margin >= MEANING_MARGIN,
            "{query}: dark {s_dark}, dialogue {s_talk}, margin {margin} < {MEANING_MARGIN}"
        );
    }
    // The channels apart: the dark, silent scene says nothing; the dialogue scene's words, embedded
    // on their own, meet a query about them well above its whole description (a margin, as above).
    let channels = doc.scene_channels.as_ref().expect("scene channels with the sentence model");
    assert!(doc.analysis.as_ref().unwrap().measured.iter().any(|c| c == "scene_channels"));
    assert_eq!(channels.seen.len(), scenes.len());
    assert!(channels.said[dark].is_none() && channels.written[dark].is_none(), "{channels:?}");
    let said = channels.said[talk].as_ref().expect("the dialogue scene's words");
    let q = semantic.encode("someone missed the train at the station").unwrap();
    let (by_words, by_description) = (dot(&q, said), dot(&q, &scenes[talk]));
    eprintln!("\"someone missed the train at the station\": said {by_words:.3}, description {by_description:.3}");
    assert!(
        by_words - by_description >= MEANING_MARGIN,
        "said {by_words}, description {by_description}: the words alone should meet the query better"
    );
}

/// On-screen text: a title card and end credits drawn on the picture are read, the credits found,
/// and the words shown join the scene descriptions, so a query for them finds the scene.
#[test]
fn on_screen_text_is_read_found_and_searchable() {
    let test = "on_screen_text_is_read_found_and_searchable";
    let Some(models) = models(test) else { return };
    if !tools(test, false) {
        return;
    }
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if !std::path::Path::new(font).exists() {
        assert!(
            std::env::var_os("KINO_REQUIRE_FFMPEG").is_none(),
            "{test}: {font} missing (apt-get install fonts-dejavu-core)"
        );
        eprintln!("!!! SKIPPED {test}: {font} missing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 110 s: a title card (0-8 s), a test picture (its clock is text too, but no words), then
    // credits for the last 30 s.
    let card = format!(
        "drawtext=fontfile={font}:text='HARBOR LIGHTS':fontsize=48:fontcolor=white:x=(w-tw)/2:y=(h-th)/2:enable='lt(t,8)'"
    );
    let credits = format!(
        "drawtext=fontfile={font}:text='Directed by Ada Stone':fontsize=32:fontcolor=white:x=(w-tw)/2:y=h/2:enable='gte(t,80)'"
    );
    let graph = format!(
        "color=c=black:s=640x360:r=25:d=8[a];testsrc2=s=640x360:r=25:d=72[b];color=c=black:s=640x360:r=25:d=30[c];[a][b][c]concat=n=3:v=1:a=0,{card},{credits},format=yuv420p[v]"
    );
    let video = encode(dir.path(), "credits.mp4", &graph, false, 25);
    let options = AnalyzeOptions { min_scene: 4.0, ..AnalyzeOptions::default() };
    let doc = analyze(&video, &options, models, |_, _| {}).unwrap();
    let text = doc.text.as_ref().expect("the text channel");
    let read: Vec<&str> = text.lines.iter().map(|l| l.text.as_str()).collect();
    eprintln!("lines: {:?}, credits from {:?}", text.lines, text.credits_start);
    assert!(read.iter().any(|t| t.eq_ignore_ascii_case("HARBOR LIGHTS")), "{read:?}");
    assert!(read.iter().any(|t| t.eq_ignore_ascii_case("Directed by Ada Stone")), "{read:?}");
    let credits = text.credits_start.expect("end credits found");
    assert!((76.0..=84.0).contains(&credits), "credits start at {credits}");
    // The words on screen are in the last scene's description: a query for them finds it.
    let scenes = doc.scene_embeddings.as_ref().unwrap();
    let query = models.scene_text_encoder().encode("directed by Ada Stone").unwrap();
    // The credits' scene leads every other scene by a margin, not merely ranks first.
    let score = |i: usize| dot(&query, &scenes[i]);
    let credits_scene = (0..scenes.len()).filter(|&i| doc.scenes[i].end > 80.0).map(score).fold(f32::MIN, f32::max);
    let others = (0..scenes.len()).filter(|&i| doc.scenes[i].end <= 80.0).map(score).fold(f32::MIN, f32::max);
    eprintln!("credits query: credits scene {credits_scene:.3}, best other {others:.3}");
    assert!(credits_scene - others >= MEANING_MARGIN, "credits {credits_scene}, others {others}: {:?}", doc.scenes);
}

/// Characters and the subject track on a real face: the astronaut photograph of scikit-image's
/// pinned wheel (Eileen Collins, NASA, public domain) crossing the frame from left to right, then,
/// after a cut, standing still on the right. One character covers the video, and the 9:16 track
/// follows the face.
#[test]
fn a_real_face_becomes_the_main_character_and_the_crop_follows_it() {
    let test = "a_real_face_becomes_the_main_character_and_the_crop_follows_it";
    let Some(models) = models(test) else { return };
    if !tools(test, false) {
        return;
    }
    if !models.state("dlib-faces").is_some_and(|s| s.loaded) {
        assert!(
            std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0"),
            "{test}: KINO_REQUIRE_MODELS is set but dlib-faces is not loaded: {:?}",
            models.state("dlib-faces")
        );
        eprintln!("!!! SKIPPED {test}: dlib-faces not loaded (libdlib-dev at build time, kino models fetch)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (photo, _) = kino_models::testdata::test_photos(&dir.path().join("photos")).expect("the test photographs");
    // The photo at 360x360 (its face about 90 px: the HOG detector wants 80 and more) over grey
    // 640x360: 0-12 s sliding from x=0 to x=280, then a cut to a different background with the
    // photo still at x=260 until 20 s.
    let graph = "color=c=gray:s=640x360:r=25:d=12[g];[0:v]scale=360:360,loop=loop=-1:size=1:start=0,setpts=N/25/TB[p];\
        [g][p]overlay=x='t*280/12':y=0:shortest=1[a];color=c=0x204060:s=640x360:r=25:d=8[h];\
        [1:v]scale=360:360,loop=loop=-1:size=1:start=0,setpts=N/25/TB[q];[h][q]overlay=x=260:y=0:shortest=1[b];\
        [a][b]concat=n=2:v=1:a=0,format=yuv420p[v]";
    let video = dir.path().join("walk.mp4");
    ffmpeg(&[
        "-i",
        photo.to_str().unwrap(),
        "-i",
        photo.to_str().unwrap(),
        "-filter_complex",
        graph,
        "-map",
        "[v]",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-t",
        "20",
        video.to_str().unwrap(),
    ]);
    let options = AnalyzeOptions { vision_interval: 1.0, ..AnalyzeOptions::default() };
    let doc = analyze(&video, &options, models, |_, _| {}).unwrap();
    let analysis = doc.analysis.as_ref().unwrap();
    eprintln!("characters {:?}; {}", doc.characters, analysis.models["characters"]);
    assert!(analysis.models["characters"].starts_with("dlib-faces"), "{analysis:?}");
    let main = doc.characters.iter().find(|c| c.rank == 0).expect("a main character");
    let seen: f64 = main.spans.iter().map(|[a, b]| b - a).sum();
    assert!(seen >= 14.0, "the face is on screen most of the 20 s: {:?}", main.spans);
    // One person: anything else is a short-lived split or false detection, far behind in screen time
    // (here a second identity of 3 s appears while the face enters the frame from the left edge).
    for other in doc.characters.iter().filter(|c| c.rank > 0) {
        let time: f64 = other.spans.iter().map(|[a, b]| b - a).sum();
        assert!(time <= 0.25 * seen, "{other:?} against the main character's {seen} s");
    }
    // The face's centre: the photo's left edge plus 0.44 of its width.
    let vertical = doc.vertical.as_ref().unwrap();
    assert!(analysis.models["vertical"].starts_with("dlib-faces"), "{analysis:?}");
    let mut errors = Vec::new();
    for (i, &x) in vertical.x_center.iter().enumerate() {
        let t = (i as f64 + 0.5) * vertical.step;
        let left = if t < 12.0 { t * 280.0 / 12.0 } else { 260.0 };
        let want = (left + 0.44 * 360.0) / 640.0;
        errors.push((f64::from(x) - want).abs());
    }
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    eprintln!("subject x errors: mean {mean:.3}, max {:.3}", errors.iter().cloned().fold(0.0, f64::max));
    assert!(mean < 0.08, "the crop follows the face: mean error {mean}, {:?}", vertical.x_center);
}

/// Speech recognition on synthetic speech with known words: the transcript holds the sentences,
/// profanity events carry the profane words inside the utterances that said them, the timeline
/// marks them, and the scene descriptions quote the dialogue.
#[test]
fn speech_is_transcribed_and_profanity_found_with_its_times() {
    let test = "speech_is_transcribed_and_profanity_found_with_its_times";
    let Some(models) = models(test) else { return };
    if !tools(test, true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let utterances = [
        (1.0f64, "We are leaving the city tonight."),
        (5.0, "Oh shit, the car will not start."),
        (10.0, "Damn it, where are the keys?"),
        (15.0, "The weather is lovely this morning."),
    ];
    let mut inputs: Vec<String> = Vec::new();
    let mut graph = String::from("color=c=gray:s=320x180:r=25:d=20,format=yuv420p[v];");
    let mut truth = Vec::new();
    for (i, (at, text)) in utterances.iter().enumerate() {
        let (wav, [a, b]) = speak(dir.path(), &format!("u{i}.wav"), text);
        inputs.extend(["-i".into(), wav.to_str().unwrap().to_string()]);
        graph.push_str(&format!("[{i}:a]aresample=48000,adelay={}:all=1[u{i}];", (at * 1000.0).round() as u64));
        truth.push([at + a, at + b]);
    }
    graph.push_str("anullsrc=r=48000:cl=mono,atrim=duration=20[bed];[bed][u0][u1][u2][u3]amix=inputs=5:normalize=0:duration=first[a]");
    let out = dir.path().join("said.mp4");
    let mut args: Vec<&str> = inputs.iter().map(String::as_str).collect();
    args.extend(["-filter_complex", &graph, "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "ultrafast"]);
    args.extend(["-c:a", "aac", "-b:a", "128k", "-t", "20", out.to_str().unwrap()]);
    ffmpeg(&args);
    let last_progress = std::cell::Cell::new((0.0, 0.0));
    let (mut early, never) = (None, std::sync::atomic::AtomicBool::new(false));
    let doc = analyze_staged(
        &out,
        &AnalyzeOptions::default(),
        models,
        |d, t| last_progress.set((d, t)),
        &never,
        |fast| early = Some((fast.clone(), last_progress.get())),
    )
    .unwrap();
    // The fast pass came first, before any speech was transcribed: a valid document whose speech
    // stage is pending, with everything else as in the final one.
    let (fast, progress_then) = early.expect("the fast pass is handed over");
    fast.validate().unwrap();
    assert!(progress_then.0 <= doc.duration + 1e-9, "{progress_then:?}");
    assert!(fast.transcript.is_none() && fast.profanity.is_none() && fast.scene_embeddings.is_none());
    let fast_analysis = fast.analysis.as_ref().unwrap();
    for channel in kino_media::SPEECH_STAGE_CHANNELS {
        assert!(fast_analysis.absent.iter().any(|c| c == channel), "{channel} absent from the fast pass");
        assert_eq!(fast_analysis.reasons[*channel], kino_media::PENDING_TRANSCRIPTION);
    }
    assert_eq!((&fast.shots, &fast.speech, &fast.tags), (&doc.shots, &doc.speech, &doc.tags));
    let transcript = doc.transcript.as_ref().expect("a transcript");
    let text: String = transcript.segments.iter().map(|s| s.text.to_lowercase()).collect::<Vec<_>>().join(" ");
    eprintln!("transcript ({}): {text}", transcript.language);
    assert_eq!(transcript.language, "en");
    for expected in ["leaving the city", "car", "keys", "weather"] {
        assert!(text.contains(expected), "{expected:?} not in {text:?}");
    }
    let events = doc.profanity.as_ref().expect("profanity measured");
    eprintln!("profanity: {events:?}");
    let words: Vec<String> = events.iter().filter_map(|e| e.word.clone()).map(|w| w.to_lowercase()).collect();
    assert!(words.iter().any(|w| w == "shit"), "{words:?}");
    assert!(words.iter().any(|w| w.starts_with("damn")), "{words:?}");
    for e in events {
        let inside = truth.iter().any(|[a, b]| e.start >= a - 0.5 && e.end <= b + 0.5);
        assert!(inside, "event {e:?} is outside every utterance {truth:?}");
    }
    // Word times: "shit" is early in the second utterance, "damn" starts the third.
    let shit = events.iter().find(|e| e.word.as_deref().is_some_and(|w| w.eq_ignore_ascii_case("shit"))).unwrap();
    assert!(shit.start < truth[1][0] + 1.2, "{shit:?} vs {:?}", truth[1]);
    let p = &doc.timelines.profanity;
    assert!(p[shit.start as usize] >= 0.7, "timeline {p:?}");
    assert!(p[0] == 0.0 && p[17] == 0.0, "no profanity where none was said: {p:?}");
    let analysis = doc.analysis.as_ref().unwrap();
    for channel in ["transcript", "profanity", "timelines.profanity"] {
        assert!(analysis.measured.iter().any(|m| m == channel), "{channel} measured");
        assert!(analysis.models[channel].starts_with("whisper-base"), "{:?}", analysis.models);
    }
    // Progress went on through the transcription, to the end.
    let last_progress = last_progress.get();
    assert!(last_progress.0 >= last_progress.1 - 1e-9 && last_progress.1 >= doc.duration, "{last_progress:?}");
    // Without models, the channels say why they are absent.
    let bare = analyze(&out, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap();
    assert!(bare.transcript.is_none());
    assert!(bare.analysis.unwrap().reasons["transcript"].contains("disabled"));
}

/// Two real people: the astronaut alone, then Grace Hopper beside her (U.S. Navy photograph, public
/// domain, from matplotlib's pinned wheel). Two identities, the astronaut first by screen time, the
/// second one only from when she enters; with both in frame the 9:16 crop stays on the main
/// character instead of the empty middle between them.
#[test]
fn two_real_people_become_two_characters_and_the_crop_keeps_the_main_one() {
    use kino_models::testdata::{TWO_PEOPLE_GRAPH, TWO_PEOPLE_MAIN_X, TWO_PEOPLE_SECOND_FROM, test_photos};
    let test = "two_real_people_become_two_characters_and_the_crop_keeps_the_main_one";
    let Some(models) = models(test) else { return };
    if !tools(test, false) {
        return;
    }
    if !models.state("dlib-faces").is_some_and(|s| s.loaded) {
        assert!(
            std::env::var_os("KINO_REQUIRE_MODELS").is_none_or(|v| v == "0"),
            "{test}: KINO_REQUIRE_MODELS is set but dlib-faces is not loaded"
        );
        eprintln!("!!! SKIPPED {test}: dlib-faces not loaded");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (astronaut, hopper) = test_photos(&dir.path().join("photos")).expect("the test photographs");
    let video = dir.path().join("two.mp4");
    let (a, h) = (astronaut.to_str().unwrap(), hopper.to_str().unwrap());
    ffmpeg(&[
        "-i",
        a,
        "-i",
        h,
        "-filter_complex",
        TWO_PEOPLE_GRAPH,
        "-map",
        "[v]",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-t",
        "20",
        video.to_str().unwrap(),
    ]);
    let options = AnalyzeOptions { vision_interval: 1.0, ..AnalyzeOptions::default() };
    let doc = analyze(&video, &options, models, |_, _| {}).unwrap();
    let screen = |c: &kino::signals::Character| c.spans.iter().map(|[a, b]| b - a).sum::<f64>();
    for c in &doc.characters {
        eprintln!("character rank {}: {:.1} s on screen, spans {:?}", c.rank, screen(c), c.spans);
    }
    let main = doc.characters.iter().find(|c| c.rank == 0).expect("a main character");
    let second = doc.characters.iter().find(|c| c.rank == 1).expect("a second character");
    assert!(screen(main) >= 16.0, "the astronaut is on screen most of the 20 s: {:?}", main.spans);
    assert!((8.0..=13.5).contains(&screen(second)), "Grace Hopper is on screen for 12 s: {:?}", second.spans);
    assert!(second.spans[0][0] >= TWO_PEOPLE_SECOND_FROM - 1.0, "she enters at 8 s: {:?}", second.spans);
    for other in doc.characters.iter().filter(|c| c.rank > 1) {
        assert!(screen(other) <= 3.0, "a third identity of note: {other:?}");
    }
    // The astronaut smiles: the expression model reads joy on her face, and the emotion track and
    // its provenance say the faces spoke.
    let feel = &doc.analysis.as_ref().unwrap().models["emotions"];
    assert!(feel.contains("faces ") && !feel.contains("faces absent"), "{feel}");
    let e = doc.emotions.as_ref().unwrap();
    let joy = e.names.iter().position(|n| n == "joy").unwrap();
    let most = e.probs.iter().map(|r| r[joy]).fold(0f32, f32::max);
    assert!(most > 0.8, "the astronaut's smile: joy at most {most}");
    let vertical = doc.vertical.as_ref().unwrap();
    let both: Vec<f64> = vertical
        .x_center
        .iter()
        .enumerate()
        .filter(|(i, _)| ((*i as f64 + 0.5) * vertical.step) > TWO_PEOPLE_SECOND_FROM + 1.0)
        .map(|(_, &x)| (f64::from(x) - TWO_PEOPLE_MAIN_X).abs())
        .collect();
    let mean = both.iter().sum::<f64>() / both.len() as f64;
    eprintln!("with both in frame, the crop is {mean:.3} from the main character's face on average");
    assert!(mean < 0.08, "the crop stays on the main character: {:?}", vertical.x_center);

    // A second episode: Grace Hopper alone, now on the right, the astronaut entering on the left
    // at 6 s, so Grace Hopper is this episode's main character. Across the two episodes each keeps
    // one series identity.
    let episode2 = dir.path().join("two-b.mp4");
    let graph = "color=c=gray:s=640x360:r=25:d=16[g];\
        [0:v]scale=360:360,loop=loop=-1:size=1:start=0,setpts=N/25/TB[a];\
        [1:v]scale=307:360,loop=loop=-1:size=1:start=0,setpts=N/25/TB[h];\
        [g][h]overlay=x=333:y=0:shortest=1[gh];\
        [gh][a]overlay=x=-40:y=0:enable='gte(t,6)':shortest=1,format=yuv420p[v]";
    ffmpeg(
        &["-i", a, "-i", h, "-filter_complex", graph, "-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast"]
            .into_iter()
            .chain(["-t", "16", episode2.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    let doc2 = analyze(&episode2, &options, models, |_, _| {}).unwrap();
    assert_eq!(doc.character_descriptors.as_ref().map(Vec::len), Some(doc.characters.len()));
    let linked = kino::characters::link(&[&doc, &doc2]);
    eprintln!("linked: {linked:?}");
    let id = |t: usize, rank: u32| linked[t].iter().find(|c| c.rank == rank).and_then(|c| c.series_identity);
    let (astronaut1, hopper1) = (id(0, 0).expect("the astronaut"), id(0, 1).expect("Grace Hopper"));
    assert_ne!(astronaut1, hopper1);
    // In the second episode Grace Hopper has the most screen time: rank 0 there is her.
    assert_eq!((id(1, 0), id(1, 1)), (Some(hopper1), Some(astronaut1)), "{linked:?}");
}
