//! The crate's one error type.

use std::fmt;
use std::path::PathBuf;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the core. Every variant names the field (or file) at fault and
/// the rule it broke, so that the service can answer a clear 422 and Python a clear `ValueError`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A signals document broke a rule of `signals.md`.
    #[error("invalid signals: `{field}` {rule}")]
    InvalidSignals {
        /// Dotted path of the offending field, e.g. `timelines.nudity[12]`.
        field: String,
        /// The rule it broke, e.g. `must be in [0, 1] (got 1.5)`.
        rule: String,
    },
    /// A signals document is not well-formed JSON of the expected shape.
    #[error("invalid signals JSON at `{path}`: {message}")]
    SignalsJson {
        /// Path of the offending value (`.` for the document itself).
        path: String,
        /// What the parser expected.
        message: String,
    },
    /// A binary signals file is truncated, corrupted or of another format version.
    #[error("invalid binary signals: {reason}")]
    SignalsBinary {
        /// Why it was rejected.
        reason: String,
    },
    /// One or more clip-search parameters are invalid; see [`QueryIssue`].
    #[error("{}", IssueList(issues))]
    InvalidQuery {
        /// Every problem found, in parameter order.
        issues: Vec<QueryIssue>,
    },
    /// A request needs a part of the signals document that this item lacks.
    #[error("`{field}` is required by {needed_by}, but this item's signals have none")]
    MissingSignal {
        /// The missing signals field.
        field: &'static str,
        /// The parameter or product that needs it.
        needed_by: &'static str,
    },
    /// `search_query` was given without the query's embedding (or the other way round).
    #[error("search_query and query_embedding go together: encode the search_query with a TextEncoder and pass both")]
    MissingQueryEmbedding,
    /// A text to encode holds no words.
    #[error("text has no words to encode")]
    EmptyText,
    /// A learned [`TextEncoder`](crate::TextEncoder) could not run its model: a failure of the
    /// encoder, not of the text.
    #[error("text encoder {encoder} failed: {reason}")]
    TextEncoder {
        /// The encoder's version, e.g. `all-minilm-l6-v2 1.0.0`.
        encoder: String,
        /// What went wrong.
        reason: String,
    },
    /// A vector of the wrong length was given.
    #[error("wrong vector dimension for {what}: expected {expected}, got {received}")]
    WrongVectorDimension {
        /// What the vector is (e.g. `query_embedding`).
        what: &'static str,
        /// The dimension required.
        expected: usize,
        /// The dimension given.
        received: usize,
    },
    /// An argument of a core function is out of its range.
    #[error("invalid argument `{name}`: {rule}")]
    InvalidArgument {
        /// The argument's name, e.g. `window`.
        name: &'static str,
        /// The rule it broke, e.g. `must be finite and > 0 (got -1)`.
        rule: String,
    },
    /// A vector index file is truncated, corrupted, of another format version, or inconsistent.
    #[error("invalid vector index file {path}: {rule}")]
    IndexFile {
        /// The file (`<memory>` for an in-memory index).
        path: PathBuf,
        /// The rule it broke, e.g. `truncated: the header says 4096 bytes, the file has 1000`.
        rule: String,
    },
    /// A vector given to a vector collection is unusable.
    #[error("invalid vector {what}[{index}]: {rule}")]
    InvalidVector {
        /// What the vector is (e.g. `vectors`, `query`).
        what: &'static str,
        /// Its position.
        index: usize,
        /// The rule it broke, e.g. `must be finite`.
        rule: &'static str,
    },
    /// A vector-search or index-build parameter is out of range.
    #[error("invalid parameter `{param}`: {rule}")]
    InvalidParameter {
        /// The parameter, e.g. `ef_construction`.
        param: &'static str,
        /// The rule, e.g. `must be in [2, 128] (got 300)`.
        rule: String,
    },
    /// An id was given twice to a collection whose ids must be unique.
    #[error("duplicate id `{id}` in {what}")]
    DuplicateId {
        /// The id.
        id: String,
        /// The collection, e.g. `item collection`.
        what: &'static str,
    },
    /// An id is not in the index.
    #[error("unknown id `{id}` in {what}")]
    UnknownId {
        /// The id.
        id: String,
        /// The index, e.g. `item index`.
        what: &'static str,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn signals(field: impl Into<String>, rule: impl Into<String>) -> Self {
        Error::InvalidSignals { field: field.into(), rule: rule.into() }
    }

    pub(crate) fn argument(name: &'static str, rule: impl Into<String>) -> Self {
        Error::InvalidArgument { name, rule: rule.into() }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

/// The kind of a parameter problem, named as pydantic names its error types so that the service
/// can answer in the FastAPI validation shape without translating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueKind {
    /// A required parameter is absent.
    Missing,
    /// Not an integer.
    IntParsing,
    /// Not a number.
    FloatParsing,
    /// A number, but NaN or infinite.
    FiniteNumber,
    /// Not a boolean.
    BoolParsing,
    /// Below a `>=` bound.
    GreaterThanEqual,
    /// Above a `<=` bound.
    LessThanEqual,
    /// Not one of the allowed values.
    Enum,
    /// A string shorter than allowed.
    StringTooShort,
    /// A rule across parameters, or a version gate.
    ValueError,
}

impl IssueKind {
    /// The pydantic error type name (`int_parsing`, `greater_than_equal`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            IssueKind::Missing => "missing",
            IssueKind::IntParsing => "int_parsing",
            IssueKind::FloatParsing => "float_parsing",
            IssueKind::FiniteNumber => "finite_number",
            IssueKind::BoolParsing => "bool_parsing",
            IssueKind::GreaterThanEqual => "greater_than_equal",
            IssueKind::LessThanEqual => "less_than_equal",
            IssueKind::Enum => "enum",
            IssueKind::StringTooShort => "string_too_short",
            IssueKind::ValueError => "value_error",
        }
    }
}

/// One problem with one clip-search parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryIssue {
    /// The parameter's interface name, e.g. `min_nudity`.
    pub param: String,
    /// What kind of rule was broken.
    pub kind: IssueKind,
    /// A sentence naming the rule, e.g. `Input should be less than or equal to 1`.
    pub message: String,
    /// The offending input as received, when there was one.
    pub input: Option<String>,
    /// The rule's parameters (`{"le": 1}`, `{"expected": "..."}`), JSON `null` when none.
    pub ctx: serde_json::Value,
}

impl fmt::Display for QueryIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.param, self.message)?;
        if let Some(input) = &self.input {
            write!(f, " (got {input:?})")?;
        }
        Ok(())
    }
}

struct IssueList<'a>(&'a [QueryIssue]);

impl fmt::Display for IssueList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid clip query: ")?;
        for (i, issue) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{issue}")?;
        }
        Ok(())
    }
}
