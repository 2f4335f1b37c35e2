//! [`VectorSet`]: the vectors (with their ids, kinds and time spans) an index is built from.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::vectors::distance::{Metric, normalize};

/// The largest dimension an index accepts.
pub const MAX_DIM: usize = 65_536;

/// What an indexed item is; similar-title and retrieval filters restrict by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ItemKind {
    /// Not stated.
    #[default]
    Unspecified,
    /// A movie.
    Movie,
    /// A series (the show as a whole).
    Series,
    /// An episode of a series.
    Episode,
    /// Anything else (trailer, short, extra).
    Other,
}

impl ItemKind {
    /// The byte stored in index files.
    pub(crate) fn code(self) -> u8 {
        match self {
            ItemKind::Unspecified => 0,
            ItemKind::Movie => 1,
            ItemKind::Series => 2,
            ItemKind::Episode => 3,
            ItemKind::Other => 4,
        }
    }

    /// The kind of a stored byte; unknown bytes read as [`ItemKind::Other`].
    pub(crate) fn from_code(code: u8) -> ItemKind {
        match code {
            0 => ItemKind::Unspecified,
            1 => ItemKind::Movie,
            2 => ItemKind::Series,
            3 => ItemKind::Episode,
            _ => ItemKind::Other,
        }
    }

    /// The interface's name of the kind (`movie`, `series`, `episode`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Unspecified => "unspecified",
            ItemKind::Movie => "movie",
            ItemKind::Series => "series",
            ItemKind::Episode => "episode",
            ItemKind::Other => "other",
        }
    }
}

/// An in-memory collection of vectors to index, each with a string id, an [`ItemKind`] and an
/// optional time span (for scenes). Cosine vectors are L2-normalised on the way in.
///
/// An *item* set ([`VectorSet::items`]) requires unique ids; a *scene* set
/// ([`VectorSet::scenes`]) holds many vectors per item id, each with `start_ts`/`end_ts`.
#[derive(Debug, Clone)]
pub struct VectorSet {
    pub(crate) dim: usize,
    pub(crate) metric: Metric,
    pub(crate) unique_ids: bool,
    pub(crate) data: Vec<f32>,
    pub(crate) ids: Vec<String>,
    pub(crate) kinds: Vec<u8>,
    pub(crate) spans: Vec<[f64; 2]>,
    seen: HashMap<String, u32>,
}

impl VectorSet {
    /// An empty set of item vectors (unique ids) of dimension `dim`.
    pub fn items(dim: usize, metric: Metric) -> Result<VectorSet> {
        VectorSet::new(dim, metric, true)
    }

    /// An empty set of scene vectors (several per item id) of dimension `dim`.
    pub fn scenes(dim: usize, metric: Metric) -> Result<VectorSet> {
        VectorSet::new(dim, metric, false)
    }

    fn new(dim: usize, metric: Metric, unique_ids: bool) -> Result<VectorSet> {
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::InvalidParameter {
                param: "dim",
                rule: format!("must be in [1, {MAX_DIM}] (got {dim})"),
            });
        }
        Ok(VectorSet {
            dim,
            metric,
            unique_ids,
            data: Vec::new(),
            ids: Vec::new(),
            kinds: Vec::new(),
            spans: Vec::new(),
            seen: HashMap::new(),
        })
    }

    /// A set of item vectors from a flat row-major array, with ids `"0"`, `"1"`, ... (used for
    /// vector files and benchmarks).
    pub fn from_flat(dim: usize, metric: Metric, flat: &[f32]) -> Result<VectorSet> {
        let mut set = VectorSet::items(dim, metric)?;
        if flat.len() % dim != 0 {
            return Err(Error::WrongVectorDimension {
                what: "flat vector array (length must be a multiple of dim)",
                expected: dim,
                received: flat.len() % dim,
            });
        }
        set.data.reserve(flat.len());
        for (i, v) in flat.chunks_exact(dim).enumerate() {
            set.push_unchecked_id(i.to_string(), ItemKind::Unspecified, [0.0, 0.0], v)?;
        }
        Ok(set)
    }

    /// Adds an item's vector; returns its dense node number.
    pub fn push_item(&mut self, id: &str, kind: ItemKind, vector: &[f32]) -> Result<u32> {
        if self.unique_ids && self.seen.contains_key(id) {
            return Err(Error::DuplicateId { id: id.to_string(), what: "item collection" });
        }
        let node = self.push_unchecked_id(id.to_string(), kind, [0.0, 0.0], vector)?;
        if self.unique_ids {
            self.seen.insert(id.to_string(), node);
        }
        Ok(node)
    }

    /// Adds one scene of item `item_id` spanning `[start_ts, end_ts]` seconds.
    pub fn push_scene(
        &mut self,
        item_id: &str,
        kind: ItemKind,
        start_ts: f64,
        end_ts: f64,
        vector: &[f32],
    ) -> Result<u32> {
        if self.unique_ids {
            return Err(Error::InvalidParameter {
                param: "push_scene",
                rule: "scenes go in a scene set (VectorSet::scenes), whose ids repeat".into(),
            });
        }
        if !(start_ts.is_finite() && end_ts.is_finite() && start_ts <= end_ts) {
            return Err(Error::InvalidParameter {
                param: "start_ts/end_ts",
                rule: format!("must be finite with start_ts <= end_ts (got {start_ts}, {end_ts})"),
            });
        }
        self.push_unchecked_id(item_id.to_string(), kind, [start_ts, end_ts], vector)
    }

    fn push_unchecked_id(&mut self, id: String, kind: ItemKind, span: [f64; 2], vector: &[f32]) -> Result<u32> {
        let index = self.ids.len();
        if index >= u32::MAX as usize - 1 {
            return Err(Error::InvalidParameter {
                param: "vectors",
                rule: format!("at most {} vectors per index", u32::MAX - 1),
            });
        }
        if vector.len() != self.dim {
            return Err(Error::WrongVectorDimension { what: "vector", expected: self.dim, received: vector.len() });
        }
        if vector.iter().any(|x| !x.is_finite()) {
            return Err(Error::InvalidVector { what: "vectors", index, rule: "must be finite" });
        }
        let start = self.data.len();
        self.data.extend_from_slice(vector);
        if self.metric == Metric::Cosine && !normalize(&mut self.data[start..]) {
            self.data.truncate(start);
            return Err(Error::InvalidVector {
                what: "vectors",
                index,
                rule: "must not be all zeros (cosine needs a direction)",
            });
        }
        self.ids.push(id);
        self.kinds.push(kind.code());
        self.spans.push(span);
        Ok(index as u32)
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Vector length.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The metric.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The stored (normalised, for cosine) vector of node `node`.
    pub fn vector(&self, node: u32) -> Option<&[f32]> {
        let start = (node as usize).checked_mul(self.dim)?;
        self.data.get(start..start + self.dim)
    }

    /// All stored vectors, row-major.
    pub fn flat(&self) -> &[f32] {
        &self.data
    }
}

/// Checks a query's length and values, and normalises it for cosine.
pub(crate) fn prepare_query(query: &[f32], dim: usize, metric: Metric) -> Result<Vec<f32>> {
    if query.len() != dim {
        return Err(Error::WrongVectorDimension { what: "query", expected: dim, received: query.len() });
    }
    if query.iter().any(|x| !x.is_finite()) {
        return Err(Error::InvalidVector { what: "query", index: 0, rule: "must be finite" });
    }
    let mut q = query.to_vec();
    if metric == Metric::Cosine && !normalize(&mut q) {
        return Err(Error::InvalidVector {
            what: "query",
            index: 0,
            rule: "must not be all zeros (cosine needs a direction)",
        });
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_vectors_are_normalised_and_checked() {
        let mut set = VectorSet::items(2, Metric::Cosine).unwrap();
        set.push_item("a", ItemKind::Movie, &[3.0, 4.0]).unwrap();
        assert_eq!(set.vector(0).unwrap(), &[0.6, 0.8]);
        assert!(matches!(set.push_item("a", ItemKind::Movie, &[1.0, 0.0]), Err(Error::DuplicateId { .. })));
        assert!(matches!(set.push_item("b", ItemKind::Movie, &[0.0, 0.0]), Err(Error::InvalidVector { .. })));
        assert!(matches!(set.push_item("c", ItemKind::Movie, &[f32::NAN, 0.0]), Err(Error::InvalidVector { .. })));
        assert!(matches!(set.push_item("d", ItemKind::Movie, &[1.0]), Err(Error::WrongVectorDimension { .. })));
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn scenes_repeat_ids_and_need_ordered_spans() {
        let mut set = VectorSet::scenes(2, Metric::L2).unwrap();
        set.push_scene("x", ItemKind::Movie, 0.0, 5.0, &[1.0, 0.0]).unwrap();
        set.push_scene("x", ItemKind::Movie, 5.0, 9.0, &[0.0, 1.0]).unwrap();
        assert!(set.push_scene("x", ItemKind::Movie, 9.0, 1.0, &[0.0, 1.0]).is_err());
        assert_eq!(set.len(), 2);
        assert!(VectorSet::items(0, Metric::L2).is_err());
    }
}
