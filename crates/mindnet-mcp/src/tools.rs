//! The tools: the operations of the table (`mindnet_app::ops`) that declare
//! one. The table gives a tool its name (stable from day one), title,
//! description and annotations; a `Form` here gives its argument type (the
//! JSON schema is derived from it, so schema and parser cannot disagree; a
//! tool whose arguments are the operation's request takes that type as it
//! is), the request the arguments make, and the text the model reads.
//!
//! A tool answers with text for the model to read (the printers of
//! `mindnet-render`) and the operation's response as structured content.
//! A bad argument or an unknown note is a tool error the model sees and can
//! correct (SEP-1303), never a panic or a silent default.

use mindnet_app::api::*;
use mindnet_app::ops::{self, Effect, Operation};
use mindnet_app::{AppError, Service, Workspace};
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

/// What a tool answers: text for the model, the response for programs.
pub struct Reply {
    pub text: String,
    pub structured: Value,
}

/// How an operation of the table is called as a tool.
trait Form {
    type Op: Operation;
    /// What the assistant gives.
    type Args: JsonSchema + DeserializeOwned;
    /// The operation's request made of the arguments.
    fn request(args: Self::Args) -> Result<Request<Self>, AppError>;
    /// What the model reads.
    fn text(req: &Request<Self>, r: &Response<Self>) -> String;
    /// The text and the response as structured content.
    fn reply(req: &Request<Self>, r: Response<Self>) -> Result<Reply, AppError> {
        reply(Self::text(req, &r), &r)
    }
}

/// A tool whose arguments are its operation's request as it is.
trait Direct {
    type Op: Operation;
    fn text(r: &<Self::Op as Operation>::Response) -> String;
}

impl<T: Direct> Form for T
where
    <T::Op as Operation>::Request: JsonSchema,
{
    type Op = T::Op;
    type Args = <T::Op as Operation>::Request;
    fn request(args: Self::Args) -> Result<Request<Self>, AppError> {
        Ok(args)
    }
    fn text(_: &Request<Self>, r: &Response<Self>) -> String {
        T::text(r)
    }
}

type Request<F> = <<F as Form>::Op as Operation>::Request;
type Response<F> = <<F as Form>::Op as Operation>::Response;

/// Something done for every tool, with its form.
trait EachForm {
    fn form<F: Form>(&mut self);
}

/// Every tool, in the order a client lists them.
fn each(v: &mut impl EachForm) {
    v.form::<Search>();
    v.form::<AskTool>();
    v.form::<ReadNote>();
    v.form::<NoteContext>();
    v.form::<Recent>();
    v.form::<LintTool>();
    v.form::<WriteNote>();
    v.form::<Status>();
    v.form::<Tags>();
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

/// Every tool as MCP lists it.
pub fn list() -> &'static [Tool] {
    // The schemas are derived once: the HTTP transport asks for a tool's
    // definition on every call.
    static TOOLS: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| {
        struct List(Vec<Tool>);
        impl EachForm for List {
            fn form<F: Form>(&mut self) {
                self.0.extend(tool::<F>());
            }
        }
        let mut tools = List(Vec::new());
        each(&mut tools);
        tools.0
    })
}

/// One tool's definition, if the name is ours.
pub fn get(name: &str) -> Option<&'static Tool> {
    list().iter().find(|t| t.name == name)
}

fn tool<F: Form>() -> Option<Tool> {
    let declared = <F::Op as Operation>::TOOL?;
    let reads = <F::Op as Operation>::EFFECT == Effect::Reads;
    let annotations = ToolAnnotations::with_title(declared.title)
        .read_only(reads)
        .destructive(!reads)
        .idempotent(reads)
        .open_world(false);
    Some(
        Tool::new(
            declared.name,
            declared.description,
            Arc::new(schema::<F::Args>()),
        )
        .with_title(declared.title)
        .annotate(annotations),
    )
}

/// Runs a tool of ours on the workspace (`None`: no such tool).
pub fn call(ws: &Workspace, name: &str, args: JsonObject) -> Option<Result<Reply, AppError>> {
    struct Call<'a> {
        ws: &'a Workspace,
        name: &'a str,
        args: Option<JsonObject>,
        result: Option<Result<Reply, AppError>>,
    }
    impl EachForm for Call<'_> {
        fn form<F: Form>(&mut self) {
            if <F::Op as Operation>::TOOL.is_none_or(|t| t.name != self.name) {
                return;
            }
            let Some(args) = self.args.take() else { return };
            self.result = Some(
                parse::<F::Args>(self.name, args)
                    .and_then(F::request)
                    .and_then(|req| F::reply(&req, self.ws.call::<F::Op>(&req)?)),
            );
        }
    }
    let mut call = Call {
        ws,
        name,
        args: Some(args),
        result: None,
    };
    each(&mut call);
    call.result
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

struct Search;
impl Form for Search {
    type Op = ops::Query;
    type Args = SearchArgs;
    fn request(a: SearchArgs) -> Result<QueryRequest, AppError> {
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
        Ok(QueryRequest {
            k: Some(k),
            types,
            tags,
            statuses,
            paths,
            ..QueryRequest::new(a.query)
        })
    }
    fn text(_: &Request<Self>, r: &QueryResponse) -> String {
        mindnet_render::hits_text(r, SNIPPET_CHARS)
    }
}

struct AskTool;
impl Form for AskTool {
    type Op = ops::Ask;
    type Args = AskArgs;
    fn request(a: AskArgs) -> Result<AskRequest, AppError> {
        Ok(AskRequest {
            question: a.question,
            intent: a.intent,
            lang: lang("lang", a.lang.as_deref())?.unwrap_or_default(),
            no_traversal: false,
            k: a.k,
        })
    }
    fn text(req: &AskRequest, r: &QueryResponse) -> String {
        mindnet_render::ask_text(r, req.lang)
    }
    /// The text and the explanation's Mermaid diagram, also as a field of
    /// the structured answer.
    fn reply(req: &AskRequest, r: QueryResponse) -> Result<Reply, AppError> {
        let mut text = Self::text(req, &r);
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
}

struct ReadNote;
impl Direct for ReadNote {
    type Op = ops::ReadNote;
    fn text(r: &ReadNoteResponse) -> String {
        mindnet_render::note_text(r)
    }
}

struct NoteContext;
impl Form for NoteContext {
    type Op = ops::Neighbors;
    type Args = NoteContextArgs;
    fn request(a: NoteContextArgs) -> Result<NeighborsRequest, AppError> {
        if a.kinds.iter().any(|k| k.contains(',')) {
            return Err(AppError::bad_request(
                "`kinds`: give each kind as its own list item",
            ));
        }
        Ok(NeighborsRequest {
            note: a.note,
            hops: a.hops,
            kinds: (!a.kinds.is_empty()).then(|| a.kinds.join(",")),
        })
    }
    fn text(_: &Request<Self>, r: &GraphResponse) -> String {
        mindnet_render::graph_text(r)
    }
}

struct Recent;
impl Direct for Recent {
    type Op = ops::RecentChanges;
    fn text(r: &RecentResponse) -> String {
        mindnet_render::recent_text(r)
    }
}

struct LintTool;
impl Form for LintTool {
    type Op = ops::Lint;
    type Args = LintArgs;
    fn request(a: LintArgs) -> Result<LintRequest, AppError> {
        let severity = match a.severity.as_deref() {
            None => Severity::default(),
            Some(s) => s
                .parse()
                .map_err(|e| AppError::bad_request(format!("`severity`: {e}")))?,
        };
        Ok(LintRequest {
            note: a.note,
            severity,
            lang: lang("lang", a.lang.as_deref())?,
        })
    }
    fn text(_: &Request<Self>, r: &LintResponse) -> String {
        let mut text = format!(
            "{} notes checked: {} errors, {} warnings, {} recommendations\n",
            r.notes,
            r.count(Severity::Error),
            r.count(Severity::Warning),
            r.count(Severity::Recommendation)
        );
        text += &mindnet_render::lint_text(&r.findings, r.notes, r.lang == Lang::En, &|_, _| None);
        text
    }
}

struct WriteNote;
impl Direct for WriteNote {
    type Op = ops::Save;
    fn text(r: &SaveResponse) -> String {
        format!(
            "{} {} (id {}); indexed: {} notes new, {} changed",
            if r.created { "Created" } else { "Replaced" },
            r.path,
            r.note_id,
            r.sync.new,
            r.sync.changed
        )
    }
}

struct Status;
impl Direct for Status {
    type Op = ops::Status;
    fn text(r: &StatusResponse) -> String {
        mindnet_render::status_text(r)
    }
}

struct Tags;
impl Direct for Tags {
    type Op = ops::Tags;
    fn text(r: &TagsResponse) -> String {
        mindnet_render::tags_text(r)
    }
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
                "status",
                "tags"
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
    fn every_tool_of_the_table_has_a_form() {
        struct Declared(Vec<&'static str>);
        impl ops::Visit for Declared {
            fn op<O: Operation>(&mut self) {
                self.0.extend(O::TOOL.map(|t| t.name));
            }
        }
        let mut declared = Declared(Vec::new());
        ops::visit(&mut declared);
        let mut listed: Vec<&str> = list().iter().map(|t| t.name.as_ref()).collect();
        declared.0.sort_unstable();
        listed.sort_unstable();
        assert_eq!(declared.0, listed);
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
