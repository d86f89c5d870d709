//! The web UI in a real browser: `tests/ui/chat.mjs` drives Debian's
//! Chromium with playwright-core (both installed by `scripts/test`) against
//! this real server over the demo vault. Screenshots go to
//! `target/ui-shots/`.

mod common;

use common::{Server, copy_dir, demo_vault, import_m3};
use std::path::PathBuf;

#[test]
fn the_chat_answers_in_a_real_browser_with_sources_feedback_and_history() {
    let Ok(playwright) = std::env::var("PLAYWRIGHT_CORE") else {
        return mindnet_testkit::skip(
            "the_chat_answers_in_a_real_browser",
            "no browser driver: run ./scripts/test, or npm install playwright-core and set PLAYWRIGHT_CORE=…/node_modules/playwright-core/index.mjs",
        );
    };
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import_m3(dir.path());
    let s = Server::start(dir.path(), &[]);
    s.wait_ready();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shots = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target"))
        .join("ui-shots");
    std::fs::create_dir_all(&shots).unwrap();
    let out = std::process::Command::new("node")
        .arg(root.join("tests/ui/chat.mjs"))
        .env("MINDNET_UI_URL", s.url(""))
        .env("MINDNET_UI_SHOTS", &shots)
        .env("PLAYWRIGHT_CORE", playwright)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        s.log.lock().unwrap()
    );
    assert!(stdout.contains("ok"), "{stdout}");
    // The figures the browser measured (shown with --nocapture).
    eprintln!("{stdout}");
    // The rating reached the feedback log.
    let log = std::fs::read_to_string(dir.path().join(".mindnet/logs/feedback.jsonl")).unwrap();
    assert!(
        log.contains("generated_answer") && log.contains("\"score\":4"),
        "{log}"
    );
    // The draft saved from the editor is a note of the vault; the second
    // save was refused, so the file is the first one.
    let saved = std::fs::read_to_string(dir.path().join("Werte/geduld.md")).unwrap();
    assert!(saved.contains("Abwarten können, wenn es zählt."), "{saved}");
    for shot in [
        "chat.png",
        "graph.png",
        "note.png",
        "search.png",
        "draft.png",
        "phone.png",
    ] {
        assert!(shots.join(shot).is_file(), "{shot}");
    }
}
