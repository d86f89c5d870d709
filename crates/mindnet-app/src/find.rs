//! Finding a note as a person names it: id, vault path, file name, title
//! or alias (`mindnet_core::lookup`), in the index's catalog.

use crate::AppError;
use mindnet_core::lookup;
use mindnet_store::{NoteState, Store};

/// The note `key` names.
pub(crate) fn find_note(store: &dyn Store, key: &str) -> Result<NoteState, AppError> {
    let catalog = store.catalog()?;
    if let Some(n) = catalog.get(key) {
        return Ok(n.clone());
    }
    lookup::find_note(catalog.iter(), key, note_names)
        .cloned()
        .ok_or_else(|| {
            AppError::not_found(format!(
                "no note `{key}` in the index (give {})",
                lookup::HOW_TO_NAME
            ))
        })
}

/// An indexed note's names, as `mindnet_core::lookup` reads them.
pub(crate) fn note_names(n: &NoteState) -> lookup::NoteNames<'_> {
    lookup::NoteNames {
        id: &n.note_id,
        path: &n.path,
        title: &n.title,
        aliases: &n.aliases,
    }
}
