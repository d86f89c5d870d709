//! The note upkeep operations through the CLI, on real files: a move that
//! rewrites every link form (on a real vault nobody wrote for us, and on a
//! built one with a note linked 60 times in every form and every trap),
//! edits with a stale version, a delete into the trash.

mod common;

use common::{copy_dir, mindnet};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn run(vault: &Path, args: &[&str]) -> Value {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--vault", vault.to_str().unwrap(), "--json"]);
    let out = mindnet(&all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn import(vault: &Path) {
    let out = mindnet(&["import", vault.to_str().unwrap(), "--embedder", "words:64"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every `.md` file of the vault (outside `.mindnet`) by vault path.
fn files(vault: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".mindnet") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                let rel = mindnet_app::vault_path(root, &p);
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(vault, vault, &mut out);
    out
}

fn missing_targets(vault: &Path) -> Vec<String> {
    let out = mindnet(&["lint", vault.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "link/missing-target")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

/// The notes that link a note (by a written link, not a mention), from
/// `read-note`'s answer.
fn linked_from(note: &Value) -> std::collections::BTreeSet<String> {
    note["links_in"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["provenance"] == "explicit")
        .map(|l| l["path"].as_str().unwrap().to_string())
        .collect()
}

fn data_vault(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

/// The most linked note of a real vault (18 links from 18 notes) moves into
/// another folder under another name: each linking file changes in its link
/// targets and nowhere else, the note keeps its id, and the linter finds
/// no link more that leads nowhere.
#[test]
fn a_move_on_a_real_vault_rewrites_every_link_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path();
    copy_dir(&data_vault("vaultofknowledge-colour"), vault);
    import(vault);
    let before = files(vault);
    let dangling = missing_targets(vault);
    let id = run(vault, &["read-note", "Colour Space"])["note_id"].clone();
    let r = run(vault, &["move-note", "Colour Space", "Farbe/Farbraum"]);
    let after = files(vault);
    let relinked = r["relinked"].as_array().unwrap();
    let links: u64 = relinked.iter().map(|n| n["links"].as_u64().unwrap()).sum();
    assert_eq!((relinked.len(), links), (18, 18), "{r}");
    let old_path = r["from"].as_str().unwrap();
    for (path, old) in &before {
        let old = String::from_utf8(old.clone()).unwrap();
        if path == old_path {
            assert!(!after.contains_key(path));
            let moved = String::from_utf8(after["Farbe/Farbraum.md"].clone()).unwrap();
            assert_eq!(
                moved,
                format!("---\nid: {}\n---\n{old}", id.as_str().unwrap())
            );
            continue;
        }
        // An independent oracle: the same change made by plain replacement.
        let want = ["]", "|", "#"].iter().fold(old.clone(), |t, end| {
            t.replace(&format!("[[Colour Space{end}"), &format!("[[Farbraum{end}"))
        });
        assert_eq!(
            String::from_utf8(after[path].clone()).unwrap(),
            want,
            "{path}"
        );
    }
    assert_eq!(after.len(), before.len());
    let now = run(vault, &["read-note", "Farbraum"]);
    assert_eq!(now["note_id"], id);
    assert_eq!(linked_from(&now).len(), 18, "{now}");
    assert_eq!(missing_targets(vault), dangling);
}

/// Old and new form of every way a note names another.
const FORMS: &[(&str, &str)] = &[
    ("[[Ziel Notiz]]", "[[Zielnotiz neu]]"),
    ("[[Ziel Notiz|Alias]]", "[[Zielnotiz neu|Alias]]"),
    ("[[Ziel Notiz#Abschnitt]]", "[[Zielnotiz neu#Abschnitt]]"),
    (
        "[[Ziel Notiz#Abschnitt|Alias]]",
        "[[Zielnotiz neu#Abschnitt|Alias]]",
    ),
    ("[[Ziel Notiz#^block1]]", "[[Zielnotiz neu#^block1]]"),
    ("![[Ziel Notiz]]", "![[Zielnotiz neu]]"),
    ("![[Ziel Notiz#^block1]]", "![[Zielnotiz neu#^block1]]"),
    ("[[Alt/Ziel Notiz]]", "[[Neu/Zielnotiz neu]]"),
    ("[[ziel notiz]]", "[[Zielnotiz neu]]"),
    ("[[Ziel Notiz.md]]", "[[Zielnotiz neu.md]]"),
    (
        "\n\n| a | b |\n|---|---|\n| x | [[Ziel Notiz\\|Alias]] |\n\n",
        "\n\n| a | b |\n|---|---|\n| x | [[Zielnotiz neu\\|Alias]] |\n\n",
    ),
    (
        "[Text](../Alt/Ziel%20Notiz.md)",
        "[Text](../Neu/Zielnotiz%20neu.md)",
    ),
    (
        "[Text](Alt/Ziel%20Notiz.md#Abschnitt)",
        "[Text](Neu/Zielnotiz%20neu.md#Abschnitt)",
    ),
    ("[Text](<Ziel Notiz.md>)", "[Text](<Zielnotiz neu.md>)"),
];

/// What must not change: another note's heading with the name, code,
/// a comment, a longer name, a web address, plain text.
const TRAPS: &str = "Siehe [[Einstellungen#Ziel Notiz]] und [[Ziel Notizen]], `[[Ziel Notiz]]`, \
    Ziel Notiz als Text, [Web](https://example.org/Ziel%20Notiz.md).\n\n```\n[[Ziel Notiz]]\n```\n";

fn linking_note(i: usize, form: &str) -> String {
    let fm = if i.is_multiple_of(3) && form.starts_with("[[") {
        format!("---\ntitle: Quelle {i}\nrelated: \"{form}\"\n---\n")
    } else {
        format!("---\ntitle: Quelle {i}\n---\n")
    };
    format!("{fm}Quelle {i} nennt {form} im Satz.\n\n{TRAPS}")
}

/// A note linked 70 times, each form five times (in frontmatter too,
/// some files with CRLF or a BOM), moved and renamed at once.
#[test]
fn a_move_keeps_every_form_of_seventy_links() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path();
    for d in ["Alt", "Quellen"] {
        std::fs::create_dir_all(vault.join(d)).unwrap();
    }
    std::fs::write(
        vault.join("Alt/Ziel Notiz.md"),
        "---\ntitle: Ziel Notiz\n---\n# Abschnitt\n\nEin Satz. ^block1\n",
    )
    .unwrap();
    std::fs::write(vault.join("Einstellungen.md"), "# Ziel Notiz\n\nText.\n").unwrap();
    let encode = |i: usize, text: &str| -> Vec<u8> {
        let mut b = Vec::new();
        if i.is_multiple_of(7) {
            b.extend_from_slice(b"\xEF\xBB\xBF");
        }
        if i.is_multiple_of(5) {
            b.extend_from_slice(text.replace('\n', "\r\n").as_bytes());
        } else {
            b.extend_from_slice(text.as_bytes());
        }
        b
    };
    let n = FORMS.len() * 5;
    for i in 0..n {
        let text = linking_note(i, FORMS[i % FORMS.len()].0);
        std::fs::write(
            vault.join(format!("Quellen/Quelle {i}.md")),
            encode(i, &text),
        )
        .unwrap();
    }
    import(vault);
    let before = files(vault);
    let r = run(
        vault,
        &["move-note", "Alt/Ziel Notiz.md", "Neu/Zielnotiz neu"],
    );
    assert_eq!(r["path"], "Neu/Zielnotiz neu.md");
    let after = files(vault);
    for i in 0..n {
        let (old, new) = FORMS[i % FORMS.len()];
        let path = format!("Quellen/Quelle {i}.md");
        let want = encode(i, &linking_note(i, new));
        assert_eq!(before[&path], encode(i, &linking_note(i, old)));
        assert_eq!(
            String::from_utf8_lossy(&after[&path]),
            String::from_utf8_lossy(&want),
            "{old}"
        );
    }
    assert_eq!(after["Einstellungen.md"], before["Einstellungen.md"]);
    let relinked = r["relinked"].as_array().unwrap();
    assert_eq!(relinked.len(), n, "{r}");
    let target = run(vault, &["read-note", "Zielnotiz neu"]);
    // Markdown links are rewritten but not edges of the index (mindnet's
    // graph is built from wikilinks); every wikilinking note still links it.
    let wiki: std::collections::BTreeSet<String> = (0..n)
        .filter(|i| FORMS[i % FORMS.len()].0.contains("[["))
        .map(|i| format!("Quellen/Quelle {i}.md"))
        .collect();
    assert_eq!(linked_from(&target), wiki);
    assert!(
        missing_targets(vault)
            .iter()
            .all(|m| !m.contains("Ziel Notiz]"))
    );
}

/// Edits through the CLI: each one changes its part, a stale version is
/// refused and the file stays; a delete goes into the trash.
#[test]
fn edits_and_a_delete_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path();
    std::fs::write(
        vault.join("Notiz.md"),
        "---\r\ntitle: Notiz\r\n---\r\n# Eins\r\n\r\nalt\r\n\r\n# Zwei\r\n\r\nbleibt\r\n",
    )
    .unwrap();
    import(vault);
    let v0 = run(vault, &["read-note", "Notiz"])["version"].clone();
    let v0 = v0.as_str().unwrap();
    let r = run(
        vault,
        &[
            "edit-note",
            "Notiz",
            "replace_section",
            "--section",
            "Eins",
            "--content",
            "neu",
            "--version",
            v0,
        ],
    );
    assert_eq!(r["changed"], true, "{r}");
    let text = std::fs::read_to_string(vault.join("Notiz.md")).unwrap();
    assert_eq!(
        text,
        "---\r\ntitle: Notiz\r\n---\r\n# Eins\r\n\r\nneu\r\n\r\n# Zwei\r\n\r\nbleibt\r\n"
    );
    let out = mindnet(&[
        "edit-note",
        "Notiz",
        "append",
        "--content",
        "spät",
        "--version",
        v0,
        "--vault",
        vault.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("changed since"), "{err}");
    assert_eq!(
        std::fs::read_to_string(vault.join("Notiz.md")).unwrap(),
        text
    );
    let r = run(
        vault,
        &[
            "edit-note",
            "Notiz",
            "set_frontmatter",
            "--fields",
            r#"{"status": "draft"}"#,
        ],
    );
    assert_eq!(r["changed"], true, "{r}");
    std::fs::write(vault.join("Andere.md"), "Im Editor geschrieben.\n").unwrap();
    let recent = run(vault, &["recent-changes", "--since", "1h"]);
    let seen: Vec<(String, String, String)> = recent["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let s = |k: &str| n[k].as_str().unwrap().to_string();
            (s("path"), s("change"), s("door"))
        })
        .collect();
    assert!(
        seen.contains(&("Notiz.md".into(), "edited".into(), "cli".into())),
        "{seen:?}"
    );
    assert!(
        seen.contains(&("Andere.md".into(), "created".into(), "files".into())),
        "{seen:?}"
    );
    let r = run(vault, &["delete-note", "Notiz"]);
    assert_eq!(r["trashed"], ".trash/Notiz.md");
    assert!(vault.join(".trash/Notiz.md").is_file());
    let trashed = std::fs::read_to_string(vault.join(".trash/Notiz.md")).unwrap();
    assert!(
        trashed.starts_with("---\r\ntitle: Notiz\r\nstatus: draft\r\n---\r\n"),
        "{trashed}"
    );
}

/// Over HTTP against a running server: a stale version is a 409 whose body
/// names the current version, the file stays, and the current version
/// then works; a move's answer names the relinked note, which the watcher
/// and the write agree on.
#[test]
fn a_stale_version_is_409_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path();
    std::fs::write(vault.join("Ziel.md"), "# Ziel\n\nalt\n").unwrap();
    std::fs::write(vault.join("Quelle.md"), "Siehe [[Ziel]].\n").unwrap();
    import(vault);
    let s = common::Server::start(vault, &[]);
    s.wait_ready();
    let (status, read) = s.get("/read_note?note=Ziel");
    assert_eq!(status, 200, "{read}");
    let v0 = read["version"].as_str().unwrap().to_string();
    std::fs::write(vault.join("Ziel.md"), "# Ziel\n\nim Editor geändert\n").unwrap();
    let edit = |version: &str| {
        s.post(
            "/edit_note",
            &serde_json::json!({"note": "Ziel", "operation": "append", "content": "neu", "version": version}),
        )
    };
    let (status, body) = edit(&v0);
    assert_eq!(status, 409, "{body}");
    let now = body["error"]["version"].as_str().unwrap().to_string();
    assert_ne!(now, v0);
    assert_eq!(
        std::fs::read_to_string(vault.join("Ziel.md")).unwrap(),
        "# Ziel\n\nim Editor geändert\n"
    );
    let (status, body) = edit(&now);
    assert_eq!(status, 200, "{body}");
    let (status, body) = s.post(
        "/move_note",
        &serde_json::json!({"note": "Ziel", "to": "Neu/Ziel"}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["relinked"],
        serde_json::json!([]),
        "a file name that stays unique: nothing to rewrite"
    );
    let (status, body) = s.post(
        "/move_note",
        &serde_json::json!({"note": "Neu/Ziel", "to": "Anders"}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["relinked"],
        serde_json::json!([{"path": "Quelle.md", "links": 1}])
    );
    assert_eq!(
        std::fs::read_to_string(vault.join("Quelle.md")).unwrap(),
        "Siehe [[Anders]].\n"
    );
}
