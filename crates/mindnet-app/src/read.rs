//! Reading notes: a note named as a person names it (`find_note`), a note
//! as the index holds it (`note`), a note as its file holds it (one note or
//! one section of it, with its links named), and the notes whose files
//! changed lately. The last two read the vault, not the index, for the
//! text: the file is the truth, the index may lag behind it by one sync.

use crate::api::*;
use crate::{AppError, Workspace};
use mindnet_core::Edge;
use mindnet_core::ids::note_of;
use mindnet_core::lookup;
use mindnet_core::time::{parse_rfc3339, rfc3339, unix_now};
use mindnet_ingest::scan::{SourceFile, scan_vault};
use mindnet_ingest::source::{content_hash, read_source};
use mindnet_store::{Catalog, NoteState, Store};
use std::path::Path;

pub const DEFAULT_PAGE: usize = 200;
pub const MAX_PAGE: usize = 1000;
pub const DEFAULT_RECENT: usize = 20;
pub const MAX_RECENT: usize = 500;
const DEFAULT_WINDOW: &str = "7d";

impl Workspace {
    /// The note `key` names (`mindnet_core::lookup`: id, vault path, file
    /// name, title or alias).
    pub(crate) fn find_note(&self, store: &dyn Store, key: &str) -> Result<NoteState, AppError> {
        let catalog = store.catalog()?;
        if let Some(n) = catalog.get(key) {
            return Ok(n.clone());
        }
        lookup::find_note(catalog.iter(), key, note_names)
            .cloned()
            .ok_or_else(|| {
                AppError::not_found(format!(
                    "no note `{key}` in the index (give {})",
                    lookup::HOW_TO_NAME
                ))
            })
    }

    /// The note, its chunks and its edges in and out.
    pub fn note(&self, key: &str) -> Result<NoteResponse, AppError> {
        let store = self.read();
        let state = self.find_note(&*store, key)?;
        let id = &state.note_id;
        let note = store
            .note(id)?
            .ok_or_else(|| AppError::not_found(format!("no note `{key}` in the index")))?;
        let vocab = &self.config().vocab;
        let edges_out: Vec<EdgeInfo> = store
            .edges_of(id)?
            .into_iter()
            .filter(|e| !vocab.is_structural(&e.kind))
            .map(Into::into)
            .collect();
        let edges_in: Vec<EdgeInfo> = store
            .note_edges(id)?
            .incoming
            .iter()
            .filter(|e| e.note_id != *id && !vocab.is_structural(&e.kind))
            .cloned()
            .map(Into::into)
            .collect();
        Ok(NoteResponse {
            note: note.into(),
            chunks: store.chunks_of(id)?.into_iter().map(Into::into).collect(),
            edges_out,
            edges_in,
        })
    }

    /// A note's file text (frontmatter included), or one section of it,
    /// with the links it makes and receives.
    pub fn read_note(&self, req: &ReadNoteRequest) -> Result<ReadNoteResponse, AppError> {
        let vocab = &self.config().vocab;
        let (state, links_out, links_in) = {
            let store = self.read();
            let state = self.find_note(&*store, &req.note)?;
            let catalog = store.catalog()?;
            let id = &state.note_id;
            let edges = store.note_edges(id)?;
            let out = unique(
                edges
                    .out
                    .iter()
                    .filter(|e| !vocab.is_structural(&e.kind))
                    .map(|e| link(catalog, e, note_of(&e.target_id)))
                    .collect(),
            );
            let inc = unique(
                edges
                    .incoming
                    .iter()
                    .filter(|e| e.note_id != *id && !vocab.is_structural(&e.kind))
                    .map(|e| link(catalog, e, &e.note_id))
                    .collect(),
            );
            (state, out, inc)
        };
        let text = self.note_file(&state.path)?;
        let parsed = mindnet_ingest::parse::parse(&text);
        let headings: Vec<String> = parsed.headings.iter().map(|h| h.text.clone()).collect();
        let (section, text) = match &req.section {
            None => (None, text),
            Some(wanted) => {
                let (heading, range) =
                    section(&parsed.headings, wanted, text.len()).ok_or_else(|| {
                        AppError::bad_request(format!(
                            "`section`: {} has no heading {wanted:?}; its headings: {}",
                            state.path,
                            if headings.is_empty() {
                                "none".to_string()
                            } else {
                                headings.join(" | ")
                            }
                        ))
                    })?;
                (Some(heading), text[range].trim_end().to_string())
            }
        };
        Ok(ReadNoteResponse {
            note_id: state.note_id,
            title: state.title,
            note_type: state.note_type,
            status: state.status.as_str().to_string(),
            path: state.path,
            section,
            text,
            headings,
            links_out,
            links_in,
        })
    }

    /// A page of the indexed notes in path order.
    pub fn list_notes(&self, req: &ListNotesRequest) -> Result<ListNotesResponse, AppError> {
        let limit = req.limit.unwrap_or(DEFAULT_PAGE);
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(AppError::bad_request(format!(
                "`limit` must be 1 to {MAX_PAGE}, not {limit}"
            )));
        }
        let store = self.read();
        let catalog = store.catalog()?;
        let mut all: Vec<_> = catalog.iter().collect();
        all.sort_by(|a, b| a.path.cmp(&b.path));
        let total = all.len();
        let notes: Vec<NoteSummary> = all
            .into_iter()
            .skip(req.offset)
            .take(limit)
            .map(|n| NoteSummary {
                note_id: n.note_id.clone(),
                title: n.title.clone(),
                note_type: n.note_type.clone(),
                path: n.path.clone(),
            })
            .collect();
        let end = req.offset.saturating_add(notes.len());
        Ok(ListNotesResponse {
            total,
            notes,
            next_offset: (end < total).then_some(end),
        })
    }

    /// The text of a vault file the index knows, read only inside the vault.
    fn note_file(&self, rel: &str) -> Result<String, AppError> {
        let vault = self.settings().require_vault()?;
        let file = SourceFile {
            rel_path: rel.to_string(),
            abs_path: vault.join(rel),
        };
        inside(vault, &file)?;
        read_source(&file, self.settings().max_note_bytes)
            .map(|s| s.text)
            .map_err(|w| AppError::not_found(w.to_string()))
    }

    /// The notes whose files changed within `since`, newest first.
    pub fn recent_changes(&self, req: &RecentRequest) -> Result<RecentResponse, AppError> {
        let limit = req.limit.unwrap_or(DEFAULT_RECENT);
        if !(1..=MAX_RECENT).contains(&limit) {
            return Err(AppError::bad_request(format!(
                "`limit` must be 1 to {MAX_RECENT}, not {limit}"
            )));
        }
        let since = window_start(req.since.as_deref().unwrap_or(DEFAULT_WINDOW), unix_now())?;
        let vault = self.settings().require_vault()?;
        let scan = scan_vault(vault)?;
        let mut changed: Vec<(u64, SourceFile)> = scan
            .files
            .into_iter()
            .filter_map(|f| {
                let modified = std::fs::metadata(&f.abs_path).ok()?.modified().ok()?;
                let secs = modified
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?
                    .as_secs();
                (secs >= since).then_some((secs, f))
            })
            .collect();
        changed.sort_by(|(ta, a), (tb, b)| tb.cmp(ta).then_with(|| a.rel_path.cmp(&b.rel_path)));
        let total = changed.len();
        let store = self.read();
        let catalog = store.catalog()?;
        let by_path: std::collections::HashMap<&str, &mindnet_store::NoteState> =
            catalog.iter().map(|n| (n.path.as_str(), n)).collect();
        let notes = changed
            .into_iter()
            .take(limit)
            .map(|(secs, f)| {
                let known = by_path.get(f.rel_path.as_str()).copied();
                let hash = read_source(&f, self.settings().max_note_bytes)
                    .ok()
                    .map(|s| content_hash(&s.text));
                RecentNote {
                    title: known.map_or_else(|| file_stem(&f.rel_path), |n| n.title.clone()),
                    note_id: known.map(|n| n.note_id.clone()).unwrap_or_default(),
                    note_type: known.map(|n| n.note_type.clone()).unwrap_or_default(),
                    indexed: known.is_some_and(|n| Some(&n.hash) == hash.as_ref()),
                    modified: rfc3339(secs),
                    path: f.rel_path,
                }
            })
            .collect();
        Ok(RecentResponse {
            since: rfc3339(since),
            total,
            notes,
        })
    }
}

/// Links by title and kind, each once: several chunks of one note often
/// state the same link, and a reader wants it once.
fn unique(mut links: Vec<NoteLink>) -> Vec<NoteLink> {
    let key = |l: &NoteLink| {
        (
            l.title.clone(),
            l.kind.clone(),
            l.note_id.clone(),
            l.section.clone(),
            l.provenance.clone(),
            l.resolved,
        )
    };
    links.sort_by_key(key);
    links.dedup();
    links
}

fn link(catalog: &Catalog, e: &Edge, other: &str) -> NoteLink {
    let known = e.resolved.then(|| catalog.get(other)).flatten();
    NoteLink {
        kind: e.kind.clone(),
        note_id: other.to_string(),
        title: known.map_or_else(|| other.to_string(), |n| n.title.clone()),
        path: known.map(|n| n.path.clone()).unwrap_or_default(),
        section: e.target_section.clone(),
        provenance: e.provenance.as_str().to_string(),
        resolved: e.resolved,
    }
}

/// Refuses a file whose real path (after symlinks) is outside the vault.
fn inside(vault: &Path, file: &SourceFile) -> Result<(), AppError> {
    let missing = |e: std::io::Error| {
        AppError::not_found(format!(
            "{}: indexed, but the file cannot be read ({e}); the next sync removes it",
            file.rel_path
        ))
    };
    let root = vault.canonicalize().map_err(missing)?;
    let real = file.abs_path.canonicalize().map_err(missing)?;
    if real.starts_with(&root) {
        Ok(())
    } else {
        Err(AppError::forbidden(format!(
            "{}: leads outside the vault; not read",
            file.rel_path
        )))
    }
}

/// The section under the heading `wanted` (case-insensitive, `#`s
/// optional): from its heading to the next heading of the same or a higher
/// level.
fn section(
    headings: &[mindnet_ingest::parse::Heading],
    wanted: &str,
    len: usize,
) -> Option<(String, std::ops::Range<usize>)> {
    let wanted = wanted.trim().trim_start_matches('#').trim().to_lowercase();
    let i = headings
        .iter()
        .position(|h| h.text.to_lowercase() == wanted)?;
    let h = &headings[i];
    let end = headings[i + 1..]
        .iter()
        .find(|n| n.level <= h.level)
        .map_or(len, |n| n.range.start);
    Some((h.text.clone(), h.range.start..end))
}

fn file_stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name).to_string()
}

/// The start of a window `30m`, `24h`, `7d`, `2w` back from `now`, or a
/// date or time.
fn window_start(since: &str, now: u64) -> Result<u64, AppError> {
    let s = since.trim();
    let unit = |c: char| match c {
        'm' => Some(60),
        'h' => Some(3600),
        'd' => Some(86_400),
        'w' => Some(7 * 86_400),
        _ => None,
    };
    let duration = s.char_indices().last().and_then(|(i, c)| {
        let n: u64 = s[..i].parse().ok()?;
        Some(n.saturating_mul(unit(c)?))
    });
    duration
        .map(|d| now.saturating_sub(d))
        .or_else(|| parse_rfc3339(s))
        .ok_or_else(|| {
            AppError::bad_request(format!(
                "`since` {since:?}: give a duration (30m, 24h, 7d, 2w) or a date or time (2026-11-30, 2026-11-30T08:00:00Z)"
            ))
        })
}

/// An indexed note's names, as `mindnet_core::lookup` reads them.
pub(crate) fn note_names(n: &NoteState) -> lookup::NoteNames<'_> {
    lookup::NoteNames {
        id: &n.note_id,
        path: &n.path,
        title: &n.title,
        aliases: &n.aliases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows() {
        let now = 10_000_000;
        assert_eq!(window_start("30m", now).unwrap(), now - 1800);
        assert_eq!(window_start(" 7d ", now).unwrap(), now - 7 * 86_400);
        assert_eq!(window_start("2w", now).unwrap(), now - 14 * 86_400);
        assert_eq!(window_start("99999999999999w", now).unwrap(), 0);
        assert_eq!(window_start("1970-01-02", now).unwrap(), 86_400);
        for bad in ["", "d", "7", "7y", "-3d", "gestern"] {
            assert!(window_start(bad, now).is_err(), "{bad}");
        }
    }

    #[test]
    fn sections() {
        let text = "---\ntitle: X\n---\n# A\n\none\n\n## B\n\ntwo\n\n# C\n\nthree\n";
        let parsed = mindnet_ingest::parse::parse(text);
        let (h, r) = section(&parsed.headings, "## b", text.len()).unwrap();
        assert_eq!((h.as_str(), &text[r]), ("B", "## B\n\ntwo\n\n"));
        let (_, r) = section(&parsed.headings, "A", text.len()).unwrap();
        assert_eq!(&text[r], "# A\n\none\n\n## B\n\ntwo\n\n");
        let (_, r) = section(&parsed.headings, "c", text.len()).unwrap();
        assert_eq!(&text[r], "# C\n\nthree\n");
        assert!(section(&parsed.headings, "D", text.len()).is_none());
    }
}
