//! Rendering with ffmpeg: clips (stream copy when both cut points sit on keyframes, otherwise
//! re-encoded with libx264 + AAC), vertical 9:16 clips that follow the subject, JPEG thumbnails,
//! and the choice of a thumbnail frame ([`best_frame`]). Every output is written whole or not at
//! all ([`crate::OutputFile`]): an output path that cannot be written is refused before ffmpeg
//! runs, and a failed or interrupted render leaves nothing at it.

mod frame_choice;

use std::path::Path;

pub use frame_choice::best_frame;

use crate::error::{Error, Result};
use crate::output::OutputFile;
use crate::probe::{keyframes, probe};
use crate::tool;

/// Encoding settings for re-encoded output.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// x264 preset (default `veryfast`).
    pub preset: String,
    /// x264 constant rate factor (default 21).
    pub crf: u8,
    /// AAC bitrate in kbit/s (default 128).
    pub audio_kbps: u32,
    /// Allow stream copy when the cut points sit on keyframes (default true).
    pub stream_copy: bool,
    /// ffmpeg threads (0 = ffmpeg's choice).
    pub threads: u32,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { preset: "veryfast".into(), crf: 21, audio_kbps: 128, stream_copy: true, threads: 0 }
    }
}

/// How a clip was produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutMethod {
    /// Packets copied: both cut points sit on keyframes (within half a frame).
    StreamCopy,
    /// Decoded and re-encoded (libx264 + AAC).
    Reencode,
}

fn check_span(start: f64, stop: f64) -> Result<()> {
    if !(start.is_finite() && start >= 0.0) {
        return Err(Error::argument("start", format!("must be finite and >= 0 (got {start})")));
    }
    if !(stop.is_finite() && stop > start) {
        return Err(Error::argument("stop", format!("must be finite and > start ({start}) (got {stop})")));
    }
    Ok(())
}

fn encode_args(cmd: &mut std::process::Command, o: &RenderOptions) {
    cmd.args(["-c:v", "libx264", "-preset", &o.preset, "-crf", &o.crf.to_string(), "-pix_fmt", "yuv420p"]).args([
        "-c:a",
        "aac",
        "-b:a",
        &format!("{}k", o.audio_kbps),
    ]);
}

/// ffmpeg reading `[start, stop)` of `video`: its first video stream and its first audio stream
/// when it has one.
fn span_input(video: &Path, start: f64, stop: f64, o: &RenderOptions) -> std::process::Command {
    let mut cmd = tool::command("ffmpeg");
    cmd.args(["-threads", &o.threads.to_string(), "-ss", &format!("{start:.6}")]);
    tool::input(&mut cmd, video, tool::MEDIA_FORMATS).args([
        "-t",
        &format!("{:.6}", stop - start),
        "-map",
        "0:v:0",
        "-map",
        "0:a:0?",
    ]);
    cmd
}

fn output_args(cmd: &mut std::process::Command, out: &Path) {
    cmd.args(["-movflags", "+faststart", "-f", "mp4", "-y"]).arg(out);
}

/// Cuts `[start, stop)` seconds of `video` into an MP4 at `out` (faststart). Stream copy when
/// `start` and `stop` (or the end of the video) each lie within half a frame of a keyframe;
/// otherwise re-encoded. Returns the method used.
pub fn cut_clip(
    video: impl AsRef<Path>,
    start: f64,
    stop: f64,
    out: impl AsRef<Path>,
    o: &RenderOptions,
) -> Result<CutMethod> {
    let video = video.as_ref();
    check_span(start, stop)?;
    let out = OutputFile::create(out)?;
    let info = probe(video)?;
    let stop = stop.min(info.duration);
    check_span(start, stop)?;
    let half_frame = 0.5 / info.fps;
    let method = if o.stream_copy {
        let keys = keyframes(video, start, stop)?;
        let on_key = |t: f64| keys.iter().any(|&k| (k - t).abs() <= half_frame);
        let stop_ok = on_key(stop) || (info.duration - stop).abs() <= half_frame;
        if on_key(start) && stop_ok { CutMethod::StreamCopy } else { CutMethod::Reencode }
    } else {
        CutMethod::Reencode
    };
    let mut cmd = span_input(video, start, stop, o);
    match method {
        CutMethod::StreamCopy => {
            cmd.args(["-c", "copy", "-avoid_negative_ts", "make_zero"]);
        }
        CutMethod::Reencode => encode_args(&mut cmd, o),
    }
    output_args(&mut cmd, out.path());
    tool::output("ffmpeg", cmd, video)?;
    out.persist()?;
    Ok(method)
}

/// A subject track for [`cut_vertical`]: horizontal centres (fractions of the width) every `step`
/// seconds from time 0, as in the signals document's `vertical` object.
#[derive(Debug, Clone, Copy)]
pub struct SubjectTrack<'a> {
    /// Seconds between samples.
    pub step: f64,
    /// Centre per sample, in `[0, 1]`.
    pub x_center: &'a [f32],
    /// `[top, bottom]` black bar rows in source pixels.
    pub blackbars: [u32; 2],
}

/// The most breakpoints in the crop's x expression (ffmpeg parses it once; keep it small).
const MAX_KNOTS: usize = 64;

/// Cuts `[start, stop)` of `video` into a 9:16 MP4 at `out`: the crop is as tall as the picture
/// between the black bars and 9/16 of that wide (even sizes, at most the frame), and its centre
/// follows the subject track, linearly interpolated between samples (at most 64 breakpoints over
/// the clip), clamped inside the frame. Always re-encoded.
pub fn cut_vertical(
    video: impl AsRef<Path>,
    start: f64,
    stop: f64,
    track: SubjectTrack<'_>,
    out: impl AsRef<Path>,
    o: &RenderOptions,
) -> Result<()> {
    let video = video.as_ref();
    check_span(start, stop)?;
    if !(track.step.is_finite() && track.step > 0.0) {
        return Err(Error::argument("track.step", format!("must be finite and > 0 (got {})", track.step)));
    }
    if track.x_center.is_empty() {
        return Err(Error::argument("track.x_center", "must hold at least one sample"));
    }
    let out = OutputFile::create(out)?;
    let info = probe(video)?;
    let [top, bottom] = track.blackbars;
    let picture = u64::from(info.height).saturating_sub(u64::from(top) + u64::from(bottom));
    if picture < 2 {
        return Err(Error::argument(
            "track.blackbars",
            format!("must leave picture rows: top + bottom < frame height {} (got [{top}, {bottom}])", info.height),
        ));
    }
    let mut crop_h = picture / 2 * 2;
    let mut crop_w = (crop_h * 9 / 16) / 2 * 2;
    if crop_w > u64::from(info.width) {
        crop_w = u64::from(info.width) / 2 * 2;
        crop_h = (crop_w * 16 / 9).min(picture) / 2 * 2;
    }
    let x_expr = crop_x_expression(&track, start, stop, f64::from(info.width), crop_w as f64);
    let filter = format!("crop={crop_w}:{crop_h}:'{x_expr}':{top}");
    let mut cmd = span_input(video, start, stop, o);
    cmd.args(["-vf", &filter]);
    encode_args(&mut cmd, o);
    output_args(&mut cmd, out.path());
    tool::output("ffmpeg", cmd, video)?;
    out.persist()
}

/// The crop's left edge as an ffmpeg expression of the clip time `t`: piecewise linear through
/// the track's samples in the clip, clamped to `[0, width - crop_w]`.
fn crop_x_expression(track: &SubjectTrack<'_>, start: f64, stop: f64, width: f64, crop_w: f64) -> String {
    let at = |t: f64| {
        let i = ((t / track.step).floor().max(0.0) as usize).min(track.x_center.len() - 1);
        f64::from(track.x_center[i]).clamp(0.0, 1.0)
    };
    let span = stop - start;
    let knots_wanted = ((span / track.step).ceil() as usize + 1).clamp(2, MAX_KNOTS);
    let knots: Vec<(f64, f64)> = (0..knots_wanted)
        .map(|k| {
            let t = span * k as f64 / (knots_wanted - 1) as f64;
            let left = (at(start + t) * width - crop_w / 2.0).clamp(0.0, width - crop_w);
            (t, left.round())
        })
        .collect();
    let mut expr = format!("{:.0}", knots[knots.len() - 1].1);
    for pair in knots.windows(2).rev() {
        let ((t0, x0), (t1, x1)) = (pair[0], pair[1]);
        expr = format!("if(lt(t,{t1:.4}),{x0:.0}+({x1:.0}-{x0:.0})*(t-{t0:.4})/{:.4},{expr})", (t1 - t0).max(1e-3));
    }
    format!("max(0,min({},{expr}))", width - crop_w)
}

/// Writes the frame at `time` seconds of `video` as a JPEG `width` pixels wide (height by aspect
/// ratio, even) at `out`; returns its `(width, height)` as read back by ffprobe.
pub fn thumbnail(video: impl AsRef<Path>, time: f64, out: impl AsRef<Path>, width: u32) -> Result<(u32, u32)> {
    let video = video.as_ref();
    if !(time.is_finite() && time >= 0.0) {
        return Err(Error::argument("time", format!("must be finite and >= 0 (got {time})")));
    }
    if !(16..=8192).contains(&width) || width % 2 == 1 {
        return Err(Error::argument("width", format!("must be even and in [16, 8192] (got {width})")));
    }
    let out = OutputFile::create(out)?;
    let info = probe(video)?;
    // Seeking at or past the end yields no frame: stay a frame inside.
    let time = time.min((info.duration - 1.0 / info.fps).max(0.0));
    let mut cmd = tool::command("ffmpeg");
    cmd.args(["-ss", &format!("{time:.6}")]);
    tool::input(&mut cmd, video, tool::MEDIA_FORMATS)
        .args([
            "-frames:v",
            "1",
            "-vf",
            &format!("scale={width}:-2"),
            "-q:v",
            "3",
            "-f",
            "image2",
            "-c:v",
            "mjpeg",
            "-y",
        ])
        .arg(out.path());
    tool::output("ffmpeg", cmd, video)?;
    let written = probe_image(out.path())?;
    out.persist()?;
    Ok(written)
}

fn probe_image(path: &Path) -> Result<(u32, u32)> {
    let mut cmd = tool::command("ffprobe");
    cmd.args(["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0:s=x"]);
    tool::input(&mut cmd, path, tool::IMAGE_FORMATS);
    let text = String::from_utf8_lossy(&tool::output("ffprobe", cmd, path)?).trim().to_string();
    let parsed = text.split_once('x').and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)));
    parsed.ok_or_else(|| Error::Probe {
        path: path.into(),
        field: "stream.width,height".into(),
        rule: format!("must be two integers (got {text:?})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crop_expression_interpolates_and_clamps() {
        let xs = [0.0f32, 1.0];
        let track = SubjectTrack { step: 1.0, x_center: &xs, blackbars: [0, 0] };
        let e = crop_x_expression(&track, 0.0, 2.0, 1280.0, 404.0);
        assert!(e.starts_with("max(0,min(876,if(lt(t,1.0000),0+(876-0)"), "{e}");
        let one = [0.5f32];
        let e = crop_x_expression(&SubjectTrack { x_center: &one, ..track }, 10.0, 10.5, 1280.0, 404.0);
        assert!(e.ends_with(",438)))"), "{e}");
    }

    #[test]
    fn bad_spans_are_argument_errors() {
        let err = cut_clip("/nope.mp4", 5.0, 2.0, "/tmp/x.mp4", &RenderOptions::default()).unwrap_err();
        assert!(err.to_string().contains("`stop`: must be finite and > start"), "{err}");
        let err = cut_clip("/nope.mp4", 1.0, 2.0, "/tmp/x.mp4", &RenderOptions::default()).unwrap_err();
        assert!(matches!(err, Error::MissingMedia { .. }), "{err}");
    }

    #[test]
    fn an_unwritable_output_is_refused_before_ffmpeg_runs() {
        // The input does not exist either: the output is checked first, so no ffmpeg ever starts.
        let track = SubjectTrack { step: 1.0, x_center: &[0.5], blackbars: [0, 0] };
        let errors = [
            cut_clip("/nope.mp4", 1.0, 2.0, "/no/such/dir/x.mp4", &RenderOptions::default()).unwrap_err(),
            cut_vertical("/nope.mp4", 1.0, 2.0, track, "/no/such/dir/x.mp4", &RenderOptions::default()).unwrap_err(),
            thumbnail("/nope.mp4", 1.0, "/no/such/dir/x.jpg", 320).unwrap_err(),
        ];
        for err in errors {
            assert!(matches!(err, Error::OutputPath { .. }), "{err}");
            assert!(err.to_string().contains("/no/such/dir/x.") && err.to_string().contains("does not exist"), "{err}");
        }
    }
}
