//! Similar titles (the deprecated `similar` product): an item's nearest items by item
//! embedding, with the interface's `skip`, `count` and `max_score`, an optional type
//! restriction, scores in `[0, 1]`, and the item itself excluded (during the search).

use crate::error::{Error, Result};
use crate::signals::Signals;
use crate::vectors::distance::Metric;
use crate::vectors::filter::Filter;
use crate::vectors::index::VectorIndex;
use crate::vectors::segments::{SegmentFilter, SegmentedIndex};
use crate::vectors::set::{ItemKind, VectorSet};

/// Parameters of a similar-titles request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarQuery {
    /// Items to skip from the start of the list.
    pub skip: usize,
    /// Items to return.
    pub count: usize,
    /// Only items scoring at most this are included (in `[0, 1]`).
    pub max_score: Option<f64>,
    /// Only items of this kind (`/movies/{id}`, `/series/{id}`).
    pub kind: Option<ItemKind>,
}

impl Default for SimilarQuery {
    fn default() -> Self {
        SimilarQuery { skip: 0, count: 10, max_score: None, kind: None }
    }
}

/// One similar item.
#[derive(Debug, Clone, PartialEq)]
pub struct SimilarItem {
    /// The customer's id.
    pub inventory_id: String,
    /// Its kind.
    pub kind: ItemKind,
    /// Similarity in `[0, 1]`: `(cos + 1) / 2` for cosine indexes.
    pub score: f64,
}

/// Maps a distance to a score in `[0, 1]`, rounded as reported ([`crate::report::score`]); the
/// `max_score` bound compares that reported value.
pub fn score(metric: Metric, distance: f32) -> f64 {
    let d = f64::from(distance);
    let s = match metric {
        Metric::Cosine => 1.0 - d / 2.0,
        Metric::Dot => (1.0 - d) / 2.0,
        Metric::L2 => 1.0 / (1.0 + d.max(0.0)),
    };
    crate::report::score(s.clamp(0.0, 1.0))
}

/// The items most similar to `inventory_id`, best first, after `skip`, at most `count`.
pub fn similar(index: &dyn VectorIndex, inventory_id: &str, query: &SimilarQuery) -> Result<Vec<SimilarItem>> {
    if let Some(max) = query.max_score
        && !(0.0..=1.0).contains(&max)
    {
        return Err(Error::InvalidParameter { param: "max_score", rule: format!("must be in [0, 1] (got {max})") });
    }
    let own = index.nodes_of(inventory_id);
    let node = match own.as_slice() {
        &[node] => node,
        [] => return Err(Error::UnknownId { id: inventory_id.to_string(), what: "item index" }),
        many => {
            return Err(Error::InvalidParameter {
                param: "index",
                rule: format!(
                    "similar titles need an item index (one vector per id); `{inventory_id}` has {}",
                    many.len()
                ),
            });
        }
    };
    let vector = index
        .vector(node)
        .ok_or_else(|| Error::UnknownId { id: inventory_id.to_string(), what: "item index" })?
        .to_vec();
    let kind = query.kind;
    let filter = move |n: u32, k: ItemKind| n != node && kind.is_none_or(|want| want == k);
    let need = query.skip.saturating_add(query.count);
    if need == 0 {
        return Ok(Vec::new());
    }
    let mut want = need.max(16).min(index.len().max(1));
    loop {
        let hits = index.search_with(&vector, want, Some(&filter as &dyn Filter))?;
        let kept: Vec<_> = hits
            .iter()
            .map(|h| (h.node, score(index.metric(), h.distance)))
            .filter(|(_, s)| query.max_score.is_none_or(|max| *s <= max))
            .collect();
        if kept.len() >= need || hits.len() < want || want >= index.len() {
            return kept
                .into_iter()
                .skip(query.skip)
                .take(query.count)
                .map(|(n, s)| Ok(SimilarItem { inventory_id: index.id(n)?.to_string(), kind: index.kind(n), score: s }))
                .collect();
        }
        want = want.saturating_mul(2).min(index.len());
    }
}

/// [`similar`] over a [`SegmentedIndex`] of items (the service's changing item index).
pub fn similar_in(index: &SegmentedIndex, inventory_id: &str, query: &SimilarQuery) -> Result<Vec<SimilarItem>> {
    if let Some(max) = query.max_score
        && !(0.0..=1.0).contains(&max)
    {
        return Err(Error::InvalidParameter { param: "max_score", rule: format!("must be in [0, 1] (got {max})") });
    }
    let own = index.vectors_of(inventory_id);
    let vector = match own.as_slice() {
        [(_, v)] => v.clone(),
        [] => return Err(Error::UnknownId { id: inventory_id.to_string(), what: "item index" }),
        many => {
            return Err(Error::InvalidParameter {
                param: "index",
                rule: format!("similar titles need an item index; `{inventory_id}` has {} vectors", many.len()),
            });
        }
    };
    let need = query.skip.saturating_add(query.count);
    if need == 0 {
        return Ok(Vec::new());
    }
    let kinds = query.kind.map(|k| [k]);
    let filter = SegmentFilter {
        exclude: Some(inventory_id),
        kinds: kinds.as_ref().map(|k| &k[..]),
        ..SegmentFilter::default()
    };
    let total = index.stats().items.max(1);
    let mut want = need.max(16).min(total);
    loop {
        let hits = index.search(&vector, want, &filter)?;
        let kept: Vec<_> = hits
            .iter()
            .map(|h| (h, score(index.config().metric, h.distance)))
            .filter(|(_, s)| query.max_score.is_none_or(|max| *s <= max))
            .collect();
        if kept.len() >= need || hits.len() < want || want >= total {
            return Ok(kept
                .into_iter()
                .skip(query.skip)
                .take(query.count)
                .map(|(h, s)| SimilarItem { inventory_id: h.id.clone(), kind: h.kind, score: s })
                .collect());
        }
        want = want.saturating_mul(2).min(total);
    }
}

/// A cosine item set from signals documents that carry an item embedding.
pub fn item_set(docs: &[Signals], kind_of: impl Fn(&Signals) -> ItemKind) -> Result<VectorSet> {
    let dim =
        docs.iter().find_map(|d| d.item_embedding.as_ref().map(Vec::len)).unwrap_or(crate::signals::ITEM_EMBEDDING_DIM);
    let mut set = VectorSet::items(dim, Metric::Cosine)?;
    for doc in docs {
        if let Some(embedding) = &doc.item_embedding {
            set.push_item(&doc.inventory_id, kind_of(doc), embedding)?;
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::exact::ExactIndex;
    use crate::vectors::hnsw::{HnswIndex, HnswParams};

    fn index_set() -> VectorSet {
        let mut set = VectorSet::items(3, Metric::Cosine).unwrap();
        let rows = [
            ("m1", ItemKind::Movie, [1.0, 0.0, 0.0]),
            ("m2", ItemKind::Movie, [0.9, 0.1, 0.0]),
            ("s1", ItemKind::Series, [0.8, 0.2, 0.0]),
            ("m3", ItemKind::Movie, [0.0, 1.0, 0.0]),
            ("s2", ItemKind::Series, [-1.0, 0.0, 0.0]),
        ];
        for (id, kind, v) in rows {
            set.push_item(id, kind, &v).unwrap();
        }
        set
    }

    #[test]
    fn excludes_itself_restricts_and_pages() {
        let set = index_set();
        let exact = ExactIndex::new(&set).unwrap();
        let (hnsw, _) = HnswIndex::build(&set, &HnswParams::default(), |_| {}).unwrap();
        for index in [&exact as &dyn VectorIndex, &hnsw] {
            let all = similar(index, "m1", &SimilarQuery::default()).unwrap();
            let ids: Vec<&str> = all.iter().map(|s| s.inventory_id.as_str()).collect();
            assert_eq!(ids, ["m2", "s1", "m3", "s2"]);
            assert!(all.iter().all(|s| (0.0..=1.0).contains(&s.score)));
            assert!(all.windows(2).all(|w| w[0].score >= w[1].score));
            assert!(all[3].score < 1e-6);
            let movies =
                similar(index, "m1", &SimilarQuery { kind: Some(ItemKind::Movie), ..Default::default() }).unwrap();
            assert_eq!(movies.iter().map(|s| s.inventory_id.as_str()).collect::<Vec<_>>(), ["m2", "m3"]);
            let page = similar(index, "m1", &SimilarQuery { skip: 1, count: 2, ..Default::default() }).unwrap();
            assert_eq!(page.iter().map(|s| s.inventory_id.as_str()).collect::<Vec<_>>(), ["s1", "m3"]);
            let capped = similar(index, "m1", &SimilarQuery { max_score: Some(0.9), ..Default::default() }).unwrap();
            assert_eq!(capped.iter().map(|s| s.inventory_id.as_str()).collect::<Vec<_>>(), ["m3", "s2"]);
        }
        assert!(matches!(similar(&exact, "zz", &SimilarQuery::default()), Err(Error::UnknownId { .. })));
        assert!(similar(&exact, "m1", &SimilarQuery { max_score: Some(2.0), ..Default::default() }).is_err());
    }
}
