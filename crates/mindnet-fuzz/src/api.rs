//! What the `http` and `mcp` targets share: an index of the example vault,
//! built once per process, and the checks after every input.
//!
//! The embedder is the deterministic test embedder (`words:64`): these
//! targets test how requests are taken apart and refused, not how well
//! they are answered, and use-m3 would spend most of every execution on
//! the question's vector.
//!
//! A request either succeeds or is refused with a client error (400, 404,
//! 409, 422, 503): an `internal` error on a request is a bug. A note
//! written by `save`, `write_note` or `move_note` lies inside the vault,
//! and nothing appears beside the vault; it is deleted again so that the
//! index stays small, and an edited, moved or deleted note of the example
//! comes back.

use mindnet_app::ops::sync::SyncRequest;
use mindnet_app::{OpenMode, Settings, SettingsInput, Workspace};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

pub(crate) struct Fixture {
    /// Holds `vault/` and `index/` and nothing else, so a write beside the
    /// vault shows.
    outer: tempfile::TempDir,
    vault: PathBuf,
    pub ws: Arc<Workspace>,
}

pub(crate) static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let outer = tempfile::tempdir().expect("a temporary folder");
    let vault = outer.path().join("vault");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    copy_dir(&example, &vault);
    let settings = Settings::resolve(SettingsInput {
        vault: Some(vault.clone()),
        data: Some(outer.path().join("index")),
        embedder: Some("words:64".into()),
        ..Default::default()
    });
    mindnet_app::import(&settings, &SyncRequest::default(), &())
        .expect("the example vault imports");
    let ws = Workspace::open(settings, OpenMode::Existing).expect("the index opens");
    Fixture {
        outer,
        vault,
        ws: Arc::new(ws),
    }
});

/// Runs one input's transport work (the router, an MCP session) on a
/// runtime of its own. Dropping the runtime at the end cancels what the
/// input left running (a streamed chat, an MCP session's task) and waits
/// for its blocking operations, so no input's work spills into the next:
/// afl's persistent loop runs every input in one process, and the
/// findings must reproduce alone.
pub(crate) fn run_alone<T>(work: impl std::future::Future<Output = T>) -> T {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(work)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the vault copy");
    for entry in std::fs::read_dir(from)
        .expect("read the example vault")
        .flatten()
    {
        // Not the example's own index (`.mindnet`) or settings.
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a note");
        }
    }
}

/// Builds the index before the first input, so it is not blamed for the
/// time it takes. Not before afl's fork server starts: the store's threads
/// would not survive the fork.
pub fn warm_up() {
    LazyLock::force(&FIXTURE);
}

/// After every input: nothing beside the vault, and every note the input
/// saved (or moved) is inside the vault (and removed again); a note it
/// deleted (into the vault's trash), edited or relinked comes back as the
/// example has it.
pub(crate) fn clean_up(f: &Fixture) {
    for path in new_notes(f) {
        undo_save(f, &path);
    }
    undo_changes(f);
    beside_vault_untouched(f);
}

/// The example's notes the input deleted or changed, back as they were
/// and in the index; the trash emptied.
fn undo_changes(f: &Fixture) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    let mut missing = Vec::new();
    walk(&example, &mut |p| {
        let rel = p.strip_prefix(&example).expect("inside the example");
        let now = std::fs::read(f.vault.join(rel)).ok();
        if now != std::fs::read(p).ok() {
            missing.push(rel.to_string_lossy().replace('\\', "/"));
        }
    });
    let _ = std::fs::remove_dir_all(f.vault.join(".trash"));
    if missing.is_empty() {
        return;
    }
    for rel in &missing {
        let to = f.vault.join(rel);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).expect("the note's folder");
        }
        std::fs::copy(example.join(rel), &to).expect("restore a changed note");
    }
    f.ws.sync(
        &SyncRequest {
            paths: missing,
            ..SyncRequest::default()
        },
        &(),
    )
    .expect("the index has the restored notes");
}

fn beside_vault_untouched(f: &Fixture) {
    let mut names: Vec<String> = std::fs::read_dir(f.outer.path())
        .expect("the fixture folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["index", "vault"],
        "a file was written beside the vault"
    );
}

/// Notes in the vault that the example does not have.
fn new_notes(f: &Fixture) -> Vec<String> {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    let mut out = Vec::new();
    walk(&f.vault, &mut |p| {
        let rel = p.strip_prefix(&f.vault).expect("inside the vault");
        if !example.join(rel).exists() {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    });
    out
}

fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            walk(&path, visit);
        } else {
            visit(&path);
        }
    }
}

/// Removes a saved note (and the folders it made) and its index entry.
fn undo_save(f: &Fixture, rel: &str) {
    let file = f.vault.join(rel);
    // Gone already: a tool call the end of its session cut off may still
    // have been writing it.
    let Ok(real) = file.canonicalize() else {
        return;
    };
    let root = f.vault.canonicalize().expect("the vault exists");
    assert!(real.starts_with(&root), "{rel}: written outside the vault");
    std::fs::remove_file(&real).expect("remove the saved note");
    let mut dir = real.parent();
    while let Some(d) = dir.filter(|d| *d != root) {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    f.ws.sync(
        &SyncRequest {
            paths: vec![rel.to_string()],
            ..SyncRequest::default()
        },
        &(),
    )
    .expect("the index forgets the removed note");
}
