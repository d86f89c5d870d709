//! `mindnet bench soak`: a long run of `mindnet serve` under query load while
//! a seeded editor keeps changing, adding and deleting notes. Reports
//! queries/s, latency, errors and the server's RSS over time, then checks
//! that the index equals a clean import of the vault as it ended.

use crate::questions::sample_questions;
use crate::serve::{ask, report, start, status};
use anyhow::{Context, Result, bail};
use mindnet_core::rng::Rng;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct SoakBench {
    /// An indexed vault. It is edited: use a generated one.
    pub vault: PathBuf,
    #[arg(long, default_value_t = 30)]
    pub minutes: u64,
    #[arg(long, default_value_t = 8)]
    pub clients: usize,
    /// Milliseconds between two edits of the vault.
    #[arg(long, default_value_t = 2000)]
    pub edit_every_ms: u64,
    /// Minutes of warm-up before the RSS baseline is taken.
    #[arg(long, default_value_t = 3)]
    pub warm_up_minutes: u64,
    #[arg(long, default_value_t = 11)]
    pub seed: u64,
}

/// The server's resident set in MB, from /proc.
fn rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

#[derive(Debug, Default)]
struct Edits {
    changed: usize,
    added: usize,
    deleted: usize,
}

/// One edit: a note changed (most often), added or deleted.
fn edit(vault: &Path, rng: &mut Rng, n: usize, edits: &mut Edits) -> Result<()> {
    let files = mindnet_ingest::scan::scan_vault(vault)?.files;
    anyhow::ensure!(!files.is_empty(), "the vault has no notes left");
    let roll = rng.below(10);
    if roll < 7 {
        let f = rng.pick(&files);
        let mut text = std::fs::read_to_string(&f.abs_path)?;
        text.push_str(&format!("\nDauerlauf, Änderung {n}.\n"));
        std::fs::write(&f.abs_path, text)?;
        edits.changed += 1;
    } else if roll < 9 {
        let target = &rng.pick(&files).rel_path;
        let link = target.trim_end_matches(".md");
        std::fs::write(
            vault.join(format!("Dauerlauf {n}.md")),
            format!("# Dauerlauf {n}\n\nEine neue Notiz im Dauerlauf, verweist auf [[{link}]].\n"),
        )?;
        edits.added += 1;
    } else {
        std::fs::remove_file(&rng.pick(&files).abs_path)?;
        edits.deleted += 1;
    }
    Ok(())
}

/// Waits until the watcher has synced everything: no sync running for
/// `quiet` in a row.
fn wait_synced(base: &str, quiet: Duration) -> Result<()> {
    let t = Instant::now();
    let mut idle_since: Option<Instant> = None;
    loop {
        let s = status(base).context("the server stopped answering /status")?;
        if s["sync"]["running"] == false {
            let since = *idle_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= quiet {
                return Ok(());
            }
        } else {
            idle_since = None;
        }
        if t.elapsed() > Duration::from_secs(1800) {
            bail!("the watcher did not settle within 30 min");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

pub fn run(args: SoakBench) -> Result<ExitCode> {
    let questions: Vec<String> = sample_questions(&args.vault, 400, args.seed)?
        .into_iter()
        .map(|q| q.question)
        .collect();
    let (served, ready) = start(&args.vault)?;
    let pid = served.child.id();
    let base = served.base.clone();
    println!(
        "ready in {ready:.2} s; soak of {} min, {} clients",
        args.minutes, args.clients
    );
    let total = Duration::from_secs(args.minutes * 60);
    let warm_up = Duration::from_secs(args.warm_up_minutes * 60);
    let stop = Arc::new(AtomicBool::new(false));
    let errors = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();

    // The clients: latencies after the warm-up count.
    let n = args.clients;
    let clients: Vec<_> = (0..n)
        .map(|c| {
            let (stop, errors, base) = (stop.clone(), errors.clone(), base.clone());
            let qs = questions.clone();
            std::thread::spawn(move || {
                let http = reqwest::blocking::Client::new();
                let mut ms = Vec::new();
                let mut i = c;
                while !stop.load(Ordering::SeqCst) {
                    let q = &qs[i % qs.len()];
                    match ask(&http, &base, q) {
                        Some(x) if started.elapsed() >= warm_up => ms.push(x),
                        Some(_) => {}
                        None => {
                            errors.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    i += n;
                }
                ms
            })
        })
        .collect();

    // The editor.
    let editor = {
        let (stop, vault) = (stop.clone(), args.vault.clone());
        let (seed, every) = (args.seed, Duration::from_millis(args.edit_every_ms));
        std::thread::spawn(move || -> Result<Edits> {
            let mut rng = Rng::new(seed);
            let mut edits = Edits::default();
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                edit(&vault, &mut rng, n, &mut edits)?;
                n += 1;
                std::thread::sleep(every);
            }
            Ok(edits)
        })
    };

    // RSS every 30 s.
    let curve: Arc<Mutex<Vec<(f64, f64)>>> = Arc::default();
    while started.elapsed() < total {
        if let Some(mb) = rss_mb(pid) {
            let minute = started.elapsed().as_secs_f64() / 60.0;
            println!("rss {minute:5.1} min {mb:7.1} MB");
            curve
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((minute, mb));
        }
        std::thread::sleep(Duration::from_secs(30).min(total.saturating_sub(started.elapsed())));
    }
    stop.store(true, Ordering::SeqCst);
    let edits = editor
        .join()
        .map_err(|_| anyhow::anyhow!("the editor panicked"))??;
    let ms: Vec<f64> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap_or_default())
        .collect();
    let seconds = total.saturating_sub(warm_up).as_secs_f64();
    report(
        &format!(
            "{} clients after {} min of warm-up",
            args.clients, args.warm_up_minutes
        ),
        &crate::serve::Load {
            ok: ms.len(),
            errors: errors.load(Ordering::SeqCst),
            seconds,
            ms,
        },
    );
    println!(
        "edits: {} changed, {} added, {} deleted",
        edits.changed, edits.added, edits.deleted
    );
    let curve = curve.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let warm = args.warm_up_minutes as f64;
    if let (Some(base_mb), Some(last)) = (
        curve.iter().find(|(m, _)| *m >= warm).map(|(_, mb)| *mb),
        curve.last().map(|(_, mb)| *mb),
    ) {
        let peak = curve.iter().map(|(_, mb)| *mb).fold(0.0, f64::max);
        println!(
            "rss after warm-up {base_mb:.1} MB, at the end {last:.1} MB ({:+.1} %), peak {peak:.1} MB",
            (last / base_mb - 1.0) * 100.0
        );
    }

    wait_synced(&base, Duration::from_secs(5))?;
    drop(served);
    let same = equals_a_clean_import(&args.vault)?;
    println!("the index equals a clean import of the final vault: {same}");
    Ok(if same {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Imports a copy of the vault afresh, with the index's model, and compares
/// every id.
fn equals_a_clean_import(vault: &Path) -> Result<bool> {
    let data = vault.join(".mindnet");
    let model = mindnet_store::StoreMeta::read_from(&data)?
        .context("the vault has no index")?
        .model
        .name;
    let copy = tempfile::tempdir()?;
    let files = mindnet_ingest::scan::scan_vault(vault)?.files;
    for f in &files {
        let to = copy.path().join(&f.rel_path);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::copy(&f.abs_path, &to)?;
    }
    let settings = mindnet_app::Settings::resolve(mindnet_app::SettingsInput {
        vault: Some(copy.path().to_path_buf()),
        embedder: Some(model),
        ..Default::default()
    });
    mindnet_app::import(
        &settings,
        &mindnet_app::ops::sync::SyncRequest::default(),
        &(),
    )?;
    let ids = |dir: &Path| -> Result<Vec<std::collections::BTreeSet<String>>> {
        let store = mindnet_store::EmbeddedStore::open_existing(dir)?;
        ["notes", "chunks", "edges"]
            .into_iter()
            .map(|c| Ok(mindnet_store::ids(&store, c)?))
            .collect()
    };
    let (a, b) = (ids(&data)?, ids(&copy.path().join(".mindnet"))?);
    for (i, name) in ["notes", "chunks", "edges"].iter().enumerate() {
        println!("  {name}: {} served, {} clean", a[i].len(), b[i].len());
    }
    Ok(a == b)
}
