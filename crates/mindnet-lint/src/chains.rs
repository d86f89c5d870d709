//! Chain integrity (LNT-3): causal cycles (A caused_by B and B caused_by A),
//! several causes of one note (made visible, not forbidden), and gaps (a
//! direct causal link between two types that `types.yaml` says skips a
//! stage, such as experience → principle).

use crate::chain::Step;
use crate::links::written_kind;
use crate::{Finding, LinkRef, Vault};
use std::collections::HashMap;

/// A typed causal link as cause → effect, with where it is written.
pub(crate) struct Causal<'a> {
    pub step: Step,
    /// The kind as written (canonical).
    pub kind: &'a str,
    pub link: &'a LinkRef<'a>,
}

/// Every typed causal link, read as cause → effect by the vocabulary.
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
        let kind = vocab.kind_of(raw);
        if let Some(step) = Step::of(vocab, l.note, target, kind) {
            causal.push(Causal {
                step,
                kind,
                link: l,
            });
        }
    }
    causal
}

pub(crate) fn check(v: &Vault<'_>, links: &[LinkRef<'_>]) -> Vec<Finding> {
    let causal = causal_links(v, links);
    let mut out = Vec::new();
    let pairs: HashMap<(usize, usize), &Causal<'_>> = causal
        .iter()
        .map(|c| ((c.step.cause, c.step.effect), c))
        .collect();
    for c in &causal {
        if pairs.contains_key(&(c.step.effect, c.step.cause)) {
            let other = &v.notes[if c.link.note == c.step.cause {
                c.step.effect
            } else {
                c.step.cause
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
        let (from, to) = (&v.notes[c.step.cause], &v.notes[c.step.effect]);
        if v.config
            .registry
            .causal
            .is_gap(&from.note_type, &to.note_type)
        {
            out.push(v.finding(
                c.link.note,
                c.link.link.range.start,
                "chain/gap",
                v.msg(
                    format!(
                        "Sprung von {} `{}` zu {} `{}` ({}): dazwischen fehlt eine Stufe der Kette (types.yaml, causal.gaps)",
                        from.note_type, from.title, to.note_type, to.title, c.kind
                    ),
                    format!(
                        "jump from {} `{}` to {} `{}` ({}): a stage of the chain is missing between them (types.yaml, causal.gaps)",
                        from.note_type, from.title, to.note_type, to.title, c.kind
                    ),
                ),
            ));
        }
    }
    // Several causes of one effect, reported once at the note's first.
    let mut causes: HashMap<usize, Vec<&Causal<'_>>> = HashMap::new();
    for c in &causal {
        let list = causes.entry(c.step.effect).or_default();
        if !list.iter().any(|x| x.step.cause == c.step.cause) {
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
            .map(|c| v.notes[c.step.cause].title.as_str())
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
