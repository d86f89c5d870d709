//! The tools: their names (stable from day one), argument types (the JSON
//! schemas are derived from them, so schema and parser cannot disagree; a
//! tool whose arguments are an API request takes that type as it is),
//! descriptions an assistant can act on, annotations, and the call of one
//! workspace operation each.
//!
//! A tool answers with text for the model to read (the printers of
//! `mindnet-render`) and the operation's response as structured content.
//! A bad argument or an unknown note is a tool error the model sees and can
//! correct (SEP-1303), never a panic or a silent default.

use mindnet_app::api::*;
use mindnet_app::{AppError, Workspace};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;

/// How much of a hit's text the search text shows.
const SNIPPET_CHARS: usize = 300;
/// A search returns at most this many hits (an assistant's context is
/// small; `MAX_K` is for programs).
const MAX_SEARCH_K: usize = 50;

/// `search` filters: a hit must pass every filter that is given.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilters {
    /// Note types, e.g. `decision`, `experience`, `concept` (any of them).
    #[serde(default, rename = "type")]
    pub types: Vec<String>,
    /// Tags without `#` (any of them).
    #[serde(default, rename = "tag")]
    pub tags: Vec<String>,
    /// Statuses: `stable`, `active`, `draft`, … (any of them).
    #[serde(default, rename = "status")]
    pub statuses: Vec<String>,
    /// Vault folders or note paths, e.g. `projekte/` (any of them).
    #[serde(default, rename = "path")]
    pub paths: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for: a question or keywords, best in the notes' language.
    pub query: String,
    #[serde(default)]
    pub filters: SearchFilters,
    /// How many notes to return (1 to 50, default 10).
    #[serde(default)]
    pub k: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// A why or what-follows question, e.g. "Warum haben wir Redis
    /// eingeführt?" or "What followed from the migration?".
    pub question: String,
    /// Force an intent (`why`, `consequence`, …) instead of detecting it
    /// from the question.
    #[serde(default)]
    pub intent: Option<String>,
    /// How many notes besides the chain (default 5).
    #[serde(default)]
    pub k: Option<usize>,
    /// The language of the explanation: `de` (default) or `en`.
    #[serde(default)]
    pub lang: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteContextArgs {
    /// The note's title, alias, vault path or id.
    pub note: String,
    /// How many links away (1 to 3, default 1).
    #[serde(default)]
    pub hops: Option<usize>,
    /// Follow only these edge kinds, e.g. `caused_by`, `depends_on`
    /// (default: every content kind).
    #[serde(default)]
    pub kinds: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintArgs {
    /// One note (title, alias, path or id); the whole vault when left out.
    #[serde(default)]
    pub note: Option<String>,
    /// The least severity to report: `recommendation` (default), `warning`
    /// or `error`.
    #[serde(default)]
    pub severity: Option<String>,
    /// The messages' language, `de` or `en` (default: each note's).
    #[serde(default)]
    pub lang: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

/// What a tool answers: text for the model, the response for programs.
pub struct Reply {
    pub text: String,
    pub structured: Value,
}

/// Whether a tool only reads, and what a repeated call does.
#[derive(Clone, Copy)]
enum Effect {
    /// Reads the vault or the index; the same call gives the same answer.
    Reads,
    /// Writes a note into the vault (replacing one only when asked).
    Writes,
}

struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    effect: Effect,
    schema: fn() -> JsonObject,
}

fn schema<T: JsonSchema>() -> JsonObject {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    match serde_json::to_value(generator.into_root_schema_for::<T>()) {
        Ok(Value::Object(mut o)) => {
            o.remove("$schema");
            o.remove("title");
            // An argument-less tool still takes an object.
            o.entry("properties")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            o
        }
        _ => JsonObject::new(),
    }
}

const SPECS: &[Spec] = &[
    Spec {
        name: "search",
        title: "Search the notes",
        description: "Hybrid search (meaning, keywords and the link graph) over the user's notes. \
            Returns the best notes with title, path, the matching section, a snippet, a score and \
            the reasons for each rank. Use it first for any question about what the user knows or \
            wrote; then read_note for a whole note.",
        effect: Effect::Reads,
        schema: schema::<SearchArgs>,
    },
    Spec {
        name: "ask",
        title: "Explain why, or what followed",
        description: "Answers a causal question (\"Warum …?\", \"Why …?\", \"Welche Folgen …?\", \
            \"What followed from …?\") by walking the typed links between notes. Returns the \
            chain of causes or effects as text with the evidence for each step, every path found, \
            the explanation subgraph and a Mermaid diagram of it. For plain lookups use search.",
        effect: Effect::Reads,
        schema: schema::<AskArgs>,
    },
    Spec {
        name: "read_note",
        title: "Read a note",
        description: "The full text of one note as its file holds it (frontmatter included), or \
            only one section of it, with the links it makes and the links other notes make to it. \
            Name the note by title, alias, vault path or id, as search returns them.",
        effect: Effect::Reads,
        schema: schema::<ReadNoteRequest>,
    },
    Spec {
        name: "note_context",
        title: "Notes around a note",
        description: "The neighbourhood of a note in the link graph: every note within `hops` \
            links (both directions), optionally only along some edge kinds, and the typed edges \
            between them. Use it to see what a note connects to before reading further.",
        effect: Effect::Reads,
        schema: schema::<NoteContextArgs>,
    },
    Spec {
        name: "recent_changes",
        title: "Recently changed notes",
        description: "The notes whose files changed within a time window, newest first, and \
            whether the index holds each one's latest version yet.",
        effect: Effect::Reads,
        schema: schema::<RecentRequest>,
    },
    Spec {
        name: "lint",
        title: "Check notes for graph problems",
        description: "Runs the graph linter on one note or the whole vault: links to missing \
            notes, split spellings of one name, edge kinds that do not fit the note types, \
            causal cycles and gaps. Each finding names the file, line and rule.",
        effect: Effect::Reads,
        schema: schema::<LintArgs>,
    },
    Spec {
        name: "write_note",
        title: "Write a new note",
        description: "Creates a Markdown note in the user's vault and indexes it before \
            answering, so search finds it at once. The file name comes from the title; the note \
            is never written outside the vault, and an existing note is only replaced with \
            `overwrite: true`. Write only when the user asked for it.",
        effect: Effect::Writes,
        schema: schema::<SaveRequest>,
    },
    Spec {
        name: "status",
        title: "Index status",
        description: "How many notes, chunks and edges the index holds, the embedding model, \
            the last import, and whether a sync is running now.",
        effect: Effect::Reads,
        schema: schema::<StatusArgs>,
    },
];

/// Every tool as MCP lists it.
pub fn list() -> &'static [Tool] {
    // The schemas are derived once: the HTTP transport asks for a tool's
    // definition on every call.
    static TOOLS: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| SPECS.iter().map(tool).collect())
}

/// One tool's definition, if the name is ours.
pub fn get(name: &str) -> Option<&'static Tool> {
    list().iter().find(|t| t.name == name)
}

fn tool(s: &Spec) -> Tool {
    let reads = matches!(s.effect, Effect::Reads);
    let annotations = ToolAnnotations::with_title(s.title)
        .read_only(reads)
        .destructive(!reads)
        .idempotent(reads)
        .open_world(false);
    Tool::new(s.name, s.description, Arc::new((s.schema)()))
        .with_title(s.title)
        .annotate(annotations)
}

/// Runs a tool of ours on the workspace (`None`: no such tool).
pub fn call(ws: &Workspace, name: &str, args: JsonObject) -> Option<Result<Reply, AppError>> {
    let result = match name {
        "search" => parse(name, args).and_then(|a| search(ws, a)),
        "ask" => parse(name, args).and_then(|a| ask(ws, a)),
        "read_note" => parse(name, args).and_then(|a| read_note(ws, a)),
        "note_context" => parse(name, args).and_then(|a| note_context(ws, a)),
        "recent_changes" => parse(name, args).and_then(|a| recent(ws, a)),
        "lint" => parse(name, args).and_then(|a| lint(ws, a)),
        "write_note" => parse(name, args).and_then(|a| write_note(ws, a)),
        "status" => parse::<StatusArgs>(name, args).and_then(|_| status(ws)),
        _ => return None,
    };
    Some(result)
}

/// The arguments of `tool`, or an error naming the field at fault.
fn parse<T: DeserializeOwned>(tool: &str, args: JsonObject) -> Result<T, AppError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| AppError::bad_request(format!("arguments of `{tool}`: {e}")))
}

fn reply<T: serde::Serialize>(text: String, value: &T) -> Result<Reply, AppError> {
    let structured = serde_json::to_value(value)
        .map_err(|e| AppError::internal(format!("cannot encode the answer: {e}")))?;
    Ok(Reply { text, structured })
}

fn lang(field: &str, value: Option<&str>) -> Result<Option<Lang>, AppError> {
    value
        .map(|l| {
            l.parse()
                .map_err(|e| AppError::bad_request(format!("`{field}`: {e}")))
        })
        .transpose()
}

fn search(ws: &Workspace, a: SearchArgs) -> Result<Reply, AppError> {
    let k = a.k.unwrap_or(DEFAULT_K);
    if !(1..=MAX_SEARCH_K).contains(&k) {
        return Err(AppError::bad_request(format!(
            "`k` must be 1 to {MAX_SEARCH_K}, not {k}"
        )));
    }
    let SearchFilters {
        types,
        tags,
        statuses,
        paths,
    } = a.filters;
    let r = ws.query(&QueryRequest {
        text: a.query,
        k: Some(k),
        types,
        tags,
        statuses,
        paths,
        ..QueryRequest::default()
    })?;
    let text = mindnet_render::hits_text(&r, SNIPPET_CHARS);
    reply(text, &r)
}

fn ask(ws: &Workspace, a: AskArgs) -> Result<Reply, AppError> {
    let lang = lang("lang", a.lang.as_deref())?.unwrap_or_default();
    let r = ws.ask(&AskRequest {
        question: a.question,
        intent: a.intent,
        lang,
        no_traversal: false,
        k: a.k,
    })?;
    let mut text = mindnet_render::ask_text(&r, lang);
    let mut structured = serde_json::to_value(&r)
        .map_err(|e| AppError::internal(format!("cannot encode the answer: {e}")))?;
    if r.causal.is_some() {
        let diagram = mindnet_render::mermaid(&r);
        text.push('\n');
        text.push_str(&diagram);
        if let Some(o) = structured.as_object_mut() {
            o.insert("mermaid".into(), Value::String(diagram));
        }
    }
    Ok(Reply { text, structured })
}

fn read_note(ws: &Workspace, req: ReadNoteRequest) -> Result<Reply, AppError> {
    let r = ws.read_note(&req)?;
    reply(mindnet_render::note_text(&r), &r)
}

fn note_context(ws: &Workspace, a: NoteContextArgs) -> Result<Reply, AppError> {
    if a.kinds.iter().any(|k| k.contains(',')) {
        return Err(AppError::bad_request(
            "`kinds`: give each kind as its own list item",
        ));
    }
    let r = ws.neighbors(&NeighborsRequest {
        note: a.note,
        hops: a.hops,
        kinds: (!a.kinds.is_empty()).then(|| a.kinds.join(",")),
    })?;
    reply(mindnet_render::graph_text(&r), &r)
}

fn recent(ws: &Workspace, req: RecentRequest) -> Result<Reply, AppError> {
    let r = ws.recent_changes(&req)?;
    reply(mindnet_render::recent_text(&r), &r)
}

fn lint(ws: &Workspace, a: LintArgs) -> Result<Reply, AppError> {
    let severity = match a.severity.as_deref() {
        None => Severity::default(),
        Some(s) => s
            .parse()
            .map_err(|e| AppError::bad_request(format!("`severity`: {e}")))?,
    };
    let note = a.note.map(|n| ws.note_path(&n)).transpose()?;
    let r = mindnet_app::lint(
        ws.settings(),
        &LintRequest {
            note,
            severity,
            lang: lang("lang", a.lang.as_deref())?,
        },
    )?;
    let mut text = format!(
        "{} notes checked: {} errors, {} warnings, {} recommendations\n",
        r.notes,
        r.count(Severity::Error),
        r.count(Severity::Warning),
        r.count(Severity::Recommendation)
    );
    text += &mindnet_render::lint_text(&r.findings, r.notes, r.lang == Lang::En, &|_, _| None);
    reply(text, &r)
}

fn write_note(ws: &Workspace, req: SaveRequest) -> Result<Reply, AppError> {
    let r = ws.save(&req)?;
    let text = format!(
        "{} {} (id {}); indexed: {} notes new, {} changed",
        if r.created { "Created" } else { "Replaced" },
        r.path,
        r.note_id,
        r.sync.new,
        r.sync.changed
    );
    reply(text, &r)
}

fn status(ws: &Workspace) -> Result<Reply, AppError> {
    let r = ws.status()?;
    reply(mindnet_render::status_text(&r), &r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_and_annotations() {
        let tools = list();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "search",
                "ask",
                "read_note",
                "note_context",
                "recent_changes",
                "lint",
                "write_note",
                "status"
            ]
        );
        for t in tools {
            assert_eq!(
                t.input_schema.get("type"),
                Some(&Value::from("object")),
                "{}",
                t.name
            );
            assert!(t.input_schema.contains_key("properties"), "{}", t.name);
            let a = t.annotations.as_ref().unwrap();
            assert_eq!(a.read_only_hint, Some(t.name != "write_note"), "{}", t.name);
        }
        let search = get("search").unwrap();
        let props = search.input_schema["properties"].as_object().unwrap();
        assert!(props["filters"]["properties"]["type"].is_object());
        assert_eq!(
            search.input_schema["required"],
            serde_json::json!(["query"])
        );
    }

    #[test]
    fn bad_arguments_name_the_field() {
        let mut args = JsonObject::new();
        args.insert("query".into(), Value::from(3));
        let e = parse::<SearchArgs>("search", args).err().unwrap();
        assert!(e.message.contains("arguments of `search`"), "{}", e.message);
        assert!(e.message.contains("expected a string"), "{}", e.message);
        let mut args = JsonObject::new();
        args.insert("note".into(), Value::from("x"));
        args.insert("sektion".into(), Value::from("y"));
        let e = parse::<ReadNoteRequest>("read_note", args).err().unwrap();
        assert!(
            e.message.contains("unknown field `sektion`"),
            "{}",
            e.message
        );
    }
}
