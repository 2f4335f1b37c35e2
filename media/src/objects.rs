//! People and objects on screen, after the pass: the detector's boxes on each sampled frame
//! ([`crate::see::Seen::objects`], YOLOv3-tiny on the frames the vision models read), followed
//! across each shot, counted, and named per scene.
//!
//! A box is followed from one sampled frame to the next of the same shot (never across a cut)
//! by greedy matching: every pair of boxes of one class in the two frames whose intersection over
//! union is at least [`TRACK_IOU`] is a candidate, the best-overlapping pairs are taken first, and
//! each box joins at most one track. A box left over starts a track of its own. The rules and
//! their measurements are in `docs/media.md` ("People and objects").

use kino::signals::{ObjectBox, ObjectFrame, ObjectTrack, Objects, Scene, Tag, TagKind};
use kino_models::{Detection, box_iou};

use crate::see::Seen;

/// Two boxes of one class in consecutive sampled frames of a shot are one object from this
/// intersection over union on (frames 2 s apart: a person walking across a medium shot keeps
/// about half of the box).
pub const TRACK_IOU: f32 = 0.3;
/// A person box counts as a person in view (for counts and shot types) from this confidence on:
/// below it, YOLOv3-tiny's person boxes on cartoons and textures were as often wrong as right on
/// the evaluation's tuned half (`docs/media.md`).
pub const PERSON_MIN: f32 = 0.4;
/// A class becomes a tag of a scene when one of its boxes there has at least this confidence.
pub const OBJECT_TAG_MIN: f32 = 0.5;

/// The COCO class of people.
pub const PERSON: &str = "person";

/// Whether `d` is a person in view ([`PERSON_MIN`]).
pub fn is_person(d: &Detection) -> bool {
    d.name == PERSON && d.confidence >= PERSON_MIN
}

fn round4(v: f32) -> f64 {
    (f64::from(v) * 1e4).round() / 1e4
}

/// A detection as the document holds it: rounded to 1e-4, kept inside the frame; `None` for a
/// box that rounds to nothing.
fn to_box(d: &Detection) -> Option<ObjectBox> {
    let (x, y) = (round4(d.x).clamp(0.0, 1.0), round4(d.y).clamp(0.0, 1.0));
    let (w, h) = (round4(d.w).min(1.0 - x), round4(d.h).min(1.0 - y));
    (w > 0.0 && h > 0.0 && d.confidence.is_finite()).then(|| ObjectBox {
        class: d.name.to_string(),
        confidence: round4(d.confidence).clamp(0.0, 1.0),
        x,
        y,
        w,
        h,
        track: None,
    })
}

/// The shot a time falls in: the number of cuts at or before it.
fn shot_of(shots: &[f64], t: f64) -> usize {
    shots.partition_point(|&c| c <= t)
}

/// The objects channel from the sampled frames the detector saw (`None` when it saw none), over
/// the document's `shots` (cut times) and `duration`, frames `interval` seconds apart.
pub fn objects(seen: &[Seen], shots: &[f64], interval: f64, duration: f64) -> Option<Objects> {
    let mut frames: Vec<ObjectFrame> = Vec::new();
    let mut tracks: Vec<ObjectTrack> = Vec::new();
    let mut sums: Vec<f64> = Vec::new();
    let mut previous: Option<f64> = None;
    for s in seen {
        let Some(found) = &s.objects else { continue };
        if !(s.time.is_finite() && s.time >= 0.0 && s.time <= duration) || previous.is_some_and(|p| s.time <= p) {
            continue;
        }
        let mut boxes: Vec<ObjectBox> = found.iter().filter_map(to_box).collect();
        let before = frames.last().filter(|_| previous.is_some_and(|p| shot_of(shots, p) == shot_of(shots, s.time)));
        let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
        if let Some(before) = before {
            for (i, b) in boxes.iter().enumerate() {
                for (j, p) in before.boxes.iter().enumerate().filter(|(_, p)| p.class == b.class) {
                    let iou = box_iou(corners(b), corners(p));
                    if iou >= TRACK_IOU {
                        pairs.push((iou, i, j));
                    }
                }
            }
        }
        pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut used = vec![false; before.map_or(0, |b| b.boxes.len())];
        for (_, i, j) in pairs {
            if boxes[i].track.is_none() && !used[j] {
                used[j] = true;
                boxes[i].track = before.and_then(|b| b.boxes[j].track);
            }
        }
        for b in &mut boxes {
            let area = b.w * b.h;
            match b.track {
                Some(t) => {
                    let track = &mut tracks[t as usize];
                    track.end = s.time;
                    track.frames += 1;
                    track.largest = track.largest.max(area);
                    sums[t as usize] += b.confidence;
                }
                None => {
                    b.track = Some(tracks.len() as u32);
                    tracks.push(ObjectTrack {
                        class: b.class.clone(),
                        start: s.time,
                        end: s.time,
                        frames: 1,
                        confidence: 0.0,
                        largest: area,
                    });
                    sums.push(b.confidence);
                }
            }
        }
        frames.push(ObjectFrame { time: s.time, boxes });
        previous = Some(s.time);
    }
    if frames.is_empty() {
        return None;
    }
    for (t, sum) in tracks.iter_mut().zip(sums) {
        t.confidence = ((sum / f64::from(t.frames)) * 1e4).round().clamp(0.0, 1e4) / 1e4;
        t.largest = (t.largest * 1e4).round().clamp(0.0, 1e4) / 1e4;
    }
    Some(Objects { interval, frames, tracks })
}

fn corners(b: &ObjectBox) -> [f32; 4] {
    [b.x as f32, b.y as f32, b.w as f32, b.h as f32]
}

/// The horizontal centre of the largest person in view in a frame ([`is_person`]), a fraction of
/// its width: what the vertical crop follows where no face is found.
pub fn main_person_x(seen: &Seen) -> Option<f32> {
    seen.objects
        .iter()
        .flatten()
        .filter(|d| is_person(d))
        .max_by(|a, b| a.area().total_cmp(&b.area()))
        .map(|d| (d.x + d.w / 2.0).clamp(0.0, 1.0))
}

/// The most people seen at once in `frames`: person boxes ([`is_person`]) or faces, whichever
/// are more in a frame.
pub fn people_at_once<'a>(frames: impl IntoIterator<Item = &'a Seen>) -> u32 {
    frames
        .into_iter()
        .map(|s| {
            let persons = s.objects.iter().flatten().filter(|d| is_person(d)).count();
            let faces = s.faces.as_ref().map_or(0, Vec::len);
            persons.max(faces) as u32
        })
        .max()
        .unwrap_or(0)
}

/// The most people seen at once in each scene (sampled frames inside it; the nearest one for a
/// scene between two).
pub fn people_per_scene(seen: &[Seen], scenes: &[Scene]) -> Vec<u32> {
    scenes.iter().map(|sc| people_at_once(crate::see::frames_in(seen, sc.start, sc.end))).collect()
}

/// The classes seen in each scene as keyword tags: a class with a box of at least
/// [`OBJECT_TAG_MIN`] in one of the scene's frames, scored by its most confident box there.
pub fn object_tags(seen: &[Seen], scenes: &[Scene]) -> Vec<Tag> {
    let mut tags = Vec::new();
    for sc in scenes {
        let mut best: std::collections::BTreeMap<u16, (&'static str, f32)> = std::collections::BTreeMap::new();
        for s in crate::see::frames_in(seen, sc.start, sc.end) {
            for d in s.objects.iter().flatten().filter(|d| d.confidence >= OBJECT_TAG_MIN) {
                let e = best.entry(d.class).or_insert((d.name, 0.0));
                e.1 = e.1.max(d.confidence);
            }
        }
        for (_, (name, p)) in best {
            let score = (f64::from(p) * 1e4).round() / 1e4;
            tags.push(Tag { kind: TagKind::Keyword, name: name.to_string(), start: sc.start, end: sc.end, score });
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det(name: &'static str, confidence: f32, x: f32, y: f32, w: f32, h: f32) -> Detection {
        let class = kino_models::COCO_CLASSES.iter().position(|c| *c == name).unwrap() as u16;
        Detection { class, name, confidence, x, y, w, h }
    }

    fn frame(time: f64, objects: Vec<Detection>) -> Seen {
        Seen { time, objects: Some(objects), ..Seen::default() }
    }

    #[test]
    fn boxes_are_followed_within_a_shot_and_never_across_a_cut() {
        let seen = [
            frame(0.0, vec![det("person", 0.9, 0.1, 0.1, 0.2, 0.8), det("car", 0.6, 0.5, 0.5, 0.4, 0.3)]),
            // The person moved a little; a second person came in; the car is now a truck.
            frame(2.0, vec![det("person", 0.7, 0.15, 0.1, 0.2, 0.8), det("person", 0.5, 0.6, 0.2, 0.1, 0.5)]),
            // A cut at 3 s: the same place on screen is another shot.
            frame(4.0, vec![det("person", 0.8, 0.15, 0.1, 0.2, 0.8)]),
            frame(6.0, vec![]),
            frame(8.0, vec![det("person", 0.6, 0.15, 0.1, 0.2, 0.8)]),
        ];
        let o = objects(&seen, &[3.0], 2.0, 10.0).unwrap();
        assert_eq!(o.frames.len(), 5);
        let tracks: Vec<(&str, f64, f64, u32)> =
            o.tracks.iter().map(|t| (t.class.as_str(), t.start, t.end, t.frames)).collect();
        assert_eq!(
            tracks,
            [
                ("person", 0.0, 2.0, 2),
                ("car", 0.0, 0.0, 1),
                ("person", 2.0, 2.0, 1),
                ("person", 4.0, 4.0, 1),
                ("person", 8.0, 8.0, 1)
            ]
        );
        assert!((o.tracks[0].confidence - 0.8).abs() < 1e-9 && (o.tracks[0].largest - 0.16).abs() < 1e-9);
        assert_eq!(o.frames[1].boxes.iter().map(|b| b.track).collect::<Vec<_>>(), [Some(0), Some(2)]);
        // An empty frame between two frames of a shot ends the track.
        assert_eq!(o.frames[4].boxes[0].track, Some(4));
        let mut doc = kino::synth::demo_signals("t", 10.0, 1.0, 1);
        doc.objects = Some(o);
        doc.validate().unwrap();
        assert!(objects(&[Seen::default()], &[], 2.0, 10.0).is_none(), "no detector, no channel");
    }

    #[test]
    fn the_best_overlaps_are_matched_first() {
        // Two people side by side swap nothing: each keeps its own track.
        let a = det("person", 0.9, 0.1, 0.1, 0.3, 0.8);
        let b = det("person", 0.9, 0.3, 0.1, 0.3, 0.8);
        let seen = [frame(0.0, vec![a, b]), frame(1.0, vec![Detection { x: 0.32, ..b }, Detection { x: 0.12, ..a }])];
        let o = objects(&seen, &[], 1.0, 2.0).unwrap();
        assert_eq!(o.frames[1].boxes.iter().map(|b| b.track).collect::<Vec<_>>(), [Some(1), Some(0)]);
    }

    #[test]
    fn boxes_stay_inside_the_frame_and_odd_frames_are_skipped() {
        let seen = [
            frame(0.0, vec![det("dog", 0.5, 0.99998, 0.0, 0.2, 1.0), det("dog", 0.5, 0.5, 0.6, 0.5, 0.4)]),
            frame(f64::NAN, vec![det("dog", 0.5, 0.5, 0.5, 0.1, 0.1)]),
            frame(0.0, vec![]),
            frame(20.0, vec![]),
        ];
        let o = objects(&seen, &[], 2.0, 10.0).unwrap();
        assert_eq!(o.frames.len(), 1);
        assert_eq!(o.frames[0].boxes.len(), 1, "a box that rounds to nothing is dropped");
        let b = &o.frames[0].boxes[0];
        assert!(b.x + b.w <= 1.0 && b.y + b.h <= 1.0);
    }

    #[test]
    fn people_are_counted_and_objects_become_tags() {
        let face = crate::faces::Face { x: 0.4, y: 0.2, w: 0.1, h: 0.2, score: 1.0, embedding: Vec::new() };
        let mut one = frame(0.0, vec![det("person", 0.9, 0.1, 0.1, 0.2, 0.8), det("person", 0.3, 0.5, 0.1, 0.2, 0.8)]);
        one.faces = Some(vec![face.clone(); 2]);
        let two = frame(2.0, vec![det("person", 0.9, 0.1, 0.1, 0.2, 0.8); 3]);
        let three = frame(4.0, vec![det("car", 0.7, 0.1, 0.1, 0.2, 0.3), det("car", 0.4, 0.5, 0.1, 0.2, 0.3)]);
        let seen = [one, two, three];
        assert_eq!(people_at_once(&seen[..1]), 2, "the faces, where the second box is unsure");
        assert_eq!(main_person_x(&seen[0]), Some(0.2), "the sure box's centre");
        assert_eq!(main_person_x(&seen[2]), None);
        let scenes = [Scene { start: 0.0, end: 3.0 }, Scene { start: 3.0, end: 6.0 }];
        assert_eq!(people_per_scene(&seen, &scenes), [3, 0]);
        let tags = object_tags(&seen, &scenes);
        let tags: Vec<(&str, f64, f64)> = tags.iter().map(|t| (t.name.as_str(), t.start, t.score)).collect();
        assert_eq!(tags, [("person", 0.0, 0.9), ("car", 3.0, 0.7)]);
    }
}
