//! `config/retriever.yaml`: every weight of the score (RET-2) and the intent
//! boosts (RET-3). Built into the binary; a file can replace it.

use mindnet_core::{ConfigError, Status, yaml};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

pub const DEFAULT_YAML: &str = include_str!("../../../config/retriever.yaml");

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetrieverConfig {
    pub version: u32,
    pub weights: Weights,
    /// Share of BM25 in S_sem in hybrid mode.
    pub lexical_share: f64,
    pub status: BTreeMap<String, f64>,
    pub provenance: BTreeMap<String, f64>,
    pub kinds: BTreeMap<String, f64>,
    pub seeds: Seeds,
    pub expansion: Expansion,
    /// The second hop over shared names; files written before it have none.
    #[serde(default)]
    pub hop: Hop,
    /// The name walk; files written before it have none (off).
    #[serde(default)]
    pub walk: Walk,
    /// Intent → kind → factor.
    pub intent_boosts: BTreeMap<String, BTreeMap<String, f64>>,
    /// What `mindnet tune` may change, in the order it tries; files written
    /// before it have none (the tuner then takes the built-in list).
    #[serde(default)]
    pub tune: Vec<Tunable>,
}

/// A number of the configuration, and whether it is a count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    pub value: f64,
    pub integer: bool,
}

/// One number `mindnet tune` may change: its path in this file
/// (`weights.edge`) and the values it tries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tunable {
    pub path: String,
    pub grid: Vec<f64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub semantic: f64,
    pub edge: f64,
    pub centrality: f64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seeds {
    pub per_source: usize,
    pub rrf_k: usize,
    pub fused: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expansion {
    pub depth: usize,
    pub max_notes: usize,
    pub relevant: usize,
    /// B_edge and B_cent are divided by the note's degree to this power.
    /// (Files written before it existed read as 0: no damping.)
    #[serde(default)]
    pub hub_damping: f64,
    /// 0: the graph terms count fully for every note; 1: in proportion to
    /// the note's own S_sem.
    #[serde(default)]
    pub gate: f64,
    /// A note's total stays below this times the semantic term of the best
    /// relevant note it is linked with (0: no limit).
    #[serde(default)]
    pub lift_limit: f64,
    /// The share of the limit a lifted total keeps as it is; past it a
    /// total approaches the limit without reaching it, so notes lifted by
    /// the same hit keep the order of their evidence (1: cut at the limit,
    /// which ties them).
    #[serde(default = "one")]
    pub lift_knee: f64,
}

/// What a file written before a field existed reads as: the old behaviour.
fn one() -> f64 {
    1.0
}

/// The second retrieval step (`hop.rs`): the best hit's rare names, not in
/// the question, are searched with it; the notes that share them follow
/// the hit in the order of that search.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hop {
    /// W_hop: the bonus of the second search's best note (0: no hop).
    pub weight: f64,
    /// B_hop = (rank_k + 1) / (rank_k + 1 + rank): how fast the bonus
    /// falls along the second search's order.
    pub rank_k: f64,
    /// Bridge names followed, the rarest first.
    pub names: usize,
    /// A name more than this share of the notes mention is a hub, never a
    /// bridge (at least 2 notes).
    pub hub_share: f64,
    /// Notes the second search keeps.
    pub candidates: usize,
    /// The second search's order: this share of BM25 (the question and the
    /// bridge names), the rest cosine (the question).
    pub lexical_share: f64,
    /// Follow only a best hit the question names (its title or an alias):
    /// a question names its first note and describes the second, so a hit
    /// the question does not name is an answer, not a bridge. Files
    /// written before it follow any hit.
    #[serde(default)]
    pub from_named: bool,
}

impl Default for Hop {
    /// Off, for files written before the hop existed.
    fn default() -> Self {
        Hop {
            weight: 0.0,
            rank_k: 3.0,
            names: 8,
            hub_share: 0.025,
            candidates: 50,
            lexical_share: 0.5,
            from_named: false,
        }
    }
}

/// The name walk (`walk.rs`): a personalized PageRank over the notes and
/// the rare names they share, started from the best notes of the first
/// scoring.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Walk {
    /// W_walk: the bonus of the note the walk brought most (0: no walk).
    pub weight: f64,
    /// The best notes of the first scoring the walk starts from.
    pub seeds: usize,
    /// The chance to return to the seeds at each step.
    pub restart: f64,
    /// Steps of the walk.
    pub steps: usize,
    /// What a link (either way) weighs against a name of weight 1 when the
    /// walk leaves a note (0: names only).
    pub links: f64,
    /// A name more than this share of the notes write is a hub, never
    /// walked (at least 2 notes).
    pub hub_share: f64,
    /// The question intents it walks for (`config/decision_engine.yaml`).
    pub intents: Vec<String>,
}

impl Default for Walk {
    /// Off, for files written before the walk existed.
    fn default() -> Self {
        Walk {
            weight: 0.0,
            seeds: 5,
            restart: 0.5,
            steps: 2,
            links: 1.0,
            hub_share: 0.025,
            intents: Vec::new(),
        }
    }
}

impl RetrieverConfig {
    pub fn builtin() -> Self {
        Self::from_yaml(Path::new("<built-in retriever.yaml>"), DEFAULT_YAML)
            .expect("the built-in retriever config is valid (checked by a test)")
    }

    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = yaml::read(path)?;
        Self::from_yaml(path, &text)
    }

    pub fn from_yaml(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let c: RetrieverConfig = yaml::parse(path, text)?;
        let invalid = |field: &str, message: String| yaml::invalid(path, text, &[field], message);
        if !(0.0..=1.0).contains(&c.lexical_share) {
            return Err(invalid(
                "lexical_share",
                format!("must be between 0 and 1, not {}", c.lexical_share),
            ));
        }
        if !(0.0..=1.0).contains(&c.hop.lexical_share) || !(0.0..=1.0).contains(&c.hop.hub_share) {
            return Err(invalid(
                "hop",
                "lexical_share and hub_share must be between 0 and 1".into(),
            ));
        }
        if c.hop.weight < 0.0 || c.hop.rank_k < 0.0 {
            return Err(invalid(
                "hop",
                "weight and rank_k must not be negative".into(),
            ));
        }
        if c.walk.weight < 0.0
            || !(0.0..=1.0).contains(&c.walk.restart)
            || !(0.0..=1.0).contains(&c.walk.hub_share)
        {
            return Err(invalid(
                "walk",
                "weight must not be negative; restart and hub_share lie between 0 and 1".into(),
            ));
        }
        if c.seeds.fused == 0 || c.seeds.per_source == 0 {
            return Err(invalid("seeds", "seed counts must be at least 1".into()));
        }
        for t in &c.tune {
            if c.number(&t.path).is_none() {
                return Err(invalid(
                    "tune",
                    format!("`{}` is not a number of this file", t.path),
                ));
            }
            if t.grid.is_empty() || t.grid.iter().any(|v| !v.is_finite() || *v < 0.0) {
                return Err(invalid(
                    "tune",
                    format!("the grid of `{}` must be a list of numbers ≥ 0", t.path),
                ));
            }
        }
        Ok(c)
    }

    /// A number of this configuration by its path in the file
    /// (`weights.edge`, `provenance.mention`): the names are serde's, so the
    /// file's keys are written once, on the fields.
    pub fn number(&self, path: &str) -> Option<Number> {
        let tree = serde_json::to_value(self).ok()?;
        let v = path.split('.').try_fold(&tree, |v, key| v.get(key))?;
        Some(Number {
            value: v.as_f64()?,
            integer: v.is_u64(),
        })
    }

    /// Sets the number at `path` (rounded, for a count); `false` when
    /// there is none.
    pub fn set_number(&mut self, path: &str, value: f64) -> bool {
        let Ok(mut tree) = serde_json::to_value(&*self) else {
            return false;
        };
        let Some(slot) = path.split('.').try_fold(&mut tree, |v, key| v.get_mut(key)) else {
            return false;
        };
        *slot = if slot.is_u64() {
            Value::from(value.round() as u64)
        } else {
            Value::from(value)
        };
        match serde_json::from_value(tree) {
            Ok(c) => {
                *self = c;
                true
            }
            Err(_) => false,
        }
    }

    /// M_status.
    pub fn status_modifier(&self, status: Status) -> f64 {
        self.status.get(status.as_str()).copied().unwrap_or(1.0)
    }

    pub fn provenance_weight(&self, provenance: &str) -> f64 {
        self.provenance.get(provenance).copied().unwrap_or(1.0)
    }

    pub fn kind_weight(&self, kind: &str) -> f64 {
        self.kinds
            .get(kind)
            .or_else(|| self.kinds.get("default"))
            .copied()
            .unwrap_or(1.0)
    }

    pub fn intent_boost(&self, intent: &str, kind: &str) -> f64 {
        self.intent_boosts
            .get(intent)
            .and_then(|b| b.get(kind))
            .copied()
            .unwrap_or(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_config_is_valid() {
        let c = RetrieverConfig::builtin();
        assert_eq!(c.weights.semantic, 1.0);
        assert_eq!(c.status_modifier(Status::Draft), 0.7);
        assert_eq!(c.intent_boost("why", "caused_by"), 2.0);
        assert_eq!(c.kind_weight("an_unlisted_kind"), c.kinds["default"]);
    }

    #[test]
    fn tunable_numbers_are_read_and_written_by_their_path() {
        let mut c = RetrieverConfig::builtin();
        assert!(c.tune.len() >= 8);
        assert_eq!(
            c.number("weights.edge").map(|n| n.value),
            Some(c.weights.edge)
        );
        let relevant = c.number("expansion.relevant").unwrap();
        assert!(relevant.integer);
        assert!(c.set_number("expansion.relevant", 6.6));
        assert_eq!(c.expansion.relevant, 7);
        assert!(c.set_number("provenance.mention", 0.25));
        assert_eq!(c.provenance_weight("mention"), 0.25);
        assert!(!c.set_number("weights.nothing", 1.0));
        assert!(c.number("weights").is_none());
        // A tunable that names no number is refused, naming the field.
        let bad = DEFAULT_YAML.replace("path: weights.edge,", "path: weights.egde,");
        let e = RetrieverConfig::from_yaml(Path::new("r.yaml"), &bad).unwrap_err();
        assert!(e.to_string().contains("weights.egde"), "{e}");
    }

    #[test]
    fn a_bad_value_names_file_line_and_field() {
        let text = DEFAULT_YAML.replace("lexical_share: 0.3", "lexical_share: 3");
        let err = RetrieverConfig::from_yaml(Path::new("r.yaml"), &text).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("r.yaml") && msg.contains("lexical_share"),
            "{msg}"
        );
    }
}
