//! `list_directory`: what a folder of the vault holds, as an assistant
//! looks at it before it writes or moves a note: its subfolders and its
//! notes, each note with its title, type, tags and time of change. The
//! files are the truth (a note not indexed yet is listed, by its file
//! name); the index adds what it knows of each.

use crate::draft::folder_parts;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use mindnet_core::time::{modified_secs, rfc3339};
use mindnet_ingest::scan::scan_vault;
use mindnet_store::NoteState;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use utoipa::ToSchema;

/// How deep a listing goes unless asked, and at most.
const DEFAULT_DEPTH: usize = 1;
const MAX_DEPTH: usize = 10;
/// At most this many entries; the answer says when there were more.
const MAX_ENTRIES: usize = 1000;

/// Lists a folder of the vault.
pub struct ListDirectoryOp;

impl Operation for ListDirectoryOp {
    type Request = ListDirectoryRequest;
    type Response = ListDirectoryResponse;
    const NAME: &'static str = "list_directory";
    const ABOUT: &'static str = "The folders and notes of a vault folder, with each note's title, type, tags and time of change.";
    const EXAMPLE: &'static str = r#"{"dir": "Entscheidungen", "depth": 1}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/list_directory");
    const FAILS: &'static [ErrorCode] = &[ErrorCode::NotFound, ErrorCode::Unprocessable];
    const TOOL: Option<Tool<ListDirectoryRequest>> = Some(Tool::new(
        "list_directory",
        "List a folder of the vault",
        "The subfolders and notes of one folder of the user's vault (the whole vault by \
            default), folders first, each note with its title, type, tags and when it changed; \
            `depth` goes into subfolders, `glob` keeps only names like `Projekt*`. Use it to \
            see where a note belongs before writing or moving one.",
    ));

    fn run(ws: &Workspace, req: &ListDirectoryRequest) -> Result<ListDirectoryResponse, AppError> {
        list_directory(ws, req)
    }
}

// The request of `list_directory`. (A plain comment: a doc comment would
// become the tool's schema description.)
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ListDirectoryRequest {
    /// A folder of the vault, `/`-separated, e.g. `Projekte/Mindnet`
    /// (default: the vault's root).
    #[serde(default)]
    pub dir: Option<String>,
    /// Only entries whose name matches, with `*` for any characters and `?`
    /// for one, any case, e.g. `2024-*` or `*Entscheidung*`.
    #[serde(default)]
    pub glob: Option<String>,
    /// How many folder levels down (1 to 10, default 1: the folder itself).
    #[serde(default)]
    pub depth: Option<usize>,
}

/// One subfolder or note of the listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DirEntry {
    /// Vault-relative, `/`-separated.
    pub path: String,
    /// `folder` or `note`.
    pub kind: String,
    /// A note's title (its file name while it is not indexed); a folder's
    /// name.
    pub title: String,
    /// Empty for a folder, or a note not indexed yet.
    #[serde(rename = "type")]
    pub note_type: String,
    pub tags: Vec<String>,
    /// When the file changed (RFC 3339, UTC); for a folder, its newest
    /// note's.
    pub modified: String,
    /// A folder's notes, at any depth below it.
    pub notes: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ListDirectoryResponse {
    /// The folder listed (empty: the vault's root).
    pub dir: String,
    /// Folders first, then notes, each by path.
    pub entries: Vec<DirEntry>,
    /// How many entries match, `entries` holding at most 1000.
    pub total: usize,
}

fn list_directory(
    ws: &Workspace,
    req: &ListDirectoryRequest,
) -> Result<ListDirectoryResponse, AppError> {
    let depth = req.depth.unwrap_or(DEFAULT_DEPTH);
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(AppError::bad_request(format!(
            "`depth` must be 1 to {MAX_DEPTH}, not {depth}"
        )));
    }
    let dir = match req.dir.as_deref().map(str::trim) {
        None | Some("" | "/" | ".") => String::new(),
        Some(d) => folder_parts("dir", d)?.join("/"),
    };
    let vault = ws.settings().require_vault()?;
    let files = scan_vault(vault)?.files;
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    if !dir.is_empty() && !files.iter().any(|f| f.rel_path.starts_with(&prefix)) {
        return Err(AppError::not_found(format!(
            "no folder `{dir}` with notes in the vault"
        )));
    }
    let store = ws.read();
    let catalog = store.catalog()?;
    let by_path: HashMap<&str, &NoteState> = catalog.iter().map(|n| (n.path.as_str(), n)).collect();
    let mut folders: BTreeMap<String, DirEntry> = BTreeMap::new();
    let mut notes: Vec<DirEntry> = Vec::new();
    for f in &files {
        let Some(rest) = f.rel_path.strip_prefix(&prefix) else {
            continue;
        };
        let stamp = rfc3339(modified_secs(&f.abs_path).unwrap_or(0));
        let parts: Vec<&str> = rest.split('/').collect();
        // Every folder between the listed one and the note, up to the depth.
        for level in 1..parts.len().min(depth + 1) {
            let path = format!("{prefix}{}", parts[..level].join("/"));
            let folder = folders.entry(path.clone()).or_insert_with(|| DirEntry {
                title: parts[level - 1].to_string(),
                path,
                kind: "folder".into(),
                note_type: String::new(),
                tags: Vec::new(),
                modified: String::new(),
                notes: 0,
            });
            folder.notes += 1;
            if stamp > folder.modified {
                folder.modified = stamp.clone();
            }
        }
        if parts.len() <= depth {
            notes.push(note_entry(
                &f.rel_path,
                by_path.get(f.rel_path.as_str()),
                stamp,
            ));
        }
    }
    let glob = req.glob.as_deref().map(str::to_lowercase);
    let matches = |e: &DirEntry| {
        let name = e.path.rsplit('/').next().unwrap_or(&e.path).to_lowercase();
        glob.as_deref().is_none_or(|g| wildcard(g, &name))
    };
    let entries: Vec<DirEntry> = folders
        .into_values()
        .chain(notes)
        .filter(|e| matches(e))
        .collect();
    let total = entries.len();
    Ok(ListDirectoryResponse {
        dir,
        entries: entries.into_iter().take(MAX_ENTRIES).collect(),
        total,
    })
}

/// A note's entry: what the index knows of it, else its file name.
fn note_entry(path: &str, known: Option<&&NoteState>, modified: String) -> DirEntry {
    let stem = mindnet_core::lookup::file_name(path).to_string();
    DirEntry {
        path: path.to_string(),
        kind: "note".into(),
        title: known.map_or(stem, |n| n.title.clone()),
        note_type: known.map(|n| n.note_type.clone()).unwrap_or_default(),
        tags: known.map(|n| n.tags.clone()).unwrap_or_default(),
        modified,
        notes: 0,
    }
}

/// Whether `name` matches `pattern`: `*` any characters, `?` one.
fn wildcard(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // The last `*` seen and the name position it has taken up to.
    let (mut i, mut j, mut star, mut taken) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            taken = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            taken += 1;
            j = taken;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::wildcard;

    #[test]
    fn wildcards() {
        assert!(wildcard("*", "anything.md"));
        assert!(wildcard("2024-*", "2024-09-02.md"));
        assert!(!wildcard("2024-*", "2023-09-02.md"));
        assert!(wildcard("*entscheidung*", "qdrant-entscheidung.md"));
        assert!(wildcard("note?.md", "note1.md"));
        assert!(!wildcard("note?.md", "note12.md"));
        assert!(wildcard("a*b*c", "axxbyyc"));
        assert!(!wildcard("a*b*c", "axxbyy"));
        assert!(wildcard("", ""));
        assert!(!wildcard("", "x"));
    }
}
