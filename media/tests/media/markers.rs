//! Binge markers on generated seasons: episodes whose own sound differs (pink noise of different
//! seeds, its loudness swelling at different rates) share a generated 20 s intro tune at
//! different offsets; the third opens with a recap of the second. The analysis measures each
//! episode's audio fingerprint and `kino::markers` finds the intro and the recap, within 1 s.

use kino::markers::{Episode, season_markers};
use kino_media::{AnalyzeOptions, analyze};

use crate::support::*;

/// The intro tune: a note every half second from a fixed sequence, with a drum-like noise burst.
const TUNE: &str = "aevalsrc='0.3*sin(2*PI*(260+40*mod(floor(t*2)*7\\,13))*t)+0.05*sin(2*PI*(520+80*mod(floor(t*2)*5\\,11))*t)':s=16000:d=20";

/// An episode's own sound from second `from`, `seconds` long: noise of `seed` with a swell.
fn own(seed: u64, rate: f64) -> String {
    format!("anoisesrc=c=pink:r=16000:a=0.25:seed={seed}:d=200,volume='0.4+0.35*sin(2*PI*{rate}*t)':eval=frame")
}

#[test]
fn the_intro_and_the_recap_are_found_in_a_generated_season() {
    let test = "the_intro_and_the_recap_are_found_in_a_generated_season";
    if !tools(test, false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // (seed, swell rate, intro offset, recap: seconds of episode 2's own sound from 60 s)
    let plan = [(11u64, 0.31, 5.0, None), (12, 0.53, 12.3, None), (13, 0.47, 0.7, Some(12.0))];
    let mut signals = Vec::new();
    for (n, &(seed, rate, at, recap)) in plan.iter().enumerate() {
        let out = dir.path().join(format!("e{}.mp4", n + 1));
        // The recap (episode 2's own sound from 60 s), the episode's own sound up to the intro,
        // the intro, the rest of its own sound.
        let (recap_chain, recap_label, parts) = match recap {
            Some(len) => (
                format!("{},atrim=start=60:end={},asetpts=PTS-STARTPTS[r];", own(plan[1].0, plan[1].1), 60.0 + len),
                "[r]",
                4,
            ),
            None => (String::new(), "", 3),
        };
        let graph = format!(
            "{own}[o];{TUNE}[t];{recap_chain}[o]asplit=2[o1][o2];[o1]atrim=end={at},asetpts=PTS-STARTPTS[a0];\
             [o2]atrim=start={at},asetpts=PTS-STARTPTS[a1];{recap_label}[a0][t][a1]concat=n={parts}:v=0:a=1,atrim=end=150[a];\
             color=c=gray:s=64x36:r=25:d=150[v]",
            own = own(seed, rate),
        );
        ffmpeg(&[
            "-filter_complex",
            &graph,
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
            "-b:a",
            "96k",
            "-t",
            "150",
            out.to_str().unwrap(),
        ]);
        signals.push(analyze(&out, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap());
    }
    let episodes: Vec<Episode<'_>> =
        signals.iter().enumerate().map(|(i, s)| Episode { number: Some(i as i64 + 1), signals: s }).collect();
    let markers = season_markers(&episodes);
    for (m, &(_, _, at, recap)) in markers.iter().zip(&plan) {
        let start = at + recap.unwrap_or(0.0);
        eprintln!(
            "intro {:?}-{:?} (true {start}-{}), recap {:?}-{:?}",
            m.intro_start,
            m.intro_end,
            start + 20.0,
            m.recap_start,
            m.recap_end
        );
        let (a, b) = (m.intro_start.expect("an intro"), m.intro_end.expect("an intro end"));
        assert!((a - start).abs() <= 1.0 && (b - start - 20.0).abs() <= 1.0, "{m:?}, true {start}");
        match recap {
            Some(len) => {
                let (ra, rb) = (m.recap_start.expect("a recap"), m.recap_end.unwrap());
                assert!(ra.abs() <= 1.0 && (rb - len).abs() <= 1.0, "{m:?}");
            }
            None => assert_eq!(m.recap_start, None, "{m:?}"),
        }
        assert_eq!(m.episodes_compared, 2);
    }
}
