//! `mindnet import`, `mindnet status` and `mindnet tags`.

use mindnet_app::api::SyncSummary;
use mindnet_app::ops::status::StatusResponse;
use mindnet_app::ops::tags::TagsResponse;
use std::fmt::Write;

pub fn import_text(vault: &str, data: &str, model: &str, dim: usize, r: &SyncSummary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "mindnet import {vault} → {data} ({model}, {dim} dims)");
    let _ = writeln!(
        out,
        "  notes       {} new, {} changed, {} relinked, {} unchanged, {} deleted",
        r.new, r.changed, r.relinked, r.unchanged, r.deleted
    );
    let _ = writeln!(
        out,
        "  index       {} notes, {} chunks, {} edges ({} chunks embedded now)",
        r.notes, r.chunks, r.edges, r.embedded_chunks
    );
    let _ = writeln!(
        out,
        "  unresolved  {} edges point to notes that do not exist yet",
        r.unresolved
    );
    for s in &r.skipped {
        let _ = writeln!(out, "  skipped     {}: {}", s.path, s.reason);
    }
    let _ = writeln!(
        out,
        "  warnings    {}{}",
        r.warnings.len(),
        if r.warnings.is_empty() {
            ""
        } else {
            " (listed above, on stderr)"
        }
    );
    if r.embedded_chunks > 0 {
        let _ = writeln!(
            out,
            "  time        {:.2} s ({:.2} s embedding {} chunks, {:.1} chunks/s)",
            r.seconds,
            r.embed_seconds,
            r.embedded_chunks,
            r.embedded_chunks as f64 / r.embed_seconds.max(1e-9)
        );
    } else {
        let _ = writeln!(out, "  time        {:.2} s", r.seconds);
    }
    out
}

pub fn status_text(s: &StatusResponse) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "index       {}", s.index);
    let _ = writeln!(
        out,
        "model       {} ({} dims), BM25 language {}",
        s.model, s.dim, s.lang
    );
    let _ = writeln!(out, "notes       {}", s.notes);
    let _ = writeln!(out, "chunks      {}", s.chunks);
    let _ = writeln!(out, "edges       {} ({} unresolved)", s.edges, s.unresolved);
    let _ = writeln!(out, "created     {}", s.created);
    match (&s.last_import, s.last_import_seconds) {
        (Some(t), Some(secs)) => {
            let _ = writeln!(out, "last import {t} ({secs:.2} s)");
        }
        _ => out.push_str("last import never finished\n"),
    }
    if let Some(t) = &s.unfinished_import {
        let _ = writeln!(
            out,
            "unfinished  the import begun {t} did not finish; the next import completes it"
        );
    }
    if s.sync.running {
        let _ = writeln!(
            out,
            "sync        running since {}: {}/{} chunks embedded",
            s.sync.started.as_deref().unwrap_or("?"),
            s.sync.embedded,
            s.sync.to_embed
        );
    }
    out
}

/// The tags, most used first: one per line with its count.
pub fn tags_text(r: &TagsResponse) -> String {
    if r.tags.is_empty() {
        return "no tags\n".to_string();
    }
    let width = r
        .tags
        .iter()
        .map(|t| t.notes.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for t in &r.tags {
        let _ = writeln!(out, "{:>width$}  #{}", t.notes, t.tag);
    }
    out
}
