//! An item's signals drawn as lanes of one SVG on a shared time axis: shots, speech, the score
//! timelines, clip types, emotions and the emotional arc (the smoothed valence with the nearest
//! story shape), characters, tags (sound events among them), shot types, what
//! is seen and the technical cues, each lane only
//! when the item has it, with chosen clips marked across every lane. Drawn on the server (no
//! script), with presentation attributes only (the pages' content security policy forbids inline
//! styles), and readable without sight: the figure has a title and a description, and each lane
//! a text label.

use maud::{Markup, html};

use kino::{EmotionalArc, Signals};

/// Width of the drawing area, in user units (the SVG scales to its container).
const WIDTH: f64 = 1000.0;
/// Left margin holding the lanes' labels.
const LABEL: f64 = 150.0;
/// Height of a lane.
const LANE: f64 = 26.0;
/// Gap between lanes.
const GAP: f64 = 6.0;
/// Height of the time axis.
const AXIS: f64 = 22.0;

/// A clip to mark: its span in seconds and its label.
#[derive(Debug, Clone)]
pub struct Mark {
    /// Start, seconds.
    pub start: f64,
    /// End, seconds.
    pub end: f64,
    /// Shown above the span.
    pub label: String,
}

/// One lane: a label and what it draws.
enum Lane {
    /// Values in `[0, 1]` sampled every `step` seconds.
    Curve { step: f64, values: Vec<f32> },
    /// Spans with optional labels.
    Spans(Vec<(f64, f64, Option<String>)>),
    /// Instants (shot boundaries).
    Ticks(Vec<f64>),
    /// The emotional arc: its smoothed valence as a line, its shape and distance as a caption.
    Arc(EmotionalArc),
}

impl Lane {
    /// The lane's height: the arc gets two lanes' worth, so its rises and falls can be read.
    fn height(&self) -> f64 {
        if matches!(self, Lane::Arc(_)) { 2.0 * LANE } else { LANE }
    }
}

/// The lanes of an item's signals, in the order drawn, without empty ones: first its binge
/// `markers` (intro, recap, end credits...), when it has any.
fn lanes(s: &Signals, markers: &[Mark]) -> Vec<(String, Lane)> {
    let mut out: Vec<(String, Lane)> = Vec::new();
    if !markers.is_empty() {
        out.push((
            "binge markers".into(),
            Lane::Spans(markers.iter().map(|m| (m.start, m.end, Some(m.label.clone()))).collect()),
        ));
    }
    if !s.shots.is_empty() {
        out.push(("shots".into(), Lane::Ticks(s.shots.clone())));
    }
    if !s.speech.is_empty() {
        out.push(("speech".into(), Lane::Spans(s.speech.iter().map(|[a, b]| (*a, *b, None)).collect())));
    }
    let t = &s.timelines;
    for (name, values) in [
        ("relevance", &t.relevance),
        ("brightness", &t.brightness),
        ("nudity", &t.nudity),
        ("blood / gore", &t.blood_gore),
        ("profanity", &t.profanity),
    ] {
        if values.iter().any(|v| *v > 0.0) {
            out.push((name.into(), Lane::Curve { step: s.step, values: values.clone() }));
        }
    }
    for (name, values) in &t.clip_types {
        if values.iter().any(|v| *v > 0.0) {
            out.push((format!("clip type: {name}"), Lane::Curve { step: s.step, values: values.clone() }));
        }
    }
    if let Some(e) = &s.emotions {
        for (i, name) in e.names.iter().enumerate() {
            let values: Vec<f32> = e.probs.iter().map(|row| row.get(i).copied().unwrap_or(0.0)).collect();
            if values.iter().any(|v| *v > 0.0) {
                out.push((format!("emotion: {name}"), Lane::Curve { step: e.step, values }));
            }
        }
    }
    if let Some(arc) = kino::emotional_arc(s) {
        out.push(("emotional arc".into(), Lane::Arc(arc)));
    }
    for c in s.characters.iter().take(8) {
        out.push((
            format!("character #{}", c.rank + 1),
            Lane::Spans(c.spans.iter().map(|[a, b]| (*a, *b, None)).collect()),
        ));
    }
    if !s.tags.is_empty() {
        out.push((
            "tags, sound events".into(),
            Lane::Spans(s.tags.iter().map(|t| (t.start, t.end, Some(t.name.clone()))).collect()),
        ));
    }
    if let Some(v) = &s.visual {
        if !v.shot_types.is_empty() {
            out.push((
                "shot type".into(),
                Lane::Spans(v.shot_types.iter().map(|t| (t.start, t.end, Some(t.kind.replace('_', " ")))).collect()),
            ));
        }
        if !v.tags.is_empty() {
            out.push((
                "seen (labels)".into(),
                Lane::Spans(v.tags.iter().map(|t| (t.start, t.end, Some(t.name.clone()))).collect()),
            ));
        }
        if !v.cues.is_empty() {
            out.push((
                "black, colour bars, rolling".into(),
                Lane::Spans(v.cues.iter().map(|c| (c.start, c.end, Some(c.kind.replace('_', " ")))).collect()),
            ));
        }
    }
    if let Some(o) = &s.objects
        && !o.tracks.is_empty()
    {
        // A track spans from its first frame to one interval after its last: what it was seen for.
        let seen = |t: &kino::signals::ObjectTrack| (t.start, (t.end + o.interval).min(s.duration));
        out.push((
            "objects".into(),
            Lane::Spans(
                o.tracks
                    .iter()
                    .map(|t| {
                        let (a, b) = seen(t);
                        (a, b, Some(format!("{} ({:.2})", t.class, t.confidence)))
                    })
                    .collect(),
            ),
        ));
    }
    if let Some(sp) = &s.speakers
        && !sp.turns.is_empty()
    {
        let who = |speaker: u32| match sp.characters.get(speaker as usize).copied().flatten() {
            Some(c) => format!("speaker {} (character #{})", speaker + 1, c + 1),
            None => format!("speaker {}", speaker + 1),
        };
        out.push((
            "speakers".into(),
            Lane::Spans(sp.turns.iter().map(|t| (t.start, t.end, Some(who(t.speaker)))).collect()),
        ));
    }
    if let Some(tr) = &s.transcript
        && !tr.segments.is_empty()
    {
        // Each segment with its speaker, when the voices were told apart.
        let said = |g: &kino::signals::TranscriptSegment| match s
            .speakers
            .as_ref()
            .and_then(|sp| kino::speakers::speaker_of(sp, g.start, g.end))
        {
            Some(speaker) => format!("speaker {}: {}", speaker + 1, g.text),
            None => g.text.clone(),
        };
        out.push((
            "transcript".into(),
            Lane::Spans(tr.segments.iter().map(|g| (g.start, g.end, Some(said(g)))).collect()),
        ));
    }
    out
}

/// The most ticks the time axis draws, whatever the duration (a document's duration is bounded
/// by the core, but the axis does not rely on it).
const MAX_TICKS: usize = 50;

/// A round step for the axis' ticks: about ten over `duration`; past the round steps, whole
/// multiples of two hours, so that even a duration of 1e15 s has a dozen ticks.
fn tick_step(duration: f64) -> f64 {
    let steps = [1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0];
    steps.into_iter().find(|s| duration / s <= 12.0).unwrap_or_else(|| 7200.0 * (duration / 7200.0 / 12.0).ceil())
}

/// The times of the axis' ticks over `duration`: 0, then every [`tick_step`], at most
/// [`MAX_TICKS`] of them (none past the duration, none for a duration that is not a finite
/// positive number).
fn axis_ticks(duration: f64) -> Vec<f64> {
    if !(duration.is_finite() && duration > 0.0) {
        return Vec::new();
    }
    let step = tick_step(duration);
    (0..MAX_TICKS).map(|i| i as f64 * step).take_while(|t| *t <= duration).collect()
}

/// `h:mm:ss` or `m:ss`.
pub fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The SVG of the item's signals with `marks` (clips) across every lane and its binge `markers`
/// in a lane of their own; the lanes named in its description.
pub fn draw(s: &Signals, marks: &[Mark], markers: &[Mark]) -> Markup {
    let lanes = lanes(s, markers);
    let duration = s.duration.max(f64::EPSILON);
    let x = |t: f64| LABEL + (t.clamp(0.0, duration) / duration) * (WIDTH - LABEL);
    let mut tops = Vec::with_capacity(lanes.len());
    let mut height = AXIS;
    for (_, lane) in &lanes {
        tops.push(height);
        height += lane.height() + GAP;
    }
    height += GAP;
    let names: Vec<&str> = lanes.iter().map(|(n, _)| n.as_str()).collect();
    let arc = lanes.iter().find_map(|(_, l)| if let Lane::Arc(a) = l { Some(caption(a)) } else { None });
    let description = format!(
        "{} lanes over {} ({}); {} clips marked.{}",
        lanes.len(),
        clock(s.duration),
        names.join(", "),
        marks.len(),
        arc.map(|a| format!(" The emotional arc is {a}.")).unwrap_or_default()
    );
    let ticks = axis_ticks(duration);
    html! {
        svg.timeline xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {height}")) role="img"
            aria-labelledby="timeline-title timeline-desc" data-lanes=(lanes.len()) {
            title #timeline-title { "What kino measured, on one time axis" }
            desc #timeline-desc { (description) }
            // the axis
            @for t in &ticks {
                line x1=(x(*t)) x2=(x(*t)) y1="14" y2=(height) stroke="#d0d4da" stroke-width="1" {}
                text x=(x(*t) + 2.0) y="11" font-size="10" fill="#3a3f47" { (clock(*t)) }
            }
            @for ((name, lane), top) in lanes.iter().zip(&tops) {
                @let top = *top;
                g.lane data-lane=(name) {
                    text x="0" y=(top + LANE * 0.65) font-size="11" fill="#1f2328" { (name) }
                    rect x=(LABEL) y=(top) width=(WIDTH - LABEL) height=(lane.height()) fill="#f3f5f8" {}
                    @match lane {
                        Lane::Arc(arc) => {
                            @let points = arc_points(arc, top, &x);
                            polyline.arc points=(points) fill="none" stroke="#b3261e" stroke-width="2" stroke-linejoin="round" {
                                title { "Smoothed valence: " (caption(arc)) }
                            }
                            text.arc-shape x="0" y=(top + LANE * 1.5) font-size="10" fill="#6b1a14" data-shape=(arc.shape.as_str()) {
                                (arc.name) " · " (format!("{:.2}", arc.distance))
                            }
                        }
                        Lane::Curve { step, values } => {
                            path d=(curve(values, *step, top, &x)) fill="#2f6fbd" fill-opacity="0.35" stroke="#1d4f91" stroke-width="1" {}
                        }
                        Lane::Spans(spans) => {
                            @for (a, b, label) in merge(spans, duration / 2000.0) {
                                rect x=(x(a)) y=(top + 3.0) width=((x(b) - x(a)).max(1.0)) height=(LANE - 6.0) fill="#3f8f5a" {
                                    @if let Some(label) = label { title { (label) " (" (clock(a)) "–" (clock(b)) ")" } }
                                }
                            }
                        }
                        Lane::Ticks(times) => {
                            @for t in times {
                                line x1=(x(*t)) x2=(x(*t)) y1=(top) y2=(top + LANE) stroke="#5b4a9e" stroke-width="1" {}
                            }
                        }
                    }
                }
            }
            @for (i, m) in marks.iter().enumerate() {
                g.clip data-clip=(i + 1) {
                    rect x=(x(m.start)) y="14" width=((x(m.end) - x(m.start)).max(2.0)) height=(height - 14.0)
                        fill="#e0a100" fill-opacity="0.22" stroke="#a86f00" stroke-width="1.5" {
                        title { (m.label) " (" (clock(m.start)) "–" (clock(m.end)) ")" }
                    }
                    text x=(x(m.start) + 2.0) y=(height - 3.0) font-size="11" font-weight="bold" fill="#6b4600" { (i + 1) }
                }
            }
        }
    }
}

/// The arc's shape and distance in words: `man in a hole (distance 0.12 of 2)`.
fn caption(arc: &EmotionalArc) -> String {
    format!("{} (distance {:.2} of 2)", arc.name, arc.distance)
}

/// The polyline points of the arc's smoothed valence in its lane at `top`: each point at the
/// middle of the span it averages, the valence scaled to the arc's own range: the lane shows the
/// shape, as the story shapes are compared, not the level.
fn arc_points(arc: &EmotionalArc, top: f64, x: &impl Fn(f64) -> f64) -> String {
    let (lo, hi) = arc.valence.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let range = (hi - lo).max(f64::EPSILON);
    let height = 2.0 * LANE - 6.0;
    let n = arc.valence.len() as f64;
    arc.valence
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let t = (i as f64 + 0.5) / n * arc.end;
            format!("{:.1},{:.1}", x(t), top + 3.0 + (hi - v) / range * height)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Most steps a curve is drawn with: about one per unit of width (finer detail cannot be seen,
/// and a two-hour film sampled twice a second would make pages of megabytes).
const MAX_STEPS: usize = 850;

/// `values` sampled every `step` seconds, reduced to at most [`MAX_STEPS`] by the maximum of each
/// run of samples (so a short peak, a moment of nudity say, stays visible); the new step.
fn downsample(values: &[f32], step: f64) -> (Vec<f32>, f64) {
    let per = values.len().div_ceil(MAX_STEPS).max(1);
    let reduced = values.chunks(per).map(|c| c.iter().copied().fold(0.0_f32, f32::max)).collect();
    (reduced, step * per as f64)
}

/// Spans merged where they lie closer than `gap` seconds (below what the drawing resolves); the
/// labels of merged spans are joined.
fn merge(spans: &[(f64, f64, Option<String>)], gap: f64) -> Vec<(f64, f64, Option<String>)> {
    let mut sorted: Vec<&(f64, f64, Option<String>)> = spans.iter().collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64, Option<String>)> = Vec::new();
    for (a, b, label) in sorted {
        match out.last_mut() {
            Some(last) if *a - last.1 < gap && label.is_none() && last.2.is_none() => last.1 = last.1.max(*b),
            _ => out.push((*a, *b, label.clone())),
        }
    }
    out
}

/// The path of a filled curve of `values` (clamped to `[0, 1]`) in the lane at `top`.
fn curve(values: &[f32], step: f64, top: f64, x: &impl Fn(f64) -> f64) -> String {
    let (values, step) = downsample(values, step);
    let y = |v: f32| top + LANE - f64::from(v.clamp(0.0, 1.0)) * (LANE - 2.0);
    let mut d = format!("M{:.1},{:.1}", x(0.0), top + LANE);
    for (i, v) in values.iter().enumerate() {
        let t = i as f64 * step;
        d.push_str(&format!(" L{:.1},{:.1} L{:.1},{:.1}", x(t), y(*v), x(t + step), y(*v)));
    }
    d.push_str(&format!(" L{:.1},{:.1} Z", x(values.len() as f64 * step), top + LANE));
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals() -> Signals {
        Signals::from_json(
            r#"{"format": "kino.signals/1", "inventory_id": "tt1", "duration": 4.0, "fps": 24.0,
            "frame_width": 1920, "frame_height": 1080, "step": 1.0,
            "timelines": {"relevance": [0.1, 0.8, 0.9, 0.2], "nudity": [0.0, 0.0, 0.0, 0.0],
                "blood_gore": [0.0, 0.0, 0.0, 0.0], "profanity": [0.0, 0.0, 0.0, 0.0],
                "brightness": [0.5, 0.6, 0.6, 0.4], "clip_types": {"Exciting": [0.2, 0.9, 0.8, 0.1]}},
            "shots": [2.0], "speech": [[0.5, 1.5]], "characters": [{"rank": 0, "spans": [[0.0, 4.0]]}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn draws_the_lanes_the_item_has_and_the_clips() {
        let svg =
            draw(&signals(), &[Mark { start: 1.0, end: 3.0, label: "clip 1 <Exciting>".into() }], &[]).into_string();
        for lane in ["shots", "speech", "relevance", "brightness", "clip type: Exciting", "character #1"] {
            assert!(svg.contains(&format!("data-lane=\"{lane}\"")), "{lane} missing");
        }
        assert!(!svg.contains("data-lane=\"nudity\""), "an all-zero timeline is not drawn");
        assert!(svg.contains("data-lanes=\"6\""));
        assert!(svg.contains("data-clip=\"1\""));
        assert!(svg.contains("clip 1 &lt;Exciting&gt;"), "labels are escaped");
        assert!(!svg.contains("style="), "no inline styles (content security policy)");
    }

    #[test]
    fn the_picture_gets_its_lanes() {
        let mut s = signals();
        let shot = |start: f64, end: f64, kind: &str| kino::signals::ShotType {
            start,
            end,
            kind: kind.into(),
            people: 1,
            setting: None,
        };
        let mut bounds = vec![0.0];
        bounds.extend(s.shots.iter().copied());
        bounds.push(s.duration);
        s.visual = Some(kino::signals::Visual {
            interval: 2.0,
            frames: Vec::new(),
            shot_types: bounds.windows(2).map(|w| shot(w[0], w[1], "close_up")).collect(),
            scene_features: None,
            item_feature: None,
            cues: vec![kino::signals::VisualCue { kind: "color_bars".into(), start: 0.0, end: 1.0 }],
            tags: vec![kino::signals::Tag {
                kind: kino::signals::TagKind::Environment,
                name: "beach".into(),
                start: 0.0,
                end: 2.0,
                score: 0.7,
            }],
        });
        let svg = draw(&s, &[], &[]).into_string();
        for lane in ["shot type", "seen (labels)", "black, colour bars, rolling"] {
            assert!(svg.contains(&format!("data-lane=\"{lane}\"")), "{lane} missing");
        }
        assert!(svg.contains("close up") && svg.contains("beach") && svg.contains("color bars"));
    }

    #[test]
    fn objects_and_speakers_get_their_lanes() {
        let mut s = signals();
        assert!(!draw(&s, &[], &[]).into_string().contains("data-lane=\"objects\""), "no lane without objects");
        s.objects = Some(kino::signals::Objects {
            interval: 2.0,
            frames: Vec::new(),
            tracks: vec![kino::signals::ObjectTrack {
                class: "bicycle".into(),
                start: 0.0,
                end: 2.0,
                frames: 2,
                confidence: 0.81,
                largest: 0.2,
            }],
        });
        let turn = |start: f64, end: f64, speaker: u32| kino::signals::SpeakerTurn {
            start,
            end,
            speaker,
            embedding: Vec::new(),
        };
        s.speakers = Some(kino::signals::Speakers {
            turns: vec![turn(0.5, 1.5, 0), turn(2.0, 3.5, 1)],
            voices: vec![vec![1.0], vec![1.0]],
            characters: vec![Some(0), None],
        });
        let svg = draw(&s, &[], &[]).into_string();
        for lane in ["objects", "speakers"] {
            assert!(svg.contains(&format!("data-lane=\"{lane}\"")), "{lane} missing: {svg}");
        }
        assert!(
            svg.contains("bicycle (0.81)") && svg.contains("speaker 1 (character #1)") && svg.contains("speaker 2 (")
        );
    }

    #[test]
    fn the_emotional_arc_is_drawn_with_its_shape_and_distance() {
        let mut s = kino::synth::demo_signals("tt-arc", 1200.0, 1.0, 3);
        let e = s.emotions.as_mut().unwrap();
        let n = e.valence.len() as f64;
        e.valence = (0..e.valence.len())
            .map(|i| (0.8 * kino::ArcShape::Icarus.template((i as f64 + 0.5) / n)) as f32)
            .collect();
        let svg = draw(&s, &[], &[]).into_string();
        assert!(svg.contains("data-lane=\"emotional arc\""), "{svg}");
        assert!(svg.contains("data-shape=\"icarus\""), "{svg}");
        assert!(svg.contains("Icarus · 0.0"), "the shape's name and its distance: {svg}");
        assert!(svg.contains("The emotional arc is Icarus (distance 0.0"), "said in the description: {svg}");
        let points = svg.split("<polyline class=\"arc\" points=\"").nth(1).unwrap().split('"').next().unwrap();
        let ys: Vec<f64> = points.split(' ').map(|p| p.split(',').nth(1).unwrap().parse().unwrap()).collect();
        assert_eq!(ys.len(), kino::arc::POINTS);
        let top = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let peak = ys.iter().position(|y| *y == top).unwrap();
        assert!((7..=12).contains(&peak), "Icarus peaks mid-way (SVG y grows downwards): {ys:?}");
        assert!(!svg.contains("style="));
        s.emotions = None;
        assert!(!draw(&s, &[], &[]).into_string().contains("emotional arc"), "no lane without emotions");
    }

    #[test]
    fn binge_markers_get_a_lane_of_their_own() {
        let intro = Mark { start: 0.5, end: 2.0, label: "intro".into() };
        let credits = Mark { start: 3.0, end: 4.0, label: "end credits".into() };
        let svg = draw(&signals(), &[], &[intro, credits]).into_string();
        assert!(svg.contains("data-lane=\"binge markers\"") && svg.contains("data-lanes=\"7\""), "{svg}");
        assert!(svg.contains("<title>intro (0:01–0:02)</title>") && svg.contains("end credits (0:03–0:04)"), "{svg}");
        assert!(!draw(&signals(), &[], &[]).into_string().contains("binge markers"), "no lane without markers");
    }

    #[test]
    fn long_timelines_are_reduced_keeping_their_peaks() {
        let mut values = vec![0.0_f32; 14_160];
        values[7_001] = 0.9;
        let (reduced, step) = downsample(&values, 0.5);
        assert!(reduced.len() <= MAX_STEPS);
        assert_eq!(step, 0.5 * 17.0);
        assert_eq!(reduced.iter().copied().fold(0.0, f32::max), 0.9, "a one-sample peak survives");
        let spans = vec![(0.0, 1.0, None), (1.05, 2.0, None), (5.0, 6.0, None), (6.01, 7.0, Some("dog".to_string()))];
        let merged = merge(&spans, 0.1);
        assert_eq!(merged.len(), 3, "{merged:?}");
        assert_eq!((merged[0].0, merged[0].1), (0.0, 2.0));
    }

    #[test]
    fn clocks_and_ticks() {
        assert_eq!(clock(59.6), "1:00");
        assert_eq!(clock(3725.0), "1:02:05");
        assert_eq!(tick_step(4.0), 1.0);
        assert_eq!(tick_step(7080.0), 600.0);
        assert_eq!(axis_ticks(7080.0).len(), 12, "0:00 to 1:50:00 every ten minutes");
    }

    #[test]
    fn the_axis_has_a_bounded_number_of_ticks_whatever_the_duration() {
        for duration in [1e-9, 1.0, 172_800.0, 1e7, 1e15, 1e300, f64::MAX] {
            let ticks = axis_ticks(duration);
            assert!(!ticks.is_empty() && ticks.len() <= MAX_TICKS, "{duration}: {} ticks", ticks.len());
            assert!(ticks.iter().all(|t| *t <= duration), "{duration}");
        }
        assert!(axis_ticks(f64::INFINITY).is_empty() && axis_ticks(f64::NAN).is_empty());
    }
}
