//! Writing: the write lease, and the collections as the write protocol
//! (`commit`) sees them while this process holds it.

use super::CHUNK_BATCH;
use super::Collections;
use super::EDGE_BATCH;
use super::json::match_any;
use super::json::must;
use super::json::sparse;
use super::json::uuid;
use crate::StoreError;
use crate::commit;
use crate::commit::Point;
use crate::commit::Writer;
use crate::lease::Lease;
use crate::payload::BM25;
use crate::payload::CHUNKS;
use crate::payload::DENSE;
use crate::payload::NOTES;
use reqwest::Method;
use serde_json::Value;
use serde_json::json;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
/// The write lease; taken if this process does not hold it. Taking it also
/// reads the index's write generation, and undoes a batch an earlier writer
/// left cut short: its notes are removed completely and will be imported
/// again as new. Only the lease holder may do this; any other writer could
/// be writing those notes at this moment.
pub(super) fn held<'a>(
    cols: &Collections,
    slot: &'a mut Option<Lease>,
    seen: &AtomicU64,
) -> Result<&'a Lease, StoreError> {
    let lease = match slot.take() {
        Some(l) => l,
        None => {
            let lease = Lease::take(&cols.rest, &cols.prefix)?;
            seen.store(cols.generation()?, Ordering::SeqCst);
            if let Some(ids) = cols.journal()? {
                let mut w = Committer {
                    cols,
                    lease: &lease,
                    seen,
                };
                commit::undo(&mut w, &ids)?;
            }
            lease
        }
    };
    Ok(slot.insert(lease))
}

/// The collections as the write protocol (`commit`) sees them, while this
/// process holds the write lease.
pub(super) struct Committer<'s> {
    pub(super) cols: &'s Collections,
    pub(super) lease: &'s Lease,
    pub(super) seen: &'s AtomicU64,
}

impl Writer for Committer<'_> {
    fn set_journal(&mut self, ids: Option<&[&str]>) -> Result<(), StoreError> {
        self.lease.ensure()?;
        let seen = self.seen.load(Ordering::SeqCst);
        match ids {
            Some(_) => self.cols.set_journal(ids, seen),
            // A batch done: one generation more.
            None => {
                self.cols.set_journal(None, seen + 1)?;
                self.seen.store(seen + 1, Ordering::SeqCst);
                Ok(())
            }
        }
    }

    fn delete_note_points(&mut self, ids: &[String]) -> Result<(), StoreError> {
        let points: Vec<String> = ids.iter().map(|id| uuid(id)).collect();
        self.cols.post(
            NOTES,
            "/points/delete?wait=true",
            json!({ "points": points }),
        )?;
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
        self.cols.post(
            collection,
            "/points/delete?wait=true",
            json!({ "filter": must(vec![match_any("note_id", note_ids)]) }),
        )?;
        Ok(())
    }

    fn put(&mut self, collection: &'static str, points: Vec<Point<'_>>) -> Result<(), StoreError> {
        let batch = if collection == CHUNKS {
            CHUNK_BATCH
        } else {
            EDGE_BATCH
        };
        let mut points = points.into_iter().map(|p| {
            let vector = match p.vectors {
                Some(v) => json!({ DENSE: v.dense, BM25: sparse(&v.bm25) }),
                None => json!({}),
            };
            json!({ "id": uuid(&p.key), "vector": vector, "payload": p.payload })
        });
        loop {
            let list: Vec<Value> = points.by_ref().take(batch).collect();
            if list.is_empty() {
                return Ok(());
            }
            if collection == NOTES {
                // The commit markers: never from a writer that lost its lease.
                self.lease.ensure()?;
            }
            self.cols.rest.call(
                Method::PUT,
                &self.cols.path(collection, "/points?wait=true"),
                Some(&json!({ "points": list })),
            )?;
        }
    }

    /// Every request was acknowledged with `wait=true`: applied, and in the
    /// server's write-ahead log.
    fn flush(&mut self, _collection: &'static str) {}
}
