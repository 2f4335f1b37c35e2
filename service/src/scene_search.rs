//! Catalog-wide scene search over the organisation's indexes ([`crate::indexes`]), a domain module
//! (no HTTP here): by text (the description and the scene channels, fused at query time), by a
//! scene, an item or a picture.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use kino::TextEncoder;
use kino::vectors::fusion::{self, ChannelScores, Fusion};
use kino::vectors::{ItemKind, Metric, SegmentFilter, SegmentedIndex, SpannedVector};

use crate::indexes::{Collection, Indexes, ItemCriteria, SearchError, kind_of};
use crate::store::{ItemRow, OrgId, Store};

/// The query of a catalog-wide scene search.
#[derive(Debug, Clone)]
pub enum SceneQuery {
    /// Scenes that match a text (encoded with the service's text encoder).
    Text(String),
    /// Scenes like one scene of an item (the scene starting nearest `start_ts`, within a second).
    Scene {
        /// The item.
        item_id: String,
        /// The scene's start, seconds.
        start_ts: f64,
    },
    /// Scenes like an item as a whole (the mean of its scenes).
    Item(String),
    /// Scenes that look like a picture: its scene-space query
    /// ([`kino_media::example::picture_query`]).
    Picture(Vec<f32>),
}

/// A catalog-wide scene search.
#[derive(Debug, Clone)]
pub struct SceneSearch {
    /// What to look for.
    pub query: SceneQuery,
    /// Which items may be returned (catalog, series, release years).
    pub criteria: ItemCriteria,
    /// Item types; empty: any.
    pub types: Vec<crate::vocabulary::ItemType>,
    /// Only scenes within `[from, to]` seconds of their title.
    pub window: Option<[f64; 2]>,
    /// Results to skip.
    pub skip: usize,
    /// Results to return.
    pub count: usize,
}

/// One scene found.
#[derive(Debug, Clone)]
pub struct SceneMatch {
    /// The item.
    pub item: ItemRow,
    /// Scene start, seconds.
    pub start_ts: f64,
    /// Scene end, seconds.
    pub end_ts: f64,
    /// `(cos + 1) / 2`, 0 to 1: the fused cosine for a text, the scene embedding's otherwise.
    pub score: f64,
}

/// The most deep a search pages: `skip + count` at most this.
pub const MAX_SEARCH_DEPTH: usize = 1000;

/// The best scenes across the organisation's catalog for `search`, best first.
pub fn search_scenes(
    indexes: &Indexes,
    store: &Store,
    encoder: &dyn TextEncoder,
    org: OrgId,
    search: &SceneSearch,
) -> Result<Vec<SceneMatch>, SearchError> {
    let depth = search.skip.saturating_add(search.count);
    if depth > MAX_SEARCH_DEPTH {
        return Err(SearchError::Invalid {
            field: "skip",
            rule: format!("skip + count must be at most {MAX_SEARCH_DEPTH} (got {depth})"),
        });
    }
    if let Some(catalog) = search.criteria.catalog_id
        && !store.has_catalog_id(org, catalog)?
    {
        return Err(SearchError::NotFound(format!("catalog {catalog} not found")));
    }
    let index = indexes.get(store, org, Collection::Scenes)?;
    let (vector, exclude) = match &search.query {
        SceneQuery::Text(text) => {
            if text.trim().is_empty() {
                return Err(SearchError::Invalid { field: "text", rule: "must hold at least one word".into() });
            }
            (encoder.encode(text)?, None)
        }
        SceneQuery::Scene { item_id, start_ts } => {
            let (span, vector) = index.nearest_scene(item_id, *start_ts).ok_or_else(|| no_scenes(item_id))?;
            if (span[0] - start_ts).abs() > 1.0 {
                return Err(SearchError::NotFound(format!("item {item_id:?} has no scene starting at {start_ts} s")));
            }
            (vector, Some(item_id.as_str()))
        }
        SceneQuery::Picture(vector) => {
            if vector.len() != index.config().dim {
                return Err(SearchError::Invalid {
                    field: "body",
                    rule: format!(
                        "a picture's query has {} floats, the scene index {}",
                        vector.len(),
                        index.config().dim
                    ),
                });
            }
            (vector.clone(), None)
        }
        SceneQuery::Item(item_id) => {
            let scenes = own_scenes(&index, item_id)?;
            let mut mean = vec![0f32; index.config().dim];
            for (_, v) in &scenes {
                mean.iter_mut().zip(v).for_each(|(m, x)| *m += x);
            }
            (mean, Some(item_id.as_str()))
        }
    };
    let criteria = &search.criteria;
    let ids: Option<HashSet<String>> = if criteria.narrows() {
        let members: Option<HashSet<String>> = match criteria.catalog_id {
            Some(catalog) => Some(store.catalog_members(org, catalog)?.into_iter().collect()),
            None => None,
        };
        Some(indexes.items_meeting(org, criteria, members.as_ref()))
    } else {
        None
    };
    let kinds: Vec<ItemKind> = search.types.iter().map(|&t| kind_of(t)).collect();
    let filter = SegmentFilter {
        ids: ids.as_ref(),
        kinds: (!kinds.is_empty()).then_some(&kinds[..]),
        window: search.window,
        exclude,
    };
    let metric = index.config().metric;
    let scored: Vec<Scored> = match &search.query {
        SceneQuery::Text(_) => {
            let channels =
                Collection::CHANNELS.map(|c| indexes.get(store, org, c)).into_iter().collect::<Result<Vec<_>, _>>()?;
            fused_search(&index, &channels, &vector, depth, &filter, &Fusion::DEFAULT)?
        }
        _ => index
            .search(&vector, depth, &filter)
            .map_err(|e| match e {
                // The mean of an item's scenes can cancel out; anything else is the index's fault.
                kino::Error::InvalidVector { rule, .. } => {
                    SearchError::Invalid { field: "item_id", rule: rule.to_string() }
                }
                other => SearchError::Index(other),
            })?
            .into_iter()
            .map(|h| Scored { score: kino::vectors::similar::score(metric, h.distance), id: h.id, span: h.span })
            .collect(),
    };
    let page: Vec<_> = scored.into_iter().skip(search.skip).collect();
    let ids: Vec<&str> = page.iter().map(|h| h.id.as_str()).collect();
    let items: HashMap<String, ItemRow> =
        store.live_items(org, &ids)?.into_iter().map(|item| (item.id.clone(), item)).collect();
    Ok(page
        .iter()
        // An item deleted since the hit was indexed is left out (its removal is on its way).
        .filter_map(|hit| {
            Some(SceneMatch {
                item: items.get(&hit.id)?.clone(),
                start_ts: hit.span[0],
                end_ts: hit.span[1],
                score: hit.score,
            })
        })
        .collect())
}

/// A scene found and its score, `(cos + 1) / 2` in `[0, 1]`.
#[derive(Debug, Clone)]
struct Scored {
    id: String,
    span: [f64; 2],
    score: f64,
}

/// Scenes searched for beyond the page in each collection, so that a scene that one channel
/// lifts into the page is among the candidates.
pub const FUSION_POOL: usize = 50;

/// A text query's best `depth` scenes by the fused score of their description (the `scenes`
/// index) and their channels (`channels`, in the order of `SceneChannels::NAMES`): the best
/// `depth + FUSION_POOL` of each collection are the candidates, each scored exactly against every
/// collection (a channel it has no vector for is left out of its fusion), best first.
fn fused_search(
    scenes: &SegmentedIndex,
    channels: &[Arc<SegmentedIndex>],
    query: &[f32],
    depth: usize,
    filter: &SegmentFilter,
    fusion: &Fusion,
) -> Result<Vec<Scored>, SearchError> {
    let pool = depth + FUSION_POOL;
    let mut candidates: Vec<(String, [f64; 2])> = Vec::new();
    let mut seen: HashSet<(String, u64, u64)> = HashSet::new();
    let key = |id: &str, span: [f64; 2]| (id.to_string(), span[0].to_bits(), span[1].to_bits());
    for hits in std::iter::once(scenes.search(query, pool, filter)?).chain(
        channels
            .iter()
            .map(|c| c.search(&query[..c.config().dim.min(query.len())], pool, filter))
            .collect::<Result<Vec<_>, _>>()?,
    ) {
        for h in hits {
            if seen.insert(key(&h.id, h.span)) {
                candidates.push((h.id, h.span));
            }
        }
    }
    // Each candidate item's vectors in each collection, read once.
    let mut vectors: HashMap<(usize, String), Vec<SpannedVector>> = HashMap::new();
    let mut cosine = |at: usize, index: &SegmentedIndex, id: &str, span: [f64; 2]| -> Option<f32> {
        let of = vectors.entry((at, id.to_string())).or_insert_with(|| index.vectors_of(id));
        let (_, v) = of.iter().find(|(s, _)| (s[0] - span[0]).abs() < 1e-6 && (s[1] - span[1]).abs() < 1e-6)?;
        Some(fusion::dot_prefix(query, v))
    };
    let mut scored: Vec<(f32, Scored)> = candidates
        .into_iter()
        .filter_map(|(id, span)| {
            // A scene the scene index does not hold (a channel of signals newer than the result)
            // is not offered.
            let description = cosine(0, scenes, &id, span)?;
            let mut per_channel = [None; 4];
            for (k, c) in channels.iter().enumerate().take(4) {
                per_channel[k] = cosine(k + 1, c, &id, span);
            }
            let fused = fusion.fuse(&ChannelScores { description, channels: per_channel });
            let score = kino::vectors::similar::score(Metric::Cosine, 1.0 - fused);
            Some((fused, Scored { id, span, score }))
        })
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)).then_with(|| a.1.span[0].total_cmp(&b.1.span[0]))
    });
    Ok(scored.into_iter().take(depth).map(|(_, s)| s).collect())
}

/// The indexed scenes of an item (404 when it has none: not live, or no scene embeddings yet).
fn own_scenes(index: &SegmentedIndex, item_id: &str) -> Result<Vec<SpannedVector>, SearchError> {
    let scenes = index.vectors_of(item_id);
    if scenes.is_empty() {
        return Err(no_scenes(item_id));
    }
    Ok(scenes)
}

fn no_scenes(item_id: &str) -> SearchError {
    SearchError::NotFound(format!(
        "item {item_id:?} not found, or without scene embeddings (no successful semantic_scenes task)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kino::vectors::{ItemVectors, SegmentConfig};

    /// A unit vector of `dim` from a seed (a random direction), and one near another vector.
    fn direction(dim: usize, seed: u64) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    fn blend(a: &[f32], b: &[f32], t: f32) -> Vec<f32> {
        let mut v: Vec<f32> = a.iter().zip(b).map(|(x, y)| (1.0 - t) * x + t * y).collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    fn lifted(v: &[f32]) -> Vec<f32> {
        let mut out = v.to_vec();
        out.resize(kino::signals::SCENE_EMBEDDING_DIM, 0.0);
        out
    }

    /// Scenes whose descriptions sit at increasing distances from the query, and one scene whose
    /// description is far but whose `said` channel holds the query's words: the fused search
    /// lifts that scene to the top, ranks everything exactly as fusing every scene would, and a
    /// scene without channels keeps its description's score.
    #[test]
    fn a_channel_that_matches_lifts_its_scene_and_the_ranking_is_the_exhaustive_one() {
        let dir = tempfile::tempdir().unwrap();
        let open = |name: &str, dim: usize| {
            SegmentedIndex::open(dir.path().join(name), SegmentConfig::new(dim, Metric::Cosine, true)).unwrap().0
        };
        let text_dim = kino_models::SENTENCE_DIM;
        let scenes = open("scenes", kino::signals::SCENE_EMBEDDING_DIM);
        let channels: Vec<Arc<SegmentedIndex>> =
            (0..4).map(|k| Arc::new(open(&format!("channel-{k}"), text_dim))).collect();
        let query = direction(text_dim, 1);
        // Half the description, half the best channel where it is better.
        let fusion = Fusion { description_weight: 0.5, offsets: [0.0; 4] };
        let mut exhaustive: Vec<(String, f64, f32)> = Vec::new();
        for item in 0..6u64 {
            let id = format!("t{item}");
            let config = scenes.config().clone();
            let mut described = ItemVectors::new(&config, &id, ItemKind::Movie, 1).unwrap();
            let mut said = ItemVectors::new(channels[1].config(), &id, ItemKind::Movie, 1).unwrap();
            for scene in 0..20u64 {
                let span = [scene as f64 * 10.0, scene as f64 * 10.0 + 10.0];
                let other = direction(text_dim, 100 + item * 50 + scene);
                // Descriptions from close to the query (t0's first scenes) to far from it.
                let closeness = 0.3 - 0.01 * scene as f32 - 0.02 * item as f32;
                let description = blend(&other, &query, closeness);
                described.push(span, &lifted(&description)).unwrap();
                let mut channel = [None; 4];
                // Items with channels: even ones. t4's scene 15 says the query's words.
                if item % 2 == 0 {
                    let words = if item == 4 && scene == 15 { blend(&other, &query, 0.95) } else { other.clone() };
                    said.push(span, &words).unwrap();
                    channel[1] = Some(fusion::dot_prefix(&query, &words));
                }
                let d = fusion::dot_prefix(&query, &description);
                let fused = fusion.fuse(&ChannelScores { description: d, channels: channel });
                exhaustive.push((id.clone(), span[0], fused));
            }
            scenes.upsert(described).unwrap();
            if !said.is_empty() {
                channels[1].upsert(said).unwrap();
            }
        }
        exhaustive.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)).then_with(|| a.1.total_cmp(&b.1)));
        let filter = SegmentFilter { ids: None, kinds: None, window: None, exclude: None };
        let found = fused_search(&scenes, &channels, &lifted(&query), 10, &filter, &fusion).unwrap();
        assert_eq!(found.len(), 10);
        let got: Vec<(String, f64)> = found.iter().map(|s| (s.id.clone(), s.span[0])).collect();
        let want: Vec<(String, f64)> = exhaustive.iter().take(10).map(|(id, start, _)| (id.clone(), *start)).collect();
        assert_eq!(got, want);
        assert_eq!(got[0], ("t4".to_string(), 150.0), "the scene that says the query's words comes first");
        // Its description alone ranks it far down: the channel lifted it by a margin.
        let description_rank = {
            let plain = scenes.search(&lifted(&query), 120, &filter).unwrap();
            plain.iter().position(|h| h.id == "t4" && h.span[0] == 150.0).unwrap_or(usize::MAX)
        };
        assert!(description_rank > 20, "by its description alone it ranks {description_rank}");
        // Without any channel the search is the description's, scores included.
        let none: Vec<Arc<SegmentedIndex>> = (4..8).map(|k| Arc::new(open(&format!("empty-{k}"), text_dim))).collect();
        let plain = fused_search(&scenes, &none, &lifted(&query), 5, &filter, &fusion).unwrap();
        let direct = scenes.search(&lifted(&query), 5, &filter).unwrap();
        for (p, d) in plain.iter().zip(&direct) {
            assert_eq!((p.id.as_str(), p.span), (d.id.as_str(), d.span));
            assert!((p.score - kino::vectors::similar::score(Metric::Cosine, d.distance)).abs() < 1e-3);
        }
    }
}
