//! Drafts: which notes a draft should link (`analyze`, SPEC API-1), and
//! writing a note into the vault (`save`): slugified name, only inside the
//! vault, atomic, never overwriting unless asked, indexed before returning.

use crate::api::*;
use crate::{AppError, Workspace};
use mindnet_ingest::scan::rel_path;
use mindnet_retrieve::Query;
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use unicode_normalization::UnicodeNormalization;

pub const DEFAULT_SUGGESTIONS: usize = 8;
/// The part of a draft that is embedded for the similarity search.
const ANALYZE_CHARS: usize = 4000;
/// Titles shorter than this are not looked for in a draft's text.
const MIN_MENTION_CHARS: usize = 4;
const MAX_SLUG_CHARS: usize = 80;

/// A file name from a title: lower case ASCII letters and digits, German
/// umlauts and ß spelled out, other accents dropped, anything else a single
/// `-`. Empty when nothing usable is left.
pub fn slugify(title: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for ch in title.nfc().flat_map(char::to_lowercase) {
        let ascii: String = match ch {
            'ä' => "ae".into(),
            'ö' => "oe".into(),
            'ü' => "ue".into(),
            'ß' => "ss".into(),
            // `é` → `e`; a character with no ASCII part (`日`) becomes a gap.
            _ => std::iter::once(ch).nfd().filter(char::is_ascii).collect(),
        };
        if ascii.is_empty() {
            dash = true;
        }
        for c in ascii.chars() {
            if c.is_ascii_alphanumeric() {
                if dash && !out.is_empty() {
                    out.push('-');
                }
                dash = false;
                out.push(c);
            } else {
                dash = true;
            }
        }
    }
    out.truncate(MAX_SLUG_CHARS);
    out.trim_end_matches('-').to_string()
}

/// A vault-relative folder, checked: relative, no `..`, no hidden or
/// encoded components.
fn folder_parts(folder: &str) -> Result<Vec<String>, AppError> {
    let bad = |why: &str| AppError::unprocessable(format!("`folder` {folder:?}: {why}"));
    if folder.contains('\\') || folder.contains('\0') {
        return Err(bad("use `/` between folders"));
    }
    if folder.contains('%') {
        return Err(bad("percent-encoded names are not accepted"));
    }
    let p = Path::new(folder);
    let mut parts = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_string_lossy().to_string();
                if s.starts_with('.') {
                    return Err(bad("hidden folders are not notes"));
                }
                parts.push(s);
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(bad("`..` would leave the vault")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(bad("must be relative to the vault"));
            }
        }
    }
    Ok(parts)
}

/// Creates (or finds) the folder inside the vault (`root`, canonical); a
/// symlink that leads out of the vault is refused.
fn inside_vault(root: &Path, parts: &[String]) -> Result<PathBuf, AppError> {
    let mut dir = root.to_path_buf();
    for part in parts {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir)
                    .map_err(|e| AppError::internal(format!("{}: {e}", dir.display())))?;
            }
            Err(e) => return Err(AppError::internal(format!("{}: {e}", dir.display()))),
        }
        let real = dir
            .canonicalize()
            .map_err(|e| AppError::internal(format!("{}: {e}", dir.display())))?;
        if !real.starts_with(root) {
            return Err(AppError::unprocessable(format!(
                "`folder`: {} leads outside the vault",
                parts.join("/")
            )));
        }
        if !real.is_dir() {
            return Err(AppError::unprocessable(format!(
                "`folder`: {} is not a folder",
                parts.join("/")
            )));
        }
        dir = real;
    }
    Ok(dir)
}

/// A YAML scalar: JSON's double-quoted strings are valid YAML.
fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn note_text(req: &SaveRequest, title: &str) -> String {
    if req.text.starts_with("---\n") || req.text.starts_with("---\r\n") {
        return req.text.clone();
    }
    let mut s = String::from("---\n");
    s += &format!("title: {}\n", yaml_str(title));
    if let Some(t) = &req.note_type {
        s += &format!("type: {}\n", yaml_str(t.trim()));
    }
    if !req.tags.is_empty() {
        let tags: Vec<String> = req.tags.iter().map(|t| yaml_str(t.trim())).collect();
        s += &format!("tags: [{}]\n", tags.join(", "));
    }
    s += "---\n\n";
    s += &req.text;
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

impl Workspace {
    /// Writes the note, then indexes the vault; the response names the
    /// note's id in the index.
    pub fn save(&self, req: &SaveRequest) -> Result<SaveResponse, AppError> {
        let title = req.title.trim();
        if title.is_empty() || title.contains('\n') {
            return Err(AppError::unprocessable(
                "`title` must be one non-empty line",
            ));
        }
        let slug = slugify(title);
        if slug.is_empty() {
            return Err(AppError::unprocessable(format!(
                "`title` {title:?} leaves no usable file name; use letters or digits"
            )));
        }
        let vault = self.settings().require_vault()?;
        let root = vault
            .canonicalize()
            .map_err(|e| AppError::internal(format!("{}: {e}", vault.display())))?;
        let parts = folder_parts(req.folder.as_deref().unwrap_or(""))?;
        let dir = inside_vault(&root, &parts)?;
        let file = dir.join(format!("{slug}.md"));
        let path = rel_path(&root, &file);
        let existed = match std::fs::symlink_metadata(&file) {
            Ok(m) if m.file_type().is_symlink() || !m.is_file() => {
                return Err(AppError::unprocessable(format!(
                    "{}: exists and is not a plain file; not touched",
                    file.display()
                )));
            }
            Ok(_) if !req.overwrite => {
                return Err(AppError::conflict(format!(
                    "{path}: a note of this name exists; give `overwrite: true` to replace it"
                )));
            }
            Ok(_) => true,
            Err(_) => false,
        };
        let text = note_text(req, title);
        let io = |e: std::io::Error| AppError::internal(format!("{}: {e}", file.display()));
        let mut tmp = tempfile::Builder::new()
            .prefix(".mindnet-save-")
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(io)?;
        tmp.write_all(text.as_bytes()).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        if req.overwrite {
            tmp.persist(&file).map_err(|e| io(e.error))?;
        } else {
            tmp.persist_noclobber(&file).map_err(|e| {
                if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                    AppError::conflict(format!(
                        "{path}: a note of this name appeared meanwhile; not overwritten"
                    ))
                } else {
                    io(e.error)
                }
            })?;
        }
        let sync = self.sync(
            &SyncRequest {
                paths: vec![path.clone()],
                ..SyncRequest::default()
            },
            &(),
        )?;
        let store = self.read();
        let note_id = store
            .catalog()?
            .by_path(&path)
            .map(|n| n.note_id.clone())
            .ok_or_else(|| {
                let why = sync
                    .skipped
                    .iter()
                    .find(|s| s.path == path)
                    .map_or("it was not indexed".to_string(), |s| s.reason.clone());
                AppError::unprocessable(format!("{path}: written, but {why}"))
            })?;
        Ok(SaveResponse {
            note_id,
            path,
            created: !existed,
            sync,
        })
    }

    /// The existing notes a draft should link, with the edge kind to use.
    pub fn analyze(&self, req: &AnalyzeRequest) -> Result<AnalyzeResponse, AppError> {
        let text = req.text.trim();
        if text.is_empty() {
            return Err(AppError::bad_request("`text` is empty; give the draft"));
        }
        let k = req.k.unwrap_or(DEFAULT_SUGGESTIONS).clamp(1, MAX_K);
        let registry = &self.config().registry;
        let note_type = req
            .note_type
            .as_deref()
            .map(|t| t.trim().to_lowercase())
            .unwrap_or_else(|| detect_type(registry, text));
        let linked: BTreeSet<String> = mindnet_ingest::parse::parse(text)
            .links
            .iter()
            .map(|l| l.parts.target.trim().to_lowercase())
            .collect();

        let probe: String = match (&req.title, text.char_indices().nth(ANALYZE_CHARS)) {
            (Some(t), Some((i, _))) => format!("{t}\n{}", &text[..i]),
            (Some(t), None) => format!("{t}\n{text}"),
            (None, Some((i, _))) => text[..i].to_string(),
            (None, None) => text.to_string(),
        };
        let vector = self.embedder().embed_query(&probe)?;
        let mut q = Query::new(probe.clone());
        q.group_by_note = true;
        q.k = k * 2;
        let similar = self.search(&q, &vector)?;

        let store = self.read();
        let catalog = store.catalog()?;
        let lower = text.to_lowercase();
        let own_title = req.title.as_deref().map(|t| t.trim().to_lowercase());
        let mut scored: HashMap<String, (f64, String)> = HashMap::new();
        for n in catalog.iter() {
            let names = std::iter::once(&n.title).chain(&n.aliases);
            for name in names {
                let name = name.to_lowercase();
                if name.chars().count() >= MIN_MENTION_CHARS
                    && own_title.as_deref() != Some(name.as_str())
                    && mentions(&lower, &name)
                {
                    scored.insert(n.note_id.clone(), (1.0, "mentioned in the draft".into()));
                    break;
                }
            }
        }
        let best = similar.hits.first().map_or(1.0, |h| h.score.max(1e-9));
        for h in &similar.hits {
            if own_title.as_deref() == Some(h.title.to_lowercase().as_str()) {
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
        let mut list: Vec<(String, f64, String)> = scored
            .into_iter()
            .map(|(id, (s, why))| (id, s, why))
            .collect();
        list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        list.truncate(k);
        let suggestions = list
            .into_iter()
            .filter_map(|(id, score, reason)| {
                let n = catalog.get(&id)?;
                let rule = registry.matrix_rule(&note_type, &n.note_type);
                let derived = rule.and_then(|r| r.kind.clone());
                let typical: Vec<String> = rule.map(|r| r.typical.clone()).unwrap_or_default();
                let kind = derived
                    .clone()
                    .or_else(|| typical.first().cloned())
                    .unwrap_or_else(|| self.config().vocab.fallback_kind().to_string());
                let link = if derived.is_some() {
                    format!("[[{}]]", n.title)
                } else {
                    format!("[[rel:{kind} {}]]", n.title)
                };
                let is_linked = linked.contains(&n.title.to_lowercase())
                    || linked.contains(&n.path.trim_end_matches(".md").to_lowercase())
                    || n.aliases.iter().any(|a| linked.contains(&a.to_lowercase()));
                Some(LinkSuggestion {
                    note_id: n.note_id.clone(),
                    title: n.title.clone(),
                    path: n.path.clone(),
                    note_type: n.note_type.clone(),
                    kind,
                    typical,
                    link,
                    score,
                    reason,
                    linked: is_linked,
                })
            })
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
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slugify("Warum Qdrant?"), "warum-qdrant");
        assert_eq!(slugify("Über Größe & Maß"), "ueber-groesse-mass");
        assert_eq!(slugify("Café déjà vu"), "cafe-deja-vu");
        assert_eq!(slugify("../../etc/passwd"), "etc-passwd");
        assert_eq!(slugify("???"), "");
        assert_eq!(slugify("日本"), "");
        assert_eq!(slugify("a日本b"), "a-b");
        assert_eq!(slugify("  -x- "), "x");
    }

    #[test]
    fn folders() {
        assert!(folder_parts("../x").is_err());
        assert!(folder_parts("/etc").is_err());
        assert!(folder_parts("%2e%2e/x").is_err());
        assert!(folder_parts("a/../../x").is_err());
        assert!(folder_parts(".obsidian").is_err());
        assert_eq!(folder_parts("Projekte/Neu").unwrap(), ["Projekte", "Neu"]);
        assert!(folder_parts("").unwrap().is_empty());
    }

    #[test]
    fn whole_word_mentions() {
        assert!(mentions("ich nutze qdrant seit", "qdrant"));
        assert!(!mentions("qdrantdb", "qdrant"));
        assert!(mentions("über bm25.", "bm25"));
    }
}
