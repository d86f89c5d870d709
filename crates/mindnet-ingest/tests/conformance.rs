//! Parser conformance against the third-party fixtures vendored in `tests/data/fixtures`.
//! Expectations are written by hand from each example; each link is shown as
//! `[!]target[#section][|label]`.

use mindnet_ingest::parse::{Link, parse};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fixtures");
    assert!(dir.is_dir(), "fixtures not found at {}", dir.display());
    dir
}

fn show(l: &Link) -> String {
    let mut s = String::new();
    if l.embed {
        s.push('!');
    }
    s.push_str(&l.parts.target);
    if let Some(sec) = &l.parts.section {
        s.push('#');
        s.push_str(sec);
    }
    if let Some(label) = &l.parts.label {
        s.push('|');
        s.push_str(label);
    }
    s
}

fn links_of(text: &str) -> Vec<String> {
    parse(text).links.iter().map(show).collect()
}

/// The inputs of CommonMark-style spec examples (the part before the lone `.`).
fn spec_examples(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match &mut current {
            None if line.starts_with("````````````````") && line.contains("example") => {
                current = Some(Vec::new())
            }
            Some(lines) if line == "." => {
                out.push(lines.join("\n").replace('→', "\t") + "\n");
                current = None;
                // Skip the expected HTML up to the closing fence.
            }
            Some(lines) => lines.push(line),
            None => {}
        }
    }
    out
}

fn check_examples(path: &Path, expected: &[&[&str]]) {
    let examples = spec_examples(path);
    assert_eq!(
        examples.len(),
        expected.len(),
        "example count in {}",
        path.display()
    );
    for (i, (input, want)) in examples.iter().zip(expected).enumerate() {
        assert_eq!(
            links_of(input),
            *want,
            "example {} of {}:\n{input}",
            i + 1,
            path.display()
        );
    }
}

#[test]
fn pulldown_cmark_wikilink_examples() {
    check_examples(
        &fixtures().join("pulldown-cmark/wikilinks.txt"),
        &[
            &["WikiLink"],
            &["Main/WikiLink"],
            &["Ambiguous"],
            &[],
            &["Ambiguous"],
            &["https://example.org/"],
            &["WikiLink|a pothole"],
            &["WikiLink/In/A/Directory|WikiLink"],
            &["WikiLink|a **strong** pothole"],
            &["WikiLink|![dog](dog.png)"],
            // The deepest of nested wikilinks wins.
            &["Fish"],
            // A Markdown link inside takes precedence: no wikilink.
            &[],
            &["!dog.png"],
            &["!dog.png|a cute dog"],
            // Empty wikilinks are no links.
            &[],
            &["link"],
            &["link|display"],
            &[],
            &[],
            // Code holds no links.
            &[],
            &["over** here"],
            // pulldown-cmark keeps `first\` as the target; Obsidian (and we) read
            // `\|` as the alias separator, which is what makes links in tables work.
            &["first|second"],
            // Entities are not decoded in link targets.
            &["first&#33;second"],
        ],
    );
}

#[test]
fn comrak_wikilink_examples() {
    check_examples(
        &fixtures().join("comrak/wikilinks_title_after_pipe.md"),
        &[
            &["https://example.org"],
            &["https://example.org|title"],
            &["Name of page"],
            &["Name of page|Title"],
            // comrak decodes entities; Obsidian does not, and a link target must
            // match a file name byte for byte, so we keep them as written.
            &["Gesch&uuml;tztes Leerzeichen|&#xDC;ber &amp;nbsp;"],
            &["https://example.org|foo\\[\\]bar"],
            &["Name \\[of\\] page"],
            &["Name _of_ page"],
        ],
    );
}

#[test]
fn comrak_alerts_are_not_edge_callouts() {
    for f in ["comrak/alerts.md", "comrak/multiline_alerts.md"] {
        for input in spec_examples(&fixtures().join(f)) {
            let p = parse(&input);
            assert!(p.links.iter().all(|l| !l.in_callout), "{input}");
        }
    }
    // An alert that holds a link is an ordinary link, while `[!edge]` makes it an edge.
    let p = parse("> [!NOTE]\n> see [[A]]\n\n> [!EDGE] caused_by: [[B]]\n");
    assert!(!p.links[0].in_callout);
    assert_eq!(p.links[1].callout_kind.as_deref(), Some("caused_by"));
}

#[test]
fn obsidian_export_inputs() {
    let root = fixtures().join("obsidian-export/tests/testdata/input");
    let expected: &[(&str, &[&str])] = &[
        ("infinite-recursion/Note A.md", &["!Note B"]),
        ("infinite-recursion/Note B.md", &["!Note C"]),
        ("infinite-recursion/Note C.md", &["!Note A"]),
        (
            "main-samples/embeds-note-in-subdir.md",
            &["!note-in-subdir"],
        ),
        (
            "main-samples/embeds-partial-note.md",
            &["!note-with-headings#heading"],
        ),
        (
            // `![[Not a valid embed.]` and `![[Partial embed` are not embeds; code holds none.
            "main-samples/embeds.md",
            &[
                "!note-with-frontmatter",
                "!note-with-frontmatter",
                "!non-existing note",
                "!white.png",
                "!bulb.svg",
                "!note.pdf",
            ],
        ),
        (
            // Obsidian trims spaces around the target.
            "main-samples/issue-188-wikilinks-need-trimming.md",
            &[
                "foo",
                "foo",
                "foo",
                "foo",
                "foo|foo",
                "foo|foo",
                "foo|foo",
                "foo|foo",
                "foo#^abc",
                "foo#^abc",
                "foo#^abc|foo > ^abc",
                "foo#^abc",
            ],
        ),
        (
            "main-samples/obsidian-wikilinks.md",
            &[
                "pure-markdown-examples",
                "Pure-Markdown-Examples",
                "pure-markdown-examples|pure markdown examples",
                "pure-markdown-examples#Heading 1",
                "pure-markdown-examples#Heading 1|pure markdown examples",
                "uppercased-note",
                "_underscored-note",
            ],
        ),
        (
            "main-samples/section-ref-a.md",
            &["#This is a header", "#^dda637"],
        ),
        (
            "main-samples/section-ref-b.md",
            &["section-ref-a#This is a header", "section-ref-a#^dda637"],
        ),
        (
            "main-samples/subdir/note-in-subdir.md",
            &["pure-markdown-examples"],
        ),
        (
            "main-samples/wikilinks-with-formatting-symbols.md",
            &["foo|Example **bold**, *italic*, or ~~strikethrough~~ text"],
        ),
        (
            "non-ascii/Embed.md",
            &["Nöte with 'quotes'", "!Nöte with 'quotes'"],
        ),
        ("non-ascii/Link.md", &["Nöte with 'quotes'"]),
        ("postprocessors/Note.md", &["!_embed"]),
        (
            "same-filename-different-directories/Note.md",
            &[
                "dir1/Note|note from dir1",
                "!dir1/Note",
                "dir2/Note|note from dir2",
                "!dir2/Note",
            ],
        ),
        (
            "single-file/note.md",
            &["other-note", "other-note|another note"],
        ),
        ("start-at/subdir/Note B.md", &["Note A", "Note C"]),
        // Files without any wikilink.
        ("main-samples/pure-markdown-examples.md", &[]),
        ("main-samples/math.md", &[]),
        ("main-samples/alert.md", &[]),
        ("main-samples/note-with-frontmatter.md", &[]),
        ("filter-by-tags/export-me.md", &[]),
    ];
    for (file, want) in expected {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert_eq!(links_of(&text), *want, "{file}");
    }
    // The unclosed `[[unclosed link` is reported with its line.
    let text = std::fs::read_to_string(root.join("main-samples/obsidian-wikilinks.md")).unwrap();
    let issues = parse(&text).issues;
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].line, 20);
    assert!(issues[0].message.contains("unclosed"));
}
