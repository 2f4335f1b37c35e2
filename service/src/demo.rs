//! The demo organisation: on first start, one organisation with one catalog, an API key printed
//! once, and the demo catalog of `data/` ingested with its signals and processed.

use std::path::Path;

use kino::Signals;

use crate::catalog::{self, CatalogItem};
use crate::changes::Effects;
use crate::products::Product;
use crate::signals::SignalsCache;
use crate::store::Store;

/// The demo organisation's name.
pub const DEMO_ORG: &str = "demo";
/// The demo catalog's name (the previews `catalog` parameter).
pub const DEMO_CATALOG: &str = "demo";
/// The version recorded for the demo's tasks.
pub const DEMO_VERSION: &str = "1.0.0";

/// The demo catalog's directory, resolved when the service starts (never a path fixed at build
/// time): `explicit` when given; else `data/demo` under the working directory; else, beside the
/// executable, the source checkout's `data/demo` (`target/<profile>/kino-server`) or an install
/// prefix's `share/kino/demo` (`<prefix>/bin/kino-server`). `None` when none holds a catalog.
pub fn find_dir(explicit: Option<&Path>) -> Option<std::path::PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir.to_path_buf());
    }
    let mut candidates = vec![std::path::PathBuf::from("data/demo")];
    if let Some(bin) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        for up in bin.ancestors().take(4) {
            candidates.push(up.join("data/demo"));
            candidates.push(up.join("share/kino/demo"));
        }
    }
    candidates.into_iter().find(|d| d.join("catalog.json").is_file())
}

/// Creates the demo organisation when it does not exist yet; returns its new API key (shown once),
/// or `None` when it already existed.
pub fn bootstrap(
    store: &Store,
    signals_cache: &SignalsCache,
    fx: &Effects,
    demo_dir: &Path,
) -> Result<Option<String>, String> {
    let (org, created) = store.ensure_org(DEMO_ORG).map_err(|e| e.to_string())?;
    if !created {
        return Ok(None);
    }
    store.ensure_catalog(org, DEMO_CATALOG).map_err(|e| e.to_string())?;
    store.set_catalog_generation(org, DEMO_CATALOG, true).map_err(|e| e.to_string())?;
    let (key, _) = crate::identity::api_keys::create_key(store, org).map_err(|e| e.to_string())?;
    let catalog_path = demo_dir.join("catalog.json");
    let text = std::fs::read_to_string(&catalog_path).map_err(|e| format!("{}: {e}", catalog_path.display()))?;
    let items: Vec<serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", catalog_path.display()))?;
    let mut playable = Vec::new();
    for value in items {
        let item = CatalogItem::parse(value.to_string().as_bytes()).map_err(|e| format!("demo item: {e:?}"))?;
        let id = item.id.clone();
        let has_asset = item.asset_info.is_some();
        catalog::upsert(store, fx, org, item).map_err(|e| format!("demo item {id}: {e}"))?;
        if has_asset {
            playable.push(id);
        }
    }
    for id in &playable {
        let path = demo_dir.join("signals").join(format!("{id}.json"));
        let signals = Signals::load(&path).map_err(|e| e.to_string())?;
        // The demo asks only for what its data can give: generated signals have no audio
        // fingerprint and no transcript (only an analysis of real media has them), so the
        // products that cannot be computed without them (the fingerprints) are not requested,
        // and the demo's task list shows no failure on first contact. The content summary is:
        // without a transcript it still has the title's emotional arc.
        let fingerprinted = signals.audio_fingerprint.is_some();
        let words = kino::LexicalEncoder::default();
        // A product computed elsewhere than `compute` (the season's markers) answers
        // NOT_AVAILABLE there and is requested as before.
        let computable = |p: &&Product| match crate::products::compute(**p, &signals, &words) {
            Ok(_) => true,
            Err(e) => e == crate::products::NOT_AVAILABLE,
        };
        let wanted: Vec<Product> = Product::ALL
            .iter()
            .filter(|p| fingerprinted || !matches!(p, Product::Fingerprint | Product::Fingerprintplus))
            .filter(computable)
            .copied()
            .collect();
        crate::signals::put(store, signals_cache, fx, org, id, signals).map_err(|e| e.to_string())?;
        for product in wanted {
            store
                .upsert_task(org, id, product, DEMO_VERSION, "{}", crate::tasks::MAX_ACTIVE_VERSIONS)
                .map_err(|e| e.to_string())?;
        }
    }
    tracing::info!(items = playable.len(), "demo catalog ingested; processing in the background");
    Ok(Some(key))
}
