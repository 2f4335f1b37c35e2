//! The characters of an item with their identities across its series, linked by the core
//! (`kino::characters`) from the face descriptors in the episodes' signals, and its speakers with
//! their voices across the series (`kino::speakers`) from the voice descriptors.

use kino::characters::LinkedCharacter;
use kino::speakers::LinkedSpeaker;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::ServiceError;
use crate::signals::SignalsCache;
use crate::store::{ItemRow, OrgId, Store};

/// An item's characters and who they are across its series.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CharactersAnswer {
    /// The item.
    pub inventory_id: String,
    /// Its series, for an episode; `null` otherwise (identities are then the item's own).
    pub series_id: Option<String>,
    /// How many titles were linked (the series' episodes with signals).
    pub titles_linked: usize,
    /// Its characters in rank order, each with its series identity (the same number in every
    /// episode for the same person; 0 has the most screen time over the series).
    pub characters: Vec<LinkedCharacter>,
    /// Its speakers, most speaking time first, each with its voice across the series (the same
    /// number in every episode for the same voice; 0 speaks most over the series) and the
    /// character it was seen as; empty when the voices were not told apart.
    pub speakers: Vec<LinkedSpeaker>,
}

/// The characters and speakers of the live `item`, linked over the episodes of its series that
/// have signals (over the item alone when it is not an episode); not found when the item has no
/// signals yet.
pub fn characters_of(
    store: &Store,
    signals: &SignalsCache,
    org: OrgId,
    item: ItemRow,
) -> Result<CharactersAnswer, ServiceError> {
    let id = &item.id;
    let Some(own) = crate::signals::prepared(store, signals, org, id)? else {
        return Err(ServiceError::NotFound(format!("item {id:?} has no analysis signals yet")));
    };
    let series = (item.item_type == crate::catalog::ItemType::Episode)
        .then(|| item.episodic("series_id").and_then(Value::as_str).map(String::from))
        .flatten();
    // Season, then episode; missing numbers last.
    let order = |e: &crate::store::ItemRow| {
        let n = |k| e.episodic_number(k).unwrap_or(i64::MAX);
        (n("season_number"), n("episode_number"))
    };
    // The series' episodes with signals, in season and episode order (the item included).
    let mut titles = vec![(item.id.clone(), (i64::MIN, i64::MIN), own)];
    if let Some(series) = &series {
        for e in store.children(org, series)? {
            if e.deleted || e.item_type != crate::catalog::ItemType::Episode || e.id == item.id {
                continue;
            }
            if let Some(p) = crate::signals::prepared(store, signals, org, &e.id)? {
                titles.push((e.id.clone(), order(&e), p));
            }
        }
        titles[0].1 = order(&item);
    }
    titles.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    let signals: Vec<&kino::Signals> = titles.iter().map(|(_, _, p)| p.signals()).collect();
    let linked = kino::characters::link(&signals);
    let voices = kino::speakers::link(&signals);
    let at = titles.iter().position(|(t, ..)| *t == item.id).unwrap_or(0);
    Ok(CharactersAnswer {
        inventory_id: item.id,
        series_id: series,
        titles_linked: titles.len(),
        characters: linked.into_iter().nth(at).unwrap_or_default(),
        speakers: voices.into_iter().nth(at).unwrap_or_default(),
    })
}
