//! Limits on every string of a catalog item: identifiers, URIs, short and long text. Each is
//! bounded in length and refuses control characters, so that an id can always be used in a path
//! (an id of 1.5 million characters once made every path route answer 431) and no stored text
//! carries a NUL or a terminal escape.

use serde_json::{Value, json};

use crate::error::Detail;

/// The longest identifier (`id`, `series_id`, `season_id`, an external id and its provider).
pub const MAX_ID_CHARS: usize = 256;
/// The longest URI (`file_uri`, `video_playback_uri`, poster and logo URLs).
pub const MAX_URI_CHARS: usize = 4096;
/// The longest description (`short_description`, `long_description`).
pub const MAX_LONG_TEXT_CHARS: usize = 20_000;
/// The longest other string (titles, tags, genres, keywords, names, ratings, asset parameters).
pub const MAX_TEXT_CHARS: usize = 1_000;
/// How much of an offending string an error echoes.
const ECHO_CHARS: usize = 64;

/// The kinds of string, by the rule each follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Id,
    Uri,
    LongText,
    Text,
}

impl Kind {
    /// The rule of the string at `path` (object keys, array indices as numbers).
    fn of(path: &[String]) -> Kind {
        let keys: Vec<&str> = path.iter().map(String::as_str).filter(|k| k.parse::<usize>().is_err()).collect();
        match keys.as_slice() {
            ["asset_info", "asset_params", ..] => Kind::Text,
            ["poster_urls"] | ["logo_urls", _] => Kind::Uri,
            [.., "id" | "series_id" | "season_id" | "provider"] => Kind::Id,
            [.., "file_uri" | "video_playback_uri"] => Kind::Uri,
            [.., "short_description" | "long_description"] => Kind::LongText,
            _ => Kind::Text,
        }
    }

    fn max(self) -> usize {
        match self {
            Kind::Id => MAX_ID_CHARS,
            Kind::Uri => MAX_URI_CHARS,
            Kind::LongText => MAX_LONG_TEXT_CHARS,
            Kind::Text => MAX_TEXT_CHARS,
        }
    }

    /// Whether `c` is refused: every control character (U+0000 to U+001F, U+007F to U+009F);
    /// descriptions may hold tabs and line breaks.
    fn refuses(self, c: char) -> bool {
        c.is_control() && !(self == Kind::LongText && matches!(c, '\t' | '\n' | '\r'))
    }
}

/// Every string of `body` (an item as JSON) checked against its rule; object keys count as text.
pub fn check(body: &Value) -> Vec<Detail> {
    let mut issues = Vec::new();
    walk(body, &mut Vec::new(), &mut issues);
    issues
}

fn walk(value: &Value, path: &mut Vec<String>, issues: &mut Vec<Detail>) {
    match value {
        Value::String(s) => check_one(s, Kind::of(path), path, issues),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(i.to_string());
                walk(v, path, issues);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(k.clone());
                check_one(k, Kind::Text, path, issues);
                walk(v, path, issues);
                path.pop();
            }
        }
        _ => {}
    }
}

fn check_one(s: &str, kind: Kind, path: &[String], issues: &mut Vec<Detail>) {
    let loc = || std::iter::once("body".to_string()).chain(path.iter().cloned()).collect::<Vec<_>>();
    let echo = || {
        let mut shown: String = s.chars().take(ECHO_CHARS).collect();
        if s.chars().nth(ECHO_CHARS).is_some() {
            shown.push('…');
        }
        json!(shown)
    };
    let max = kind.max();
    // Counting stops past the limit: a string of millions of characters costs no more.
    if s.len() > max && s.chars().nth(max).is_some() {
        issues.push(Detail {
            kind: "string_too_long".into(),
            loc: loc(),
            msg: format!("String should have at most {max} characters"),
            input: echo(),
            ctx: json!({"max_length": max}),
        });
    }
    if let Some(c) = s.chars().find(|&c| kind.refuses(c)) {
        let allowed = if kind == Kind::LongText { " other than tab and line breaks" } else { "" };
        issues.push(Detail {
            kind: "string_pattern_mismatch".into(),
            loc: loc(),
            msg: format!(
                "String should not contain control characters (U+0000 to U+001F, U+007F to U+009F){allowed}; found U+{:04X}",
                u32::from(c)
            ),
            input: echo(),
            ctx: json!({"pattern": if kind == Kind::LongText { "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$" } else { "^[^\\x00-\\x1f\\x7f-\\x9f]*$" }}),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locs(body: Value) -> Vec<(String, String)> {
        check(&body).into_iter().map(|d| (d.loc.join("."), d.kind)).collect()
    }

    #[test]
    fn each_kind_of_string_has_its_limit() {
        let ok = json!({"id": "x".repeat(MAX_ID_CHARS), "title": "é".repeat(MAX_TEXT_CHARS),
            "metadata": {"long_description": "line\n\tline\r\n".repeat(100)},
            "asset_info": {"file_uri": "a b/".repeat(1000)}});
        assert!(locs(ok).is_empty());
        let long = json!({"id": "x".repeat(1_500_000), "title": "t".repeat(MAX_TEXT_CHARS + 1),
            "episodic_info": {"series_id": "s".repeat(MAX_ID_CHARS + 1)},
            "external_ids": [{"provider": "IMDB", "id": "i".repeat(MAX_ID_CHARS + 1)}],
            "poster_urls": ["u".repeat(MAX_URI_CHARS + 1)]});
        let found = locs(long);
        for loc in
            ["body.id", "body.title", "body.episodic_info.series_id", "body.external_ids.0.id", "body.poster_urls.0"]
        {
            assert!(found.contains(&(loc.to_string(), "string_too_long".to_string())), "{loc}: {found:?}");
        }
        let issues = check(&json!({"id": "x".repeat(1_500_000)}));
        assert_eq!(issues[0].ctx, json!({"max_length": MAX_ID_CHARS}));
        assert!(issues[0].input.as_str().unwrap().chars().count() <= ECHO_CHARS + 1, "the input is not echoed whole");
    }

    #[test]
    fn control_characters_are_refused_with_the_character_named() {
        let found = check(&json!({"id": "a\0b", "title": "x\u{1b}[31m", "tag": ["ok", "bad\n"],
            "metadata": {"long_description": "fine\nbut\u{7f}"}, "asset_info": {"asset_params": {"k\u{1}": "v"}}}));
        let mut at: Vec<String> = found.iter().map(|d| d.loc.join(".")).collect();
        at.sort();
        assert_eq!(
            at,
            [
                "body.asset_info.asset_params.k\u{1}",
                "body.id",
                "body.metadata.long_description",
                "body.tag.1",
                "body.title"
            ],
            "{found:?}"
        );
        let id = found.iter().find(|d| d.loc.join(".") == "body.id").unwrap();
        assert!(id.msg.contains("U+0000"), "{}", id.msg);
        assert!(found.iter().all(|d| d.kind == "string_pattern_mismatch"));
    }
}
