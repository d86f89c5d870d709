//! The type registry (IMP-3): what each note type means for chunking, edge
//! derivation and retrieval, and the type-pair matrix.

use crate::vocab::{Canonical, EdgeVocabulary};
use crate::{ConfigError, yaml};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The built-in registry, `config/types.yaml` at build time.
pub const DEFAULT_YAML: &str = include_str!("../../../config/types.yaml");

/// Wildcard for a matrix rule's source or target type.
pub const ANY_TYPE: &str = "*";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkStrategy {
    /// Every heading starts a new chunk.
    ByHeading,
    /// Headings are soft boundaries: small sections are packed together.
    Sliding,
}

/// Sizes are in estimated tokens (see `mindnet_ingest::chunk::estimate_tokens`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkProfile {
    pub strategy: ChunkStrategy,
    /// A chunk is closed once the next block would take it past this size.
    pub target: usize,
    /// No chunk is larger: bigger blocks are split at sentences, then words.
    pub max: usize,
    /// Tokens of the previous chunk repeated at the start of `window`.
    pub overlap: usize,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemaField {
    pub field: String,
    pub prompt: String,
    #[serde(default)]
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeConfig {
    #[serde(default)]
    pub description: String,
    pub chunk_profile: String,
    #[serde(default)]
    pub edge_defaults: Vec<String>,
    pub retriever_weight: f64,
    #[serde(default)]
    pub enable_smart_edge_allocation: bool,
    #[serde(default)]
    pub detection_keywords: Vec<String>,
    /// Fields the interview asks for when drafting a note of this type.
    #[serde(default)]
    pub schema: Vec<SchemaField>,
}

/// Assigns a type to every note under a folder that names none itself.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathRule {
    /// Vault-relative folder prefix, `/`-separated, compared case-insensitively.
    pub prefix: String,
    #[serde(rename = "type")]
    pub note_type: String,
}

/// One cell of the type-pair matrix.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatrixRule {
    pub source: String,
    pub target: String,
    /// The kind derived for a plain wikilink between these types, if any.
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub typical: Vec<String>,
    #[serde(default)]
    pub prohibited: Vec<String>,
}

/// The checks of a registry file, each error naming its file, line and
/// field.
struct Check<'a> {
    path: &'a Path,
    text: &'a str,
    vocab: &'a EdgeVocabulary,
}

impl Check<'_> {
    fn bad(&self, keys: &[&str], message: String) -> ConfigError {
        yaml::invalid(self.path, self.text, keys, message)
    }

    /// A kind as the registry may name it: canonical, and not a structure
    /// kind.
    fn kind(&self, keys: &[&str], kind: &str) -> Result<(), ConfigError> {
        match self.vocab.canonicalize(kind) {
            Canonical::Known(k) if !self.vocab.is_structural(k) => Ok(()),
            Canonical::Known(_) => {
                Err(self.bad(keys, format!("`{kind}` is reserved for structure edges")))
            }
            Canonical::Alias(c) => Err(self.bad(
                keys,
                format!("`{kind}` is an alias; write the canonical `{c}`"),
            )),
            Canonical::Unknown => {
                Err(self.bad(keys, format!("`{kind}` is not in the edge vocabulary")))
            }
        }
    }

    /// The default type, the chunk profiles and each type's settings.
    fn types(&self, file: &RegistryFile) -> Result<(), ConfigError> {
        if !file.types.contains_key(&file.default_type) {
            return Err(self.bad(
                &["default_type"],
                format!("`{}` is not a type of this registry", file.default_type),
            ));
        }
        for (name, p) in &file.chunk_profiles {
            if p.target == 0 || p.max < p.target || p.overlap >= p.target {
                return Err(self.bad(
                    &["chunk_profiles", name],
                    format!(
                        "sizes must satisfy 0 < target <= max and overlap < target (target {}, max {}, overlap {})",
                        p.target, p.max, p.overlap
                    ),
                ));
            }
        }
        for (name, t) in &file.types {
            if !file.chunk_profiles.contains_key(&t.chunk_profile) {
                return Err(self.bad(
                    &["types", name, "chunk_profile"],
                    format!("unknown chunk profile `{}`", t.chunk_profile),
                ));
            }
            if !t.retriever_weight.is_finite() {
                return Err(self.bad(
                    &["types", name, "retriever_weight"],
                    "must be a number".into(),
                ));
            }
            for kind in &t.edge_defaults {
                self.kind(&["types", name, "edge_defaults"], kind)?;
            }
        }
        Ok(())
    }

    /// The path rules' types, and the matrix's types and kinds.
    fn rules(&self, file: &RegistryFile) -> Result<(), ConfigError> {
        for rule in &file.path_rules {
            if !file.types.contains_key(&rule.note_type) {
                return Err(self.bad(
                    &["path_rules", "type"],
                    format!(
                        "unknown type `{}` for prefix `{}`",
                        rule.note_type, rule.prefix
                    ),
                ));
            }
        }
        for rule in &file.matrix {
            for (field, ty) in [("source", &rule.source), ("target", &rule.target)] {
                if ty != ANY_TYPE && !file.types.contains_key(ty) {
                    return Err(self.bad(&["matrix", field], format!("unknown type `{ty}`")));
                }
            }
            let kinds = rule
                .kind
                .iter()
                .chain(&rule.typical)
                .chain(&rule.prohibited);
            for kind in kinds {
                self.kind(&["matrix", "kind"], kind)?;
            }
        }
        Ok(())
    }

    /// Every type the `causal:` block names.
    fn causal(&self, file: &RegistryFile) -> Result<(), ConfigError> {
        let c = &file.causal;
        let named = c
            .shape
            .iter()
            .flatten()
            .map(|t| ("shape", t))
            .chain(
                c.gaps
                    .iter()
                    .flat_map(|g| [("gaps", &g.cause), ("gaps", &g.effect)]),
            )
            .chain(c.anchors.iter().map(|t| ("anchors", t)))
            .chain(c.hubs.iter().map(|t| ("hubs", t)));
        for (field, ty) in named {
            if !file.types.contains_key(ty) {
                return Err(self.bad(&["causal", field], format!("unknown type `{ty}`")));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryFile {
    #[allow(dead_code)]
    version: u32,
    default_type: String,
    chunk_profiles: BTreeMap<String, ChunkProfile>,
    #[serde(default)]
    path_rules: Vec<PathRule>,
    types: BTreeMap<String, TypeConfig>,
    #[serde(default)]
    matrix: Vec<MatrixRule>,
    #[serde(default)]
    causal: CausalTypes,
    #[serde(default)]
    smart_edges: SmartEdgeRules,
}

/// Smart edge allocation without an LLM (CHAT-7): a plain wikilink of a
/// note whose type enables it becomes a typed edge when it is part of the
/// prose, not navigation: it stands in a sentence of at least
/// `min_context_words` other words, outside a section named like
/// navigation, and the chunk is similar enough to the linked note's title.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmartEdgeRules {
    pub min_context_words: usize,
    /// Cosine of the chunk's embedding and the linked note's title.
    pub min_similarity: f64,
    /// Section headings (lower case) whose links are navigation.
    pub navigation_headings: Vec<String>,
}

impl Default for SmartEdgeRules {
    fn default() -> Self {
        SmartEdgeRules {
            min_context_words: 4,
            min_similarity: 0.0,
            navigation_headings: Vec::new(),
        }
    }
}

/// What the types mean for causality: read by the causal ranking, the
/// explanation subgraph and the linter, so a vault with its own types gets
/// all three from one file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CausalTypes {
    /// A chain as people live it, stage by stage (experience → decision →
    /// state …): a path through the stages in order matches the shape.
    #[serde(default)]
    pub shape: Vec<Vec<String>>,
    /// A direct causal link between these types skips a stage (lint `chain/gap`).
    #[serde(default)]
    pub gaps: Vec<Gap>,
    /// Landmarks of a chain: kept first in an explanation subgraph.
    #[serde(default)]
    pub anchors: Vec<String>,
    /// Notes that index or navigate rather than explain: left out of
    /// explanation subgraphs.
    #[serde(default)]
    pub hubs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    pub cause: String,
    pub effect: String,
}

impl CausalTypes {
    /// The types, in order, pass through every stage of the shape.
    pub fn matches_shape(&self, types: &[&str]) -> bool {
        if self.shape.is_empty() {
            return false;
        }
        let mut at = 0;
        for stage in &self.shape {
            match types[at..]
                .iter()
                .position(|t| stage.iter().any(|s| s == t))
            {
                Some(i) => at += i + 1,
                None => return false,
            }
        }
        true
    }

    pub fn is_anchor(&self, note_type: &str) -> bool {
        self.anchors.iter().any(|t| t == note_type)
    }

    pub fn is_hub(&self, note_type: &str) -> bool {
        self.hubs.iter().any(|t| t == note_type)
    }

    pub fn is_gap(&self, cause: &str, effect: &str) -> bool {
        self.gaps
            .iter()
            .any(|g| g.cause == cause && g.effect == effect)
    }
}

#[derive(Debug, Clone)]
pub struct TypeRegistry {
    pub default_type: String,
    pub chunk_profiles: BTreeMap<String, ChunkProfile>,
    pub path_rules: Vec<PathRule>,
    pub types: BTreeMap<String, TypeConfig>,
    pub matrix: Vec<MatrixRule>,
    pub causal: CausalTypes,
    pub smart_edges: SmartEdgeRules,
    /// The YAML it was read from.
    pub source: String,
}

/// Where a note's type came from, for reporting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeSource {
    Frontmatter,
    PathRule,
    Default,
}

impl TypeRegistry {
    pub fn builtin(vocab: &EdgeVocabulary) -> Self {
        Self::from_yaml(Path::new("<built-in types.yaml>"), DEFAULT_YAML, vocab)
            .expect("the built-in type registry is valid (checked by a test)")
    }

    pub fn load(path: &Path, vocab: &EdgeVocabulary) -> Result<Self, ConfigError> {
        let text = yaml::read(path)?;
        Self::from_yaml(path, &text, vocab)
    }

    pub fn from_yaml(path: &Path, text: &str, vocab: &EdgeVocabulary) -> Result<Self, ConfigError> {
        let file: RegistryFile = yaml::parse(path, text)?;
        let check = Check { path, text, vocab };
        check.types(&file)?;
        check.rules(&file)?;
        check.causal(&file)?;
        Ok(TypeRegistry {
            causal: file.causal,
            smart_edges: file.smart_edges,
            default_type: file.default_type,
            chunk_profiles: file.chunk_profiles,
            path_rules: file.path_rules,
            types: file.types,
            matrix: file.matrix,
            source: text.to_string(),
        })
    }

    /// Resolution order: frontmatter > path rule > default type. An unknown
    /// frontmatter type is kept by name (filters use it) and reported by the caller.
    pub fn resolve_type(&self, frontmatter: Option<&str>, rel_path: &str) -> (String, TypeSource) {
        if let Some(t) = frontmatter.map(str::trim).filter(|t| !t.is_empty()) {
            return (t.to_lowercase(), TypeSource::Frontmatter);
        }
        let lower = rel_path.to_lowercase();
        let rule = self
            .path_rules
            .iter()
            .filter(|r| lower.starts_with(&r.prefix.to_lowercase()))
            .max_by_key(|r| r.prefix.len());
        match rule {
            Some(r) => (r.note_type.clone(), TypeSource::PathRule),
            None => (self.default_type.clone(), TypeSource::Default),
        }
    }

    /// The settings of a type; unknown types get the default type's settings.
    pub fn config(&self, note_type: &str) -> &TypeConfig {
        self.types
            .get(note_type)
            .unwrap_or_else(|| &self.types[&self.default_type])
    }

    pub fn is_known(&self, note_type: &str) -> bool {
        self.types.contains_key(note_type)
    }

    pub fn profile(&self, name: &str) -> &ChunkProfile {
        // Validated at load: every type names an existing profile.
        &self.chunk_profiles[name]
    }

    /// The most specific matrix rule for a pair: exact, then `(source, *)`, then `(*, target)`.
    pub fn matrix_rule(&self, source: &str, target: &str) -> Option<&MatrixRule> {
        let find = |s: &str, t: &str| self.matrix.iter().find(|r| r.source == s && r.target == t);
        find(source, target)
            .or_else(|| find(source, ANY_TYPE))
            .or_else(|| find(ANY_TYPE, target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_causal_shape_is_read_in_order() {
        let r = TypeRegistry::builtin(&EdgeVocabulary::builtin());
        let c = &r.causal;
        assert!(c.matches_shape(&["experience", "state", "decision", "principle"]));
        assert!(!c.matches_shape(&["decision", "experience", "state"]));
        assert!(c.is_anchor("decision") && c.is_hub("insight"));
        assert!(c.is_gap("experience", "principle"));
        let bad = DEFAULT_YAML.replace("hubs: [insight]", "hubs: [nosuchtype]");
        let err = TypeRegistry::from_yaml(Path::new("t.yaml"), &bad, &EdgeVocabulary::builtin())
            .unwrap_err();
        assert!(err.to_string().contains("nosuchtype"), "{err}");
    }

    const SEED_TYPES: [&str; 17] = [
        "concept",
        "project",
        "decision",
        "experience",
        "value",
        "principle",
        "source",
        "glossary",
        "strategy",
        "state",
        "insight",
        "profile",
        "person",
        "open_question",
        "hypothesis",
        "white_spot",
        "journal",
    ];

    #[test]
    fn builtin_registry_has_every_seed_type_and_seed_weights() {
        let vocab = EdgeVocabulary::builtin();
        let reg = TypeRegistry::builtin(&vocab);
        for t in SEED_TYPES {
            assert!(reg.is_known(t), "{t}");
        }
        for (t, w) in [
            ("decision", 1.0),
            ("project", 0.97),
            ("concept", 0.60),
            ("glossary", 0.4),
        ] {
            assert_eq!(reg.config(t).retriever_weight, w, "{t}");
        }
        assert_eq!(
            reg.matrix_rule("experience", "value")
                .and_then(|r| r.kind.as_deref()),
            Some("based_on")
        );
        assert_eq!(
            reg.matrix_rule("principle", "source")
                .and_then(|r| r.kind.as_deref()),
            Some("derived_from")
        );
        assert_eq!(reg.resolve_type(Some("Decision"), "x.md").0, "decision");
        assert_eq!(reg.resolve_type(None, "Journal/2026-01-01.md").0, "journal");
        assert_eq!(reg.resolve_type(None, "x.md").0, reg.default_type);
    }

    #[test]
    fn invalid_registry_names_file_line_and_field() {
        let vocab = EdgeVocabulary::builtin();
        let text = "version: 1\ndefault_type: concept\nchunk_profiles:\n  medium: {strategy: by_heading, target: 10, max: 20, overlap: 2}\ntypes:\n  concept:\n    chunk_profile: medium\n    retriever_weight: 0.6\n  project:\n    chunk_profile: huge\n    retriever_weight: 0.9\n";
        let err = TypeRegistry::from_yaml(Path::new("types.yaml"), text, &vocab).unwrap_err();
        match &err {
            ConfigError::Invalid { line, field, .. } => {
                assert_eq!(*line, 10);
                assert_eq!(field, "types.project.chunk_profile");
            }
            other => panic!("unexpected {other}"),
        }
        assert!(err.to_string().starts_with("types.yaml:10: "), "{err}");
        let aliased = text.replace(
            "retriever_weight: 0.6\n",
            "retriever_weight: 0.6\n    edge_defaults: [wegen]\n",
        );
        let err = TypeRegistry::from_yaml(Path::new("types.yaml"), &aliased, &vocab).unwrap_err();
        assert!(err.to_string().contains("canonical `caused_by`"), "{err}");
    }
}
