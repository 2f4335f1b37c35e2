//! The season of an episode as the markers read it: its episodes' signals in episode order, and
//! a stored markers result.

use kino::signals::Signals;
use serde_json::Value;

/// The markers of a stored `markers` result, when it succeeded.
pub fn stored_markers(row: Option<&crate::store::ResultRow>) -> Option<kino::markers::Markers> {
    row.filter(|r| r.status == crate::store::ResultStatus::Success)
        .and_then(|r| r.data.clone())
        .and_then(|d| serde_json::from_value(d).ok())
}

/// An episode of a season: its id, its number, and what the markers read of its signals
/// ([`kino::markers::read_by_markers`]).
pub type SeasonEpisode = (String, Option<i64>, Signals);

/// The episodes of the season of `item` (itself included) with their numbers and what the markers
/// read of their signals, in episode order; just the item when it is not an episode of a season.
/// Episodes without signals are left out. Episodes are read one at a time, each document dropped
/// once its part is kept, and the others are not added to the signals cache.
pub fn season_of(
    store: &crate::store::Store,
    cache: &crate::signals::SignalsCache,
    org: crate::store::OrgId,
    item: &crate::store::ItemRow,
    own: &Signals,
) -> Result<Vec<SeasonEpisode>, crate::error::ServiceError> {
    let read = kino::markers::read_by_markers;
    let mut out = vec![(item.id.clone(), item.episodic_number("episode_number"), read(own))];
    if let Some(season) = season_id(item) {
        for e in store.children(org, &season)? {
            if e.deleted || e.id == item.id || season_id(&e).as_deref() != Some(&season) {
                continue;
            }
            if let Some(s) = crate::signals::read_with(store, cache, org, &e.id, read)? {
                out.push((e.id.clone(), e.episodic_number("episode_number"), s));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    Ok(out)
}

pub use crate::catalog::season::season_id;

/// The markers of `item` among its season's episodes.
pub fn markers_of(
    store: &crate::store::Store,
    cache: &crate::signals::SignalsCache,
    org: crate::store::OrgId,
    item: &crate::store::ItemRow,
    own: &Signals,
) -> Result<Value, String> {
    let season = season_of(store, cache, org, item, own).map_err(|e| e.to_string())?;
    let episodes: Vec<kino::markers::Episode<'_>> =
        season.iter().map(|(_, n, s)| kino::markers::Episode { number: *n, signals: s }).collect();
    let all = kino::markers::season_markers(&episodes);
    let i = season.iter().position(|(id, ..)| *id == item.id).ok_or("the item is not in its season")?;
    serde_json::to_value(&all[i]).map_err(|e| e.to_string())
}
