//! The vocabulary every other mindnet crate speaks: notes, chunks, edges, their
//! identities, and the two configuration files that shape them (the type
//! registry and the edge vocabulary).
//!
//! This crate does no I/O beyond reading a configuration file it is pointed at.

pub mod error;
pub mod file;
pub mod ids;
pub mod lookup;
pub mod model;
pub mod registry;
pub mod rng;
pub mod time;
pub mod title;
pub mod vocab;
pub mod warning;
pub mod wikilink;
pub mod yaml;

pub use error::ConfigError;
pub use model::{Chunk, Edge, Note, NoteBundle, Provenance, Status};
pub use registry::{
    CausalTypes, ChunkProfile, ChunkStrategy, MatrixRule, SchemaField, SmartEdgeRules, TypeConfig,
    TypeRegistry,
};
pub use vocab::{Canonical, CausalReading, CauseEnd, EdgeVocabulary, KindInfo, NameRules};
pub use warning::Warning;
