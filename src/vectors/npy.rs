//! Reading and writing 2-D `float32` NumPy `.npy` files, the vector exchange format of the CLI,
//! the report program and `scripts/compare_ann.py`.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

fn bad(path: &Path, rule: impl Into<String>) -> Error {
    Error::IndexFile {
        path: path.to_path_buf(),
        rule: format!("not a 2-D little-endian float32 .npy file: {}", rule.into()),
    }
}

/// Reads a 2-D `<f4` C-order array: returns `(rows, dim, values)`.
pub fn read_f32(path: impl AsRef<Path>) -> Result<(usize, usize, Vec<f32>)> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if bytes.len() < 10 || !bytes.starts_with(NPY_MAGIC) {
        return Err(bad(path, "no \\x93NUMPY magic"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(bad(path, format!("unsupported .npy version {v}"))),
    };
    let header = bytes.get(start..start + header_len).ok_or_else(|| bad(path, "truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad(path, "header is not text"))?;
    if !header.contains("'descr': '<f4'") {
        return Err(bad(path, "dtype is not '<f4'"));
    }
    if !header.contains("'fortran_order': False") {
        return Err(bad(path, "Fortran order is not supported"));
    }
    let shape = header
        .split("'shape':")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .map(|s| s.trim().trim_start_matches('('))
        .ok_or_else(|| bad(path, "no shape"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| bad(path, format!("bad shape {shape:?}"))))
        .collect::<Result<_>>()?;
    let &[rows, dim] = dims.as_slice() else {
        return Err(bad(path, format!("shape ({shape}) is not 2-D")));
    };
    let data = &bytes[start + header_len..];
    let expected = rows.checked_mul(dim).and_then(|c| c.checked_mul(4)).ok_or_else(|| bad(path, "shape overflows"))?;
    if data.len() != expected {
        return Err(bad(path, format!("shape ({rows}, {dim}) needs {expected} data bytes, found {}", data.len())));
    }
    let values = data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Ok((rows, dim, values))
}

/// Writes `values` (row-major, `dim` per row) as a 2-D `<f4` array.
pub fn write_f32(path: impl AsRef<Path>, dim: usize, values: &[f32]) -> Result<()> {
    let path = path.as_ref();
    if dim == 0 || values.len() % dim != 0 {
        return Err(Error::WrongVectorDimension {
            what: "npy rows (length must be a multiple of dim)",
            expected: dim,
            received: values.len() % dim.max(1),
        });
    }
    let mut header =
        format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", values.len() / dim, dim);
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + values.len() * 4);
    out.extend_from_slice(NPY_MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    let mut file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    file.write_all(&out).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.npy");
        write_f32(&path, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.5]).unwrap();
        assert_eq!(read_f32(&path).unwrap(), (2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5]));
        std::fs::write(&path, b"\x93NUMPY\x01\x00\x05\x00{}   ").unwrap();
        assert!(read_f32(&path).is_err());
        std::fs::write(&path, b"hello").unwrap();
        assert!(read_f32(&path).is_err());
    }
}
