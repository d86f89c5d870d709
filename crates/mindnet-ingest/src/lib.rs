//! From a vault folder to `NoteBundle`s: scan → read → parse → chunk → derive.

pub mod chunk;
pub mod frontmatter;
pub mod lines;
pub mod parse;
pub mod wikilink;
