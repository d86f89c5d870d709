//! The tools: every operation of the table (`mindnet_app::ops`) that
//! declares one. The declaration gives a tool its name (stable from day
//! one), title, description, the JSON schema of its arguments and the
//! request they make; its effect gives the annotations. The text the model
//! reads is the operation's printer (`mindnet_render::show`).
//!
//! A tool answers with that text and the operation's response as
//! structured content. A bad argument or an unknown note is a tool error
//! the model sees and can correct (SEP-1303), never a panic or a silent
//! default.

use mindnet_app::operation::{Effect, Operation};
use mindnet_app::ops::{self, Visit};
use mindnet_app::{AppError, Service, Workspace};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;
use std::sync::Arc;

/// What a tool answers: text for the model, the response for programs.
pub struct Reply {
    pub text: String,
    pub structured: Value,
}

/// Every tool as MCP lists it, in table order.
pub fn list() -> &'static [Tool] {
    // The schemas are derived once: the HTTP transport asks for a tool's
    // definition on every call.
    static TOOLS: std::sync::OnceLock<Vec<Tool>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| {
        struct List(Vec<Tool>);
        impl Visit for List {
            fn op<O: Operation>(&mut self) {
                self.0.extend(tool::<O>());
            }
        }
        let mut tools = List(Vec::new());
        ops::visit(&mut tools);
        tools.0
    })
}

/// One tool's definition, if the name is ours.
pub fn get(name: &str) -> Option<&'static Tool> {
    list().iter().find(|t| t.name == name)
}

fn tool<O: Operation>() -> Option<Tool> {
    let declared = O::TOOL?;
    let reads = O::EFFECT == Effect::Reads;
    let annotations = ToolAnnotations::with_title(declared.title)
        .read_only(reads)
        .destructive(!reads)
        .idempotent(reads)
        .open_world(false);
    Some(
        Tool::new(
            declared.name,
            declared.description,
            Arc::new((declared.schema)()),
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
    impl Visit for Call<'_> {
        fn op<O: Operation>(&mut self) {
            let Some(declared) = O::TOOL.filter(|t| t.name == self.name) else {
                return;
            };
            let Some(args) = self.args.take() else { return };
            self.result = Some(
                (declared.request)(self.name, args)
                    .and_then(|req| reply::<O>(&req, self.ws.call::<O>(&req)?)),
            );
        }
    }
    let mut call = Call {
        ws,
        name,
        args: Some(args),
        result: None,
    };
    ops::visit(&mut call);
    call.result
}

/// The printer's text, and the response with the printer's extra fields.
fn reply<O: Operation>(req: &O::Request, r: O::Response) -> Result<Reply, AppError> {
    let shown = mindnet_render::show::<O>(req, &r);
    let mut structured = serde_json::to_value(&r)
        .map_err(|e| AppError::internal(format!("cannot encode the answer: {e}")))?;
    if let Some(o) = structured.as_object_mut() {
        o.extend(shown.extra);
    }
    Ok(Reply {
        text: shown.text,
        structured,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mindnet_app::operation::parse;
    use mindnet_app::ops::query::SearchArgs;
    use mindnet_app::ops::read_note::ReadNoteRequest;

    /// Whether each tool's operation only reads, by tool name.
    fn reads() -> std::collections::HashMap<&'static str, bool> {
        struct Reads(std::collections::HashMap<&'static str, bool>);
        impl Visit for Reads {
            fn op<O: Operation>(&mut self) {
                if let Some(t) = O::TOOL {
                    self.0.insert(t.name, O::EFFECT == Effect::Reads);
                }
            }
        }
        let mut r = Reads(Default::default());
        ops::visit(&mut r);
        r.0
    }

    #[test]
    fn every_tool_has_an_object_schema_and_annotations() {
        let tools = list();
        assert!(!tools.is_empty());
        let reads = reads();
        for t in tools {
            assert_eq!(
                t.input_schema.get("type"),
                Some(&Value::from("object")),
                "{}",
                t.name
            );
            assert!(t.input_schema.contains_key("properties"), "{}", t.name);
            let a = t.annotations.as_ref().unwrap();
            let read_only = reads[t.name.as_ref()];
            assert_eq!(a.read_only_hint, Some(read_only), "{}", t.name);
            assert_eq!(a.destructive_hint, Some(!read_only), "{}", t.name);
        }
        assert!(reads["search"]);
        assert!(!reads["write_note"]);
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
