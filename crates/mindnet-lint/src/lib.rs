//! The graph linter (LNT-1 … LNT-5): findings about the edges authors
//! write, on the files alone (no index needed). Each finding has a stable rule id, a
//! severity, a path, a line and a column, and a message in German or
//! English.
//!
//! `lint_vault` reads and parses every note once (in parallel), resolves
//! links like the importer, then runs the link checks (`links.rs`), the
//! spelling check (`names.rs`), the unlinked mentions (`mentions.rs`) and
//! the chain checks (`chains.rs`).

mod chain;
mod chains;
mod config;
mod fix;
mod lexicon;
mod links;
mod mentions;
mod names;
mod parsed;

pub use chain::{
    ChainDirection, ChainNode, ChainNote, ChainPreview, Step, chain_of, chain_preview,
};
pub use config::{LintConfig, RULES};
pub use fix::{FileFix, Fix, FixError, FixOptions, plan_fixes, unified_diff, write_fix};

use mindnet_core::lookup::{self, NoteNames};
use mindnet_core::{Status, Warning};
use mindnet_ingest::names::LangVotes;
use mindnet_ingest::parse::ParsedNote;
use mindnet_ingest::resolve::{NoteEntry, Resolution, Resolver};
use mindnet_ingest::scan::scan_vault;
use mindnet_ingest::{Config, IngestError};
use rayon::prelude::*;
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Recommendation,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Recommendation => "recommendation",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "recommendation" => Ok(Severity::Recommendation),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(format!(
                "unknown severity `{other}` (error, warning, recommendation)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    De,
    En,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    /// Its safe fix, when asked for (`LintOptions::fixes`) and there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<FindingFix>,
}

/// The safe fix of one finding: what `plan_fixes` for its note, at `line`
/// and `column`, writes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct FindingFix {
    pub line: usize,
    pub column: usize,
    pub what: String,
    /// The version of the note's file it was planned on.
    pub version: String,
}

#[derive(Debug, Default, Serialize)]
pub struct LintReport {
    pub notes: usize,
    /// The vault's language: given, or detected from the notes.
    pub lang: Lang,
    pub findings: Vec<Finding>,
    /// Files that could not be read (binary, too large, …).
    pub skipped: Vec<Warning>,
}

impl LintReport {
    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

/// A message in both languages; the finding picks its note's.
pub(crate) struct Msg {
    de: String,
    en: String,
}

impl Msg {
    pub fn new(de: impl Into<String>, en: impl Into<String>) -> Self {
        Msg {
            de: de.into(),
            en: en.into(),
        }
    }

    /// This message followed by `more`.
    pub fn then(mut self, more: Msg) -> Self {
        self.de.push_str(&more.de);
        self.en.push_str(&more.en);
        self
    }

    fn pick(self, lang: Lang) -> String {
        match lang {
            Lang::De => self.de,
            Lang::En => self.en,
        }
    }
}

impl Lang {
    /// `de`, `de-AT`, `en`, `en_GB`, …; other languages get `None`.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let t = tag.trim().to_lowercase();
        let primary = t.split(['-', '_']).next().unwrap_or_default();
        match primary {
            "de" => Some(Lang::De),
            "en" => Some(Lang::En),
            _ => None,
        }
    }
}

/// The language most of the notes are written in, by their function words
/// (a few hundred words of each note suffice).
fn detect_lang(notes: &[Note]) -> Lang {
    let (de, en) = notes
        .iter()
        .fold((0, 0), |(de, en), n| (de + n.votes.de, en + n.votes.en));
    if en > de { Lang::En } else { Lang::De }
}

/// One parsed note and what the checks need of it.
pub(crate) struct Note {
    /// Its `lang:`, else the vault's: the language of its findings.
    pub lang: Option<Lang>,
    /// Its function words, counted once when read (the vault's language
    /// and the mention matcher's both come from them).
    pub votes: LangVotes,
    /// Its id as the import gives it (frontmatter `id`, else from the path).
    pub id: String,
    pub path: String,
    pub title: String,
    pub aliases: Vec<String>,
    pub note_type: String,
    pub text: Arc<str>,
    pub parsed: Arc<ParsedNote>,
    pub ignore: Vec<String>,
    /// False for `status: template` and `status: system`.
    pub indexed: bool,
}

impl Note {
    /// 1-based column of a byte offset (in characters).
    pub fn column(&self, offset: usize) -> usize {
        let lines = &self.parsed.lines;
        let start = lines.start(lines.line(offset));
        self.text
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1)
    }
}

/// A link of a note, resolved.
pub(crate) struct LinkRef<'a> {
    pub note: usize,
    pub link: &'a mindnet_ingest::parse::Link,
    pub target: Option<usize>,
    pub outside: bool,
}

pub(crate) struct Vault<'a> {
    pub notes: Vec<Note>,
    pub config: &'a Config,
    pub lang: Lang,
    /// File names (lower case, without `.md`) of notes that exist but could
    /// not be read (binary, too large): a link to one is not "missing", and
    /// the skip itself is reported.
    pub unreadable: std::collections::HashSet<String>,
    /// The real words of the vault's language.
    pub real: lexicon::RealWords,
    /// The one note whose findings are asked for (an editor's pane): rules
    /// that read every note's text read only this one's.
    pub only: Option<usize>,
}

impl Vault<'_> {
    /// Whether the findings of note `i` are asked for.
    pub(crate) fn asked(&self, i: usize) -> bool {
        self.only.is_none_or(|o| o == i)
    }
}

/// The lower-case file names of skipped files.
pub(crate) fn unreadable(skipped: &[Warning]) -> std::collections::HashSet<String> {
    skipped
        .iter()
        .filter_map(|w| Path::new(&w.path).file_stem())
        .map(|s| s.to_string_lossy().to_lowercase())
        .collect()
}

/// A lint note's names, as `mindnet_core::lookup` reads them.
pub(crate) fn names(n: &Note) -> NoteNames<'_> {
    NoteNames {
        id: &n.id,
        path: &n.path,
        title: &n.title,
        aliases: &n.aliases,
    }
}

impl Vault<'_> {
    /// The note `key` names, or `LintError::NotFound`.
    pub fn find_note(&self, key: &str) -> Result<&Note, LintError> {
        lookup::find_note(&self.notes, key, names)
            .ok_or_else(|| LintError::NotFound(key.to_string()))
    }

    pub fn msg(&self, de: String, en: String) -> Msg {
        Msg::new(de, en)
    }

    /// A finding in a note, in the note's language.
    pub fn finding(&self, note: usize, offset: usize, rule: &'static str, message: Msg) -> Finding {
        let n = &self.notes[note];
        let message = message.pick(n.lang.unwrap_or(self.lang));
        Finding {
            path: n.path.clone(),
            line: n.parsed.lines.line(offset),
            column: n.column(offset),
            rule,
            severity: Severity::Warning,
            message,
            fix: None,
        }
    }
}

/// Why a lint or a chain preview could not run.
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    #[error(transparent)]
    Ingest(#[from] IngestError),
    #[error("no note `{0}` in the vault (give {how})", how = mindnet_core::lookup::HOW_TO_NAME)]
    NotFound(String),
}

#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// The vault's language (for notes without `lang:`); `None`: detected.
    pub lang: Option<Lang>,
    /// Only report findings in this note (named as `mindnet_core::lookup`
    /// reads a name).
    pub note: Option<String>,
    pub max_note_bytes: u64,
    /// Each finding with its safe fix, where the linter has one.
    pub fixes: bool,
}

/// Reads and parses every indexed note of the vault, in parallel.
fn load_notes(
    root: &Path,
    config: &Config,
    max_note_bytes: u64,
) -> Result<(Vec<Note>, Vec<Warning>), IngestError> {
    let scan = scan_vault(root)?;
    let max = if max_note_bytes == 0 {
        mindnet_ingest::source::DEFAULT_MAX_NOTE_BYTES
    } else {
        max_note_bytes
    };
    let read: Vec<Result<Note, Warning>> = parsed::read_all(root, &scan.files, max)
        .into_iter()
        .zip(&scan.files)
        .map(|(r, f)| {
            let p = r?;
            let fm = &p.parsed.frontmatter;
            let title = mindnet_ingest::plan::note_title(fm.title.as_deref(), &f.rel_path);
            let (note_type, _) = config
                .registry
                .resolve_type(fm.note_type.as_deref(), &f.rel_path);
            Ok(Note {
                lang: fm.lang.as_deref().and_then(Lang::from_tag),
                votes: p.votes,
                id: fm
                    .id
                    .clone()
                    .unwrap_or_else(|| mindnet_core::ids::note_id_for_path(&f.rel_path)),
                path: f.rel_path.clone(),
                title,
                aliases: fm.aliases.clone(),
                note_type,
                ignore: fm.lint_ignore.clone(),
                indexed: fm
                    .status
                    .as_deref()
                    .and_then(Status::parse)
                    .is_none_or(Status::is_indexed),
                text: p.text.clone(),
                parsed: p.parsed.clone(),
            })
        })
        .collect();
    let mut notes = Vec::new();
    let mut skipped = Vec::new();
    for r in read {
        match r {
            // Templates and system notes are not part of the graph (as in
            // the import): their placeholders are not findings.
            Ok(n) if !n.indexed => {}
            Ok(n) => notes.push(n),
            Err(w) => skipped.push(w),
        }
    }
    Ok((notes, skipped))
}

/// The vault's notes as the resolver and the mention matcher know them,
/// in the vault's order (an entry's index is its note's).
pub(crate) fn entries(vault: &Vault<'_>) -> Vec<NoteEntry> {
    vault
        .notes
        .iter()
        .map(|n| NoteEntry {
            note_id: n.path.clone(),
            rel_path: n.path.clone(),
            title: n.title.clone(),
            aliases: n.parsed.frontmatter.aliases.clone(),
            note_type: n.note_type.clone(),
        })
        .collect()
}

/// Every link of every note, resolved as the importer resolves it, in
/// note order (the notes are resolved in parallel).
fn resolve_links<'a>(vault: &'a Vault<'_>) -> Vec<LinkRef<'a>> {
    let resolver = &Resolver::new(entries(vault));
    vault
        .notes
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, n)| {
            n.parsed.links.iter().map(move |l| {
                let (target, outside) = if l.parts.target.is_empty() {
                    (Some(i), false)
                } else {
                    match resolver.resolve(&l.parts.target, &n.path) {
                        Resolution::Note(j) => (Some(j), false),
                        Resolution::Unresolved => (None, false),
                        Resolution::OutsideVault => (None, true),
                    }
                };
                LinkRef {
                    note: i,
                    link: l,
                    target,
                    outside,
                }
            })
        })
        .collect()
}

pub fn lint_vault(
    root: &Path,
    config: &Config,
    lint: &LintConfig,
    opts: &LintOptions,
) -> Result<LintReport, LintError> {
    let started = std::time::Instant::now();
    let (notes, skipped) = load_notes(root, config, opts.max_note_bytes)?;
    tracing::debug!(
        "lint: {} notes read in {:?}",
        notes.len(),
        started.elapsed()
    );
    let mut report = LintReport {
        notes: notes.len(),
        skipped,
        ..Default::default()
    };
    let lang = opts.lang.unwrap_or_else(|| detect_lang(&notes));
    report.lang = lang;
    let mut vault = Vault {
        notes,
        config,
        lang,
        unreadable: unreadable(&report.skipped),
        real: lexicon::RealWords::new(lint.word_lists(lang).to_vec()),
        only: None,
    };
    if let Some(key) = &opts.note {
        let path = vault.find_note(key)?.path.clone();
        vault.only = vault.notes.iter().position(|n| n.path == path);
    }
    let links = resolve_links(&vault);

    // The checks are independent: each one's serial part runs beside the
    // others' parallel parts.
    let ((mut findings, spelling), (mentioned, chained)) = rayon::join(
        || {
            rayon::join(
                || links::check(&vault, &links),
                || names::check(&vault, &links),
            )
        },
        || {
            rayon::join(
                || {
                    lint.severity(mentions::RULE)
                        .map_or_else(Vec::new, |_| mentions::check(&vault, &links))
                },
                || chains::check(&vault, &links),
            )
        },
    );
    findings.extend(spelling);
    findings.extend(mentioned);
    findings.extend(chained);
    tracing::debug!("lint: read and checked in {:?}", started.elapsed());

    // Severities from the config; rules switched off globally or per note.
    let ignored: std::collections::HashMap<&str, &[String]> = vault
        .notes
        .iter()
        .map(|n| (n.path.as_str(), n.ignore.as_slice()))
        .collect();
    report.findings = findings
        .into_iter()
        .filter_map(|mut f| {
            f.severity = lint.severity(f.rule)?;
            if ignored
                .get(f.path.as_str())
                .is_some_and(|rules| rules.iter().any(|r| r == f.rule))
            {
                return None;
            }
            if vault.only.is_some_and(|i| vault.notes[i].path != f.path) {
                return None;
            }
            Some(f)
        })
        .collect();
    if opts.fixes {
        fix::attach(root, &vault, &links, &mut report.findings);
    }
    // Freeing every parsed note is a tenth of a second at 100,000 notes:
    // a pool thread does it while the findings are sorted (and a CLI may
    // exit before it is done).
    drop((ignored, links));
    let Vault { notes, real, .. } = vault;
    rayon::spawn(move || drop((notes, real)));
    report.findings.sort();
    report.findings.dedup();
    Ok(report)
}
