//! Chat sessions, one file each in the data dir (`chat/<session>.json`),
//! written atomically after every answer: a restart of `mindnet serve`
//! keeps every conversation and every half-done interview. The files are
//! the only copy (a message costs a retrieval or an LLM answer; reading a
//! few kilobytes beside it is nothing), so two servers never disagree.
//!
//! Bounded three ways: at most `MAX_TURNS` turns and `MAX_SESSION_BYTES`
//! per session (the oldest turns go first), at most `MAX_SESSIONS` files
//! (the least recently used go first), and a session untouched for
//! `SESSION_TTL` is forgotten.

use crate::api::{MAX_SESSION_BYTES, MAX_SESSIONS, MAX_TURNS, SESSION_TTL};
use mindnet_chat::interview::Interview;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Session {
    pub turns: Vec<Turn>,
    pub interview: Option<Interview>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Turn {
    pub user: String,
    pub answer: String,
}

pub(super) struct Sessions {
    dir: PathBuf,
}

impl Sessions {
    pub fn new(data: &Path) -> Self {
        Sessions {
            dir: data.join("chat"),
        }
    }

    fn file(&self, id: &str) -> PathBuf {
        // The id was checked with the request (`check_chat`): letters,
        // digits, `-` and `_` only, so it names a file in `dir`.
        self.dir.join(format!("{id}.json"))
    }

    /// The session of `id` (a new one when unknown, expired, unreadable or
    /// not given), and the id.
    pub fn take(&self, id: Option<&str>) -> (String, Session) {
        let Some(id) = id else {
            return (mindnet_retrieve::random_uuid(), Session::default());
        };
        let file = self.file(id);
        let session = match std::fs::read(&file) {
            Ok(_) if expired(&file) => Session::default(),
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!("{}: not a chat session, starting anew: {e}", file.display());
                Session::default()
            }),
            Err(_) => Session::default(),
        };
        (id.to_string(), session)
    }

    /// Writes the session, bounded, and forgets expired and surplus ones.
    /// A session that cannot be written is an error the caller shows as a
    /// warning: the answer stands, only the next message will not know it.
    pub fn keep(&self, id: &str, mut session: Session) -> Result<(), String> {
        let excess = session.turns.len().saturating_sub(MAX_TURNS);
        session.turns.drain(..excess);
        let mut bytes = encode(&session);
        while bytes.len() > MAX_SESSION_BYTES && !session.turns.is_empty() {
            session.turns.remove(0);
            bytes = encode(&session);
        }
        let file = self.file(id);
        std::fs::create_dir_all(&self.dir)
            .and_then(|()| mindnet_core::file::write_atomically(&file, &bytes))
            .map_err(|e| {
                format!(
                    "the chat session could not be saved in {}: {e}",
                    file.display()
                )
            })?;
        self.prune();
        Ok(())
    }

    /// Removes expired sessions, then the least recently used beyond
    /// `MAX_SESSIONS`.
    fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut live = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            if expired(&path) {
                let _ = std::fs::remove_file(&path);
            } else {
                live.push((modified(&path), path));
            }
        }
        if live.len() > MAX_SESSIONS {
            live.sort();
            for (_, path) in &live[..live.len() - MAX_SESSIONS] {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

fn encode(session: &Session) -> Vec<u8> {
    // Plain strings and numbers: encoding cannot fail.
    serde_json::to_vec(session).unwrap_or_default()
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

fn expired(path: &Path) -> bool {
    modified(path).elapsed().is_ok_and(|age| age > SESSION_TTL)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: usize, len: usize) -> Turn {
        Turn {
            user: format!("Frage {n}"),
            answer: "x".repeat(len),
        }
    }

    #[test]
    fn a_session_survives_a_new_instance_and_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let s = Sessions::new(dir.path());
        let (id, mut session) = s.take(None);
        session.turns = (0..MAX_TURNS + 5).map(|n| turn(n, 10)).collect();
        s.keep(&id, session).unwrap();
        let (same, back) = Sessions::new(dir.path()).take(Some(&id));
        assert_eq!(same, id);
        assert_eq!(back.turns.len(), MAX_TURNS);
        assert_eq!(back.turns[0].user, "Frage 5");

        // Large answers: the oldest turns go until the file fits.
        let big = Session {
            turns: (0..10).map(|n| turn(n, MAX_SESSION_BYTES / 4)).collect(),
            interview: None,
        };
        s.keep("big", big).unwrap();
        let size = std::fs::metadata(s.file("big")).unwrap().len() as usize;
        assert!(size <= MAX_SESSION_BYTES, "{size}");
        assert_eq!(s.take(Some("big")).1.turns.last().unwrap().user, "Frage 9");

        // A broken file is a new session, not an error.
        std::fs::write(s.file("broken"), b"{not json").unwrap();
        assert!(s.take(Some("broken")).1.turns.is_empty());
    }

    fn touch(s: &Sessions, id: &str, t: SystemTime) {
        let f = std::fs::File::options()
            .write(true)
            .open(s.file(id))
            .unwrap();
        f.set_modified(t).unwrap();
    }

    #[test]
    fn the_least_recently_used_and_the_expired_go() {
        let dir = tempfile::tempdir().unwrap();
        let s = Sessions::new(dir.path());
        let hour_ago = SystemTime::now() - std::time::Duration::from_secs(3600);
        for n in 0..MAX_SESSIONS + 3 {
            let id = format!("s{n:04}");
            s.keep(&id, Session::default()).unwrap();
            // Distinct times, oldest first.
            touch(&s, &id, hour_ago + std::time::Duration::from_secs(n as u64));
        }
        s.keep("last", Session::default()).unwrap();
        let names: std::collections::BTreeSet<String> = std::fs::read_dir(&s.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), MAX_SESSIONS);
        assert!(!names.contains("s0003.json") && names.contains("s0004.json"));
        assert!(names.contains("last.json"));

        let mut session = Session::default();
        session.turns.push(turn(1, 5));
        s.keep("old", session).unwrap();
        touch(
            &s,
            "old",
            SystemTime::now() - SESSION_TTL - std::time::Duration::from_secs(60),
        );
        assert!(s.take(Some("old")).1.turns.is_empty());
    }
}
