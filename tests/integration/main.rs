//! The integration test binary: one `mod` per area.

mod clips_golden;
mod clips_properties;
mod clips_rules;
mod clips_shot_types;
mod demo_data;
mod query_rules;
mod reference;
mod reported;
mod segments;
mod signals_rules;
mod support;
mod vectors;
