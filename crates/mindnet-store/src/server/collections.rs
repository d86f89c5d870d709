//! The three collections over REST: the journal and the metadata in the notes
//! collection's `metadata`, paging, counting.

use super::*;

impl Collections {
    /// The notes the write journal names, if there is one.
    pub(super) fn journal(&self) -> Result<Option<Vec<String>>, StoreError> {
        let pending = self.metadata()?[JOURNAL_KEY].take();
        if pending.is_null() {
            return Ok(None);
        }
        serde_json::from_value(pending)
            .map(Some)
            .map_err(|e| StoreError::Server {
                url: self.rest.url().to_string(),
                message: format!(
                    "the write journal of an interrupted import (`metadata.{JOURNAL_KEY}` of `{p}_{NOTES}`) is unreadable ({e}), so which notes it left half written is unknown; nothing was changed. Delete the collections `{p}_*` and import again to rebuild the index",
                    p = self.prefix
                ),
            })
    }

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

    /// Sets keys of the notes collection's metadata (the others stay).
    pub(super) fn set_metadata(&self, keys: Value) -> Result<(), StoreError> {
        self.rest.call(
            Method::PATCH,
            &self.path(NOTES, ""),
            Some(&json!({ "metadata": keys })),
        )?;
        Ok(())
    }

    pub(super) fn metadata(&self) -> Result<Value, StoreError> {
        let mut info = self.rest.call(Method::GET, &self.path(NOTES, ""), None)?;
        Ok(info["config"]["metadata"].take())
    }

    /// How many batches the index has had written (0 before the first).
    pub(super) fn generation(&self) -> Result<u64, StoreError> {
        match self.metadata()?[GENERATION_KEY].take() {
            Value::Null => Ok(0),
            v => v.as_u64().ok_or_else(|| StoreError::Payload {
                collection: NOTES,
                message: format!("`metadata.{GENERATION_KEY}` is {v}, not a count"),
            }),
        }
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
