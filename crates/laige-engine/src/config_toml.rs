//! TOML text → the raw config tree, with errors that point at a line,
//! a column and a key.

use laige_core::{Error, ErrorCode};

use crate::events::CONFIG_PARSE_FAILED;

/// Where a byte offset of `text` is: 1-based line and column (in chars), and
/// the dotted key path of the assignment on that line, if it is one
/// (`loop.tick_rate_hz`).
pub(crate) fn locate(text: &str, offset: usize) -> (usize, usize, Option<String>) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text
        .get(line_start..offset)
        .map_or(1, |s| s.chars().count() + 1);
    let line_text = text[line_start..].lines().next().unwrap_or("");
    let key = match table_header(line_text) {
        // A table header: the table is what the error is about (a
        // duplicate `[loop]`, an unknown `[rendering]`).
        Some(table) => Some(table.to_owned()),
        None => line_text
            .split_once('=')
            .map(|(k, _)| k.trim().trim_matches('"'))
            .filter(|k| !k.is_empty() && !k.starts_with('['))
            .map(|k| match current_table(before) {
                Some(table) => format!("{table}.{k}"),
                None => k.to_owned(),
            }),
    };
    // A key is echoed like any other input: cut at the fixed length.
    let key = key.map(|k| match k.char_indices().nth(Error::MAX_QUOTED_CHARS) {
        Some(_) => Error::quoted(&k),
        None => k,
    });
    (line, col, key)
}

/// The table a `[table]` header line names, if the line is one.
fn table_header(line: &str) -> Option<&str> {
    let l = line.trim();
    let inner = l.strip_prefix('[')?;
    let end = inner.find(']')?;
    let name = inner[..end].trim().trim_start_matches('[');
    (!name.is_empty()).then_some(name)
}

/// The `[table]` header in force at the end of `before`.
fn current_table(before: &str) -> Option<String> {
    before.lines().rev().find_map(|l| {
        let l = l.trim();
        (l.starts_with('[') && l.ends_with(']'))
            .then(|| l.trim_matches(|c| c == '[' || c == ']').trim().to_owned())
    })
}

/// Deserializes `text` as TOML into `T`, mapping a failure to a
/// `config/parse_failed` error that names the source, line, column and key.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(text: &str, source: &str) -> Result<T, Error> {
    toml::from_str(text).map_err(|e| {
        // The parser's message can embed the offending value ("invalid
        // type: string \"...\""): cut like every echoed value.
        let message = Error::clipped(e.message().trim()).into_owned();
        let mut err = Error::new(ErrorCode::InvalidArgument, CONFIG_PARSE_FAILED);
        match e.span() {
            Some(span) => {
                let (line, col, key) = locate(text, span.start);
                if let Some(key) = key {
                    err = err.with_field(key);
                }
                err.with_detail(format!("{source}, line {line}, column {col}: {message}"))
            }
            None => err.with_detail(format!("{source}: {message}")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_finds_line_column_and_dotted_key() {
        let text = "[loop]\ntick_rate_hz = \"fast\"\n[render]\nvsync = 3\n";
        let off = text.find("\"fast\"").unwrap();
        assert_eq!(locate(text, off), (2, 16, Some("loop.tick_rate_hz".into())));
        let off = text.find('3').unwrap();
        assert_eq!(locate(text, off), (4, 9, Some("render.vsync".into())));
    }

    #[test]
    fn locate_outside_an_assignment_has_no_key() {
        let text = "[loop\n";
        assert_eq!(locate(text, 0), (1, 1, None));
        assert_eq!(locate(text, 999).0, 2);
    }
}
