//! The MCP prompts: the three tasks an assistant is most often asked to do
//! with a vault, spelled out as the tool calls that do them well. A client
//! shows them as commands (Claude Desktop's "+" menu, `/` in Claude Code).
//! `tidy_note` embeds the note itself as a resource (`mindnet://note/…`),
//! read as `read_note` reads it.

use crate::resources;
use mindnet_app::ops::read_note::{ReadNoteOp, ReadNoteRequest};
use mindnet_app::{AppError, Service, Workspace};
use rmcp::model::{
    ContentBlock, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role,
};

/// One prompt: its name, title, what it is for, and its one argument.
struct Spec {
    name: &'static str,
    title: &'static str,
    about: &'static str,
    arg: &'static str,
    arg_about: &'static str,
}

const PROMPTS: &[Spec] = &[
    Spec {
        name: "why",
        title: "Why? From the notes",
        about: "Answer a why-question (or what follows from something) from the user's \
            notes, with the causal chain and the notes it rests on.",
        arg: "question",
        arg_about: "The question, e.g. \"Warum haben wir Qdrant gewählt?\"",
    },
    Spec {
        name: "tidy_note",
        title: "Tidy a note's links",
        about: "Check one note's links with the linter and mend what it finds, each change \
            as a small edit the user can follow.",
        arg: "note",
        arg_about: "The note's title, alias or vault path.",
    },
    Spec {
        name: "capture",
        title: "Capture a note, linked",
        about: "Write a new note on a topic into the vault, linked to the notes that \
            already cover it, and leave no link that leads nowhere.",
        arg: "topic",
        arg_about: "What the note is about, in the user's words.",
    },
];

pub fn list() -> Vec<Prompt> {
    PROMPTS
        .iter()
        .map(|p| {
            let mut arg = PromptArgument::new(p.arg);
            arg.description = Some(p.arg_about.into());
            arg.required = Some(true);
            Prompt::new(p.name, Some(p.about), Some(vec![arg])).with_title(p.title)
        })
        .collect()
}

/// The prompt `name` with its argument filled in.
pub fn get(ws: &Workspace, name: &str, args: &JsonObject) -> Result<GetPromptResult, AppError> {
    let spec = PROMPTS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PROMPTS.iter().map(|p| p.name).collect();
        AppError::bad_request(format!(
            "unknown prompt `{name}`; the prompts are {}",
            names.join(", ")
        ))
    })?;
    let value = args
        .get(spec.arg)
        .and_then(|v| v.as_str())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            AppError::bad_request(format!("prompt `{name}` needs the argument `{}`", spec.arg))
        })?;
    let messages = match spec.name {
        "why" => vec![user(format!(
            "Answer from my notes: {value}\n\n\
             Call `ask` with the question. Give the answer in my language, then the chain it \
             found, step by step, each step with the note (title and path) it rests on. Read a \
             note with `read_note` where a step needs more than its sentence. If the notes do \
             not hold the answer, say so, and name the notes that came closest."
        ))],
        "tidy_note" => tidy(ws, value)?,
        _ => vec![user(format!(
            "Write a note into my vault about: {value}\n\n\
             First `search` for notes that already cover it and read the closest with \
             `read_note`; do not write what a note already says, link it instead. Then \
             `write_note` with a clear title and [[links]] to those notes, by their exact \
             titles. The answer lists the linter's findings for the new note: mend each one \
             (`edit_note` with find_replace) until none is left, and tell me what you wrote."
        ))],
    };
    Ok(GetPromptResult::new(messages).with_description(spec.about))
}

/// The note as a resource, then what to do with it.
fn tidy(ws: &Workspace, note: &str) -> Result<Vec<PromptMessage>, AppError> {
    let read = ws.call::<ReadNoteOp>(&ReadNoteRequest {
        note: note.to_string(),
        section: None,
    })?;
    Ok(vec![
        PromptMessage::new(
            Role::User,
            ContentBlock::embedded_text(resources::uri(&read.path), read.text),
        ),
        user(format!(
            "Tidy the links of the note above ({}, version {}).\n\n\
             Call `lint` with this note. For a link to a name no note has, `search` for the \
             note it meant and correct the link; for a split spelling, use the spelling the \
             other notes use. Make each correction with `edit_note` (find_replace, the version \
             above, then the version each answer gives), and change nothing else. End with \
             the list of changes.",
            read.path, read.version
        )),
    ])
}

fn user(text: String) -> PromptMessage {
    PromptMessage::new_text(Role::User, text)
}
