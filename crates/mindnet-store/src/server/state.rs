//! The index's write state on the server: the journal and the write
//! generation, and the import stamps. They are two points of
//! `<prefix>_writer`, beside the lease, and not keys of the notes
//! collection's metadata as in indexes written before: in a cluster every
//! change of collection metadata is a consensus operation, a save made
//! four of them, and a node back from a crash could not catch up with the
//! log under a few saves a second. A point write is an ordinary replicated
//! update, acknowledged once applied (`wait=true`), like the chunks and
//! edges of a batch. Only the lease holder writes these points, one write
//! after the other, so they need no ordering through the shard's leader
//! (`ordering=medium`, which the lease needs, fails while that leader's
//! node is down).
//!
//! An index from before has no points yet: its metadata is read until the
//! first write makes them.

use super::Collections;
use super::GENERATION_KEY;
use super::JOURNAL_KEY;
use crate::StoreError;
use crate::lease::WRITER;
use crate::lease::writer_collection;
use crate::meta::StoreMeta;
use crate::rest::Rest;
use reqwest::Method;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;
use serde_json::json;

/// The journal point: `pending` (the notes of the batch in flight, or
/// null) and `generation`. Any fixed UUIDs, like the lease's.
const JOURNAL_POINT: &str = "6d696e64-6e65-7400-0000-6a6f75726e6c";
/// The stamps point: the import times of `StoreMeta`.
const STAMPS_POINT: &str = "6d696e64-6e65-7400-0000-7374616d7073";

/// The import times, which change with every write; the rest of
/// `StoreMeta` is fixed when the index is made.
#[derive(Serialize, Deserialize)]
struct Stamps {
    last_import: Option<String>,
    last_import_seconds: Option<f64>,
    import_started: Option<String>,
}

/// The payload of a point of `<prefix>_writer`; `None` when there is no
/// such point or no such collection.
fn read_point(rest: &Rest, prefix: &str, id: &str) -> Result<Option<Value>, StoreError> {
    let found = rest.call_opt(
        Method::POST,
        &format!("/collections/{prefix}_{WRITER}/points"),
        Some(&json!({ "ids": [id], "with_payload": true })),
    )?;
    // An empty list when the point is not there.
    Ok(found
        .and_then(|mut f| f.get_mut(0).map(|p| p["payload"].take()))
        .filter(|p| !p.is_null()))
}

fn write_point(rest: &Rest, prefix: &str, id: &str, payload: Value) -> Result<(), StoreError> {
    rest.call(
        Method::PUT,
        &format!("/collections/{prefix}_{WRITER}/points?wait=true"),
        Some(&json!({ "points": [{ "id": id, "vector": {}, "payload": payload }] })),
    )?;
    Ok(())
}

/// `meta` with the import times of the stamps point, if there is one.
pub(super) fn with_stamps(
    rest: &Rest,
    prefix: &str,
    mut meta: StoreMeta,
) -> Result<StoreMeta, StoreError> {
    let Some(found) = read_point(rest, prefix, STAMPS_POINT)? else {
        return Ok(meta);
    };
    let s: Stamps = serde_json::from_value(found).map_err(|e| StoreError::Payload {
        collection: WRITER,
        message: format!("unreadable import stamps: {e}"),
    })?;
    (
        meta.last_import,
        meta.last_import_seconds,
        meta.import_started,
    ) = (s.last_import, s.last_import_seconds, s.import_started);
    Ok(meta)
}

/// A new index under a prefix starts with no write state: a `_writer`
/// collection left from a deleted index under the same prefix goes.
pub(super) fn forget(rest: &Rest, prefix: &str) -> Result<(), StoreError> {
    rest.call_opt(
        Method::DELETE,
        &format!("/collections/{prefix}_{WRITER}"),
        None,
    )?;
    Ok(())
}

impl Collections {
    /// The journal point's payload, or for an index from before the
    /// points, the metadata that held the same keys.
    fn write_state(&self) -> Result<Value, StoreError> {
        match read_point(&self.rest, &self.prefix, JOURNAL_POINT)? {
            Some(state) => Ok(state),
            None => self.metadata(),
        }
    }

    /// The notes the write journal names, if there is one.
    pub(super) fn journal(&self) -> Result<Option<Vec<String>>, StoreError> {
        let pending = self.write_state()?[JOURNAL_KEY].take();
        if pending.is_null() {
            return Ok(None);
        }
        serde_json::from_value(pending)
            .map(Some)
            .map_err(|e| StoreError::Server {
                url: self.rest.url().to_string(),
                message: format!(
                    "the write journal of an interrupted import (`{JOURNAL_KEY}` in `{p}_{WRITER}`) is unreadable ({e}), so which notes it left half written is unknown; nothing was changed. Delete the collections `{p}_*` and import again to rebuild the index",
                    p = self.prefix
                ),
            })
    }

    /// How many batches the index has had written (0 before the first).
    pub(super) fn generation(&self) -> Result<u64, StoreError> {
        match self.write_state()?[GENERATION_KEY].take() {
            Value::Null => Ok(0),
            v => v.as_u64().ok_or_else(|| StoreError::Payload {
                collection: WRITER,
                message: format!("`{GENERATION_KEY}` is {v}, not a count"),
            }),
        }
    }

    /// Sets the journal (`None`: no batch in flight) and the generation.
    /// Only under the write lease, which made the collection.
    pub(super) fn set_journal(
        &self,
        pending: Option<&[&str]>,
        generation: u64,
    ) -> Result<(), StoreError> {
        let state = json!({ JOURNAL_KEY: pending, GENERATION_KEY: generation });
        write_point(&self.rest, &self.prefix, JOURNAL_POINT, state)
    }

    /// Writes the import times of `meta`.
    pub(super) fn set_stamps(&self, meta: &StoreMeta) -> Result<(), StoreError> {
        writer_collection(&self.rest, &self.prefix)?;
        let stamps = Stamps {
            last_import: meta.last_import.clone(),
            last_import_seconds: meta.last_import_seconds,
            import_started: meta.import_started.clone(),
        };
        let payload = serde_json::to_value(stamps).map_err(|e| StoreError::Payload {
            collection: WRITER,
            message: format!("cannot encode the import stamps: {e}"),
        })?;
        write_point(&self.rest, &self.prefix, STAMPS_POINT, payload)
    }
}
