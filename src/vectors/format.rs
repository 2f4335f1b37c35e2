//! The index file format (version 2; version 1 files still open): one self-describing,
//! memory-mappable file.
//!
//! ```text
//! header (1024 bytes, little-endian)
//!   0  magic "KINOVECS"          8  format version (u32)     12 header length (u32)
//!   16 metric (u32)              20 dimension (u32)          24 vector count n (u64)
//!   32 flags (u32, bit 0: ids unique)                        36 graph layers L (u32, 0 = no graph)
//!   40 M (u32)                   44 ef_construction (u32)    48 entry node (u32)
//!   52 links added by repair (u32)                           56 id bytes (u64)
//!   64 file length (u64)         72 payload CRC-32 (u32)     76 header CRC-32 (u32)
//!   80 per layer l < 16: nodes in layer (u64), edges in layer (u64)
//!  336 codes (u32, version 2: bit 0 int8, bit 1 binary)
//! sections, each starting on a 64-byte boundary, in this order:
//!   vectors        n * dim f32, row-major (normalised for cosine); version 2 starts them on a
//!                  4096-byte boundary, so a 1024-d vector fills exactly one page

//!   per layer l    l > 0: its nodes, sorted (u32); then CSR offsets (u64, nodes + 1) and
//!                  neighbours (u32, edges); layer 0 holds every node, so it has no node list
//!   id offsets     n + 1 u64 into the id bytes;  id bytes (UTF-8)
//!   sorted ids     n u32: nodes ordered by id, for lookups by binary search
//!   kinds          n u8;  spans  n pairs of f64 (scene start_ts, end_ts)
//!   int8 codes     (bit 0) dim f32 midpoints, dim f32 steps, n * dim i8 codes, and for L2
//!                  n f32 squared norms
//!   binary codes   (bit 1) dim f32 means, n * ceil(dim / 8) bytes of sign bits
//! ```
//!
//! The header CRC covers the header (with its CRC field zeroed) and is checked by every open;
//! the section offsets are not stored but computed from the counts, and the file length must be
//! exactly what they add up to. The payload CRC covers every byte after the header; checking it
//! reads the whole file, so `open` leaves it to `verify`, keeping open time independent of size.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::vectors::distance::Metric;
use crate::vectors::mmap::{Pod, as_bytes};
use crate::vectors::quant::{BinaryCodes, Int8Codes};
use crate::vectors::set::{MAX_DIM, VectorSet};

/// The first eight bytes of every index file.
pub const INDEX_MAGIC: &[u8; 8] = b"KINOVECS";
/// The index format version this build writes; it reads this one and every earlier one.
pub const INDEX_FORMAT_VERSION: u32 = 2;
/// The oldest index format version this build reads.
pub const OLDEST_INDEX_FORMAT_VERSION: u32 = 1;
pub(crate) const HEADER_LEN: usize = 1024;
/// Most graph layers a file may hold.
pub(crate) const MAX_LAYERS: usize = 16;
const ALIGN: usize = 64;
/// Alignment of the vector section from version 2 on: one page.
const VECTOR_ALIGN: usize = 4096;
const CRC_FIELD: usize = 76;
const CODES_FIELD: usize = 80 + 16 * MAX_LAYERS;

/// The compressed copies of the vectors an index file holds beside the floats (format version
/// 2): searches can walk the graph over them and re-rank with the floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Codes {
    /// Scalar int8 codes, one byte per dimension (a quarter of the floats).
    pub int8: bool,
    /// One bit per dimension (1/32 of the floats).
    pub binary: bool,
}

impl Codes {
    /// No codes: the floats only.
    pub const NONE: Codes = Codes { int8: false, binary: false };
    /// Int8 codes.
    pub const INT8: Codes = Codes { int8: true, binary: false };
    /// Binary codes.
    pub const BINARY: Codes = Codes { int8: false, binary: true };
    /// Both.
    pub const ALL: Codes = Codes { int8: true, binary: true };

    fn bits(self) -> u32 {
        u32::from(self.int8) | u32::from(self.binary) << 1
    }

    /// Parses a comma-separated list of `int8`, `binary` (or `none`), as the CLI and the Python
    /// binding take it.
    pub fn parse(list: &str) -> std::result::Result<Codes, String> {
        let mut codes = Codes::NONE;
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "int8" => codes.int8 = true,
                "binary" => codes.binary = true,
                "none" => {}
                other => return Err(format!("unknown code kind {other:?} (expected int8, binary or none)")),
            }
        }
        Ok(codes)
    }
}

impl std::fmt::Display for Codes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.int8, self.binary) {
            (false, false) => f.write_str("none"),
            (true, false) => f.write_str("int8"),
            (false, true) => f.write_str("binary"),
            (true, true) => f.write_str("int8,binary"),
        }
    }
}

/// Nodes and edges of one graph layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LayerCounts {
    pub nodes: usize,
    pub edges: usize,
}

/// The decoded header.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Header {
    pub version: u32,
    pub metric: Metric,
    pub dim: usize,
    pub count: usize,
    pub unique_ids: bool,
    pub layers: Vec<LayerCounts>,
    pub m: u32,
    pub ef_construction: u32,
    pub entry: u32,
    pub links_added: u32,
    pub id_bytes: usize,
    pub file_len: u64,
    pub payload_crc: u32,
    pub codes: Codes,
}

/// Byte offsets of one layer's sections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LayerLayout {
    pub nodes: usize,
    pub offsets: usize,
    pub neighbours: usize,
}

/// Byte offsets of every section, computed from the header's counts.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub vectors: usize,
    pub layers: Vec<LayerLayout>,
    pub id_offsets: usize,
    pub id_bytes: usize,
    pub sorted: usize,
    pub kinds: usize,
    pub spans: usize,
    pub int8: Option<Int8Layout>,
    pub binary: Option<BinaryLayout>,
    pub end: usize,
}

/// Byte offsets of the int8 code sections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Int8Layout {
    pub mid: usize,
    pub step: usize,
    pub codes: usize,
    /// Squared norms (L2 only; `n` values, else none).
    pub norms: usize,
}

/// Byte offsets of the binary code sections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BinaryLayout {
    pub centre: usize,
    pub bits: usize,
}

struct Cursor(usize);

impl Cursor {
    /// Reserves `count` values of `size` bytes on a 64-byte boundary; returns their offset.
    fn take(&mut self, count: usize, size: usize) -> Option<usize> {
        self.take_aligned(count, size, ALIGN)
    }

    fn take_aligned(&mut self, count: usize, size: usize, align: usize) -> Option<usize> {
        let start = self.0.checked_next_multiple_of(align)?;
        self.0 = start.checked_add(count.checked_mul(size)?)?;
        Some(start)
    }
}

impl Header {
    /// Section offsets, or `None` when the counts overflow.
    pub(crate) fn layout(&self) -> Option<Layout> {
        let n = self.count;
        let mut c = Cursor(HEADER_LEN);
        let align = if self.version >= 2 { VECTOR_ALIGN } else { ALIGN };
        let vectors = c.take_aligned(n.checked_mul(self.dim)?, 4, align)?;
        let mut layers = Vec::with_capacity(self.layers.len());
        for (l, counts) in self.layers.iter().enumerate() {
            let nodes = if l == 0 { 0 } else { c.take(counts.nodes, 4)? };
            let offsets = c.take(counts.nodes.checked_add(1)?, 8)?;
            let neighbours = c.take(counts.edges, 4)?;
            layers.push(LayerLayout { nodes, offsets, neighbours });
        }
        let id_offsets = c.take(n.checked_add(1)?, 8)?;
        let id_bytes = c.take(self.id_bytes, 1)?;
        let sorted = c.take(n, 4)?;
        let kinds = c.take(n, 1)?;
        let spans = c.take(n.checked_mul(2)?, 8)?;
        let int8 = match self.codes.int8 {
            true => Some(Int8Layout {
                mid: c.take(self.dim, 4)?,
                step: c.take(self.dim, 4)?,
                codes: c.take(n.checked_mul(self.dim)?, 1)?,
                norms: c.take(if self.metric == Metric::L2 { n } else { 0 }, 4)?,
            }),
            false => None,
        };
        let binary = match self.codes.binary {
            true => Some(BinaryLayout {
                centre: c.take(self.dim, 4)?,
                bits: c.take(n.checked_mul(crate::vectors::quant::binary_bytes(self.dim))?, 1)?,
            }),
            false => None,
        };
        Some(Layout { vectors, layers, id_offsets, id_bytes, sorted, kinds, spans, int8, binary, end: c.0 })
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        let mut put = |at: usize, bytes: &[u8]| b[at..at + bytes.len()].copy_from_slice(bytes);
        put(0, INDEX_MAGIC);
        put(8, &self.version.to_le_bytes());
        put(12, &(HEADER_LEN as u32).to_le_bytes());
        put(16, &self.metric.code().to_le_bytes());
        put(20, &(self.dim as u32).to_le_bytes());
        put(24, &(self.count as u64).to_le_bytes());
        put(32, &u32::from(self.unique_ids).to_le_bytes());
        put(36, &(self.layers.len() as u32).to_le_bytes());
        put(40, &self.m.to_le_bytes());
        put(44, &self.ef_construction.to_le_bytes());
        put(48, &self.entry.to_le_bytes());
        put(52, &self.links_added.to_le_bytes());
        put(56, &(self.id_bytes as u64).to_le_bytes());
        put(64, &self.file_len.to_le_bytes());
        put(72, &self.payload_crc.to_le_bytes());
        for (l, counts) in self.layers.iter().enumerate() {
            put(80 + 16 * l, &(counts.nodes as u64).to_le_bytes());
            put(88 + 16 * l, &(counts.edges as u64).to_le_bytes());
        }
        if self.version >= 2 {
            put(CODES_FIELD, &self.codes.bits().to_le_bytes());
        }
        let crc = crc32fast::hash(&b);
        b[CRC_FIELD..CRC_FIELD + 4].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes and checks a header; the error names the rule broken.
    pub(crate) fn decode(bytes: &[u8]) -> std::result::Result<Header, String> {
        if bytes.len() < HEADER_LEN {
            if bytes.len() < 8 || &bytes[..8] != INDEX_MAGIC {
                return Err(format!("not a kino index file ({} bytes, no {:?} magic)", bytes.len(), "KINOVECS"));
            }
            return Err(format!("truncated: {} bytes, the header alone needs {HEADER_LEN}", bytes.len()));
        }
        if &bytes[..8] != INDEX_MAGIC {
            return Err("not a kino index file (the magic bytes are not \"KINOVECS\")".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let u64_at = |at: usize| u64::from(u32_at(at)) | (u64::from(u32_at(at + 4)) << 32);
        let version = u32_at(8);
        if !(OLDEST_INDEX_FORMAT_VERSION..=INDEX_FORMAT_VERSION).contains(&version) {
            return Err(format!(
                "format version {version}; this build reads versions {OLDEST_INDEX_FORMAT_VERSION} to {INDEX_FORMAT_VERSION}"
            ));
        }
        let mut zeroed = [0u8; HEADER_LEN];
        zeroed.copy_from_slice(&bytes[..HEADER_LEN]);
        zeroed[CRC_FIELD..CRC_FIELD + 4].fill(0);
        if crc32fast::hash(&zeroed) != u32_at(CRC_FIELD) {
            return Err("header checksum mismatch: the header is corrupted".into());
        }
        if u32_at(12) as usize != HEADER_LEN {
            return Err(format!("header length {} (must be {HEADER_LEN})", u32_at(12)));
        }
        let metric = Metric::from_code(u32_at(16)).ok_or_else(|| format!("unknown metric code {}", u32_at(16)))?;
        let dim = u32_at(20) as usize;
        if dim == 0 || dim > MAX_DIM {
            return Err(format!("dimension {dim} (must be in [1, {MAX_DIM}])"));
        }
        let count = usize::try_from(u64_at(24)).map_err(|_| "vector count does not fit in memory".to_string())?;
        if count >= u32::MAX as usize {
            return Err(format!("vector count {count} (at most {})", u32::MAX - 1));
        }
        let flags = u32_at(32);
        if flags > 1 {
            return Err(format!("unknown flags {flags:#x}"));
        }
        let num_layers = u32_at(36) as usize;
        if num_layers > MAX_LAYERS {
            return Err(format!("{num_layers} graph layers (at most {MAX_LAYERS})"));
        }
        let mut layers = Vec::with_capacity(num_layers);
        for l in 0..num_layers {
            let nodes = usize::try_from(u64_at(80 + 16 * l)).unwrap_or(usize::MAX);
            let edges = usize::try_from(u64_at(88 + 16 * l)).unwrap_or(usize::MAX);
            let limit = if l == 0 { count } else { layers.last().map_or(0, |c: &LayerCounts| c.nodes) };
            if (l == 0 && nodes != count) || nodes > limit {
                return Err(format!(
                    "graph layer {l} has {nodes} nodes (layer 0 must hold all {count}, upper layers a subset of the layer below)"
                ));
            }
            layers.push(LayerCounts { nodes, edges });
        }
        let code_bits = if version >= 2 { u32_at(CODES_FIELD) } else { 0 };
        if code_bits > 3 {
            return Err(format!("unknown code kinds {code_bits:#x} (bit 0 int8, bit 1 binary)"));
        }
        let codes = Codes { int8: code_bits & 1 == 1, binary: code_bits & 2 == 2 };
        let entry = u32_at(48);
        if num_layers > 0 && count > 0 && entry as usize >= count {
            return Err(format!("entry node {entry} is not below the vector count {count}"));
        }
        let header = Header {
            version,
            metric,
            dim,
            count,
            unique_ids: flags & 1 == 1,
            layers,
            m: u32_at(40),
            ef_construction: u32_at(44),
            entry,
            links_added: u32_at(52),
            id_bytes: usize::try_from(u64_at(56)).unwrap_or(usize::MAX),
            file_len: u64_at(64),
            payload_crc: u32_at(72),
            codes,
        };
        let layout = header.layout().ok_or("section sizes overflow")?;
        if layout.end as u64 != header.file_len {
            return Err(format!("the counts add up to {} bytes but the header says {}", layout.end, header.file_len));
        }
        if bytes.len() as u64 != header.file_len {
            let what = if (bytes.len() as u64) < header.file_len { "truncated" } else { "trailing bytes" };
            return Err(format!("{what}: the header says {} bytes, the file has {}", header.file_len, bytes.len()));
        }
        Ok(header)
    }
}

/// One graph layer in CSR form, as written.
#[derive(Debug, Clone, Default)]
pub(crate) struct GraphLayer {
    /// Nodes of the layer, sorted (empty for layer 0, which holds every node).
    pub nodes: Vec<u32>,
    /// `offsets[i]..offsets[i + 1]` indexes `neighbours` for the layer's i-th node.
    pub offsets: Vec<u64>,
    pub neighbours: Vec<u32>,
}

/// A flat HNSW graph ready to be written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Graph {
    pub layers: Vec<GraphLayer>,
    pub entry: u32,
    pub m: u32,
    pub ef_construction: u32,
    pub links_added: u32,
}

/// Counts bytes and computes the CRC of everything written through it.
struct CrcWriter<W> {
    inner: W,
    hasher: crc32fast::Hasher,
    written: usize,
}

impl<W: Write> CrcWriter<W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hasher.update(bytes);
        self.written += bytes.len();
        self.inner.write_all(bytes)
    }

    fn pad_to(&mut self, offset: usize) -> io::Result<()> {
        const ZEROS: [u8; VECTOR_ALIGN] = [0; VECTOR_ALIGN];
        let gap = offset.checked_sub(self.written).ok_or_else(|| io::Error::other("section overlap"))?;
        self.put(&ZEROS[..gap.min(VECTOR_ALIGN)])?;
        if gap >= VECTOR_ALIGN { Err(io::Error::other("section gap wider than the alignment")) } else { Ok(()) }
    }

    fn section<T: Pod>(&mut self, offset: usize, values: &[T]) -> io::Result<()> {
        self.pad_to(offset)?;
        self.put(as_bytes(values))
    }
}

/// Writes `set` (and `graph`, when given, and the `codes` asked for) in the index format to `w`.
pub(crate) fn encode<W: Write + Seek>(
    w: &mut W,
    set: &VectorSet,
    graph: Option<&Graph>,
    codes: Codes,
) -> io::Result<()> {
    if cfg!(target_endian = "big") {
        return Err(io::Error::other("index files are little-endian; big-endian hosts are not supported"));
    }
    let n = set.len();
    let mut id_offsets = Vec::with_capacity(n + 1);
    let mut id_bytes = 0u64;
    id_offsets.push(0u64);
    for id in &set.ids {
        id_bytes += id.len() as u64;
        id_offsets.push(id_bytes);
    }
    let mut sorted: Vec<u32> = (0..n as u32).collect();
    sorted.sort_by(|a, b| set.ids[*a as usize].cmp(&set.ids[*b as usize]).then(a.cmp(b)));
    let spans: Vec<f64> = set.spans.iter().flatten().copied().collect();
    let empty = Graph::default();
    let g = graph.unwrap_or(&empty);
    let mut header = Header {
        version: INDEX_FORMAT_VERSION,
        metric: set.metric,
        dim: set.dim,
        count: n,
        unique_ids: set.unique_ids,
        layers: g
            .layers
            .iter()
            .map(|l| LayerCounts {
                nodes: if l.nodes.is_empty() { n } else { l.nodes.len() },
                edges: l.neighbours.len(),
            })
            .collect(),
        m: g.m,
        ef_construction: g.ef_construction,
        entry: g.entry,
        links_added: g.links_added,
        id_bytes: id_bytes as usize,
        file_len: 0,
        payload_crc: 0,
        codes,
    };
    let layout = header.layout().ok_or_else(|| io::Error::other("index too large"))?;
    header.file_len = layout.end as u64;
    let start = w.stream_position()?;
    w.write_all(&[0u8; HEADER_LEN])?;
    let mut cw = CrcWriter { inner: &mut *w, hasher: crc32fast::Hasher::new(), written: HEADER_LEN };
    cw.section(layout.vectors, &set.data)?;
    for (layer, at) in g.layers.iter().zip(&layout.layers) {
        if at.nodes != 0 {
            cw.section(at.nodes, &layer.nodes)?;
        }
        cw.section(at.offsets, &layer.offsets)?;
        cw.section(at.neighbours, &layer.neighbours)?;
    }
    cw.section(layout.id_offsets, &id_offsets)?;
    cw.pad_to(layout.id_bytes)?;
    for id in &set.ids {
        cw.put(id.as_bytes())?;
    }
    cw.section(layout.sorted, &sorted)?;
    cw.section(layout.kinds, &set.kinds)?;
    cw.section(layout.spans, &spans)?;
    if let Some(at) = &layout.int8 {
        let int8 = Int8Codes::from_flat(set.dim, set.metric, &set.data);
        let (mid, step, codes, norms) = int8.parts();
        cw.section(at.mid, mid)?;
        cw.section(at.step, step)?;
        cw.section(at.codes, codes)?;
        cw.section(at.norms, norms)?;
    }
    if let Some(at) = &layout.binary {
        let binary = BinaryCodes::from_flat(set.dim, &set.data);
        let (centre, bits) = binary.parts();
        cw.section(at.centre, centre)?;
        cw.section(at.bits, bits)?;
    }
    header.payload_crc = cw.hasher.finalize();
    w.seek(SeekFrom::Start(start))?;
    w.write_all(&header.encode())?;
    w.seek(SeekFrom::End(0))?;
    Ok(())
}

/// The index file as bytes in memory.
pub(crate) fn encode_to_vec(set: &VectorSet, graph: Option<&Graph>, codes: Codes) -> Result<Vec<u8>> {
    let mut cursor = io::Cursor::new(Vec::new());
    encode(&mut cursor, set, graph, codes).map_err(|e| Error::io("<memory>", e))?;
    Ok(cursor.into_inner())
}

/// Writes the index file to `path` through a temporary file renamed into place, so that a file
/// that is open (memory-mapped) elsewhere is never modified.
pub(crate) fn write_file(path: &Path, set: &VectorSet, graph: Option<&Graph>, codes: Codes) -> Result<()> {
    write_with(path, |w| encode(w, set, graph, codes))
}

/// Writes finished index bytes to `path`, like [`write_file`].
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, |w| w.write_all(bytes))
}

fn write_with(path: &Path, write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        write(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}
