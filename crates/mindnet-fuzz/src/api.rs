//! Request bodies and tool arguments, run through the application layer on
//! an index of the example vault (use-m3, built once per process).
//!
//! A request either succeeds or is refused with a client error (400, 404,
//! 409, 422): an `internal` error on a request is a bug. A note written by
//! `save` or `write_note` lies inside the vault, and nothing appears beside
//! the vault; it is deleted again so that the index stays small.

use mindnet_app::api::*;
use mindnet_app::ops::{self, Service};
use mindnet_app::{AppError, ErrorCode, OpenMode, Settings, SettingsInput, Workspace};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

struct Fixture {
    /// Holds `vault/` and nothing else, so a write beside the vault shows.
    outer: tempfile::TempDir,
    vault: PathBuf,
    ws: Workspace,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let outer = tempfile::tempdir().expect("a temporary folder");
    let vault = outer.path().join("vault");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vault");
    copy_dir(&example, &vault);
    let settings = Settings::resolve(SettingsInput {
        vault: Some(vault.clone()),
        data: Some(outer.path().join("index")),
        embedder: Some("use-m3".into()),
        ..Default::default()
    });
    mindnet_app::import(&settings, &SyncRequest::default(), &())
        .expect("the example vault imports");
    let ws = Workspace::open(settings, OpenMode::Existing).expect("the index opens");
    Fixture { outer, vault, ws }
});

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

/// Builds the index before fuzzing starts, so the first input is not blamed
/// for the time it takes.
pub fn warm_up() {
    LazyLock::force(&FIXTURE);
}

pub fn http(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let f = &*FIXTURE;
    let ws = &f.ws;
    match pick % 16 {
        0 => run(body, |r: QueryRequest| ws.query(&r)),
        1 => run(body, |r: AskRequest| ws.ask(&r)),
        2 => run(body, |r: NeighborsRequest| ws.neighbors(&r)),
        3 => run(body, |r: ChainRequest| ws.chain(&r)),
        4 => run(body, |r: ReadNoteRequest| ws.read_note(&r)),
        5 => run(body, |r: ListNotesRequest| ws.list_notes(&r)),
        6 => run(body, |r: RecentRequest| ws.recent_changes(&r)),
        7 => run(body, |r: AnalyzeRequest| ws.analyze(&r)),
        8 => run(body, |r: LintRequest| ws.call::<ops::Lint>(&r)),
        9 => run(body, |r: HistoryRequest| ws.history(&r)),
        10 => run(body, |r: SaveRequest| {
            let saved = ws.save(&r)?;
            undo_save(f, &saved.path);
            Ok(saved)
        }),
        11 => run(body, |r: FeedbackRequest| ws.feedback(&r)),
        // `GET /notes/{key}`: the key is a path segment, any text.
        12 => {
            if let Err(e) = ws.note(&String::from_utf8_lossy(body)) {
                client_error(&e);
            }
        }
        // Bodies whose operation needs an LLM, rewrites the vault or
        // re-imports it: their parsing alone.
        13 => parse_only::<ChatRequest>(body),
        14 => parse_only::<FixRequest>(body),
        _ => parse_only::<SyncRequest>(body),
    }
}

pub fn mcp(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let tools = mindnet_mcp::tools::list();
    let tool = tools[pick as usize % tools.len()].name.to_string();
    let Ok(serde_json::Value::Object(args)) = serde_json::from_slice(body) else {
        return;
    };
    let f = &*FIXTURE;
    let reply = mindnet_mcp::tools::call(&f.ws, &tool, args).expect("a listed tool is callable");
    match reply {
        Ok(_) if tool == "write_note" => {
            // The path is in the reply's text; the vault tells it as well.
            for path in new_notes(f) {
                undo_save(f, &path);
            }
        }
        Ok(_) => {}
        Err(e) => client_error(&e),
    }
    beside_vault_untouched(f);
}

fn run<T: DeserializeOwned, R>(body: &[u8], op: impl FnOnce(T) -> Result<R, AppError>) {
    let Ok(req) = serde_json::from_slice::<T>(body) else {
        return;
    };
    if let Err(e) = op(req) {
        client_error(&e);
    }
    beside_vault_untouched(&FIXTURE);
}

fn parse_only<T: DeserializeOwned>(body: &[u8]) {
    let _ = serde_json::from_slice::<T>(body);
}

fn client_error(e: &AppError) {
    assert!(
        e.code != ErrorCode::Internal,
        "a request ended in an internal error: {}",
        e.message
    );
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
    let real = file.canonicalize().expect("the saved note exists");
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
