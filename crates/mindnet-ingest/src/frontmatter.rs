//! YAML frontmatter, read tolerantly: a broken block is reported with its
//! line and the note is still imported with defaults (IMP-2).

use serde_yaml_ng::Value;

/// The frontmatter fields mindnet reads. Everything else is ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    pub id: Option<String>,
    pub title: Option<String>,
    pub note_type: Option<String>,
    pub status: Option<String>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub lang: Option<String>,
    /// Lint rules switched off for this note (`lint: {ignore: [rule, …]}`).
    pub lint_ignore: Vec<String>,
    /// The raw YAML, to find the line of a field for later warnings.
    raw: String,
    /// 1-based line of the first YAML line in the file.
    first_line: usize,
}

/// A frontmatter problem; `line` is 1-based in the whole file.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontmatterIssue {
    pub line: usize,
    pub message: String,
}

pub struct Split<'a> {
    pub frontmatter: Frontmatter,
    /// Byte offset where the Markdown body starts.
    pub body_start: usize,
    pub issues: Vec<FrontmatterIssue>,
    pub yaml: Option<&'a str>,
}

impl Frontmatter {
    /// The line of a top-level key, or the first frontmatter line.
    pub fn line_of(&self, key: &str) -> usize {
        self.raw
            .lines()
            .position(|l| {
                l.strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
            .map_or(self.first_line.saturating_sub(1).max(1), |i| {
                self.first_line + i
            })
    }
}

/// Separates a leading `---` … `---` (or `...`) block from the body and parses it.
pub fn split(text: &str) -> Split<'_> {
    let mut out = Split {
        frontmatter: Frontmatter::default(),
        body_start: 0,
        issues: Vec::new(),
        yaml: None,
    };
    let Some(first_end) = text.find('\n') else {
        return out;
    };
    if text[..first_end].trim_end() != "---" {
        return out;
    }
    let yaml_start = first_end + 1;
    let mut pos = yaml_start;
    let mut close = None;
    for line in text[yaml_start..].split_inclusive('\n') {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            close = Some((pos, pos + line.len()));
            break;
        }
        pos += line.len();
    }
    let Some((yaml_end, body_start)) = close else {
        out.issues.push(FrontmatterIssue {
            line: 1,
            message:
                "frontmatter starts with `---` but is never closed; read the whole file as body"
                    .into(),
        });
        return out;
    };
    let yaml = &text[yaml_start..yaml_end];
    out.body_start = body_start;
    out.yaml = Some(yaml);
    out.frontmatter.raw = yaml.to_string();
    out.frontmatter.first_line = 2;
    if let Some(line) = mindnet_core::yaml::too_deep(yaml) {
        out.issues.push(FrontmatterIssue {
            line: line + 1,
            message: format!(
                "frontmatter {}, defaults used",
                mindnet_core::yaml::too_deep_message()
            ),
        });
        return out;
    }
    // The flat blocks most notes have skip the YAML parser (`flat_yaml`).
    let parsed = match crate::flat_yaml::read(yaml) {
        Some(map) => Ok(Value::Mapping(map)),
        None => serde_yaml_ng::from_str::<Value>(yaml),
    };
    match parsed {
        Ok(Value::Mapping(map)) => fill(&mut out.frontmatter, &map, &mut out.issues),
        Ok(Value::Null) => {}
        Ok(_) => out.issues.push(FrontmatterIssue {
            line: 2,
            message: "frontmatter is not a key: value mapping; defaults used".into(),
        }),
        Err(e) => {
            let line = e.location().map_or(1, |l| l.line()) + 1;
            out.issues.push(FrontmatterIssue {
                line,
                message: format!(
                    "broken YAML frontmatter, defaults used: {}",
                    first_line(&e.to_string())
                ),
            });
        }
    }
    out
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

fn fill(fm: &mut Frontmatter, map: &serde_yaml_ng::Mapping, issues: &mut Vec<FrontmatterIssue>) {
    let get = |k: &str| map.get(k);
    fm.id = get("id").and_then(scalar);
    fm.title = get("title").and_then(scalar);
    fm.note_type = get("type").and_then(scalar);
    fm.status = get("status").and_then(scalar);
    fm.created = get("created").and_then(scalar);
    fm.updated = get("updated").and_then(scalar);
    fm.lang = get("lang").and_then(scalar);
    fm.tags = get("tags")
        .or_else(|| get("tag"))
        .map(list)
        .unwrap_or_default()
        .into_iter()
        .flat_map(|t| {
            t.split([',', ' '])
                .filter_map(normalize_tag)
                .collect::<Vec<_>>()
        })
        .collect();
    fm.aliases = get("aliases")
        .or_else(|| get("alias"))
        .map(list)
        .unwrap_or_default();
    fm.lint_ignore = get("lint")
        .and_then(|l| l.get("ignore"))
        .map(list)
        .unwrap_or_default();
    for key in ["id", "title", "type", "status"] {
        if let Some(v) = get(key)
            && scalar(v).is_none()
            && !v.is_null()
        {
            issues.push(FrontmatterIssue {
                line: fm.line_of(key),
                message: format!("frontmatter `{key}` must be a single value; ignored"),
            });
        }
    }
}

/// A scalar as text; dates and numbers arrive as YAML scalars too.
fn scalar(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Tagged(t) => return scalar(&t.value),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// A list, or a single value taken as a one-element list.
fn list(v: &Value) -> Vec<String> {
    match v {
        Value::Sequence(items) => items.iter().filter_map(scalar).collect(),
        other => scalar(other).into_iter().collect(),
    }
}

/// Tags compare case-insensitively in Obsidian; we store them lower-case, without `#`.
pub fn normalize_tag(raw: &str) -> Option<String> {
    let t = raw.trim().trim_start_matches('#').trim();
    (!t.is_empty()).then(|| t.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deeply_nested_value_is_an_issue_not_a_long_wait() {
        let text = format!("---\ntitle: T\nx: {}\n---\nText.\n", "[".repeat(20_000));
        let s = split(&text);
        assert_eq!(s.issues.len(), 1, "{:?}", s.issues);
        assert_eq!(s.issues[0].line, 3);
        assert!(
            s.issues[0].message.contains("nests more than"),
            "{:?}",
            s.issues
        );
        assert_eq!(s.frontmatter.title, None, "defaults used");
    }

    #[test]
    fn reads_fields_and_body_offset() {
        let text = "---\nid: n1\ntitle: Hallo\ntags: [a, '#B']\naliases: Gruß\ncreated: 2026-01-13\n---\n# Body\n";
        let s = split(text);
        assert!(s.issues.is_empty(), "{:?}", s.issues);
        assert_eq!(&text[s.body_start..], "# Body\n");
        let fm = s.frontmatter;
        assert_eq!(fm.id.as_deref(), Some("n1"));
        assert_eq!(fm.tags, vec!["a", "b"]);
        assert_eq!(fm.aliases, vec!["Gruß"]);
        assert_eq!(fm.created.as_deref(), Some("2026-01-13"));
        assert_eq!(fm.line_of("aliases"), 5);
    }

    #[test]
    fn broken_yaml_is_reported_with_its_line() {
        let text = "---\ntitle: ok\ntags: [unclosed\nstatus: draft\n---\nBody\n";
        let s = split(text);
        assert_eq!(&text[s.body_start..], "Body\n");
        assert_eq!(s.issues.len(), 1);
        assert!(s.issues[0].line >= 3, "{:?}", s.issues);
        assert_eq!(s.frontmatter.title, None);
    }

    #[test]
    fn unclosed_frontmatter_keeps_everything_as_body() {
        let s = split("---\ntitle: x\nno end\n");
        assert_eq!(s.body_start, 0);
        assert_eq!(s.issues[0].line, 1);
    }
}
