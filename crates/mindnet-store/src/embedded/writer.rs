//! The three shards as the write protocol (`commit`) sees them.

use super::JOURNAL;
use super::filters::any_filter;
use super::filters::no_vectors;
use crate::StoreError;
use crate::commit::Point;
use crate::commit::Writer;
use crate::meta::io;
use crate::meta::write_durably;
use crate::payload::BM25;
use crate::payload::CHUNKS;
use crate::payload::DENSE;
use crate::payload::NOTES;
use mindnet_core::ids::point_id;
use qdrant_edge::EdgeShard;
use qdrant_edge::PointId;
use qdrant_edge::PointInsertOperations;
use qdrant_edge::PointOperations;
use qdrant_edge::PointStruct;
use qdrant_edge::UpdateOperation;
use qdrant_edge::Vector;
use qdrant_edge::Vectors;
use std::path::Path;
/// The three shards as the write protocol (`commit`) sees them.
pub(super) struct Shards<'s> {
    pub(super) dir: &'s Path,
    pub(super) notes: &'s EdgeShard,
    pub(super) chunks: &'s EdgeShard,
    pub(super) edges: &'s EdgeShard,
}

impl<'s> Shards<'s> {
    pub(super) fn shard(&self, collection: &str) -> &'s EdgeShard {
        match collection {
            NOTES => self.notes,
            CHUNKS => self.chunks,
            _ => self.edges,
        }
    }
}

impl Writer for Shards<'_> {
    fn set_journal(&mut self, ids: Option<&[&str]>) -> Result<(), StoreError> {
        let journal = self.dir.join(JOURNAL);
        match ids {
            Some(ids) => {
                let text = serde_json::to_vec(ids).map_err(|e| io(&journal, e))?;
                write_durably(&journal, &text)
            }
            None => std::fs::remove_file(&journal).map_err(|e| io(&journal, e)),
        }
    }

    fn delete_note_points(&mut self, ids: &[String]) -> Result<(), StoreError> {
        let points = ids.iter().map(|id| PointId::Uuid(point_id(id))).collect();
        self.notes.update(UpdateOperation::PointOperation(
            PointOperations::DeletePoints { ids: points },
        ))?;
        Ok(())
    }

    fn delete_owned(
        &mut self,
        collection: &'static str,
        note_ids: &[String],
    ) -> Result<(), StoreError> {
        if note_ids.is_empty() {
            return Ok(());
        }
        let shard = self.shard(collection);
        shard.update(UpdateOperation::PointOperation(
            PointOperations::DeletePointsByFilter(any_filter("note_id", note_ids)),
        ))?;
        Ok(())
    }

    fn put(&mut self, collection: &'static str, points: Vec<Point<'_>>) -> Result<(), StoreError> {
        if points.is_empty() {
            return Ok(());
        }
        let batch = if collection == CHUNKS { 256 } else { 1024 };
        let shard = self.shard(collection);
        let mut structs = points.into_iter().map(|p| {
            let vectors = match p.vectors {
                Some(v) => Vectors::new_named([
                    (DENSE, Vector::from(v.dense.to_vec())),
                    (BM25, Vector::from(v.bm25)),
                ]),
                None => no_vectors(),
            };
            PointStruct::new(PointId::Uuid(point_id(&p.key)), vectors, p.payload)
        });
        loop {
            let list: Vec<_> = structs.by_ref().take(batch).map(Into::into).collect();
            if list.is_empty() {
                break;
            }
            shard.update(UpdateOperation::PointOperation(
                PointOperations::UpsertPoints(PointInsertOperations::PointsList(list)),
            ))?;
        }
        Ok(())
    }

    fn flush(&mut self, collection: &'static str) {
        self.shard(collection).flush();
    }
}
