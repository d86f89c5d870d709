//! Frontmatter fields set or removed line by line: the lines of the fields
//! asked for change, every other byte of the note stays (order, comments,
//! quoting, the fields mindnet does not read). `edit_note`'s
//! `set_frontmatter` and `move_note` (which writes the note's `id`) use it.

use crate::AppError;
use serde_json::Value;
use serde_yaml_ng::Value as Yaml;
use std::ops::Range;

/// `text` with each field of `fields` set (a `null` removes it). A note
/// without frontmatter gets one.
pub(crate) fn set_fields(
    text: &str,
    fields: &serde_json::Map<String, Value>,
) -> Result<String, AppError> {
    let (mut out, yaml) = match block(text) {
        Some(r) => (text.to_string(), r),
        None if fields.values().all(Value::is_null) => return Ok(text.to_string()),
        None => (format!("---\n---\n{text}"), 4..4),
    };
    let mut yaml_end = yaml.end;
    for (key, value) in fields {
        check_key(key)?;
        let lines = field_lines(&out[yaml.start..yaml_end], key)
            .map(|r| (r.start + yaml.start)..(r.end + yaml.start));
        let new = match value {
            Value::Null => String::new(),
            v => format!("{key}: {}\n", render(v)),
        };
        let at = lines.unwrap_or(yaml_end..yaml_end);
        yaml_end = yaml_end + new.len() - at.len();
        out.replace_range(at, &new);
    }
    let result = &out[yaml.start..yaml_end];
    if let Err(e) = serde_yaml_ng::from_str::<Yaml>(result) {
        return Err(AppError::unprocessable(format!(
            "the frontmatter would not be valid YAML after the change ({e}); not changed"
        )));
    }
    Ok(out)
}

/// The byte range of the YAML between the `---` lines, if the note has a
/// closed frontmatter block.
fn block(text: &str) -> Option<Range<usize>> {
    let split = mindnet_ingest::frontmatter::split(text);
    let yaml = split.yaml?;
    let start = yaml.as_ptr() as usize - text.as_ptr() as usize;
    Some(start..start + yaml.len())
}

/// A field name that needs no quoting and cannot break the block.
fn check_key(key: &str) -> Result<(), AppError> {
    let ok = !key.is_empty()
        && key.trim() == key
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' ' | '.'))
        && key.chars().next().is_some_and(char::is_alphanumeric);
    if ok {
        Ok(())
    } else {
        Err(AppError::bad_request(format!(
            "`fields`: {key:?} is not a plain field name (letters, digits, `_`, `-`, `.`, spaces)"
        )))
    }
}

/// The lines of the top-level field `key` in `yaml`: its own line and the
/// indented or list lines that continue it.
fn field_lines(yaml: &str, key: &str) -> Option<Range<usize>> {
    let mut pos = 0;
    let mut start = None;
    for line in yaml.split_inclusive('\n') {
        let at_top = !line.starts_with([' ', '\t', '-', '#']) && !line.trim().is_empty();
        match start {
            None if at_top && names(line, key) => start = Some(pos),
            Some(s) if at_top => return Some(s..pos),
            _ => {}
        }
        pos += line.len();
    }
    start.map(|s| s..yaml.len())
}

fn names(line: &str, key: &str) -> bool {
    let line = line.trim_end();
    let k = line
        .strip_prefix('"')
        .and_then(|l| l.strip_prefix(key))
        .and_then(|l| l.strip_prefix('"'))
        .or_else(|| line.strip_prefix(key));
    k.is_some_and(|rest| rest.trim_start().starts_with(':'))
}

/// A JSON value as one line of YAML: plain where YAML reads the plain text
/// back as the same string, else JSON's quoting (valid YAML); lists and
/// maps in flow style.
fn render(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let plain = !s.is_empty()
                && !s.contains(['\n', '#', ':', '[', ']', '{', '}', ',', '"', '\''])
                && s.trim() == s
                && serde_yaml_ng::from_str::<Yaml>(s).ok() == Some(Yaml::String(s.clone()));
            if plain {
                s.clone()
            } else {
                serde_json::to_string(s).unwrap_or_default()
            }
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(render).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        serde_json::to_string(k).unwrap_or_default(),
                        render(v)
                    )
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(text: &str, fields: Value) -> String {
        set_fields(text, fields.as_object().unwrap()).unwrap()
    }

    #[test]
    fn only_the_named_fields_change() {
        let text = "---\ntitle: A  # kept\ntags:\n  - x\n  - y\nstatus: draft\n---\nBody\n";
        assert_eq!(
            set(text, json!({"status": "active"})),
            "---\ntitle: A  # kept\ntags:\n  - x\n  - y\nstatus: active\n---\nBody\n"
        );
        assert_eq!(
            set(text, json!({"tags": ["a", "b c"], "status": null})),
            "---\ntitle: A  # kept\ntags: [a, b c]\n---\nBody\n"
        );
        assert_eq!(
            set(text, json!({"id": "n-1", "rating": 3, "done": true})),
            "---\ntitle: A  # kept\ntags:\n  - x\n  - y\nstatus: draft\nid: n-1\nrating: 3\ndone: true\n---\nBody\n"
        );
    }

    #[test]
    fn strings_yaml_would_misread_are_quoted() {
        let t = set(
            "Body\n",
            json!({"a": "true", "b": "x: y", "c": "2026-12-07", "d": "ja"}),
        );
        assert_eq!(
            t,
            "---\na: \"true\"\nb: \"x: y\"\nc: 2026-12-07\nd: ja\n---\nBody\n"
        );
        assert_eq!(set("Body\n", json!({"a": null})), "Body\n");
    }

    #[test]
    fn bad_names_and_results_are_refused() {
        let f = json!({"a:b": 1});
        assert!(set_fields("x", f.as_object().unwrap()).is_err());
        let f = json!({"a": 1});
        assert!(set_fields("---\nx: [\n---\n", f.as_object().unwrap()).is_err());
    }
}
