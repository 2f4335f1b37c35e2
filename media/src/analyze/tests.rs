//! The pass's decode, end to end.

use super::pass::{analysis_size, video_command};
use super::*;
use crate::see::Sight;
use crate::tool::{self, Stream};
use crate::vision;

/// One decode, two streams: the analysis frames at the video's rate and the sampled frames
/// every `vision_interval` seconds, read concurrently to the end.
#[test]
fn the_video_pass_also_writes_sampled_frames() {
    let ok = std::process::Command::new("ffmpeg").arg("-version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("KINO_REQUIRE_FFMPEG").is_none(), "KINO_REQUIRE_FFMPEG is set but ffmpeg is missing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("v.mp4");
    let made = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=6", "-pix_fmt", "yuv420p"])
        .arg(&video)
        .status()
        .unwrap();
    assert!(made.success());
    let info = probe(&video).unwrap();
    let options = AnalyzeOptions { vision_interval: 0.5, ..AnalyzeOptions::default() };
    let (w, h) = analysis_size(&info, options.width);
    let (cmd, size) = video_command(&video, &options, info.fps, (w, h), &info, true);
    assert_eq!(size, Some((640, 360)));
    let (stream, mut stdout, pipe) = Stream::spawn_with_fd3("ffmpeg", cmd, &video).unwrap();
    let job = vision::spawn(pipe, 640, 360, 0.5, Sight::empty());
    let mut buf = vec![0u8; w * h * 3];
    let mut small = 0;
    while tool::read_chunk(&mut stdout, &mut buf).unwrap() {
        small += 1;
    }
    stream.finish().unwrap();
    let (sight, big) = job.join().unwrap();
    assert_eq!(small, 150);
    assert_eq!(big, 12, "one frame every 0.5 s of 6 s");
    let times: Vec<f64> = sight.seen.iter().map(|s| s.time).collect();
    assert_eq!(times, (0..12).map(|i| f64::from(i) * 0.5).collect::<Vec<_>>());
}
