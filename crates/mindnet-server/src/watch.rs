//! The vault watcher: file events are collected until the vault has been
//! quiet for `WATCH_DEBOUNCE`, then one sync brings the index up to date
//! (new, changed and deleted notes). Events that arrive during a sync cause
//! another sync after it, so the last change is never missed.

use mindnet_app::api::SyncRequest;
use mindnet_app::settings::WATCH_DEBOUNCE;
use mindnet_app::{AppError, Workspace};
use notify::{RecursiveMode, Watcher};
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

pub fn start(ws: Arc<Workspace>, stop: Arc<AtomicBool>) -> Result<WatchHandle, AppError> {
    let vault = ws
        .settings()
        .vault
        .canonicalize()
        .map_err(|e| AppError::internal(format!("{}: {e}", ws.settings().vault.display())))?;
    let (tx, rx) = channel::<()>();
    let root = vault.clone();
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(e) if e.kind.is_access() => {}
            Ok(e) => {
                if e.paths.iter().any(|p| relevant(&root, p)) {
                    let _ = tx.send(());
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
            while rx.recv().is_ok() {
                loop {
                    match rx.recv_timeout(WATCH_DEBOUNCE) {
                        Ok(()) => continue,
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let req = SyncRequest {
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
    }
}
