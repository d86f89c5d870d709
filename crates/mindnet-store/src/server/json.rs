//! Qdrant's JSON as the server store writes it: filters, sparse vectors, hits.

use crate::ChunkHit;
use crate::filter::FilterSyntax;
use mindnet_core::ids::point_id;
use qdrant_edge::SparseVector;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;
pub(super) fn match_value(field: &str, value: Value) -> Value {
    json!({ "key": field, "match": { "value": value } })
}

pub(super) fn match_any(field: &str, values: &[String]) -> Value {
    json!({ "key": field, "match": { "any": values } })
}

pub(super) fn must(conditions: Vec<Value>) -> Value {
    json!({ "must": conditions })
}

/// Edges with any of these values in `field`, of none of the `left_out`
/// kinds (`kind` is indexed, so they are never read).
pub(super) fn edge_filter(field: &str, values: &[String], left_out: &[String]) -> Value {
    let mut filter = must(vec![match_any(field, values)]);
    if !left_out.is_empty() {
        filter["must_not"] = json!([match_any("kind", left_out)]);
    }
    filter
}

pub(super) fn uuid(key: &str) -> String {
    point_id(key).to_string()
}

/// The server's spelling of a `ChunkFilter` (REST JSON).
pub(super) struct ServerFilters;

impl FilterSyntax for ServerFilters {
    type Condition = Value;
    type Filter = Value;
    fn any_of(field: &str, values: &[String]) -> Value {
        match_any(field, values)
    }
    fn chunk_ids(chunks: &[String]) -> Value {
        let ids: Vec<String> = chunks.iter().map(|c| uuid(c)).collect();
        json!({ "has_id": ids })
    }
    fn either(conditions: Vec<Value>) -> Value {
        json!({ "should": conditions })
    }
    fn all(conditions: Vec<Value>) -> Value {
        must(conditions)
    }
    fn edges(field: &str, values: &[String], left_out: &[String]) -> Value {
        edge_filter(field, values, left_out)
    }
}

pub(super) fn sparse(v: &SparseVector) -> Value {
    json!({ "indices": v.indices, "values": v.values })
}

pub(super) fn hits(result: &Value) -> Vec<ChunkHit> {
    result["points"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let field = |k: &str| p["payload"][k].as_str().map(str::to_string);
            Some(ChunkHit {
                chunk_id: field("chunk_id")?,
                note_id: field("note_id")?,
                score: p["score"].as_f64()? as f32,
            })
        })
        .collect()
}

pub(super) fn object(v: Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        _ => None,
    }
}
