//! Drafts of new notes (CHAT-5, UI-2): the Markdown an interview produces,
//! and the healing parser that repairs what an LLM under load gets wrong
//! (a missing closing `---`, broken YAML, invented frontmatter fields),
//! saying each repair, so the user sees what changed before saving.

use serde_yaml_ng::{Mapping, Value};

/// Frontmatter fields a note may carry (the data model of
/// `docs/requirements.md`). Anything else in a draft's frontmatter is moved
/// into the body as its own section.
pub const FRONTMATTER_FIELDS: [&str; 10] = [
    "id", "title", "type", "status", "tags", "aliases", "created", "updated", "lang", "lint",
];

/// A draft after healing.
#[derive(Debug, Clone, PartialEq)]
pub struct Healed {
    /// Frontmatter and body, ready to save.
    pub markdown: String,
    pub title: Option<String>,
    pub note_type: Option<String>,
    /// What was repaired, one sentence each; empty for a clean draft.
    pub repairs: Vec<String>,
}

/// The content of the first fenced block (```` ```markdown ````, ```` ```md ````
/// or a bare fence) that wraps the draft, else the whole text. An unclosed
/// fence runs to the end. A fence after the draft has begun (its `---` or a
/// heading) is a code block of the note, not a wrapper.
fn fenced(text: &str, repairs: &mut Vec<String>) -> String {
    let mut lines = text.lines();
    let mut inside = Vec::new();
    let mut found = false;
    for line in lines.by_ref() {
        let t = line.trim_start();
        if t.trim_end() == "---" || t.starts_with('#') {
            break;
        }
        if let Some(lang) = t.strip_prefix("```") {
            let lang = lang.trim();
            if lang.is_empty() || lang == "markdown" || lang == "md" {
                found = true;
                break;
            }
        }
    }
    if !found {
        return without_blank_edges(text).to_string();
    }
    let mut closed = false;
    for line in lines {
        if line.trim_start().starts_with("```") {
            closed = true;
            break;
        }
        inside.push(line);
    }
    if !closed {
        repairs.push("the code block had no closing ```".into());
    }
    without_blank_edges(&inside.join("\n")).to_string()
}

/// A line that reads as one YAML entry (`key: value` or a list item).
fn yaml_like(line: &str) -> bool {
    let t = line.trim_end();
    if t.is_empty() {
        return false;
    }
    if t.starts_with("  ") || t.starts_with("- ") {
        return true;
    }
    t.split_once(':').is_some_and(|(k, _)| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == ' ')
            && !k.starts_with('#')
    })
}

/// Splits `---` frontmatter from the body, closing an unclosed block at
/// the first line that is not YAML.
fn split(text: &str, repairs: &mut Vec<String>) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim()) != Some("---") {
        return (String::new(), text.to_string());
    }
    if let Some(end) = lines.iter().skip(1).position(|l| l.trim() == "---") {
        let end = end + 1;
        return (lines[1..end].join("\n"), lines[end + 1..].join("\n"));
    }
    let end = lines
        .iter()
        .skip(1)
        .position(|l| !yaml_like(l))
        .map_or(lines.len(), |p| p + 1);
    repairs.push("the frontmatter had no closing `---`; it is closed before the body".into());
    (lines[1..end].join("\n"), lines[end..].join("\n"))
}

/// The frontmatter as a mapping; broken YAML is read line by line, each
/// `key: value` kept (its value as plain text when it does not parse), and
/// lines that are no entry at all go to the body.
fn mapping(yaml: &str, repairs: &mut Vec<String>, spill: &mut Vec<String>) -> Mapping {
    if yaml.trim().is_empty() {
        return Mapping::new();
    }
    if mindnet_core::yaml::too_deep(yaml).is_none()
        && let Ok(Value::Mapping(m)) = serde_yaml_ng::from_str::<Value>(yaml)
    {
        return m;
    }
    let mut m = Mapping::new();
    let mut bad = 0;
    for line in yaml.lines() {
        match line.split_once(':') {
            Some((k, v)) if yaml_like(line) && !line.starts_with(' ') => {
                let v = v.trim();
                let value = (mindnet_core::yaml::too_deep(v).is_none())
                    .then(|| serde_yaml_ng::from_str::<Value>(v).ok())
                    .flatten()
                    .filter(|x| !matches!(x, Value::Mapping(_)))
                    .unwrap_or_else(|| {
                        bad += 1;
                        Value::String(v.trim_matches(['"', '\'']).to_string())
                    });
                m.insert(Value::String(k.trim().to_string()), value);
            }
            _ if line.trim().is_empty() => {}
            _ => {
                bad += 1;
                spill.push(line.to_string());
            }
        }
    }
    repairs.push(format!(
        "the frontmatter was not valid YAML; it was read line by line ({bad} line(s) repaired)"
    ));
    m
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        // A value the emitter cannot write is still kept, as Rust writes it.
        other => serde_yaml_ng::to_string(other)
            .map(|t| t.trim().to_string())
            .unwrap_or_else(|_| format!("{other:?}")),
    }
}

/// A field moved into the body: a section under its name.
fn section(key: &str, v: &Value) -> String {
    format!("## {key}\n\n{}", text_of(v))
}

/// What `clean` changed in a value.
#[derive(Default)]
struct Cleaned {
    tags: bool,
    spaces: bool,
}

/// The value as mindnet reads it and as the YAML emitter writes it back
/// the same: without YAML tags anywhere inside (mindnet reads none, and a
/// tagged key could not be written back: `aliases: {!: b}` emptied the
/// whole frontmatter), and every text without spaces or line breaks around
/// it (`title: >2` over an indented line gave a text with leading spaces,
/// which a second healing read back as another text).
fn clean(v: Value, seen: &mut Cleaned) -> Value {
    match v {
        Value::Tagged(t) => {
            seen.tags = true;
            clean(t.value, seen)
        }
        Value::String(s) if s.trim().len() != s.len() => {
            seen.spaces = true;
            Value::String(s.trim().to_string())
        }
        Value::Sequence(items) => {
            Value::Sequence(items.into_iter().map(|v| clean(v, seen)).collect())
        }
        Value::Mapping(m) => Value::Mapping(
            m.into_iter()
                .map(|(k, v)| (clean(k, seen), clean(v, seen)))
                .collect(),
        ),
        other => other,
    }
}

/// Whether the YAML emitter writes `key: v` so that the healer reads it
/// back the same. Not every value: a sequence as a mapping key (`? - a`)
/// came back otherwise, and a key it could not write at all emptied the
/// frontmatter.
fn round_trips(key: &str, v: &Value) -> bool {
    let mut m = Mapping::new();
    m.insert(Value::String(key.to_string()), v.clone());
    reads_back(&m)
}

/// Whether `front` written as YAML is read back the same, by the same
/// reading as `mapping` (nesting bounded first).
fn reads_back(front: &Mapping) -> bool {
    let m = Value::Mapping(front.clone());
    serde_yaml_ng::to_string(&m)
        .ok()
        .filter(|yaml| mindnet_core::yaml::too_deep(yaml).is_none())
        .and_then(|yaml| serde_yaml_ng::from_str::<Value>(&yaml).ok())
        .is_some_and(|back| back == m)
}

/// The frontmatter fields that hold one value; mindnet ignores a list or a
/// mapping there (`frontmatter::split` reports it).
const SINGLE_VALUE_FIELDS: [&str; 4] = ["id", "title", "type", "status"];

enum Field {
    Keep(Value),
    /// Not frontmatter as mindnet reads it, so it goes into the body, where
    /// nothing is lost; the text says why.
    Move(Value, &'static str),
    /// A single-value field without a value: nothing to keep or move.
    Drop,
}

fn field(key: &str, v: Value, repairs: &mut Vec<String>) -> Field {
    if !FRONTMATTER_FIELDS.contains(&key) {
        return Field::Move(v, "is no frontmatter field");
    }
    if !SINGLE_VALUE_FIELDS.contains(&key) {
        return Field::Keep(v);
    }
    match v {
        Value::Sequence(mut items)
            if items.len() == 1 && !matches!(items[0], Value::Sequence(_) | Value::Mapping(_)) =>
        {
            repairs.push(format!("`{key}` was a list of one; its value was kept"));
            // Judged as the value itself: `title: -` is a list of one null.
            field(key, items.remove(0), repairs)
        }
        Value::Sequence(_) | Value::Mapping(_) => Field::Move(v, "must be a single value"),
        Value::Null => {
            repairs.push(format!("`{key}` had no value; it was left out"));
            Field::Drop
        }
        Value::String(s) if s.trim().is_empty() => {
            repairs.push(format!("`{key}` was empty; it was left out"));
            Field::Drop
        }
        other => Field::Keep(other),
    }
}

/// Repairs a draft as an LLM or a user wrote it.
pub fn heal(text: &str) -> Healed {
    let mut repairs = Vec::new();
    // Line ends as Markdown writes them: `lines()` takes one `\r` from a
    // line end, so a stray one would be lost only on a second healing.
    let text = text.replace('\r', "");
    let inner = fenced(&text, &mut repairs);
    let (yaml, body) = split(&inner, &mut repairs);
    let mut spill = Vec::new();
    let map = mapping(&yaml, &mut repairs, &mut spill);
    let mut front = Mapping::new();
    let mut moved = Vec::new();
    for (k, v) in map {
        let key = text_of(&k);
        let mut seen = Cleaned::default();
        let v = clean(v, &mut seen);
        if seen.tags {
            repairs.push(format!(
                "`{key}` had a YAML tag; the value was kept without it"
            ));
        }
        if seen.spaces {
            repairs.push(format!(
                "`{key}` had spaces or line breaks around a value; they were removed"
            ));
        }
        match field(&key, v, &mut repairs) {
            Field::Keep(v) if !round_trips(&key, &v) => {
                moved.push(section(&key, &v));
                repairs.push(format!(
                    "`{key}` cannot be written back as YAML; it was moved into the body"
                ));
            }
            Field::Keep(v) => {
                front.insert(Value::String(key), v);
            }
            Field::Move(v, why) => {
                moved.push(section(&key, &v));
                repairs.push(format!("`{key}` {why}; it was moved into the body"));
            }
            Field::Drop => {}
        }
    }
    // Each field reads back alone; together they may still not (brackets
    // in plain texts count towards the nesting bound of the whole).
    if !reads_back(&front) {
        for (k, v) in std::mem::take(&mut front) {
            moved.push(section(&text_of(&k), &v));
        }
        repairs.push(
            "the frontmatter cannot be written back as YAML; it was moved into the body".into(),
        );
    }
    let mut body_parts: Vec<String> = Vec::new();
    if !spill.is_empty() {
        body_parts.push(spill.join("\n"));
    }
    body_parts.extend(moved);
    if !body.trim().is_empty() {
        body_parts.push(without_blank_edges(&body).to_string());
    }
    let title = front.get("title").map(text_of).filter(|t| !t.is_empty());
    let note_type = front.get("type").map(text_of).filter(|t| !t.is_empty());
    let body = body_parts.join("\n\n");
    let body = body.trim_end();
    let mut markdown = String::new();
    if !front.is_empty() {
        markdown.push_str("---\n");
        markdown.push_str(&serde_yaml_ng::to_string(&Value::Mapping(front)).unwrap_or_default());
        markdown.push_str("---\n");
    } else if fenced(body, &mut Vec::new()) != without_blank_edges(body)
        || body.lines().next().is_some_and(|l| l.trim() == "---")
    {
        // A body that a second healing would read as a wrapped draft (a
        // code block after lines of text) or as opening a frontmatter (a
        // rule on its first line): an empty frontmatter marks where the
        // draft begins, so healing it again changes nothing.
        markdown.push_str("---\n---\n");
    }
    markdown.push_str(body);
    markdown.push('\n');
    Healed {
        markdown,
        title,
        note_type,
        repairs,
    }
}

/// The text without its leading blank lines and trailing whitespace. Not
/// `trim()`: the indentation of the first line is content (a nested list),
/// and dropping it would make healing a healed draft change it again.
fn without_blank_edges(text: &str) -> &str {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    text[start..].trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_indented_first_body_line_survives_a_second_healing() {
        // Found by the fuzzer: tab-indented YAML spills into the body, and
        // the second healing used to strip the first tab.
        let once = heal("---\ntitle: Tabs\ntags:\n\t- a\n\t- b\n---\n# Tabs\n");
        assert!(once.markdown.contains("\t- a\n\t- b"), "{}", once.markdown);
        assert_eq!(heal(&once.markdown).markdown, once.markdown);
    }

    #[test]
    fn a_list_where_one_value_belongs_is_unwrapped_or_moved() {
        let h = heal("---\ntitle: T\nstatus: [stable]\ntype: [a, b]\n---\nText.\n");
        assert!(h.markdown.contains("status: stable\n"), "{}", h.markdown);
        assert!(h.markdown.contains("## type\n\n- a\n- b"), "{}", h.markdown);
        assert_eq!(h.note_type, None);
        assert_eq!(h.repairs.len(), 2, "{:?}", h.repairs);
    }

    #[test]
    fn a_clean_draft_passes_unchanged_in_substance() {
        let h =
            heal("```markdown\n---\ntype: decision\ntitle: Umzug\n---\n## Kontext\n\nZu eng.\n```");
        assert!(h.repairs.is_empty(), "{:?}", h.repairs);
        assert_eq!(h.title.as_deref(), Some("Umzug"));
        assert_eq!(h.note_type.as_deref(), Some("decision"));
        assert!(
            h.markdown
                .starts_with("---\ntype: decision\ntitle: Umzug\n---\n## Kontext")
        );
    }

    /// Broken drafts as LLMs write them, with what must come out.
    #[test]
    fn the_corpus_of_broken_drafts_heals() {
        let cases: &[(&str, &str, &[&str])] = &[
            // No closing `---`.
            (
                "---\ntype: experience\ntitle: Marathon\n## Situation\n\nLang.",
                "closing",
                &["---\ntype: experience\ntitle: Marathon\n---\n## Situation"],
            ),
            // Broken YAML: an unclosed list and a colon in a value.
            (
                "---\ntitle: Laufen: jeden Morgen\ntags: [sport, morgen\ntype: decision\n---\nText.",
                "not valid YAML",
                &["title: 'Laufen: jeden Morgen'", "type: decision", "Text."],
            ),
            // Invented fields move into the body.
            (
                "```md\n---\ntype: experience\ntitle: Sturz\nSituation: Glatteis am Morgen\nGefühl: Schreck\n---\nMehr.\n```",
                "moved into the body",
                &[
                    "## Situation\n\nGlatteis am Morgen",
                    "## Gefühl\n\nSchreck",
                    "Mehr.",
                ],
            ),
            // An unclosed code fence and prose before it.
            (
                "Hier ist der Entwurf:\n```markdown\n---\ntype: value\ntitle: Ehrlichkeit\n---\nWichtig.",
                "no closing ```",
                &["title: Ehrlichkeit", "Wichtig."],
            ),
            // A code block in the draft's body is part of the note, not a
            // wrapper around it: healing the healed draft changes nothing.
            (
                "---\ntitle: Skript\ntype: concept\n---\nSo geht es:\n\n```\nls -la\n```\n\nDanach weiter.",
                "",
                &["title: Skript", "So geht es:", "ls -la", "Danach weiter."],
            ),
            // No frontmatter at all: the body stays.
            (
                "## Ziel\n\nEin Gartenhaus.",
                "",
                &["## Ziel\n\nEin Gartenhaus."],
            ),
        ];
        for (input, repair, expect) in cases {
            let h = heal(input);
            if repair.is_empty() {
                assert!(h.repairs.is_empty(), "{input}: {:?}", h.repairs);
            } else {
                assert!(
                    h.repairs.iter().any(|r| r.contains(repair)),
                    "{input}: {:?}",
                    h.repairs
                );
            }
            for e in *expect {
                assert!(h.markdown.contains(e), "{input}\n---got---\n{}", h.markdown);
            }
            // What comes out parses as a note: its frontmatter is YAML.
            let again = heal(&h.markdown);
            assert!(
                !again
                    .repairs
                    .iter()
                    .any(|r| r.contains("YAML") || r.contains("closing")),
                "{input}: {:?}",
                again.repairs
            );
        }
    }
}
