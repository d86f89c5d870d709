//! The note pipeline and its splitters.

use mindnet_ingest::plan::{Config, ImportOptions, ImportPlan, plan_sources};
use mindnet_ingest::scan::SourceFile;
use mindnet_ingest::source::{SourceText, decode};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::LazyLock;

static CONFIG: LazyLock<Config> = LazyLock::new(Config::builtin);

/// Separates the notes of one input: the ASCII record separator, which no
/// note needs.
const NOTE_SEPARATOR: u8 = 0x1e;

pub fn notes(data: &[u8]) {
    let sources: Vec<SourceText> = data
        .split(|b| *b == NOTE_SEPARATOR)
        .take(4)
        .enumerate()
        .filter_map(|(i, bytes)| {
            let file = SourceFile {
                rel_path: format!("n{i}.md"),
                abs_path: PathBuf::from(format!("n{i}.md")),
            };
            decode(&file, bytes.to_vec()).ok()
        })
        .collect();
    let opts = ImportOptions::default();
    let mut reversed = sources.clone();
    reversed.reverse();
    let plan = plan_sources(sources, &CONFIG, &opts, ImportPlan::default());
    let again = plan_sources(reversed, &CONFIG, &opts, ImportPlan::default());
    // Determinism: the plan depends on the set of files, not their order.
    assert_eq!(
        plan.bundles, again.bundles,
        "the plan depends on the read order"
    );
    assert_eq!(plan.warnings, again.warnings);
    let mut chunk_ids = HashSet::new();
    for b in &plan.bundles {
        let id = &b.note.note_id;
        for (i, c) in b.chunks.iter().enumerate() {
            assert_eq!(&c.note_id, id, "a chunk of another note");
            // Chunk numbers start at 1, as in the ids (`#c01`).
            assert_eq!(c.ord, i + 1, "chunks out of order");
            assert!(
                chunk_ids.insert(c.chunk_id.clone()),
                "chunk id {} twice",
                c.chunk_id
            );
        }
        for e in &b.edges {
            assert_eq!(&e.note_id, id, "an edge owned by another note");
            assert!(e.confidence.is_finite(), "edge confidence {}", e.confidence);
        }
    }
}

pub fn frontmatter(data: &[u8]) {
    let text = crate::text(data);
    let split = mindnet_ingest::frontmatter::split(&text);
    assert!(text.is_char_boundary(split.body_start) && split.body_start <= text.len());
    for issue in &split.issues {
        assert!(issue.line >= 1, "issue on line 0: {}", issue.message);
    }
    let fm = &split.frontmatter;
    for key in ["title", "type", "status", "tags", "nothing"] {
        fm.line_of(key);
    }
}

pub fn links(data: &[u8]) {
    let text = crate::text(data);
    if let Some(parts) = mindnet_ingest::wikilink::split(&text) {
        assert!(!parts.target.contains('|'), "a label in the target");
        assert_eq!(parts.target.trim(), parts.target, "an untrimmed target");
        assert!(parts.label.as_ref().is_none_or(|l| !l.is_empty()));
    }
    let parsed = mindnet_ingest::parse::parse(&text);
    for link in &parsed.links {
        assert!(link.line >= 1, "link on line 0");
        let raw = text
            .get(link.range.clone())
            .expect("a link range inside the text");
        assert!(raw.contains("[["), "a link range without `[[`: {raw:?}");
    }
}

#[cfg(feature = "full")]
pub fn draft(data: &[u8]) {
    let text = crate::text(data);
    let healed = mindnet_chat::draft::heal(&text);
    // What healing gives is a clean draft: healing it again repairs nothing.
    let twice = mindnet_chat::draft::heal(&healed.markdown);
    assert_eq!(twice.markdown, healed.markdown, "healing is not idempotent");
    // And mindnet reads it without a frontmatter problem.
    let split = mindnet_ingest::frontmatter::split(&healed.markdown);
    assert!(
        split.issues.is_empty(),
        "a healed draft has frontmatter issues: {:?}\n{}",
        split.issues,
        healed.markdown
    );
}
