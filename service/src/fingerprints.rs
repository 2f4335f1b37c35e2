//! The audio fingerprints of an organisation's titles, which the duplicate search compares
//! (`kino::fingerprint`).

use kino::signals::AudioFingerprint;

use crate::error::ServiceError;
use crate::signals::SignalsCache;
use crate::store::{OrgId, Store};

/// The live items of `org` whose signals carry an audio fingerprint.
pub fn fingerprints(
    store: &Store,
    signals: &SignalsCache,
    org: OrgId,
) -> Result<Vec<(String, AudioFingerprint)>, ServiceError> {
    let mut out = Vec::new();
    let mut offset = 0;
    loop {
        let page = store.items(org, false, offset, 1000)?;
        if page.is_empty() {
            break;
        }
        offset += page.len() as i64;
        for item in page {
            if let Some(p) = crate::signals::prepared(store, signals, org, &item.id)?
                && let Some(fp) = &p.signals().audio_fingerprint
            {
                out.push((item.id, fp.clone()));
            }
        }
    }
    Ok(out)
}
