//! Safe auto-fixes (LNT-5): an alias kind becomes its canonical kind, a link
//! with another spelling of an existing note names that note, and (on
//! request) a missing inverse edge is added to the target note as an edge
//! callout, and a note's first unlinked mention of another note becomes a
//! link that reads the same (`[[Name|as written]]`).
//!
//! Invariants:
//! - Only the fixed spans change: frontmatter order, line endings (LF or
//!   CRLF), a byte-order mark and trailing whitespace are kept. A file whose
//!   text cannot be written back byte for byte (invalid UTF-8, mixed line
//!   endings) is left alone and reported.
//! - Fixing twice changes nothing the second time.
//! - A file is written atomically (temp file, then rename), and never if it
//!   changed since it was read.

use crate::chains::causal_links;
use crate::lexicon::RealWords;
use crate::links::{kind_position, written_kind};
use crate::names::{NameIndex, Similar, is_missing};
use crate::{LinkRef, LintConfig, Vault, detect_lang, load_notes, resolve_links};
use mindnet_core::Canonical;
use mindnet_ingest::note_bytes::{Encoding, version_of};
use mindnet_ingest::{Config, IngestError};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct FixOptions {
    /// Add the inverse of every typed causal link to its target note.
    pub add_inverses: bool,
    /// Turn each note's first unlinked mention of another note into a link.
    pub link_mentions: bool,
    /// Only the fixes of this note (vault-relative path): what an editor
    /// offers beside the note being written.
    pub note: Option<String>,
    /// Only the fixes on this line of `note` (1-based): one finding's fix.
    pub line: Option<usize>,
    /// With `line`: only the fix that starts in this column (1-based).
    pub column: Option<usize>,
}

/// One change a fix makes, where the author sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// The line it changes (1-based); `None` for an edge appended at the end.
    pub line: Option<usize>,
    /// The column where the change starts (1-based, in characters).
    pub column: Option<usize>,
    pub what: String,
}

/// The planned change of one file.
#[derive(Debug, Clone)]
pub struct FileFix {
    pub path: String,
    /// The file's bytes as read.
    pub old: Vec<u8>,
    pub new: Vec<u8>,
    /// One per change, for the report.
    pub fixes: Vec<Fix>,
}

#[derive(Debug, thiserror::Error)]
pub enum FixError {
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}: changed since it was read; not written (run the fix again)")]
    Changed(PathBuf),
    #[error("{0}: no such note in the vault")]
    NoNote(String),
}

struct Edit {
    range: Range<usize>,
    text: String,
    line: usize,
    column: usize,
    what: String,
}

impl Edit {
    /// `range` of `note`'s text becomes `text`; its line and column are
    /// where the author sees the change start.
    fn new(note: &crate::Note, range: Range<usize>, text: String, what: String) -> Edit {
        Edit {
            line: note.parsed.lines.line(range.start),
            column: note.column(range.start),
            range,
            text,
            what,
        }
    }
}

/// The changes planned per note (by its place in the vault): edits of its
/// text, and inverse edges appended as callouts (kind, title).
#[derive(Default)]
struct Plan {
    edits: BTreeMap<usize, Vec<Edit>>,
    appends: BTreeMap<usize, Vec<(String, String)>>,
}

impl Plan {
    /// Keeps the changes of note `i` only (on `line` and at `column` only,
    /// when given: an appended edge is on no line of the note as it is).
    fn only(&mut self, i: usize, line: Option<usize>, column: Option<usize>) {
        self.edits.retain(|&n, _| n == i);
        self.appends.retain(|&n, _| n == i && line.is_none());
        if let Some(line) = line {
            for edits in self.edits.values_mut() {
                edits.retain(|e| e.line == line && column.is_none_or(|c| e.column == c));
            }
        }
    }
}

pub fn plan_fixes(
    root: &Path,
    config: &Config,
    lint: &LintConfig,
    opts: &FixOptions,
) -> Result<(Vec<FileFix>, Vec<String>), FixError> {
    let (notes, _) = load_notes(root, config, 0)?;
    let lang = detect_lang(&notes);
    let mut vault = Vault {
        notes,
        config,
        lang,
        unreadable: Default::default(),
        real: RealWords::new(lint.word_lists(lang).to_vec()),
        only: None,
    };
    if let Some(note) = &opts.note {
        let i = vault
            .notes
            .iter()
            .position(|n| &n.path == note)
            .ok_or_else(|| FixError::NoNote(note.clone()))?;
        vault.only = Some(i);
    }
    let links = resolve_links(&vault);
    let mut plan = Plan::default();
    link_edits(&vault, &links, &mut plan);
    if opts.link_mentions {
        mention_edits(&vault, &links, &mut plan);
    }
    if opts.add_inverses {
        inverse_appends(&vault, &links, &mut plan);
    }
    if let Some(i) = vault.only {
        plan.only(i, opts.line, opts.column);
    }
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let touched: std::collections::BTreeSet<usize> = plan
        .edits
        .keys()
        .chain(plan.appends.keys())
        .copied()
        .collect();
    for i in touched {
        let note = &vault.notes[i];
        let path = root.join(&note.path);
        let raw = std::fs::read(&path).map_err(|source| FixError::Io {
            path: path.clone(),
            source,
        })?;
        let Some(enc) = Encoding::of(&raw, &note.text) else {
            skipped.push(format!(
                "{}: not fixed (invalid UTF-8 or mixed line endings would not survive a rewrite)",
                note.path
            ));
            continue;
        };
        let edits = plan.edits.remove(&i).unwrap_or_default();
        let appends = plan.appends.remove(&i).unwrap_or_default();
        let (text, fixes) = applied(&note.text, edits, appends);
        let new = enc.encode(&text);
        if new != raw {
            out.push(FileFix {
                path: note.path.clone(),
                old: raw,
                new,
                fixes,
            });
        }
    }
    Ok((out, skipped))
}

/// Gives each finding of the asked notes the edit that fixes it: on its
/// line, starting at its column or inside what it points at (a link's
/// target), before the next finding of that line. A note whose bytes would
/// not survive a rewrite gets none.
pub(crate) fn attach(
    root: &Path,
    vault: &Vault<'_>,
    links: &[LinkRef<'_>],
    findings: &mut [crate::Finding],
) {
    let mut plan = Plan::default();
    link_edits(vault, links, &mut plan);
    mention_edits(vault, links, &mut plan);
    let mut by_note: HashMap<String, Vec<&mut crate::Finding>> = HashMap::new();
    for f in findings.iter_mut() {
        by_note.entry(f.path.clone()).or_default().push(f);
    }
    for (i, edits) in plan.edits {
        let note = &vault.notes[i];
        let Some(mine) = by_note
            .get_mut(note.path.as_str())
            .filter(|_| vault.asked(i))
        else {
            continue;
        };
        let Some(version) = std::fs::read(root.join(&note.path))
            .ok()
            .filter(|raw| Encoding::of(raw, &note.text).is_some())
            .map(|raw| version_of(&raw))
        else {
            continue;
        };
        for k in 0..mine.len() {
            let (line, column) = (mine[k].line, mine[k].column);
            let next = mine
                .iter()
                .filter(|o| o.line == line && o.column > column)
                .map(|o| o.column)
                .min()
                .unwrap_or(usize::MAX);
            mine[k].fix = edits
                .iter()
                .find(|e| e.line == line && e.column >= column && e.column < next)
                .map(|e| crate::FindingFix {
                    line: e.line,
                    column: e.column,
                    what: e.what.clone(),
                    version: version.clone(),
                });
        }
    }
}

/// Each written alias of a kind → the canonical kind; each link to another
/// spelling of an existing note → that note's file name.
fn link_edits(vault: &Vault<'_>, links: &[LinkRef<'_>], plan: &mut Plan) {
    let names = NameIndex::new(vault, links);
    for l in links {
        let note = &vault.notes[l.note];
        let text = &note.text;
        if let Some(raw) = written_kind(l)
            && let Canonical::Alias(kind) = vault.config.vocab.canonicalize(raw)
            && let Some(p) = kind_position(text, l, raw)
        {
            plan.edits.entry(l.note).or_default().push(Edit::new(
                note,
                p..p + raw.len(),
                kind.to_string(),
                format!("`{raw}` → `{kind}`"),
            ));
        }
        if !is_missing(l) {
            continue;
        }
        let Some(Similar { note: i, .. }) = names.similar(vault, &l.link.parts.target) else {
            continue;
        };
        let span = l.link.range.clone();
        let target = &l.link.parts.target;
        let inner_start = span.start + text[span.clone()].find("[[").map_or(0, |i| i + 2);
        let after_kind = match &l.link.parts.relation {
            Some(_) => text[inner_start..span.end]
                .find(target.as_str())
                .map(|i| inner_start + i),
            None => text[inner_start..span.end]
                .starts_with(target.as_str())
                .then_some(inner_start),
        };
        let Some(p) = after_kind else { continue };
        // The file name: the one name a link always resolves by.
        let title = std::path::Path::new(&vault.notes[i].path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        plan.edits.entry(l.note).or_default().push(Edit::new(
            note,
            p..p + target.len(),
            title.clone(),
            format!("[[{target}]] → [[{title}]]"),
        ));
    }
}

/// Each note's first unlinked mention of another note → a link.
fn mention_edits(vault: &Vault<'_>, links: &[LinkRef<'_>], plan: &mut Plan) {
    let stems = crate::mentions::stems(vault);
    for u in crate::mentions::unlinked(vault, links) {
        let link = u.link(vault, &stems);
        let what = format!("{} → {link}", u.text);
        let edit = Edit::new(&vault.notes[u.note], u.range.clone(), link, what);
        plan.edits.entry(u.note).or_default().push(edit);
    }
}

/// The missing inverse of each causal edge, appended to its target note.
fn inverse_appends(vault: &Vault<'_>, links: &[LinkRef<'_>], plan: &mut Plan) {
    let vocab = &vault.config.vocab;
    let causal = causal_links(vault, links);
    // (from, to, kind) as written anywhere, canonical.
    let mut written: Vec<(usize, usize, String)> = Vec::new();
    for l in links {
        if let (Some(raw), Some(t)) = (written_kind(l), l.target) {
            written.push((l.note, t, vocab.kind_of(raw).to_string()));
        }
    }
    for c in &causal {
        let owner = c.link.note;
        let other = if owner == c.step.cause {
            c.step.effect
        } else {
            c.step.cause
        };
        let Some(inverse) = vocab.inverse(c.kind) else {
            continue;
        };
        let title = &vault.notes[owner].title;
        let present = written
            .iter()
            .any(|(f, t, k)| *f == other && *t == owner && k == inverse);
        let planned = plan
            .appends
            .get(&other)
            .is_some_and(|v| v.iter().any(|(k, t)| k == inverse && t == title));
        if !present && !planned {
            plan.appends
                .entry(other)
                .or_default()
                .push((inverse.to_string(), title.clone()));
        }
    }
}

/// A note's text with its edits made (back to front; an edit overlapping
/// one already made waits for the next run) and its callouts appended,
/// and each fix made.
fn applied(text: &str, mut edits: Vec<Edit>, appends: Vec<(String, String)>) -> (String, Vec<Fix>) {
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut text = text.to_string();
    let mut fixes = Vec::new();
    let mut floor = usize::MAX;
    for e in edits {
        if e.range.end > floor || text.get(e.range.clone()).is_none() {
            continue;
        }
        floor = e.range.start;
        text.replace_range(e.range.clone(), &e.text);
        fixes.push(Fix {
            line: Some(e.line),
            column: Some(e.column),
            what: e.what,
        });
    }
    fixes.reverse();
    for (kind, title) in appends {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("\n> [!edge] {kind}: [[{title}]]\n"));
        fixes.push(Fix {
            line: None,
            column: None,
            what: format!("added `{kind}: [[{title}]]` (inverse edge)"),
        });
    }
    (text, fixes)
}

/// Writes one fix atomically, unless the file changed since it was read.
pub fn write_fix(root: &Path, fix: &FileFix) -> Result<(), FixError> {
    use mindnet_core::file::{ReplaceError, replace_if_unchanged};
    replace_if_unchanged(&root.join(&fix.path), &fix.old, &fix.new).map_err(|e| match e {
        ReplaceError::Changed { path, .. } => FixError::Changed(path),
        ReplaceError::Io { path, source } => FixError::Io { path, source },
    })
}

/// A unified diff of one file (one hunk around the changed lines, three
/// lines of context).
pub fn unified_diff(path: &str, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let start = prefix.saturating_sub(3);
    let a_end = (a.len() - suffix + 3).min(a.len());
    let b_end = (b.len() - suffix + 3).min(b.len());
    let mut out = format!(
        "--- a/{path}\n+++ b/{path}\n@@ -{},{} +{},{} @@\n",
        start + 1,
        a_end - start,
        start + 1,
        b_end - start
    );
    let line = |sign: char, l: &str, out: &mut String| {
        out.push(sign);
        out.push_str(l.trim_end_matches(['\n', '\r']));
        out.push('\n');
    };
    for l in &a[start..prefix] {
        line(' ', l, &mut out);
    }
    // The changed middle, aligned line by line (longest common subsequence),
    // so unchanged lines between two fixes stay context.
    let (mid_a, mid_b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if mid_a.len().saturating_mul(mid_b.len()) <= 4_000_000 {
        let mut lcs = vec![vec![0u32; mid_b.len() + 1]; mid_a.len() + 1];
        for i in (0..mid_a.len()).rev() {
            for j in (0..mid_b.len()).rev() {
                lcs[i][j] = if mid_a[i] == mid_b[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < mid_a.len() || j < mid_b.len() {
            if i < mid_a.len() && j < mid_b.len() && mid_a[i] == mid_b[j] {
                line(' ', mid_a[i], &mut out);
                i += 1;
                j += 1;
            } else if i < mid_a.len() && (j == mid_b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
                line('-', mid_a[i], &mut out);
                i += 1;
            } else {
                line('+', mid_b[j], &mut out);
                j += 1;
            }
        }
    } else {
        for l in mid_a {
            line('-', l, &mut out);
        }
        for l in mid_b {
            line('+', l, &mut out);
        }
    }
    for l in &a[a.len() - suffix..a_end] {
        line(' ', l, &mut out);
    }
    out
}
