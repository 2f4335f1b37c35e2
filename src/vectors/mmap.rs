//! The one module with `unsafe` code: memory-mapping index files and viewing their bytes as
//! slices of `f32`, `u32`, `u64`, `f64`, `u8` and `i8`.
//!
//! # Safety
//!
//! Two things are unsafe here, and this is why each is sound (a third, [`prefetch`], is a
//! CPU hint that cannot fault):
//!
//! 1. **Mapping a file** ([`Region::map`]). A memory map is only sound while no one changes or
//!    truncates the file under it; the operating system cannot promise that, hence
//!    `memmap2::Mmap::map` is `unsafe`. kino never writes an index file in place: writers create
//!    a temporary file and rename it over the old one, so a mapped file keeps its inode and its
//!    bytes. Users must do the same (never truncate or rewrite an index file that is open); this
//!    is stated on [`HnswIndex::open`](crate::vectors::HnswIndex::open).
//! 2. **Viewing bytes as numbers** ([`Region::slice`]). `slice::from_raw_parts` needs a pointer
//!    aligned for `T`, a range inside one allocation, and bytes that are valid values of `T`.
//!    The base of a mapping is page-aligned and the base of an owned region is the start of a
//!    `Vec<u64>` (8-aligned); every view checks that its byte offset is a multiple of
//!    `align_of::<T>()` and that `offset + len * size_of::<T>()` lies inside the region, and
//!    returns `None` otherwise. `T` is restricted to the plain number types of [`Pod`], for which
//!    every bit pattern is a valid value, so corrupted files give wrong numbers (caught by the
//!    checks of the format and by `verify`), never undefined behaviour. Views borrow the region,
//!    so they cannot outlive the mapping.
//!
//! Multi-byte numbers are little-endian in the file; [`Region::map`] and [`Region::owned`]
//! refuse to work on big-endian hosts rather than read them wrongly.

use std::fs::File;
use std::path::Path;

#[cfg(unix)]
use memmap2::Advice;
use memmap2::Mmap;

use crate::error::{Error, Result};

/// Plain number types: every bit pattern is a valid value, no padding, no pointers.
pub(crate) trait Pod: Copy + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for i8 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl Pod for u8 {}
impl Pod for i8 {}
impl Pod for u32 {}
impl Pod for u64 {}
impl Pod for f32 {}
impl Pod for f64 {}

enum Storage {
    Mapped(Mmap),
    Owned { words: Vec<u64>, len: usize },
}

/// Read-only bytes of an index: a memory-mapped file or an owned, 8-aligned buffer.
pub(crate) struct Region {
    storage: Storage,
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.storage {
            Storage::Mapped(_) => "mapped",
            Storage::Owned { .. } => "owned",
        };
        write!(f, "Region({kind}, {} bytes)", self.bytes().len())
    }
}

fn check_endianness(path: &Path) -> Result<()> {
    if cfg!(target_endian = "big") {
        return Err(Error::IndexFile {
            path: path.to_path_buf(),
            rule: "index files are little-endian; big-endian hosts are not supported".into(),
        });
    }
    Ok(())
}

impl Region {
    /// Maps `path` read-only. `random` hints the kernel that access is random (graph search), so
    /// it reads no more than the pages touched; otherwise access is declared sequential.
    pub(crate) fn map(path: &Path, random: bool) -> Result<Region> {
        check_endianness(path)?;
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len == 0 {
            // An empty file cannot be mapped on every platform; the format check reports it.
            return Ok(Region::owned(&[]));
        }
        // SAFETY: see the module documentation, point 1: kino never modifies an index file in
        // place, and `HnswIndex::open` / `ExactIndex::open` document that callers must not either.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        // Advice is only a hint (and only on Unix): failing to give it changes speed, not results.
        #[cfg(unix)]
        let _ = map.advise(if random { Advice::Random } else { Advice::Sequential });
        #[cfg(not(unix))]
        let _ = random;
        Ok(Region { storage: Storage::Mapped(map) })
    }

    /// Copies `bytes` into an owned, 8-aligned buffer.
    pub(crate) fn owned(bytes: &[u8]) -> Region {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            *word = u64::from_le_bytes(b);
        }
        Region { storage: Storage::Owned { words, len: bytes.len() } }
    }

    /// Whether the region is a memory map (as opposed to an owned buffer).
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped(_))
    }

    /// All bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Mapped(map) => map,
            Storage::Owned { words, len } => {
                let ptr = words.as_ptr().cast::<u8>();
                // SAFETY: `words` holds `len.div_ceil(8) * 8 >= len` initialised bytes, u8 has
                // alignment 1, and the slice borrows `self`, which owns `words`.
                unsafe { std::slice::from_raw_parts(ptr, *len) }
            }
        }
    }

    /// `count` values of `T` starting at byte `offset`, or `None` when the range is out of
    /// bounds or misaligned.
    #[inline]
    pub(crate) fn slice<T: Pod>(&self, offset: usize, count: usize) -> Option<&[T]> {
        let bytes = self.bytes();
        let size = count.checked_mul(size_of::<T>())?;
        let end = offset.checked_add(size)?;
        if end > bytes.len() {
            return None;
        }
        let ptr = bytes.as_ptr().wrapping_add(offset);
        if (ptr as usize) % align_of::<T>() != 0 {
            return None;
        }
        // SAFETY: see the module documentation, point 2: `[offset, end)` lies inside `bytes`,
        // `ptr` is aligned for `T`, every bit pattern is a valid `T` (Pod), and the returned
        // slice borrows `self`, which keeps the bytes alive and unchanged.
        Some(unsafe { std::slice::from_raw_parts(ptr.cast::<T>(), count) })
    }
}

/// The bytes of a slice of plain numbers, in host order (little-endian, which [`Region::map`]
/// requires), for writing index files without a copy.
pub(crate) fn as_bytes<T: Pod>(values: &[T]) -> &[u8] {
    // SAFETY: `T` is Pod (no padding, every byte initialised), u8 has alignment 1, and the byte
    // length is exactly that of `values`, which the result borrows.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

/// Asks the CPU to start loading the cache line holding the start of `values` (a vector the
/// search is about to score). Only a hint: it changes speed, never results.
#[inline(always)]
pub(crate) fn prefetch<T>(values: &[T]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has; a prefetch never faults and
    // reads nothing architecturally, and the pointer comes from a live slice anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(values.as_ptr().cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = values;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_check_bounds_and_alignment() {
        let mut bytes = Vec::new();
        for v in [1.5f32, -2.0, 3.25] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let region = Region::owned(&bytes);
        assert_eq!(region.slice::<f32>(0, 3).unwrap(), &[1.5, -2.0, 3.25]);
        assert_eq!(region.slice::<f32>(4, 2).unwrap(), &[-2.0, 3.25]);
        assert!(region.slice::<f32>(4, 3).is_none());
        assert!(region.slice::<f32>(2, 1).is_none());
        assert!(region.slice::<u64>(0, usize::MAX).is_none());
        assert!(region.slice::<u8>(usize::MAX, 2).is_none());
        assert_eq!(region.slice::<u8>(12, 0).unwrap(), &[] as &[u8]);
    }

    #[test]
    fn maps_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.bin");
        std::fs::write(&path, 7u64.to_le_bytes()).unwrap();
        let region = Region::map(&path, true).unwrap();
        assert!(region.is_mapped());
        assert_eq!(region.slice::<u64>(0, 1).unwrap(), &[7]);
        drop(region);
        let empty = dir.path().join("empty.bin");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(Region::map(&empty, false).unwrap().bytes().len(), 0);
    }
}
