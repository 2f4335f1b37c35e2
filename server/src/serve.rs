//! Serving the router over TCP with limits a public service needs: a cap on open connections,
//! a deadline for a request's headers, an idle timeout on every connection and a deadline for
//! each request, then a graceful shutdown that lets requests in flight finish.
//!
//! A slow or silent client holds a connection slot for at most the header-read timeout (the
//! first byte of a request must arrive within it, as must the rest of the headers) or, between
//! bytes of a request under way, the idle timeout; one peer address (an IPv6 peer by its /64)
//! holds at most its share of the slots, and a connection past that share is closed at once.
//! Past the cap new connections wait in the kernel's accept queue until a slot frees.

use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv6Addr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt as _;

/// Connection and request limits (the service's flags `--max-connections`,
/// `--header-read-timeout`, `--idle-timeout`, `--request-timeout`).
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// Connections open at once; more wait to be accepted.
    pub max_connections: usize,
    /// Connections one peer address (an IPv6 peer by its /64 prefix) may hold at once; more
    /// are closed as they arrive. Behind a reverse proxy every connection comes from the
    /// proxy: set it to `max_connections` there.
    pub max_connections_per_peer: usize,
    /// Time allowed for a request's headers to arrive: for the first byte of a new connection,
    /// counted from the accept; for the rest, from the first byte or, on a kept-alive
    /// connection, from the end of the previous response (so it also closes idle kept-alive
    /// connections).
    pub header_read_timeout: Duration,
    /// A connection on which nothing is read or written for this long is closed (longer than
    /// the request timeout, so a slow request gets its 408 first).
    pub idle_timeout: Duration,
    /// Time allowed for one request, body included; past it the answer is 408.
    pub request_timeout: Duration,
    /// Time the graceful shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: 512,
            max_connections_per_peer: 128,
            header_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(180),
            request_timeout: Duration::from_secs(120),
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then waits (up to the grace period)
/// for the connections in flight.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let router = router.layer(tower_http::timeout::TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        limits.request_timeout,
    ));
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let peers = Arc::new(PeerCounts::default());
    let graceful = GracefulShutdown::new();
    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
    builder.http2().timer(TokioTimer::new());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %e, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(share) = peers.clone().enter(peer.ip(), limits.max_connections_per_peer.max(1)) else {
            tracing::debug!(%peer, "connection closed: the peer holds its share of the connections");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(IdleTimeout::new(stream, limits.header_read_timeout, limits.idle_timeout));
        let service = TowerToHyperService::new(router.clone().map_request(|req: Request<Incoming>| req.map(Body::new)));
        let connection = graceful.watch(builder.serve_connection_with_upgrades(io, service).into_owned());
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop((slot, share));
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown()).await.is_err() {
        tracing::warn!("requests still in flight after the shutdown grace period were cut");
    }
    Ok(())
}

/// Connections held by each peer: an IPv4 address, or an IPv6 address's /64 prefix (one host
/// usually holds a whole /64).
#[derive(Debug, Default)]
struct PeerCounts(std::sync::Mutex<std::collections::HashMap<IpAddr, usize>>);

/// One connection counted against its peer's share, until dropped.
#[derive(Debug)]
struct PeerShare {
    counts: Arc<PeerCounts>,
    peer: IpAddr,
}

impl PeerCounts {
    fn key(ip: IpAddr) -> IpAddr {
        match ip {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
            },
            v4 => v4,
        }
    }

    /// A share for one more connection of `ip`, or `None` when it holds `max` already.
    fn enter(self: Arc<Self>, ip: IpAddr, max: usize) -> Option<PeerShare> {
        let peer = Self::key(ip);
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let held = counts.entry(peer).or_insert(0);
        if *held >= max {
            return None;
        }
        *held += 1;
        drop(counts);
        Some(PeerShare { counts: self, peer })
    }
}

impl Drop for PeerShare {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(held) = counts.get_mut(&self.peer) {
            *held -= 1;
            if *held == 0 {
                counts.remove(&self.peer);
            }
        }
    }
}

/// A connection that fails with `TimedOut` when it waits longer than its timeout for the peer:
/// a read with nothing to read, or a write the peer does not drain. Any progress restarts the
/// clock. Until the first byte arrives the timeout is the (shorter) header-read timeout, so a
/// connection that never sends anything is closed as soon as one with half its headers.
#[derive(Debug)]
struct IdleTimeout<T> {
    inner: T,
    timeout: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl<T> IdleTimeout<T> {
    fn new(inner: T, first_byte: Duration, timeout: Duration) -> Self {
        IdleTimeout { inner, timeout, deadline: Box::pin(tokio::time::sleep(first_byte.min(timeout))) }
    }

    fn progressed(&mut self) {
        let next = tokio::time::Instant::now() + self.timeout;
        self.deadline.as_mut().reset(next);
    }

    /// `Pending`, unless the deadline has passed.
    fn waiting<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "connection idle too long"))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleTimeout<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                this.progressed();
                Poll::Ready(r)
            }
            Poll::Pending => this.waiting(cx),
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(r) => {
                this.progressed();
                Poll::Ready(r)
            }
            Poll::Pending => this.waiting(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(r) => {
                this.progressed();
                Poll::Ready(r)
            }
            Poll::Pending => this.waiting(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_holds_at_most_its_share_and_gets_it_back() {
        let counts = Arc::new(PeerCounts::default());
        let ip: IpAddr = "10.1.2.3".parse().unwrap();
        let a = counts.clone().enter(ip, 2).unwrap();
        let _b = counts.clone().enter(ip, 2).unwrap();
        assert!(counts.clone().enter(ip, 2).is_none(), "a third is refused");
        assert!(counts.clone().enter("10.1.2.4".parse().unwrap(), 2).is_some(), "another peer is not");
        drop(a);
        assert!(counts.clone().enter(ip, 2).is_some(), "a closed connection frees its share");
        let v6 = |s: &str| s.parse::<IpAddr>().unwrap();
        let _c = counts.clone().enter(v6("2001:db8:1:2::1"), 1).unwrap();
        assert!(counts.clone().enter(v6("2001:db8:1:2::ffff"), 1).is_none(), "one /64 is one peer");
        assert!(counts.clone().enter(v6("2001:db8:1:3::1"), 1).is_some());
        assert_eq!(PeerCounts::key(v6("::ffff:10.1.2.3")), ip, "a mapped IPv4 peer is that peer");
    }
}
