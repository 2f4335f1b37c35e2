//! Serving the router over TCP with limits a public service needs: a cap on open connections,
//! a deadline for a request's headers, an idle timeout on every connection and a deadline for
//! each request, then a graceful shutdown that lets requests in flight finish.
//!
//! A slow or silent client holds a connection slot for at most the header-read timeout while no
//! request of it is under way: the first bytes of a connection (the protocol's detection, an
//! HTTP/2 preface sent one byte at a time), an HTTP/1 request's headers, and an HTTP/2
//! connection with no stream open (kept alive by pings or not) all count against it; past it the
//! connection is shut down gracefully, and dropped when it has not finished closing after one
//! more header-read timeout. Between bytes of a request under way the idle timeout applies. One
//! peer address (an IPv6 peer by its /64) holds at most its share of the slots, and a connection
//! past that share is closed at once. Past the cap new connections wait in the kernel's accept
//! queue until a slot frees.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt as _;

/// Streams one HTTP/2 connection may have open at once.
pub const MAX_HTTP2_STREAMS: u32 = 64;
/// How often the server pings an HTTP/2 peer while a request of it is under way, and how long it
/// waits for the answer before it closes the connection (a peer that vanished).
pub const HTTP2_PING: (Duration, Duration) = (Duration::from_secs(30), Duration::from_secs(20));
/// The largest header block of an HTTP/2 request (hyper's own default is 16 MiB).
pub const MAX_HTTP2_HEADER_LIST: u32 = 64 * 1024;

/// Connection and request limits (the service's flags `--max-connections`,
/// `--max-connections-per-peer`, `--header-read-timeout`, `--idle-timeout`, `--request-timeout`).
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// Connections open at once; more wait to be accepted.
    pub max_connections: usize,
    /// Connections one peer address (an IPv6 peer by its /64 prefix) may hold at once; more
    /// are closed as they arrive. Behind a reverse proxy every connection comes from the
    /// proxy: set it to `max_connections` there.
    pub max_connections_per_peer: usize,
    /// Time a connection may hold its slot with no request under way: from the accept to the
    /// end of the first request's headers (the protocol's detection included), from the end of
    /// one response to the next request's headers, and while an HTTP/2 connection has no stream
    /// open.
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
            max_connections_per_peer: 64,
            header_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(180),
            request_timeout: Duration::from_secs(120),
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then waits (up to the grace period)
/// for the connections in flight. Each request carries its peer's address as
/// [`ConnectInfo<SocketAddr>`].
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
    let max_connections = u32::try_from(limits.max_connections.max(1)).unwrap_or(u32::MAX);
    let slots = Arc::new(Semaphore::new(max_connections as usize));
    let peers = Arc::new(PeerCounts::default());
    let (stop, stopping) = watch::channel(false);
    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(MAX_HTTP2_STREAMS)
        .max_header_list_size(MAX_HTTP2_HEADER_LIST)
        .keep_alive_interval(HTTP2_PING.0)
        .keep_alive_timeout(HTTP2_PING.1);
    let builder = Arc::new(builder);
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
        let (builder, router, stopping) = (builder.clone(), router.clone(), stopping.clone());
        tokio::spawn(async move {
            serve_connection(&builder, io, router, peer, limits.header_read_timeout, stopping).await;
            drop((slot, share));
        });
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection gives its slot back when it ends.
    if tokio::time::timeout(limits.shutdown_grace, slots.acquire_many(max_connections)).await.is_err() {
        tracing::warn!("requests still in flight after the shutdown grace period were cut");
    }
    Ok(())
}

/// Serves one connection until it ends. With no request under way for `header_timeout` (see
/// [`HttpLimits::header_read_timeout`]), or once the service stops, it is shut down gracefully
/// (an HTTP/2 GOAWAY; the protocol's detection cancelled); a connection that has not finished
/// closing after a further `header_timeout` with no request under way is dropped.
async fn serve_connection<I>(
    builder: &Builder<TokioExecutor>,
    io: TokioIo<I>,
    router: Router,
    peer: SocketAddr,
    header_timeout: Duration,
    mut stopping: watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let activity = Arc::new(Activity::default());
    let counted = activity.clone();
    let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        req.extensions_mut().insert(ConnectInfo(peer));
        let under_way = counted.begin();
        let answer = router.clone().oneshot(req.map(Body::new));
        async move {
            let res = answer.await?;
            Ok::<_, Infallible>(res.map(|body| Counted { body, _under_way: under_way }))
        }
    });
    let mut connection = std::pin::pin!(builder.serve_connection_with_upgrades(io, service));
    let mut idle = Box::pin(activity.clone().idle_for(header_timeout));
    let mut closing = false;
    loop {
        tokio::select! {
            ended = connection.as_mut() => {
                if let Err(e) = ended {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            _ = stopping.changed(), if !closing => {
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
            () = &mut idle => {
                if closing {
                    tracing::debug!(%peer, "connection dropped: it did not finish closing");
                    return;
                }
                tracing::debug!(%peer, "connection closed: no request under way for the header-read timeout");
                connection.as_mut().graceful_shutdown();
                closing = true;
                idle = Box::pin(activity.clone().idle_for(header_timeout));
            }
        }
    }
}

/// The requests under way on one connection: from the call of the service to the end (or drop)
/// of the response's body.
#[derive(Debug, Default)]
struct Activity(watch::Sender<usize>);

/// One request under way, until dropped.
#[derive(Debug)]
struct UnderWay(Arc<Activity>);

impl Activity {
    fn begin(self: &Arc<Self>) -> UnderWay {
        self.0.send_modify(|n| *n += 1);
        UnderWay(self.clone())
    }

    /// Completes once no request has been under way for `time`.
    async fn idle_for(self: Arc<Self>, time: Duration) {
        let mut under_way = self.0.subscribe();
        loop {
            // The sender lives in `self`: neither wait can fail.
            let _ = under_way.wait_for(|n| *n == 0).await;
            if tokio::time::timeout(time, under_way.changed()).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for UnderWay {
    fn drop(&mut self) {
        self.0.0.send_modify(|n| *n -= 1);
    }
}

/// A response body that counts its request as under way until it is sent or dropped.
#[derive(Debug)]
struct Counted {
    body: Body,
    _under_way: UnderWay,
}

impl hyper::body::Body for Counted {
    type Data = <Body as hyper::body::Body>::Data;
    type Error = <Body as hyper::body::Body>::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
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

/// The peer an address counts as: an IPv4 address (an IPv4-mapped IPv6 address as that IPv4
/// address), or an IPv6 address's /64 prefix (one host usually holds a whole /64).
pub fn peer_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
        v4 => v4,
    }
}

impl PeerCounts {
    /// A share for one more connection of `ip`, or `None` when it holds `max` already.
    fn enter(self: Arc<Self>, ip: IpAddr, max: usize) -> Option<PeerShare> {
        let peer = peer_of(ip);
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

/// The largest allocation glibc's malloc may serve from (and keep in) a thread's arena:
/// anything larger is its own mapping, returned to the system when freed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 4 << 20;

/// Makes glibc give large freed blocks back to the system. By default its mmap threshold grows
/// to the size of the largest block freed, after which such blocks come from the per-thread
/// arenas and stay there: every blocking thread that ran an argon2id check (19 MiB) kept that
/// much, and 3,000 failed sign-ins left the process at 622 MiB resident instead of 51
/// (`scripts/signin-flood.py`, docs/operations.md). A fixed threshold keeps them mappings.
pub fn return_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes malloc's tuning; it is called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Completes on SIGINT or SIGTERM. The handlers are installed when this is called, not when the
/// future is first polled, so a signal that arrives right after "listening on" is not lost.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut i), Ok(mut t)) => {
                    tokio::select! { _ = i.recv() => {}, _ = t.recv() => {} }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
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
        assert_eq!(peer_of(v6("::ffff:10.1.2.3")), ip, "a mapped IPv4 peer is that peer");
    }
}
