//! Reads a CTranslate2 model file (`model.bin`, binary format version 6) into named tensors.
//!
//! The layout: `u32` format version, the spec name (`u16` length with a trailing NUL), `u32` spec
//! revision, `u32` variable count, then per variable its name, `u8` rank, `u32` dimensions,
//! `u8` data type, `u32` byte count and the bytes (little endian); last the aliases (`u32` count,
//! then name and target). Float16 and float32 variables become float32 tensors; scalar
//! configuration variables (int8/int16 flags) are kept as raw integers.

use std::collections::HashMap;
use std::io::Read;

use candle_core::{Device, Tensor};

/// What the file holds.
#[derive(Debug)]
pub(crate) struct Ct2Model {
    /// The spec's name, e.g. `WhisperSpec`.
    pub spec: String,
    /// Floating-point variables, as float32.
    pub tensors: HashMap<String, Tensor>,
    /// Integer variables (flags and head counts), flattened.
    pub ints: HashMap<String, Vec<i64>>,
}

/// Parses the whole of `reader`; `what` names the file in errors.
pub(crate) fn read(mut reader: impl Read, what: &str) -> Result<Ct2Model, String> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(|e| format!("{what}: {e}"))?;
    parse(&bytes, what)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'a str,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| {
            format!("{}: truncated at byte {} (wanted {n} more of {})", self.what, self.at, self.bytes.len())
        })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn string(&mut self) -> Result<String, String> {
        let n = self.u16()? as usize;
        let raw = self.take(n)?;
        let raw = raw.strip_suffix(&[0]).unwrap_or(raw);
        String::from_utf8(raw.to_vec()).map_err(|_| format!("{}: a name is not UTF-8", self.what))
    }
}

fn parse(bytes: &[u8], what: &str) -> Result<Ct2Model, String> {
    let mut c = Cursor { bytes, at: 0, what };
    let version = c.u32()?;
    if version != 6 {
        return Err(format!("{what}: CTranslate2 binary format {version}; this reader knows format 6"));
    }
    let spec = c.string()?;
    let _revision = c.u32()?;
    let count = c.u32()? as usize;
    let mut tensors = HashMap::new();
    let mut ints = HashMap::new();
    for _ in 0..count {
        let name = c.string()?;
        let rank = c.u8()? as usize;
        let dims = (0..rank).map(|_| c.u32().map(|d| d as usize)).collect::<Result<Vec<_>, _>>()?;
        let dtype = c.u8()?;
        let size = c.u32()? as usize;
        let data = c.take(size)?;
        let elements: usize = dims.iter().product();
        // CTranslate2's DataType: 0 float32, 1 int8, 2 int16, 3 int32, 4 float16, 5 bfloat16.
        let width = match dtype {
            0 | 3 => 4,
            1 => 1,
            2 | 4 | 5 => 2,
            other => return Err(format!("{what}: variable {name} has unknown data type {other}")),
        };
        if elements * width != size {
            return Err(format!("{what}: variable {name} has {size} bytes for {elements} elements of {width}"));
        }
        let floats: Option<Vec<f32>> = match dtype {
            0 => Some(data.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4"))).collect()),
            4 => Some(data.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect()),
            5 => Some(data.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect()),
            _ => None,
        };
        match floats {
            Some(v) => {
                let shape = if dims.is_empty() { vec![1] } else { dims };
                let t = Tensor::from_vec(v, shape, &Device::Cpu).map_err(|e| format!("{what}: {name}: {e}"))?;
                tensors.insert(name, t);
            }
            None => {
                let v = match dtype {
                    1 => data.iter().map(|&b| b as i8 as i64).collect(),
                    2 => data.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]) as i64).collect(),
                    _ => data.chunks_exact(4).map(|b| i32::from_le_bytes(b.try_into().expect("4")) as i64).collect(),
                };
                ints.insert(name, v);
            }
        }
    }
    let aliases = c.u32()? as usize;
    for _ in 0..aliases {
        let name = c.string()?;
        let target = c.string()?;
        if let Some(t) = tensors.get(&target).cloned() {
            tensors.insert(name, t);
        }
    }
    Ok(Ct2Model { spec, tensors, ints })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&((s.len() + 1) as u16).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }

    #[test]
    fn reads_float16_tensors_flags_and_aliases() {
        let mut b = Vec::new();
        b.extend_from_slice(&6u32.to_le_bytes());
        name(&mut b, "WhisperSpec");
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        name(&mut b, "w");
        b.push(2);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&2u32.to_le_bytes());
        b.push(4);
        b.extend_from_slice(&4u32.to_le_bytes());
        for x in [1.5f32, -2.0] {
            b.extend_from_slice(&half::f16::from_f32(x).to_le_bytes());
        }
        name(&mut b, "flag");
        b.push(0);
        b.push(1);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.push(1);
        b.extend_from_slice(&1u32.to_le_bytes());
        name(&mut b, "alias");
        name(&mut b, "w");
        let m = parse(&b, "test").unwrap();
        assert_eq!(m.spec, "WhisperSpec");
        assert_eq!(m.tensors["w"].dims(), &[1, 2]);
        assert_eq!(m.tensors["alias"].flatten_all().unwrap().to_vec1::<f32>().unwrap(), vec![1.5, -2.0]);
        assert_eq!(m.ints["flag"], vec![1]);
        assert!(parse(&b[..b.len() - 3], "test").unwrap_err().contains("truncated"));
        let mut v5 = b.clone();
        v5[0] = 5;
        assert!(parse(&v5, "test").unwrap_err().contains("format 5"));
    }
}
