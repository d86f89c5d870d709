//! The import's two-pass planner: identities first, bundles of a few notes
//! on demand.

use super::Candidate;
use super::Config;
use super::ImportOptions;
use super::ImportPlan;
use super::Names;
use super::Prepared;
use super::candidate;
use super::derive_note;
use super::draft;
use super::readable;
use super::settle;
use super::vault_files;
use crate::IngestError;
use crate::parse::parse;
use crate::scan::SourceFile;
use crate::source::content_hash;
use crate::source::read_source;
use mindnet_core::Note;
use mindnet_core::NoteBundle;
use mindnet_core::Warning;
use rayon::iter::IntoParallelRefIterator;
use rayon::iter::ParallelIterator;
use std::path::Path;
use std::time::Instant;
/// A vault planned in two passes, so that a large one is never in memory
/// whole: `new` reads every note once and keeps its identity (id, title,
/// names: what links resolve against) but not its text; `bundles` reads a
/// few notes again and plans their chunks and edges. A note planned so is
/// the note `plan_vault` plans, byte for byte, unless its file changed in
/// between (then it is planned as it reads now; the file's new time
/// stamp sends the next import to it again).
pub struct Planner<'c> {
    config: &'c Config,
    max_note_bytes: u64,
    /// In path order: each note's file and its note without its text.
    notes: Vec<(SourceFile, Note)>,
    names: Names,
    /// Files that are not indexed, and the warnings of reading them
    /// (`bundles` gives the warnings of planning a note).
    pub plan: ImportPlan,
}

/// One note of `Planner::bundles`.
pub enum Planned {
    Bundle {
        bundle: Box<NoteBundle>,
        warnings: Vec<Warning>,
    },
    /// Its file can no longer be read.
    Unreadable(Warning),
}

impl<'c> Planner<'c> {
    pub fn new(
        root: &Path,
        config: &'c Config,
        opts: &ImportOptions,
    ) -> Result<Planner<'c>, IngestError> {
        let mut plan = ImportPlan::default();
        let mut files = vault_files(root, opts, &mut plan)?;
        files.sort();
        let t = Instant::now();
        let read: Vec<Result<Candidate<SourceFile>, Warning>> = files
            .par_iter()
            .map(|f| {
                let c = candidate(read_source(f, opts.max_note_bytes)?, config, opts);
                Ok(Candidate {
                    held: c.held.0.file,
                    note: Note {
                        fulltext: String::new(),
                        ..c.note
                    },
                    claimed_at: c.claimed_at,
                    warnings: c.warnings,
                })
            })
            .collect();
        plan.timings.parse = t.elapsed();
        let candidates = readable(read, &mut plan);
        let notes = settle(candidates, &mut plan);
        let names = Names::new(notes.iter().map(|(_, n)| n), config, opts, &plan);
        plan.warnings.sort();
        plan.warnings.dedup();
        plan.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Planner {
            config,
            max_note_bytes: opts.max_note_bytes,
            notes,
            names,
            plan,
        })
    }

    /// The notes to plan, in path order, without their text, names and
    /// name parts (those come with `bundles`).
    pub fn notes(&self) -> impl ExactSizeIterator<Item = &Note> {
        self.notes.iter().map(|(_, n)| n)
    }

    /// The bundles of the notes at these places of `notes()`, in parallel.
    pub fn bundles(&self, which: &[usize]) -> Vec<Planned> {
        which
            .par_iter()
            .filter_map(|&i| self.notes.get(i))
            .map(|(file, note)| {
                let source = match read_source(file, self.max_note_bytes) {
                    Ok(s) => s,
                    Err(w) => return Planned::Unreadable(w),
                };
                let note = Note {
                    hash: content_hash(&source.text),
                    fulltext: source.text.clone(),
                    ..note.clone()
                };
                let parsed = parse(&source.text);
                let p = Prepared {
                    source,
                    parsed,
                    note,
                };
                let drafts = draft(&p, self.config);
                let (bundle, warnings) = derive_note(p, &drafts, &self.names, self.config);
                Planned::Bundle {
                    bundle: Box::new(bundle),
                    warnings,
                }
            })
            .collect()
    }
}
