//! Filters in Qdrant Edge's types, shared with the search (`search.rs`).

use qdrant_edge::Condition;
use qdrant_edge::FieldCondition;
use qdrant_edge::Filter;
use qdrant_edge::JsonPath;
use qdrant_edge::Match;
use qdrant_edge::ValueVariants;
use qdrant_edge::VectorStructInternal;
use qdrant_edge::Vectors;
/// A payload field name as Qdrant's path type; our names are plain identifiers.
pub(crate) fn jp(field: &str) -> JsonPath {
    field
        .parse()
        .unwrap_or_else(|_| panic!("`{field}` is a valid payload path"))
}

pub(super) fn note_filter(note_id: &str) -> Filter {
    field_filter("note_id", note_id)
}

pub(crate) fn field_filter(field: &str, value: &str) -> Filter {
    Filter::new_must(Condition::Field(FieldCondition::new_match(
        jp(field),
        Match::new_value(ValueVariants::String(value.to_string())),
    )))
}

pub(super) fn no_vectors() -> Vectors {
    Vectors(VectorStructInternal::Named(Default::default()))
}

/// Any of these values in a keyword field.
pub(crate) fn any_of(field: &str, values: &[String]) -> Condition {
    Condition::Field(FieldCondition::new_match(
        jp(field),
        Match::from(values.to_vec()),
    ))
}

pub(super) fn any_filter(field: &str, values: &[String]) -> Filter {
    Filter::new_must(any_of(field, values))
}

/// Edges with any of these values in `field`, of none of the `left_out`
/// kinds (`kind` is indexed, so they are never read).
pub(crate) fn edge_filter(field: &str, values: &[String], left_out: &[String]) -> Filter {
    Filter {
        must: Some(vec![any_of(field, values)]),
        must_not: (!left_out.is_empty()).then(|| vec![any_of("kind", left_out)]),
        ..Default::default()
    }
}
