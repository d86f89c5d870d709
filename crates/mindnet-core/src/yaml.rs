//! Loading a configuration file so that every error names file, line and field.

use crate::ConfigError;
use serde::de::DeserializeOwned;
use std::path::Path;

pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
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
    fn finds_nested_key_lines() {
        let text = "types:\n  concept:\n    chunk_profile: a\n  project:\n    chunk_profile: b\n";
        assert_eq!(line_of(text, &["types", "project", "chunk_profile"]), 5);
        assert_eq!(line_of(text, &["types", "concept"]), 2);
        assert_eq!(line_of(text, &["types", "missing"]), 1);
    }
}
