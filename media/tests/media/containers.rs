//! Files that make ffmpeg open other files are refused: an HLS playlist and an ffconcat list saved
//! under a media name, crafted for real and handed to every entry point that gives ffmpeg an input
//! (probe, keyframes, analysis, clip, thumbnail). Before the input whitelists, ffprobe followed
//! both to a video outside the media root.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use kino_media::render::{RenderOptions, cut_clip, thumbnail};
use kino_media::{AnalyzeOptions, Error, analyze, keyframes, probe};

use crate::support::*;

/// A real video outside the "media root", the target of both attacks.
fn secret(dir: &Path) -> PathBuf {
    let outside = dir.join("outside");
    std::fs::create_dir(&outside).unwrap();
    encode(&outside, "secret.mp4", "testsrc2=r=25:s=160x90:d=3,format=yuv420p[v]", false, 25)
}

/// Every way kino hands `path` to ffmpeg or ffprobe refuses it as a container it does not read,
/// naming the format.
fn assert_refused(path: &Path, format: &str, out: &Path) {
    let refused = |what: &str, e: Error| {
        let text = e.to_string();
        assert!(
            matches!(&e, Error::Probe { field, .. } if field == "format_name") && text.contains(&format!("`{format}`")),
            "{what} of {path:?}: {text}"
        );
    };
    refused("probe", probe(path).expect_err("probe follows nothing"));
    refused("keyframes", keyframes(path, 0.0, 3.0).expect_err("keyframes follow nothing"));
    let options = AnalyzeOptions::default();
    refused("analysis", analyze(path, &options, &none(), |_, _| {}).expect_err("analysis follows nothing"));
    let clip = out.join("clip.mp4");
    refused("clip", cut_clip(path, 0.0, 2.0, &clip, &RenderOptions::default()).expect_err("no clip"));
    assert!(!clip.exists(), "no clip is left behind");
    let jpg = out.join("thumb.jpg");
    refused("thumbnail", thumbnail(path, 1.0, &jpg, 160).expect_err("no thumbnail"));
    assert!(!jpg.exists(), "no thumbnail is left behind");
}

#[test]
fn an_hls_playlist_saved_as_mp4_is_refused_not_followed() {
    if !tools("an_hls_playlist_saved_as_mp4_is_refused_not_followed", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let secret = secret(dir.path());
    assert!(probe(&secret).is_ok(), "the target itself is a video kino reads");
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let playlist = root.join("x.mp4");
    let text = format!(
        "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXTINF:3.0,\n{}\n#EXT-X-ENDLIST\n",
        secret.display()
    );
    std::fs::write(&playlist, text).unwrap();
    assert_refused(&playlist, "hls", dir.path());
}

/// The descriptor form the service uses (`/proc/self/fd/N`) makes a relative name in a concat list
/// resolve to another descriptor of the process: here a file it holds open, as the service holds
/// its database and other jobs' media.
#[cfg(target_os = "linux")]
#[test]
fn an_ffconcat_list_cannot_reach_a_descriptor_the_process_holds() {
    if !tools("an_ffconcat_list_cannot_reach_a_descriptor_the_process_holds", false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let held = std::fs::File::open(secret(dir.path())).unwrap();
    let list = dir.path().join("y.mp4");
    std::fs::write(&list, format!("ffconcat version 1.0\nfile {}\n", held.as_raw_fd())).unwrap();
    let list = std::fs::File::open(&list).unwrap();
    // Both descriptors are inherited by the tools, as a descriptor handed to ffmpeg is.
    for fd in [held.as_raw_fd(), list.as_raw_fd()] {
        // SAFETY: clearing close-on-exec on a descriptor this test owns and keeps open.
        assert_eq!(unsafe { libc::fcntl(fd, libc::F_SETFD, 0) }, 0);
    }
    assert_refused(Path::new(&format!("/proc/self/fd/{}", list.as_raw_fd())), "concat", dir.path());
}
