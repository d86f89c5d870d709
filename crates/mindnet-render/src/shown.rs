//! How an operation's answer reads as text: for an AI assistant (the MCP
//! tools) and for the CLI's derived subcommands. One `Show` impl per
//! operation that has a printer, and one line for it in `printers`; an
//! operation without one reads as its JSON.

use mindnet_app::Operation;
use mindnet_app::api::{Lang, QueryResponse};
use mindnet_app::ops::ask::AskOp;
use mindnet_app::ops::chain::ChainOp;
use mindnet_app::ops::delete_note::DeleteNoteOp;
use mindnet_app::ops::lint::{LintOp, Severity};
use mindnet_app::ops::list_directory::ListDirectoryOp;
use mindnet_app::ops::neighbors::NeighborsOp;
use mindnet_app::ops::query::QueryOp;
use mindnet_app::ops::read_note::ReadNoteOp;
use mindnet_app::ops::recent_changes::RecentChangesOp;
use mindnet_app::ops::save::SaveOp;
use mindnet_app::ops::status::StatusOp;
use mindnet_app::ops::tags::TagsOp;
use serde_json::{Map, Value};
use std::any::{Any, TypeId};

/// How much of a hit's text the search text shows.
const SNIPPET_CHARS: usize = 300;

/// An answer as text, with what the structured answer gains beside it.
pub struct Shown {
    pub text: String,
    /// Fields added to the response's JSON (the `ask` tool's diagram).
    pub extra: Map<String, Value>,
}

/// The printer of one operation's answer.
pub trait Show: Operation {
    fn text(req: &Self::Request, resp: &Self::Response) -> String;

    fn extra(_: &Self::Request, _: &Self::Response) -> Map<String, Value> {
        Map::new()
    }
}

trait EachPrinter {
    fn printer<S: Show>(&mut self);
}

/// Every operation with a printer.
fn printers(v: &mut impl EachPrinter) {
    v.printer::<QueryOp>();
    v.printer::<AskOp>();
    v.printer::<ReadNoteOp>();
    v.printer::<NeighborsOp>();
    v.printer::<RecentChangesOp>();
    v.printer::<LintOp>();
    v.printer::<SaveOp>();
    v.printer::<StatusOp>();
    v.printer::<TagsOp>();
    v.printer::<ChainOp>();
    v.printer::<ListDirectoryOp>();
    v.printer::<DeleteNoteOp>();
}

/// `O`'s answer to `req` as text; its JSON when it has no printer.
pub fn show<O: Operation>(req: &O::Request, resp: &O::Response) -> Shown {
    struct Find<'a, O: Operation> {
        req: &'a O::Request,
        resp: &'a O::Response,
        shown: Option<Shown>,
    }
    impl<O: Operation> EachPrinter for Find<'_, O> {
        fn printer<S: Show>(&mut self) {
            if TypeId::of::<S>() != TypeId::of::<O>() {
                return;
            }
            let req = (self.req as &dyn Any).downcast_ref::<S::Request>();
            let resp = (self.resp as &dyn Any).downcast_ref::<S::Response>();
            if let (Some(req), Some(resp)) = (req, resp) {
                self.shown = Some(Shown {
                    text: S::text(req, resp),
                    extra: S::extra(req, resp),
                });
            }
        }
    }
    let mut find = Find::<O> {
        req,
        resp,
        shown: None,
    };
    printers(&mut find);
    find.shown.unwrap_or_else(|| Shown {
        text: serde_json::to_string_pretty(resp).unwrap_or_default() + "\n",
        extra: Map::new(),
    })
}

impl Show for QueryOp {
    fn text(_: &Self::Request, r: &QueryResponse) -> String {
        crate::hits_text(r, SNIPPET_CHARS)
    }
}

impl Show for AskOp {
    /// The chain and, when there is one, its Mermaid diagram.
    fn text(req: &Self::Request, r: &QueryResponse) -> String {
        let mut text = crate::ask_text(r, req.lang);
        if r.causal.is_some() {
            text.push('\n');
            text.push_str(&crate::mermaid(r));
        }
        text
    }

    fn extra(_: &Self::Request, r: &QueryResponse) -> Map<String, Value> {
        let mut extra = Map::new();
        if r.causal.is_some() {
            extra.insert("mermaid".into(), Value::String(crate::mermaid(r)));
        }
        extra
    }
}

impl Show for ReadNoteOp {
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        crate::note_text(r)
    }
}

impl Show for NeighborsOp {
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        crate::graph_text(r)
    }
}

impl Show for RecentChangesOp {
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        crate::recent_text(r)
    }
}

impl Show for LintOp {
    fn text(req: &Self::Request, r: &Self::Response) -> String {
        let mut text = format!(
            "{} notes checked: {} errors, {} warnings, {} recommendations\n",
            r.notes,
            r.count(Severity::Error),
            r.count(Severity::Warning),
            r.count(Severity::Recommendation)
        );
        let view = crate::LintView {
            notes: r.notes,
            en: r.lang == Lang::En,
            // One note's findings are few; a vault's recommendations are
            // summarised, as in the CLI.
            all: req.note.is_some(),
        };
        text += &crate::lint_text(&r.findings, view, &|_, _| None);
        text
    }
}

impl Show for SaveOp {
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        format!(
            "{} {} (id {}); indexed: {} notes new, {} changed",
            if r.created { "Created" } else { "Replaced" },
            r.path,
            r.note_id,
            r.sync.new,
            r.sync.changed
        )
    }
}

impl Show for StatusOp {
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        crate::status_text(r)
    }
}

impl Show for TagsOp {
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        crate::tags_text(r)
    }
}

impl Show for ChainOp {
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        crate::chain_tree(r)
    }
}

impl Show for ListDirectoryOp {
    /// A line a folder, then a line a note: title, type, tags, change.
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        let folders = r.entries.iter().filter(|e| e.kind == "folder").count();
        let place = if r.dir.is_empty() {
            "the vault"
        } else {
            &r.dir
        };
        let mut out = format!(
            "{place}: {folders} folders, {} notes",
            r.entries.len() - folders
        );
        if r.total > r.entries.len() {
            out += &format!(" (the first {} of {})", r.entries.len(), r.total);
        }
        out.push('\n');
        for e in &r.entries {
            let line = if e.kind == "folder" {
                let notes = if e.notes == 1 { "note" } else { "notes" };
                format!("  {}/  {} {notes}, changed {}", e.path, e.notes, e.modified)
            } else {
                let tags: Vec<String> = e.tags.iter().map(|t| format!("#{t}")).collect();
                let kind = if e.note_type.is_empty() {
                    "not indexed"
                } else {
                    &e.note_type
                };
                format!(
                    "  {} ({kind}{}{}) {}  {}",
                    e.title,
                    if tags.is_empty() { "" } else { ", " },
                    tags.join(" "),
                    e.modified,
                    e.path
                )
            };
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

impl Show for DeleteNoteOp {
    /// Where the note went, and the notes whose links now lead nowhere.
    fn text(_: &Self::Request, r: &Self::Response) -> String {
        let mut out = format!("Moved {} ({}) to {}\n", r.title, r.path, r.trashed);
        if r.linked_from.is_empty() {
            out.push_str("No other note linked it.\n");
            return out;
        }
        out.push_str("These notes linked it; their links now lead nowhere:\n");
        for n in &r.linked_from {
            let links = if n.links == 1 { "link" } else { "links" };
            out.push_str(&format!(
                "  {} ({}), {} {links}\n",
                n.title, n.path, n.links
            ));
        }
        out
    }
}
