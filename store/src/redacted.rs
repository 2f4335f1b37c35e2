//! What a `Debug` shows in place of a secret (a leaf module: every layer that holds a secret
//! uses it, and it uses nothing).

/// What a `Debug` shows in place of a secret (a token, key, password, signing or client
/// secret): `<redacted>`. The service's types that hold one format with this instead of the
/// value, so that no log line, panic message or `{:?}` can carry it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Redacted;

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}
