//! A parsed source as a note and its chunks: the id it claims, the title,
//! the chunk ids.

use super::Config;
use super::ImportOptions;
use super::note_title;
use crate::chunk::ChunkDraft;
use crate::parse::ParsedNote;
use crate::source::SourceText;
use crate::source::content_hash;
use mindnet_core::Chunk;
use mindnet_core::Note;
use mindnet_core::Status;
use mindnet_core::Warning;
use mindnet_core::ids::chunk_id;
use mindnet_core::ids::note_id_for_path;
/// The note of a parsed source, with the id it claims (`id:`, whose line
/// is returned) or its path's id.
pub(super) fn build_note(
    source: &SourceText,
    parsed: &ParsedNote,
    config: &Config,
    opts: &ImportOptions,
    warnings: &mut Vec<Warning>,
) -> (Note, Option<usize>) {
    let fm = &parsed.frontmatter;
    let path = source.file.rel_path.clone();
    let mut warn = |line: usize, msg: String| warnings.push(Warning::new(&path, line, msg));

    let (note_id, claimed_at) = match &fm.id {
        Some(id) => (id.clone(), Some(fm.line_of("id"))),
        None => (note_id_for_path(&path), None),
    };

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

    let note = Note {
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
    };
    (note, claimed_at)
}

pub(super) fn chunks_of(note: &Note, drafts: &[ChunkDraft]) -> Vec<Chunk> {
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
