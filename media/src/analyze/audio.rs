//! The audio side of the pass: a second ffmpeg decodes the audio track to 16 kHz mono samples,
//! read on a thread and pushed, chunk by chunk, into an [`AudioSink`], the audio counterpart of
//! the frame sink ([`crate::vision::FrameSink`]). The loudness timeline, the voice activity
//! detector, the sound tagger, the fingerprint and the audio kept for transcription each take
//! every chunk ([`Listeners`] holds them all), so the audio is decoded once whatever measures it.

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use kino::report;
use kino::signals::AudioFingerprint;
use kino_models::{SileroVad, SoundEvents, SoundTagger};

use crate::error::{Error, Result};
use crate::fingerprint::AudioHasher;
use crate::speech::{SAMPLE_RATE, SpeechDetector, SpeechParams};
use crate::spilled::{AudioSpill, SpilledAudio};
use crate::tool::{self, Stream};

/// One chunk of the decoded audio (16 kHz mono), in the three forms its consumers read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Samples<'a> {
    /// As decoded, 16-bit.
    pub raw: &'a [i16],
    /// Scaled to `[-1, 1]`.
    pub double: &'a [f64],
    /// The same in single precision (what the models take).
    pub single: &'a [f32],
}

/// What consumes the decoded audio, in order, on the audio thread.
pub(crate) trait AudioSink: Send + 'static {
    /// What it gives when the stream has ended.
    type Output: Send + 'static;
    /// The next chunk of the stream.
    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()>;
    /// Ends the stream.
    fn finish(self) -> io::Result<Self::Output>;
}

/// A consumer that may be absent: it takes nothing and gives nothing.
impl<S: AudioSink> AudioSink for Option<S> {
    type Output = Option<S::Output>;

    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()> {
        match self {
            Some(sink) => sink.push(samples),
            None => Ok(()),
        }
    }

    fn finish(self) -> io::Result<Self::Output> {
        self.map(AudioSink::finish).transpose()
    }
}

/// Loudness (dBFS) per timeline sample: the mean square of the samples in each step.
#[derive(Debug)]
pub(crate) struct Loudness {
    /// The sum of squares and the number of samples in each step.
    energy: Vec<(f64, u64)>,
    per_sample: f64,
    count: u64,
}

impl Loudness {
    /// `n` timeline samples every `step` seconds (at least one).
    pub(crate) fn new(step: f64, n: usize) -> Loudness {
        Loudness { energy: vec![(0.0, 0); n.max(1)], per_sample: step * f64::from(SAMPLE_RATE), count: 0 }
    }
}

impl AudioSink for Loudness {
    type Output = Vec<f64>;

    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()> {
        let last = self.energy.len() - 1;
        for &x in samples.double {
            let i = ((self.count as f64 / self.per_sample) as usize).min(last);
            self.energy[i].0 += x * x;
            self.energy[i].1 += 1;
            self.count += 1;
        }
        Ok(())
    }

    fn finish(self) -> io::Result<Vec<f64>> {
        Ok(self.energy.iter().map(|&(sum, k)| 10.0 * (sum / k.max(1) as f64 + 1e-10).log10()).collect())
    }
}

/// Voice activity: the Silero VAD when it is loaded, else the spectral detector.
#[derive(Debug)]
pub(crate) enum Voice {
    /// The neural detector.
    Silero(SileroVad),
    /// The spectral detector ([`crate::speech`]).
    Spectral(SpeechDetector),
}

impl Voice {
    /// The neural detector when given, else the spectral one with `params`.
    pub(crate) fn new(vad: Option<SileroVad>, params: SpeechParams) -> Voice {
        match vad {
            Some(vad) => Voice::Silero(vad),
            None => Voice::Spectral(SpeechDetector::new(params)),
        }
    }
}

impl AudioSink for Voice {
    /// The speech intervals, and the neural detector (reset) for another stream.
    type Output = (Vec<[f64; 2]>, Option<SileroVad>);

    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()> {
        match self {
            Voice::Silero(vad) => vad.push(samples.single).map_err(io::Error::other),
            Voice::Spectral(detector) => {
                detector.push(samples.double);
                Ok(())
            }
        }
    }

    fn finish(self) -> io::Result<Self::Output> {
        match self {
            Voice::Silero(mut vad) => {
                let speech = vad.finish().map_err(io::Error::other)?;
                Ok((speech.segments, Some(vad)))
            }
            Voice::Spectral(detector) => Ok((detector.finish(), None)),
        }
    }
}

impl AudioSink for SoundTagger {
    /// The sound events, and the tagger (reset) for another stream.
    type Output = (SoundEvents, SoundTagger);

    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()> {
        SoundTagger::push(self, samples.single).map_err(io::Error::other)
    }

    fn finish(mut self) -> io::Result<Self::Output> {
        let events = SoundTagger::finish(&mut self).map_err(io::Error::other)?;
        Ok((events, self))
    }
}

impl AudioSink for AudioHasher {
    type Output = AudioFingerprint;

    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()> {
        AudioHasher::push(self, samples.single);
        Ok(())
    }

    fn finish(self) -> io::Result<AudioFingerprint> {
        Ok(AudioHasher::finish(self))
    }
}

impl AudioSink for AudioSpill {
    type Output = SpilledAudio;

    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()> {
        AudioSpill::push(self, samples.raw)
    }

    fn finish(self) -> io::Result<SpilledAudio> {
        AudioSpill::finish(self)
    }
}

/// Everything that listens to an analysis' audio.
#[derive(Debug)]
pub(crate) struct Listeners {
    /// The samples kept for transcription (when the recogniser is to run).
    pub kept: Option<AudioSpill>,
    pub voice: Voice,
    pub tagger: Option<SoundTagger>,
    pub fingerprint: AudioHasher,
    pub loudness: Loudness,
    /// The media's duration: speech is reported inside it.
    pub duration: f64,
}

/// What the audio measured: speech intervals (on the report grid, inside the media), loudness
/// (dBFS) per timeline sample, the sound events when the tagger ran, the samples when they were
/// kept, and the fingerprint; and the stream models, reset, for another analysis.
#[derive(Debug)]
pub(crate) struct Heard {
    pub speech: Vec<[f64; 2]>,
    pub loudness: Vec<f64>,
    pub sounds: Option<SoundEvents>,
    pub kept: Option<SpilledAudio>,
    pub fingerprint: AudioFingerprint,
    pub vad: Option<SileroVad>,
    pub tagger: Option<SoundTagger>,
}

impl Heard {
    /// What a video without audio gives: no speech, silence on each of the `n` samples, and no
    /// fingerprint.
    pub(crate) fn silence(n: usize) -> Heard {
        Heard {
            speech: Vec::new(),
            loudness: vec![-100.0; n],
            sounds: None,
            kept: None,
            fingerprint: AudioFingerprint { hop: 0.1, hashes: Vec::new() },
            vad: None,
            tagger: None,
        }
    }
}

impl AudioSink for Listeners {
    type Output = Heard;

    fn push(&mut self, samples: &Samples<'_>) -> io::Result<()> {
        self.loudness.push(samples)?;
        self.kept.push(samples)?;
        self.voice.push(samples)?;
        self.tagger.push(samples)?;
        AudioSink::push(&mut self.fingerprint, samples)
    }

    fn finish(self) -> io::Result<Heard> {
        let loudness = self.loudness.finish()?;
        let (speech, vad) = self.voice.finish()?;
        let (sounds, tagger) = self.tagger.finish()?.unzip();
        let kept = self.kept.finish()?;
        let fingerprint = AudioSink::finish(self.fingerprint)?;
        let duration = self.duration;
        let speech = speech
            .into_iter()
            .filter_map(|[a, b]| {
                let (a, b) = (report::time(a).max(0.0), report::time(b).min(duration));
                (a < b).then_some([a, b])
            })
            .collect();
        Ok(Heard { speech, loudness, sounds, kept, fingerprint, vad, tagger })
    }
}

/// The audio side: a second ffmpeg process read on its own thread into a sink.
#[derive(Debug)]
pub(crate) struct AudioJob<S: AudioSink> {
    stream: Stream,
    thread: std::thread::JoinHandle<io::Result<S::Output>>,
}

/// Starts decoding the first audio stream of `path` into `sink`.
pub(crate) fn spawn<S: AudioSink>(path: &Path, mut sink: S) -> Result<AudioJob<S>> {
    let mut cmd = tool::command("ffmpeg");
    tool::input(&mut cmd, path, tool::MEDIA_FORMATS)
        .args(["-map", "0:a:0", "-vn", "-sn", "-dn", "-ac", "1", "-ar", &SAMPLE_RATE.to_string()])
        .args(["-f", "s16le", "-acodec", "pcm_s16le", "pipe:1"]);
    let (stream, mut stdout) = Stream::spawn("ffmpeg", cmd, path)?;
    let waiter = std::thread::current();
    let thread = std::thread::spawn(move || {
        // Wakes `AudioJob::join` at once, whatever the outcome.
        let _wake = Unpark(waiter);
        let mut buf = vec![0u8; 8192];
        let mut raw: Vec<i16> = Vec::with_capacity(4096);
        let mut double: Vec<f64> = Vec::with_capacity(4096);
        let mut single: Vec<f32> = Vec::with_capacity(4096);
        let mut carry: Option<u8> = None;
        loop {
            let got = stdout.read(&mut buf)?;
            if got == 0 {
                break;
            }
            raw.clear();
            double.clear();
            single.clear();
            let mut bytes = buf[..got].iter().copied();
            let mut pending = carry.take();
            while let Some(lo) = pending.take().or_else(|| bytes.next()) {
                let Some(hi) = bytes.next() else {
                    carry = Some(lo);
                    break;
                };
                let sample = i16::from_le_bytes([lo, hi]);
                let x = f64::from(sample) / 32768.0;
                raw.push(sample);
                double.push(x);
                single.push(x as f32);
            }
            sink.push(&Samples { raw: &raw, double: &double, single: &single })?;
        }
        sink.finish()
    });
    Ok(AudioJob { stream, thread })
}

/// Unparks a thread when dropped.
struct Unpark(std::thread::Thread);

impl Drop for Unpark {
    fn drop(&mut self) {
        self.0.unpark();
    }
}

/// How often a wait for the audio thread looks at the interrupt flag (a signal handler cannot
/// wake a thread; the audio thread itself wakes the waiter when it ends).
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

impl<S: AudioSink> AudioJob<S> {
    /// Waits for the audio side (on the thread that spawned it); dropping the job on an interrupt
    /// kills its ffmpeg.
    pub(crate) fn join(self, path: &Path, interrupted: &AtomicBool) -> Result<S::Output> {
        while !self.thread.is_finished() {
            if interrupted.load(Ordering::Relaxed) {
                return Err(Error::Interrupted { path: path.to_path_buf(), signal: None });
            }
            std::thread::park_timeout(INTERRUPT_POLL);
        }
        let result = self.thread.join().map_err(|_| Error::io(path, io::Error::other("audio reader panicked")))?;
        self.stream.finish()?;
        result.map_err(|e| Error::io(path, e))
    }
}
