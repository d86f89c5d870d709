//! The operations, one file each: its request and response types (their
//! docs become the OpenAPI, MCP and CLI descriptions), its `Operation`
//! impl (name, route, tool, what it needs and how it fails) and its work.
//!
//! Every transport is derived from this list: the HTTP routes and their
//! OpenAPI entries, the client, the MCP tools, the CLI's `call` and its
//! derived subcommands, the guide's table. Adding an operation is one file
//! here and one line below (and, if people read its answer as text, a
//! printer in `mindnet-render`).
//!
//! The order is the order MCP clients list the tools in: what an assistant
//! needs most first.
//!
//! `cargo fmt` does not look into the macro, so it leaves the operations'
//! files alone: `rustfmt --edition 2024 crates/mindnet-app/src/ops/*.rs`
//! formats them (`.ci/run` checks both).

use crate::operation::Operation;

/// Something done for every operation of the table, with its type.
pub trait Visit {
    fn op<O: Operation>(&mut self);
}

macro_rules! operations {
    ($($module:ident :: $op:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Calls `v` with every operation, in table order.
        pub fn visit(v: &mut impl Visit) {
            $(v.op::<$module::$op>();)*
        }
    };
}

operations! {
    query::QueryOp,
    ask::AskOp,
    read_note::ReadNoteOp,
    neighbors::NeighborsOp,
    related::RelatedOp,
    recent_changes::RecentChangesOp,
    lint::LintOp,
    save::SaveOp,
    status::StatusOp,
    tags::TagsOp,
    feedback::FeedbackOp,
    note::NoteOp,
    chain::ChainOp,
    analyze::AnalyzeOp,
    sync::SyncOp,
    history::HistoryOp,
    config::ConfigOp,
    lint_fix::LintFixOp,
    list_notes::ListNotesOp,
    chat::ChatOp,
    list_directory::ListDirectoryOp,
    edit_note::EditNoteOp,
    move_note::MoveNoteOp,
    delete_note::DeleteNoteOp,
}

/// Every operation's name, in table order.
pub fn names() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl Visit for Names {
        fn op<O: Operation>(&mut self) {
            self.0.push(O::NAME);
        }
    }
    let mut n = Names(Vec::new());
    visit(&mut n);
    n.0
}

/// Every MCP tool's name, in the order clients list them.
pub fn tool_names() -> Vec<&'static str> {
    struct Tools(Vec<&'static str>);
    impl Visit for Tools {
        fn op<O: Operation>(&mut self) {
            self.0.extend(O::TOOL.map(|t| t.name));
        }
    }
    let mut t = Tools(Vec::new());
    visit(&mut t);
    t.0
}

#[cfg(test)]
mod tests {
    use super::{Visit, names, visit};
    use crate::operation::Operation;

    #[test]
    fn names_paths_and_tools_are_unique() {
        struct Seen(Vec<String>);
        impl Visit for Seen {
            fn op<O: Operation>(&mut self) {
                self.0.push(format!("op {}", O::NAME));
                self.0.push(format!("route {}", O::ROUTE.path));
                if let Some(t) = O::TOOL {
                    self.0.push(format!("tool {}", t.name));
                }
            }
        }
        let mut seen = Seen(Vec::new());
        visit(&mut seen);
        let n = seen.0.len();
        seen.0.sort();
        seen.0.dedup();
        assert_eq!(seen.0.len(), n, "{:?}", seen.0);
        assert!(names().contains(&"tags"));
    }

    #[test]
    fn every_example_is_a_request() {
        struct Examples(Vec<String>);
        impl Visit for Examples {
            fn op<O: Operation>(&mut self) {
                if let Err(e) = serde_json::from_str::<O::Request>(O::EXAMPLE) {
                    self.0.push(format!("{}: {e}", O::NAME));
                }
            }
        }
        let mut bad = Examples(Vec::new());
        visit(&mut bad);
        assert!(bad.0.is_empty(), "{:?}", bad.0);
    }
}
