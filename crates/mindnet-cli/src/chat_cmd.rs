//! `mindnet chat`: one message (`mindnet chat "…"`), or a conversation in
//! a REPL with line history. The answer streams in as it is written; the
//! sources follow. `/save` writes the last interview draft into the vault.

use crate::args::{ConfigArgs, IndexLocation, settings};
use crate::backend::Backend;
use anyhow::Result;
use mindnet_app::Service;
use mindnet_app::api::{CHAT_K, ChatEvent, ChatRequest, ChatResponse, Lang};
use mindnet_app::ops::save::{SaveOp, SaveRequest};
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ChatArgs {
    /// The message; without one, a conversation starts (`/hilfe` lists the commands).
    pub message: Option<String>,
    #[command(flatten)]
    pub at: IndexLocation,
    /// Continue this conversation (the id a previous answer printed).
    #[arg(long)]
    pub session: Option<String>,
    /// Number of sources.
    #[arg(short, long, default_value_t = CHAT_K)]
    pub k: usize,
    /// Answer from the notes' sentences even when an LLM is configured.
    #[arg(long)]
    pub extractive: bool,
    /// Skip the router: fact, decision, empathy, why, interview, …
    #[arg(long)]
    pub strategy: Option<String>,
    /// Language of the chat's own texts: de or en.
    #[arg(long, default_value_t = Lang::default())]
    pub lang: Lang,
    /// Show each source's score breakdown and reasons.
    #[arg(long)]
    pub explain: bool,
    /// Print the whole response as JSON (one-shot only).
    #[arg(long)]
    pub json: bool,
    /// Embedding model (default: the index's).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

const HELP: &str = "\
/save [Ordner] [--overwrite]  den letzten Entwurf im Vault speichern
/abbrechen                    das Interview abbrechen
/neu                          ein neues Gespräch beginnen
/quellen                      die Quellen der letzten Antwort mit Begründung
/exit                         beenden (auch Strg-D)
";

pub fn run(args: ChatArgs) -> Result<ExitCode> {
    let s = settings(
        args.at.vault.clone(),
        &args.at.data,
        args.embedder.clone(),
        &args.config,
    );
    let backend = Backend::open(&s)?;
    let request = |message: &str, session: Option<String>| ChatRequest {
        message: message.to_string(),
        session,
        k: Some(args.k),
        lang: args.lang,
        extractive: args.extractive,
        strategy: args.strategy.clone(),
    };
    if let Some(message) = &args.message {
        let req = request(message, args.session.clone());
        if args.json {
            let r = backend.chat(&req, &mut |_| true)?;
            println!("{}", serde_json::to_string_pretty(&r)?);
        } else {
            let r = streamed(&backend, &req, args.explain)?;
            eprintln!("session {} · query {}", r.session, r.query_id);
        }
        return Ok(ExitCode::SUCCESS);
    }
    repl(&backend, &args, &request)
}

/// Prints the badge, the text as it streams, then the sources.
fn streamed(backend: &Backend, req: &ChatRequest, explain: bool) -> Result<ChatResponse> {
    let mut out = std::io::stdout();
    let r = backend.chat(req, &mut |e| {
        let text = match &e {
            ChatEvent::Meta(m) => {
                mindnet_render::chat_badge(&m.strategy, &m.intent, &m.route, &m.mode)
            }
            ChatEvent::Token { text } => text.clone(),
            ChatEvent::Done { .. } => "\n".to_string(),
        };
        // A closed stdout (a pipe to `head`) stops the answer.
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .is_ok()
    })?;
    if !r.sources.is_empty() {
        println!(
            "\n{}",
            mindnet_render::chat_sources(&r.sources, explain).trim_end()
        );
    }
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
    Ok(r)
}

fn repl(
    backend: &Backend,
    args: &ChatArgs,
    request: &dyn Fn(&str, Option<String>) -> ChatRequest,
) -> Result<ExitCode> {
    let mut editor = rustyline::DefaultEditor::new()?;
    let history = args
        .at
        .data
        .data
        .clone()
        .unwrap_or_else(|| {
            args.at
                .vault
                .clone()
                .unwrap_or_else(|| ".".into())
                .join(".mindnet")
        })
        .join("logs")
        .join("chat_input.txt");
    let _ = editor.load_history(&history);
    let mut session = args.session.clone();
    let mut last: Option<ChatResponse> = None;
    eprintln!("mindnet chat: eine Frage, oder /hilfe. Strg-D beendet.");
    loop {
        let line = match editor.readline("› ") {
            Ok(l) => l,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(line);
        let mut words = line.split_whitespace();
        match words.next().unwrap_or("") {
            "/exit" | "/quit" | "/ende" => break,
            "/hilfe" | "/help" => eprint!("{HELP}"),
            "/neu" | "/new" => {
                session = None;
                last = None;
                eprintln!("neues Gespräch");
            }
            "/quellen" | "/sources" => match &last {
                Some(r) => print!("{}", mindnet_render::chat_sources(&r.sources, true)),
                None => eprintln!("noch keine Antwort"),
            },
            "/save" | "/speichern" => {
                let rest: Vec<&str> = words.collect();
                save(backend, last.as_ref(), &rest);
            }
            _ => match streamed(backend, &request(line, session.clone()), args.explain) {
                Ok(r) => {
                    session = Some(r.session.clone());
                    last = Some(r);
                }
                Err(e) => eprintln!("error: {e:#}"),
            },
        }
    }
    if let Some(dir) = history.parent()
        && dir.is_dir()
    {
        let _ = editor.save_history(&history);
    }
    Ok(ExitCode::SUCCESS)
}

/// `/save [folder] [--overwrite]`: the last draft through the same safe
/// path as `/ingest/save`.
fn save(backend: &Backend, last: Option<&ChatResponse>, rest: &[&str]) {
    let Some(draft) = last.and_then(|r| r.draft.as_ref()) else {
        eprintln!(
            "kein Entwurf zum Speichern; beginne ein Interview, z. B. „Neue Entscheidung festhalten“"
        );
        return;
    };
    let Some(title) = draft.title.clone() else {
        eprintln!("der Entwurf hat noch keinen Titel");
        return;
    };
    let overwrite = rest.contains(&"--overwrite");
    let folder = rest
        .iter()
        .find(|w| !w.starts_with("--"))
        .map(|f| f.to_string());
    let req = SaveRequest {
        title,
        text: draft.markdown.clone(),
        note_type: Some(draft.note_type.clone()),
        tags: Vec::new(),
        folder,
        overwrite,
        version: None,
    };
    match backend.call::<SaveOp>(&req) {
        Ok(r) => println!("gespeichert: {} ({})", r.path, r.note_id),
        Err(e) if e.code == mindnet_app::ErrorCode::Conflict => {
            eprintln!("{}; /save --overwrite ersetzt die Datei", e.message)
        }
        Err(e) => eprintln!("error: {}", e.message),
    }
}
