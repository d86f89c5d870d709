//! `tags`: the vault's tags with their counts, from the index's catalog:
//! what an author or an assistant reads to learn a vault's topics before
//! filtering a search by tag.

use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use utoipa::ToSchema;

/// The tags of the indexed notes, most used first, with their counts.
pub struct TagsOp;

impl Operation for TagsOp {
    type Request = TagsRequest;
    type Response = TagsResponse;
    const NAME: &'static str = "tags";
    const ABOUT: &'static str =
        "The tags of the indexed notes, most used first, with their counts.";
    const EXAMPLE: &'static str = r#"{"prefix": "k"}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/tags");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<TagsRequest>> = Some(Tool::new(
        "tags",
        "Tags and how often they are used",
        "Every tag of the user's notes with the number of notes that carry it, \
            most used first; optionally only the tags under a prefix such as `projekt/`. Use it \
            to learn the vault's topics, then search with a `tag` filter.",
    ));

    fn run(ws: &Workspace, req: &TagsRequest) -> Result<TagsResponse, AppError> {
        tags(ws, req)
    }
}

/// `GET /tags`: every tag of the index and how many notes carry it.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct TagsRequest {
    /// Only tags that start with this (case-insensitive), e.g. `projekt/`.
    #[serde(default)]
    pub prefix: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TagCount {
    /// The tag as the notes write it, without `#`.
    pub tag: String,
    /// How many notes carry it.
    pub notes: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TagsResponse {
    /// Most used first; equals by name.
    pub tags: Vec<TagCount>,
}

/// Every tag (or every tag under `prefix`, case-insensitive) with the
/// number of notes that carry it, most used first.
fn tags(ws: &Workspace, req: &TagsRequest) -> Result<TagsResponse, AppError> {
    let prefix = req.prefix.as_deref().map(str::to_lowercase);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let store = ws.read();
    let catalog = store.catalog()?;
    for note in catalog.iter() {
        let tags: BTreeSet<&String> = note.tags.iter().collect();
        for tag in tags {
            if prefix
                .as_deref()
                .is_none_or(|p| tag.to_lowercase().starts_with(p))
            {
                *counts.entry(tag.clone()).or_default() += 1;
            }
        }
    }
    let mut tags: Vec<TagCount> = counts
        .into_iter()
        .map(|(tag, notes)| TagCount { tag, notes })
        .collect();
    tags.sort_by(|a, b| b.notes.cmp(&a.notes).then_with(|| a.tag.cmp(&b.tag)));
    Ok(TagsResponse { tags })
}
