//! What changed in the vault through mindnet, and through which door: each
//! operation that writes a note records it in `<data>/logs/changes.jsonl`
//! (`recent_changes` sets it against the files, whose other changes came
//! from an editor).
//!
//! The door is the transport the operation was called through. Transports
//! are thin shells that call an operation on a thread of their own (MCP
//! and HTTP in a blocking task), so each says which door it is with
//! `through` around the call; the CLI is the default.

use crate::Settings;
use mindnet_retrieve::log::{Logs, NoteChange};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use utoipa::ToSchema;

/// Through which door a change came.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Door {
    Cli,
    Http,
    Mcp,
    /// The file changed on disk (an editor, a sync tool, a script).
    Files,
}

impl Door {
    pub fn as_str(self) -> &'static str {
        match self {
            Door::Cli => "cli",
            Door::Http => "http",
            Door::Mcp => "mcp",
            Door::Files => "files",
        }
    }

    fn parse(s: &str) -> Door {
        match s {
            "http" => Door::Http,
            "mcp" => Door::Mcp,
            "files" => Door::Files,
            _ => Door::Cli,
        }
    }
}

/// What happened to a note.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Created,
    Edited,
    Moved,
    Deleted,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Edited => "edited",
            ChangeKind::Moved => "moved",
            ChangeKind::Deleted => "deleted",
        }
    }

    pub(crate) fn parse(s: &str) -> ChangeKind {
        match s {
            "created" => ChangeKind::Created,
            "moved" => ChangeKind::Moved,
            "deleted" => ChangeKind::Deleted,
            _ => ChangeKind::Edited,
        }
    }
}

thread_local! {
    static DOOR: Cell<Door> = const { Cell::new(Door::Cli) };
}

/// Runs `f` with its writes recorded as coming through `door`.
pub fn through<T>(door: Door, f: impl FnOnce() -> T) -> T {
    let before = DOOR.replace(door);
    let out = f();
    DOOR.set(before);
    out
}

/// A logged change, read back.
pub(crate) struct Logged {
    pub time: u64,
    pub path: String,
    pub change: ChangeKind,
    pub from: Option<String>,
    pub door: Door,
}

/// Records a change to the note at `path` (a failure to log is a warning:
/// the note is written).
pub(crate) fn record(settings: &Settings, path: &str, change: ChangeKind, from: Option<&str>) {
    let entry = NoteChange {
        time: mindnet_core::time::unix_now(),
        path: path.to_string(),
        change: change.as_str().to_string(),
        from: from.map(str::to_string),
        door: DOOR.get().as_str().to_string(),
    };
    if let Err(e) = Logs::new(&settings.data).record_change(&entry) {
        tracing::warn!("the change log: {e}");
    }
}

/// Every logged change since `since` (seconds), oldest first.
pub(crate) fn since(settings: &Settings, since: u64) -> Vec<Logged> {
    Logs::new(&settings.data)
        .changes()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c.time >= since)
        .map(|c| Logged {
            time: c.time,
            change: ChangeKind::parse(&c.change),
            door: Door::parse(&c.door),
            from: c.from,
            path: c.path,
        })
        .collect()
}
