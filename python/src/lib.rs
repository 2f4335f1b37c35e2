//! The native module `kino._kino` behind the Python package `kino`.
//!
//! Thin by design: each function parses its arguments, calls the core with the GIL released
//! (`py.detach`), and shapes the answer as the interface's field names. Core errors become Python
//! exceptions in one place, [`errors::to_py_err`].

mod clips;
mod convert;
mod errors;
mod media;
mod products;
mod segments;
mod signals;
mod vectors;

use pyo3::prelude::*;

/// Content intelligence for video catalogs: media analysis, clip selection, vector search, text
/// encoders, emotions, profanity, webhooks.
#[pymodule]
fn _kino(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULTS", products::defaults(m.py())?)?;
    errors::register(m)?;
    m.add_class::<signals::PySignals>()?;
    m.add_class::<products::PyTextEncoder>()?;
    m.add_function(wrap_pyfunction!(signals::synth_signals, m)?)?;
    m.add_function(wrap_pyfunction!(media::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(media::models, m)?)?;
    m.add_function(wrap_pyfunction!(media::transcribe, m)?)?;
    m.add_function(wrap_pyfunction!(products::content_summary, m)?)?;
    m.add_function(wrap_pyfunction!(products::nudity, m)?)?;
    m.add_function(wrap_pyfunction!(products::compare_fingerprints, m)?)?;
    m.add_function(wrap_pyfunction!(products::duplicate_groups, m)?)?;
    m.add_function(wrap_pyfunction!(products::fingerprint_profile, m)?)?;
    m.add_function(wrap_pyfunction!(products::season_markers, m)?)?;
    m.add_function(wrap_pyfunction!(products::link_characters, m)?)?;
    m.add_function(wrap_pyfunction!(products::adbreaks, m)?)?;
    m.add_function(wrap_pyfunction!(products::contextual_adbreaks, m)?)?;
    m.add_function(wrap_pyfunction!(products::scene_tags, m)?)?;
    m.add_function(wrap_pyfunction!(clips::select_clips, m)?)?;
    m.add_function(wrap_pyfunction!(clips::select_thumbnails, m)?)?;
    m.add_function(wrap_pyfunction!(clips::select_many, m)?)?;
    m.add_function(wrap_pyfunction!(clips::clip_types, m)?)?;
    m.add_function(wrap_pyfunction!(products::emotion_windows, m)?)?;
    m.add_function(wrap_pyfunction!(products::profanity, m)?)?;
    m.add_function(wrap_pyfunction!(products::choose_frame, m)?)?;
    m.add_function(wrap_pyfunction!(products::sign_webhook, m)?)?;
    m.add_function(wrap_pyfunction!(products::verify_webhook, m)?)?;
    m.add_class::<vectors::PyVectorIndex>()?;
    m.add_class::<segments::PySegmentedIndex>()?;
    m.add_function(wrap_pyfunction!(vectors::exact_search, m)?)?;
    Ok(())
}
