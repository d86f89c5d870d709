//! Embedding a batch of notes in one call of the embedder, and the vectors
//! the smart edges of the batch compare.

use super::Pending;
use super::SyncError;
use super::smart;
use mindnet_core::Chunk;
use mindnet_core::NoteBundle;
use mindnet_embed::Embedder;
use std::collections::HashMap;
/// The vectors of a batch's notes (`None` for a relinked note, whose chunks
/// are kept), from one call of the embedder for all their windows: a batch
/// of one-chunk notes keeps every core busy, where a call per note used one.
/// When that call fails, the notes are embedded one by one, so a failure
/// names the file at fault and the others still get their vectors.
pub(super) fn embed_batch(
    embedder: &dyn Embedder,
    batch: &[Pending],
) -> Result<Vec<Option<Vec<Vec<f32>>>>, SyncError> {
    fn wanted(p: &Pending) -> Option<&NoteBundle> {
        p.embed.then_some(&p.bundle)
    }
    fn windows(b: &NoteBundle) -> Vec<&str> {
        b.chunks.iter().map(|c| c.window.as_str()).collect()
    }
    let all: Vec<&str> = batch.iter().filter_map(wanted).flat_map(windows).collect();
    if let Ok(vectors) = embedder.embed_passages(&all)
        && vectors.len() == all.len()
    {
        let mut vectors = vectors.into_iter();
        return Ok(batch
            .iter()
            .map(|p| wanted(p).map(|b| vectors.by_ref().take(b.chunks.len()).collect()))
            .collect());
    }
    batch
        .iter()
        .map(|p| {
            wanted(p)
                .map(|b| {
                    embedder
                        .embed_passages(&windows(b))
                        .map_err(|source| SyncError::Embed {
                            path: b.note.path.clone(),
                            source,
                        })
                })
                .transpose()
        })
        .collect()
}

/// The vectors smart edges compare: a batch's own chunk vectors (embedded
/// again only for a relinked note), and the linked notes' titles, each
/// embedded once per sync.
pub(super) struct BatchVectors<'a> {
    pub(super) chunks: &'a [Chunk],
    pub(super) vectors: Option<&'a [Vec<f32>]>,
    pub(super) embedder: &'a dyn Embedder,
    pub(super) titles: &'a mut HashMap<String, Vec<f32>>,
}

impl smart::Vectors for BatchVectors<'_> {
    fn chunk(&mut self, i: usize) -> Result<Vec<f32>, String> {
        if let Some(v) = self.vectors.and_then(|v| v.get(i)) {
            return Ok(v.clone());
        }
        let window = self.chunks.get(i).map_or("", |c| c.window.as_str());
        let mut v = self
            .embedder
            .embed_passages(&[window])
            .map_err(|e| e.to_string())?;
        Ok(v.pop().unwrap_or_default())
    }

    fn title(&mut self, title: &str) -> Result<Vec<f32>, String> {
        if let Some(v) = self.titles.get(title) {
            return Ok(v.clone());
        }
        let v = self
            .embedder
            .embed_passages(&[title])
            .map_err(|e| e.to_string())?
            .pop()
            .unwrap_or_default();
        self.titles.insert(title.to_string(), v.clone());
        Ok(v)
    }
}
