//! The markers' rules on generated seasons.

use super::*;
use crate::signals::{AudioFingerprint, TextSpan, Visual, VisualCue, VisualFrame};

/// Black frames from `start` to `end`.
fn black(start: f64, end: f64) -> VisualCue {
    VisualCue { kind: "black".into(), start, end }
}

/// What the picture shows: `frames` sampled every `interval` seconds, and the `cues`.
fn visual(interval: f64, frames: Vec<VisualFrame>, cues: Vec<VisualCue>) -> Visual {
    Visual {
        interval,
        frames,
        shot_types: Vec::new(),
        scene_features: None,
        item_feature: None,
        cues,
        tags: Vec::new(),
    }
}

/// An episode of `seconds` with `intro` (hashes) inserted at `at` seconds after `prefix`.
fn episode(seconds: f64, seed: u64, prefix: &[u32], intro: &[u32], at: f64) -> Signals {
    let mut s = crate::synth::demo_signals("e", seconds, 1.0, seed);
    let mut h = prefix.to_vec();
    let own = crate::synth::fingerprint_hashes((seconds * 10.0) as usize, seed);
    let start = (at * 10.0) as usize;
    h.extend_from_slice(&own[..start]);
    h.extend_from_slice(intro);
    h.extend_from_slice(&own[start..]);
    h.truncate((seconds * 10.0) as usize);
    s.audio_fingerprint = Some(AudioFingerprint { hop: 0.1, hashes: h });
    s.text = None;
    s
}

#[test]
fn the_shared_intro_is_found_at_each_offset_and_the_recap_too() {
    let intro = crate::synth::fingerprint_hashes(400, 99); // 40 s
    let e1 = episode(1200.0, 1, &[], &intro, 30.0);
    let e2 = episode(1300.0, 2, &[], &intro, 95.5);
    // Episode 3 opens with 20 s of episode 2's content (after its intro): a recap.
    let recap = e2.audio_fingerprint.as_ref().unwrap().hashes[2000..2200].to_vec();
    let e3 = episode(1250.0, 3, &recap, &intro, 10.0);
    let eps: Vec<Episode<'_>> =
        [&e1, &e2, &e3].iter().enumerate().map(|(i, s)| Episode { number: Some(i as i64 + 1), signals: s }).collect();
    let m = season_markers(&eps);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 1.0);
    assert!(near(m[0].intro_start, 30.0) && near(m[0].intro_end, 70.0), "{:?}", m[0]);
    assert!(near(m[1].intro_start, 95.5) && near(m[1].intro_end, 135.5), "{:?}", m[1]);
    assert!(near(m[2].intro_start, 30.0) && near(m[2].intro_end, 70.0), "{:?}", m[2]);
    assert!(near(m[2].recap_start, 0.0) && near(m[2].recap_end, 20.0), "{:?}", m[2]);
    assert_eq!((m[0].recap_start, m[1].recap_start), (None, None));
    assert_eq!(m[0].episodes_compared, 2);
}

#[test]
fn no_intro_without_a_shared_stretch_or_a_second_episode() {
    let a = episode(900.0, 5, &[], &crate::synth::fingerprint_hashes(100, 7), 20.0); // 10 s: too short for an intro
    let b = episode(900.0, 6, &[], &crate::synth::fingerprint_hashes(100, 7), 50.0);
    let m = season_markers(&[Episode { number: Some(1), signals: &a }, Episode { number: Some(2), signals: &b }]);
    assert_eq!((m[0].intro_start, m[1].intro_start), (None, None));
    let alone = season_markers(&[Episode { number: Some(1), signals: &a }]);
    assert_eq!((alone[0].intro_start, alone[0].episodes_compared), (None, 0));
}

#[test]
fn intro_edges_move_to_the_cuts_across_silence() {
    let intro = crate::synth::fingerprint_hashes(400, 99); // 40 s
    let mut eps = [episode(1200.0, 1, &[], &intro, 30.0), episode(1300.0, 2, &[], &intro, 95.5)];
    for (s, at) in eps.iter_mut().zip([30.0, 95.5]) {
        // The intro opens on 2 s of silence (black, fading in) after a cut, and the episode's
        // own content starts at a cut 0.5 s after the intro's sound ends; a cut 2.5 s before
        // the intro's sound lies inside the sound before the silence.
        let fp = s.audio_fingerprint.as_mut().unwrap();
        for k in ((at - 2.0) * 10.0) as usize..(at * 10.0) as usize {
            fp.hashes[k] = 0;
        }
        s.shots = vec![at - 2.5, at - 2.0, at + 40.5, at + 300.0];
    }
    let eps: Vec<Episode<'_>> =
        eps.iter().enumerate().map(|(i, s)| Episode { number: Some(i as i64 + 1), signals: s }).collect();
    let m = season_markers(&eps);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 0.15);
    assert!(near(m[0].intro_start, 28.0) && near(m[0].intro_end, 70.5), "{:?}", m[0]);
    assert!(near(m[1].intro_start, 93.5) && near(m[1].intro_end, 136.0), "{:?}", m[1]);
    // Without the silence, a cut 2 s away is too far: the edge stays on the sound.
    let moved = to_cuts(eps[0].signals, (30.0, 70.0), MIN_INTRO);
    let mut loud = eps[0].signals.clone();
    loud.audio_fingerprint = Some(AudioFingerprint { hop: 0.1, hashes: vec![7; 12_000] });
    let kept = to_cuts(&loud, (30.0, 70.0), MIN_INTRO);
    assert_eq!((moved.0, kept.0), (28.0, 30.0));
    assert_eq!(kept.1, 70.5, "a cut within NEAR_CUT is taken whatever the sound");
}

#[test]
fn the_credits_start_where_black_frames_before_their_text_end() {
    let mut s = crate::synth::demo_signals("e", 300.0, 1.0, 4);
    s.text = Some(crate::signals::OnScreenText {
        step: 2.0,
        density: vec![0.0; 150],
        lines: Vec::new(),
        credits_start: Some(228.0),
    });
    let mut visual = visual(1.0, Vec::new(), vec![black(100.0, 101.0), black(220.8, 221.3)]);
    s.visual = Some(visual.clone());
    let credits = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].credit_start;
    assert_eq!(credits(&s), Some(221.3), "the black frames 6.7 s before the text");
    visual.cues = vec![black(100.0, 101.0), black(227.5, 228.4)];
    s.visual = Some(visual.clone());
    assert_eq!(credits(&s), Some(228.4), "read inside black frames: a fade-in, the credits start after it");
    visual.cues = vec![black(100.0, 101.0), black(218.0, 219.5)];
    s.visual = Some(visual);
    assert_eq!(credits(&s), Some(228.0), "black frames 8.5 s before are too far");
}

/// Picture hashes for `n` hops: shots of 3 s, each moving (one more bit of its hash flipped
/// every 0.6 s) with a bit flipped now and then (noise).
fn pictures(n: usize, seed: u64) -> Vec<u32> {
    let shots = crate::synth::fingerprint_hashes(n / 30 + 1, seed);
    let noise = crate::synth::fingerprint_hashes(n, seed ^ 0xABCD);
    (0..n)
        .map(|k| {
            let shot = shots[k / 30];
            let moved = (0..(k % 30) / 6).fold(0u32, |m, step| m | 1 << ((shot >> (5 * step)) % 32));
            shot ^ moved ^ if noise[k] % 4 == 0 { 1 << (noise[k] % 32) } else { 0 }
        })
        .collect()
}

/// `s`'s picture: its own shots with `inserted` pictures at `at` seconds after `prefix`.
fn with_picture(mut s: Signals, seed: u64, prefix: &[u32], inserted: &[u32], at: f64) -> Signals {
    let n = (s.duration * 10.0) as usize;
    let own = pictures(n, seed + 1000);
    let mut h = prefix.to_vec();
    h.extend_from_slice(&own[..(at * 10.0) as usize]);
    h.extend_from_slice(inserted);
    h.extend_from_slice(&own[(at * 10.0) as usize..]);
    h.truncate(n);
    s.picture_fingerprint = Some(crate::signals::PictureFingerprint { hop: 0.1, hashes: h });
    // No cuts: the edges stay where the fingerprints put them.
    s.shots.clear();
    s
}

#[test]
fn a_still_picture_is_no_evidence() {
    let still = [0x1efff_u32; 30];
    let mut moving = still;
    moving[20] ^= 0b1111;
    assert!(!changes(&still) && changes(&moving));
    assert!(!changes(&[0, 0, 0]));
}

#[test]
fn an_intro_whose_music_changes_is_found_in_the_picture() {
    let titles = pictures(300, 77); // 30 s of opening titles
    // Each episode's sound is its own: the intro's music differs in every episode.
    let e1 = with_picture(episode(1200.0, 1, &[], &[], 0.0), 1, &[], &titles, 40.0);
    let e2 = with_picture(episode(1300.0, 2, &[], &[], 0.0), 2, &[], &titles, 12.0);
    let eps = [Episode { number: Some(1), signals: &e1 }, Episode { number: Some(2), signals: &e2 }];
    let m = season_markers(&eps);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 0.3);
    assert!(near(m[0].intro_start, 40.0) && near(m[0].intro_end, 70.0), "{:?}", m[0]);
    assert!(near(m[1].intro_start, 12.0) && near(m[1].intro_end, 42.0), "{:?}", m[1]);
    let without = season_markers(&[
        Episode { number: Some(1), signals: &episode(1200.0, 1, &[], &[], 0.0) },
        Episode { number: Some(2), signals: &episode(1300.0, 2, &[], &[], 0.0) },
    ]);
    assert_eq!(without[0].intro_start, None, "nothing shared without the picture");
}

#[test]
fn the_picture_carries_an_intros_quiet_tail_and_a_recaps_short_shots() {
    let intro = crate::synth::fingerprint_hashes(400, 99); // 40 s of intro music
    let titles = pictures(400, 78); // and its picture
    let mut e1 = with_picture(episode(1200.0, 1, &[], &intro, 30.0), 1, &[], &titles, 30.0);
    let mut e2 = with_picture(episode(1300.0, 2, &[], &intro, 20.0), 2, &[], &titles, 20.0);
    // The intro's last 3 s are silent in both.
    for (s, at) in [(&mut e1, 30.0), (&mut e2, 20.0)] {
        let fp = s.audio_fingerprint.as_mut().unwrap();
        for k in ((at + 37.0) * 10.0) as usize..((at + 40.0) * 10.0) as usize {
            fp.hashes[k] = 0;
        }
    }
    // Episode 3 opens with a recap of three 2.5 s shots of episode 2's story, in silence
    // (sound too short and silent to match), then the intro.
    let story = e2.picture_fingerprint.as_ref().unwrap().hashes.clone();
    let recap: Vec<u32> = [2000, 2600, 3100].iter().flat_map(|&k| story[k..k + 25].to_vec()).collect();
    let e3 = episode(1250.0, 3, &vec![0; 75], &intro, 7.5);
    let e3 = with_picture(e3, 3, &recap, &titles, 7.5);
    let eps: Vec<Episode<'_>> =
        [&e1, &e2, &e3].iter().enumerate().map(|(i, s)| Episode { number: Some(i as i64 + 1), signals: s }).collect();
    let m = season_markers(&eps);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 0.3);
    assert!(near(m[0].intro_start, 30.0) && near(m[0].intro_end, 70.0), "{:?}", m[0]);
    assert!(near(m[1].intro_start, 20.0) && near(m[1].intro_end, 60.0), "{:?}", m[1]);
    assert!(near(m[2].intro_start, 15.0) && near(m[2].intro_end, 55.0), "{:?}", m[2]);
    assert!(near(m[2].recap_start, 0.0) && near(m[2].recap_end, 7.5), "{:?}", m[2]);
    assert_eq!((m[0].recap_start, m[1].recap_start), (None, None));
}

#[test]
fn the_credits_end_before_black_frames_and_a_scene_after_them_is_reported() {
    use crate::signals::OnScreenText;
    let mut s = crate::synth::demo_signals("e", 330.0, 1.0, 4);
    let line = |start: f64, end: f64, text: &str| TextSpan { start, end, text: text.into(), score: 0.9 };
    // Cards read every 4 s from 222 to 308 s, black frames 310.8 to 311.7, a scene to 326.8,
    // black to the end.
    let mut lines: Vec<TextSpan> =
        (0..22).map(|k| line(222.0 + 4.0 * k as f64, 226.0 + 4.0 * k as f64, "A Name")).collect();
    lines.insert(0, line(20.0, 24.0, "Opening Title"));
    // The last card, read at 308 s, is taken to last until the next reading, past the black frames.
    lines.push(line(308.0, 312.0, "Licence"));
    s.text = Some(OnScreenText { step: 4.0, density: vec![0.0; 83], lines, credits_start: Some(222.0) });
    let visual = |cues| visual(1.0, Vec::new(), cues);
    s.visual = Some(visual(vec![black(310.8, 311.7), black(326.8, 330.0)]));
    let m = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].clone();
    let found = m(&s);
    assert_eq!(found.credit_start, Some(222.0));
    assert_eq!(found.credit_end, Some(310.8));
    assert_eq!((found.post_credits_start, found.post_credits_end), (Some(311.7), Some(326.8)));
    // Credits that fade to black at the end: no scene after them.
    s.visual = Some(visual(vec![black(327.5, 330.0)]));
    let faded = m(&s);
    assert_eq!((faded.credit_end, faded.post_credits_start), (Some(312.0), None), "{faded:?}");
    // A scene with text after the black frames is more credits, not a scene; one too short is none.
    s.visual = Some(visual(vec![black(310.8, 311.7)]));
    s.text.as_mut().unwrap().lines.push(line(318.0, 322.0, "Copyright Notice"));
    assert_eq!(m(&s).post_credits_start, None);
    s.text.as_mut().unwrap().lines.pop();
    s.visual = Some(visual(vec![black(310.8, 326.0)]));
    assert_eq!(m(&s).post_credits_start, None);
}

/// `s` whose last hashes, sound and picture, are `sound` and `picture`.
fn with_end(mut s: Signals, sound: &[u32], picture: &[u32]) -> Signals {
    let a = &mut s.audio_fingerprint.as_mut().unwrap().hashes;
    let n = a.len();
    a[n - sound.len()..].copy_from_slice(sound);
    let p = &mut s.picture_fingerprint.as_mut().unwrap().hashes;
    let n = p.len();
    p[n - picture.len()..].copy_from_slice(picture);
    s
}

#[test]
fn without_credits_text_the_end_the_season_shares_is_the_credits() {
    let (music, roll) = (crate::synth::fingerprint_hashes(600, 55), pictures(600, 56)); // 60 s
    let e1 = with_end(with_picture(episode(1200.0, 1, &[], &[], 0.0), 1, &[], &[], 0.0), &music, &roll);
    let e2 = with_end(with_picture(episode(1300.0, 2, &[], &[], 0.0), 2, &[], &[], 0.0), &music, &roll);
    let eps = [Episode { number: Some(1), signals: &e1 }, Episode { number: Some(2), signals: &e2 }];
    let m = season_markers(&eps);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 0.3);
    assert!(near(m[0].credit_start, 1140.0) && near(m[0].credit_end, 1200.0), "{:?}", m[0]);
    assert!(near(m[1].credit_start, 1240.0) && near(m[1].credit_end, 1300.0), "{:?}", m[1]);
    assert_eq!(m[0].intro_start, None, "nothing shared at the start");
    // Alone, or with its own text channel's credits, an episode keeps to its text.
    assert_eq!(season_markers(&eps[..1])[0].credit_start, None);
    let mut read = e1.clone();
    read.text = Some(crate::signals::OnScreenText {
        step: 2.0,
        density: vec![0.0; 600],
        lines: Vec::new(),
        credits_start: Some(1150.0),
    });
    let m = season_markers(&[Episode { number: Some(1), signals: &read }, eps[1]]);
    assert_eq!((m[0].credit_start, m[0].credit_end), (Some(1150.0), None), "{:?}", m[0]);
}

#[test]
fn season_credits_start_after_their_black_frames_and_close_before_the_next() {
    let (music, roll) = (crate::synth::fingerprint_hashes(600, 55), pictures(600, 56));
    let mut e1 = with_end(with_picture(episode(1200.0, 1, &[], &[], 0.0), 1, &[], &[], 0.0), &music, &roll);
    let e2 = with_end(with_picture(episode(1300.0, 2, &[], &[], 0.0), 2, &[], &[], 0.0), &music, &roll);
    // Black frames open e1's credits, and black frames 0.6 s before its end close them.
    e1.visual = Some(visual(1.0, Vec::new(), vec![black(1139.8, 1140.5), black(1199.4, 1200.0)]));
    let m = season_markers(&[Episode { number: Some(1), signals: &e1 }, Episode { number: Some(2), signals: &e2 }]);
    assert_eq!((m[0].credit_start, m[0].credit_end, m[0].post_credits_start), (Some(1140.5), Some(1199.4), None));
}

#[test]
fn a_lone_shot_like_an_earlier_one_is_no_recap() {
    let e1 = with_picture(episode(1200.0, 1, &[], &[], 0.0), 1, &[], &[], 0.0);
    let story = e1.picture_fingerprint.as_ref().unwrap().hashes.clone();
    // One 3 s shot of episode 1, at 100 s of episode 2.
    let e2 = with_picture(episode(1300.0, 2, &[], &[], 0.0), 2, &[], &story[3000..3030], 100.0);
    let m = season_markers(&[Episode { number: Some(1), signals: &e1 }, Episode { number: Some(2), signals: &e2 }]);
    assert_eq!((m[1].recap_start, m[1].recap_end), (None, None), "{:?}", m[1]);
    // Three shots in a row are a recap.
    let e2 = with_picture(episode(1300.0, 2, &[], &[], 0.0), 2, &[], &story[3000..3090], 100.0);
    let m = season_markers(&[Episode { number: Some(1), signals: &e1 }, Episode { number: Some(2), signals: &e2 }]);
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 0.3);
    assert!(near(m[1].recap_start, 100.0) && near(m[1].recap_end, 109.0), "{:?}", m[1]);
}

/// A 600 s film whose sampled frames (every 2 s) the classifier names `label(t)`, with black
/// frames from 489.9 to 490.5 and from 580.0 to 580.9, nobody speaking or seen after 400 s, and
/// no text channel.
fn pictured(label: impl Fn(f64) -> &'static str) -> Signals {
    use crate::signals::VisualLabel;
    let mut s = crate::synth::demo_signals("film", 600.0, 1.0, 7);
    s.text = None;
    s.speech.retain(|&[a, _]| a < 400.0);
    for c in &mut s.characters {
        c.spans.retain(|&[a, _]| a < 400.0);
    }
    let frames = (0..300)
        .map(|k| {
            let time = 2.0 * k as f64;
            let labels = vec![VisualLabel { name: label(time).into(), group: "object".into(), score: 0.4 }];
            VisualFrame { time, labels, sharpness: 10.0 }
        })
        .collect();
    s.visual = Some(visual(2.0, frames, vec![black(489.9, 490.5), black(580.0, 580.9)]));
    s
}

/// Credits cards from 490 to 578 s, mostly named `menu` or `website`, one in four otherwise.
fn cards(t: f64) -> &'static str {
    match t {
        t if !(490.0..580.0).contains(&t) => "hare",
        t if (t as i64 / 2) % 4 == 3 => "perfume",
        t if t < 530.0 => "menu",
        _ => "website",
    }
}

#[test]
fn without_the_text_channel_credits_are_found_in_pictures_of_text() {
    let m = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].clone();
    let found = m(&pictured(cards));
    assert_eq!((found.credit_start, found.credit_end), (Some(490.5), Some(580.0)), "{found:?}");
    assert_eq!((found.post_credits_start, found.post_credits_end), (Some(580.9), Some(600.0)));
    assert_eq!(found.credits_cue.as_deref(), Some("picture"));
    assert_eq!((found.intro_start, found.recap_start), (None, None));
    // Without black frames the credits start at a cut before the first card.
    let mut cut = pictured(cards);
    cut.visual.as_mut().unwrap().cues.clear();
    cut.shots = vec![100.0, 489.2, 530.0];
    assert_eq!(m(&cut).credit_start, Some(489.2));
    // The text channel's credits come first.
    let mut read = pictured(cards);
    read.text = Some(crate::signals::OnScreenText {
        step: 4.0,
        density: vec![0.0; 150],
        lines: Vec::new(),
        credits_start: Some(492.0),
    });
    let by_text = m(&read);
    assert_eq!((by_text.credit_start, by_text.credits_cue.as_deref()), (Some(490.5), Some("text")));
}

#[test]
fn a_roll_the_classifier_does_not_name_is_found_by_its_motion() {
    let m = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].clone();
    // Cards named as text from 490 to 530 s, then a roll the classifier names otherwise to 578 s.
    let cards_then_roll = |t: f64| if (490.0..530.0).contains(&t) { "menu" } else { "hare" };
    let roll = VisualCue { kind: "scroll".into(), start: 531.0, end: 578.0 };
    assert_eq!(m(&pictured(cards_then_roll)).credit_start, None, "the cards alone end 70 s before the end");
    let mut rolled = pictured(cards_then_roll);
    rolled.visual.as_mut().unwrap().cues.insert(1, roll.clone());
    let found = m(&rolled);
    assert_eq!((found.credit_start, found.credit_end), (Some(490.5), Some(580.0)), "{found:?}");
    assert_eq!(found.credits_cue.as_deref(), Some("picture"));
    // The roll alone is credits too; not when somebody speaks over it (a camera tilt in a scene).
    let mut alone = pictured(|_| "hare");
    alone.visual.as_mut().unwrap().cues.insert(1, roll.clone());
    alone.shots.clear();
    assert_eq!(m(&alone).credit_start, Some(532.0), "the first frame sampled in the roll, without a cut before it");
    alone.speech.push([520.0, 590.0]);
    assert_eq!(m(&alone).credit_start, None);
    // A camera tilting for 9 s just before the cards is no part of the credits; a 10 s roll there is.
    let tilted = |seconds: f64| {
        let mut s = pictured(cards);
        s.shots.clear();
        s.visual
            .as_mut()
            .unwrap()
            .cues
            .insert(0, VisualCue { kind: "scroll".into(), start: 477.0, end: 477.0 + seconds });
        m(&s).credit_start
    };
    assert_eq!(tilted(9.0), Some(490.5));
    assert_eq!(tilted(10.0), Some(478.0));
}

#[test]
fn pictures_of_text_that_are_no_credits_are_not_taken_for_them() {
    let m = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].clone();
    // Somebody speaks over them: a scene with a screen in it.
    let mut spoken = pictured(cards);
    spoken.speech.push([480.0, 590.0]);
    assert_eq!(m(&spoken).credit_start, None);
    // A face is seen all through them.
    let mut seen = pictured(cards);
    seen.characters[0].spans.push([485.0, 585.0]);
    assert_eq!(m(&seen).credit_start, None);
    // Too short (16 s), too far from the end (ending 100 s before it), too few such frames.
    assert_eq!(m(&pictured(|t| if (560.0..576.0).contains(&t) { "menu" } else { "hare" })).credit_start, None);
    assert_eq!(m(&pictured(|t| if (400.0..500.0).contains(&t) { "website" } else { "hare" })).credit_start, None);
    let two_in_three = |t: f64| if (490.0..580.0).contains(&t) && (t as i64 / 2) % 3 != 2 { "menu" } else { "hare" };
    let found = m(&pictured(two_in_three));
    assert_eq!(found.credit_start, Some(490.5), "two frames in three are credits: {found:?}");
    let half = |t: f64| if (490.0..580.0).contains(&t) && (t as i64 / 2) % 2 == 0 { "menu" } else { "hare" };
    assert_eq!(m(&pictured(half)).credit_start, None, "one frame in two");
}

#[test]
fn a_scene_between_two_parts_of_the_credits_is_a_mid_credits_scene() {
    use crate::signals::OnScreenText;
    let m = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].clone();
    // Cards from 440 to 470 s, a scene to 500 s, cards to 580 s; black frames around the scene.
    let parts = |t: f64| if (440.0..470.0).contains(&t) || (500.0..580.0).contains(&t) { "menu" } else { "hare" };
    let mut s = pictured(parts);
    s.visual.as_mut().unwrap().cues =
        vec![black(438.6, 439.4), black(470.5, 471.5), black(498.5, 499.5), black(580.0, 580.9)];
    s.shots.clear();
    let found = m(&s);
    assert_eq!((found.credit_start, found.credit_end), (Some(439.4), Some(580.0)), "{found:?}");
    assert_eq!((found.mid_credits_start, found.mid_credits_end), (Some(471.5), Some(499.5)));
    assert_eq!((found.post_credits_start, found.credits_cue.as_deref()), (Some(580.9), Some("picture")));
    // A first part of 12 s is not credits: the credits start after the scene.
    let short = |t: f64| if (458.0..470.0).contains(&t) || (500.0..580.0).contains(&t) { "menu" } else { "hare" };
    let mut s2 = pictured(short);
    s2.visual = s.visual.clone().map(|mut v| {
        v.frames.iter_mut().for_each(|f| f.labels[0].name = short(f.time).into());
        v
    });
    s2.shots.clear();
    let found = m(&s2);
    assert_eq!((found.credit_start, found.mid_credits_start), (Some(499.5), None), "{found:?}");
    // The same read as text: lines every 4 s through both parts, the credits read from 500 s.
    let line = |start: f64| TextSpan { start, end: start + 4.0, text: format!("Name Number {start}"), score: 0.9 };
    let lines: Vec<TextSpan> =
        (0..8).map(|k| line(440.0 + 4.0 * k as f64)).chain((0..20).map(|k| line(500.0 + 4.0 * k as f64))).collect();
    s.text = Some(OnScreenText { step: 4.0, density: vec![0.0; 150], lines, credits_start: Some(500.0) });
    let read = m(&s);
    assert_eq!((read.credit_start, read.credits_cue.as_deref()), (Some(439.4), Some("text")), "{read:?}");
    assert_eq!((read.mid_credits_start, read.mid_credits_end), (Some(471.5), Some(499.5)));
    assert_eq!(read.credit_end, Some(580.0));
    // Without black frames around it, the scene runs from cut to cut.
    s.visual.as_mut().unwrap().cues = vec![black(438.6, 439.4), black(580.0, 580.9)];
    s.shots = vec![470.2, 497.0, 498.9];
    let cut = m(&s);
    assert_eq!((cut.mid_credits_start, cut.mid_credits_end), (Some(470.2), Some(498.9)), "{cut:?}");
}

#[test]
fn credits_and_their_parts_keep_to_what_was_seen() {
    use crate::signals::OnScreenText;
    let m = |s: &Signals| season_markers(&[Episode { number: None, signals: s }])[0].clone();
    let line = |start: f64| TextSpan { start, end: start + 4.0, text: format!("Crew Member {start}"), score: 0.9 };
    // Sparse white text on black counts as black frames: a start read inside them stays there.
    let mut sparse = pictured(|_| "hare");
    sparse.visual.as_mut().unwrap().cues = vec![black(499.5, 596.0)];
    let lines: Vec<TextSpan> = (0..20).map(|k| line(500.0 + 4.0 * k as f64)).collect();
    sparse.text = Some(OnScreenText { step: 4.0, density: vec![0.0; 150], lines, credits_start: Some(500.0) });
    let found = m(&sparse);
    assert_eq!((found.credit_start, found.credit_end), (Some(500.0), Some(580.0)), "{found:?}");
    // Twelve seconds of cards not named as text, between two runs of cards: more credits, no scene.
    let unnamed = |t: f64| match t {
        t if (472.0..482.0).contains(&t) => "parachute",
        t if (440.0..580.0).contains(&t) => "menu",
        _ => "hare",
    };
    let mut cards = pictured(unnamed);
    cards.visual.as_mut().unwrap().cues = vec![black(438.6, 439.4), black(580.0, 580.9)];
    cards.shots = vec![481.0];
    let found = m(&cards);
    assert_eq!((found.credit_start, found.mid_credits_start), (Some(439.4), None), "{found:?}");
    // Subtitles read over dialogue before the credits are no first part of them.
    let mut subtitled = pictured(|_| "hare");
    subtitled.visual.as_mut().unwrap().cues = vec![black(498.5, 499.5), black(580.0, 580.9)];
    subtitled.speech.push([400.0, 432.0]);
    let lines: Vec<TextSpan> =
        (0..8).map(|k| line(400.0 + 4.0 * k as f64)).chain((0..20).map(|k| line(500.0 + 4.0 * k as f64))).collect();
    subtitled.text = Some(OnScreenText { step: 4.0, density: vec![0.0; 150], lines, credits_start: Some(500.0) });
    let found = m(&subtitled);
    assert_eq!((found.credit_start, found.mid_credits_start), (Some(499.5), None), "{found:?}");
    // A lone reading inside a mid-credits scene does not hide the first part.
    subtitled.speech.retain(|&[a, _]| a < 400.0);
    let text = subtitled.text.as_mut().unwrap();
    text.lines.retain(|l| l.start >= 440.0);
    text.lines.extend((0..8).map(|k| line(440.0 + 4.0 * k as f64)));
    text.lines.push(line(484.0));
    text.lines.sort_by(|a, b| a.start.total_cmp(&b.start));
    let found = m(&subtitled);
    assert_eq!((found.credit_start, found.mid_credits_end), (Some(440.0), Some(499.5)), "{found:?}");
}

/// The markers of a season read from what the markers read of each episode
/// ([`read_by_markers`]: what the service holds of each episode while it reads the next) are
/// those of the whole documents: intros in sound and picture, a recap, credits from text, from
/// pictures of text and from the season's shared end.
#[test]
fn the_markers_of_reduced_episodes_are_those_of_the_whole_documents() {
    let (intro, titles) = (crate::synth::fingerprint_hashes(400, 99), pictures(300, 77));
    let (music, roll) = (crate::synth::fingerprint_hashes(600, 55), pictures(600, 56));
    let mut e1 = with_picture(episode(1200.0, 1, &[], &intro, 30.0), 1, &[], &titles, 30.0);
    e1.visual = Some(visual(1.0, Vec::new(), vec![black(29.2, 29.9), black(600.0, 601.0)]));
    e1.shots = vec![69.8, 300.0];
    let e1 = with_end(e1, &music, &roll);
    let e2 = with_end(with_picture(episode(1300.0, 2, &[], &intro, 95.5), 2, &[], &titles, 95.5), &music, &roll);
    let recap = e2.audio_fingerprint.as_ref().unwrap().hashes[2000..2200].to_vec();
    let mut e3 = with_picture(episode(1250.0, 3, &recap, &intro, 10.0), 3, &[], &titles, 30.0);
    let line = |start: f64, text: &str| TextSpan { start, end: start + 4.0, text: text.into(), score: 0.9 };
    e3.text = Some(crate::signals::OnScreenText {
        step: 4.0,
        density: vec![0.1; 313],
        lines: (0..10).map(|k| line(1200.0 + 4.0 * f64::from(k), "A Name")).collect(),
        credits_start: Some(1200.0),
    });
    let whole = [e1, e2, e3, pictured(cards)];
    let reduced: Vec<Signals> = whole.iter().map(read_by_markers).collect();
    let marks = |season: &[Signals]| {
        let episodes: Vec<Episode<'_>> =
            season.iter().enumerate().map(|(i, s)| Episode { number: Some(i as i64 + 1), signals: s }).collect();
        season_markers(&episodes)
    };
    let expected = marks(&whole);
    assert!(expected[..3].iter().all(|m| m.intro_start.is_some()), "{expected:?}");
    assert!(expected[2].recap_start.is_some(), "{:?}", expected[2]);
    let cues: Vec<Option<&str>> = expected.iter().map(|m| m.credits_cue.as_deref()).collect();
    assert_eq!(cues, [Some("season"), Some("season"), Some("text"), Some("picture")]);
    assert_eq!(marks(&reduced), expected);
    assert!(reduced.iter().all(|s| s.timelines.relevance.is_empty() && s.scenes.is_empty() && s.tags.is_empty()));
}
