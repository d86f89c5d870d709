//! `mindnet obsidian install <VAULT>`: puts the Obsidian plugin into a
//! vault, from the files built into this binary (`obsidian-plugin/`:
//! `manifest.json`, the bundled `main.js`, `styles.css`). Idempotent; a
//! newer version already there stays unless `--force`.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The plugin's files, as `scripts/test` builds and checks them.
const FILES: &[(&str, &str)] = &[
    (
        "manifest.json",
        include_str!("../../../obsidian-plugin/manifest.json"),
    ),
    ("main.js", include_str!("../../../obsidian-plugin/main.js")),
    (
        "styles.css",
        include_str!("../../../obsidian-plugin/styles.css"),
    ),
];

#[derive(clap::Subcommand, Debug)]
pub enum ObsidianCommand {
    /// Put the mindnet plugin into a vault's `.obsidian/plugins/mindnet/`.
    Install {
        /// The vault (the folder that holds `.obsidian/`).
        vault: PathBuf,
        /// Replace a newer version that is already there.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(cmd: ObsidianCommand) -> Result<ExitCode> {
    match cmd {
        ObsidianCommand::Install { vault, force } => install(&vault, force),
    }
}

fn install(vault: &Path, force: bool) -> Result<ExitCode> {
    if !vault.is_dir() {
        bail!(
            "{}: not a folder; give the vault's root folder",
            vault.display()
        );
    }
    if !vault.join(".obsidian").is_dir() {
        bail!(
            "{}: no .obsidian folder; open the folder once as a vault in Obsidian first",
            vault.display()
        );
    }
    let dir = vault.join(".obsidian/plugins/mindnet");
    let ours = version_of(FILES[0].1).context("the built-in manifest has no version")?;
    let theirs = std::fs::read_to_string(dir.join("manifest.json"))
        .ok()
        .and_then(|m| version_of(&m));
    if let Some(theirs) = &theirs
        && newer(theirs, &ours)
        && !force
    {
        bail!(
            "{}: version {theirs} is installed, newer than this binary's {ours}; not replaced (--force replaces it)",
            dir.display()
        );
    }
    let same = FILES
        .iter()
        .all(|(name, text)| std::fs::read(dir.join(name)).is_ok_and(|b| b == text.as_bytes()));
    if same {
        println!("mindnet {ours} is already installed in {}", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    for (name, text) in FILES {
        let path = dir.join(name);
        mindnet_core::file::write_atomically(&path, text.as_bytes())
            .with_context(|| path.display().to_string())?;
    }
    match theirs {
        Some(old) => println!("mindnet {old} → {ours} in {}", dir.display()),
        None => println!("mindnet {ours} installed in {}", dir.display()),
    }
    println!(
        "Next:\n  1. start the server it talks to: mindnet serve {}\n  \
         2. in Obsidian: Settings → Community plugins → turn on \"mindnet\" (press the \
         reload button there if it is not listed)\n  \
         3. command palette (Ctrl/Cmd+P): \"mindnet: Open the pane for the current note\"",
        vault.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The `version` of a manifest.
fn version_of(manifest: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(manifest).ok()?;
    v.get("version")?.as_str().map(str::to_string)
}

/// Whether `a` is a newer `x.y.z` than `b` (a part that is not a number
/// counts as 0).
fn newer(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parts(a) > parts(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number() {
        assert!(newer("0.10.0", "0.9.1"));
        assert!(!newer("0.1.0", "0.1.0"));
        assert!(!newer("0.1.0", "0.2.0"));
        assert_eq!(version_of(FILES[0].1).as_deref(), Some("0.1.0"));
    }

    #[test]
    fn install_is_idempotent_and_keeps_a_newer_version() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        assert!(install(v, false).is_err(), "no .obsidian yet");
        std::fs::create_dir(v.join(".obsidian")).unwrap();
        install(v, false).unwrap();
        let main = v.join(".obsidian/plugins/mindnet/main.js");
        assert_eq!(std::fs::read_to_string(&main).unwrap(), FILES[1].1);
        install(v, false).unwrap();
        let manifest = v.join(".obsidian/plugins/mindnet/manifest.json");
        std::fs::write(&manifest, r#"{"id": "mindnet", "version": "9.0.0"}"#).unwrap();
        assert!(install(v, false).is_err());
        install(v, true).unwrap();
        assert_eq!(std::fs::read_to_string(&manifest).unwrap(), FILES[0].1);
    }
}
