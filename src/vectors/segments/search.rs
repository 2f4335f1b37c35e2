//! The read side of a [`SegmentedIndex`]: searches and lookups, each over the view it cloned
//! (segments, their dead bits, the delta), never waiting on a writer or on file I/O.

use super::filter::{NodeFilter, SegmentFilter, item_allowed, window_allows};
use super::segment::SegmentIndex;
use super::types::{SegmentStats, SegmentedIndex, SpannedVector, lock};
use crate::error::Result;
use crate::vectors::set::{ItemKind, prepare_query};

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentHit {
    /// The item id.
    pub id: String,
    /// Its kind.
    pub kind: ItemKind,
    /// The vector's `[start_ts, end_ts]` (`[0, 0]` in an item collection).
    pub span: [f64; 2],
    /// Distance to the query under the collection's metric.
    pub distance: f32,
}

/// A filtered scan with int8 codes re-ranks its best `k` x this many estimates (at least
/// [`MIN_SHORTLIST`]) with the float vectors: reading them is a random access each, so the
/// shortlist stays short (recall@10 1.000 on the service benchmark).
const SHORTLIST_PER_HIT: usize = 4;
const MIN_SHORTLIST: usize = 40;

impl SegmentedIndex {
    /// The current vectors of `id`: (span, vector) each, in stored order.
    pub fn vectors_of(&self, id: &str) -> Vec<SpannedVector> {
        let view = self.view();
        if let Some(item) = view.delta.iter().find(|d| d.id == id) {
            let dim = item.set.dim;
            return item.set.spans.iter().zip(item.set.data.chunks_exact(dim)).map(|(s, v)| (*s, v.to_vec())).collect();
        }
        for (segment, dead) in view.segments.iter().rev() {
            let index = segment.index.get();
            let nodes: Vec<u32> = segment.nodes_of(id).iter().copied().filter(|&n| !dead.get(n)).collect();
            if !nodes.is_empty() {
                return nodes.iter().filter_map(|&n| Some((index.span(n), index.vector(n)?.to_vec()))).collect();
            }
        }
        Vec::new()
    }

    /// The current vector of `id` whose start is nearest `start_ts` (the first of equals), with
    /// its span: one vector copied, where [`SegmentedIndex::vectors_of`] copies them all.
    pub fn nearest_scene(&self, id: &str, start_ts: f64) -> Option<SpannedVector> {
        let nearest = |spans: &mut dyn Iterator<Item = (usize, [f64; 2])>| {
            spans.min_by(|a, b| (a.1[0] - start_ts).abs().total_cmp(&(b.1[0] - start_ts).abs()).then(a.0.cmp(&b.0)))
        };
        let view = self.view();
        if let Some(item) = view.delta.iter().find(|d| d.id == id) {
            let dim = item.set.dim;
            let (i, span) = nearest(&mut item.set.spans.iter().copied().enumerate())?;
            return Some((span, item.set.data.get(i * dim..(i + 1) * dim)?.to_vec()));
        }
        for (segment, dead) in view.segments.iter().rev() {
            let index = segment.index.get();
            let mut alive =
                segment.nodes_of(id).iter().filter(|&&n| !dead.get(n)).map(|&n| (n as usize, index.span(n)));
            if let Some((node, span)) = nearest(&mut alive) {
                return Some((span, index.vector(node as u32)?.to_vec()));
            }
        }
        None
    }

    /// Whether the index holds vectors of `id`.
    pub fn contains(&self, id: &str) -> bool {
        let view = self.view();
        view.delta.iter().any(|d| d.id == id && !d.is_empty())
            || view.segments.iter().any(|(segment, dead)| segment.nodes_of(id).iter().any(|&n| !dead.get(n)))
    }

    /// Figures: segments, vectors, dead vectors, the delta.
    pub fn stats(&self) -> SegmentStats {
        let view = self.view();
        let mut stats = SegmentStats {
            segments: view.segments.len(),
            delta_vectors: view.delta.iter().map(|d| d.len()).sum(),
            items: lock(&self.inner).live.len(),
            ..SegmentStats::default()
        };
        for (segment, dead) in &view.segments {
            stats.graphs += usize::from(matches!(segment.index, SegmentIndex::Hnsw(_)));
            stats.segment_vectors += segment.index.get().len();
            stats.dead_vectors += dead.count;
        }
        stats
    }

    /// The `k` nearest vectors to `query` that `filter` allows, nearest first (ties by id, then
    /// start time): every segment is searched (HNSW, or a scan when small or when the filter
    /// names few items) and the delta is scanned, skipping dead vectors.
    pub fn search(&self, query: &[f32], k: usize, filter: &SegmentFilter<'_>) -> Result<Vec<SegmentHit>> {
        let q = prepare_query(query, self.config.dim, self.config.metric)?;
        if k == 0 {
            return Ok(Vec::new());
        }
        let view = self.view();
        let metric = self.config.metric;
        let mut hits: Vec<SegmentHit> = Vec::new();
        for (segment, dead) in &view.segments {
            let index = segment.index.get();
            let mut node_filter = NodeFilter {
                index,
                dead,
                filter,
                ids: filter.ids.map(|ids| (ids, &segment.nodes)),
                ids_checked: false,
                // A graph segment decides here whether to scan (below); a small one lets its
                // exact search ask.
                offers_candidates: segment.codes().is_none(),
            };
            // Few allowed items in a graph segment: score their nodes by int8 code and re-rank
            // the shortlist with the float vectors (a quarter of the memory traffic of a float
            // scan); else the index's own search.
            let allowed = segment.codes().and_then(|codes| Some((codes, node_filter.allowed_nodes(k)?)));
            let scanned = match allowed {
                Some((codes, nodes)) => {
                    node_filter.ids_checked = true;
                    Some(codes.search(
                        index,
                        &q,
                        k,
                        (k * SHORTLIST_PER_HIT).max(MIN_SHORTLIST),
                        &nodes,
                        Some(&node_filter),
                    ))
                }
                None => None,
            };
            let found = match scanned {
                Some(hits) => hits,
                None => index.search_with(&q, k, Some(&node_filter))?,
            };
            for hit in found {
                hits.push(SegmentHit {
                    id: index.id(hit.node)?.to_string(),
                    kind: index.kind(hit.node),
                    span: index.span(hit.node),
                    distance: hit.distance,
                });
            }
        }
        for item in &view.delta {
            if !item_allowed(&item.id, item.kind, filter) {
                continue;
            }
            let dim = item.set.dim;
            for (span, v) in item.set.spans.iter().zip(item.set.data.chunks_exact(dim)) {
                if window_allows(filter.window, *span) {
                    hits.push(SegmentHit {
                        id: item.id.clone(),
                        kind: item.kind,
                        span: *span,
                        distance: metric.distance(&q, v),
                    });
                }
            }
        }
        hits.sort_by(|a, b| {
            a.distance.total_cmp(&b.distance).then_with(|| a.id.cmp(&b.id)).then(a.span[0].total_cmp(&b.span[0]))
        });
        hits.truncate(k);
        Ok(hits)
    }
}
