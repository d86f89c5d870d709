//! One note as read from its file, a note's neighbourhood, the notes that
//! changed lately, and search hits told briefly with their reasons: what an
//! assistant reads from the MCP tools (and a person from the same text).

use crate::one_line;
use mindnet_app::api::QueryResponse;
use mindnet_app::ops::neighbors::GraphResponse;
use mindnet_app::ops::read_note::{NoteLink, ReadNoteResponse};
use mindnet_app::ops::recent_changes::RecentResponse;
use std::collections::HashMap;
use std::fmt::Write;

/// Each hit with its path, score, section, a snippet and why it ranks.
pub fn hits_text(r: &QueryResponse, snippet_chars: usize) -> String {
    let mut out = String::new();
    if r.hits.is_empty() {
        let _ = writeln!(out, "No notes match {:?}.", r.query);
    }
    for (i, h) in r.hits.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. {} ({}, {}) score {:.3}",
            i + 1,
            h.title,
            h.note_type,
            h.path,
            h.score
        );
        if !h.section.is_empty() {
            let _ = writeln!(out, "   § {}", h.section);
        }
        let _ = writeln!(out, "   {}", one_line(&h.text, snippet_chars));
        if !h.reasons.is_empty() {
            let _ = writeln!(out, "   why: {}", h.reasons.join("; "));
        }
    }
    let _ = writeln!(out, "(query id {})", r.query_id);
    out
}

fn link_line(out: &mut String, arrow: &str, l: &NoteLink) {
    let target = match (&l.section, l.resolved) {
        (Some(s), true) => format!("{} § {s} ({})", l.title, l.path),
        (None, true) => format!("{} ({})", l.title, l.path),
        (_, false) => format!("{} (no such note yet)", l.title),
    };
    let _ = writeln!(out, "  {arrow} {} {target}", l.kind);
}

/// The note's header, its text, then its links out and in.
pub fn note_text(n: &ReadNoteResponse) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}, {}, {}) id {}",
        n.title, n.note_type, n.status, n.path, n.note_id
    );
    if let Some(s) = &n.section {
        let _ = writeln!(out, "section: {s}");
    }
    out.push('\n');
    out.push_str(&n.text);
    if !n.text.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "\nlinks out ({}):", n.links_out.len());
    for l in &n.links_out {
        link_line(&mut out, "→", l);
    }
    let _ = writeln!(out, "links in ({}):", n.links_in.len());
    for l in &n.links_in {
        link_line(&mut out, "←", l);
    }
    out
}

/// The notes by distance from the start, then every edge between them.
pub fn graph_text(g: &GraphResponse) -> String {
    let title: HashMap<&str, &str> = g
        .nodes
        .iter()
        .map(|n| (n.note_id.as_str(), n.title.as_str()))
        .collect();
    let name = |id: &str| title.get(id).copied().unwrap_or(id).to_string();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Neighbourhood of {}: {} notes, {} edges",
        name(&g.start),
        g.nodes.len(),
        g.edges.len()
    );
    let mut nodes: Vec<_> = g.nodes.iter().collect();
    nodes.sort_by(|a, b| (a.hops, &a.title).cmp(&(b.hops, &b.title)));
    for n in nodes {
        let _ = writeln!(
            out,
            "  [{} hop{}] {} ({}, {})",
            n.hops,
            if n.hops == 1 { "" } else { "s" },
            n.title,
            n.note_type,
            n.path
        );
    }
    out.push_str("edges:\n");
    for e in &g.edges {
        let _ = writeln!(
            out,
            "  {} —{}→ {} ({})",
            name(&e.from),
            e.kind,
            name(&e.to),
            e.provenance
        );
    }
    out
}

/// Newest first, with whether the index holds each file's version.
pub fn recent_text(r: &RecentResponse) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} notes changed since {}{}",
        r.total,
        r.since,
        if r.total > r.notes.len() {
            format!(" (the newest {} shown)", r.notes.len())
        } else {
            String::new()
        }
    );
    for n in &r.notes {
        let _ = writeln!(
            out,
            "  {}  {} ({}){}",
            n.modified,
            n.title,
            n.path,
            if n.indexed {
                ""
            } else {
                " — not indexed yet"
            }
        );
    }
    out
}
