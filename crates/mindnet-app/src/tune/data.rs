//! The material: the judged sets imported and their pools gathered, and the
//! questions of the feedback log.

use super::Item;
use super::RELEVANT_RATING;
use crate::AppError;
use crate::OpenMode;
use crate::Settings;
use crate::Workspace;
use crate::eval::note_name;
use crate::ops::sync::SyncRequest;
use mindnet_index::Progress;
use mindnet_retrieve::Query;
use mindnet_retrieve::log::Logs;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::Path;
/// The gold note ids of a question, by note name (file name without `.md`).
pub(super) fn gold_ids(names: &HashMap<String, Vec<String>>, gold: &[String]) -> Vec<String> {
    gold.iter()
        .flat_map(|g| names.get(g).cloned().unwrap_or_default())
        .collect()
}

/// Embeds each question and gathers its pool.
pub(super) fn gather(
    ws: &Workspace,
    set: usize,
    folds: usize,
    questions: &[(String, Vec<String>)],
    items: &mut Vec<Item>,
) -> Result<(), AppError> {
    for (i, (text, gold)) in questions.iter().enumerate() {
        let vector = ws.embedder().embed_query(text)?;
        let mut q = Query::new(text.clone());
        q.group_by_note = true;
        let intent = mindnet_retrieve::intent::detect(ws.engine(), text);
        q.intent = Some(intent.clone());
        let pool = ws.pool(&q, &vector)?;
        items.push(Item {
            set,
            fold: i % folds,
            intent,
            pool,
            gold: gold.clone(),
        });
    }
    Ok(())
}

/// The index folder of a vault under `index_dir`: its name plus a digest of
/// its full path (two sets of one vault share an index; two vaults named
/// `vault` do not).
pub(super) fn index_name(vault: &Path) -> String {
    let full = std::fs::canonicalize(vault).unwrap_or_else(|_| vault.to_path_buf());
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default()
    };
    let mut base = name(&full);
    if base == "vault"
        && let Some(parent) = full.parent()
    {
        base = name(parent);
    }
    let digest = mindnet_core::ids::note_id_for_path(&full.to_string_lossy());
    format!("{base}-{}", &digest[..8])
}

pub(super) fn open_synced(
    settings: Settings,
    progress: &dyn Progress,
) -> Result<Workspace, AppError> {
    let ws = Workspace::open(settings, OpenMode::CreateIfMissing)?;
    ws.sync(&SyncRequest::default(), progress)?;
    Ok(ws)
}

/// Note name → note ids, from the workspace's catalog.
pub(super) fn names_of(ws: &Workspace) -> Result<HashMap<String, Vec<String>>, AppError> {
    let store = ws.read();
    let mut names: HashMap<String, Vec<String>> = HashMap::new();
    for n in mindnet_store::Store::catalog(&*store)?.iter() {
        names
            .entry(note_name(&n.path))
            .or_default()
            .push(n.note_id.clone());
    }
    Ok(names)
}

/// The rated searches of a vault's logs as questions: the notes rated
/// `RELEVANT_RATING` or better are the gold (a rating of a chunk rates its
/// note; the last rating of a note counts).
pub(super) fn feedback_questions(ws: &Workspace) -> Result<Vec<(String, Vec<String>)>, AppError> {
    let logs = Logs::new(&ws.settings().data);
    let searches = logs.searches()?;
    let mut ratings: HashMap<&str, BTreeMap<String, u8>> = HashMap::new();
    let feedback = logs.feedback()?;
    for f in &feedback {
        if f.node_id == mindnet_retrieve::log::GENERATED_ANSWER {
            continue;
        }
        let note = mindnet_core::ids::note_of(&f.node_id).to_string();
        ratings
            .entry(f.query_id.as_str())
            .or_default()
            .insert(note, f.score);
    }
    let mut out = Vec::new();
    for s in &searches {
        let Some(r) = ratings.get(s.query_id.as_str()) else {
            continue;
        };
        let gold: Vec<String> = r
            .iter()
            .filter(|(_, score)| **score >= RELEVANT_RATING)
            .map(|(n, _)| n.clone())
            .collect();
        if !gold.is_empty() {
            out.push((s.query_text.clone(), gold));
        }
    }
    Ok(out)
}
