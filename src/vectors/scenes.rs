//! Scene collections: many 1024-d vectors per item, each with its item id and `start_ts` /
//! `end_ts`. Search returns scenes, or the best scene per item; text queries go through a
//! [`TextEncoder`].

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::signals::Signals;
use crate::text::TextEncoder;
use crate::vectors::distance::Metric;
use crate::vectors::filter::Filter;
use crate::vectors::index::{Hit, VectorIndex};
use crate::vectors::set::{ItemKind, VectorSet};

/// One scene found by a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneHit {
    /// The item the scene belongs to.
    pub item_id: String,
    /// The scene's node in the index.
    pub node: u32,
    /// Scene start, seconds.
    pub start_ts: f64,
    /// Scene end, seconds.
    pub end_ts: f64,
    /// Similarity to the query (the cosine, for a cosine index).
    pub score: f32,
}

fn to_scene(index: &dyn VectorIndex, hit: Hit) -> Result<SceneHit> {
    let [start_ts, end_ts] = index.span(hit.node);
    Ok(SceneHit {
        item_id: index.id(hit.node)?.to_string(),
        node: hit.node,
        start_ts,
        end_ts,
        score: index.metric().similarity(hit.distance),
    })
}

/// The `k` scenes nearest to `query`, best first.
pub fn search_scenes(
    index: &dyn VectorIndex,
    query: &[f32],
    k: usize,
    filter: Option<&dyn Filter>,
) -> Result<Vec<SceneHit>> {
    index.search_with(query, k, filter)?.into_iter().map(|h| to_scene(index, h)).collect()
}

/// The best scene of each of the `k` items whose scenes are nearest to `query`, best first.
/// Searches for more scenes than `k` (doubling until `k` items are found or every scene was
/// seen), since one item may own many of the nearest scenes.
pub fn best_scene_per_item(
    index: &dyn VectorIndex,
    query: &[f32],
    k: usize,
    filter: Option<&dyn Filter>,
) -> Result<Vec<SceneHit>> {
    let mut want = k.saturating_mul(4).max(32).min(index.len().max(1));
    loop {
        let hits = index.search_with(query, want, filter)?;
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(k.min(hits.len()));
        for hit in &hits {
            let id = index.id(hit.node)?;
            if seen.insert(id) {
                out.push(to_scene(index, *hit)?);
                if out.len() == k {
                    return Ok(out);
                }
            }
        }
        if hits.len() < want || want >= index.len() {
            return Ok(out);
        }
        want = (want * 2).min(index.len());
    }
}

/// Encodes `text` with `encoder` and searches scenes; `per_item` keeps the best scene per item.
pub fn search_text(
    index: &dyn VectorIndex,
    encoder: &dyn TextEncoder,
    text: &str,
    k: usize,
    per_item: bool,
    filter: Option<&dyn Filter>,
) -> Result<Vec<SceneHit>> {
    if encoder.dim() != index.dim() {
        return Err(Error::WrongVectorDimension {
            what: "text encoder output",
            expected: index.dim(),
            received: encoder.dim(),
        });
    }
    let query = encoder.encode(text)?;
    if per_item { best_scene_per_item(index, &query, k, filter) } else { search_scenes(index, &query, k, filter) }
}

/// A cosine scene set from signals documents: one vector per scene of every document that has
/// scene embeddings, with the scene's span; `kind_of` gives each item's kind.
pub fn scene_set(docs: &[Signals], kind_of: impl Fn(&Signals) -> ItemKind) -> Result<VectorSet> {
    let dim = docs
        .iter()
        .find_map(|d| d.scene_embeddings.as_ref()?.first().map(Vec::len))
        .unwrap_or(crate::signals::SCENE_EMBEDDING_DIM);
    let mut set = VectorSet::scenes(dim, Metric::Cosine)?;
    for doc in docs {
        let Some(embeddings) = &doc.scene_embeddings else { continue };
        for (scene, embedding) in doc.scenes.iter().zip(embeddings) {
            set.push_scene(&doc.inventory_id, kind_of(doc), scene.start, scene.end, embedding)?;
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::LexicalEncoder;
    use crate::vectors::exact::ExactIndex;
    use crate::vectors::hnsw::{HnswIndex, HnswParams};

    fn scenes() -> VectorSet {
        let enc = LexicalEncoder::with_dim(64);
        let mut set = VectorSet::scenes(64, Metric::Cosine).unwrap();
        let texts = [
            ("a", "car chase at night"),
            ("a", "explosion in the city"),
            ("a", "car chase on the highway"),
            ("b", "kiss on the beach"),
            ("b", "car chase in the rain"),
            ("c", "quiet dinner"),
        ];
        for (i, (item, text)) in texts.iter().enumerate() {
            set.push_scene(item, ItemKind::Movie, i as f64 * 10.0, i as f64 * 10.0 + 9.0, &enc.encode(text).unwrap())
                .unwrap();
        }
        set
    }

    #[test]
    fn text_finds_scenes_and_groups_by_item() {
        let set = scenes();
        let enc = LexicalEncoder::with_dim(64);
        let exact = ExactIndex::new(&set).unwrap();
        let (hnsw, _) = HnswIndex::build(&set, &HnswParams::default(), |_| {}).unwrap();
        for index in [&exact as &dyn VectorIndex, &hnsw] {
            let hits = search_text(index, &enc, "car chase", 3, false, None).unwrap();
            assert_eq!(hits.len(), 3);
            assert!(hits.iter().all(|h| h.item_id != "c"));
            assert_eq!(hits[0].end_ts - hits[0].start_ts, 9.0);
            let per_item = search_text(index, &enc, "car chase", 3, true, None).unwrap();
            let items: Vec<&str> = per_item.iter().map(|h| h.item_id.as_str()).collect();
            assert_eq!(items.len(), 3);
            assert_eq!(items[..2].iter().copied().collect::<HashSet<_>>(), HashSet::from(["a", "b"]));
            assert_eq!(index.nodes_of("a"), vec![0, 1, 2]);
        }
        let wrong = LexicalEncoder::with_dim(32);
        assert!(matches!(search_text(&exact, &wrong, "car", 3, false, None), Err(Error::WrongVectorDimension { .. })));
    }
}
