//! Loading a configuration file so that every error names file, line and field.

use crate::ConfigError;
use serde::de::DeserializeOwned;
use std::path::Path;

pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
    if let Some(line) = too_deep(text) {
        return Err(ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            field: String::new(),
            message: too_deep_message(),
        });
    }
    serde_yaml_ng::from_str(text).map_err(|e| {
        let line = e.location().map(|l| l.line()).unwrap_or(1);
        let message = e.to_string();
        let field = field_in_message(&message).unwrap_or_default();
        ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            field,
            message,
        }
    })
}

/// How deep YAML flow collections (`[`, `{`) may nest: serde_yaml_ng refuses
/// deeper documents anyway, but only after libyaml has scanned them, and its
/// scanner takes time quadratic in the depth (a frontmatter of 20,000 `[`
/// took 9 s under the fuzzer; one of a few MB would take hours).
pub const MAX_FLOW_DEPTH: usize = 128;

/// The 1-based line where `text` opens more than `MAX_FLOW_DEPTH` flow
/// collections, if it does. Brackets in quoted strings count too: no
/// real document has a hundred of them unclosed.
pub fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut line = 1;
    for b in text.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return Some(line);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => line += 1,
            _ => {}
        }
    }
    None
}

pub fn too_deep_message() -> String {
    format!("YAML nests more than {MAX_FLOW_DEPTH} levels of `[` or `{{`; not read")
}

/// serde names the field in backticks: "unknown field `foo`", "missing field `bar`".
fn field_in_message(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_string())
}

/// The 1-based line of a nested key such as `["types", "project", "chunk_profile"]`,
/// found by following the keys down the file in order. Good enough for the block
/// style our configuration files use; falls back to the deepest key found.
pub fn line_of(text: &str, keys: &[&str]) -> usize {
    let mut line_no = 1;
    let mut lines = text.lines().enumerate();
    'keys: for key in keys {
        for (i, line) in lines.by_ref() {
            let trimmed = line.trim_start().trim_start_matches("- ");
            let unquoted = trimmed.trim_start_matches(['"', '\'']);
            if let Some(rest) = unquoted.strip_prefix(key) {
                let rest = rest.trim_start_matches(['"', '\'']);
                if rest.starts_with(':') {
                    line_no = i + 1;
                    continue 'keys;
                }
            }
        }
        break;
    }
    line_no
}

pub fn invalid(path: &Path, text: &str, keys: &[&str], message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line: line_of(text, keys),
        field: keys.join("."),
        message: format!("{}: {}", keys.join("."), message.into()),
    }
}

pub fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_flow_nesting_is_refused_with_its_line_before_parsing() {
        let deep = format!("a: 1\nb: {}{}\n", "[".repeat(200), "]".repeat(200));
        assert_eq!(too_deep(&deep), Some(2));
        let wide = "x: [[1], [2], {a: [3]}]\n".repeat(1000);
        assert_eq!(too_deep(&wide), None);
        let err = parse::<serde_yaml_ng::Value>(Path::new("c.yaml"), &deep).unwrap_err();
        assert!(err.to_string().contains("c.yaml"), "{err}");
    }

    #[test]
    fn finds_nested_key_lines() {
        let text = "types:\n  concept:\n    chunk_profile: a\n  project:\n    chunk_profile: b\n";
        assert_eq!(line_of(text, &["types", "project", "chunk_profile"]), 5);
        assert_eq!(line_of(text, &["types", "concept"]), 2);
        assert_eq!(line_of(text, &["types", "missing"]), 1);
    }
}
