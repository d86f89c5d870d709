//! The vault's tags with their counts, from the index's catalog: what an
//! author or an assistant reads to learn a vault's topics before filtering
//! a search by tag.

use crate::api::*;
use crate::{AppError, Workspace};
use std::collections::{BTreeMap, BTreeSet};

impl Workspace {
    /// Every tag (or every tag under `prefix`, case-insensitive) with the
    /// number of notes that carry it, most used first.
    pub fn tags(&self, req: &TagsRequest) -> Result<TagsResponse, AppError> {
        let prefix = req.prefix.as_deref().map(str::to_lowercase);
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let store = self.read();
        let catalog = store.catalog()?;
        for note in catalog.iter() {
            let tags: BTreeSet<&String> = note.tags.iter().collect();
            for tag in tags {
                if prefix
                    .as_deref()
                    .is_none_or(|p| tag.to_lowercase().starts_with(p))
                {
                    *counts.entry(tag.clone()).or_default() += 1;
                }
            }
        }
        let mut tags: Vec<TagCount> = counts
            .into_iter()
            .map(|(tag, notes)| TagCount { tag, notes })
            .collect();
        tags.sort_by(|a, b| b.notes.cmp(&a.notes).then_with(|| a.tag.cmp(&b.tag)));
        Ok(TagsResponse { tags })
    }
}
