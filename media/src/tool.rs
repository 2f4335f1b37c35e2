//! Running ffmpeg and ffprobe as subprocesses: lookup, stderr capture (only the tail is kept), and
//! errors that carry that tail.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

use crate::error::{Error, Result};

/// Bytes of stderr kept for error messages.
const STDERR_TAIL: usize = 2000;

/// Checks that `path` names an existing regular file.
pub(crate) fn require_media(path: &Path) -> Result<()> {
    if path.is_file() { Ok(()) } else { Err(Error::MissingMedia { path: path.to_path_buf() }) }
}

/// The container formats kino reads media from, as ffmpeg's demuxer names: MP4/MOV (and M4A, 3GP),
/// Matroska/WebM, AVI, MPEG transport and program streams, FLV, ASF/WMV, Ogg, MXF, DV, and the
/// audio files WAV, Wave64, MP3, AAC (ADTS) and FLAC. Formats that open other files by name
/// (HLS playlists, ffconcat lists, image sequences, ...) are not among them: a file of that kind
/// saved under a media name would make ffmpeg read outside the media root.
pub const MEDIA_FORMATS: &str = "mov,matroska,avi,mpegts,mpeg,flv,asf,ogg,mxf,dv,wav,w64,mp3,aac,flac";

/// The formats of the still images kino writes and reads back (thumbnails): one JPEG or PNG file.
pub(crate) const IMAGE_FORMATS: &str = "image2,jpeg_pipe,png_pipe";

/// Adds `path` as the input of a [`command`], opened only through the local-file protocol and
/// only when its container is one of `formats` (a comma-separated list of demuxer names, e.g.
/// [`MEDIA_FORMATS`]): ffmpeg refuses anything else ("Format not on whitelist") instead of
/// following a playlist or a concat list to another file. The lists apply to every file the
/// input opens in turn, so nothing reached through it escapes them.
pub(crate) fn input<'c>(cmd: &'c mut Command, path: &Path, formats: &str) -> &'c mut Command {
    cmd.args(["-protocol_whitelist", "file", "-format_whitelist", formats, "-i"]).arg(path)
}

/// A `Command` for `tool` with quiet logging and no stdin.
pub(crate) fn command(tool: &'static str) -> Command {
    let mut cmd = Command::new(tool);
    cmd.stdin(Stdio::null()).arg("-hide_banner").args(["-v", "error"]);
    if tool == "ffmpeg" {
        cmd.arg("-nostdin");
    }
    cmd
}

fn spawn_error(tool: &'static str, e: io::Error, path: &Path) -> Error {
    if e.kind() == io::ErrorKind::NotFound { Error::ToolNotFound { tool } } else { Error::io(path, e) }
}

/// The last [`STDERR_TAIL`] bytes of `bytes` as trimmed text.
fn tail(bytes: &[u8]) -> String {
    let start = bytes.len().saturating_sub(STDERR_TAIL);
    let text = String::from_utf8_lossy(&bytes[start..]).trim().to_string();
    if text.is_empty() { "(no message on stderr)".to_string() } else { text }
}

/// ffmpeg's exit status after it caught SIGINT or SIGTERM (it stops cleanly and exits with 255;
/// its errors exit with 1).
const FFMPEG_SIGNALLED: i32 = 255;

/// Signals that stop a process on request: SIGHUP, SIGINT, SIGQUIT, SIGKILL, SIGTERM (the same
/// numbers on every Unix). Other signals (SIGSEGV, SIGABRT...) are crashes, reported as failures.
const STOP_SIGNALS: [i32; 5] = [1, 2, 3, 9, 15];

/// Whether `status` means the tool was stopped by a signal rather than failing: `Some(signal)`
/// when it died of a stop signal, `Some(None)` for ffmpeg's exit status after catching one.
fn interruption(tool: &'static str, status: ExitStatus) -> Option<Option<i32>> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return STOP_SIGNALS.contains(&signal).then_some(Some(signal));
        }
    }
    (tool == "ffmpeg" && status.code() == Some(FFMPEG_SIGNALLED)).then_some(None)
}

/// The demuxer ffmpeg refused because it is not on the input's format whitelist ([`input`]),
/// from its message `[hls @ 0x55...] Format not on whitelist 'mov,...'`.
fn refused_format(stderr: &str) -> Option<&str> {
    let line = stderr.lines().find(|l| l.contains("Format not on whitelist"))?;
    let name = line.strip_prefix('[')?.split(" @ ").next()?;
    Some(name).filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

fn failed(tool: &'static str, path: &Path, status: ExitStatus, stderr: &[u8]) -> Error {
    let text = tail(stderr);
    if let Some(format) = refused_format(&text) {
        return Error::Probe {
            path: path.to_path_buf(),
            field: "format_name".into(),
            rule: format!(
                "must be a container kino reads ({MEDIA_FORMATS}); this file is `{format}`, a format kino refuses \
                 because it can open other files"
            ),
        };
    }
    match interruption(tool, status) {
        Some(signal) => Error::Interrupted { path: path.to_path_buf(), signal },
        None => Error::ToolFailed { tool, path: path.to_path_buf(), status: status.to_string(), stderr_tail: text },
    }
}

/// Runs `cmd` to completion and returns its stdout; a non-zero exit is [`Error::ToolFailed`], or
/// [`Error::Interrupted`] when a signal stopped the tool.
pub(crate) fn output(tool: &'static str, mut cmd: Command, path: &Path) -> Result<Vec<u8>> {
    let out = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).output().map_err(|e| spawn_error(tool, e, path))?;
    if out.status.success() { Ok(out.stdout) } else { Err(failed(tool, path, out.status, &out.stderr)) }
}

/// A running tool whose stdout is read as a stream; stderr is drained by a thread so the tool
/// never blocks on a full pipe, and only its tail is kept.
#[derive(Debug)]
pub(crate) struct Stream {
    tool: &'static str,
    path: PathBuf,
    child: Child,
    stderr: Option<JoinHandle<Vec<u8>>>,
}

impl Stream {
    pub(crate) fn spawn(tool: &'static str, mut cmd: Command, path: &Path) -> Result<(Stream, ChildStdout)> {
        let mut child =
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| spawn_error(tool, e, path))?;
        let stdout = child.stdout.take().ok_or_else(|| Error::io(path, io::Error::other("no stdout pipe")))?;
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    kept.extend_from_slice(&buf[..n]);
                    if kept.len() > 4 * STDERR_TAIL {
                        kept.drain(..kept.len() - STDERR_TAIL);
                    }
                }
                kept
            })
        });
        Ok((Stream { tool, path: path.to_path_buf(), child, stderr }, stdout))
    }

    /// Like [`Stream::spawn`], with a second output: a pipe that the tool sees as its file
    /// descriptor 3 (ffmpeg writes to it with the output `pipe:3`). Both pipes must be read
    /// concurrently (ffmpeg blocks when either is full). The read end reaches end-of-file when the
    /// tool exits.
    #[cfg(unix)]
    pub(crate) fn spawn_with_fd3(
        tool: &'static str,
        mut cmd: Command,
        path: &Path,
    ) -> Result<(Stream, ChildStdout, std::fs::File)> {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        use std::os::unix::process::CommandExt;
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` is a valid array of two ints for pipe2 to fill.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(Error::io(path, io::Error::last_os_error()));
        }
        // SAFETY: pipe2 succeeded, so both descriptors are open and owned by nobody else.
        let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let write_fd = write_end.as_raw_fd();
        // SAFETY: between fork and exec only async-signal-safe calls are made: dup2, which also
        // clears close-on-exec on descriptor 3, so the tool inherits the write end there (and
        // nothing else of the pipe).
        unsafe {
            cmd.pre_exec(move || {
                if write_fd == 3 {
                    // Already descriptor 3: only close-on-exec must go.
                    if libc::fcntl(3, libc::F_SETFD, 0) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                } else if libc::dup2(write_fd, 3) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let spawned = Stream::spawn(tool, cmd, path);
        // The parent's copy of the write end must go, or the reader never sees end-of-file.
        drop(write_end);
        let (stream, stdout) = spawned?;
        Ok((stream, stdout, std::fs::File::from(read_end)))
    }

    /// Waits for the tool to exit; a non-zero exit is [`Error::ToolFailed`] with its stderr tail
    /// ([`Error::Interrupted`] when a signal stopped it).
    pub(crate) fn finish(mut self) -> Result<()> {
        let status = self.child.wait().map_err(|e| Error::io(&self.path, e))?;
        let stderr = self.stderr.take().and_then(|h| h.join().ok()).unwrap_or_default();
        if status.success() { Ok(()) } else { Err(failed(self.tool, &self.path, status, &stderr)) }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // Only reached without `finish` on an early error: stop the tool rather than leave it running.
        if self.stderr.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` on a clean end of stream before the first byte.
/// A partial final chunk (a truncated frame) also ends the stream.
pub(crate) fn read_chunk(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => return Ok(false),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    #[test]
    fn signals_are_interruptions_and_crashes_are_failures() {
        let path = Path::new("v.mp4");
        let by_signal = |raw| failed("ffmpeg", path, ExitStatus::from_raw(raw), b"");
        assert!(matches!(by_signal(2), Error::Interrupted { signal: Some(2), .. }), "SIGINT");
        assert!(matches!(by_signal(15), Error::Interrupted { signal: Some(15), .. }), "SIGTERM");
        assert!(matches!(by_signal(255 << 8), Error::Interrupted { signal: None, .. }), "ffmpeg after a signal");
        assert!(matches!(by_signal(1 << 8), Error::ToolFailed { .. }), "an ffmpeg error");
        assert!(matches!(by_signal(11), Error::ToolFailed { .. }), "a crash (SIGSEGV)");
        let ffprobe = failed("ffprobe", path, ExitStatus::from_raw(255 << 8), b"");
        assert!(matches!(ffprobe, Error::ToolFailed { .. }), "255 is ffmpeg's convention only");
        assert_eq!(by_signal(2).to_string(), "interrupted while processing v.mp4 (signal 2)");
    }

    #[test]
    fn a_container_off_the_whitelist_is_a_probe_error_naming_it() {
        let stderr = b"[hls @ 0x556057236540] Format not on whitelist 'mov,matroska'\nx.mp4: Invalid argument";
        let e = failed("ffprobe", Path::new("x.mp4"), ExitStatus::from_raw(1 << 8), stderr);
        assert!(matches!(&e, Error::Probe { field, .. } if field == "format_name"), "{e:?}");
        assert!(e.to_string().contains("`hls`"), "{e}");
        assert_eq!(refused_format("[concat @ 0x1] Format not on whitelist 'mov'"), Some("concat"));
        assert_eq!(refused_format("x.mp4: Invalid data found when processing input"), None);
    }
}
