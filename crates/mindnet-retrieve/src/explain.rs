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

/// The names a hit of the second hop shares with the hit it was found from.
#[derive(Debug, Clone)]
pub(crate) struct Bridged {
    pub names: Vec<String>,
    pub from_title: String,
}

pub(crate) fn reasons(
    lang: Lang,
    note: &NoteState,
    b: &ScoreBreakdown,
    from: &[Link],
    to: &[Link],
    bridge: Option<&Bridged>,
    graph: bool,
) -> Vec<String> {
    let de = lang == Lang::De;
    let mut out = Vec::new();

    let level = match b.s_sem {
        s if s >= 0.8 => ["sehr hohe", "very high"],
        s if s >= 0.6 => ["hohe", "high"],
        s if s >= 0.4 => ["mittlere", "moderate"],
        _ => ["geringe", "low"],
    };
    out.push(if de {
        format!("{} inhaltliche Übereinstimmung ({:.2})", level[0], b.s_sem)
    } else {
        format!("{} textual match ({:.2})", level[1], b.s_sem)
    });

    let t = &note.note_type;
    if b.w_type >= 0.9 {
        out.push(if de {
            format!("bevorzugt als {t} (×{:.2})", b.w_type)
        } else {
            format!("preferred because {t} (×{:.2})", b.w_type)
        });
    } else if b.w_type < 0.7 {
        out.push(if de {
            format!("gedämpft als {t} (×{:.2})", b.w_type)
        } else {
            format!("damped because {t} (×{:.2})", b.w_type)
        });
    }

    if graph {
        let mut targets: Vec<&str> = Vec::new();
        for l in to {
            if !targets.contains(&l.title.as_str()) {
                targets.push(&l.title);
            }
        }
        for title in targets.into_iter().take(MAX_LINKS) {
            let mention = to.iter().any(|l| l.title == title && l.mention);
            out.push(match (de, mention) {
                (true, false) => format!("verweist auf {title}"),
                (true, true) => format!("erwähnt „{title}“"),
                (false, false) => format!("points to {title}"),
                (false, true) => format!("mentions “{title}”"),
            });
        }
        // Several edges of one note with one kind (from different chunks)
        // make one reason.
        let mut from_merged: Vec<Link> = Vec::new();
        for l in from {
            match from_merged
                .iter_mut()
                .find(|m| m.title == l.title && m.kind == l.kind && m.mention == l.mention)
            {
                Some(m) => m.contribution += l.contribution,
                None => from_merged.push(l.clone()),
            }
        }
        from_merged.sort_by(|a, b| {
            b.contribution
                .total_cmp(&a.contribution)
                .then(a.title.cmp(&b.title))
        });
        let from = from_merged;
        for l in from.into_iter().take(MAX_LINKS) {
            out.push(match (de, l.mention) {
                (true, false) => format!("wird referenziert von {} ({})", l.title, l.kind),
                (true, true) => format!("wird erwähnt in {}", l.title),
                (false, false) => format!("referenced by {} ({})", l.title, l.kind),
                (false, true) => format!("mentioned in {}", l.title),
            });
        }
        if let Some(h) = bridge.filter(|h| !h.names.is_empty() && b.hop > 0.0) {
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
            let de_noun = if h.names.len() == 1 {
                "den Namen"
            } else {
                "die Namen"
            };
            let en_noun = if h.names.len() == 1 {
                "the name"
            } else {
                "the names"
            };
            out.push(if de {
                format!(
                    "teilt {de_noun} {names} mit {} (zweiter Schritt)",
                    h.from_title
                )
            } else {
                format!(
                    "shares {en_noun} {names} with {} (second hop)",
                    h.from_title
                )
            });
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
