//! Reading stored results across a catalog: a product's results updated in a time window, for the
//! items that are live (not deleted), each with its item. The result lists of every product and of
//! the binge markers read through it; the routes parse the window and page the answer.

use crate::store::{ItemRow, OrgId, ResultRow, Store, StoreError};
use crate::vocabulary::{ItemType, Product};

/// The window of a results list: a result version or any, and the update times.
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// Only results of this version (`None`: any).
    pub version: Option<&'a str>,
    /// Updated at or after this time (RFC 3339; `None`: from the first).
    pub from: Option<&'a str>,
    /// Updated at or before this time (RFC 3339).
    pub to: &'a str,
}

/// The results of `product` in `window`, oldest update first, of the live items of `org` (of one
/// of `types` when given), each with its item.
pub fn live_results(
    store: &Store,
    org: OrgId,
    product: Product,
    window: Window<'_>,
    types: Option<&[ItemType]>,
) -> Result<Vec<(ItemRow, ResultRow)>, StoreError> {
    let (rows, _) = store.results(org, product, window.version, window.from, window.to, 0, i64::MAX)?;
    let mut live = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(item) = store.item(org, &row.item_id)? else { continue };
        if item.deleted || types.is_some_and(|t| !t.contains(&item.item_type)) {
            continue;
        }
        live.push((item, row));
    }
    Ok(live)
}
