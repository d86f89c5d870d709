//! A subcommand for every operation of the table that has no friendly one,
//! derived from its request type: each field of the request is an argument
//! (a required field positional, in the request's order, and so is the one
//! field of a request that has one; the others flags, `_` written `-`), its doc comment the argument's help, the operation's
//! `ABOUT` the command's. The answer prints as the operation's printer
//! reads it (`mindnet_render::show`), or as JSON with `--json`.
//!
//! So `mindnet read-note "Redis Cache" --section Kontext` is
//! `ReadNoteRequest { note, section }`, run here or on the server that owns
//! the index, and a new operation has its subcommand without a line here.

use crate::args::{ConfigArgs, IndexLocation, settings};
use crate::backend::Backend;
use anyhow::{Result, anyhow};
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use mindnet_app::Service;
use mindnet_app::operation::{Operation, parse, schema_of};
use mindnet_app::ops::{self, Visit};
use serde_json::{Map, Value};
use std::process::ExitCode;

/// The subcommand name of an operation.
pub fn command_name(op: &str) -> String {
    op.replace('_', "-")
}

/// The derived subcommands: one per operation whose name no subcommand of
/// `cli` has yet.
pub fn commands(cli: &Command) -> Vec<Command> {
    struct Derive<'a> {
        cli: &'a Command,
        out: Vec<Command>,
    }
    impl Visit for Derive<'_> {
        fn op<O: Operation>(&mut self) {
            let name = command_name(O::NAME);
            if self.cli.find_subcommand(&name).is_none() {
                self.out.push(command::<O>(name));
            }
        }
    }
    let mut derive = Derive {
        cli,
        out: Vec::new(),
    };
    ops::visit(&mut derive);
    derive.out
}

/// One field of a request as the command line takes it.
struct Field {
    name: String,
    kind: Kind,
    required: bool,
    help: Option<String>,
    choices: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Text,
    /// A number or an object: the argument is read as JSON.
    Json,
    Flag,
    List,
}

/// The fields of a request, from its JSON schema.
fn fields<O: Operation>() -> Vec<Field> {
    let schema = schema_of::<O::Request>();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, p)| {
            let choices = choices(resolved(&schema, p));
            Field {
                name: name.clone(),
                kind: if choices.is_empty() {
                    kind(p)
                } else {
                    Kind::Text
                },
                required: required.contains(&name.as_str()),
                help: p.get("description").and_then(Value::as_str).map(one_line),
                choices,
            }
        })
        .collect()
}

/// A property's own schema, or the definition its `$ref` names (an enum
/// of the request's, such as `edit_note`'s operation).
fn resolved<'a>(schema: &'a Map<String, Value>, property: &'a Value) -> &'a Value {
    property
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| schema.get("$defs")?.get(name))
        .unwrap_or(property)
}

/// The words an enum allows: its `enum`, or the `const` of each `oneOf`
/// (what schemars writes for variants with docs).
fn choices(property: &Value) -> Vec<String> {
    if let Some(e) = property.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect();
    }
    property
        .get("oneOf")
        .and_then(Value::as_array)
        .map(|variants| {
            variants
                .iter()
                .filter_map(|v| v.get("const").and_then(Value::as_str))
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

fn kind(property: &Value) -> Kind {
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    match types.iter().find(|t| **t != "null") {
        Some(&"boolean") => Kind::Flag,
        Some(&"array") => Kind::List,
        Some(&"string") => Kind::Text,
        // An enum of words with no `type`, such as a `Lang`.
        None if property.get("enum").is_some() => Kind::Text,
        _ => Kind::Json,
    }
}

/// A doc comment as one line of help.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn command<O: Operation>(name: String) -> Command {
    let mut cmd = Command::new(name);
    let fields = fields::<O>();
    let alone = fields.len() == 1;
    for f in fields {
        let mut arg = Arg::new(f.name.clone());
        if let Some(help) = &f.help {
            arg = arg.help(help.clone());
        }
        arg = if f.kind == Kind::Flag {
            arg.long(command_name(&f.name))
        } else if f.required || alone {
            arg.required(f.required)
        } else {
            arg.long(command_name(&f.name))
        };
        if f.kind != Kind::Flag {
            arg = arg.value_name(f.name.to_uppercase());
        }
        arg = match f.kind {
            Kind::Flag => arg.action(ArgAction::SetTrue),
            Kind::List => arg.action(ArgAction::Append),
            Kind::Text | Kind::Json => arg.action(ArgAction::Set),
        };
        if !f.choices.is_empty() {
            arg = arg.value_parser(clap::builder::PossibleValuesParser::new(f.choices));
        }
        cmd = cmd.arg(arg);
    }
    let cmd = cmd.arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("Print the answer as JSON"),
    );
    // Last: the flattened arguments bring their own `about`.
    ConfigArgs::augment_args(IndexLocation::augment_args(cmd)).about(O::ABOUT)
}

/// The request the arguments of `O`'s subcommand make.
fn request<O: Operation>(m: &ArgMatches) -> Result<O::Request> {
    let mut object = Map::new();
    for f in fields::<O>() {
        let value = match f.kind {
            Kind::Flag => m.get_flag(&f.name).then_some(Value::Bool(true)),
            Kind::List => m
                .get_many::<String>(&f.name)
                .map(|vs| Value::Array(vs.map(|v| Value::String(v.clone())).collect())),
            Kind::Text => m
                .get_one::<String>(&f.name)
                .map(|v| Value::String(v.clone())),
            Kind::Json => m
                .get_one::<String>(&f.name)
                .map(|v| {
                    serde_json::from_str(v)
                        .map_err(|e| anyhow!("--{}: {v:?} is not a number or JSON: {e}", f.name))
                })
                .transpose()?,
        };
        if let Some(value) = value {
            object.insert(f.name, value);
        }
    }
    Ok(parse::<O::Request>(&command_name(O::NAME), object)?)
}

/// Runs the derived subcommand `name`, if it is one.
pub fn run(name: &str, m: &ArgMatches) -> Option<Result<ExitCode>> {
    struct Run<'a> {
        name: &'a str,
        matches: &'a ArgMatches,
        result: Option<Result<ExitCode>>,
    }
    impl Visit for Run<'_> {
        fn op<O: Operation>(&mut self) {
            if command_name(O::NAME) == self.name && self.result.is_none() {
                self.result = Some(run_op::<O>(self.matches));
            }
        }
    }
    let mut run = Run {
        name,
        matches: m,
        result: None,
    };
    ops::visit(&mut run);
    run.result
}

fn run_op<O: Operation>(m: &ArgMatches) -> Result<ExitCode> {
    let at = IndexLocation::from_arg_matches(m)?;
    let config = ConfigArgs::from_arg_matches(m)?;
    let req = request::<O>(m)?;
    let s = settings(at.vault, &at.data, None, &config);
    let response = Backend::open(&s)?.call::<O>(&req)?;
    if m.get_flag("json") {
        println!("{}", serde_json::to_string_pretty(&response)?);
    } else {
        let text = mindnet_render::show::<O>(&req, &response).text;
        print!("{text}");
        if !text.ends_with('\n') {
            println!();
        }
    }
    Ok(ExitCode::SUCCESS)
}
