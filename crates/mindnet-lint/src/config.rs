//! `config/lint.yaml`: the severity of each rule, or `off`, and the word
//! lists that tell real words from misspellings.

use crate::{Lang, Severity};
use mindnet_core::{ConfigError, yaml};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const DEFAULT_YAML: &str = include_str!("../../../config/lint.yaml");

/// Every rule id, with its default severity.
pub const RULES: [(&str, Severity); 11] = [
    ("edge/alias-not-canonical", Severity::Warning),
    ("edge/unknown-kind", Severity::Error),
    ("edge/prohibited-for-type", Severity::Error),
    ("edge/chronology-as-causality", Severity::Warning),
    ("link/missing-target", Severity::Recommendation),
    ("link/outside-vault", Severity::Error),
    ("link/unlinked-mention", Severity::Recommendation),
    ("node/split-spelling", Severity::Warning),
    ("chain/gap", Severity::Recommendation),
    ("chain/cycle", Severity::Warning),
    ("chain/multiple-causes", Severity::Recommendation),
];

/// Rules that only repeated a type-pair matrix rule: the matrix's
/// `prohibited` kinds report the same links as `edge/prohibited-for-type`.
/// A file that still names them is read, and the name is ignored.
const RETIRED: [&str; 2] = ["hub/causal-edge", "principle/caused-by"];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    version: u32,
    #[serde(default)]
    rules: BTreeMap<String, String>,
    /// By language tag; absent: the built-in lists.
    word_lists: Option<BTreeMap<String, Vec<PathBuf>>>,
}

#[derive(Debug, Clone)]
pub struct LintConfig {
    /// `None`: switched off.
    rules: BTreeMap<String, Option<Severity>>,
    word_lists: BTreeMap<Lang, Vec<PathBuf>>,
}

impl LintConfig {
    pub fn builtin() -> Self {
        Self::from_yaml(Path::new("<built-in lint.yaml>"), DEFAULT_YAML)
            .expect("the built-in lint config is valid (checked by a test)")
    }

    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = yaml::read(path)?;
        Self::from_yaml(path, &text)
    }

    pub fn from_yaml(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let f: File = yaml::parse(path, text)?;
        let mut rules: BTreeMap<String, Option<Severity>> = RULES
            .iter()
            .map(|(r, s)| (r.to_string(), Some(*s)))
            .collect();
        for (rule, value) in f.rules {
            if RETIRED.contains(&rule.as_str()) {
                tracing::warn!(
                    "{}: `{rule}` is retired; the type-pair matrix reports these links (edge/prohibited-for-type)",
                    path.display()
                );
                continue;
            }
            if !rules.contains_key(&rule) {
                return Err(yaml::invalid(
                    path,
                    text,
                    &["rules", &rule],
                    format!("unknown rule; known: {}", RULES.map(|(r, _)| r).join(", ")),
                ));
            }
            let severity = match value.as_str() {
                "off" => None,
                other => Some(other.parse::<Severity>().map_err(|m| {
                    yaml::invalid(path, text, &["rules", &rule], format!("{m}, or off"))
                })?),
            };
            rules.insert(rule, severity);
        }
        let word_lists = match f.word_lists {
            None => Self::builtin().word_lists,
            Some(lists) => {
                let mut by_lang = BTreeMap::new();
                for (tag, files) in lists {
                    let lang = Lang::from_tag(&tag).ok_or_else(|| {
                        yaml::invalid(
                            path,
                            text,
                            &["word_lists", &tag],
                            "unknown language; known: de, en",
                        )
                    })?;
                    // A relative path is relative to the file naming it.
                    let dir = path.parent().unwrap_or(Path::new(""));
                    by_lang.insert(lang, files.iter().map(|f| dir.join(f)).collect());
                }
                by_lang
            }
        };
        Ok(LintConfig { rules, word_lists })
    }

    /// The word lists of a language (read if they exist).
    pub fn word_lists(&self, lang: Lang) -> &[PathBuf] {
        self.word_lists.get(&lang).map_or(&[], Vec::as_slice)
    }

    /// The same config without word lists: edit distance alone decides
    /// (for comparison in `bench lint`).
    pub fn without_word_lists(mut self) -> Self {
        self.word_lists.clear();
        self
    }

    /// The rule's severity; `None` when it is off.
    pub fn severity(&self, rule: &str) -> Option<Severity> {
        self.rules.get(rule).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_config_names_every_rule() {
        let c = LintConfig::builtin();
        for (rule, default) in RULES {
            assert_eq!(c.severity(rule), Some(default), "{rule}");
        }
    }

    #[test]
    fn a_rule_can_be_switched_off_and_an_unknown_rule_is_an_error() {
        let c = LintConfig::from_yaml(
            Path::new("l.yaml"),
            "version: 1\nrules:\n  chain/gap: off\n  chain/cycle: error\n  hub/causal-edge: error\n",
        )
        .unwrap();
        assert_eq!(c.severity("chain/gap"), None);
        assert_eq!(c.severity("chain/cycle"), Some(Severity::Error));
        assert_eq!(c.severity("hub/causal-edge"), None, "retired, ignored");
        let e = LintConfig::from_yaml(Path::new("l.yaml"), "version: 1\nrules:\n  nope: off\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("l.yaml:3") && e.contains("unknown rule"), "{e}");
    }

    #[test]
    fn word_lists_are_per_language_and_default_to_the_builtin_ones() {
        let builtin = LintConfig::builtin();
        assert!(!builtin.word_lists(Lang::De).is_empty());
        assert!(!builtin.word_lists(Lang::En).is_empty());
        let c = LintConfig::from_yaml(Path::new("l.yaml"), "version: 1\n").unwrap();
        assert_eq!(c.word_lists(Lang::En), builtin.word_lists(Lang::En));
        let c = LintConfig::from_yaml(
            Path::new("/cfg/l.yaml"),
            "version: 1\nword_lists:\n  de: [woerter.txt]\n",
        )
        .unwrap();
        assert_eq!(c.word_lists(Lang::De), [PathBuf::from("/cfg/woerter.txt")]);
        assert!(c.word_lists(Lang::En).is_empty());
        let e = LintConfig::from_yaml(
            Path::new("l.yaml"),
            "version: 1\nword_lists:\n  fr: [mots.txt]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("l.yaml:3") && e.contains("unknown language"),
            "{e}"
        );
    }
}
