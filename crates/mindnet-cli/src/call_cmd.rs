//! `mindnet call`: any operation of the table by its name, the request as
//! JSON in, the response as JSON out (a script's way to every operation;
//! people have the derived subcommands, `derived.rs`).

use crate::args::{ConfigArgs, IndexLocation, settings};
use crate::backend::Backend;
use anyhow::{Result, anyhow};
use mindnet_app::Service;
use mindnet_app::operation::Operation;
use mindnet_app::ops::{self, Visit};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct CallArgs {
    /// The operation's name (listed below).
    pub operation: String,
    /// Its request as JSON, e.g. '{"text": "Warum Redis?"}' (default `{}`).
    pub request: Option<String>,
    #[command(flatten)]
    pub at: IndexLocation,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub fn call(args: CallArgs) -> Result<ExitCode> {
    let s = settings(args.at.vault.clone(), &args.at.data, None, &args.config);
    let request: serde_json::Value = serde_json::from_str(args.request.as_deref().unwrap_or("{}"))
        .map_err(|e| anyhow!("the request is not JSON: {e}"))?;
    let mut call = Call {
        backend: Backend::open(&s)?,
        name: &args.operation,
        request: Some(request),
        answer: None,
    };
    ops::visit(&mut call);
    let answer = call.answer.ok_or_else(|| {
        anyhow!(
            "no operation `{}`; the operations are: {}",
            args.operation,
            ops::names().join(", ")
        )
    })??;
    println!("{}", serde_json::to_string_pretty(&answer)?);
    Ok(ExitCode::SUCCESS)
}

/// Runs the operation of the table whose name is `name`.
struct Call<'a> {
    backend: Backend,
    name: &'a str,
    request: Option<serde_json::Value>,
    answer: Option<Result<serde_json::Value>>,
}

impl Visit for Call<'_> {
    fn op<O: Operation>(&mut self) {
        if O::NAME != self.name {
            return;
        }
        let Some(request) = self.request.take() else {
            return;
        };
        self.answer = Some((|| {
            let req: O::Request = serde_json::from_value(request)
                .map_err(|e| anyhow!("the request of `{}`: {e}", O::NAME))?;
            let response = self.backend.call::<O>(&req)?;
            Ok(serde_json::to_value(response)?)
        })());
    }
}
