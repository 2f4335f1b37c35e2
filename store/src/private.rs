//! The service's private files: a data directory of mode 0700 and files of mode 0600, refusing
//! symbolic links and special files, changed without releasing this process's POSIX locks (a
//! leaf: it uses nothing else of the crate).

use std::io;
use std::path::{Path, PathBuf};

/// Creates `dir` (and its parents) when absent and makes it private to the service's user
/// (mode 0700 on Unix), tightening an existing directory that is open to others. A path that
/// exists but is not a directory (a device, a FIFO, a symbolic link, a file) is refused, and
/// its mode is left alone.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    if let Ok(meta) = dir.symlink_metadata() {
        expect_kind(dir, &meta, Kind::Dir)?;
    }
    std::fs::create_dir_all(dir)?;
    restrict(dir, 0o700, Kind::Dir)
}

/// Makes an existing file private to the service's user (mode 0600 on Unix); absent files are
/// left absent. A path that is not a regular file (a device, a FIFO, a symbolic link, a
/// directory) is refused, and its mode is left alone.
pub fn private_file(path: &Path) -> io::Result<()> {
    match restrict(path, 0o600, Kind::File) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Refuses a path that exists but is not a regular file: the service's database, key and token
/// files are read and written by name, and a device node, FIFO or symbolic link there (given by
/// mistake, or planted) must not be opened, truncated or have its mode changed. An absent path
/// is fine (it will be created).
pub fn check_regular_file(path: &Path) -> io::Result<()> {
    match path.symlink_metadata() {
        Ok(meta) => expect_kind(path, &meta, Kind::File),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
}

/// The error for a path of the wrong kind, naming what it is and what it must be.
fn expect_kind(path: &Path, meta: &std::fs::Metadata, kind: Kind) -> io::Result<()> {
    let ft = meta.file_type();
    let ok = match kind {
        Kind::File => ft.is_file(),
        Kind::Dir => ft.is_dir(),
    };
    if ok {
        return Ok(());
    }
    let what = describe(&ft);
    let must = if kind == Kind::File { "a regular file" } else { "a directory" };
    let hint = if ft.is_symlink() { " (give the path it points to instead)" } else { "" };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {what}; it must be {must}{hint}, and its mode was left unchanged", path.display()),
    ))
}

fn describe(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Sets the mode of the file or directory at `path` without following a symbolic link and
/// without touching anything but a regular file or directory: the path is checked with
/// `lstat`, opened with `O_NOFOLLOW`, checked again on the opened descriptor with `fstat`, and
/// changed through that descriptor, so that a swap between the check and the change reaches
/// nothing else.
///
/// On Linux the descriptor is an `O_PATH` one and the mode is changed through
/// `/proc/self/fd/N`: the file is never opened for reading. That matters for the database's
/// files: closing any ordinary descriptor of a file releases every POSIX lock this process holds
/// on it, and SQLite's locks on `-shm` are what tell another process (`kino-server admin ...`)
/// that the shared memory is in use. Without them that process truncates it, and the service
/// dies with SIGBUS on its next write.
#[cfg(unix)]
fn restrict(path: &Path, mode: u32, kind: Kind) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    expect_kind(path, &path.symlink_metadata()?, kind)?;
    let file = open_without_locks(path)?;
    let meta = file.metadata()?;
    expect_kind(path, &meta, kind)?;
    if meta.permissions().mode() & 0o777 != mode {
        set_mode(&file, mode)?;
    }
    Ok(())
}

/// `path` opened with `O_NOFOLLOW` for `fstat` and a mode change only: `O_PATH` on Linux, whose
/// closing releases no POSIX lock (see [`restrict`]).
#[cfg(target_os = "linux")]
fn open_without_locks(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC).open(path)
}

/// Elsewhere a read-only open (`O_NONBLOCK`, so that a FIFO swapped in cannot block it).
#[cfg(all(unix, not(target_os = "linux")))]
fn open_without_locks(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(target_os = "linux")]
fn set_mode(file: &std::fs::File, mode: u32) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::PermissionsExt;
    // An `O_PATH` descriptor cannot be given to fchmod; its /proc link leads to the same inode.
    std::fs::set_permissions(fd_path(file.as_raw_fd()), std::fs::Permissions::from_mode(mode))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn set_mode(file: &std::fs::File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

/// The /proc link of one of this process's descriptors: the very inode it was opened on.
#[cfg(target_os = "linux")]
pub fn fd_path(fd: std::os::fd::RawFd) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{fd}"))
}

#[cfg(not(unix))]
fn restrict(path: &Path, _: u32, kind: Kind) -> io::Result<()> {
    expect_kind(path, &path.symlink_metadata()?, kind)
}

/// How many POSIX record locks this process holds on the inode `ino` (/proc/locks): what the
/// tests of the store and of the service's media files check survives a mode change.
#[doc(hidden)]
#[cfg(target_os = "linux")]
pub fn posix_locks_held(ino: u64) -> usize {
    let pid = std::process::id().to_string();
    let ino = ino.to_string();
    std::fs::read_to_string("/proc/locks")
        .unwrap()
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        // "1: POSIX  ADVISORY  READ 16645 fe:00:1234 128 128" (waiters carry a "->" more).
        .filter(|t| t.len() >= 6 && t[1] == "POSIX" && t[4] == pid && t[5].rsplit(':').next() == Some(&ino))
        .count()
}

#[cfg(test)]
mod tests;
