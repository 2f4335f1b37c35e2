//! Similar titles (the deprecated `similar` product): an item's nearest items by item
//! embedding, with the interface's `skip`, `count` and `max_score`, an optional type
//! restriction, scores in `[0, 1]`, and the item itself excluded (during the search).
//!
//! **Ties.** Titles of equal reported score are ordered by a tie-breaker when one is given
//! ([`similar_in_by`]): the service passes the distance between the two titles' emotional arcs
//! ([`crate::arc::EmotionalArc::distance_to`]), so among titles the embedding cannot tell apart
//! the one that tells the same story shape comes first. The score itself, the contract's
//! `(cos + 1) / 2`, is not changed.

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
    similar_in_by(index, inventory_id, query, &|_| None)
}

/// [`similar_in`] with titles of equal score ordered by `tie_break` of their id (smaller first;
/// titles it gives no value come after those it does, then in the index's order). `tie_break` is
/// asked only of titles that tie with another, and a tie at the edge of the page is resolved over
/// every title of that score.
pub fn similar_in_by(
    index: &SegmentedIndex,
    inventory_id: &str,
    query: &SimilarQuery,
    tie_break: &dyn Fn(&str) -> Option<f64>,
) -> Result<Vec<SimilarItem>> {
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
        // Enough, and the last title needed does not tie with one not yet seen.
        let settled = kept.len() > need && kept[need].1 < kept[need - 1].1;
        if settled || hits.len() < want || want >= total {
            let mut items: Vec<SimilarItem> = kept
                .into_iter()
                .map(|(h, s)| SimilarItem { inventory_id: h.id.clone(), kind: h.kind, score: s })
                .collect();
            break_ties(&mut items, tie_break);
            return Ok(items.into_iter().skip(query.skip).take(query.count).collect());
        }
        want = want.saturating_mul(2).min(total);
    }
}

/// Orders each run of equal scores in `items` (sorted by decreasing score) by `tie_break`.
fn break_ties(items: &mut [SimilarItem], tie_break: &dyn Fn(&str) -> Option<f64>) {
    let mut start = 0;
    while start < items.len() {
        let end = start + items[start..].iter().take_while(|i| i.score == items[start].score).count();
        if end - start > 1 {
            let mut run: Vec<(Option<f64>, SimilarItem)> =
                items[start..end].iter().map(|i| (tie_break(&i.inventory_id), i.clone())).collect();
            // Stable: titles without a value, or of equal value, keep the index's order.
            run.sort_by(|a, b| match (a.0, b.0) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            });
            for (slot, (_, item)) in items[start..end].iter_mut().zip(run) {
                *slot = item;
            }
        }
        start = end;
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

    #[test]
    fn among_equal_embeddings_the_same_story_shape_ranks_first() {
        use crate::arc::{ArcShape, emotional_arc};
        use crate::vectors::segments::{ItemVectors, SegmentConfig, SegmentedIndex};
        let arc = |shape: ArcShape| {
            let mut s = crate::synth::demo_signals("tt", 600.0, 1.0, 1);
            let e = s.emotions.as_mut().unwrap();
            e.step = 1.0;
            e.valence = (0..600).map(|i| (0.8 * shape.template((f64::from(i) + 0.5) / 600.0)) as f32).collect();
            emotional_arc(&s).unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        let config = SegmentConfig::new(3, Metric::Cosine, false);
        let (index, _) = SegmentedIndex::open(dir.path(), config.clone()).unwrap();
        // `a` is the query; the others share one embedding, listed opposite shape first.
        let rows = [
            ("a", [1.0, 0.0, 0.0]),
            ("opposite", [0.6, 0.8, 0.0]),
            ("same", [0.6, 0.8, 0.0]),
            ("far", [0.0, 0.0, 1.0]),
        ];
        for (id, v) in rows {
            let mut item = ItemVectors::new(&config, id, ItemKind::Movie, 1).unwrap();
            item.push([0.0, 0.0], &v).unwrap();
            index.upsert(item).unwrap();
        }
        let mine = arc(ArcShape::ManInAHole);
        let arcs: std::collections::HashMap<&str, _> = [
            ("opposite", arc(ArcShape::Icarus)),
            ("same", arc(ArcShape::ManInAHole)),
            ("far", arc(ArcShape::ManInAHole)),
        ]
        .into_iter()
        .collect();
        let asked = std::cell::RefCell::new(Vec::new());
        let by_arc = |id: &str| {
            asked.borrow_mut().push(id.to_string());
            arcs.get(id).map(|other| mine.distance_to(other))
        };
        let ids = |found: Vec<SimilarItem>| found.into_iter().map(|f| f.inventory_id).collect::<Vec<_>>();
        let plain = similar_in(&index, "a", &SimilarQuery::default()).unwrap();
        assert_eq!(plain[0].score, plain[1].score, "equal embeddings, equal scores");
        let ranked = similar_in_by(&index, "a", &SimilarQuery::default(), &by_arc).unwrap();
        assert_eq!(ids(ranked.clone()), ["same", "opposite", "far"]);
        assert_eq!(
            ranked.iter().map(|r| r.score).collect::<Vec<_>>(),
            plain.iter().map(|r| r.score).collect::<Vec<_>>()
        );
        assert!(!asked.borrow().contains(&"far".to_string()), "only tied titles are asked: {:?}", asked.borrow());
        // A page that ends inside the tie still sees the whole tie.
        let first = similar_in_by(&index, "a", &SimilarQuery { count: 1, ..Default::default() }, &by_arc).unwrap();
        assert_eq!(ids(first), ["same"]);
        let second =
            similar_in_by(&index, "a", &SimilarQuery { skip: 1, count: 1, ..Default::default() }, &by_arc).unwrap();
        assert_eq!(ids(second), ["opposite"]);
        // Titles without an arc come after those with one.
        let missing =
            similar_in_by(&index, "a", &SimilarQuery::default(), &|id: &str| (id == "opposite").then_some(1.0))
                .unwrap();
        assert_eq!(ids(missing)[..2], ["opposite", "same"]);
    }
}
