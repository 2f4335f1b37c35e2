//! What the picture shows, after the pass: the labels of each sampled frame grouped as a catalog
//! reader sees them, the editorial shot type of each shot (from the people in it: person boxes
//! and faces), tags of what is seen per scene (labels and objects), visual features per scene and
//! for the item, and the technical cues
//! (black frames, colour bars, rolling credits) found on the analysis frames during the pass
//! ([`CueDetector`]).
//!
//! Every rule and threshold is stated here and in `docs/media.md` ("What the picture shows"),
//! with the measurements they come from.

use kino::signals::{Scene, ShotType, Tag, TagKind, Visual, VisualCue, VisualFrame, VisualLabel};

use crate::frame::Frame;
use crate::scroll::ScrollDetector;
use crate::see::{CLOTHING, PEOPLE, Seen, frames_in, is_person_cue};

mod weigh;

use weigh::mean_feature;
pub use weigh::{CONSE_TOP, DARK, FEATURE_FLOOR, LIT, SHARP, confidence, frame_labels, frame_weight, visibility};
pub(crate) use weigh::{conse, mix};

/// Labels kept per frame ([`frame_labels`]: the whole frame's five most probable, and those of
/// the detector's largest boxes) with at least this probability.
pub const FRAME_LABEL_MIN: f32 = 0.05;
/// A label becomes a tag of a scene when one of the scene's frames gives it at least this, times
/// how much there is to see in the frame ([`visibility`]: a black frame gives none).
pub const TAG_MIN: f32 = 0.5;
/// A label says indoor or outdoor when one of the shot's frames gives it at least this.
pub const SETTING_MIN: f32 = 0.2;

/// Shot types by the tallest face's height as a share of the frame's height (dlib's face box
/// runs from the brows to the chin, about two thirds of the head): at least this is an extreme
/// close-up (the face fills the frame)...
pub const EXTREME_CLOSE_UP: f32 = 0.5;
/// ...at least this a close-up (head and shoulders)...
pub const CLOSE_UP: f32 = 0.25;
/// ...at least this a medium shot (from the waist up); below it a wide shot (the whole figure
/// or more).
pub const MEDIUM: f32 = 0.1;

/// Shot types by the largest person box of the shot (a detector's box of a person, see
/// [`crate::objects::is_person`]): a box this many times taller than wide (in pixels) or more is
/// a whole standing figure...
pub const WHOLE_FIGURE: f32 = 1.8;
/// ...and so is a box that ends above this height (its feet are in the frame): a wide shot, or an
/// extreme wide one when the figure is under [`EXTREME_WIDE`] of the frame's height.
pub const CUT_AT: f32 = 0.95;
/// See [`CUT_AT`].
pub const EXTREME_WIDE: f32 = 0.2;
/// A figure cut by the frame's bottom edge is a close-up when its box is at least this tall and
/// no taller than wide (head and shoulders fill the frame)...
pub const PERSON_CLOSE_UP: f32 = 0.8;
/// ...a medium shot when at least this tall, and a wide shot below it.
pub const PERSON_MEDIUM: f32 = 0.5;

/// The group of ImageNet-1k class `index` (the standard order): `animal` (0 to 397), `food`,
/// `place` (landscapes, buildings, shops and venues, street furniture), `vehicle`, `clothing`
/// (garments, and the classes that are people: a baseball player, a bridegroom, a scuba diver),
/// or `object`.
pub fn group(index: u16) -> &'static str {
    match index {
        0..=397 => "animal",
        i if FOOD.contains(&i) => "food",
        i if PLACES_OUTDOOR.contains(&i) || PLACES_INDOOR.contains(&i) => "place",
        i if VEHICLES.contains(&i) => "vehicle",
        i if CLOTHING.contains(&i) || PEOPLE.contains(&i) => "clothing",
        _ => "object",
    }
}

/// `indoor` or `outdoor` when class `index` says which.
pub fn setting(index: u16) -> Option<&'static str> {
    if PLACES_OUTDOOR.contains(&index) || OUTDOOR_THINGS.contains(&index) {
        Some("outdoor")
    } else if PLACES_INDOOR.contains(&index) || INDOOR_THINGS.contains(&index) {
        Some("indoor")
    } else {
        None
    }
}

const FOOD: &[u16] = &[
    924, 925, 926, 927, 928, 929, 930, 931, 932, 933, 934, 935, 936, 937, 938, 939, 940, 941, 942, 943, 944, 945, 946,
    947, 948, 949, 950, 951, 952, 953, 954, 955, 956, 957, 959, 960, 961, 962, 963, 964, 965, 966, 967, 969, 987,
];
/// Landscapes and outdoor buildings: mountain, cliff, coral reef, geyser, lakeshore, promontory,
/// sandbar, beach, valley, volcano; apiary, barn, lighthouse, bell tower, breakwater, castle,
/// cliff dwelling, dam, dock, fountain, greenhouse, mobile home, monastery, mosque, tent,
/// obelisk, palace, patio, pier, arch and suspension bridges, stone wall, stupa, thatched and
/// tile roofs, triumphal arch, viaduct, water tower, shipwreck, yurt, church, street sign,
/// traffic light.
const PLACES_OUTDOOR: &[u16] = &[
    970, 972, 973, 974, 975, 976, 977, 978, 979, 980, 410, 425, 437, 442, 460, 483, 500, 525, 536, 562, 580, 660, 663,
    668, 672, 682, 698, 706, 718, 821, 825, 832, 839, 853, 858, 873, 888, 900, 913, 915, 497, 919, 920,
];
/// Shops and venues: bakery, barbershop, bookstore, butcher shop, movie theater, candy store,
/// grocery store, home theater, library, planetarium, prison, restaurant, shoe store, stage,
/// tobacco shop, toy store, vaulted ceiling.
const PLACES_INDOOR: &[u16] = &[415, 424, 454, 467, 498, 509, 582, 598, 624, 727, 743, 762, 788, 819, 860, 865, 884];
/// Things seen outdoors: chain-link, picket and split-rail fences, flagpole, gas pump, mailbox,
/// manhole cover, park bench, parking meter.
const OUTDOOR_THINGS: &[u16] = &[489, 716, 912, 557, 571, 637, 640, 703, 704];
/// Furniture and fittings of rooms: barber chair, bassinet, bathtub, bookcase, chiffonier, china
/// cabinet, cradle, infant bed, desk, dining table, dishwasher, entertainment center, filing
/// cabinet, four-poster bed, grand and upright pianos, lampshade, medicine cabinet, microwave,
/// pipe organ, pool table, prayer rug, quilt, refrigerator, rocking chair, room divider, shower
/// curtain, couch, stove, table lamp, television, stage curtain, throne, toilet seat, wardrobe,
/// sink, washing machine, window screen and shade.
const INDOOR_THINGS: &[u16] = &[
    423, 431, 435, 453, 493, 495, 516, 520, 526, 532, 534, 548, 553, 564, 579, 881, 619, 648, 651, 687, 736, 741, 750,
    760, 765, 789, 794, 831, 827, 846, 851, 854, 857, 861, 894, 896, 897, 904, 905,
];
const VEHICLES: &[u16] = &[
    403, 404, 405, 407, 408, 436, 444, 450, 466, 468, 472, 484, 510, 511, 537, 547, 554, 555, 561, 565, 569, 573, 575,
    576, 586, 595, 603, 609, 612, 625, 627, 628, 654, 656, 661, 665, 670, 671, 675, 690, 705, 717, 724, 734, 751, 757,
    779, 780, 802, 803, 812, 814, 817, 820, 829, 833, 847, 864, 866, 867, 870, 871, 874, 880, 895, 908, 914,
];
/// Shot kinds from the farthest to the closest, as [`shot_type`] compares them.
const CLOSENESS: [&str; 5] = ["extreme_wide", "wide", "medium", "close_up", "extreme_close_up"];

/// The kind a face of height `tallest` (a fraction of the frame's) says, when there is one.
fn kind_by_face(tallest: f32) -> Option<&'static str> {
    match tallest {
        h if h >= EXTREME_CLOSE_UP => Some("extreme_close_up"),
        h if h >= CLOSE_UP => Some("close_up"),
        h if h >= MEDIUM => Some("medium"),
        h if h > 0.0 => Some("wide"),
        _ => None,
    }
}

/// The kind the largest person box `d` says, on a frame of `aspect` (width over height).
pub fn kind_by_person(d: &kino_models::Detection, aspect: f32) -> &'static str {
    let aspect = if aspect > 0.0 && aspect.is_finite() { aspect } else { 16.0 / 9.0 };
    let tall = d.h / d.w.max(1e-6) / aspect;
    if tall >= WHOLE_FIGURE || d.y + d.h < CUT_AT {
        if d.h < EXTREME_WIDE { "extreme_wide" } else { "wide" }
    } else if d.h >= PERSON_CLOSE_UP && tall <= 1.0 {
        "close_up"
    } else if d.h >= PERSON_MEDIUM {
        "medium"
    } else {
        "wide"
    }
}

/// The shot type before the detector (kept to compare): by the tallest face; without a face,
/// `wide` when a label shows a person, else `no_people`.
pub fn shot_kind_by_faces(frames: &[&Seen]) -> &'static str {
    let tallest = frames.iter().flat_map(|s| s.faces.iter().flatten()).map(|f| f.h).fold(0.0f32, f32::max);
    let person_label =
        frames.iter().flat_map(|s| s.labels.iter().flatten()).any(|&(i, p)| p >= TAG_MIN && is_person_cue(i));
    kind_by_face(tallest).unwrap_or(if person_label { "wide" } else { "no_people" })
}

/// The shot kind of a shot seen in `frames`, from the people in it: the closer of what the
/// tallest face says (the face rule above) and what the largest person box says
/// ([`kind_by_person`]); with neither, `wide` when a label shows a person, else `no_people`.
pub fn shot_kind(frames: &[&Seen]) -> &'static str {
    let tallest = frames.iter().flat_map(|s| s.faces.iter().flatten()).map(|f| f.h).fold(0.0f32, f32::max);
    let largest = frames
        .iter()
        .flat_map(|s| s.objects.iter().flatten().filter(|d| crate::objects::is_person(d)).map(move |d| (d, s.aspect)))
        .max_by(|a, b| a.0.area().total_cmp(&b.0.area()));
    let by_person = largest.map(|(d, aspect)| kind_by_person(d, aspect));
    let rank = |k: &str| CLOSENESS.iter().position(|c| *c == k).unwrap_or(0);
    match (kind_by_face(tallest), by_person) {
        (Some(a), Some(b)) => {
            if rank(a) >= rank(b) {
                a
            } else {
                b
            }
        }
        (Some(k), None) | (None, Some(k)) => k,
        (None, None) => shot_kind_by_faces(frames),
    }
}

/// The shot type of a shot seen in `frames` ([`shot_kind`]). `people` is the most people seen
/// at once ([`crate::objects::people_at_once`]: person boxes or faces); the setting is the side
/// (indoor, outdoor) with the larger summed probability of labels of at least [`SETTING_MIN`].
fn shot_type(frames: &[&Seen], start: f64, end: f64) -> ShotType {
    let kind = shot_kind(frames);
    let people = crate::objects::people_at_once(frames.iter().copied());
    let (mut indoor, mut outdoor) = (0.0f32, 0.0f32);
    for &(i, p) in frames.iter().flat_map(|s| s.labels.iter().flatten()) {
        match setting(i) {
            Some("indoor") if p >= SETTING_MIN => indoor += p,
            Some("outdoor") if p >= SETTING_MIN => outdoor += p,
            _ => {}
        }
    }
    let setting = match (indoor > 0.0, outdoor > 0.0) {
        (false, false) => None,
        _ if indoor >= outdoor => Some("indoor".to_string()),
        _ => Some("outdoor".to_string()),
    };
    ShotType { start, end, kind: kind.to_string(), people, setting }
}

/// The visual channel from what the sampled frames showed (`names`: the classifier's class
/// names), over the document's `shots`, `scenes` and `duration`, with the technical `cues` and
/// the scenes' tags of what is seen (a label of at least [`TAG_MIN`] in one of a scene's frames,
/// its probability times the frame's [`visibility`]: places as environment tags, everything else
/// as keyword tags, scored by the label's largest such product there).
pub fn visual(
    seen: &[Seen],
    names: &[String],
    interval: f64,
    (shots, scenes, duration): (&[f64], &[Scene], f64),
    cues: Vec<VisualCue>,
) -> Visual {
    let name = |i: u16| names.get(usize::from(i)).cloned().unwrap_or_else(|| format!("class {i}"));
    let frames = seen
        .iter()
        .filter_map(|s| {
            s.labels.as_ref()?;
            Some(VisualFrame {
                time: s.time,
                sharpness: (f64::from(s.sharpness) * 100.0).round() / 100.0,
                labels: frame_labels(s)
                    .into_iter()
                    .filter(|&(_, p)| p >= FRAME_LABEL_MIN)
                    .map(|(i, p)| VisualLabel {
                        name: name(i),
                        group: group(i).to_string(),
                        score: (f64::from(p) * 1e4).round() / 1e4,
                    })
                    .collect(),
            })
        })
        .collect();
    let mut bounds = vec![0.0];
    bounds.extend_from_slice(shots);
    bounds.push(duration);
    let shot_types = bounds.windows(2).map(|w| shot_type(&frames_in(seen, w[0], w[1]), w[0], w[1])).collect();
    let object_tags = crate::objects::object_tags(seen, scenes);
    let scene_features: Option<Vec<Vec<f32>>> =
        scenes.iter().map(|sc| mean_feature(frames_in(seen, sc.start, sc.end).into_iter())).collect();
    let mut tags = Vec::new();
    for sc in scenes {
        let mut best: std::collections::BTreeMap<u16, f32> = std::collections::BTreeMap::new();
        for s in frames_in(seen, sc.start, sc.end) {
            let visible = visibility(s);
            for (i, p) in frame_labels(s).into_iter().map(|(i, p)| (i, p * visible)).filter(|&(_, p)| p >= TAG_MIN) {
                let e = best.entry(i).or_insert(0.0);
                *e = e.max(p);
            }
        }
        for (i, p) in best {
            let kind = if group(i) == "place" { TagKind::Environment } else { TagKind::Keyword };
            tags.push(Tag { kind, name: name(i), start: sc.start, end: sc.end, score: f64::from(p) });
        }
    }
    tags.extend(object_tags);
    tags.sort_by(|a, b| a.start.total_cmp(&b.start));
    Visual {
        interval,
        frames,
        shot_types,
        scene_features: scene_features.filter(|f| !f.is_empty()),
        item_feature: mean_feature(seen.iter()),
        cues,
        tags,
    }
}

/// Finds black frames, colour bars and rolling credits ([`crate::scroll`]) among the analysis
/// frames as they stream by.
#[derive(Debug)]
pub(crate) struct CueDetector {
    frame_seconds: f64,
    open: [Option<f64>; 2],
    last: f64,
    cues: Vec<VisualCue>,
    scroll: ScrollDetector,
}

/// A black frame: at most this mean luma (of 255)...
pub const BLACK_MEAN: f64 = 20.0;
/// ...and at least 98% of its pixels at most this luma.
pub const BLACK_PIXEL: u8 = 40;
/// Black stretches shorter than this are not reported (a single dark frame is no cue).
pub const BLACK_MIN: f64 = 0.1;
/// Colour bars shorter than this are not reported.
pub const BARS_MIN: f64 = 1.0;

/// The seven bars of SMPTE and EBU test patterns, left to right, at 75% (their top two thirds):
/// white, yellow, cyan, green, magenta, red, blue.
const BARS: [[f64; 3]; 7] = [
    [191.0, 191.0, 191.0],
    [191.0, 191.0, 0.0],
    [0.0, 191.0, 191.0],
    [0.0, 191.0, 0.0],
    [191.0, 0.0, 191.0],
    [191.0, 0.0, 0.0],
    [0.0, 0.0, 191.0],
];

impl CueDetector {
    pub(crate) fn new(rate: f64) -> CueDetector {
        CueDetector {
            frame_seconds: 1.0 / rate.max(1e-3),
            open: [None, None],
            last: 0.0,
            cues: Vec::new(),
            scroll: ScrollDetector::new(rate),
        }
    }

    /// One analysis frame at `time`: its RGB24 bytes and the frame made of them.
    pub(crate) fn push(&mut self, time: f64, rgb: &[u8], frame: &Frame) {
        self.scroll.push(time, frame);
        let found = [is_black(rgb), is_colour_bars(frame.width, frame.height, rgb)];
        for (k, &now) in found.iter().enumerate() {
            match (self.open[k], now) {
                (None, true) => self.open[k] = Some(time),
                (Some(start), false) => {
                    self.close(k, start, time);
                    self.open[k] = None;
                }
                _ => {}
            }
        }
        self.last = time + self.frame_seconds;
    }

    fn close(&mut self, k: usize, start: f64, end: f64) {
        let (kind, min) = if k == 0 { ("black", BLACK_MIN) } else { ("color_bars", BARS_MIN) };
        if end - start >= min - 1e-9 {
            self.cues.push(VisualCue { kind: kind.to_string(), start, end });
        }
    }

    /// The cues, sorted by start, none past `duration`.
    pub(crate) fn finish(mut self, duration: f64) -> Vec<VisualCue> {
        let end = self.last.min(duration);
        for k in 0..2 {
            if let Some(start) = self.open[k].take() {
                self.close(k, start, end);
            }
        }
        for c in &mut self.cues {
            c.start = c.start.min(duration);
            c.end = c.end.min(duration);
        }
        self.cues.retain(|c| c.end > c.start);
        self.cues.extend(self.scroll.finish(duration));
        self.cues.sort_by(|a, b| a.start.total_cmp(&b.start));
        self.cues
    }
}

fn luma(p: &[u8]) -> f64 {
    0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2])
}

fn is_black(rgb: &[u8]) -> bool {
    let n = rgb.len() / 3;
    if n == 0 {
        return false;
    }
    let (mut sum, mut bright) = (0.0, 0usize);
    for p in rgb.chunks_exact(3) {
        let y = luma(p);
        sum += y;
        bright += usize::from(y > f64::from(BLACK_PIXEL));
    }
    sum / n as f64 <= BLACK_MEAN && bright * 50 <= n
}

/// Colour bars: the top half of the frame, cut into seven equal columns, has in each column a
/// near-uniform colour (per channel deviation at most 24) within 64 (per channel) of the bar
/// expected there.
fn is_colour_bars(width: usize, height: usize, rgb: &[u8]) -> bool {
    if width < 14 || height < 4 || rgb.len() < width * height * 3 {
        return false;
    }
    let rows = height / 2;
    BARS.iter().enumerate().all(|(b, expected)| {
        // The inner part of each column, away from the bar edges.
        let (x0, x1) = ((b * width) / 7 + width / 56, ((b + 1) * width) / 7 - width / 56);
        let (mut sum, mut sq, mut n) = ([0.0f64; 3], [0.0f64; 3], 0.0);
        for y in 0..rows {
            for x in x0..x1.max(x0 + 1) {
                let p = &rgb[(y * width + x) * 3..(y * width + x) * 3 + 3];
                for c in 0..3 {
                    let v = f64::from(p[c]);
                    sum[c] += v;
                    sq[c] += v * v;
                }
                n += 1.0;
            }
        }
        (0..3).all(|c| {
            let mean = sum[c] / n;
            let deviation = (sq[c] / n - mean * mean).max(0.0).sqrt();
            deviation <= 24.0 && (mean - expected[c]).abs() <= 64.0
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faces::Face;
    use crate::see::quantise;

    fn seen(time: f64, labels: &[(u16, f32)], face_h: &[f32]) -> Seen {
        let face = |h: f32| Face { x: 0.4, y: 0.2, w: h * 0.56, h, score: 1.0, embedding: vec![0.0; 128] };
        Seen {
            time,
            labels: Some(labels.to_vec()),
            faces: Some(face_h.iter().map(|&h| face(h)).collect()),
            feature: Some(quantise(&[1.0, 0.0, 2.0])),
            brightness: 120.0,
            sharpness: 300.0,
            ..Seen::default()
        }
    }

    #[test]
    fn groups_and_settings_follow_the_tables() {
        assert_eq!(group(281), "animal");
        assert_eq!(group(978), "place");
        assert_eq!(group(762), "place");
        assert_eq!(group(468), "vehicle");
        assert_eq!(group(963), "food");
        assert_eq!(group(445), "clothing");
        assert_eq!(group(982), "clothing");
        assert_eq!(group(504), "object");
        assert_eq!(setting(978), Some("outdoor"));
        assert_eq!(setting(762), Some("indoor"));
        assert_eq!(setting(831), Some("indoor"));
        assert_eq!(setting(504), None);
        assert!(is_person_cue(834) && !is_person_cue(281));
        for table in [FOOD, PLACES_OUTDOOR, PLACES_INDOOR, OUTDOOR_THINGS, INDOOR_THINGS, VEHICLES, CLOTHING, PEOPLE] {
            assert!(table.iter().all(|&i| (398..1000).contains(&i)), "no animal or unknown class in a table");
        }
    }

    #[test]
    fn shot_types_follow_the_face_rule() {
        let kind = |faces: &[f32], labels: &[(u16, f32)]| shot_type(&[&seen(0.0, labels, faces)], 0.0, 2.0).kind;
        assert_eq!(kind(&[0.6], &[]), "extreme_close_up");
        assert_eq!(kind(&[0.3], &[]), "close_up");
        assert_eq!(kind(&[0.15, 0.12], &[]), "medium");
        assert_eq!(kind(&[0.05], &[]), "wide");
        assert_eq!(kind(&[], &[(834, 0.5)]), "wide", "a suit: someone is there");
        assert_eq!(kind(&[], &[(978, 0.9)]), "no_people");
        let t = shot_type(&[&seen(0.0, &[(978, 0.7), (831, 0.25)], &[0.3, 0.2])], 0.0, 2.0);
        assert_eq!((t.people, t.setting.as_deref()), (2, Some("outdoor")));
    }

    fn person(confidence: f32, x: f32, y: f32, w: f32, h: f32) -> kino_models::Detection {
        kino_models::Detection { class: 0, name: "person", confidence, x, y, w, h }
    }

    #[test]
    fn shot_types_follow_the_largest_person_and_the_faces() {
        let kind = |faces: &[f32], people: &[kino_models::Detection]| {
            let mut s = seen(0.0, &[], faces);
            s.objects = Some(people.to_vec());
            s.aspect = 16.0 / 9.0;
            shot_kind(&[&s])
        };
        // Whole figures: feet in the frame, or a box three times taller than wide.
        assert_eq!(kind(&[], &[person(0.9, 0.5, 0.5, 0.05, 0.15)]), "extreme_wide");
        assert_eq!(kind(&[], &[person(0.9, 0.5, 0.3, 0.12, 0.6)]), "wide");
        assert_eq!(kind(&[], &[person(0.9, 0.5, 0.02, 0.09, 0.98)]), "wide", "a standing figure filling the height");
        // Cut by the bottom edge: head and shoulders, or the waist up.
        assert_eq!(kind(&[], &[person(0.9, 0.2, 0.1, 0.6, 0.9)]), "close_up");
        assert_eq!(kind(&[], &[person(0.9, 0.4, 0.3, 0.25, 0.7)]), "medium");
        assert_eq!(kind(&[], &[person(0.9, 0.4, 0.6, 0.25, 0.4)]), "wide");
        // The largest box decides, and the closer of the face and the person wins.
        assert_eq!(kind(&[], &[person(0.9, 0.5, 0.5, 0.05, 0.15), person(0.9, 0.4, 0.3, 0.25, 0.7)]), "medium");
        assert_eq!(kind(&[0.3], &[person(0.9, 0.5, 0.5, 0.05, 0.15)]), "close_up");
        assert_eq!(kind(&[0.05], &[person(0.9, 0.4, 0.3, 0.25, 0.7)]), "medium");
        // An unsure box is no person.
        assert_eq!(kind(&[], &[person(0.3, 0.4, 0.3, 0.25, 0.7)]), "no_people");
        // People: the most at once, boxes or faces.
        let mut s = seen(0.0, &[], &[0.05]);
        s.objects = Some(vec![person(0.9, 0.1, 0.3, 0.1, 0.5), person(0.9, 0.6, 0.3, 0.1, 0.5)]);
        let t = shot_type(&[&s], 0.0, 2.0);
        assert_eq!((t.kind.as_str(), t.people), ("wide", 2));
        assert_eq!(shot_kind_by_faces(&[&s]), "wide");
    }

    #[test]
    fn the_channel_holds_frames_shots_scenes_and_tags() {
        let names: Vec<String> = (0..1000).map(|i| format!("c{i}")).collect();
        let seen = [
            seen(0.0, &[(978, 0.8), (977, 0.03)], &[]),
            seen(2.0, &[(281, 0.5)], &[0.3]),
            seen(4.0, &[(504, 0.2)], &[]),
        ];
        let scenes = [Scene { start: 0.0, end: 3.0 }, Scene { start: 3.0, end: 6.0 }];
        let v = visual(&seen, &names, 2.0, (&[1.5], &scenes, 6.0), Vec::new());
        let tags = &v.tags;
        assert_eq!(v.frames.len(), 3);
        assert_eq!(v.frames[0].labels.len(), 1, "labels under {FRAME_LABEL_MIN} are dropped");
        assert_eq!(v.shot_types.iter().map(|s| s.kind.as_str()).collect::<Vec<_>>(), ["no_people", "close_up"]);
        assert_eq!(v.scene_features.as_ref().unwrap().len(), 2);
        let f = v.item_feature.unwrap();
        assert!((f.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        let named: Vec<(&str, TagKind)> = tags.iter().map(|t| (t.name.as_str(), t.kind)).collect();
        assert_eq!(named, [("c281", TagKind::Keyword), ("c978", TagKind::Environment)]);
    }

    #[test]
    fn a_scene_of_black_frames_shows_nothing() {
        let names: Vec<String> = (0..1000).map(|i| format!("c{i}")).collect();
        // The classifier is sure of something on the black frames (0.9): it counts for nothing.
        let mut black = [seen(0.0, &[(917, 0.9)], &[]), seen(2.0, &[(917, 0.9)], &[])];
        for b in &mut black {
            (b.brightness, b.sharpness, b.feature) = (1.0, 0.0, Some(quantise(&[0.0, 3.0, 0.0])));
        }
        let lit = seen(4.0, &[(978, 0.8)], &[]);
        let all = [black[0].clone(), black[1].clone(), lit];
        let scenes = [Scene { start: 0.0, end: 3.0 }, Scene { start: 3.0, end: 6.0 }];
        let v = visual(&all, &names, 2.0, (&[], &scenes, 6.0), Vec::new());
        let tags: Vec<(&str, f64)> = v.tags.iter().map(|t| (t.name.as_str(), t.start)).collect();
        assert_eq!(tags, [("c978", 3.0)], "no tag from the black scene");
        // Both scenes still look like something; the item looks like the lit frame.
        let features = v.scene_features.unwrap();
        assert!(features[0][1] > 0.99 && features[1][2] > 0.8, "{features:?}");
        let item = v.item_feature.unwrap();
        assert!(item[1] < 0.1, "the black frames all but vanish from the item's look: {item:?}");
        // The frames still report what the classifier said.
        assert_eq!(v.frames[0].labels[0].name, "c917");
    }

    #[test]
    fn black_frames_and_colour_bars_are_found() {
        let (w, h) = (140, 80);
        let black = vec![3u8; w * h * 3];
        let mut bars = vec![0u8; w * h * 3];
        for y in 0..h {
            for x in 0..w {
                let c = if y < h * 2 / 3 { BARS[x * 7 / w] } else { [20.0, 20.0, 60.0] };
                bars[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&[c[0] as u8, c[1] as u8, c[2] as u8]);
            }
        }
        let grey = vec![128u8; w * h * 3];
        let mut d = CueDetector::new(10.0);
        for i in 0..60 {
            let t = f64::from(i) / 10.0;
            let frame = if i < 5 {
                &black
            } else if i < 20 {
                &bars
            } else if i < 21 {
                &black
            } else {
                &grey
            };
            d.push(t, frame, &Frame::from_rgb24(w, h, frame));
        }
        let cues = d.finish(6.0);
        let found: Vec<(&str, f64, f64)> = cues.iter().map(|c| (c.kind.as_str(), c.start, c.end)).collect();
        assert_eq!(found, [("black", 0.0, 0.5), ("color_bars", 0.5, 2.0), ("black", 2.0, 2.1)]);
        assert!(!is_colour_bars(w, h, &grey) && !is_black(&grey));
    }
}
