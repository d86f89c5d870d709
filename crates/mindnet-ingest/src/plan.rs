//! The import plan: the whole vault as `NoteBundle`s, in path order, plus
//! everything that was skipped or repaired on the way. Building it touches
//! no store; `mindnet import --dry-run` prints it.

use crate::IngestError;
use crate::chunk::{ChunkDraft, chunk_note};
use crate::derive::{ChunkSpan, Deriver, NoteContext};
use crate::mentions::MentionIndex;
use crate::names::note_names;
use crate::parse::{ParsedNote, parse};
use crate::resolve::{NoteEntry, Resolver};
use crate::scan::scan_vault;
use crate::source::{DEFAULT_MAX_NOTE_BYTES, SourceText, content_hash, read_source};
use mindnet_core::ids::{chunk_id, note_id_for_path};
use mindnet_core::{Chunk, EdgeVocabulary, Note, NoteBundle, Status, TypeRegistry, Warning};
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

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

pub fn plan_vault(
    root: &Path,
    config: &Config,
    opts: &ImportOptions,
) -> Result<ImportPlan, IngestError> {
    let mut plan = ImportPlan::default();
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

    let t = Instant::now();
    let read: Vec<Result<SourceText, Warning>> = files
        .par_iter()
        .map(|f| read_source(f, opts.max_note_bytes))
        .collect();
    plan.timings.read = t.elapsed();
    let mut sources = Vec::with_capacity(read.len());
    for r in read {
        match r {
            Ok(s) => sources.push(s),
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
    Ok(plan_sources(sources, config, opts, plan))
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
    let parsed: Vec<(SourceText, ParsedNote)> = sources
        .into_par_iter()
        .map(|s| {
            let p = parse(&s.text);
            (s, p)
        })
        .collect();
    plan.timings.parse = t.elapsed();

    let mut prepared = Vec::with_capacity(parsed.len());
    let mut seen_ids = HashSet::new();
    for (source, parsed) in parsed {
        let mut warnings = source.warnings.clone();
        warnings.extend(
            parsed
                .issues
                .iter()
                .map(|i| Warning::new(&source.file.rel_path, i.line, &i.message)),
        );
        let note = build_note(&source, &parsed, config, opts, &mut warnings, &mut seen_ids);
        plan.warnings.extend(warnings);
        if !note.status.is_indexed() {
            plan.skipped.push(Skipped {
                path: note.path.clone(),
                reason: format!("status `{}` is never indexed", note.status),
                by_status: true,
            });
            continue;
        }
        prepared.push(Prepared {
            source,
            parsed,
            note,
        });
    }

    let mut entries: Vec<NoteEntry> = prepared
        .iter()
        .map(|p| NoteEntry {
            note_id: p.note.note_id.clone(),
            rel_path: p.note.path.clone(),
            title: p.note.title.clone(),
            aliases: p.note.aliases.clone(),
            note_type: p.note.note_type.clone(),
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
    let rules = config.vocab.names();
    let mention_index = MentionIndex::new(resolver.notes(), rules);

    let t = Instant::now();
    let drafts: Vec<Vec<ChunkDraft>> = prepared
        .par_iter()
        .map(|p| {
            let profile = config.registry.profile(&p.note.chunk_profile);
            chunk_note(&p.source.text, &p.parsed, &p.note.title, profile)
        })
        .collect();
    plan.timings.chunk = t.elapsed();

    let t = Instant::now();
    let deriver = Deriver {
        resolver: &resolver,
        registry: &config.registry,
        vocab: &config.vocab,
    };
    let derived: Vec<(NoteBundle, Vec<Warning>)> = prepared
        .into_par_iter()
        .zip(drafts)
        .map(|(mut p, drafts)| {
            let chunks = chunks_of(&p.note, &drafts);
            let text = &p.source.text;
            // The endings and case rules of the note's own language: its
            // `lang:`, else what its words say, else the import's default.
            let lang = match p.parsed.frontmatter.lang.as_deref() {
                Some(l) => l,
                None => crate::names::detect_lang(text).unwrap_or(&p.note.lang),
            };
            let mentions = mention_index.find(text, &p.parsed.prose, rules, lang);
            let names = note_names(text, &p.parsed.prose, &p.note.title, rules, lang);
            p.note.names = names.whole;
            p.note.name_parts = names.parts;
            let spans: Vec<ChunkSpan> = chunks
                .iter()
                .zip(&drafts)
                .map(|(c, d)| ChunkSpan {
                    chunk_id: c.chunk_id.clone(),
                    range: d.range.clone(),
                })
                .collect();
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
        })
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

fn build_note(
    source: &SourceText,
    parsed: &ParsedNote,
    config: &Config,
    opts: &ImportOptions,
    warnings: &mut Vec<Warning>,
    seen_ids: &mut HashSet<String>,
) -> Note {
    let fm = &parsed.frontmatter;
    let path = source.file.rel_path.clone();
    let mut warn = |line: usize, msg: String| warnings.push(Warning::new(&path, line, msg));

    let path_id = note_id_for_path(&path);
    let note_id = match &fm.id {
        Some(id) if seen_ids.contains(id) => {
            warn(
                fm.line_of("id"),
                format!(
                    "id `{id}` is already used by another note; this note keeps its path-based id"
                ),
            );
            path_id
        }
        Some(id) => id.clone(),
        None => path_id,
    };
    seen_ids.insert(note_id.clone());

    let title = note_title(fm.title.as_deref(), &path);

    let (note_type, _) = config.registry.resolve_type(fm.note_type.as_deref(), &path);
    if !config.registry.is_known(&note_type) {
        warn(
            fm.line_of("type"),
            format!(
                "unknown type `{note_type}`; it gets the settings of `{}`",
                config.registry.default_type
            ),
        );
    }
    let type_config = config.registry.config(&note_type);

    let status = match fm.status.as_deref() {
        None => Status::Active,
        Some(s) => Status::parse(s).unwrap_or_else(|| {
            let known: Vec<_> = Status::ALL.iter().map(|s| s.as_str()).collect();
            warn(
                fm.line_of("status"),
                format!(
                    "unknown status `{s}` (known: {}); treated as draft",
                    known.join(", ")
                ),
            );
            Status::Draft
        }),
    };

    let mut tags = fm.tags.clone();
    tags.extend(parsed.tags.iter().cloned());
    tags.sort();
    tags.dedup();

    Note {
        note_id,
        title,
        note_type,
        status,
        tags,
        aliases: fm.aliases.clone(),
        created: fm.created.clone(),
        updated: fm.updated.clone(),
        lang: fm.lang.clone().unwrap_or_else(|| opts.lang.clone()),
        retriever_weight: type_config.retriever_weight,
        chunk_profile: type_config.chunk_profile.clone(),
        edge_defaults: type_config.edge_defaults.clone(),
        path: source.file.rel_path.clone(),
        hash: content_hash(&source.text),
        fulltext: source.text.clone(),
        names: Vec::new(),
        name_parts: Vec::new(),
    }
}

fn chunks_of(note: &Note, drafts: &[ChunkDraft]) -> Vec<Chunk> {
    let ids: Vec<String> = (1..=drafts.len())
        .map(|ord| chunk_id(&note.note_id, ord))
        .collect();
    drafts
        .iter()
        .enumerate()
        .map(|(i, d)| Chunk {
            chunk_id: ids[i].clone(),
            note_id: note.note_id.clone(),
            ord: i + 1,
            note_type: note.note_type.clone(),
            text: d.text.clone(),
            window: d.window.clone(),
            section: d.section.clone(),
            retriever_weight: note.retriever_weight,
            chunk_profile: note.chunk_profile.clone(),
            neighbors_prev: i
                .checked_sub(1)
                .map(|p| ids[p].clone())
                .into_iter()
                .collect(),
            neighbors_next: ids.get(i + 1).cloned().into_iter().collect(),
            status: note.status,
        })
        .collect()
}
