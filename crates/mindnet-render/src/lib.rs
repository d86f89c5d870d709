//! Renderings of the application layer's responses for people: the CLI's
//! text, and Mermaid diagrams to paste into Obsidian (the web UI shows the
//! same). Everything renders into a `String`; a renderer never does I/O
//! (the lint renderer is handed the note lines it quotes).

mod chain;
mod chat;
mod lint;
mod notes;
mod query;
mod shown;
mod status;
mod tune;

pub use chain::{chain_mermaid, chain_tree};
pub use chat::{chat_badge, chat_sources, chat_text, router_text};
pub use lint::{LintView, lint_text};
pub use notes::{graph_text, hits_text, note_text, recent_text};
pub use query::{ask_text, eval_text, mermaid, query_text};
pub use shown::{Show, Shown, show};
pub use status::{import_text, status_text, tags_text};
pub use tune::tune_text;

/// Whitespace collapsed, cut to `max` characters with `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}
