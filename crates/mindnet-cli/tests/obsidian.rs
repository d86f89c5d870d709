//! The Obsidian plugin against a real `mindnet serve` on the demo vault:
//! `obsidian-plugin/test/pane.test.mjs` renders its pane, chat, modals and
//! status bar into jsdom (a host module stands in for the `obsidian` API,
//! which only the app itself provides) and checks what they show, applies
//! a lint fix through the server, streams a chat answer, loads the
//! committed `main.js`, and checks the notice when no server answers. `scripts/test` installs the plugin's packages first;
//! and `mindnet obsidian install` puts the plugin into a vault.

mod common;

use common::{Server, copy_dir, demo_vault, import_m3, mindnet};
use std::path::Path;
use std::process::Command;

fn plugin_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../obsidian-plugin")
}

#[test]
fn the_plugin_renders_a_note_from_a_real_server() {
    let dir = plugin_dir();
    if !dir.join("node_modules/jsdom").is_dir() {
        mindnet_testkit::skip(
            "the_plugin_renders_a_note_from_a_real_server",
            "the plugin's packages are not installed: run ./scripts/test, or npm ci in obsidian-plugin",
        );
        return;
    }
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), vault.path());
    import_m3(vault.path());
    let s = Server::start(vault.path(), &[]);
    s.wait_ready();
    let out = Command::new("node")
        .arg("test/pane.test.mjs")
        .arg(s.url(""))
        .arg(vault.path())
        .current_dir(&dir)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn install_puts_the_plugin_into_a_vault() {
    let vault = tempfile::tempdir().unwrap();
    std::fs::create_dir(vault.path().join(".obsidian")).unwrap();
    let v = vault.path().to_str().unwrap();
    for _ in 0..2 {
        let out = mindnet(&["obsidian", "install", v]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let installed = vault.path().join(".obsidian/plugins/mindnet");
    for f in ["manifest.json", "main.js", "styles.css"] {
        assert_eq!(
            std::fs::read(installed.join(f)).unwrap(),
            std::fs::read(plugin_dir().join(f)).unwrap(),
            "{f}"
        );
    }
}
