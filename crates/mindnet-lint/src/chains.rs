//! Chain integrity (LNT-3): causal cycles (A caused_by B and B caused_by A),
//! several causes of one note (made visible, not forbidden), and gaps (an
//! experience that causes a principle with no decision or state between).

use crate::links::written_kind;
use crate::{Finding, LinkRef, Vault};
use std::collections::HashMap;

/// A typed causal link as cause → effect, with where it is written.
pub(crate) struct Causal<'a> {
    pub cause: usize,
    pub effect: usize,
    /// The kind as written (canonical).
    pub kind: &'a str,
    /// The kind read from cause to effect (`resulted_in`, `source_of`, `impacts`).
    pub forward: &'static str,
    pub link: &'a LinkRef<'a>,
}

/// How a causal kind reads: whether the link's target is the cause (`A
/// caused_by B`: B causes A), and the kind read from cause to effect.
pub fn causal_reading(kind: &str) -> Option<(bool, &'static str)> {
    Some(match kind {
        "caused_by" => (true, "resulted_in"),
        "derived_from" => (true, "source_of"),
        "impacted_by" => (true, "impacts"),
        "resulted_in" => (false, "resulted_in"),
        "source_of" => (false, "source_of"),
        "impacts" => (false, "impacts"),
        _ => return None,
    })
}

/// Every typed causal link, read as cause → effect.
pub(crate) fn causal_links<'a>(v: &'a Vault<'_>, links: &'a [LinkRef<'a>]) -> Vec<Causal<'a>> {
    let vocab = &v.config.vocab;
    let mut causal: Vec<Causal<'a>> = Vec::new();
    for l in links {
        let (Some(raw), Some(target)) = (written_kind(l), l.target) else {
            continue;
        };
        if target == l.note {
            continue;
        }
        let kind = vocab.canonicalize(raw).kind();
        // Read every causal kind as cause → effect.
        let Some((target_causes, forward)) = causal_reading(kind) else {
            continue;
        };
        let (cause, effect) = if target_causes {
            (target, l.note)
        } else {
            (l.note, target)
        };
        causal.push(Causal {
            cause,
            effect,
            kind,
            forward,
            link: l,
        });
    }
    causal
}

pub(crate) fn check(v: &Vault<'_>, links: &[LinkRef<'_>]) -> Vec<Finding> {
    let causal = causal_links(v, links);
    let mut out = Vec::new();
    let pairs: HashMap<(usize, usize), &Causal<'_>> =
        causal.iter().map(|c| ((c.cause, c.effect), c)).collect();
    for c in &causal {
        if pairs.contains_key(&(c.effect, c.cause)) {
            let other = &v.notes[if c.link.note == c.cause {
                c.effect
            } else {
                c.cause
            }]
            .title;
            out.push(v.finding(
                c.link.note,
                c.link.link.range.start,
                "chain/cycle",
                v.msg(
                    format!("Zyklus: diese Notiz und `{other}` verursachen sich gegenseitig"),
                    format!("cycle: this note and `{other}` cause each other"),
                ),
            ));
        }
        let (from, to) = (&v.notes[c.cause], &v.notes[c.effect]);
        if from.note_type == "experience" && to.note_type == "principle" {
            out.push(v.finding(
                c.link.note,
                c.link.link.range.start,
                "chain/gap",
                v.msg(
                    format!(
                        "Sprung von Erfahrung `{}` zu Prinzip `{}` ({}) ohne Entscheidung oder Zustand dazwischen",
                        from.title, to.title, c.kind
                    ),
                    format!(
                        "jump from experience `{}` to principle `{}` ({}) with no decision or state between",
                        from.title, to.title, c.kind
                    ),
                ),
            ));
        }
    }
    // Several causes of one effect, reported once at the note's first.
    let mut causes: HashMap<usize, Vec<&Causal<'_>>> = HashMap::new();
    for c in &causal {
        let list = causes.entry(c.effect).or_default();
        if !list.iter().any(|x| x.cause == c.cause) {
            list.push(c);
        }
    }
    for (effect, list) in causes {
        if list.len() < 2 {
            continue;
        }
        let first = list
            .iter()
            .filter(|c| c.link.note == effect)
            .min_by_key(|c| c.link.link.range.start)
            .or(list.first());
        let Some(first) = first else { continue };
        let names: Vec<&str> = list
            .iter()
            .map(|c| v.notes[c.cause].title.as_str())
            .collect();
        out.push(v.finding(
            first.link.note,
            first.link.link.range.start,
            "chain/multiple-causes",
            v.msg(
                format!(
                    "`{}` hat {} Ursachen: {}",
                    v.notes[effect].title,
                    names.len(),
                    names.join(", ")
                ),
                format!(
                    "`{}` has {} causes: {}",
                    v.notes[effect].title,
                    names.len(),
                    names.join(", ")
                ),
            ),
        ));
    }
    out
}
