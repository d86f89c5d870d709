//! The interview without an LLM (CHAT-5): the type's schema from
//! `types.yaml` asks its questions one at a time, then fills the draft.
//! With an LLM, the interview template drafts the note instead.

use crate::prompts::{Messages, fill};
use mindnet_core::SchemaField;
use serde::{Deserialize, Serialize};

/// An interview in progress, kept in the chat session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interview {
    pub note_type: String,
    pub title: Option<String>,
    pub answers: Vec<FieldAnswer>,
    /// The schema field asked next (after the title).
    pub next: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldAnswer {
    pub field: String,
    /// Empty for a skipped optional field.
    pub text: String,
}

/// What the interview says next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Ask(String),
    /// The draft, frontmatter and body.
    Done(String),
}

impl Interview {
    /// Starts from the message that asked for it; a title after a colon
    /// ("Neues Projekt: Gartenhaus bauen") is taken.
    pub fn start(note_type: &str, message: &str) -> Self {
        let title = message
            .split_once(':')
            .map(|(_, t)| t.trim().to_string())
            .filter(|t| !t.is_empty() && !t.contains('\n'));
        Interview {
            note_type: note_type.to_string(),
            title,
            answers: Vec::new(),
            next: 0,
        }
    }

    /// The next question, or the draft when every field is asked.
    pub fn step(&self, schema: &[SchemaField], msgs: &Messages, today: &str) -> Step {
        if self.title.is_none() {
            return Step::Ask(fill(&msgs.interview_title, &[("type", &self.note_type)]));
        }
        match schema.get(self.next) {
            Some(f) => {
                let mut q = fill(
                    &msgs.interview_question,
                    &[
                        ("n", &(self.next + 1).to_string()),
                        ("of", &schema.len().to_string()),
                        ("prompt", &f.prompt),
                    ],
                );
                if !f.required {
                    q.push(' ');
                    q.push_str(&msgs.interview_optional);
                }
                Step::Ask(q)
            }
            None => Step::Done(self.draft(schema, msgs, today)),
        }
    }

    /// Takes the user's answer to the question just asked. A required
    /// field stays open until it gets an answer; `-` skips an optional one.
    pub fn answer(&mut self, text: &str, schema: &[SchemaField]) {
        let text = text.trim();
        if self.title.is_none() {
            let line = text.lines().next().unwrap_or("").trim();
            if !line.is_empty() {
                self.title = Some(line.to_string());
            }
            return;
        }
        let Some(f) = schema.get(self.next) else {
            return;
        };
        let skipped = text.is_empty() || text == "-";
        if skipped && f.required {
            return;
        }
        self.answers.push(FieldAnswer {
            field: f.field.clone(),
            text: if skipped {
                String::new()
            } else {
                text.to_string()
            },
        });
        self.next += 1;
    }

    /// The note: frontmatter with type, title, status draft and the date,
    /// then one section per field.
    pub fn draft(&self, schema: &[SchemaField], msgs: &Messages, today: &str) -> String {
        let title = self.title.clone().unwrap_or_default();
        let quoted = serde_yaml_ng::to_string(&title).unwrap_or_default();
        let mut out = format!(
            "---\ntype: {}\ntitle: {}status: draft\ncreated: {today}\n---\n",
            self.note_type, quoted
        );
        for f in schema {
            let text = self
                .answers
                .iter()
                .find(|a| a.field == f.field)
                .map(|a| a.text.as_str())
                .filter(|t| !t.is_empty())
                .unwrap_or(&msgs.open_field);
            out.push_str(&format!("\n## {}\n\n{text}\n", f.field));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompts::Prompts;

    fn field(name: &str, required: bool) -> SchemaField {
        SchemaField {
            field: name.into(),
            prompt: format!("{name}?"),
            required,
        }
    }

    #[test]
    fn the_schema_asks_one_field_at_a_time_and_fills_the_draft() {
        let p = Prompts::builtin();
        let m = p.messages("de");
        let schema = [field("Kontext", true), field("Alternativen", false)];
        let mut i = Interview::start("decision", "Ich möchte eine Entscheidung festhalten");
        assert!(matches!(i.step(&schema, m, "2026-12-01"), Step::Ask(q) if q.contains("heißen")));
        i.answer("Umzug nach Köln", &schema);
        assert!(matches!(i.step(&schema, m, "2026-12-01"), Step::Ask(q) if q.contains("1 von 2")));
        i.answer("", &schema); // required: asked again
        assert_eq!(i.next, 0);
        i.answer("Die Wohnung wurde zu klein.", &schema);
        i.answer("-", &schema);
        let Step::Done(draft) = i.step(&schema, m, "2026-12-01") else {
            panic!("not done")
        };
        assert!(draft.starts_with("---\ntype: decision\ntitle: Umzug nach Köln\nstatus: draft\ncreated: 2026-12-01\n---\n"), "{draft}");
        assert!(draft.contains("## Kontext\n\nDie Wohnung wurde zu klein."));
        assert!(draft.contains("## Alternativen\n\n(offen)"));
        // The draft parses: healing changes nothing.
        assert!(crate::draft::heal(&draft).repairs.is_empty());
        // A title given with the request is taken.
        let j = Interview::start("project", "Neues Projekt anlegen: Gartenhaus bauen");
        assert_eq!(j.title.as_deref(), Some("Gartenhaus bauen"));
    }
}
