//! What a `ChunkFilter` means, written once. Both backends spell the same
//! tree of conditions, each in its own syntax, so a filter cannot select one
//! set of chunks embedded and another on a server.

use crate::{ChunkFilter, StoreError};
use mindnet_core::Edge;

/// How one backend spells filter conditions.
pub(crate) trait FilterSyntax {
    type Condition;
    type Filter;
    /// The payload `field` holds any of `values`.
    fn any_of(field: &str, values: &[String]) -> Self::Condition;
    /// The point is one of these chunks (by chunk id).
    fn chunk_ids(chunks: &[String]) -> Self::Condition;
    /// At least one of `conditions` holds.
    fn either(conditions: Vec<Self::Condition>) -> Self::Condition;
    /// Every one of `conditions` holds.
    fn all(conditions: Vec<Self::Condition>) -> Self::Filter;
    /// Edges with any of `values` in `field`, of none of the `left_out`
    /// kinds (`kind` is indexed, so those are never read).
    fn edges(field: &str, values: &[String], left_out: &[String]) -> Self::Filter;
}

/// The neighbour reads of both stores (`edges_of_notes`, `edges_into`):
/// the edges `read` finds by `field`; none, without a request, for no
/// values.
pub(crate) fn edges_by<S: FilterSyntax>(
    field: &str,
    values: &[String],
    left_out: &[String],
    read: impl FnOnce(S::Filter) -> Result<Vec<Edge>, StoreError>,
) -> Result<Vec<Edge>, StoreError> {
    if values.is_empty() {
        return Ok(Vec::new());
    }
    read(S::edges(field, values, left_out))
}

impl ChunkFilter {
    /// The filter in a backend's syntax; `None` when it allows everything.
    pub(crate) fn spelled<S: FilterSyntax>(&self) -> Option<S::Filter> {
        let mut must = Vec::new();
        if !self.types.is_empty() {
            must.push(S::any_of("type", &self.types));
        }
        if !self.statuses.is_empty() {
            must.push(S::any_of("status", &self.statuses));
        }
        let mut scope = Vec::new();
        if let Some(notes) = &self.notes {
            scope.push(S::any_of("note_id", notes));
        }
        if let Some(chunks) = &self.chunks {
            scope.push(S::chunk_ids(chunks));
        }
        if !scope.is_empty() {
            must.push(S::either(scope));
        }
        (!must.is_empty()).then(|| S::all(must))
    }
}
