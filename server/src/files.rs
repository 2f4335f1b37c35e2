//! The service's files: a private data directory (0700, files 0600) and the resolution of an
//! item's `asset_info.file_uri` to a regular file under the media root, never a secret of the
//! service.

use std::io;
use std::path::{Path, PathBuf};

/// Creates `dir` (and its parents) when absent and makes it private to the service's user
/// (mode 0700 on Unix), tightening an existing directory that is open to others.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    restrict(dir, 0o700)
}

/// Makes an existing file private to the service's user (mode 0600 on Unix); absent files are
/// left absent.
pub fn private_file(path: &Path) -> io::Result<()> {
    match restrict(path, 0o600) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let current = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if current != mode {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn restrict(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

/// Where an item's `asset_info.file_uri` leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalMedia {
    /// No `file_uri`, or a remote one (`s3://`, `https://`, ...): not for this service to read.
    NotLocal,
    /// A regular file under the media root (symbolic links resolved).
    File(PathBuf),
    /// A local path that cannot be used: missing, unreadable, not a regular file, outside the
    /// media root or one of the service's own files. The reason is for the server's log only:
    /// callers show every such case with the same message, so that answers do not reveal which
    /// files exist.
    Unusable {
        /// Why, with the server path (log it, never show it).
        reason: String,
    },
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
    /// Resolves a `file_uri` (a relative or absolute path, or a `file://` URI) to a regular file:
    /// the whole path is resolved (every symbolic link, the last component too) and must stay
    /// under the media root and outside the private paths.
    pub fn resolve(&self, uri: &str) -> LocalMedia {
        let path = uri.strip_prefix("file://").unwrap_or(uri);
        if path.is_empty() || path.contains("://") {
            return LocalMedia::NotLocal;
        }
        let full = if Path::new(path).is_absolute() { PathBuf::from(path) } else { self.root.join(path) };
        let unusable = |reason: String| LocalMedia::Unusable { reason };
        let root = match self.root.canonicalize() {
            Ok(r) => r,
            Err(e) => return unusable(format!("media root {}: {e}", self.root.display())),
        };
        let resolved = match full.canonicalize() {
            Ok(r) => r,
            Err(e) => return unusable(format!("{}: {e}", full.display())),
        };
        if !resolved.starts_with(&root) {
            return unusable(format!("{} resolves outside the media root {}", full.display(), root.display()));
        }
        let private = self.private.iter().filter_map(|p| p.canonicalize().ok()).any(|p| resolved.starts_with(p));
        if private {
            return unusable(format!("{} is one of the service's own files", resolved.display()));
        }
        match std::fs::metadata(&resolved) {
            Ok(m) if m.is_file() => LocalMedia::File(resolved),
            Ok(_) => unusable(format!("{} is not a regular file", resolved.display())),
            Err(e) => unusable(format!("{}: {e}", resolved.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbolic_links_and_private_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("media");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("film.mp4"), b"x").unwrap();
        std::fs::write(dir.path().join("secret.key"), b"k").unwrap();
        std::fs::write(root.join("token.key"), b"k").unwrap();
        let private = vec![root.join("token.key")];
        let media = MediaRoot { root: &root, private: &private };
        assert!(matches!(media.resolve("film.mp4"), LocalMedia::File(_)));
        assert!(matches!(media.resolve("file://film.mp4"), LocalMedia::File(_)));
        assert_eq!(media.resolve("s3://bucket/film.mp4"), LocalMedia::NotLocal);
        assert_eq!(media.resolve(""), LocalMedia::NotLocal);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.key"), root.join("link.mp4")).unwrap();
            std::os::unix::fs::symlink(dir.path(), root.join("sub/up")).unwrap();
        }
        for uri in ["link.mp4", "sub/up/secret.key", "../secret.key", "token.key", "sub", "missing.mp4"] {
            assert!(matches!(media.resolve(uri), LocalMedia::Unusable { .. }), "{uri}");
        }
        let absolute = dir.path().join("secret.key");
        assert!(matches!(media.resolve(absolute.to_str().unwrap()), LocalMedia::Unusable { .. }));
    }
}
