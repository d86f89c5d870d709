//! Building the HNSW index of the chunks, during a long import and after it.

use super::EmbeddedStore;
use crate::StoreError;
use crate::payload::CHUNKS;
use crate::space;
use qdrant_edge::EdgeOptimizersConfig;
use std::sync::atomic::Ordering;
impl EmbeddedStore {
    /// Builds the HNSW index of the chunk segments past the indexing
    /// threshold. `segments`: how many segments Qdrant keeps before it
    /// merges (its default when `None`).
    pub(super) fn optimize_chunks(&self, segments: Option<usize>) -> Result<bool, StoreError> {
        // Only the chunks carry vectors; without an HNSW index every dense
        // search compares the query with every chunk.
        // Reset first: without room, the next batches must not ask again.
        self.unoptimized.store(0, Ordering::Relaxed);
        // The optimizer writes the new segment beside the old one.
        let chunk_dir = self.dir.join("qdrant").join(CHUNKS);
        if let Err(e) = space::ensure_room(
            &self.dir,
            space::used_bytes(&chunk_dir),
            "building the vector index",
        ) {
            tracing::warn!(
                "{e}. Nothing written is lost; until an import has the room to build the vector index, searches compare the query with every chunk"
            );
            return Ok(false);
        }
        // Checked every time: a killed import may have left the midway
        // count. Written (a small file) only when it changes.
        let current = self.chunks.config().optimizers.default_segment_number;
        if current != segments {
            self.chunks.set_optimizers_config(EdgeOptimizersConfig {
                default_segment_number: segments,
                ..Default::default()
            })?;
        }
        let t = std::time::Instant::now();
        let done = self.chunks.optimize()?;
        if done {
            self.chunks.flush();
            tracing::info!(
                "vector index of the chunks built in {:.2} s ({} segments)",
                t.elapsed().as_secs_f64(),
                self.chunks.info().segments_count
            );
        }
        Ok(done)
    }
}
