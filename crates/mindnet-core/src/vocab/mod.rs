//! The edge vocabulary (IMP-6): canonical kinds, their German and English
//! aliases, inverse pairs, symmetric kinds, and which kinds are causal.

use crate::{ConfigError, yaml};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The built-in vocabulary, `config/edge_vocabulary.yaml` at build time.
pub const DEFAULT_YAML: &str = include_str!("../../../../config/edge_vocabulary.yaml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct VocabularyFile {
    #[allow(dead_code)]
    version: u32,
    kinds: BTreeMap<String, KindInfo>,
    /// The kind unknown kinds are kept as. Missing in files written before
    /// it: the built-in one.
    #[serde(default)]
    fallback: Option<String>,
    /// Missing in files written before it: the built-in rules.
    #[serde(default)]
    names: Option<NameRules>,
}

/// How names are read from prose: the runs of capitalised words that
/// become entity nodes, and the titles that become mention edges.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NameRules {
    /// The kind of a mention edge.
    pub mention_kind: String,
    pub mention_confidence: f64,
    /// Titles and aliases shorter than this (in characters) are never
    /// looked for.
    pub min_length: usize,
    /// Lower-case words that may stand inside a name (`Bank of England`).
    pub connectors: Vec<String>,
    /// Words that are never a name on their own, though capitalised at a
    /// sentence's start (`Die`, `The`).
    pub function_words: Vec<String>,
    /// Endings a mention may carry after the name, per language
    /// (`Webers`, `Atlas's`); other languages use `default`.
    pub suffixes: BTreeMap<String, Vec<String>>,
    /// Of those endings, the ones that make a plural: they follow a name of
    /// several words only, since a one-word name's plural is a common noun
    /// ("Images" is not the note "Image").
    #[serde(default)]
    pub plurals: BTreeMap<String, Vec<String>>,
    /// Per language, the words that make the capitalised word after them
    /// a common noun (`der Unfall`, `im Herbst`, `drei Stunden`), with
    /// lower-case words between (`die neue Beziehung`): German capitalises
    /// every noun, and a noun is no name.
    #[serde(default)]
    pub determiners: BTreeMap<String, Vec<String>>,
}

impl NameRules {
    pub fn suffixes(&self, lang: &str) -> &[String] {
        self.suffixes
            .get(lang)
            .or_else(|| self.suffixes.get("default"))
            .map_or(&[], Vec::as_slice)
    }

    pub fn plurals(&self, lang: &str) -> &[String] {
        self.plurals.get(lang).map_or(&[], Vec::as_slice)
    }

    pub fn determiners(&self, lang: &str) -> &[String] {
        self.determiners.get(lang).map_or(&[], Vec::as_slice)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindInfo {
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub inverse: Option<String>,
    #[serde(default)]
    pub symmetric: bool,
    #[serde(default)]
    pub causal: bool,
    /// For a causal kind: which end of `A kind B` is the cause. Unset: the
    /// opposite of its inverse's, else `source` (A caused B).
    #[serde(default)]
    pub cause: Option<CauseEnd>,
    /// Reserved for the chunker's own edges (`belongs_to`, `next`, `prev`):
    /// the provenance firewall (IMP-7) rewrites them from any other source.
    #[serde(default)]
    pub structural: bool,
    /// Which of the chunker's edges a structural kind is.
    #[serde(default)]
    pub structure: Option<StructureRole>,
}

/// The edges the chunker writes itself, by what they join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StructureRole {
    /// A chunk to its note.
    Owner,
    /// A chunk to the one after it.
    Next,
    /// A chunk to the one before it.
    Previous,
}

/// The kinds of the chunker's edges, as the vocabulary names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructureKinds {
    pub owner: String,
    pub next: String,
    pub previous: String,
}

/// Which end of a causal edge `A kind B` is the cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CauseEnd {
    /// A, the note that states the edge (`A resulted_in B`).
    Source,
    /// B, the link's target (`A caused_by B`).
    Target,
}

/// A causal edge read as cause → effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CausalReading<'a> {
    /// The link's target is the cause (`A caused_by B`: B → A).
    pub cause_is_target: bool,
    /// The kind read from cause to effect (`resulted_in` for `caused_by`).
    pub forward: &'a str,
    /// The kind read from effect to cause (`caused_by` for `resulted_in`).
    pub backward: &'a str,
}

/// How a kind written by the author maps to the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Canonical<'a> {
    /// Already the canonical name.
    Known(&'a str),
    /// An alias; the canonical kind it stands for.
    Alias(&'a str),
    /// Not in the vocabulary; kept as the fallback kind and reported.
    Unknown,
}

#[derive(Debug, Clone)]
pub struct EdgeVocabulary {
    kinds: BTreeMap<String, KindInfo>,
    /// Normalised spelling (canonical or alias) → canonical kind.
    lookup: HashMap<String, String>,
    names: NameRules,
    fallback: String,
    structure: StructureKinds,
    /// The YAML it was read from: what it means is fixed by its text.
    source: String,
}

/// Lower-case, and spaces and hyphens as underscores: `Ausgelöst durch` →
/// `ausgelöst_durch`. Authors write kinds in many ways; the vocabulary in one.
pub fn normalize_kind(raw: &str) -> String {
    raw.trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '-' { '_' } else { c })
        .collect()
}

impl EdgeVocabulary {
    pub fn builtin() -> Self {
        Self::from_yaml(Path::new("<built-in edge_vocabulary.yaml>"), DEFAULT_YAML)
            .expect("the built-in edge vocabulary is valid (checked by a test)")
    }

    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = yaml::read(path)?;
        Self::from_yaml(path, &text)
    }

    pub fn from_yaml(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let file: VocabularyFile = yaml::parse(path, text)?;
        let lookup = spellings(path, text, &file.kinds)?;
        check_causes(path, text, &file.kinds)?;
        let builtin = || (text != DEFAULT_YAML).then(Self::builtin);
        let fallback = match file.fallback.clone() {
            Some(f) => f,
            None => match builtin() {
                Some(b) => b.fallback,
                None => return Err(yaml::invalid(path, text, &["fallback"], "missing")),
            },
        };
        match file.kinds.get(&fallback) {
            Some(k) if !k.structural => {}
            _ => {
                return Err(yaml::invalid(
                    path,
                    text,
                    &["fallback"],
                    format!(
                        "`{fallback}` must be a kind of this vocabulary, and not a structural one"
                    ),
                ));
            }
        }
        let structure = structure_kinds(path, text, &file.kinds, builtin)?;
        let names = name_rules(path, text, file.names, &file.kinds)?;
        Ok(EdgeVocabulary {
            kinds: file.kinds,
            lookup,
            names,
            fallback,
            structure,
            source: text.to_string(),
        })
    }

    /// The kind an unknown, missing or reserved kind is kept as.
    pub fn fallback_kind(&self) -> &str {
        &self.fallback
    }

    /// The kinds of the chunker's own edges.
    pub fn structure(&self) -> &StructureKinds {
        &self.structure
    }

    /// The canonical kind of what an author wrote, or the fallback kind.
    pub fn kind_of(&self, raw: &str) -> &str {
        match self.canonicalize(raw) {
            Canonical::Known(k) | Canonical::Alias(k) => k,
            Canonical::Unknown => &self.fallback,
        }
    }

    /// How names and mentions are read from prose.
    pub fn names(&self) -> &NameRules {
        &self.names
    }

    /// The YAML text this vocabulary was read from.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn canonicalize(&self, raw: &str) -> Canonical<'_> {
        let key = normalize_kind(raw);
        match self.lookup.get_key_value(&key) {
            Some((_, canonical)) => {
                let canonical = self.kinds.get_key_value(canonical).map(|(k, _)| k.as_str());
                match canonical {
                    Some(c) if c == key => Canonical::Known(c),
                    Some(c) => Canonical::Alias(c),
                    None => Canonical::Unknown,
                }
            }
            None => Canonical::Unknown,
        }
    }

    pub fn get(&self, kind: &str) -> Option<&KindInfo> {
        self.kinds.get(kind)
    }

    pub fn contains(&self, kind: &str) -> bool {
        self.kinds.contains_key(kind)
    }

    /// The kind read in the other direction: the inverse, or the kind itself
    /// when symmetric (IMP-9).
    pub fn inverse(&self, kind: &str) -> Option<&str> {
        let info = self.kinds.get(kind)?;
        if info.symmetric {
            return Some(self.kinds.get_key_value(kind)?.0);
        }
        info.inverse.as_deref()
    }

    pub fn is_causal(&self, kind: &str) -> bool {
        self.kinds.get(kind).is_some_and(|k| k.causal)
    }

    /// A causal kind read as cause → effect; `None` for other kinds. Every
    /// reader of causality (the causal walk, `chain`, the linter) asks here,
    /// so a kind added to the vocabulary is followed by all of them.
    pub fn causal_reading(&self, kind: &str) -> Option<CausalReading<'_>> {
        let (name, info) = self.kinds.get_key_value(kind)?;
        if !info.causal {
            return None;
        }
        let inverse = info
            .inverse
            .as_deref()
            .and_then(|i| self.kinds.get_key_value(i));
        let cause = info
            .cause
            .unwrap_or_else(|| match inverse.and_then(|(_, i)| i.cause) {
                Some(CauseEnd::Source) => CauseEnd::Target,
                _ => CauseEnd::Source,
            });
        let other = inverse.map_or(name.as_str(), |(k, _)| k.as_str());
        Some(match cause {
            CauseEnd::Source => CausalReading {
                cause_is_target: false,
                forward: name,
                backward: other,
            },
            CauseEnd::Target => CausalReading {
                cause_is_target: true,
                forward: other,
                backward: name,
            },
        })
    }

    /// Causal kinds, by name.
    pub fn causal_kinds(&self) -> impl Iterator<Item = &str> {
        self.kinds
            .iter()
            .filter(|(_, k)| k.causal)
            .map(|(n, _)| n.as_str())
    }

    pub fn is_structural(&self, kind: &str) -> bool {
        self.kinds.get(kind).is_some_and(|k| k.structural)
    }

    /// Structure kinds, by name.
    pub fn structural_kinds(&self) -> Vec<String> {
        self.kinds
            .iter()
            .filter(|(_, k)| k.structural)
            .map(|(n, _)| n.clone())
            .collect()
    }

    pub fn kinds(&self) -> impl Iterator<Item = (&str, &KindInfo)> {
        self.kinds.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Every spelling (a kind's name and its aliases, normalised) to its
/// kind; each kind's name canonical, each spelling one kind's, each
/// inverse a kind that names this one back.
fn spellings(
    path: &Path,
    text: &str,
    kinds: &BTreeMap<String, KindInfo>,
) -> Result<HashMap<String, String>, ConfigError> {
    let mut lookup = HashMap::new();
    for (name, info) in kinds {
        if normalize_kind(name) != *name {
            return Err(yaml::invalid(
                path,
                text,
                &["kinds", name],
                "a canonical kind must be lower-case snake_case",
            ));
        }
        let spellings = std::iter::once(name).chain(info.aliases.iter());
        for spelling in spellings {
            let key = normalize_kind(spelling);
            if let Some(previous) = lookup.insert(key.clone(), name.clone())
                && previous != *name
            {
                return Err(yaml::invalid(
                    path,
                    text,
                    &["kinds", name, "aliases"],
                    format!("`{spelling}` already names the kind `{previous}`"),
                ));
            }
        }
        if let Some(inverse) = &info.inverse {
            let Some(other) = kinds.get(inverse) else {
                return Err(yaml::invalid(
                    path,
                    text,
                    &["kinds", name, "inverse"],
                    format!("the inverse `{inverse}` is not a kind of this vocabulary"),
                ));
            };
            if other.inverse.as_deref().is_some_and(|back| back != name) {
                return Err(yaml::invalid(
                    path,
                    text,
                    &["kinds", inverse, "inverse"],
                    format!("inverse pairs must agree: `{name}` names `{inverse}` as inverse"),
                ));
            }
        }
    }
    Ok(lookup)
}

/// `cause` only on causal kinds, and at opposite ends of a kind and its
/// inverse.
fn check_causes(
    path: &Path,
    text: &str,
    kinds: &BTreeMap<String, KindInfo>,
) -> Result<(), ConfigError> {
    for (name, info) in kinds {
        let other = info.inverse.as_ref().and_then(|i| kinds.get(i));
        if let (Some(a), Some(b)) = (info.cause, other.and_then(|o| o.cause))
            && a == b
        {
            return Err(yaml::invalid(
                path,
                text,
                &["kinds", name, "cause"],
                "a causal kind and its inverse must have their cause at opposite ends",
            ));
        }
        if info.cause.is_some() && !info.causal {
            return Err(yaml::invalid(
                path,
                text,
                &["kinds", name, "cause"],
                "`cause` is for causal kinds only (add `causal: true`)",
            ));
        }
    }
    Ok(())
}

/// The rules of names and mentions: the file's, checked, or (in a file
/// written before them) the built-in ones.
fn name_rules(
    path: &Path,
    text: &str,
    names: Option<NameRules>,
    kinds: &BTreeMap<String, KindInfo>,
) -> Result<NameRules, ConfigError> {
    let Some(n) = names else {
        if text == DEFAULT_YAML {
            return Err(yaml::invalid(path, text, &["names"], "missing"));
        }
        return Ok(EdgeVocabulary::builtin().names);
    };
    if !kinds.contains_key(&n.mention_kind) {
        return Err(yaml::invalid(
            path,
            text,
            &["names", "mention_kind"],
            format!("`{}` is not a kind of this vocabulary", n.mention_kind),
        ));
    }
    if !(0.0..=1.0).contains(&n.mention_confidence) {
        return Err(yaml::invalid(
            path,
            text,
            &["names", "mention_confidence"],
            "must be between 0 and 1",
        ));
    }
    Ok(n)
}

/// Each structural role's kind: one kind per role, each structural. A file
/// written before roles existed takes the built-in kinds, which it must
/// define as structural.
fn structure_kinds(
    path: &Path,
    text: &str,
    kinds: &BTreeMap<String, KindInfo>,
    builtin: impl Fn() -> Option<EdgeVocabulary>,
) -> Result<StructureKinds, ConfigError> {
    let mut found: [Option<&String>; 3] = [None; 3];
    for (name, info) in kinds {
        let Some(role) = info.structure else { continue };
        if !info.structural {
            return Err(yaml::invalid(
                path,
                text,
                &["kinds", name, "structure"],
                "`structure` is for structural kinds only (add `structural: true`)",
            ));
        }
        let slot = &mut found[role as usize];
        if let Some(other) = slot {
            return Err(yaml::invalid(
                path,
                text,
                &["kinds", name, "structure"],
                format!("`{other}` already has this role"),
            ));
        }
        *slot = Some(name);
    }
    let incomplete = || {
        yaml::invalid(
            path,
            text,
            &["kinds"],
            "give one structural kind each the `structure` owner, next and previous",
        )
    };
    let structure = match found {
        [Some(owner), Some(next), Some(previous)] => StructureKinds {
            owner: owner.clone(),
            next: next.clone(),
            previous: previous.clone(),
        },
        [None, None, None] => builtin().ok_or_else(incomplete)?.structure,
        _ => return Err(incomplete()),
    };
    for kind in [&structure.owner, &structure.next, &structure.previous] {
        if !kinds.get(kind).is_some_and(|k| k.structural) {
            return Err(yaml::invalid(
                path,
                text,
                &["kinds", kind],
                "must be defined, with `structural: true` (the chunker writes it)",
            ));
        }
    }
    Ok(structure)
}

#[cfg(test)]
mod tests;
