//! The hand-offs to the blocking pool (a leaf: it uses nothing of the crate). Work that reads
//! the database, a file or a model runs there, off the async threads. A request's work comes back
//! as its own result, a panic or a cancelled task becoming the caller's error through its
//! `From<JoinError>` ([`blocking`]); a background loop's comes back as `None` when it panicked, the
//! panic logged, and the loop goes on ([`in_background`], [`detach`]).

/// Runs `work` on the blocking pool and waits for its result without holding an async thread.
pub async fn blocking<T, E>(work: impl FnOnce() -> Result<T, E> + Send + 'static) -> Result<T, E>
where
    T: Send + 'static,
    E: From<tokio::task::JoinError> + Send + 'static,
{
    tokio::task::spawn_blocking(work).await?
}

/// Runs `work` of a background loop on the blocking pool and waits for it: `None` when it
/// panicked, which is logged with `what` (the work logs its own errors).
pub async fn in_background<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    match tokio::task::spawn_blocking(work).await {
        Ok(done) => Some(done),
        Err(e) => {
            tracing::error!(error = %e, work = what, "background work failed");
            None
        }
    }
}

/// Starts `work` on the blocking pool without waiting for it (a process's start-up work, a
/// recipe's run); a panic is logged with `what`. Needs a Tokio runtime.
pub fn detach(what: &'static str, work: impl FnOnce() + Send + 'static) {
    tokio::spawn(in_background(what, work));
}
