//! The search history (FB-1), feedback (FB-2) and note change logs: JSON Lines in
//! `<data>/logs/`. Each record is written with one `write` call on a file
//! opened for appending, under an exclusive lock, so concurrent writers (the
//! CLI and a server) never interleave.

use crate::QueryResult;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

pub const HISTORY: &str = "search_history.jsonl";
pub const FEEDBACK: &str = "feedback.jsonl";
pub const CHANGES: &str = "changes.jsonl";
/// The node id that rates a generated answer instead of a hit.
pub const GENERATED_ANSWER: &str = "generated_answer";

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("unknown query id `{0}`: it is not in the search history")]
    UnknownQuery(String),
    #[error(
        "`{node_id}` is not a hit of query {query_id}; give one of its chunk or note ids, or `generated_answer`"
    )]
    UnknownNode { query_id: String, node_id: String },
    #[error("the score must be 1 to 5, not {0}")]
    Score(i64),
}

/// One line of `search_history.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchRecord {
    pub query_id: String,
    pub query_text: String,
    pub timestamp: String,
    pub mode: crate::Mode,
    pub intent: String,
    pub hits: Vec<LoggedHit>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoggedHit {
    pub chunk_id: String,
    pub note_id: String,
    pub score: f64,
    pub score_breakdown: crate::ScoreBreakdown,
    /// The chunk ids of the note's other matching sections (grouped hits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<String>,
}

/// One line of `changes.jsonl`: a note an operation wrote, and through
/// which transport (changes made in an editor are read from the files).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NoteChange {
    /// Seconds since the epoch.
    pub time: u64,
    pub path: String,
    /// `created`, `edited`, `moved` or `deleted`.
    pub change: String,
    /// A move's old path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// `cli`, `http` or `mcp`.
    pub door: String,
}

/// One line of `feedback.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Feedback {
    pub query_id: String,
    pub node_id: String,
    pub score: u8,
    pub comment: Option<String>,
    pub timestamp: String,
}

pub struct Logs {
    dir: PathBuf,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LogError + '_ {
    move |source| LogError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Logs {
    /// The logs of the index in `data`.
    pub fn new(data: &Path) -> Self {
        Logs {
            dir: data.join("logs"),
        }
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    fn append<T: Serialize>(&self, file: &str, record: &T) -> Result<(), LogError> {
        let path = self.path(file);
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let mut line = serde_json::to_vec(record).map_err(|e| LogError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        line.push(b'\n');
        let mut f: File = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        f.lock().map_err(io(&path))?;
        let written = f.write_all(&line).and_then(|()| f.flush());
        let _ = f.unlock();
        written.map_err(io(&path))
    }

    pub fn record_search(&self, r: &QueryResult, timestamp: &str) -> Result<(), LogError> {
        self.append(
            HISTORY,
            &SearchRecord {
                query_id: r.query_id.clone(),
                query_text: r.query.clone(),
                timestamp: timestamp.to_string(),
                mode: r.mode,
                intent: r.intent.clone(),
                hits: r
                    .hits
                    .iter()
                    .map(|h| LoggedHit {
                        chunk_id: h.chunk_id.clone(),
                        note_id: h.note_id.clone(),
                        score: h.score,
                        score_breakdown: h.score_breakdown.clone(),
                        sections: h.sections.iter().map(|s| s.chunk_id.clone()).collect(),
                    })
                    .collect(),
            },
        )
    }

    pub fn record_change(&self, change: &NoteChange) -> Result<(), LogError> {
        self.append(CHANGES, change)
    }

    /// Every logged note change, oldest first (torn lines skipped).
    pub fn changes(&self) -> Result<Vec<NoteChange>, LogError> {
        self.read_all(CHANGES)
    }

    /// Every logged search, oldest first (torn lines skipped).
    pub fn searches(&self) -> Result<Vec<SearchRecord>, LogError> {
        self.read_all(HISTORY)
    }

    /// The last `n` logged searches, newest first, read from the end of
    /// the file: the cost is the entries asked for, not the log's length.
    pub fn recent_searches(&self, n: usize) -> Result<Vec<SearchRecord>, LogError> {
        use std::io::{Read, Seek, SeekFrom};
        let path = self.path(HISTORY);
        let mut f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&path)(e)),
        };
        let len = f.metadata().map_err(io(&path))?.len();
        let mut tail: Vec<u8> = Vec::new();
        let mut pos = len;
        const BLOCK: u64 = 64 * 1024;
        // Back from the end until the tail holds n whole lines (or the file).
        while pos > 0 && tail.iter().filter(|b| **b == b'\n').count() <= n {
            let start = pos.saturating_sub(BLOCK);
            let mut block = vec![0u8; (pos - start) as usize];
            f.seek(SeekFrom::Start(start)).map_err(io(&path))?;
            f.read_exact(&mut block).map_err(io(&path))?;
            block.extend_from_slice(&tail);
            tail = block;
            pos = start;
        }
        let text = String::from_utf8_lossy(&tail);
        let mut lines: Vec<&str> = text.lines().collect();
        if pos > 0 && !lines.is_empty() {
            lines.remove(0); // cut in the middle
        }
        Ok(lines
            .iter()
            .rev()
            .filter_map(|l| serde_json::from_str::<SearchRecord>(l).ok())
            .take(n)
            .collect())
    }

    /// Every feedback record, oldest first (torn lines skipped).
    pub fn feedback(&self) -> Result<Vec<Feedback>, LogError> {
        self.read_all(FEEDBACK)
    }

    fn read_all<T: serde::de::DeserializeOwned>(&self, file: &str) -> Result<Vec<T>, LogError> {
        let path = self.path(file);
        let f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&path)(e)),
        };
        let mut out = Vec::new();
        for line in BufReader::new(f).lines() {
            let line = line.map_err(io(&path))?;
            if let Ok(r) = serde_json::from_str::<T>(&line) {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// The logged search with this id.
    pub fn find_search(&self, query_id: &str) -> Result<Option<SearchRecord>, LogError> {
        let path = self.path(HISTORY);
        let f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
        };
        for line in BufReader::new(f).lines() {
            let line = line.map_err(io(&path))?;
            // A line torn by a crash is skipped, not fatal.
            if let Ok(r) = serde_json::from_str::<SearchRecord>(&line)
                && r.query_id == query_id
            {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    /// Checks the feedback against the search history, then appends it.
    pub fn record_feedback(
        &self,
        query_id: &str,
        node_id: &str,
        score: i64,
        comment: Option<String>,
        timestamp: &str,
    ) -> Result<Feedback, LogError> {
        let score = u8::try_from(score)
            .ok()
            .filter(|s| (1..=5).contains(s))
            .ok_or(LogError::Score(score))?;
        let search = self
            .find_search(query_id)?
            .ok_or_else(|| LogError::UnknownQuery(query_id.to_string()))?;
        let known = node_id == GENERATED_ANSWER
            || search.hits.iter().any(|h| {
                h.chunk_id == node_id
                    || h.note_id == node_id
                    || h.sections.iter().any(|c| c == node_id)
            });
        if !known {
            return Err(LogError::UnknownNode {
                query_id: query_id.to_string(),
                node_id: node_id.to_string(),
            });
        }
        let fb = Feedback {
            query_id: query_id.to_string(),
            node_id: node_id.to_string(),
            score,
            comment,
            timestamp: timestamp.to_string(),
        };
        self.append(FEEDBACK, &fb)?;
        Ok(fb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Mode, QueryResult, Timings};

    fn result(id: &str) -> QueryResult {
        QueryResult {
            query_id: id.to_string(),
            query: "Warum?".into(),
            mode: Mode::Hybrid,
            intent: "why".into(),
            graph: true,
            hits: Vec::new(),
            causal: None,
            timings: Timings::default(),
        }
    }

    #[test]
    fn feedback_is_checked_against_the_history() {
        let dir = tempfile::tempdir().unwrap();
        let logs = Logs::new(dir.path());
        logs.record_search(&result("q1"), "t").unwrap();
        assert!(matches!(
            logs.record_feedback("nope", GENERATED_ANSWER, 3, None, "t"),
            Err(LogError::UnknownQuery(_))
        ));
        assert!(matches!(
            logs.record_feedback("q1", GENERATED_ANSWER, 6, None, "t"),
            Err(LogError::Score(6))
        ));
        assert!(matches!(
            logs.record_feedback("q1", "some-chunk", 3, None, "t"),
            Err(LogError::UnknownNode { .. })
        ));
        logs.record_feedback("q1", GENERATED_ANSWER, 5, Some("gut".into()), "t")
            .unwrap();
        let text = std::fs::read_to_string(logs.path(FEEDBACK)).unwrap();
        assert_eq!(text.lines().count(), 1);
    }

    #[test]
    fn concurrent_writers_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let d = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    let logs = Logs::new(&d);
                    for i in 0..200 {
                        let mut r = result(&format!("{t}-{i}"));
                        // Long lines make torn writes likely if appends were not atomic.
                        r.query = "x".repeat(10_000);
                        logs.record_search(&r, "t").unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let text = std::fs::read_to_string(Logs::new(dir.path()).path(HISTORY)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1600);
        for l in lines {
            serde_json::from_str::<SearchRecord>(l).expect("every line is one whole record");
        }
    }
}
