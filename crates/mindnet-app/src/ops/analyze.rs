//! `analyze`: for a draft, the notes it should link (API-1).

use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};

/// The part of a draft that is embedded for the similarity search.
const ANALYZE_CHARS: usize = 4000;
/// Titles shorter than this are not looked for in a draft's text.
const MIN_MENTION_CHARS: usize = 4;
use crate::ops::query::MAX_K;
use mindnet_retrieve::Query;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use utoipa::ToSchema;

/// For a draft, the notes it should link and the edge kind of each.
pub struct AnalyzeOp;

impl Operation for AnalyzeOp {
    type Request = AnalyzeRequest;
    type Response = AnalyzeResponse;
    const NAME: &'static str = "analyze";
    const ABOUT: &'static str = "For a draft, the notes it should link and the edge kind of each.";
    const EXAMPLE: &'static str =
        r#"{"text": "Heute habe ich Qdrant und BM25 verglichen.", "title": "Vergleich"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::post("/ingest/analyze");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<AnalyzeRequest>> = None;

    fn run(ws: &Workspace, req: &AnalyzeRequest) -> Result<AnalyzeResponse, AppError> {
        analyze(ws, req)
    }
}

pub const DEFAULT_SUGGESTIONS: usize = 8;

/// `POST /ingest/analyze`: for a draft, the notes it should link.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    /// The draft's Markdown.
    pub text: String,
    #[serde(default)]
    pub title: Option<String>,
    /// The draft's type (default: detected from its keywords, else the default type).
    #[serde(default, rename = "type")]
    pub note_type: Option<String>,
    /// Number of suggestions (default 8).
    #[serde(default)]
    pub k: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LinkSuggestion {
    pub note_id: String,
    pub title: String,
    pub path: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The edge kind to use, from the type-pair matrix (else `related_to`).
    pub kind: String,
    /// Other kinds the matrix names as typical for this pair.
    pub typical: Vec<String>,
    /// The text to paste: `[[rel:kind Title]]`, or `[[Title]]` when the
    /// matrix derives the kind itself.
    pub link: String,
    pub score: f64,
    /// Why: the draft names the note, or its content matches.
    pub reason: String,
    /// True when the draft already links the note.
    pub linked: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AnalyzeResponse {
    #[serde(rename = "type")]
    pub note_type: String,
    pub suggestions: Vec<LinkSuggestion>,
    /// The edge kinds of the vocabulary that fit the draft's type.
    pub kinds: Vec<String>,
}

/// The existing notes a draft should link, with the edge kind to use.
fn analyze(ws: &Workspace, req: &AnalyzeRequest) -> Result<AnalyzeResponse, AppError> {
    let text = req.text.trim();
    if text.is_empty() {
        return Err(AppError::bad_request("`text` is empty; give the draft"));
    }
    let k = req.k.unwrap_or(DEFAULT_SUGGESTIONS).clamp(1, MAX_K);
    let registry = &ws.config().registry;
    let note_type = req
        .note_type
        .as_deref()
        .map(|t| t.trim().to_lowercase())
        .unwrap_or_else(|| detect_type(registry, text));
    let probe: String = match (&req.title, text.char_indices().nth(ANALYZE_CHARS)) {
        (Some(t), Some((i, _))) => format!("{t}\n{}", &text[..i]),
        (Some(t), None) => format!("{t}\n{text}"),
        (None, Some((i, _))) => text[..i].to_string(),
        (None, None) => text.to_string(),
    };
    let vector = ws.embedder().embed_query(&probe)?;
    let mut q = Query::new(probe.clone());
    q.group_by_note = true;
    q.k = k * 2;
    let similar = ws.search(&q, &vector)?;
    let store = ws.read();
    let catalog = store.catalog()?;
    let own_title = req.title.as_deref().map(|t| t.trim().to_lowercase());
    let mut list = candidates(catalog, text, own_title.as_deref(), &similar.hits);
    list.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.note_id.cmp(&b.note_id)));
    list.truncate(k);
    let linked: BTreeSet<String> = mindnet_ingest::parse::parse(text)
        .links
        .iter()
        .map(|l| l.parts.target.trim().to_lowercase())
        .collect();
    let suggestions = list
        .into_iter()
        .filter_map(|c| suggestion(ws, catalog.get(&c.note_id)?, &note_type, &linked, c))
        .collect();
    let mut kinds: BTreeSet<String> = registry
        .config(&note_type)
        .edge_defaults
        .iter()
        .cloned()
        .collect();
    for r in &registry.matrix {
        if r.source == note_type || r.source == "*" {
            kinds.extend(r.kind.iter().cloned());
            kinds.extend(r.typical.iter().cloned());
        }
    }
    Ok(AnalyzeResponse {
        note_type,
        suggestions,
        kinds: kinds.into_iter().collect(),
    })
}

/// A note the draft may link, with its score and why.
struct Candidate {
    note_id: String,
    score: f64,
    reason: String,
}

/// The notes the draft names (by title or alias, whole words), and those
/// whose content is like it (scored relative to the best).
fn candidates(
    catalog: &mindnet_store::Catalog,
    text: &str,
    own_title: Option<&str>,
    similar: &[mindnet_retrieve::Hit],
) -> Vec<Candidate> {
    let lower = text.to_lowercase();
    let mut scored: HashMap<String, (f64, String)> = HashMap::new();
    for n in catalog.iter() {
        let names = std::iter::once(&n.title).chain(&n.aliases);
        for name in names {
            let name = name.to_lowercase();
            if name.chars().count() >= MIN_MENTION_CHARS
                && own_title != Some(name.as_str())
                && mentions(&lower, &name)
            {
                scored.insert(n.note_id.clone(), (1.0, "mentioned in the draft".into()));
                break;
            }
        }
    }
    let best = similar.first().map_or(1.0, |h| h.score.max(1e-9));
    for h in similar {
        if own_title == Some(h.title.to_lowercase().as_str()) {
            continue;
        }
        let rel_score = h.score / best;
        let e = scored
            .entry(h.note_id.clone())
            .or_insert((0.0, String::new()));
        if e.1.is_empty() {
            e.1 = format!("similar content ({:.2})", rel_score);
        }
        e.0 += rel_score * 0.9;
    }
    scored
        .into_iter()
        .map(|(note_id, (score, reason))| Candidate {
            note_id,
            score,
            reason,
        })
        .collect()
}

/// A candidate as a suggestion: the edge kind the type-pair matrix gives
/// (or its first typical kind, or the fallback), the link to paste, and
/// whether the draft links the note already.
fn suggestion(
    ws: &Workspace,
    n: &mindnet_store::NoteState,
    note_type: &str,
    linked: &BTreeSet<String>,
    c: Candidate,
) -> Option<LinkSuggestion> {
    let rule = ws.config().registry.matrix_rule(note_type, &n.note_type);
    let derived = rule.and_then(|r| r.kind.clone());
    let typical: Vec<String> = rule.map(|r| r.typical.clone()).unwrap_or_default();
    let kind = derived
        .clone()
        .or_else(|| typical.first().cloned())
        .unwrap_or_else(|| ws.config().vocab.fallback_kind().to_string());
    let link = if derived.is_some() {
        format!("[[{}]]", n.title)
    } else {
        format!("[[rel:{kind} {}]]", n.title)
    };
    let is_linked = linked.contains(&n.title.to_lowercase())
        || linked.contains(&mindnet_core::lookup::without_md(&n.path).to_lowercase())
        || n.aliases.iter().any(|a| linked.contains(&a.to_lowercase()));
    Some(LinkSuggestion {
        note_id: n.note_id.clone(),
        title: n.title.clone(),
        path: n.path.clone(),
        note_type: n.note_type.clone(),
        kind,
        typical,
        link,
        score: c.score,
        reason: c.reason,
        linked: is_linked,
    })
}

/// `name` occurs in `text` as whole words.
fn mentions(text: &str, name: &str) -> bool {
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let start = from + i;
        let end = start + name.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return true;
        }
        from = start + name.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The type whose detection keywords occur most often in the draft.
fn detect_type(registry: &mindnet_core::TypeRegistry, text: &str) -> String {
    let lower = text.to_lowercase();
    registry
        .types
        .iter()
        .map(|(name, t)| {
            let hits = t
                .detection_keywords
                .iter()
                .filter(|k| !k.is_empty() && lower.contains(&k.to_lowercase()))
                .count();
            (hits, name)
        })
        .filter(|(hits, _)| *hits > 0)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(a.1)))
        .map_or_else(|| registry.default_type.clone(), |(_, n)| n.clone())
}

#[cfg(test)]
mod tests {
    use super::mentions;

    #[test]
    fn whole_word_mentions() {
        assert!(mentions("ich nutze qdrant seit", "qdrant"));
        assert!(!mentions("qdrantdb", "qdrant"));
        assert!(mentions("über bm25.", "bm25"));
    }
}
