//! The text of an item's catalog metadata, which its item embedding is made from.

/// The catalog metadata of an item as one text (title, genres, keywords, description; empty
/// parts left out), or `None` when it holds no words.
pub fn item_text(title: &str, genres: &[String], keywords: &[String], description: &str) -> Option<String> {
    let mut parts = Vec::new();
    if !title.trim().is_empty() {
        parts.push(format!("{}.", title.trim()));
    }
    let list = |v: &[String]| v.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(", ");
    if !list(genres).is_empty() {
        parts.push(format!("Genres: {}.", list(genres)));
    }
    if !list(keywords).is_empty() {
        parts.push(format!("Keywords: {}.", list(keywords)));
    }
    if !description.trim().is_empty() {
        parts.push(description.trim().to_string());
    }
    let text = parts.join(" ");
    text.chars().any(char::is_alphanumeric).then_some(text)
}

/// [`item_text`] of a catalog item as the service ingests it: `title`, `metadata.genres`,
/// `metadata.keywords` and `metadata.short_description` / `long_description` / `description`.
pub fn item_text_from_catalog(item: &serde_json::Value) -> Option<String> {
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(String::from)).collect()
    };
    let meta = &item["metadata"];
    let description = ["short_description", "long_description", "description"]
        .iter()
        .filter_map(|k| meta[*k].as_str())
        .collect::<Vec<_>>()
        .join(" ");
    item_text(
        item["title"].as_str().unwrap_or_default(),
        &strings(&meta["genres"]),
        &strings(&meta["keywords"]),
        &description,
    )
}
