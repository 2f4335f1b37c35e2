//! Rendering: clips are playable MP4s of the asked length (stream copy on keyframes, re-encoded
//! otherwise), vertical clips are 9:16, thumbnails are JPEGs of the asked width, and missing or
//! broken media gives a clear error.

use std::path::{Path, PathBuf};

use kino_media::render::{CutMethod, RenderOptions, SubjectTrack, cut_clip, cut_vertical, thumbnail};
use kino_media::{Error, probe};

use crate::support::*;

/// 8 s of testsrc2 at 640x360 with a sine tone, a keyframe every second.
fn source(dir: &Path) -> PathBuf {
    let graph = "testsrc2=r=25:s=640x360:d=8,format=yuv420p[v];sine=f=440:r=48000:d=8[a]";
    encode(dir, "source.mp4", graph, true, 25)
}

#[test]
fn clips_are_playable_and_as_long_as_asked() {
    if !tools("clips_are_playable_and_as_long_as_asked", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = source(dir.path());
    let o = RenderOptions::default();
    let copied = dir.path().join("copy.mp4");
    assert_eq!(cut_clip(&video, 2.0, 5.0, &copied, &o).unwrap(), CutMethod::StreamCopy);
    assert!((duration(&copied) - 3.0).abs() < 0.15, "{}", duration(&copied));
    let encoded = dir.path().join("encoded.mp4");
    assert_eq!(cut_clip(&video, 2.3, 4.7, &encoded, &o).unwrap(), CutMethod::Reencode);
    let info = probe(&encoded).unwrap();
    assert!((info.duration - 2.4).abs() < 0.15, "{info:?}");
    assert!(info.has_audio && info.width == 640 && info.height == 360);
    let bytes = std::fs::read(&encoded).unwrap();
    let moov = bytes.windows(4).position(|w| w == b"moov").unwrap();
    let mdat = bytes.windows(4).position(|w| w == b"mdat").unwrap();
    assert!(moov < mdat, "faststart puts the index first");
}

#[test]
fn vertical_clips_are_nine_by_sixteen_inside_the_bars() {
    if !tools("vertical_clips_are_nine_by_sixteen_inside_the_bars", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = source(dir.path());
    let out = dir.path().join("vertical.mp4");
    let xs = [0.2f32, 0.3, 0.5, 0.7, 0.8, 0.8, 0.8, 0.8];
    let track = SubjectTrack { step: 1.0, x_center: &xs, blackbars: [20, 20] };
    cut_vertical(&video, 1.0, 4.0, track, &out, &RenderOptions::default()).unwrap();
    let info = probe(&out).unwrap();
    assert_eq!((info.width, info.height), (180, 320));
    assert!((info.duration - 3.0).abs() < 0.15, "{info:?}");
}

#[test]
fn thumbnails_are_jpegs_of_the_asked_width() {
    if !tools("thumbnails_are_jpegs_of_the_asked_width", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = source(dir.path());
    for (width, height) in [(320, 180), (96, 54)] {
        let out = dir.path().join(format!("t{width}.jpg"));
        assert_eq!(thumbnail(&video, 3.2, &out, width).unwrap(), (width, height));
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(&bytes[..3], &[0xFF, 0xD8, 0xFF], "JPEG magic");
    }
    // A time past the end still gives the last frame.
    assert!(thumbnail(&video, 99.0, dir.path().join("end.jpg"), 64).is_ok());
}

#[test]
fn missing_or_broken_media_is_a_clear_error() {
    if !tools("missing_or_broken_media_is_a_clear_error", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.mp4");
    let out = dir.path().join("out.mp4");
    let o = RenderOptions::default();
    let track = SubjectTrack { step: 1.0, x_center: &[0.5], blackbars: [0, 0] };
    for err in [
        cut_clip(&missing, 0.0, 1.0, &out, &o).unwrap_err(),
        cut_vertical(&missing, 0.0, 1.0, track, &out, &o).unwrap_err(),
        thumbnail(&missing, 0.0, &out, 64).unwrap_err(),
        kino_media::analyze(&missing, &Default::default(), &none(), |_, _| {}).unwrap_err(),
    ] {
        assert!(matches!(err, Error::MissingMedia { .. }), "{err}");
        assert!(err.to_string().contains("missing.mp4"), "{err}");
    }
    let junk = dir.path().join("junk.mp4");
    std::fs::write(&junk, b"this is not a video").unwrap();
    let err = cut_clip(&junk, 0.0, 1.0, &out, &o).unwrap_err();
    match &err {
        Error::ToolFailed { tool, stderr_tail, .. } => {
            assert_eq!(*tool, "ffprobe");
            assert!(stderr_tail.contains("Invalid data"), "{stderr_tail}");
        }
        other => panic!("expected ToolFailed, got {other}"),
    }
    assert!(err.to_string().contains("junk.mp4"), "{err}");
}
