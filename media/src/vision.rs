//! The sampled-frame stream: the analysis' ffmpeg decodes the video once and writes, besides the
//! small frames every detector reads, larger frames at a low rate (one every
//! [`AnalyzeOptions::vision_interval`](crate::AnalyzeOptions) seconds) to a second pipe. A reader
//! thread takes them off the pipe into a few recycled buffers, and a worker thread hands each to a
//! [`FrameSink`] (the vision models), so decoding and the models overlap and memory stays at a few
//! frames whatever the length of the film.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use kino_models::RgbFrame;

/// Width of the sampled frames in pixels (height by aspect ratio, even).
pub const VISION_WIDTH: u32 = 640;

/// Frames in flight between the pipe and the models.
const IN_FLIGHT: usize = 3;

/// A frame's number in the stream and its pixels.
type Numbered = (usize, Vec<u8>);

/// What consumes the sampled frames, in order.
pub(crate) trait FrameSink: Send + 'static {
    /// One frame taken at `time` seconds.
    fn frame(&mut self, time: f64, frame: RgbFrame<'_>) -> io::Result<()>;
}

/// The two threads of the stream; [`VisionJob::join`] returns the sink with what it gathered.
pub(crate) struct VisionJob<S: FrameSink> {
    reader: JoinHandle<io::Result<usize>>,
    worker: JoinHandle<io::Result<S>>,
}

impl<S: FrameSink> std::fmt::Debug for VisionJob<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VisionJob")
    }
}

/// Starts reading `pipe` (frames of `width x height` RGB24, one every `interval` seconds from 0)
/// into `sink`.
pub(crate) fn spawn<S: FrameSink>(
    mut pipe: impl Read + Send + 'static,
    width: usize,
    height: usize,
    interval: f64,
    mut sink: S,
) -> VisionJob<S> {
    let (full_tx, full_rx): (SyncSender<Numbered>, Receiver<Numbered>) = sync_channel(IN_FLIGHT);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(IN_FLIGHT);
    for _ in 0..IN_FLIGHT {
        let _ = empty_tx.send(vec![0u8; width * height * 3]);
    }
    let reader = std::thread::spawn(move || {
        let mut n = 0usize;
        loop {
            // A buffer back from the worker, or a new one if the worker has stopped taking them.
            let mut buf = empty_rx.recv().unwrap_or_else(|_| vec![0u8; width * height * 3]);
            if !crate::tool::read_chunk(&mut pipe, &mut buf)? {
                return Ok(n);
            }
            if full_tx.send((n, buf)).is_err() {
                // The worker failed: drain the pipe so ffmpeg is not blocked, and stop counting.
                let mut sink = io::sink();
                io::copy(&mut pipe, &mut sink)?;
                return Ok(n);
            }
            n += 1;
        }
    });
    let worker = std::thread::spawn(move || {
        for (n, buf) in full_rx {
            let frame = RgbFrame { width, height, data: &buf };
            sink.frame(n as f64 * interval, frame)?;
            let _ = empty_tx.send(buf);
        }
        Ok(sink)
    });
    VisionJob { reader, worker }
}

impl<S: FrameSink> VisionJob<S> {
    /// Waits for both threads (after ffmpeg has exited, so the pipe has ended) and returns the
    /// sink and the number of frames read.
    pub(crate) fn join(self) -> io::Result<(S, usize)> {
        let frames = self.reader.join().map_err(|_| io::Error::other("the frame reader panicked"))??;
        let sink = self.worker.join().map_err(|_| io::Error::other("the vision worker panicked"))??;
        Ok((sink, frames))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    struct Count(Vec<(f64, u8)>);

    impl FrameSink for Count {
        fn frame(&mut self, time: f64, frame: RgbFrame<'_>) -> io::Result<()> {
            self.0.push((time, frame.data[0]));
            Ok(())
        }
    }

    #[test]
    fn frames_flow_in_order_through_recycled_buffers() {
        let (w, h) = (4usize, 2usize);
        let bytes: Vec<u8> = (0..10u8).flat_map(|i| std::iter::repeat_n(i, w * h * 3)).collect();
        let job = spawn(io::Cursor::new(bytes), w, h, 0.5, Count(Vec::new()));
        let (sink, frames) = job.join().unwrap();
        assert_eq!(frames, 10);
        assert_eq!(sink.0, (0..10u8).map(|i| (f64::from(i) * 0.5, i)).collect::<Vec<_>>());
    }

    #[derive(Debug)]
    struct Fails;

    impl FrameSink for Fails {
        fn frame(&mut self, time: f64, _: RgbFrame<'_>) -> io::Result<()> {
            if time > 1.0 { Err(io::Error::other("model failed")) } else { Ok(()) }
        }
    }

    #[test]
    fn a_failing_sink_is_an_error_and_the_pipe_is_drained() {
        let bytes = vec![7u8; 3 * 100];
        let job = spawn(io::Cursor::new(bytes), 1, 1, 1.0, Fails);
        let err = job.join().unwrap_err();
        assert!(err.to_string().contains("model failed"), "{err}");
    }
}
