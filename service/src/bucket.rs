//! The bucket: where rendered clips, thumbnails and creative assets live, and where `/media`
//! reads them from.
//!
//! Renders are written by ffmpeg to files under the local bucket root (`--bucket-root`). Without
//! an object store that directory is the bucket. With one (`--object-store s3://bucket/prefix`,
//! or `file:///shared/dir`), each finished file is uploaded to it under the same relative path
//! and `/media` serves from it, so every replica serves what any replica rendered; the local copy
//! stays as a cache of the files this process wrote.
//!
//! Object stores are reached through the `object_store` crate. For S3 and S3-compatible servers
//! the usual variables configure the client: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_REGION`, `AWS_ENDPOINT` (an S3-compatible server) and `AWS_ALLOW_HTTP=true` (a plain
//! `http://` endpoint, e.g. in tests).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, PutPayload};

/// Why the bucket cannot be opened, written or read.
#[derive(Debug, thiserror::Error)]
pub enum BucketError {
    /// The `--object-store` URL is not one the service can use.
    #[error("object store {url:?}: {reason}")]
    Url {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A bucket path that is not a plain relative path (`..`, empty segments, a leading `/`).
    #[error("{0:?} is not a bucket path")]
    BadPath(String),
    /// No such file in the bucket.
    #[error("{0:?} is not in the bucket")]
    NotFound(String),
    /// The local file of a render cannot be read.
    #[error("{path}: {source}")]
    Local {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The object store failed.
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
}

/// A file read from the bucket: its length and its bytes as they arrive.
pub struct BucketFile {
    /// Length in bytes.
    pub size: u64,
    /// The content.
    pub stream: futures_util::stream::BoxStream<'static, Result<Bytes, BucketError>>,
}

impl std::fmt::Debug for BucketFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BucketFile").field("size", &self.size).finish_non_exhaustive()
    }
}

/// The bucket: the local root and, when configured, the object store the files are published to.
#[derive(Debug)]
pub struct Bucket {
    local: PathBuf,
    remote: Option<(String, Arc<dyn ObjectStore>)>,
}

impl Bucket {
    /// The bucket over the local root `local` and the object store at `url` (`None`: the local
    /// directory only). `s3://` URLs read the `AWS_*` variables; `file://` needs an absolute
    /// path to an existing directory.
    pub fn open(local: &Path, url: Option<&str>) -> Result<Bucket, BucketError> {
        let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
            return Ok(Bucket { local: local.to_path_buf(), remote: None });
        };
        let bad = |reason: String| BucketError::Url { url: url.to_string(), reason };
        let store: Arc<dyn ObjectStore> = if url.starts_with("s3://") {
            Arc::new(
                object_store::aws::AmazonS3Builder::from_env().with_url(url).build().map_err(|e| bad(e.to_string()))?,
            )
        } else if let Some(path) = url.strip_prefix("file://") {
            let dir = Path::new(path);
            if !dir.is_absolute() || !dir.is_dir() {
                return Err(bad("file:// must name an existing directory by its absolute path".into()));
            }
            Arc::new(object_store::local::LocalFileSystem::new_with_prefix(dir).map_err(|e| bad(e.to_string()))?)
        } else {
            return Err(bad("the scheme must be s3:// or file://".into()));
        };
        // A prefix in an s3:// URL (s3://bucket/some/prefix) puts every file under it.
        let prefix = url
            .strip_prefix("s3://")
            .and_then(|rest| rest.split_once('/'))
            .map(|(_, p)| p.trim_matches('/').to_string())
            .unwrap_or_default();
        Ok(Bucket { local: local.to_path_buf(), remote: Some((prefix, store)) })
    }

    /// The local root, where renders are written.
    pub fn local_root(&self) -> &Path {
        &self.local
    }

    /// Whether files are published to an object store (and `/media` reads from it).
    pub fn is_remote(&self) -> bool {
        self.remote.is_some()
    }

    /// The object store's location of a bucket path, checked.
    fn object_path(&self, relative: &str) -> Result<ObjectPath, BucketError> {
        let plain = !relative.is_empty()
            && relative.split('/').all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains('\\'));
        if !plain {
            return Err(BucketError::BadPath(relative.to_string()));
        }
        let prefix = self.remote.as_ref().map_or("", |(p, _)| p.as_str());
        let full = if prefix.is_empty() { relative.to_string() } else { format!("{prefix}/{relative}") };
        ObjectPath::parse(&full).map_err(|_| BucketError::BadPath(relative.to_string()))
    }

    /// Publishes the rendered file at `relative` (under the local root) to the object store;
    /// nothing to do without one. Call from a blocking thread of the runtime (the renderers are).
    pub fn publish(&self, relative: &str) -> Result<(), BucketError> {
        let Some((_, store)) = &self.remote else { return Ok(()) };
        let location = self.object_path(relative)?;
        let path = self.local.join(relative);
        let bytes = std::fs::read(&path).map_err(|source| BucketError::Local { path: path.clone(), source })?;
        block(&path, store.put(&location, PutPayload::from(bytes)))??;
        Ok(())
    }

    /// Writes `bytes` at `relative` in the object store (nothing without one). From a blocking
    /// thread, like [`Bucket::publish`].
    pub fn put_bytes(&self, relative: &str, bytes: Vec<u8>) -> Result<(), BucketError> {
        let Some((_, store)) = &self.remote else { return Ok(()) };
        let location = self.object_path(relative)?;
        block(&self.local, store.put(&location, PutPayload::from(bytes)))??;
        Ok(())
    }

    /// The bytes at `relative` in the object store; `None` when absent (or without a store).
    /// From a blocking thread.
    pub fn get_bytes(&self, relative: &str) -> Result<Option<Vec<u8>>, BucketError> {
        let Some((_, store)) = &self.remote else { return Ok(None) };
        let location = self.object_path(relative)?;
        let read = async {
            match store.get(&location).await {
                Ok(result) => result.bytes().await.map(|b| Some(b.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        };
        Ok(block(&self.local, read)??)
    }

    /// The names of the objects directly under the directory `relative` (not recursive).
    /// From a blocking thread.
    pub fn list(&self, relative: &str) -> Result<Vec<String>, BucketError> {
        let Some((_, store)) = &self.remote else { return Ok(Vec::new()) };
        let location = self.object_path(relative)?;
        let listed = block(&self.local, store.list_with_delimiter(Some(&location)))??;
        Ok(listed.objects.iter().filter_map(|o| o.location.filename().map(str::to_string)).collect())
    }

    /// Deletes the object at `relative` (absent: nothing to do). From a blocking thread.
    pub fn delete(&self, relative: &str) -> Result<(), BucketError> {
        let Some((_, store)) = &self.remote else { return Ok(()) };
        let location = self.object_path(relative)?;
        match block(&self.local, store.delete(&location))? {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Reads the file at `relative` from the object store (`None` without one: the local root
    /// is served as files).
    pub async fn get(&self, relative: &str) -> Option<Result<BucketFile, BucketError>> {
        let (_, store) = self.remote.as_ref()?;
        let location = match self.object_path(relative) {
            Ok(location) => location,
            Err(e) => return Some(Err(e)),
        };
        Some(match store.get(&location).await {
            Ok(result) => Ok(BucketFile {
                size: result.meta.size,
                stream: result.into_stream().map(|chunk| chunk.map_err(BucketError::from)).boxed(),
            }),
            Err(object_store::Error::NotFound { .. }) => Err(BucketError::NotFound(relative.to_string())),
            Err(e) => Err(BucketError::Store(e)),
        })
    }
}

/// Runs `work` to completion from a blocking thread: on the runtime it belongs to, or on a
/// runtime of its own outside one (`at` names what failed to start it).
fn block<F: std::future::Future>(at: &Path, work: F) -> Result<F::Output, BucketError> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => Ok(handle.block_on(work)),
        Err(_) => Ok(tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|source| BucketError::Local { path: at.to_path_buf(), source })?
            .block_on(work)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!Bucket::open(dir.path(), None).unwrap().is_remote());
        assert!(!Bucket::open(dir.path(), Some("  ")).unwrap().is_remote());
        for bad in ["ftp://x", "file://relative/dir", "file:///no/such/directory/anywhere", "bucket"] {
            let e = Bucket::open(dir.path(), Some(bad)).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
        let shared = tempfile::tempdir().unwrap();
        let bucket = Bucket::open(dir.path(), Some(&format!("file://{}", shared.path().display()))).unwrap();
        assert!(bucket.is_remote());
        for bad in ["", "/gen/a.mp4", "gen/../x", "gen//a", "./a", "gen\\a"] {
            assert!(matches!(bucket.object_path(bad), Err(BucketError::BadPath(_))), "{bad:?}");
        }
        assert_eq!(bucket.object_path("gen/g1/clip-0.mp4").unwrap().as_ref(), "gen/g1/clip-0.mp4");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_published_file_is_read_back_from_the_store() {
        let (local, shared) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let bucket =
            Arc::new(Bucket::open(local.path(), Some(&format!("file://{}", shared.path().display()))).unwrap());
        std::fs::create_dir_all(local.path().join("gen/g1")).unwrap();
        std::fs::write(local.path().join("gen/g1/clip-0.mp4"), b"not really a video").unwrap();
        let b = bucket.clone();
        tokio::task::spawn_blocking(move || b.publish("gen/g1/clip-0.mp4")).await.unwrap().unwrap();
        assert_eq!(std::fs::read(shared.path().join("gen/g1/clip-0.mp4")).unwrap(), b"not really a video");
        std::fs::remove_file(local.path().join("gen/g1/clip-0.mp4")).unwrap();
        let file = bucket.get("gen/g1/clip-0.mp4").await.unwrap().unwrap();
        assert_eq!(file.size, 18);
        let bytes: Vec<Bytes> = file.stream.map(Result::unwrap).collect().await;
        assert_eq!(bytes.concat(), b"not really a video");
        assert!(matches!(bucket.get("gen/g1/none.mp4").await, Some(Err(BucketError::NotFound(_)))));
        // A render that left no file is an error, not an empty upload.
        let b = bucket.clone();
        let missing = tokio::task::spawn_blocking(move || b.publish("gen/g1/missing.jpg")).await.unwrap();
        assert!(matches!(missing, Err(BucketError::Local { .. })));
    }
}
