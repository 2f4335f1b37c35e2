//! PyTorch's legacy serialisation (the format of `torch.save` before 1.6), which the
//! EfficientNet-Lite0 package ships: five pickles one after another (a magic number, the protocol
//! version, the machine's sizes, the state dict, the list of storage keys), then each storage's
//! raw bytes, in the order of that list, after its element count (a little-endian `i64`).
//!
//! A tensor is a view on its storage: an offset, a shape and strides. The file stores
//! EfficientNet-Lite0's weights in TensorFlow's memory order behind PyTorch-shaped views (the stem
//! kernel has shape `[32, 3, 3, 3]` and strides `[1, 32, 288, 96]`), so every tensor is read
//! through its strides into a contiguous row-major copy. The pickles are parsed by candle's
//! pickle machine, which knows every opcode these files use.

use std::collections::BTreeMap;
use std::io::{BufRead, Cursor, Read};

use candle_core::pickle::{Object, Stack};

/// A tensor read from the file: its shape and its values, contiguous in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PthTensor {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// `torch.save`'s magic number pickle: protocol 2, `LONG1` of 10 bytes
/// (0x1950a86a20f9469cfc6c), `STOP`.
const MAGIC: [u8; 15] = [0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e];

/// The protocol version of the legacy format.
const PROTOCOL_VERSION: i64 = 1001;

/// Where a tensor's values are: its storage, the view's offset, shape and strides.
#[derive(Debug)]
struct View {
    storage: String,
    offset: usize,
    shape: Vec<usize>,
    strides: Vec<usize>,
}

/// Reads every floating-point tensor of a legacy `.pth` file by name (integer tensors, such as
/// batch norm's `num_batches_tracked`, are left out).
pub(crate) fn read_legacy(bytes: &[u8]) -> Result<BTreeMap<String, PthTensor>, String> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err("not a legacy PyTorch file (no torch.save magic number)".into());
    }
    let mut r = Cursor::new(&bytes[MAGIC.len()..]);
    match pickle(&mut r)? {
        Object::Int(v) if i64::from(v) == PROTOCOL_VERSION => {}
        Object::Long(v) if v == PROTOCOL_VERSION => {}
        other => return Err(format!("unsupported protocol version {other:?}")),
    }
    pickle(&mut r)?; // the machine's sizes (little-endian with 4-byte longs, as the data below)
    let state = pickle(&mut r)?;
    let keys: Vec<String> = match pickle(&mut r)? {
        Object::List(keys) | Object::Tuple(keys) => {
            keys.into_iter().map(|k| String::try_from(k).map_err(|k| format!("storage key {k:?}"))).collect()
        }
        other => Err(format!("expected the list of storage keys, found {other:?}")),
    }?;
    let mut storages: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    for key in keys {
        let mut count = [0u8; 8];
        r.read_exact(&mut count).map_err(|e| format!("storage {key}: {e}"))?;
        let count = usize::try_from(i64::from_le_bytes(count)).map_err(|_| format!("storage {key}: negative size"))?;
        // Element sizes are known only from the tensors' storage types; this file's float
        // storages are 4 bytes an element and its integer ones 8 (`num_batches_tracked`).
        let size = element_size(&state, &key).unwrap_or(4);
        let mut raw = vec![0u8; count.checked_mul(size).ok_or("storage too large")?];
        r.read_exact(&mut raw).map_err(|e| format!("storage {key}: {e}"))?;
        if size == 4 {
            storages.insert(key, raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect());
        }
    }
    let mut out = BTreeMap::new();
    for (name, value) in dict(state)? {
        let Ok(name) = String::try_from(name) else { continue };
        let Some(view) = view(value)? else { continue };
        let Some(storage) = storages.get(&view.storage) else { continue };
        out.insert(name.clone(), gather(storage, &view).map_err(|e| format!("{name}: {e}"))?);
    }
    Ok(out)
}

fn pickle(r: &mut impl BufRead) -> Result<Object, String> {
    let mut stack = Stack::empty();
    stack.read_loop(r).map_err(|e| e.to_string())?;
    stack.finalize().map_err(|e| e.to_string())
}

/// The entries of the state dict (an `OrderedDict`, read as a dict).
fn dict(state: Object) -> Result<Vec<(Object, Object)>, String> {
    match state {
        Object::Dict(entries) => Ok(entries),
        Object::Build { callable, .. } => dict(*callable),
        other => Err(format!("expected a state dict, found {other:?}")),
    }
}

/// The element size of storage `key`, from the storage type of a tensor that uses it.
fn element_size(state: &Object, key: &str) -> Option<usize> {
    let Object::Dict(entries) = state else { return None };
    entries.iter().find_map(|(_, v)| {
        let (storage_type, k) = persistent(v)?;
        let size = match storage_type.as_str() {
            "FloatStorage" | "IntStorage" => 4,
            "LongStorage" | "DoubleStorage" => 8,
            "HalfStorage" | "BFloat16Storage" | "ShortStorage" => 2,
            _ => 1,
        };
        (k == key).then_some(size)
    })
}

/// The storage type and key a tensor's `_rebuild_tensor_v2` call refers to.
fn persistent(value: &Object) -> Option<(String, String)> {
    let Object::Reduce { args, .. } = value else { return None };
    let Object::Tuple(args) = args.as_ref() else { return None };
    let Object::PersistentLoad(id) = args.first()? else { return None };
    let Object::Tuple(id) = id.as_ref() else { return None };
    // ('storage', storage_type, key, location, size)
    let storage_type = match id.get(1)? {
        Object::Class { class_name, .. } => class_name.clone(),
        _ => return None,
    };
    let key = String::try_from(id.get(2)?.clone()).ok()?;
    Some((storage_type, key))
}

/// A tensor's view, when `value` is `torch._utils._rebuild_tensor_v2(storage, offset, size,
/// stride, ...)` on a float storage; `None` for anything else.
fn view(value: Object) -> Result<Option<View>, String> {
    let Some((storage_type, storage)) = persistent(&value) else { return Ok(None) };
    if storage_type != "FloatStorage" {
        return Ok(None);
    }
    let Object::Reduce { callable, args } = value else { return Ok(None) };
    match callable.as_ref() {
        Object::Class { module_name, class_name }
            if module_name == "torch._utils" && class_name == "_rebuild_tensor_v2" => {}
        _ => return Ok(None),
    }
    let Object::Tuple(args) = *args else { return Ok(None) };
    let number = |o: &Object| match o {
        Object::Int(v) => usize::try_from(*v).ok(),
        Object::Long(v) => usize::try_from(*v).ok(),
        _ => None,
    };
    let numbers = |o: Option<&Object>| -> Result<Vec<usize>, String> {
        match o {
            Some(Object::Tuple(v)) => v.iter().map(|x| number(x).ok_or_else(|| format!("{x:?}"))).collect(),
            other => Err(format!("expected a tuple of sizes, found {other:?}")),
        }
    };
    let offset = args.get(1).and_then(number).ok_or("a tensor without a storage offset")?;
    let shape = numbers(args.get(2))?;
    let strides = numbers(args.get(3))?;
    if shape.len() != strides.len() {
        return Err(format!("shape {shape:?} and strides {strides:?} differ in rank"));
    }
    Ok(Some(View { storage, offset, shape, strides }))
}

/// The view's values in row-major order.
fn gather(storage: &[f32], view: &View) -> Result<PthTensor, String> {
    let count: usize = view.shape.iter().product();
    let last =
        view.offset + view.shape.iter().zip(&view.strides).map(|(&n, &s)| n.saturating_sub(1) * s).sum::<usize>();
    if count > 0 && last >= storage.len() {
        return Err(format!("the view reaches element {last} of a storage of {}", storage.len()));
    }
    let mut values = Vec::with_capacity(count);
    let mut index = vec![0usize; view.shape.len()];
    for _ in 0..count {
        let at = view.offset + index.iter().zip(&view.strides).map(|(i, s)| i * s).sum::<usize>();
        values.push(storage[at]);
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < view.shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(PthTensor { shape: view.shape.clone(), values })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strided_view_is_read_in_row_major_order() {
        // A 2x3 tensor stored transposed (column-major): strides (1, 2).
        let storage = [1.0, 4.0, 2.0, 5.0, 3.0, 6.0];
        let view = View { storage: "0".into(), offset: 0, shape: vec![2, 3], strides: vec![1, 2] };
        assert_eq!(gather(&storage, &view).unwrap().values, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let past = View { storage: "0".into(), offset: 1, shape: vec![2, 3], strides: vec![1, 2] };
        assert!(gather(&storage, &past).is_err(), "a view past its storage is an error, not a panic");
        let scalar = View { storage: "0".into(), offset: 2, shape: vec![], strides: vec![] };
        assert_eq!(gather(&storage, &scalar).unwrap().values, [2.0]);
    }

    #[test]
    fn other_files_are_refused() {
        assert!(read_legacy(b"PK\x03\x04 a zip").unwrap_err().contains("magic"));
        let mut truncated = MAGIC.to_vec();
        truncated.extend_from_slice(b"\x80\x02M\xe9");
        assert!(read_legacy(&truncated).is_err());
    }
}
