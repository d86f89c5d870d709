//! The three collections over REST: the notes collection's `metadata`,
//! paging, counting.

use super::Collections;
use super::PAGE;
use super::json::object;
use crate::StoreError;
use crate::payload::NOTES;
use reqwest::Method;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;
impl Collections {
    pub(super) fn path(&self, collection: &str, rest: &str) -> String {
        format!("/collections/{}_{collection}{rest}", self.prefix)
    }

    pub(super) fn post(
        &self,
        collection: &str,
        rest: &str,
        body: Value,
    ) -> Result<Value, StoreError> {
        self.rest
            .call(Method::POST, &self.path(collection, rest), Some(&body))
    }

    /// The notes collection's metadata (in an index from before `state.rs`,
    /// with the write state).
    pub(super) fn metadata(&self) -> Result<Value, StoreError> {
        let mut info = self.rest.call(Method::GET, &self.path(NOTES, ""), None)?;
        Ok(info["config"]["metadata"].take())
    }

    /// Every payload of the points matching `filter`.
    pub(super) fn scroll(
        &self,
        collection: &str,
        filter: Option<Value>,
        with_payload: Value,
    ) -> Result<Vec<Map<String, Value>>, StoreError> {
        let mut points = self.points(collection, filter, with_payload, json!(false))?;
        // Taken, not cloned: a page of edges is megabytes of JSON.
        Ok(points
            .iter_mut()
            .filter_map(|p| object(p["payload"].take()))
            .collect())
    }

    /// Every point matching `filter`, page by page.
    pub(super) fn points(
        &self,
        collection: &str,
        filter: Option<Value>,
        with_payload: Value,
        with_vector: Value,
    ) -> Result<Vec<Value>, StoreError> {
        let mut out = Vec::new();
        let mut offset = Value::Null;
        loop {
            let mut body = json!({
                "limit": PAGE,
                "with_payload": with_payload,
                "with_vector": with_vector,
            });
            if let Some(f) = &filter {
                body["filter"] = f.clone();
            }
            if !offset.is_null() {
                body["offset"] = offset;
            }
            let mut page = self.post(collection, "/points/scroll", body)?;
            if let Value::Array(points) = page["points"].take() {
                out.extend(points);
            }
            offset = page["next_page_offset"].take();
            if offset.is_null() {
                return Ok(out);
            }
        }
    }

    pub(super) fn count(
        &self,
        collection: &str,
        filter: Option<Value>,
    ) -> Result<usize, StoreError> {
        let mut body = json!({ "exact": true });
        if let Some(f) = filter {
            body["filter"] = f;
        }
        let r = self.post(collection, "/points/count", body)?;
        Ok(r["count"].as_u64().unwrap_or(0) as usize)
    }
}
