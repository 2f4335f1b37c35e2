//! The service's files: a private data directory (0700, files 0600) and the resolution of an
//! item's `asset_info.file_uri` to a regular file under the media root, never a secret of the
//! service.

use std::io;
use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
use kino_store::ItemRow;
use kino_store::private::fd_path;
pub use kino_store::private::{check_regular_file, private_dir, private_file};

/// Where an item's `asset_info.file_uri` leads.
#[derive(Debug)]
pub enum LocalMedia {
    /// No `file_uri`, or a remote one (`s3://`, `https://`, ...): not for this service to read.
    NotLocal,
    /// A regular file under the media root, opened.
    File(MediaFile),
    /// A local path that cannot be used: missing, unreadable, not a regular file, outside the
    /// media root, reached through a symbolic link, or one of the service's own files. The
    /// reason is for the server's log only: callers show every such case with the same message,
    /// so that answers do not reveal which files exist.
    Unusable {
        /// Why, with the server path (log it, never show it).
        reason: String,
        /// Whether the file (or a directory on its way) does not exist: a missing sidecar is
        /// simply absent, one that exists but cannot be used is an error.
        missing: bool,
    },
}

/// A media file opened once, beneath the media root. Everything that reads it afterwards (this
/// process, ffprobe, ffmpeg) reads this open file, never the name again: swapping a directory of
/// the path for a symbolic link after the check reaches nothing.
#[derive(Debug)]
pub struct MediaFile {
    file: std::fs::File,
    /// The path it was opened by (for logs).
    shown: PathBuf,
}

impl MediaFile {
    /// A path that names this open file and nothing else, for a subprocess to open: its
    /// descriptor's entry in `/proc` (a link the kernel resolves to the open file itself, not
    /// by name). Valid while `self` lives. Elsewhere than Linux, the path it was opened by.
    pub fn tool_path(&self) -> PathBuf {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            PathBuf::from(format!("/proc/{}/fd/{}", std::process::id(), self.file.as_raw_fd()))
        }
        #[cfg(not(target_os = "linux"))]
        self.shown.clone()
    }

    /// The path it was opened by, under the media root (for logs, never for opening).
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// Its contents as text, read from the open file, when it has at most `limit` bytes; `None`
    /// when it has more (at most `limit + 1` bytes are read to find out).
    pub fn read_to_string_within(&self, limit: u64) -> io::Result<Option<String>> {
        use std::io::{Read, Seek};
        let mut file = &self.file;
        if file.metadata()?.len() > limit {
            return Ok(None);
        }
        file.seek(io::SeekFrom::Start(0))?;
        let mut bytes = Vec::new();
        file.take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Ok(None);
        }
        String::from_utf8(bytes).map(Some).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Its contents as text, read from the open file.
    pub fn read_to_string(&self) -> io::Result<String> {
        use std::io::{Read, Seek};
        let mut file = &self.file;
        file.seek(io::SeekFrom::Start(0))?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        Ok(text)
    }
}

/// The media root and the paths under it that are never media (the service's data).
#[derive(Debug, Clone)]
pub struct MediaRoot<'a> {
    /// The media root.
    pub root: &'a Path,
    /// Files and directories that are refused even under the root.
    pub private: &'a [PathBuf],
}

impl MediaRoot<'_> {
    /// Opens a `file_uri` (a relative or absolute path, or a `file://` URI) as a regular file
    /// beneath the media root, in one step that no concurrent rename can redirect: with
    /// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel has it (Linux 5.6),
    /// else one component at a time with `O_NOFOLLOW`. No symbolic link is followed below the
    /// root and no `..` is accepted; the opened file is then checked with `fstat` (a regular
    /// file, not one of the private files or under a private directory).
    pub fn resolve(&self, uri: &str) -> LocalMedia {
        let path = uri.strip_prefix("file://").unwrap_or(uri);
        if path.is_empty() || path.contains("://") {
            return LocalMedia::NotLocal;
        }
        match self.open(Path::new(path)) {
            Ok(file) => LocalMedia::File(file),
            Err((reason, missing)) => LocalMedia::Unusable { reason, missing },
        }
    }

    fn open(&self, path: &Path) -> Result<MediaFile, (String, bool)> {
        let shown = if path.is_absolute() { path.to_path_buf() } else { self.root.join(path) };
        let fail = |why: &dyn std::fmt::Display| (format!("{}: {why}", shown.display()), false);
        let root = self.root.canonicalize().map_err(|e| (format!("media root {}: {e}", self.root.display()), false))?;
        let relative = if path.is_absolute() {
            path.strip_prefix(self.root)
                .or_else(|_| path.strip_prefix(&root))
                .map_err(|_| fail(&format_args!("outside the media root {}", root.display())))?
        } else {
            path
        };
        let mut parts = Vec::new();
        for component in relative.components() {
            match component {
                std::path::Component::Normal(part) => parts.push(part),
                std::path::Component::CurDir => {}
                _ => return Err(fail(&"a `..` or root component leaves the media root")),
            }
        }
        if parts.is_empty() {
            return Err(fail(&"names the media root itself"));
        }
        // The service's own files are refused by name before anything is opened, and by inode
        // (a hard link) before the file is opened for reading: on Linux the first open is an
        // `O_PATH` one, whose closing releases none of the POSIX locks that SQLite holds on the
        // database in this process (see `restrict`).
        let private: Vec<PathBuf> = self.private.iter().filter_map(|p| p.canonicalize().ok()).collect();
        let lexical: PathBuf = parts.iter().fold(root.clone(), |p, part| p.join(part));
        if private.iter().any(|p| lexical.starts_with(p)) {
            return Err(fail(&"one of the service's own files"));
        }
        let file = open_beneath(&root, &parts).map_err(|e| {
            let missing = e.kind() == io::ErrorKind::NotFound;
            (fail(&e).0, missing)
        })?;
        let meta = file.metadata().map_err(|e| fail(&e))?;
        if !meta.is_file() {
            return Err(fail(&"not a regular file"));
        }
        if private.iter().any(|p| same_file(&meta, p)) {
            return Err(fail(&"one of the service's own files"));
        }
        let file = reopen_for_reading(file).map_err(|e| fail(&e))?;
        Ok(MediaFile { file, shown })
    }
}

#[cfg(unix)]
fn same_file(meta: &std::fs::Metadata, other: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(other).is_ok_and(|o| o.dev() == meta.dev() && o.ino() == meta.ino())
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &Path) -> bool {
    false
}

/// Opens `root/parts...` for reading without following any symbolic link and without leaving
/// `root`.
#[cfg(unix)]
fn open_beneath(root: &Path, parts: &[&std::ffi::OsStr]) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let root = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC).open(root)?;
    #[cfg(target_os = "linux")]
    match openat2_beneath(&root, parts) {
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EPERM | libc::E2BIG)) => {}
        other => return other,
    }
    open_each_component(root, parts)
}

#[cfg(not(unix))]
fn open_beneath(root: &Path, parts: &[&std::ffi::OsStr]) -> io::Result<std::fs::File> {
    std::fs::File::open(parts.iter().fold(root.to_path_buf(), |p, part| p.join(part)))
}

/// Flags of the final open. On Linux an `O_PATH` descriptor, for `fstat` only; the file is
/// opened for reading once it is known to be a regular file that is not the service's own
/// ([`reopen_for_reading`]).
#[cfg(target_os = "linux")]
const READ_FLAGS: libc::c_int = libc::O_PATH | libc::O_CLOEXEC;

/// Flags of the final open elsewhere: read only, and a FIFO swapped in cannot block it.
#[cfg(all(unix, not(target_os = "linux")))]
const READ_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK;

/// The checked file opened for reading: on Linux through its descriptor's /proc link, which
/// leads to the very inode that was checked whatever was renamed meanwhile.
#[cfg(target_os = "linux")]
fn reopen_for_reading(checked: std::fs::File) -> io::Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOCTTY)
        .open(fd_path(checked.as_raw_fd()))
}

#[cfg(not(target_os = "linux"))]
fn reopen_for_reading(checked: std::fs::File) -> io::Result<std::fs::File> {
    Ok(checked)
}

#[cfg(unix)]
fn c_path(parts: &[&std::ffi::OsStr]) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    let joined: PathBuf = parts.iter().collect();
    std::ffi::CString::new(joined.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "the path contains a NUL byte"))
}

#[cfg(target_os = "linux")]
fn openat2_beneath(root: &std::fs::File, parts: &[&std::ffi::OsStr]) -> io::Result<std::fs::File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let path = c_path(parts)?;
    // SAFETY: `open_how` is plain data; zeroed is a valid value, then its fields are set.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = READ_FLAGS as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: a valid directory descriptor, a NUL-terminated path and an `open_how` of the size
    // passed, all alive for the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            root.as_raw_fd(),
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openat2 returned a new descriptor that nothing else owns.
    Ok(unsafe { std::fs::File::from_raw_fd(fd as libc::c_int) })
}

/// The fallback: each directory opened with `O_NOFOLLOW | O_DIRECTORY` relative to the one
/// before, the file with `O_NOFOLLOW`; a symbolic link anywhere fails (`ELOOP` or `ENOTDIR`).
#[cfg(unix)]
fn open_each_component(root: std::fs::File, parts: &[&std::ffi::OsStr]) -> io::Result<std::fs::File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let mut dir = root;
    for (i, part) in parts.iter().enumerate() {
        let name = c_path(&[part])?;
        let last = i + 1 == parts.len();
        let flags = if last {
            READ_FLAGS | libc::O_NOFOLLOW
        } else {
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC
        };
        // SAFETY: a valid directory descriptor and a NUL-terminated name, alive for the call.
        let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: openat returned a new descriptor that nothing else owns.
        dir = unsafe { std::fs::File::from_raw_fd(fd) };
    }
    // `O_PATH | O_NOFOLLOW` opens a final symbolic link itself rather than failing: refused
    // here as openat2 and a plain `O_NOFOLLOW` open refuse it.
    if dir.metadata()?.file_type().is_symlink() {
        return Err(io::Error::from_raw_os_error(libc::ELOOP));
    }
    Ok(dir)
}

/// Where an item's `asset_info.file_uri` leads: a regular file under the media root, a remote
/// URI, or a local path that cannot be used (see [`MediaRoot::resolve`]).
pub fn local_media(config: &crate::config::Config, item: &ItemRow) -> LocalMedia {
    match item.file_uri() {
        Some(uri) => media_root(config).resolve(uri),
        None => LocalMedia::NotLocal,
    }
}

/// The sidecar signals file beside an item's `file_uri` (`<file_uri>.signals.json`), resolved
/// like the video itself.
pub fn local_sidecar(config: &crate::config::Config, item: &ItemRow) -> LocalMedia {
    match item.file_uri() {
        Some(uri) => media_root(config).resolve(&format!("{uri}.signals.json")),
        None => LocalMedia::NotLocal,
    }
}

fn media_root(config: &crate::config::Config) -> MediaRoot<'_> {
    MediaRoot { root: &config.media_root, private: &config.private_paths }
}

/// What a caller is told about a `file_uri` that cannot be used, whatever the reason (missing,
/// unreadable, not a regular file, outside the media root): one message, so that answers do not
/// reveal which files exist on the server. The reason is logged.
pub fn unusable_media(item: &ItemRow, reason: &str) -> String {
    let uri = item.file_uri().unwrap_or_default();
    tracing::warn!(item = %item.id, file_uri = uri, reason, "the item's media file cannot be used");
    format!("file_uri {uri:?} is not a readable media file under the service's media root")
}

/// Refuses a directory served at `/media` (`flag`: `--bucket-root`, or the directory of a
/// `file://` object store) that would serve the service's own files: one that is the data
/// directory, contains it, or lies inside it elsewhere than its `bucket` directory (the
/// default), or one that contains any of `private` (the database wherever `--database` puts
/// it). Paths are compared canonicalized, so `.`, `..` and links do not hide an overlap; a
/// directory that does not exist yet is compared by its nearest existing parent.
pub fn check_served_dir(flag: &str, served: &Path, data_dir: &Path, private: &[PathBuf]) -> Result<(), String> {
    let canonical = |p: &Path| resolve_existing(p).map_err(|e| format!("{flag} {}: {e}", p.display()));
    let dir = canonical(served)?;
    let data = canonical(data_dir)?;
    let refuse = |rule: &str| {
        Err(format!(
            "{flag} {} {rule}: /media would serve the service's keys and database. Give it a directory of its own \
             outside the data directory {} (or leave it out: the default is <data-dir>/bucket)",
            served.display(),
            data_dir.display()
        ))
    };
    if dir == data {
        return refuse("is the data directory");
    }
    if data.starts_with(&dir) {
        return refuse("contains the data directory");
    }
    if dir.starts_with(&data) && !dir.starts_with(data.join("bucket")) {
        return refuse("lies inside the data directory");
    }
    for file in private {
        if resolve_existing(file).is_ok_and(|f| f.starts_with(&dir)) {
            return refuse(&format!("contains the service's file {}", file.display()));
        }
    }
    Ok(())
}

/// `path` canonicalized; when it does not exist, its nearest existing ancestor canonicalized with
/// the rest appended (`..` in the rest taking a component off).
fn resolve_existing(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut resolved) => {
                for part in rest.iter().rev() {
                    match part {
                        std::path::Component::ParentDir => {
                            resolved.pop();
                        }
                        std::path::Component::Normal(name) => resolved.push(name),
                        _ => {}
                    }
                }
                return Ok(resolved);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let Some(parent) = existing.parent() else { return Err(e) };
                rest.extend(existing.components().next_back());
                existing = parent;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether media files are opened with the protection [`LocalMedia`] describes (once, beneath
/// the media root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, and handed to ffmpeg by
/// descriptor): on Linux only. Elsewhere a path is walked without following links, but ffmpeg
/// reopens it by name, so a directory swapped for a link in between is followed.
pub const MEDIA_ROOT_PROTECTED: bool = cfg!(target_os = "linux");

/// Refuses to serve without the media root's protection ([`MEDIA_ROOT_PROTECTED`]) unless
/// `--allow-unprotected-media-root` (`allowed`) says to.
pub fn check_media_root_protection(protected: bool, allowed: bool) -> Result<(), String> {
    if protected || allowed {
        return Ok(());
    }
    Err(format!(
        "--media-root: media files are opened beneath the media root with openat2 and handed to ffmpeg by descriptor \
         only on Linux; on {} a file_uri whose directories are swapped for links while it is read can reach files \
         outside the media root. Pass --allow-unprotected-media-root (KINO_ALLOW_UNPROTECTED_MEDIA_ROOT) to serve \
         anyway, with a media root no untrusted user can write to",
        std::env::consts::OS
    ))
}

#[cfg(test)]
mod tests;
