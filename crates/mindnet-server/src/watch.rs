//! The vault watcher: file events are collected until the vault has been
//! quiet for `WATCH_DEBOUNCE`, then one sync brings the index up to date
//! (new, changed and deleted notes). When every event names a note file,
//! the sync plans just those files (and the notes whose links they touch);
//! anything else (a folder moved, `.mindnetignore` edited) syncs the whole
//! vault. Events that arrive during a sync cause another sync after it, so
//! the last change is never missed.

use mindnet_app::ops::sync::SyncRequest;
use mindnet_app::settings::WATCH_DEBOUNCE;
use mindnet_app::{AppError, Workspace};
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::{Component, Path};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};

pub struct WatchHandle {
    _watcher: notify::RecommendedWatcher,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WatchHandle {
    /// Waits for a running sync to end (the stop flag is already set).
    pub fn join(mut self) {
        drop(self._watcher);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Hidden files and folders (`.mindnet/`, `.obsidian/`, temp files of our
/// own atomic writes) are not notes; `.mindnetignore` is the exception.
fn relevant(vault: &Path, path: &Path) -> bool {
    let rel = path.strip_prefix(vault).unwrap_or(path);
    rel.components().all(|c| match c {
        Component::Normal(s) => {
            let s = s.to_string_lossy();
            !s.starts_with('.') || s == ".mindnetignore"
        }
        _ => true,
    })
}

/// The vault-relative path of a note file, as the scanner writes it.
fn note_path(vault: &Path, path: &Path) -> Option<String> {
    path.strip_prefix(vault).ok()?;
    let s = mindnet_app::vault_path(vault, path);
    s.to_lowercase().ends_with(".md").then_some(s)
}

pub fn start(ws: Arc<Workspace>, stop: Arc<AtomicBool>) -> Result<WatchHandle, AppError> {
    let vault = ws
        .settings()
        .vault
        .canonicalize()
        .map_err(|e| AppError::internal(format!("{}: {e}", ws.settings().vault.display())))?;
    // `Some(path)`: a note file changed; `None`: something else did.
    let (tx, rx) = channel::<Option<String>>();
    let root = vault.clone();
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(e) if e.kind.is_access() => {}
            Ok(e) => {
                for p in e.paths.iter().filter(|p| relevant(&root, p)) {
                    let _ = tx.send(note_path(&root, p));
                }
            }
            Err(e) => tracing::warn!("watching the vault: {e}"),
        })
        .map_err(|e| AppError::internal(format!("cannot watch {}: {e}", vault.display())))?;
    watcher
        .watch(&vault, RecursiveMode::Recursive)
        .map_err(|e| AppError::internal(format!("cannot watch {}: {e}", vault.display())))?;
    let thread = std::thread::Builder::new()
        .name("mindnet-watch".into())
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                let mut changed: Option<BTreeSet<String>> = first.map(|p| BTreeSet::from([p]));
                loop {
                    match rx.recv_timeout(WATCH_DEBOUNCE) {
                        Ok(Some(p)) => {
                            if let Some(c) = changed.as_mut() {
                                c.insert(p);
                            }
                        }
                        Ok(None) => changed = None,
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let req = SyncRequest {
                    paths: changed.map(|c| c.into_iter().collect()).unwrap_or_default(),
                    sync_deletes: true,
                    purge_before_upsert: false,
                };
                match ws.sync(&req, &()) {
                    Ok(s) => tracing::info!(
                        "vault changed: {} new, {} changed, {} relinked, {} deleted in {:.2} s",
                        s.new,
                        s.changed,
                        s.relinked,
                        s.deleted,
                        s.seconds
                    ),
                    Err(e) => tracing::warn!("sync after a vault change: {}", e.message),
                }
            }
        })
        .map_err(|e| AppError::internal(format!("cannot start the watcher: {e}")))?;
    Ok(WatchHandle {
        _watcher: watcher,
        thread: Some(thread),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_paths_are_not_notes() {
        let v = Path::new("/v");
        assert!(relevant(v, Path::new("/v/Projekte/A.md")));
        assert!(relevant(v, Path::new("/v/.mindnetignore")));
        assert!(!relevant(v, Path::new("/v/.mindnet/qdrant/x")));
        assert!(!relevant(v, Path::new("/v/.obsidian/app.json")));
        assert!(!relevant(v, Path::new("/v/Projekte/.mindnet-save-1.tmp")));
        assert_eq!(
            note_path(v, Path::new("/v/Projekte/A.md")).as_deref(),
            Some("Projekte/A.md")
        );
        assert_eq!(note_path(v, Path::new("/v/Projekte")), None);
        assert_eq!(note_path(v, Path::new("/v/.mindnetignore")), None);
    }
}
