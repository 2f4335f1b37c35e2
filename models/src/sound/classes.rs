//! The class names of `yamnet_class_map.csv` (`index,mid,display_name`, names with commas quoted).

use super::SOUND_CLASSES;

/// The display names in index order; an error says which line breaks the format.
pub(crate) fn parse(text: &str) -> Result<Vec<String>, String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("index,mid,display_name") {
        return Err("the first line must be `index,mid,display_name`".to_string());
    }
    let mut names = Vec::with_capacity(SOUND_CLASSES);
    for (row, line) in lines.filter(|l| !l.trim().is_empty()).enumerate() {
        let fields = fields(line).ok_or_else(|| format!("line {}: unbalanced quotes", row + 2))?;
        match fields.as_slice() {
            [index, _mid, name] if index.parse::<usize>() == Ok(row) && !name.is_empty() => names.push(name.clone()),
            _ => return Err(format!("line {}: expected `{row},<mid>,<name>`, got {line:?}", row + 2)),
        }
    }
    if names.len() != SOUND_CLASSES {
        return Err(format!("expected {SOUND_CLASSES} classes, got {}", names.len()));
    }
    Ok(names)
}

/// The fields of one CSV line (RFC 4180 quoting: `"a, b"`, `""` for a quote).
fn fields(line: &str) -> Option<Vec<String>> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut()?.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut()?.push(c),
        }
    }
    (!quoted).then_some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_names_keep_their_commas() {
        assert_eq!(fields(r#"1,/m/0ytgt,"Child speech, kid speaking""#).unwrap()[2], "Child speech, kid speaking");
        assert_eq!(fields(r#"0,x,"say ""hi""""#).unwrap()[2], r#"say "hi""#);
        assert!(fields(r#"0,x,"open"#).is_none());
    }

    #[test]
    fn the_file_must_have_every_class_in_order() {
        let mut text = String::from("index,mid,display_name\n");
        for i in 0..SOUND_CLASSES {
            text.push_str(&format!("{i},/m/{i},\"Class {i}, sort of\"\n"));
        }
        let names = parse(&text).unwrap();
        assert_eq!(names[520], "Class 520, sort of");
        assert!(parse(&text.replace("\n7,", "\n8,")).unwrap_err().contains("line 9"));
        assert!(parse("index,mid,display_name\n0,a,b\n").unwrap_err().contains("expected 521"));
        assert!(parse("nope\n").is_err());
    }
}
