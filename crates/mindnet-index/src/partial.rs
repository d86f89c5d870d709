//! A sync of some files: their plan, the notes whose links they touch, and
//! what a deletion removes.

use super::SyncError;
use super::known_notes;
use super::read;
use mindnet_ingest::Config;
use mindnet_ingest::ImportOptions;
use mindnet_ingest::plan::Planner;
use mindnet_store::NoteState;
use mindnet_store::Store;
use std::collections::BTreeSet;
use std::collections::HashMap;
use std::collections::HashSet;
use std::path::Path;
use std::sync::RwLock;
/// A plan of some files, and the vault paths it stands for.
pub(super) struct Partial<'c> {
    pub(super) planner: Planner<'c>,
    pub(super) scope: BTreeSet<String>,
}

/// Every name a link can use for a note: title, aliases, file name, path.
pub(super) fn names_of(title: &str, aliases: &[String], path: &str) -> Vec<String> {
    let stem = mindnet_core::lookup::without_md(path);
    let file = stem.rsplit('/').next().unwrap_or(stem);
    std::iter::once(title)
        .chain(aliases.iter().map(String::as_str))
        .chain([stem, file])
        .map(str::to_lowercase)
        .collect()
}

/// The names another note's prose can mention a note by, lower case.
pub(super) fn mention_names(title: &str, aliases: &[String]) -> Vec<String> {
    std::iter::once(title)
        .chain(aliases.iter().map(String::as_str))
        .map(str::to_lowercase)
        .filter(|n| !n.trim().is_empty())
        .collect()
}

/// Plans the listed files and the notes whose links their names (before or
/// after the change) can resolve differently; the rest of the vault is
/// known to the resolver from the store. `None`: a partial plan cannot
/// decide this change (a note took the `id:` of a note outside the list).
pub(super) fn plan_partial<'c, S: Store + ?Sized>(
    vault: &Path,
    config: &'c Config,
    import: &ImportOptions,
    store: &RwLock<S>,
    states: &[NoteState],
    only: &BTreeSet<String>,
) -> Result<Option<Partial<'c>>, SyncError> {
    let plan_of = |scope: &BTreeSet<String>| -> Result<Planner<'c>, SyncError> {
        let mut import = import.clone();
        import.known_notes = known_notes(states.iter().filter(|s| !scope.contains(&s.path)));
        import.only = Some(scope.clone());
        Ok(Planner::new(vault, config, &import)?)
    };
    let first = plan_of(only)?;
    // Names before (the store) and after (the plan) the change.
    let mut names: HashSet<String> = HashSet::new();
    let mut ids: HashSet<String> = HashSet::new();
    for s in states.iter().filter(|s| only.contains(&s.path)) {
        names.extend(names_of(&s.title, &s.aliases, &s.path));
        ids.insert(s.note_id.clone());
    }
    for n in first.notes() {
        names.extend(names_of(&n.title, &n.aliases, &n.path));
        ids.insert(n.note_id.clone());
    }
    let by_id: HashMap<&str, &NoteState> = states.iter().map(|s| (s.note_id.as_str(), s)).collect();
    for n in first.notes() {
        if by_id
            .get(n.note_id.as_str())
            .is_some_and(|s| s.path != n.path && !only.contains(&s.path))
        {
            return Ok(None);
        }
    }
    // Notes outside the list whose edges point at these notes, or at one of
    // their names while unresolved. Content edges target a note id itself;
    // only structure edges, which stay inside their note, target chunks.
    let mut scope = only.clone();
    {
        let guard = read(store);
        let mut targets: Vec<String> = ids.iter().cloned().collect();
        targets.sort();
        let pointing = guard.edges_into(&targets, &[])?.into_iter().chain(
            guard
                .unresolved_edges()?
                .into_iter()
                .filter(|e| names.contains(&e.target_id.to_lowercase())),
        );
        for e in pointing {
            if let Some(owner) = by_id.get(e.note_id.as_str()) {
                scope.insert(owner.path.clone());
            }
        }
    }
    // A name that is new (a new note, a new title or alias) makes mention
    // edges in notes that write it, which no edge points at yet. Their raw
    // text is searched: a hit inside code or a link only widens the scope,
    // and a wider scope plans the same edges as a full import.
    let mut before: HashSet<String> = HashSet::new();
    for s in states.iter().filter(|s| only.contains(&s.path)) {
        before.extend(mention_names(&s.title, &s.aliases));
    }
    let mut added: Vec<String> = first
        .notes()
        .flat_map(|n| mention_names(&n.title, &n.aliases))
        .filter(|n| !before.contains(n))
        .collect();
    added.sort();
    added.dedup();
    if !added.is_empty() {
        let writers: Vec<String> = states
            .iter()
            .filter(|s| !scope.contains(&s.path))
            .filter(|s| {
                std::fs::read(vault.join(&s.path)).is_ok_and(|text| {
                    let text = String::from_utf8_lossy(&text).to_lowercase();
                    added.iter().any(|n| text.contains(n.as_str()))
                })
            })
            .map(|s| s.path.clone())
            .collect();
        scope.extend(writers);
    }
    if scope.len() == only.len() {
        return Ok(Some(Partial {
            planner: first,
            scope,
        }));
    }
    Ok(Some(Partial {
        planner: plan_of(&scope)?,
        scope,
    }))
}

/// Of these stored notes, those the plan has no note for: the file is gone,
/// or a status now excludes it. Notes whose file exists but could not be
/// read are kept.
pub(super) fn deletions<'a>(
    states: impl IntoIterator<Item = &'a NoteState>,
    planner: &Planner<'_>,
) -> Vec<String> {
    let planned: HashSet<&str> = planner.notes().map(|n| n.note_id.as_str()).collect();
    let unreadable: HashSet<&str> = planner
        .plan
        .skipped
        .iter()
        .filter(|s| !s.by_status)
        .map(|s| s.path.as_str())
        .collect();
    states
        .into_iter()
        .filter(|s| !planned.contains(s.note_id.as_str()) && !unreadable.contains(s.path.as_str()))
        .map(|s| s.note_id.clone())
        .collect()
}
