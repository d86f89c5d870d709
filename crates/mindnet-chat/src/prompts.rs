//! `config/prompts.yaml` (CHAT-2), read late: every request reads the file
//! again (a few KB), so an edit applies from the next request. A file that
//! does not parse is reported with its line, and the last good one stays in
//! use, so a typo never takes the chat down.

use mindnet_core::{ConfigError, yaml};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub const DEFAULT_YAML: &str = include_str!("../../../config/prompts.yaml");

/// The fixed texts of the chat in one language.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Messages {
    pub no_sources: String,
    pub extractive: String,
    pub chain: String,
    pub interview_title: String,
    pub interview_question: String,
    pub interview_optional: String,
    pub interview_done: String,
    pub interview_cancelled: String,
    pub open_field: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prompts {
    pub version: u32,
    pub system: String,
    /// How one source is shown to the LLM.
    pub source: String,
    pub templates: BTreeMap<String, String>,
    /// By language (`de`, `en`); `de` must exist.
    pub messages: BTreeMap<String, Messages>,
}

impl Prompts {
    pub fn builtin() -> Self {
        Self::from_yaml(Path::new("<built-in prompts.yaml>"), DEFAULT_YAML)
            .expect("the built-in prompts are valid (checked by a test)")
    }

    pub fn from_yaml(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let p: Prompts = yaml::parse(path, text)?;
        if !p.messages.contains_key("de") {
            return Err(yaml::invalid(path, text, &["messages"], "`de` is missing"));
        }
        for t in ["fact", "interview", "router", "smart_edge"] {
            if !p.templates.contains_key(t) {
                return Err(yaml::invalid(
                    path,
                    text,
                    &["templates"],
                    format!("the template `{t}` is missing"),
                ));
            }
        }
        Ok(p)
    }

    /// The messages of `lang`, else German.
    pub fn messages(&self, lang: &str) -> &Messages {
        self.messages
            .get(lang)
            .or_else(|| self.messages.get("de"))
            .expect("`de` exists (checked on load)")
    }

    /// A strategy's template, else `fact`'s.
    pub fn template(&self, name: &str) -> &str {
        self.templates
            .get(name)
            .or_else(|| self.templates.get("fact"))
            .map_or("", String::as_str)
    }
}

/// `{key}` replaced by its value for each pair; other braces stay.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (k, v) in values {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// The prompts in use, and why they are not the file's, if they are not.
#[derive(Debug, Clone)]
pub struct Current {
    pub prompts: Arc<Prompts>,
    /// The file's error while the last good prompts stay in use.
    pub warning: Option<String>,
}

/// Prompts from a file, re-read on every request.
#[derive(Debug)]
pub struct PromptStore {
    path: Option<PathBuf>,
    last: Mutex<Loaded>,
}

#[derive(Debug)]
struct Loaded {
    text: String,
    prompts: Arc<Prompts>,
}

impl PromptStore {
    /// The built-in prompts, or the file at `path`, read late.
    pub fn new(path: Option<PathBuf>) -> Self {
        PromptStore {
            path,
            last: Mutex::new(Loaded {
                text: DEFAULT_YAML.to_string(),
                prompts: Arc::new(Prompts::builtin()),
            }),
        }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The file as it is now, or the last good prompts and the error.
    pub fn current(&self) -> Current {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let Some(path) = self.path.as_ref().filter(|p| p.exists()) else {
            // No file (or no longer one): the built-in prompts.
            if last.text != DEFAULT_YAML {
                *last = Loaded {
                    text: DEFAULT_YAML.to_string(),
                    prompts: Arc::new(Prompts::builtin()),
                };
            }
            return Current {
                prompts: last.prompts.clone(),
                warning: None,
            };
        };
        let text = match yaml::read(path) {
            Ok(t) => t,
            Err(e) => return self.keep(&last, e),
        };
        if text != last.text {
            match Prompts::from_yaml(path, &text) {
                Ok(p) => {
                    tracing::info!(path = %path.display(), "prompts reloaded");
                    *last = Loaded {
                        text,
                        prompts: Arc::new(p),
                    };
                }
                Err(e) => return self.keep(&last, e),
            }
        }
        Current {
            prompts: last.prompts.clone(),
            warning: None,
        }
    }

    fn keep(&self, last: &Loaded, e: ConfigError) -> Current {
        let warning = format!("{e}; the last good prompts stay in use");
        tracing::warn!("{warning}");
        Current {
            prompts: last.prompts.clone(),
            warning: Some(warning),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_prompts_load_and_fill() {
        let p = Prompts::builtin();
        assert!(p.system.contains("transparent"));
        let t = fill(p.template("router"), &[("message", "Hallo")]);
        assert!(
            t.contains("Nachricht: Hallo") && t.contains(r#"{"strategy""#),
            "{t}"
        );
        assert_eq!(p.messages("fr").chain, "Kette");
    }

    #[test]
    fn an_edit_applies_next_time_and_a_broken_file_keeps_the_last_good_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prompts.yaml");
        std::fs::write(&path, DEFAULT_YAML).unwrap();
        let store = PromptStore::new(Some(path.clone()));
        assert!(store.current().warning.is_none());
        let edited = DEFAULT_YAML.replace("Du bist mindnet", "Du bist Erik");
        std::fs::write(&path, &edited).unwrap();
        assert!(store.current().prompts.system.starts_with("Du bist Erik"));
        std::fs::write(&path, "version: 1\nsystem: [unclosed\n").unwrap();
        let c = store.current();
        assert!(c.prompts.system.starts_with("Du bist Erik"));
        let w = c.warning.unwrap();
        assert!(w.contains("prompts.yaml") && w.contains("last good"), "{w}");
    }
}
