//! The loop shared by the processing workers and the renderers.

use std::time::Duration;

use tokio::sync::watch;

/// Runs `count` loops over a durable queue until `shutdown` turns true: each claims and does one
/// piece of work on a blocking thread (`work` says whether there was one) and, when the queue is
/// empty, sleeps until `wake` is notified (or half a second passes). Work in flight is finished
/// before this returns. Shared by the processing workers and the renderers.
/// `context` is what `work` uses (cloned into each loop).
pub async fn run_pool<C: Clone + Send + Sync + 'static>(
    context: C,
    count: usize,
    mut shutdown: watch::Receiver<bool>,
    wake: std::sync::Arc<tokio::sync::Notify>,
    work: fn(&C) -> bool,
) {
    let mut handles = Vec::new();
    for _ in 0..count.max(1) {
        let (context, wake) = (context.clone(), wake.clone());
        let mut shutdown = shutdown.clone();
        handles.push(tokio::spawn(async move {
            loop {
                if *shutdown.borrow() {
                    break;
                }
                let c = context.clone();
                let worked = crate::blocking::in_background("a job", move || work(&c)).await.unwrap_or(false);
                if !worked {
                    tokio::select! {
                        _ = wake.notified() => {}
                        _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                        _ = shutdown.changed() => {}
                    }
                }
            }
        }));
    }
    let _ = shutdown.changed().await;
    for h in handles {
        let _ = h.await;
    }
}
