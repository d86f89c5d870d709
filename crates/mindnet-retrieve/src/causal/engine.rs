//! `config/decision_engine.yaml`: intents with their traversal settings
//! (CAU-1), and the weights of traversal, path ranking and subgraph.

use mindnet_core::{ConfigError, yaml};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const DEFAULT_YAML: &str = include_str!("../../../../config/decision_engine.yaml");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From an effect towards its causes.
    Backward,
    /// From a cause towards its effects.
    Forward,
    Both,
}

/// What a question asks for (CAU-1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntentRule {
    #[serde(default)]
    pub patterns: Vec<String>,
    pub direction: Direction,
    pub preferred_edges: Vec<String>,
    pub target_types: Vec<String>,
    pub max_hops: usize,
    pub need_explanation_chain: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Traversal {
    pub seeds: usize,
    pub frontier: usize,
    pub hop_decay: f64,
    pub backward_kinds: Vec<String>,
    pub edge_weights: BTreeMap<String, f64>,
    pub type_weights: BTreeMap<String, f64>,
    pub default_type_weight: f64,
    pub provenance: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ranking {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubgraphConfig {
    pub paths: usize,
    pub max_nodes: usize,
}

/// A chat strategy (CHAT-3, CHAT-4): when it is chosen and how it answers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Strategy {
    pub description: String,
    /// Phrases that select it on the fast path (matched like intent patterns).
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Causal intents whose patterns select it.
    #[serde(default)]
    pub intents: Vec<String>,
    /// Note types of the strategic retrieval.
    #[serde(default)]
    pub inject_types: Vec<String>,
    /// Score factors of a source by its note type.
    #[serde(default)]
    pub type_boosts: BTreeMap<String, f64>,
    /// The key of its prompt template in prompts.yaml.
    pub template: String,
    /// Answers with the causal chain and the explanation subgraph.
    #[serde(default)]
    pub causal: bool,
    /// Drafts a new note instead of answering from the vault.
    #[serde(default)]
    pub interview: bool,
    /// Phrases whose mean embedding stands for it in the fallback.
    #[serde(default)]
    pub examples: Vec<String>,
}

/// The size of an extractive answer, and how its sentences are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractiveLimits {
    pub sentences: usize,
    pub per_source: usize,
    /// The lexical match's share of a sentence's score (0..1); the rest is
    /// the similarity of its embedding to the question's.
    #[serde(default = "default_lexical")]
    pub lexical: f64,
    /// Subtracted for each rank a sentence's source is below the first.
    #[serde(default)]
    pub source_rank: f64,
    /// Added to a sentence that holds what the question asks for.
    #[serde(default)]
    pub answer_type: f64,
}

fn default_lexical() -> f64 {
    1.0
}

/// What a question asks for, as far as a sentence can be checked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// A year or a date.
    Date,
    /// A count or an amount.
    Number,
    /// A name the question does not hold.
    Name,
}

/// The chat router's rules (the `chat:` block).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatRules {
    pub question_words: Vec<String>,
    pub trigger_keywords: Vec<String>,
    pub default_strategy: String,
    /// How far the nearest centroid must beat the next to be chosen.
    pub centroid_margin: f64,
    /// Words an extractive answer does not match on.
    #[serde(default)]
    pub stopwords: Vec<String>,
    pub extractive: ExtractiveLimits,
    /// The openings of a question (lower case) that ask for each kind of
    /// answer.
    #[serde(default)]
    pub answer_types: BTreeMap<AnswerKind, Vec<String>>,
    pub strategies: BTreeMap<String, Strategy>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionEngine {
    pub version: u32,
    pub fallback: String,
    pub intents: BTreeMap<String, IntentRule>,
    pub traversal: Traversal,
    pub ranking: Ranking,
    pub subgraph: SubgraphConfig,
    /// Absent in a file written before the chat: the built-in rules.
    #[serde(default)]
    pub chat: Option<ChatRules>,
}

impl DecisionEngine {
    pub fn builtin() -> Self {
        Self::from_yaml(Path::new("<built-in decision_engine.yaml>"), DEFAULT_YAML)
            .expect("the built-in decision engine is valid (checked by a test)")
    }

    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = yaml::read(path)?;
        Self::from_yaml(path, &text)
    }

    pub fn from_yaml(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let mut e: DecisionEngine = yaml::parse(path, text)?;
        if !e.intents.contains_key(&e.fallback) {
            return Err(yaml::invalid(
                path,
                text,
                &["fallback"],
                format!("the fallback intent `{}` is not defined", e.fallback),
            ));
        }
        if e.chat.is_none() && text != DEFAULT_YAML {
            e.chat = Self::builtin().chat;
        }
        if let Some(chat) = &e.chat {
            let invalid = |field: &[&str], msg: String| Err(yaml::invalid(path, text, field, msg));
            if !chat.strategies.contains_key(&chat.default_strategy) {
                return invalid(
                    &["chat", "default_strategy"],
                    format!(
                        "the default strategy `{}` is not defined",
                        chat.default_strategy
                    ),
                );
            }
            let x = &chat.extractive;
            for (field, v, max) in [
                ("lexical", x.lexical, 1.0),
                ("source_rank", x.source_rank, f64::INFINITY),
                ("answer_type", x.answer_type, f64::INFINITY),
            ] {
                if !(0.0..=max).contains(&v) {
                    let range = if max.is_finite() {
                        "0 to 1"
                    } else {
                        "0 or more"
                    };
                    return invalid(
                        &["chat", "extractive", field],
                        format!("{v} is not {range}"),
                    );
                }
            }
            if x.sentences == 0 || x.per_source == 0 {
                return invalid(
                    &["chat", "extractive"],
                    "sentences and per_source must be at least 1".into(),
                );
            }
            for (name, s) in &chat.strategies {
                if let Some(i) = s.intents.iter().find(|i| !e.intents.contains_key(*i)) {
                    return invalid(
                        &["chat", "strategies", name, "intents"],
                        format!("the intent `{i}` is not defined under `intents`"),
                    );
                }
            }
        }
        Ok(e)
    }

    /// The chat router's rules (the built-in ones when the file has none).
    pub fn chat(&self) -> &ChatRules {
        self.chat
            .as_ref()
            .expect("the built-in decision engine has a chat block (checked by a test)")
    }

    /// The rule of an intent (the fallback's for an unknown name).
    pub fn rule(&self, intent: &str) -> &IntentRule {
        self.intents
            .get(intent)
            .or_else(|| self.intents.get(&self.fallback))
            .expect("the fallback intent exists (checked on load)")
    }

    /// The weight of a kind read along a path; a causal kind not listed
    /// weighs the `causal` entry (a kind added to the vocabulary is walked).
    pub fn edge_weight(&self, kind: &str, causal: bool) -> f64 {
        let w = &self.traversal.edge_weights;
        w.get(kind)
            .or_else(|| causal.then(|| w.get(super::CAUSAL)).flatten())
            .copied()
            .unwrap_or(0.0)
    }

    pub fn type_weight(&self, note_type: &str) -> f64 {
        self.traversal
            .type_weights
            .get(note_type)
            .copied()
            .unwrap_or(self.traversal.default_type_weight)
    }

    pub fn provenance_weight(&self, provenance: &str) -> f64 {
        self.traversal
            .provenance
            .get(provenance)
            .copied()
            .unwrap_or(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_extractive(line: &str) -> Result<DecisionEngine, ConfigError> {
        let text = DEFAULT_YAML.lines().map(|l| {
            if l.trim_start().starts_with("extractive:") {
                format!("  extractive: {line}")
            } else {
                l.to_string()
            }
        });
        let text: Vec<String> = text.collect();
        DecisionEngine::from_yaml(Path::new("de.yaml"), &text.join("\n"))
    }

    /// A file from before the sentence weights still loads (words alone
    /// choose, as they did); a weight out of range is named.
    #[test]
    fn extractive_weights_default_and_are_checked() {
        let old = with_extractive("{sentences: 6, per_source: 1}").unwrap();
        let x = old.chat().extractive;
        assert_eq!((x.lexical, x.source_rank, x.answer_type), (1.0, 0.0, 0.0));
        let err = with_extractive("{sentences: 3, per_source: 1, lexical: 1.5}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("lexical") && err.contains("1.5"), "{err}");
        let err = with_extractive("{sentences: 0, per_source: 1}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("at least 1"), "{err}");
        assert!(!DecisionEngine::builtin().chat().answer_types.is_empty());
    }
}
