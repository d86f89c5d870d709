//! The flat frontmatter most notes have, read without the YAML parser.
//!
//! `key: value` lines, flow lists (`[a, b]`) and block lists (`- a`) of
//! plain words, ISO dates and comment lines: libyaml spent a tenth of a
//! lint of 100,000 notes on such blocks. Anything else (quotes, nesting,
//! numbers, `#` after a value, a repeated key) returns `None` and goes to
//! the YAML parser, so this reads only what the parser would read the same
//! way; a test holds the two equal.

use serde_yaml_ng::{Mapping, Value};

/// The block as the YAML parser would map it, if it is flat and plain.
pub(crate) fn read(yaml: &str) -> Option<Mapping> {
    let mut map = Mapping::new();
    // The key whose value is a block list still being read, its items,
    // and their indentation.
    let mut open: Option<(String, Vec<Value>, usize)> = None;
    for line in yaml.lines() {
        let body = line.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        if let Some(item) = body.strip_prefix("- ") {
            let indent = line.len() - body.len();
            let (_, items, at) = open.as_mut()?;
            if items.is_empty() {
                *at = indent;
            } else if *at != indent {
                return None;
            }
            items.push(Value::String(word(item.trim_end_matches(' '))?.to_string()));
            continue;
        }
        if body.len() != line.len() {
            return None; // indented, not a list item: nesting
        }
        close(&mut map, open.take())?;
        let (key, rest) = line.split_once(':')?;
        if !is_key(key) || !(rest.is_empty() || rest.starts_with(' ')) {
            return None;
        }
        let value = rest.trim_matches(' ');
        if value.is_empty() {
            open = Some((key.to_string(), Vec::new(), 0));
            continue;
        }
        let value = match value.strip_prefix('[') {
            Some(list) => Value::Sequence(flow_list(list.strip_suffix(']')?)?),
            None => Value::String(word(value)?.to_string()),
        };
        insert(&mut map, key, value)?;
    }
    close(&mut map, open)?;
    (!map.is_empty()).then_some(map)
}

/// Ends a key without a value on its line: a block list, or null.
fn close(map: &mut Mapping, open: Option<(String, Vec<Value>, usize)>) -> Option<()> {
    match open {
        None => Some(()),
        Some((key, items, _)) if items.is_empty() => insert(map, &key, Value::Null),
        Some((key, items, _)) => insert(map, &key, Value::Sequence(items)),
    }
}

/// A repeated key is the parser's to report.
fn insert(map: &mut Mapping, key: &str, value: Value) -> Option<()> {
    map.insert(Value::String(key.to_string()), value)
        .is_none()
        .then_some(())
}

fn flow_list(inner: &str) -> Option<Vec<Value>> {
    if inner.trim_matches(' ').is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .map(|item| word(item.trim_matches(' ')).map(|w| Value::String(w.to_string())))
        .collect()
}

/// A key the parser reads as the same string.
fn is_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !is_special(key)
}

/// A plain scalar the parser reads as this very string: letters, digits,
/// spaces and `- _ . /`, starting with a letter (no number can), and not a
/// null or a boolean; or an ISO date, which YAML 1.2 leaves a string.
fn word(s: &str) -> Option<&str> {
    let plain = s.chars().next().is_some_and(char::is_alphabetic)
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | '/'))
        && !s.ends_with(' ')
        && !is_special(s);
    (plain || is_date(s)).then_some(s)
}

fn is_special(s: &str) -> bool {
    matches!(
        s,
        "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    )
}

/// `2026-03-01`.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever this reads, the YAML parser reads the same; and the common
    /// frontmatter is read here, not handed on.
    #[test]
    fn reads_what_the_parser_reads() {
        let lines = [
            "title: Notiz 90926",
            "type: strategy",
            "status: stable",
            "tags: [karriere, bereich-14]",
            "tags: []",
            "tags:",
            "  - rust",
            "  - Ähnlichkeit",
            "- at column zero",
            "    - deeper",
            "created: 2026-03-01",
            "created: 2026-3-1",
            "updated: 2026-03-01T10:00",
            "aliases: [Projekt Atlas, Atlas]",
            "aliases: [a,, b]",
            "aliases: [a, b,]",
            "id: 42",
            "id: 0x1F",
            "id: 1e5",
            "id: inf",
            "id: nan",
            "id: .inf",
            "lang: de",
            "lang: null",
            "lang: ~",
            "flag: yes",
            "flag: no",
            "flag: on",
            "flag: True",
            "title: \"quoted\"",
            "title: it's",
            "title: a # comment",
            "title: a#b",
            "title: a: b",
            "title: C++",
            "title: Ünterschied / Stand 2.0",
            "title:",
            "title:   spaced   ",
            "# a comment",
            "",
            "   ",
            "lint:",
            "  ignore: [link/missing]",
            "lint: {ignore: [x]}",
            "true: x",
            "null: x",
            "_private: x",
            "weird key: x",
            "x-y: z",
            "title:no space",
            "title: tab\there",
            "title: 'single'",
            "? complex",
            "title: [unclosed",
            "title: ]",
            "title: |",
            "  block text",
            "title: >-",
            "&anchor title: a",
            "title: *alias",
            "title: !tag x",
        ];
        let mut seed = 11u64;
        let mut flat = 0;
        for round in 0..4000 {
            let mut yaml = String::new();
            for _ in 0..(1 + round % 7) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                yaml.push_str(lines[(seed >> 33) as usize % lines.len()]);
                yaml.push('\n');
            }
            let parsed = serde_yaml_ng::from_str::<Value>(&yaml);
            if let Some(map) = read(&yaml) {
                flat += 1;
                assert_eq!(
                    parsed.ok(),
                    Some(Value::Mapping(map)),
                    "read differently:\n{yaml}"
                );
            }
        }
        assert!(flat > 200, "only {flat} blocks read flat");
        let common =
            "type: strategy\nstatus: stable\ntags: [karriere, bereich-14]\ncreated: 2026-03-01\n";
        assert!(read(common).is_some());
    }
}
