//! What an HNSW build is asked for and what it reports ([`HnswParams`], [`BuildProgress`],
//! [`BuildReport`]), and the precision a search walks the graph with: plain types that the index
//! (`mod.rs`), the build (`build.rs`) and the insertion (`insert.rs`) all read, so that none of
//! them reaches back into another for them.

use crate::vectors::format::Codes;

/// Build parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HnswParams {
    /// Links per node on the upper layers (twice as many on layer 0); in `[2, 128]`.
    pub m: usize,
    /// Beam width while inserting; in `[1, 4096]`.
    pub ef_construction: usize,
    /// Compressed copies of the vectors to write beside them (none by default), for searches
    /// at [`Precision::Int8`] or [`Precision::Binary`].
    pub codes: Codes,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams { m: 16, ef_construction: 200, codes: Codes::NONE }
    }
}

/// What a search walks the graph with. The hits' distances are always the float ones: with
/// codes, the beam's candidates are re-ranked with the float vectors, so only those few rows
/// of the floats are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// The float vectors.
    #[default]
    Float,
    /// The int8 codes (a quarter of the floats' bytes).
    Int8,
    /// The binary codes (1/32 of the floats' bytes).
    Binary,
}

impl Precision {
    /// `float`, `int8` or `binary`.
    pub fn parse(name: &str) -> std::result::Result<Precision, String> {
        match name {
            "float" => Ok(Precision::Float),
            "int8" => Ok(Precision::Int8),
            "binary" => Ok(Precision::Binary),
            other => Err(format!("unknown precision {other:?} (expected float, int8 or binary)")),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Precision::Float => "float",
            Precision::Int8 => "int8",
            Precision::Binary => "binary",
        })
    }
}

/// The stage a build is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildStage {
    /// Inserting vectors (in parallel).
    Inserting,
    /// Looking for and linking unreachable nodes.
    Repairing,
}

/// Progress of a build, passed to the caller's callback (the CLI draws a progress bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    /// What is being done.
    pub stage: BuildStage,
    /// Vectors done in this stage.
    pub done: usize,
    /// Vectors in all.
    pub total: usize,
}

/// What a build did.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildReport {
    /// Vectors indexed.
    pub vectors: usize,
    /// Graph layers.
    pub layers: usize,
    /// Nodes layer 0 could not reach from the entry point after insertion.
    pub unreachable_found: usize,
    /// Nodes that were not their own nearest result in a search at ef 16 (then linked from
    /// the nodes that search found).
    pub self_missed: usize,
    /// Links added by both repairs.
    pub links_added: usize,
    /// Seconds spent inserting.
    pub insert_seconds: f64,
    /// Seconds for the whole build (not counting writing the file).
    pub total_seconds: f64,
    /// Threads used for inserting.
    pub threads: usize,
}
