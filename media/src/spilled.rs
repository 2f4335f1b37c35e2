//! The audio an analysis keeps for transcription, spilled to an unnamed temporary file instead of
//! memory: 16-bit samples at 16 kHz are 115 MB an hour, which made an analysis's peak memory grow
//! with the title's length. Whisper then reads only the speech windows back, a window at a time.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

use kino_models::Samples;

/// Writes samples to the temporary file as they are decoded.
#[derive(Debug)]
pub(crate) struct AudioSpill {
    out: BufWriter<File>,
    count: usize,
    bytes: Vec<u8>,
}

impl AudioSpill {
    /// A new spill in the system's temporary directory (`TMPDIR`); the file has no name and goes
    /// when it is closed, whatever happens.
    pub(crate) fn new() -> io::Result<AudioSpill> {
        Ok(AudioSpill { out: BufWriter::with_capacity(1 << 16, tempfile::tempfile()?), count: 0, bytes: Vec::new() })
    }

    /// Appends samples.
    pub(crate) fn push(&mut self, samples: &[i16]) -> io::Result<()> {
        self.bytes.clear();
        self.bytes.extend(samples.iter().flat_map(|s| s.to_le_bytes()));
        self.count += samples.len();
        self.out.write_all(&self.bytes)
    }

    /// The samples written, to read back.
    pub(crate) fn finish(self) -> io::Result<SpilledAudio> {
        let file = self.out.into_inner().map_err(io::IntoInnerError::into_error)?;
        Ok(SpilledAudio { file: RefCell::new(file), count: self.count, failed: RefCell::new(None) })
    }
}

/// Samples read back from a spill by range ([`Samples`] for Whisper). A read that fails gives
/// silence and keeps the error for [`SpilledAudio::check`].
#[derive(Debug)]
pub(crate) struct SpilledAudio {
    file: RefCell<File>,
    count: usize,
    failed: RefCell<Option<io::Error>>,
}

impl SpilledAudio {
    /// The first read error, if any read failed.
    pub(crate) fn check(&self) -> io::Result<()> {
        match self.failed.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn read(&self, range: std::ops::Range<usize>, out: &mut Vec<f32>) -> io::Result<()> {
        let mut file = self.file.borrow_mut();
        file.seek(SeekFrom::Start(2 * range.start as u64))?;
        let mut bytes = vec![0u8; 2 * range.len()];
        file.read_exact(&mut bytes)?;
        out.extend(bytes.chunks_exact(2).map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0));
        Ok(())
    }
}

impl Samples for SpilledAudio {
    fn sample_count(&self) -> usize {
        self.count
    }

    fn extend_f32(&self, range: std::ops::Range<usize>, out: &mut Vec<f32>) {
        let range = range.start.min(self.count)..range.end.min(self.count);
        let before = out.len();
        if let Err(e) = self.read(range.clone(), out) {
            out.truncate(before);
            out.resize(before + range.len(), 0.0);
            self.failed.borrow_mut().get_or_insert(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_read_back_as_they_were_written() {
        let samples: Vec<i16> = (0..100_000).map(|i| ((i * 37) % 65_536 - 32_768) as i16).collect();
        let mut spill = AudioSpill::new().unwrap();
        for chunk in samples.chunks(4093) {
            spill.push(chunk).unwrap();
        }
        let back = spill.finish().unwrap();
        assert_eq!(back.sample_count(), samples.len());
        for range in [0..10, 4090..4100, 99_990..100_000, 50_000..50_000, 99_995..100_100] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            back.extend_f32(range.clone(), &mut a);
            samples.as_slice().extend_f32(range.start.min(100_000)..range.end.min(100_000), &mut b);
            assert_eq!(a, b, "{range:?}");
        }
        back.check().unwrap();
    }
}
