//! The guide's tables of operations and MCP tools are generated from the
//! operation table: no one keeps a list of operations by hand. This test
//! fails when `docs/guide.md` differs from what the table says;
//! `MINDNET_UPDATE_SNAPSHOTS=1 cargo test -p mindnet-server --test guide`
//! writes it.

use mindnet_app::operation::{Effect, Method, Operation, schema_of};
use mindnet_app::ops::{self, Visit};
use serde_json::Value;
use std::path::Path;

const OPERATIONS: &str = "operations";
const TOOLS: &str = "tools";

/// The request's field names, in the request's order.
fn fields(schema: &serde_json::Map<String, Value>) -> Vec<String> {
    match schema.get("properties") {
        Some(Value::Object(p)) => p.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// How the route takes the request: `POST /x {"a", "b"}`, `GET /x?a=…`.
fn endpoint<O: Operation>() -> String {
    let route = O::ROUTE;
    let fields: Vec<String> = fields(&schema_of::<O::Request>())
        .into_iter()
        .filter(|f| !route.path.contains(&format!("{f}}}")))
        .collect();
    let path = route.path.replace("{*", "{");
    match route.method {
        Method::Post if fields.is_empty() => format!("`POST {path}`"),
        Method::Post => {
            let quoted: Vec<String> = fields.iter().map(|f| format!("\"{f}\"")).collect();
            format!("`POST {path}` `{{{}}}`", quoted.join(", "))
        }
        Method::Get if fields.is_empty() => format!("`GET {path}`"),
        Method::Get => {
            let query: Vec<String> = fields.iter().map(|f| format!("{f}=…")).collect();
            format!("`GET {path}?{}`", query.join("&"))
        }
    }
}

#[derive(Default)]
struct Tables {
    operations: Vec<String>,
    tools: Vec<String>,
}

impl Visit for Tables {
    fn op<O: Operation>(&mut self) {
        let tool = O::TOOL.map_or(String::new(), |t| format!("`{}`", t.name));
        self.operations.push(format!(
            "| `{}` | {} | `mindnet {}` | {tool} | {} |",
            O::NAME,
            endpoint::<O>(),
            O::NAME.replace('_', "-"),
            O::ABOUT
        ));
        if let Some(t) = O::TOOL {
            let args: Vec<String> = fields(&(t.schema)())
                .iter()
                .map(|f| format!("`{f}`"))
                .collect();
            let effect = match O::EFFECT {
                Effect::Reads => "read-only",
                Effect::Writes => "writes",
            };
            self.tools.push(format!(
                "| `{}` | {} | {} | {effect} |",
                t.name,
                args.join(", "),
                t.title
            ));
        }
    }
}

fn tables() -> Tables {
    let mut t = Tables::default();
    ops::visit(&mut t);
    t
}

/// `text` with the part between the markers of `name` replaced by `body`.
fn replaced(text: &str, name: &str, body: &str) -> String {
    let begin = format!("<!-- {name}: generated from the operation table (tests/guide.rs) -->\n");
    let end = format!("<!-- /{name} -->");
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("docs/guide.md has no {begin:?}"))
        + begin.len();
    let stop = text[start..]
        .find(&end)
        .unwrap_or_else(|| panic!("docs/guide.md has no {end:?}"))
        + start;
    format!("{}{body}{}", &text[..start], &text[stop..])
}

#[test]
fn the_guide_lists_every_operation_and_tool_of_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide.md");
    let before = std::fs::read_to_string(&path).unwrap();
    let t = tables();
    let operations = format!(
        "| operation | HTTP | command | MCP tool | does |\n|---|---|---|---|---|\n{}\n",
        t.operations.join("\n")
    );
    let tools = format!(
        "| tool | arguments | does | annotations |\n|---|---|---|---|\n{}\n",
        t.tools.join("\n")
    );
    let now = replaced(&replaced(&before, OPERATIONS, &operations), TOOLS, &tools);
    if std::env::var_os("MINDNET_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &now).unwrap();
        return;
    }
    assert!(
        before == now,
        "docs/guide.md's tables differ from the operation table; write them with \
         MINDNET_UPDATE_SNAPSHOTS=1 cargo test -p mindnet-server --test guide"
    );
}
