//! What a stored note is compared by, to decide whether it is new, changed,
//! relinked or unchanged: digests of its chunks and of what makes its edges.

use super::Action;
use super::SyncOptions;
use super::smart::LinkJudge;
use mindnet_core::Chunk;
use mindnet_core::Edge;
use mindnet_core::NoteBundle;
use mindnet_ingest::Config;
use mindnet_store::NoteState;
use serde::Serialize;
use sha2::Digest;
use sha2::Sha256;
/// What a stored note is compared by: its chunks, and all that makes its
/// edges.
pub(super) struct Digests {
    pub(super) chunks: String,
    pub(super) edges: String,
}

impl Digests {
    pub(super) fn of(b: &NoteBundle, config: &Config, judge: &dyn LinkJudge) -> Digests {
        let mut edges = edges_digest(&b.edges);
        // The names are the note's place in the entity graph: a change of
        // them (new rules) rewrites the note without re-embedding it.
        if !b.note.names.is_empty() {
            edges = format!("{edges}+names:{}", digest(&b.note.names));
        }
        if !b.note.name_parts.is_empty() {
            edges = format!("{edges}+parts:{}", digest(&b.note.name_parts));
        }
        // Who judges smart edges is part of a note's edges: another judge
        // (an LLM configured) relinks those notes once.
        if config
            .registry
            .config(&b.note.note_type)
            .enable_smart_edge_allocation
        {
            edges = format!("{edges}+smart:{}:{}", judge.method(), judge.fingerprint());
        }
        Digests {
            chunks: chunks_digest(&b.chunks),
            edges,
        }
    }

    pub(super) fn action(
        &self,
        stored: Option<&NoteState>,
        hash: &str,
        opts: &SyncOptions,
    ) -> Action {
        match stored {
            None => Action::New,
            Some(_) if opts.purge_before_upsert => Action::Changed,
            Some(s) if s.hash != hash || s.chunks_digest != self.chunks => Action::Changed,
            Some(s) if s.edges_digest != self.edges => Action::Relinked,
            Some(_) => Action::Unchanged,
        }
    }
}

pub(super) fn digest<T: Serialize>(value: &T) -> String {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    mindnet_core::ids::hex(&Sha256::digest(&bytes))
}

pub fn chunks_digest(chunks: &[Chunk]) -> String {
    digest(&chunks)
}

pub fn edges_digest(edges: &[Edge]) -> String {
    digest(&edges)
}
