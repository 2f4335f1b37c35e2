//! What ffprobe says about a file: duration, frame rate, frame size, audio presence, keyframes.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::tool;

/// The facts about a media file that analysis and rendering need.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaInfo {
    /// Seconds (the container's duration, else the video stream's).
    pub duration: f64,
    /// Frames per second of the first video stream.
    pub fps: f64,
    /// Frame width in pixels.
    pub width: u32,
    /// Frame height in pixels.
    pub height: u32,
    /// Whether the file has an audio stream.
    pub has_audio: bool,
}

fn probe_error(path: &Path, field: impl Into<String>, rule: impl Into<String>) -> Error {
    Error::Probe { path: path.to_path_buf(), field: field.into(), rule: rule.into() }
}

/// Parses ffprobe's `num/den` rate; `None` for `0/0` and the like.
fn rate(text: &str) -> Option<f64> {
    let (num, den) = text.split_once('/').unwrap_or((text, "1"));
    let r = num.trim().parse::<f64>().ok()? / den.trim().parse::<f64>().ok()?;
    (r.is_finite() && r > 0.0).then_some(r)
}

fn seconds(v: &Value) -> Option<f64> {
    let d = v.as_str()?.parse::<f64>().ok()?;
    (d.is_finite() && d > 0.0).then_some(d)
}

/// Probes `path` with ffprobe.
pub fn probe(path: impl AsRef<Path>) -> Result<MediaInfo> {
    let path = path.as_ref();
    tool::require_media(path)?;
    let mut cmd = tool::command("ffprobe");
    cmd.args(["-print_format", "json", "-show_format", "-show_streams"]);
    tool::input(&mut cmd, path, tool::MEDIA_FORMATS);
    let out = tool::output("ffprobe", cmd, path)?;
    parse(path, &out)
}

fn parse(path: &Path, json: &[u8]) -> Result<MediaInfo> {
    let doc: Value = serde_json::from_slice(json).map_err(|e| probe_error(path, ".", format!("is not JSON: {e}")))?;
    let streams = doc["streams"].as_array().map(Vec::as_slice).unwrap_or_default();
    let kind = |s: &&Value| s["codec_type"].as_str().unwrap_or_default().to_string();
    let (vi, video) = streams
        .iter()
        .enumerate()
        .find(|(_, s)| kind(s) == "video" && s["disposition"]["attached_pic"].as_i64() != Some(1))
        .ok_or_else(|| probe_error(path, "streams", "must contain a video stream"))?;
    let dim = |name: &str| -> Result<u32> {
        video[name]
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .filter(|&v| v > 0)
            .ok_or_else(|| probe_error(path, format!("streams[{vi}].{name}"), "must be a positive integer"))
    };
    let (width, height) = (dim("width")?, dim("height")?);
    let fps = video["avg_frame_rate"]
        .as_str()
        .and_then(rate)
        .or_else(|| video["r_frame_rate"].as_str().and_then(rate))
        .filter(|&r| r <= 1000.0)
        .ok_or_else(|| probe_error(path, format!("streams[{vi}].avg_frame_rate"), "must be a rate in (0, 1000]"))?;
    let duration = seconds(&doc["format"]["duration"])
        .or_else(|| seconds(&video["duration"]))
        .ok_or_else(|| probe_error(path, "format.duration", "must be a positive number of seconds"))?;
    let has_audio = streams.iter().any(|s| kind(&s) == "audio");
    Ok(MediaInfo { duration, fps, width, height, has_audio })
}

/// Times (seconds) of the video keyframes whose timestamps fall in `[from, to]`, from packet
/// flags (no decoding).
pub fn keyframes(path: impl AsRef<Path>, from: f64, to: f64) -> Result<Vec<f64>> {
    let path = path.as_ref();
    tool::require_media(path)?;
    let mut cmd = tool::command("ffprobe");
    cmd.args(["-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0"])
        .args(["-read_intervals", &format!("{:.6}%{:.6}", (from - 1.0).max(0.0), to + 1.0)]);
    tool::input(&mut cmd, path, tool::MEDIA_FORMATS);
    let out = tool::output("ffprobe", cmd, path)?;
    let mut times: Vec<f64> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|line| {
            let (t, flags) = line.split_once(',')?;
            let t = t.trim().parse::<f64>().ok()?;
            (flags.contains('K') && t >= from - 1e-6 && t <= to + 1e-6).then_some(t)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_and_reject_zero() {
        assert_eq!(rate("30000/1001").map(|r| (r * 1000.0).round()), Some(29970.0));
        assert_eq!(rate("25/1"), Some(25.0));
        assert_eq!(rate("0/0"), None);
        assert_eq!(rate("junk"), None);
    }

    #[test]
    fn probe_json_without_video_is_an_error_naming_the_field() {
        let json = br#"{"streams":[{"codec_type":"audio"}],"format":{"duration":"3.0"}}"#;
        let err = parse(Path::new("a.wav"), json).unwrap_err();
        assert!(err.to_string().contains("`streams` must contain a video stream"), "{err}");
        assert!(parse(Path::new("x"), b"not json").is_err());
    }

    #[test]
    fn probe_json_gives_media_info() {
        let json = br#"{"streams":[{"codec_type":"video","width":1280,"height":720,"avg_frame_rate":"25/1"},
            {"codec_type":"audio"}],"format":{"duration":"12.5"}}"#;
        let info = parse(Path::new("v.mp4"), json).unwrap();
        assert_eq!(info, MediaInfo { duration: 12.5, fps: 25.0, width: 1280, height: 720, has_audio: true });
    }
}
