//! `recent_changes`: the notes whose files changed within a window, read
//! from the vault (the files are the truth) and set against the index, each
//! with what happened and through which door: a change mindnet made (its
//! change log, `changes.rs`) or one made in an editor (the file is newer
//! than any logged change). Notes deleted through mindnet are listed from
//! the log.

use crate::changes::{ChangeKind, Door, Logged};
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use std::collections::HashMap;

const DEFAULT_WINDOW: &str = "7d";
use mindnet_core::lookup::file_name;
use mindnet_core::time::{modified_secs, parse_rfc3339, rfc3339, unix_now};
use mindnet_ingest::scan::{SourceFile, scan_vault};
use mindnet_ingest::source::{content_hash, read_source};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The notes whose files changed lately, newest first, and whether each is indexed.
pub struct RecentChangesOp;

impl Operation for RecentChangesOp {
    type Request = RecentRequest;
    type Response = RecentResponse;
    const NAME: &'static str = "recent_changes";
    const ABOUT: &'static str =
        "The notes whose files changed lately, newest first, and whether each is indexed.";
    const EXAMPLE: &'static str = r#"{"since": "30d", "limit": 5}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/recent_changes");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<RecentRequest>> = Some(Tool::new(
        "recent_changes",
        "Recently changed notes",
        "The notes whose files changed within a time window, newest first, and \
            whether the index holds each one's latest version yet.",
    ));

    fn run(ws: &Workspace, req: &RecentRequest) -> Result<RecentResponse, AppError> {
        recent_changes(ws, req)
    }
}

pub const DEFAULT_RECENT: usize = 20;

pub const MAX_RECENT: usize = 500;

/// `recent_changes`: the notes whose files changed within a window.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct RecentRequest {
    /// How far back: `30m`, `24h`, `7d`, `2w`, or a date or time
    /// (`2026-11-30`, `2026-11-30T08:00:00Z`). Default `7d`.
    #[serde(default)]
    pub since: Option<String>,
    /// At most this many notes, newest first (1 to 500, default 20).
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RecentNote {
    pub path: String,
    /// The indexed note's title, else the file name.
    pub title: String,
    /// Empty while the file is not indexed yet.
    pub note_id: String,
    #[serde(rename = "type")]
    pub note_type: String,
    /// The file's modification time (RFC 3339, UTC).
    pub modified: String,
    /// Whether the index holds this version of the file.
    pub indexed: bool,
    /// created, edited, moved or deleted.
    pub change: ChangeKind,
    /// cli, http or mcp for a change made through mindnet; files for one
    /// made on disk (an editor).
    pub door: Door,
    /// A moved note's old path.
    pub from: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RecentResponse {
    /// The window's start (RFC 3339, UTC).
    pub since: String,
    /// How many notes changed in the window (`notes` holds at most `limit`).
    pub total: usize,
    pub notes: Vec<RecentNote>,
}

/// The notes whose files changed within `since`, newest first.
fn recent_changes(ws: &Workspace, req: &RecentRequest) -> Result<RecentResponse, AppError> {
    let limit = req.limit.unwrap_or(DEFAULT_RECENT);
    if !(1..=MAX_RECENT).contains(&limit) {
        return Err(AppError::bad_request(format!(
            "`limit` must be 1 to {MAX_RECENT}, not {limit}"
        )));
    }
    let since = window_start(req.since.as_deref().unwrap_or(DEFAULT_WINDOW), unix_now())?;
    let vault = ws.settings().require_vault()?;
    let scan = scan_vault(vault)?;
    let changed: Vec<(u64, SourceFile)> = scan
        .files
        .into_iter()
        .filter_map(|f| {
            let secs = modified_secs(&f.abs_path)?;
            (secs >= since).then_some((secs, f))
        })
        .collect();
    let logged = crate::changes::since(ws.settings(), since);
    let mut latest: HashMap<&str, &Logged> = HashMap::new();
    for c in &logged {
        latest.insert(&c.path, c);
    }
    let store = ws.read();
    let catalog = store.catalog()?;
    let by_path: HashMap<&str, &mindnet_store::NoteState> =
        catalog.iter().map(|n| (n.path.as_str(), n)).collect();
    let mut notes: Vec<RecentNote> = changed
        .into_iter()
        .map(|(secs, f)| {
            let known = by_path.get(f.rel_path.as_str()).copied();
            let hash = read_source(&f, ws.settings().max_note_bytes)
                .ok()
                .map(|s| content_hash(&s.text));
            // A logged write explains the file unless it changed again
            // later (the clock's second, and a little slack for the sync).
            let ours = latest
                .get(f.rel_path.as_str())
                .filter(|c| c.time + 2 >= secs && c.change != ChangeKind::Deleted);
            let (change, door, from) = match ours {
                Some(c) => (c.change, c.door, c.from.clone()),
                None if known.is_some() => (ChangeKind::Edited, Door::Files, None),
                None => (ChangeKind::Created, Door::Files, None),
            };
            RecentNote {
                title: known
                    .map_or_else(|| file_name(&f.rel_path).to_string(), |n| n.title.clone()),
                note_id: known.map(|n| n.note_id.clone()).unwrap_or_default(),
                note_type: known.map(|n| n.note_type.clone()).unwrap_or_default(),
                indexed: known.is_some_and(|n| Some(&n.hash) == hash.as_ref()),
                modified: rfc3339(secs.max(ours.map_or(0, |c| c.time))),
                path: f.rel_path,
                change,
                door,
                from,
            }
        })
        .collect();
    notes.extend(gone(vault, &latest));
    notes.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    let total = notes.len();
    notes.truncate(limit);
    Ok(RecentResponse {
        since: rfc3339(since),
        total,
        notes,
    })
}

/// The notes mindnet deleted within the window whose path holds no file now.
fn gone(vault: &std::path::Path, latest: &HashMap<&str, &Logged>) -> Vec<RecentNote> {
    latest
        .values()
        .filter(|c| c.change == ChangeKind::Deleted && !vault.join(&c.path).exists())
        .map(|c| RecentNote {
            path: c.path.clone(),
            title: file_name(&c.path).to_string(),
            note_id: String::new(),
            note_type: String::new(),
            modified: rfc3339(c.time),
            indexed: false,
            change: ChangeKind::Deleted,
            door: c.door,
            from: None,
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::window_start;

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
}
