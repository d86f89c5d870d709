//! The import plan: the whole vault as `NoteBundle`s, in path order, plus
//! everything that was skipped or repaired on the way. Building it touches
//! no store; `mindnet import --dry-run` prints it.
//!
//! Here: the options, the plan and the passes every note goes through.
//! `planner.rs` is the import's two-pass form of the same, `note.rs` builds
//! a note and its chunks.

use crate::IngestError;
use crate::chunk::{ChunkDraft, chunk_note};
use crate::derive::{ChunkSpan, Deriver, NoteContext};
use crate::mentions::MentionIndex;
use crate::names::note_names;
use crate::parse::{ParsedNote, parse};
use crate::plan::note::build_note;
use crate::plan::note::chunks_of;
use crate::resolve::{NoteEntry, Resolver};
use crate::scan::{SourceFile, scan_vault};
use crate::source::{DEFAULT_MAX_NOTE_BYTES, SourceText, read_source};
use mindnet_core::ids::note_id_for_path;
use mindnet_core::{EdgeVocabulary, Note, NoteBundle, TypeRegistry, Warning};
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

mod note;
mod planner;

pub use planner::{Planned, Planner};

/// The configuration files an import runs with.
#[derive(Debug, Clone)]
pub struct Config {
    pub registry: TypeRegistry,
    pub vocab: EdgeVocabulary,
}

impl Config {
    pub fn builtin() -> Self {
        let vocab = EdgeVocabulary::builtin();
        Config {
            registry: TypeRegistry::builtin(&vocab),
            vocab,
        }
    }

    /// Changes whenever either file's text changes: an index built with
    /// another configuration must be checked note by note.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for text in [self.vocab.source(), &self.registry.source] {
            h.update((text.len() as u64).to_le_bytes());
            h.update(text.as_bytes());
        }
        mindnet_core::ids::hex(&h.finalize())
    }
}

/// The version of the rules that turn files into notes, chunks and edges.
/// Bumped when they change (2: titles are file names, not H1s; 3: `../`
/// links read from the linking note's folder; 4: mention edges and the
/// names notes share), so an
/// index built under older rules is planned again note by note on the next
/// import, and the notes whose output changed are rewritten.
pub const DERIVATION: u32 = 4;

/// A note's title as Obsidian reads it: the frontmatter `title`, else the
/// file name without `.md`. The first `# H1` is a heading like any other
/// (part of the section path, embedded with the text): real vaults have
/// hundreds of notes whose H1 is "Todo" or "Example".
pub fn note_title(frontmatter_title: Option<&str>, rel_path: &str) -> String {
    frontmatter_title
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| {
            Path::new(rel_path).file_stem().map_or_else(
                || rel_path.to_string(),
                |s| s.to_string_lossy().into_owned(),
            )
        })
}

#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Language of notes without a `lang:` field.
    pub lang: String,
    pub max_note_bytes: u64,
    /// Test hook: read the files in a shuffled order. The plan must not change.
    pub shuffle_seed: Option<u64>,
    /// Notes that exist in the index but not on disk (kept when deletes are
    /// not synced), or that are not planned this time: links to them still
    /// resolve.
    pub known_notes: Vec<NoteEntry>,
    /// Plan only these files (vault-relative, `/`-separated); `None`: all.
    pub only: Option<std::collections::BTreeSet<String>>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            lang: "de".into(),
            max_note_bytes: DEFAULT_MAX_NOTE_BYTES,
            shuffle_seed: None,
            known_notes: Vec::new(),
            only: None,
        }
    }
}

/// Wall-clock time per stage, for `mindnet bench ingest`.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    pub scan: Duration,
    pub read: Duration,
    pub parse: Duration,
    pub chunk: Duration,
    pub derive: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
    /// True when the note was read and is excluded by its status: it must
    /// leave the index. False when the file could not be read: whatever the
    /// index holds of it is kept.
    pub by_status: bool,
}

#[derive(Debug, Default)]
pub struct ImportPlan {
    pub bundles: Vec<NoteBundle>,
    /// Files that are not indexed: `system`/`template` notes, and bad files.
    pub skipped: Vec<Skipped>,
    /// Sorted by path and line.
    pub warnings: Vec<Warning>,
    pub timings: Timings,
}

impl ImportPlan {
    pub fn chunk_count(&self) -> usize {
        self.bundles.iter().map(|b| b.chunks.len()).sum()
    }

    pub fn edge_count(&self) -> usize {
        self.bundles.iter().map(|b| b.edges.len()).sum()
    }

    pub fn unresolved_count(&self) -> usize {
        self.bundles
            .iter()
            .flat_map(|b| &b.edges)
            .filter(|e| !e.resolved)
            .count()
    }
}

/// A parsed note with its identity settled, before chunking.
struct Prepared {
    source: SourceText,
    parsed: ParsedNote,
    note: Note,
}

/// A note read and parsed, its identity not yet settled against the
/// notes before it.
struct Candidate<T> {
    /// The source and its parse, or only the file (all a streamed plan
    /// keeps).
    held: T,
    note: Note,
    /// The frontmatter's `id:` line, when the note claims its id there.
    claimed_at: Option<usize>,
    warnings: Vec<Warning>,
}

/// The vault's note files: scanned (the scan's warnings go to the plan),
/// narrowed to `opts.only`, shuffled for the determinism test.
fn vault_files(
    root: &Path,
    opts: &ImportOptions,
    plan: &mut ImportPlan,
) -> Result<Vec<SourceFile>, IngestError> {
    let t = Instant::now();
    let scan = scan_vault(root)?;
    plan.timings.scan = t.elapsed();
    plan.warnings.extend(scan.warnings);
    let mut files = scan.files;
    if let Some(only) = &opts.only {
        files.retain(|f| only.contains(&f.rel_path));
    }
    if let Some(seed) = opts.shuffle_seed {
        mindnet_core::rng::Rng::new(seed).shuffle(&mut files);
    }
    Ok(files)
}

/// What could be read; each file that could not is skipped with its warning.
fn readable<T>(read: Vec<Result<T, Warning>>, plan: &mut ImportPlan) -> Vec<T> {
    let mut ok = Vec::with_capacity(read.len());
    for r in read {
        match r {
            Ok(x) => ok.push(x),
            Err(w) => {
                plan.skipped.push(Skipped {
                    path: w.path.clone(),
                    reason: w.message.clone(),
                    by_status: false,
                });
                plan.warnings.push(w);
            }
        }
    }
    ok
}

pub fn plan_vault(
    root: &Path,
    config: &Config,
    opts: &ImportOptions,
) -> Result<ImportPlan, IngestError> {
    let mut plan = ImportPlan::default();
    let files = vault_files(root, opts, &mut plan)?;
    let t = Instant::now();
    let read: Vec<Result<SourceText, Warning>> = files
        .par_iter()
        .map(|f| read_source(f, opts.max_note_bytes))
        .collect();
    plan.timings.read = t.elapsed();
    let sources = readable(read, &mut plan);
    Ok(plan_sources(sources, config, opts, plan))
}

/// Reads and parses a note and builds it, with the id it claims.
fn candidate(
    source: SourceText,
    config: &Config,
    opts: &ImportOptions,
) -> Candidate<(SourceText, ParsedNote)> {
    let parsed = parse(&source.text);
    let mut warnings = source.warnings.clone();
    warnings.extend(
        parsed
            .issues
            .iter()
            .map(|i| Warning::new(&source.file.rel_path, i.line, &i.message)),
    );
    let (note, claimed_at) = build_note(&source, &parsed, config, opts, &mut warnings);
    Candidate {
        held: (source, parsed),
        note,
        claimed_at,
        warnings,
    }
}

/// Settles each note's id in path order: an `id:` that an earlier note
/// already has gives way to the path's id. Then sets aside the notes whose
/// status is never indexed.
fn settle<T>(candidates: Vec<Candidate<T>>, plan: &mut ImportPlan) -> Vec<(T, Note)> {
    let mut seen = HashSet::new();
    let mut kept = Vec::with_capacity(candidates.len());
    for mut c in candidates {
        if let Some(line) = c.claimed_at
            && seen.contains(&c.note.note_id)
        {
            c.warnings.insert(
                0,
                Warning::new(
                    &c.note.path,
                    line,
                    format!(
                        "id `{}` is already used by another note; this note keeps its path-based id",
                        c.note.note_id
                    ),
                ),
            );
            c.note.note_id = note_id_for_path(&c.note.path);
        }
        seen.insert(c.note.note_id.clone());
        plan.warnings.append(&mut c.warnings);
        if !c.note.status.is_indexed() {
            plan.skipped.push(Skipped {
                path: c.note.path.clone(),
                reason: format!("status `{}` is never indexed", c.note.status),
                by_status: true,
            });
            continue;
        }
        kept.push((c.held, c.note));
    }
    kept
}

/// What planning one note needs from the rest of the vault: every note's
/// names, to resolve its links and find its mentions.
struct Names {
    resolver: Resolver,
    mentions: MentionIndex,
}

impl Names {
    fn new<'a>(
        notes: impl Iterator<Item = &'a Note>,
        config: &Config,
        opts: &ImportOptions,
        plan: &ImportPlan,
    ) -> Names {
        let mut entries: Vec<NoteEntry> = notes
            .map(|n| NoteEntry {
                note_id: n.note_id.clone(),
                rel_path: n.path.clone(),
                title: n.title.clone(),
                aliases: n.aliases.clone(),
                note_type: n.note_type.clone(),
            })
            .collect();
        let on_disk: HashSet<String> = entries.iter().map(|e| e.note_id.clone()).collect();
        // Unreadable files keep what the index has of them; status-skipped ones leave.
        let left: HashSet<&str> = plan
            .skipped
            .iter()
            .filter(|s| s.by_status)
            .map(|s| s.path.as_str())
            .collect();
        entries.extend(
            opts.known_notes
                .iter()
                .filter(|k| !on_disk.contains(&k.note_id) && !left.contains(k.rel_path.as_str()))
                .cloned(),
        );
        entries.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
        let resolver = Resolver::new(entries);
        let mentions = MentionIndex::new(resolver.notes(), config.vocab.names());
        Names { resolver, mentions }
    }
}

/// A note's chunks as its type's profile cuts them.
fn draft(p: &Prepared, config: &Config) -> Vec<ChunkDraft> {
    let profile = config.registry.profile(&p.note.chunk_profile);
    chunk_note(&p.source.text, &p.parsed, &p.note.title, profile)
}

/// A note's bundle: its chunks, names and edges.
fn derive_note(
    mut p: Prepared,
    drafts: &[ChunkDraft],
    names: &Names,
    config: &Config,
) -> (NoteBundle, Vec<Warning>) {
    let rules = config.vocab.names();
    let chunks = chunks_of(&p.note, drafts);
    let text = &p.source.text;
    // The endings and case rules of the note's own language: its
    // `lang:`, else what its words say, else the import's default.
    let lang = match p.parsed.frontmatter.lang.as_deref() {
        Some(l) => l,
        None => crate::names::detect_lang(text).unwrap_or(&p.note.lang),
    };
    let mentions = names.mentions.find(text, &p.parsed.prose, rules, lang);
    let found = note_names(text, &p.parsed.prose, &p.note.title, rules, lang);
    p.note.names = found.whole;
    p.note.name_parts = found.parts;
    let spans: Vec<ChunkSpan> = chunks
        .iter()
        .zip(drafts)
        .map(|(c, d)| ChunkSpan {
            chunk_id: c.chunk_id.clone(),
            range: d.range.clone(),
        })
        .collect();
    let deriver = Deriver {
        resolver: &names.resolver,
        registry: &config.registry,
        vocab: &config.vocab,
    };
    let d = deriver.derive(&NoteContext {
        note_id: &p.note.note_id,
        note_type: &p.note.note_type,
        rel_path: &p.note.path,
        chunks: &spans,
        links: &p.parsed.links,
        mentions: &mentions,
    });
    (
        NoteBundle {
            note: p.note,
            chunks,
            edges: d.edges,
        },
        d.warnings,
    )
}

/// Everything after reading: parse, identify, chunk, derive. Public so that
/// benchmarks can feed in-memory sources.
pub fn plan_sources(
    mut sources: Vec<SourceText>,
    config: &Config,
    opts: &ImportOptions,
    mut plan: ImportPlan,
) -> ImportPlan {
    // Everything below depends only on the set of files, never on read order.
    sources.sort_by(|a, b| a.file.rel_path.cmp(&b.file.rel_path));

    let t = Instant::now();
    let candidates: Vec<_> = sources
        .into_par_iter()
        .map(|s| candidate(s, config, opts))
        .collect();
    plan.timings.parse = t.elapsed();
    let prepared: Vec<Prepared> = settle(candidates, &mut plan)
        .into_iter()
        .map(|((source, parsed), note)| Prepared {
            source,
            parsed,
            note,
        })
        .collect();
    let names = Names::new(prepared.iter().map(|p| &p.note), config, opts, &plan);

    let t = Instant::now();
    let drafts: Vec<Vec<ChunkDraft>> = prepared.par_iter().map(|p| draft(p, config)).collect();
    plan.timings.chunk = t.elapsed();

    let t = Instant::now();
    let derived: Vec<(NoteBundle, Vec<Warning>)> = prepared
        .into_par_iter()
        .zip(drafts)
        .map(|(p, drafts)| derive_note(p, &drafts, &names, config))
        .collect();
    plan.timings.derive = t.elapsed();

    for (bundle, warnings) in derived {
        plan.warnings.extend(warnings);
        plan.bundles.push(bundle);
    }
    plan.warnings.sort();
    plan.warnings.dedup();
    plan.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    plan
}
