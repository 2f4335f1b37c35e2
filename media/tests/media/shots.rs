//! Shot boundaries on generated videos: hard cuts at known frames (F1 >= 0.95 within one frame),
//! a fade to black and back (within 0.5 s), and one-frame white flashes (no cut).

use kino_media::{AnalyzeOptions, analyze};

use crate::support::*;

/// F1 of `found` against `truth`, a detection matching a true boundary within `tolerance` seconds
/// (each true boundary matched once).
fn f1(found: &[f64], truth: &[f64], tolerance: f64) -> f64 {
    let mut used = vec![false; truth.len()];
    let mut hits = 0;
    for &t in found {
        if let Some(i) = (0..truth.len()).find(|&i| !used[i] && (truth[i] - t).abs() <= tolerance) {
            used[i] = true;
            hits += 1;
        }
    }
    if hits == 0 {
        return 0.0;
    }
    let (p, r) = (hits as f64 / found.len() as f64, hits as f64 / truth.len() as f64);
    2.0 * p * r / (p + r)
}

#[test]
fn hard_cuts_are_found_within_one_frame() {
    if !tools("hard_cuts_are_found_within_one_frame", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sources = [
        ("testsrc2", 37),
        ("smptebars", 50),
        ("mandelbrot", 41),
        ("color=c=darkred", 30),
        ("testsrc", 45),
        ("rgbtestsrc", 33),
        ("smptehdbars", 52),
        ("color=c=teal", 40),
        ("testsrc2", 26),
        ("mandelbrot", 44),
    ];
    let mut graph = String::new();
    let mut truth = Vec::new();
    let mut at = 0;
    for (i, (source, frames)) in sources.iter().enumerate() {
        let spec = segment(source, *frames);
        graph.push_str(&format!("{spec}[s{i}];"));
        if i > 0 {
            truth.push(at as f64 / FPS);
        }
        at += frames;
    }
    for i in 0..sources.len() {
        graph.push_str(&format!("[s{i}]"));
    }
    graph.push_str(&format!("concat=n={}:v=1:a=0[v]", sources.len()));
    let video = encode(dir.path(), "cuts.mp4", &graph, false, 250);
    let doc = analyze(&video, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap();
    let score = f1(&doc.shots, &truth, 1.0 / FPS + 1e-6);
    eprintln!("hard cuts F1 {score:.3}: found {:?}, expected {truth:?}", doc.shots);
    assert!(score >= 0.95, "F1 {score}: found {:?}, expected {truth:?}", doc.shots);
    assert!((doc.duration - at as f64 / FPS).abs() < 0.05);
}

#[test]
fn a_fade_to_black_and_back_is_one_boundary_at_its_darkest_point() {
    if !tools("a_fade_to_black_and_back_is_one_boundary_at_its_darkest_point", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let graph = format!(
        "{},fade=t=out:st=4:d=1[a];{},fade=t=in:st=0:d=1[b];[a][b]concat=n=2:v=1:a=0[v]",
        segment("testsrc2", 125),
        segment("mandelbrot", 125)
    );
    let video = encode(dir.path(), "fade.mp4", &graph, false, 250);
    let doc = analyze(&video, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap();
    eprintln!("fade boundary {:?} (expected 5.0 +- 0.5)", doc.shots);
    assert_eq!(doc.shots.len(), 1, "{:?}", doc.shots);
    assert!((doc.shots[0] - 5.0).abs() <= 0.5, "{:?}", doc.shots);
    let b = &doc.timelines.brightness;
    assert!(b[4] < b[2] && b[5] < b[7], "brightness dips at the fade: {b:?}");
}

#[test]
fn one_frame_flashes_are_not_cuts() {
    if !tools("one_frame_flashes_are_not_cuts", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flash = |n: u32| format!("drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(n\\,{n})'");
    let graph = format!(
        "{},{},{}[a];{},{}[b];[a][b]concat=n=2:v=1:a=0[v]",
        segment("testsrc2", 150),
        flash(50),
        flash(110),
        segment("smptebars", 100),
        flash(40)
    );
    let video = encode(dir.path(), "flash.mp4", &graph, false, 250);
    let doc = analyze(&video, &AnalyzeOptions::default(), &none(), |_, _| {}).unwrap();
    assert_eq!(doc.shots, vec![6.0], "only the real cut at frame 150 is a boundary");
}
