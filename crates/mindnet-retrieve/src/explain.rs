//! Human-readable reasons (RET-4), generated only from the score breakdown
//! and the links that produced it, so a reason never claims what the score
//! did not use. German by default, English on request.

use crate::{Retriever, ScoreBreakdown};
use mindnet_store::NoteState;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    De,
    En,
}

impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "de" => Ok(Lang::De),
            "en" => Ok(Lang::En),
            other => Err(format!("unknown language `{other}` (de or en)")),
        }
    }
}

/// An edge between a hit's note and a relevant note, for the reasons.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    pub title: String,
    pub kind: String,
    pub contribution: f64,
    /// Found in prose by the import, not written as a link: the reason says
    /// "erwähnt", so the user knows no link of theirs made it.
    pub mention: bool,
}

impl Link {
    pub fn new(
        r: &Retriever<'_>,
        note_id: &str,
        kind: &str,
        contribution: f64,
        mention: bool,
    ) -> Self {
        Link {
            title: r
                .note(note_id)
                .map_or_else(|| note_id.to_string(), |n| n.title.clone()),
            kind: kind.to_string(),
            contribution,
            mention,
        }
    }
}

const MAX_LINKS: usize = 3;

/// The names a hit shares with the hit it was found from, by the second
/// hop or by the name walk.
#[derive(Debug, Clone)]
pub(crate) struct Bridged {
    pub names: Vec<String>,
    pub from_title: String,
    pub walk: bool,
}

pub(crate) fn reasons(
    lang: Lang,
    note: &NoteState,
    b: &ScoreBreakdown,
    from: &[Link],
    to: &[Link],
    bridges: &[Bridged],
    graph: bool,
) -> Vec<String> {
    let de = lang == Lang::De;
    let mut out = vec![match_reason(de, b.s_sem)];
    out.extend(type_reason(de, &note.note_type, b.w_type));
    if graph {
        out.extend(outgoing(de, to));
        out.extend(incoming(de, from));
        for h in bridges {
            let lift = if h.walk { b.walk } else { b.hop };
            if !h.names.is_empty() && lift > 0.0 {
                out.push(bridge_reason(de, h));
            }
        }
    }
    if b.m_status < 1.0 {
        let status = note.status.as_str();
        out.push(match (de, status) {
            (true, "draft") => format!("Entwurf, abgewertet (×{:.2})", b.m_status),
            (true, _) => format!("Status {status}, abgewertet (×{:.2})", b.m_status),
            (false, _) => format!("{status}, down-weighted (×{:.2})", b.m_status),
        });
    }
    out
}

/// How well the text matches, in words.
fn match_reason(de: bool, s_sem: f64) -> String {
    let level = match s_sem {
        s if s >= 0.8 => ["sehr hohe", "very high"],
        s if s >= 0.6 => ["hohe", "high"],
        s if s >= 0.4 => ["mittlere", "moderate"],
        _ => ["geringe", "low"],
    };
    if de {
        format!("{} inhaltliche Übereinstimmung ({s_sem:.2})", level[0])
    } else {
        format!("{} textual match ({s_sem:.2})", level[1])
    }
}

/// A type weight well above or below the middle, if it is.
fn type_reason(de: bool, t: &str, w_type: f64) -> Option<String> {
    if w_type >= 0.9 {
        Some(if de {
            format!("bevorzugt als {t} (×{w_type:.2})")
        } else {
            format!("preferred because {t} (×{w_type:.2})")
        })
    } else if w_type < 0.7 {
        Some(if de {
            format!("gedämpft als {t} (×{w_type:.2})")
        } else {
            format!("damped because {t} (×{w_type:.2})")
        })
    } else {
        None
    }
}

/// The notes the hit points to (or mentions), each once.
fn outgoing(de: bool, to: &[Link]) -> Vec<String> {
    let mut targets: Vec<&str> = Vec::new();
    for l in to {
        if !targets.contains(&l.title.as_str()) {
            targets.push(&l.title);
        }
    }
    targets
        .into_iter()
        .take(MAX_LINKS)
        .map(|title| {
            let mention = to.iter().any(|l| l.title == title && l.mention);
            match (de, mention) {
                (true, false) => format!("verweist auf {title}"),
                (true, true) => format!("erwähnt „{title}“"),
                (false, false) => format!("points to {title}"),
                (false, true) => format!("mentions “{title}”"),
            }
        })
        .collect()
}

/// The notes that point to the hit, strongest first. Several edges of one
/// note with one kind (from different chunks) make one reason.
fn incoming(de: bool, from: &[Link]) -> Vec<String> {
    let mut merged: Vec<Link> = Vec::new();
    for l in from {
        match merged
            .iter_mut()
            .find(|m| m.title == l.title && m.kind == l.kind && m.mention == l.mention)
        {
            Some(m) => m.contribution += l.contribution,
            None => merged.push(l.clone()),
        }
    }
    merged.sort_by(|a, b| {
        b.contribution
            .total_cmp(&a.contribution)
            .then(a.title.cmp(&b.title))
    });
    merged
        .into_iter()
        .take(MAX_LINKS)
        .map(|l| match (de, l.mention) {
            (true, false) => format!("wird referenziert von {} ({})", l.title, l.kind),
            (true, true) => format!("wird erwähnt in {}", l.title),
            (false, false) => format!("referenced by {} ({})", l.title, l.kind),
            (false, true) => format!("mentioned in {}", l.title),
        })
        .collect()
}

/// The names a second-hop hit shares with the hit it was found from.
fn bridge_reason(de: bool, h: &Bridged) -> String {
    let names = h
        .names
        .iter()
        .take(MAX_LINKS)
        .map(|n| {
            if de {
                format!("„{n}“")
            } else {
                format!("“{n}”")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    let one = h.names.len() == 1;
    let from = &h.from_title;
    if de {
        let noun = if one { "den Namen" } else { "die Namen" };
        let how = if h.walk {
            "Namenspfad"
        } else {
            "zweiter Schritt"
        };
        format!("teilt {noun} {names} mit {from} ({how})")
    } else {
        let noun = if one { "the name" } else { "the names" };
        let how = if h.walk { "name walk" } else { "second hop" };
        format!("shares {noun} {names} with {from} ({how})")
    }
}
