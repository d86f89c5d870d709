//! `mindnet bench notes`: what the note upkeep costs an assistant on a real
//! index. Edits: an append with a new word, and, in a second thread, a
//! search for that word every few milliseconds; "searchable" is the time
//! from the call to the first search that finds the note, "answered" the
//! time to the edit's answer (which also carries the linter's findings).
//! Moves: a note linked from `--links` notes (added to the vault for the
//! run) moved back and forth, each move timed to its answer, the rewrite
//! of every linking note and the index update included.
//!
//! Edits the vault: give it a generated one, or a copy.

use anyhow::{Context, Result, ensure};
use mindnet_app::ops::edit_note::{EditNoteOp, EditNoteRequest, EditOperation};
use mindnet_app::ops::move_note::{MoveNoteOp, MoveNoteRequest};
use mindnet_app::ops::query::{QueryOp, QueryRequest};
use mindnet_app::ops::sync::SyncRequest;
use mindnet_app::{OpenMode, Service, Settings, SettingsInput, Workspace};
use mindnet_core::rng::Rng;
use mindnet_retrieve::eval::latency;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Words no generated note holds: three of them make each edit's sentence
/// its own, so that one edit's search does not find the others.
const RARE: &[&str] = &[
    "Kranich",
    "Lavendel",
    "Orgelpfeife",
    "Seidenraupe",
    "Leuchtturm",
    "Zimtschnecke",
    "Trompete",
    "Wanderdüne",
    "Mondfinsternis",
    "Kupferkessel",
    "Walnussbaum",
    "Eisvogel",
    "Schachuhr",
    "Hängebrücke",
    "Pfefferminze",
    "Segelflug",
    "Bernstein",
    "Murmeltier",
    "Zeppelin",
    "Holunder",
    "Glockenspiel",
    "Tintenfisch",
    "Saphir",
    "Flusskrebs",
];

/// The folder the move benchmark writes its notes into.
const FOLDER: &str = "bench-notes";

#[derive(clap::Args, Debug)]
pub struct NotesBench {
    /// An indexed vault (it is edited: use a generated one or a copy).
    pub vault: PathBuf,
    /// Edits to time.
    #[arg(long, default_value_t = 50)]
    pub edits: usize,
    /// Moves to time (back and forth).
    #[arg(long, default_value_t = 6)]
    pub moves: usize,
    /// Notes that link the moved note.
    #[arg(long, default_value_t = 150)]
    pub links: usize,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

pub fn run(args: NotesBench) -> Result<ExitCode> {
    let settings = Settings::resolve(SettingsInput {
        vault: Some(args.vault.clone()),
        ..Default::default()
    });
    let ws = Workspace::open(settings, OpenMode::Existing)?;
    ws.warm_up()?;
    edits(&ws, &args)?;
    moves(&ws, &args)?;
    Ok(ExitCode::SUCCESS)
}

fn edits(ws: &Workspace, args: &NotesBench) -> Result<()> {
    use mindnet_app::ops::list_notes::{ListNotesOp, ListNotesRequest, MAX_PAGE};
    let mut paths: Vec<String> = Vec::new();
    let mut offset = Some(0);
    while let Some(at) = offset {
        let page = ws.call::<ListNotesOp>(&ListNotesRequest {
            offset: at,
            limit: Some(MAX_PAGE),
        })?;
        paths.extend(page.notes.into_iter().map(|n| n.path));
        offset = page.next_offset;
    }
    ensure!(!paths.is_empty(), "the index holds no notes");
    let mut rng = Rng::new(args.seed);
    let (mut searchable, mut answered) = (Vec::new(), Vec::new());
    let mut missed = 0;
    for i in 0..args.edits {
        let path = rng.pick(&paths);
        let word = format!(
            "{} {} {} notizbench{}x{i}",
            rng.pick(RARE),
            rng.pick(RARE),
            rng.pick(RARE),
            args.seed
        );
        let t = Instant::now();
        let done = AtomicBool::new(false);
        let sentence = format!("Ein Nachtrag über {word}");
        let found = std::thread::scope(|s| -> Result<Option<Duration>> {
            let watcher = s.spawn(|| first_found(ws, &sentence, path, &done, t));
            let req = EditNoteRequest {
                note: path.clone(),
                operation: EditOperation::Append,
                content: format!("{sentence}."),
                ..Default::default()
            };
            let edited = ws.call::<EditNoteOp>(&req);
            answered.push(t.elapsed().as_secs_f64() * 1000.0);
            // Set before the edit's result is looked at: the watcher must
            // end whatever the edit did.
            done.store(true, Ordering::SeqCst);
            let found = watcher.join().unwrap_or(None);
            edited.with_context(|| format!("editing {path}"))?;
            Ok(found)
        })?;
        match found {
            Some(d) => searchable.push(d.as_secs_f64() * 1000.0),
            None => missed += 1,
        }
    }
    let (s, a) = (latency(&searchable), latency(&answered));
    println!(
        "edits ({}): searchable p50 {:.0} ms, p95 {:.0} ms ({missed} not in the first ten hits of a search for their sentence); answered (with the lint) p50 {:.0} ms, p95 {:.0} ms",
        args.edits, s.p50, s.p95, a.p50, a.p95
    );
    Ok(())
}

/// Searches for the appended sentence (as a person looks for what they
/// just wrote) until the note at `path` is among its first ten hits (or
/// the edit answered and one more search did not find it): when it was
/// found. (A search for the new word alone is a retrieval question: its
/// one lexical hit competes with the dense scores of every other note.)
fn first_found(
    ws: &Workspace,
    sentence: &str,
    path: &str,
    done: &AtomicBool,
    t: Instant,
) -> Option<Duration> {
    loop {
        let finished = done.load(Ordering::SeqCst);
        let mut q = QueryRequest::new(sentence);
        q.k = Some(10);
        let hits = ws.call::<QueryOp>(&q).ok()?.hits;
        if hits.iter().any(|h| h.path == path) {
            return Some(t.elapsed());
        }
        if finished {
            return None;
        }
        std::thread::sleep(Duration::from_millis(3));
    }
}

fn moves(ws: &Workspace, args: &NotesBench) -> Result<()> {
    let dir = args.vault.join(FOLDER);
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    std::fs::write(
        dir.join("Bench Ziel A.md"),
        "# Bench Ziel\n\nDas Ziel der Links.\n",
    )?;
    for i in 0..args.links {
        let text = format!(
            "Notiz {i} nennt [[Bench Ziel A]], [[Bench Ziel A#Bench Ziel|das Ziel]] und ![[Bench Ziel A]].\n"
        );
        std::fs::write(dir.join(format!("Quelle {i}.md")), text)?;
    }
    ws.sync(&SyncRequest::default(), &())?;
    let mut ms = Vec::new();
    let mut relinked = 0;
    for m in 0..args.moves {
        let (from, to) = if m % 2 == 0 { ("A", "B") } else { ("B", "A") };
        let t = Instant::now();
        let r = ws.call::<MoveNoteOp>(&MoveNoteRequest {
            note: format!("{FOLDER}/Bench Ziel {from}.md"),
            to: format!("Bench Ziel {to}"),
            version: None,
        })?;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        relinked = r.relinked.len();
    }
    let l = latency(&ms);
    println!(
        "moves ({}) of a note linked from {relinked} notes: p50 {:.0} ms, max {:.0} ms",
        args.moves, l.p50, l.max
    );
    std::fs::remove_dir_all(&dir).with_context(|| dir.display().to_string())?;
    let forget = SyncRequest {
        sync_deletes: true,
        ..SyncRequest::default()
    };
    ws.sync(&forget, &())?;
    Ok(())
}
