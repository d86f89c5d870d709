//! One writer at a time per index on a server. The write journal has one
//! slot, and a writer that found another's journal would "recover" it by
//! deleting notes the other is writing that moment. On one machine the
//! notes shard's file lock rules that out; on a server, a writer holds a
//! lease instead:
//!
//! - The lease is one point in the collection `<prefix>_writer`: its owner
//!   and the Unix time it expires.
//! - It is taken with a conditional upsert that Qdrant applies only while
//!   the lease has expired or is already ours (`update_filter`), and then
//!   read back: whoever's name is in it holds it. Writes to one point are
//!   applied in order (`ordering=medium` goes through the shard's leader in
//!   a cluster), so two takers cannot both win.
//! - A thread renews it every `RENEW`; dropping it releases it. A writer
//!   killed with -9 stops renewing, and its lease expires after `TERM`.
//!
//! Readers take no lease: they never touch the journal.

use crate::StoreError;
use crate::rest::Rest;
use reqwest::Method;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a lease lasts without renewal: how long a killed writer blocks
/// the next one.
const TERM: Duration = Duration::from_secs(30);
const RENEW: Duration = Duration::from_secs(10);
/// How long a writer waits for another's lease before giving up.
const WAIT: Duration = Duration::from_secs(60);
/// The lease point's id (any fixed UUID).
const POINT: &str = "6d696e64-6e65-7400-0000-777269746572";
/// The collection of the lease (and of the server store's write state).
pub(crate) const WRITER: &str = "writer";

pub(crate) struct Lease {
    rest: Rest,
    path: String,
    owner: String,
    lost: Arc<AtomicBool>,
    stop: Option<mpsc::Sender<()>>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

/// Seconds since the epoch, with a fraction: the lease's expiry clock.
fn epoch_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Who we are, as the waiting writer is told. (The machine's own name, not
/// `$HOSTNAME`: only `mindnet_app::Settings` reads the environment.)
fn owner() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown host".into());
    let nonce = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "mindnet pid {} on {host}, since {} ({nonce:08x})",
        std::process::id(),
        mindnet_core::time::now()
    )
}

/// Claims or renews the lease for `owner`; returns the lease as it stands
/// afterwards (owner, expiry).
fn claim(rest: &Rest, path: &str, owner: &str) -> Result<(String, f64), StoreError> {
    let mut attempt = 0;
    loop {
        let t = epoch_seconds();
        let claimed = rest.call(
            Method::PUT,
            &format!("{path}/points?wait=true&ordering=medium"),
            Some(&json!({
                "points": [{
                    "id": POINT,
                    "vector": {},
                    "payload": { "owner": owner, "expires": t + TERM.as_secs_f64() },
                }],
                "update_filter": { "should": [
                    { "key": "expires", "range": { "lt": t } },
                    { "key": "owner", "match": { "value": owner } },
                ]},
            })),
        );
        match claimed {
            Ok(_) => break,
            // A leader replica on a node that went down: the cluster picks
            // another once it has marked that one dead.
            Err(StoreError::Server { message, .. }) if attempt < 10 => {
                tracing::debug!("claiming the write lease: {message}; trying again");
                attempt += 1;
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(e) => return Err(e),
        }
    }
    let found = rest.call(
        Method::POST,
        &format!("{path}/points"),
        Some(&json!({ "ids": [POINT], "with_payload": true })),
    )?;
    let p = &found[0]["payload"];
    match (p["owner"].as_str(), p["expires"].as_f64()) {
        (Some(owner), Some(expires)) => Ok((owner.to_string(), expires)),
        _ => Err(StoreError::Payload {
            collection: "writer",
            message: format!("the write lease at {path} has no owner or expiry: {p}"),
        }),
    }
}

/// The path of `<prefix>_writer`, made if it is not there.
pub(crate) fn writer_collection(rest: &Rest, prefix: &str) -> Result<String, StoreError> {
    let path = format!("/collections/{prefix}_{WRITER}");
    if rest.call_opt(Method::GET, &path, None)?.is_none() {
        // As many copies as the index has: a lease on one node would
        // stop every write while that node is down.
        let notes = rest.call(Method::GET, &format!("/collections/{prefix}_notes"), None)?;
        let replicas = notes["config"]["params"]["replication_factor"]
            .as_u64()
            .unwrap_or(1);
        rest.create(
            &path,
            &json!({ "vectors": {}, "replication_factor": replicas }),
        )?;
    }
    Ok(path)
}

impl Lease {
    /// Takes the lease of the index `prefix`, waiting up to `WAIT` for a
    /// writer that holds it.
    pub fn take(rest: &Rest, prefix: &str) -> Result<Lease, StoreError> {
        let path = writer_collection(rest, prefix)?;
        let me = owner();
        let started = Instant::now();
        let mut told = false;
        loop {
            let (holder, expires) = claim(rest, &path, &me)?;
            if holder == me {
                break;
            }
            let waited = started.elapsed();
            if waited >= WAIT {
                return Err(StoreError::ServerBusy {
                    url: rest.url().to_string(),
                    prefix: prefix.to_string(),
                    owner: holder,
                    waited: waited.as_secs(),
                });
            }
            if !told {
                tracing::warn!(
                    "the index `{prefix}` at {} is being written by {holder}; waiting (its lease ends within {:.0} s unless renewed)",
                    rest.url(),
                    (expires - epoch_seconds()).max(0.0)
                );
                told = true;
            }
            std::thread::sleep(Duration::from_millis(500));
        }

        let lost = Arc::new(AtomicBool::new(false));
        let (stop, stopped) = mpsc::channel::<()>();
        let renewer = {
            let (rest, path, me, lost) = (rest.clone(), path.clone(), me.clone(), lost.clone());
            std::thread::spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(RENEW) {
                    match claim(&rest, &path, &me) {
                        Ok((holder, _)) if holder == me => {}
                        Ok((holder, _)) => {
                            tracing::error!("the write lease was taken over by {holder}");
                            lost.store(true, Ordering::SeqCst);
                            return;
                        }
                        // A server away for a moment: the next renewal may
                        // still come in time; a write meanwhile fails anyway.
                        Err(e) => tracing::warn!("renewing the write lease: {e}"),
                    }
                }
            })
        };
        Ok(Lease {
            rest: rest.clone(),
            path,
            owner: me,
            lost,
            stop: Some(stop),
            renewer: Some(renewer),
        })
    }

    /// Refuses to write once the lease is lost (it expired while this
    /// process could not renew it, and another writer took it).
    pub fn ensure(&self) -> Result<(), StoreError> {
        if self.lost.load(Ordering::SeqCst) {
            return Err(StoreError::Server {
                url: self.rest.url().to_string(),
                message: "this process lost its write lease to another writer (it could not renew it for 30 s); nothing more was written. Run the import again".into(),
            });
        }
        Ok(())
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.renewer.take() {
            let _ = t.join();
        }
        // Only our own lease; a server that has gone away lets it expire.
        let released = self.rest.call(
            Method::POST,
            &format!("{}/points/delete?wait=true&ordering=medium", self.path),
            Some(&json!({ "filter": { "must": [
                { "key": "owner", "match": { "value": self.owner } },
            ]}})),
        );
        if let Err(e) = released {
            tracing::debug!("releasing the write lease: {e}");
        }
    }
}
