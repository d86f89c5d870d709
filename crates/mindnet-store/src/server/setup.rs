//! Opening an index on the server: its metadata, and the collections and
//! payload indexes it needs.

use super::META_KEY;
use super::ServerConfig;
use super::state::forget;
use super::state::with_stamps;
use crate::StoreError;
use crate::meta::FORMAT;
use crate::meta::StoreMeta;
use crate::payload;
use crate::payload::BM25;
use crate::payload::BOOL_FIELDS;
use crate::payload::CHUNKS;
use crate::payload::DENSE;
use crate::payload::EDGES;
use crate::payload::NOTES;
use crate::rest::Rest;
use reqwest::Method;
use serde_json::json;
/// The index's metadata from the notes collection; `None` when there is no
/// index under this prefix.
pub(super) fn read_meta(rest: &Rest, prefix: &str) -> Result<Option<StoreMeta>, StoreError> {
    let Some(info) = rest.call_opt(Method::GET, &format!("/collections/{prefix}_{NOTES}"), None)?
    else {
        return Ok(None);
    };
    let stored = &info["config"]["metadata"][META_KEY];
    if stored.is_null() {
        // The notes collection is created last, with its metadata: without
        // it, this is no mindnet index (or a creation cut short).
        return Err(StoreError::Server {
            url: rest.url().to_string(),
            message: format!(
                "the collection `{prefix}_{NOTES}` holds no mindnet metadata; it was not made by mindnet, or its creation was cut short (delete it, or set another COLLECTION_PREFIX)"
            ),
        });
    }
    let meta: StoreMeta =
        serde_json::from_value(stored.clone()).map_err(|e| StoreError::Payload {
            collection: NOTES,
            message: format!("unreadable index metadata: {e}"),
        })?;
    if meta.format > FORMAT {
        return Err(StoreError::Server {
            url: rest.url().to_string(),
            message: format!(
                "the index format {} is newer than this mindnet understands ({FORMAT})",
                meta.format
            ),
        });
    }
    with_stamps(rest, prefix, meta).map(Some)
}

/// Creates what is missing of the three collections and their payload
/// indexes; the notes collection last, with the metadata that marks the
/// index as complete.
pub(super) fn create_collections(
    rest: &Rest,
    config: &ServerConfig,
    meta: &StoreMeta,
) -> Result<(), StoreError> {
    forget(rest, &config.prefix)?;
    let layout = json!({
        "shard_number": config.shards.max(1),
        "replication_factor": config.replicas.max(1),
    });
    for collection in [CHUNKS, EDGES, NOTES] {
        let path = format!("/collections/{}_{collection}", config.prefix);
        let existing = rest.call_opt(Method::GET, &path, None)?;
        if existing.is_none() {
            let mut body = layout.clone();
            if collection == CHUNKS {
                body["vectors"] =
                    json!({ DENSE: { "size": meta.model.dim, "distance": "Cosine" } });
                body["sparse_vectors"] = json!({ BM25: { "modifier": "idf" } });
            } else {
                body["vectors"] = json!({});
            }
            rest.create(&path, &body)?;
        }
        let schema = match &existing {
            Some(info) => info["payload_schema"].clone(),
            None => json!({}),
        };
        for field in payload::indexes(collection) {
            if schema.get(*field).is_some() {
                continue;
            }
            let kind = if BOOL_FIELDS.contains(field) {
                "bool"
            } else {
                "keyword"
            };
            rest.call(
                Method::PUT,
                &format!("{path}/index?wait=true"),
                Some(&json!({ "field_name": field, "field_schema": kind })),
            )?;
        }
    }
    rest.call(
        Method::PATCH,
        &format!("/collections/{}_{NOTES}", config.prefix),
        Some(&json!({ "metadata": { META_KEY: meta } })),
    )?;
    Ok(())
}
