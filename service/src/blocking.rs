//! The one hand-off to the blocking pool (a leaf: it uses nothing of the crate). Work that reads
//! the database, a file or a model runs there, off the async threads, and comes back as its own
//! result; a panic or a cancelled task becomes the caller's error through its `From<JoinError>`.

/// Runs `work` on the blocking pool and waits for its result without holding an async thread.
pub async fn blocking<T, E>(work: impl FnOnce() -> Result<T, E> + Send + 'static) -> Result<T, E>
where
    T: Send + 'static,
    E: From<tokio::task::JoinError> + Send + 'static,
{
    tokio::task::spawn_blocking(work).await?
}
