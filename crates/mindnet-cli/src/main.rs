//! `mindnet`: import an Obsidian vault into a knowledge graph.

mod args;
mod backend;
mod call_cmd;
mod chat_cmd;
mod derived;
mod import;
mod lint_cmd;
mod obsidian_cmd;
mod progress;
mod query_cmd;
mod serve_cmd;
mod store_cmd;
mod tune_cmd;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mindnet",
    version,
    about = "Turn an Obsidian vault into a typed knowledge graph"
)]
struct Cli {
    /// More log output (-v info, -vv debug). RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Index a vault: parse, chunk, derive edges, embed, store (or --dry-run).
    Import(import::ImportArgs),
    /// Search the index: hybrid retrieval with explanations.
    Query(query_cmd::QueryArgs),
    /// Answer a causal question ("Warum …?", "Welche Folgen …?") with its explanation chain.
    Ask(query_cmd::AskArgs),
    /// Talk to the vault: answers with citations and sources (extractive, or
    /// an LLM set by MINDNET_LLM_URL / MINDNET_OLLAMA_URL), interviews that
    /// draft new notes. Without a message: a conversation.
    Chat(chat_cmd::ChatArgs),
    /// Rate a hit of an earlier query (1-5); appended to logs/feedback.jsonl.
    Feedback(query_cmd::FeedbackArgs),
    /// Retrieval quality on a question set: recall@k, MRR, nDCG, latency.
    Eval(query_cmd::EvalArgs),
    /// The chat router on a judged message set: strategy accuracy without an LLM.
    EvalRouter(query_cmd::EvalRouterArgs),
    /// Learn the retriever's weights from judged sets and the feedback log
    /// (coordinate ascent, k-fold cross-validation); writes a proposal.
    Tune(tune_cmd::TuneArgs),
    /// Check the vault's edges and links as an author: vocabulary, targets, spellings, type rules, chains.
    Lint(lint_cmd::LintArgs),
    /// Preview the causal neighbourhood of a note: its causes and effects, as a tree or Mermaid.
    Chain(lint_cmd::ChainArgs),
    /// Counts, model and last import of an index.
    Status(store_cmd::StatusArgs),
    /// Integrity check of an index: dangling edges, orphans, broken chains, indexes.
    Check(store_cmd::StatusArgs),
    /// Move an index between a data dir and a Qdrant server (either way)
    /// without re-embedding; checks that both hold the same ids.
    Migrate(store_cmd::MigrateArgs),
    /// Serve the index over HTTP (127.0.0.1:8001): one warm process that
    /// keeps the model loaded and the index up to date with the vault.
    Serve(serve_cmd::ServeArgs),
    /// Serve the vault to an AI assistant over MCP on stdio (its tools are
    /// the table's: `mindnet mcp --help` names them). Over HTTP, `mindnet
    /// serve` offers the same at /mcp.
    Mcp(serve_cmd::McpArgs),
    /// Run any operation by name with its request as JSON; prints the
    /// response as JSON (here, or on the server that owns the index).
    Call(call_cmd::CallArgs),
    /// Fetch or list the local embedding models.
    #[command(subcommand)]
    Models(store_cmd::ModelsCommand),
    /// Measure performance on generated vaults.
    #[command(subcommand)]
    Bench(mindnet_bench::BenchCommand),
    /// The Obsidian plugin: install it into a vault.
    #[command(subcommand)]
    Obsidian(obsidian_cmd::ObsidianCommand),
}

/// mimalloc, not the system allocator: parsing a vault allocates many
/// small strings from both cores at once, and glibc's malloc spent a
/// quarter of a lint there. Measured at 100k notes: lint 6.0 → 4.6 s,
/// dry-run import 16.5 → 10.9 s, less peak memory (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The whole command line: the commands above, a derived subcommand for
/// every other operation of the table, and the lists of operations and
/// tools in the help, read from the table.
fn command_line() -> clap::Command {
    let cli = Cli::command();
    let derived = derived::commands(&cli);
    let tools = mindnet_app::ops::tool_names();
    cli.subcommands(derived)
        .mut_subcommand("call", |c| {
            c.after_help(format!(
                "Operations: {}.",
                mindnet_app::ops::names().join(", ")
            ))
        })
        .mut_subcommand("mcp", |c| {
            c.after_help(format!("Tools: {}.", tools.join(", ")))
        })
}

fn main() -> ExitCode {
    let matches = command_line().get_matches();
    init_logging(matches.get_count("verbose"));
    if !matches!(matches.subcommand_name(), Some("serve" | "mcp")) {
        end_quietly_on_a_closed_pipe();
    }
    // A subcommand `Cli` does not know is one derived from the table.
    let result = match matches.subcommand() {
        Some((name, m)) if Cli::command().find_subcommand(name).is_none() => derived::run(name, m),
        _ => None,
    };
    let result = result.unwrap_or_else(|| {
        Cli::from_arg_matches(&matches)
            .map_err(anyhow::Error::from)
            .and_then(run)
    });
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs a command of `Cli`.
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Import(args) => import::run(args),
        Command::Query(args) => query_cmd::query(args),
        Command::Ask(args) => query_cmd::ask(args),
        Command::Chat(args) => chat_cmd::run(args),
        Command::Feedback(args) => query_cmd::feedback(args),
        Command::Eval(args) => query_cmd::evaluate_cmd(args),
        Command::EvalRouter(args) => query_cmd::evaluate_router_cmd(args),
        Command::Tune(args) => tune_cmd::run(args),
        Command::Lint(args) => lint_cmd::run(args),
        Command::Chain(args) => lint_cmd::chain(args),
        Command::Status(args) => store_cmd::status(args),
        Command::Check(args) => store_cmd::check(args),
        Command::Migrate(args) => store_cmd::migrate(args),
        Command::Serve(args) => serve_cmd::run(args),
        Command::Mcp(args) => serve_cmd::mcp(args),
        Command::Call(args) => call_cmd::call(args),
        Command::Models(cmd) => store_cmd::models(cmd),
        Command::Bench(cmd) => mindnet_bench::run(cmd),
        Command::Obsidian(cmd) => obsidian_cmd::run(cmd),
    }
}

/// Rust ignores SIGPIPE, so a report printed into a closed pipe
/// (`mindnet bench … | head`) panics. A command that writes to stdout ends
/// instead, as any Unix tool does; an import ended so is completed by the
/// next one (STO-3). The two servers keep ignoring it: a client that hangs up
/// must never end them.
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: sets one signal back to its default disposition, before any
    // thread of ours runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn init_logging(verbose: u8) {
    // qdrant-edge logs start-up notices at WARN that mean nothing to a user.
    let default = match verbose {
        0 => "warn,qdrant_edge=error,rmcp=error",
        1 => "info,qdrant_edge=warn",
        _ => "debug,qdrant_edge=info,qdrant=info",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_consistent() {
        super::command_line().debug_assert();
    }

    #[test]
    fn call_names_every_operation_in_its_help() {
        let cli = super::command_line();
        let call = cli.find_subcommand("call").unwrap();
        let help = call.get_after_help().unwrap().to_string();
        let named: Vec<&str> = help
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        for name in mindnet_app::ops::names() {
            assert!(named.contains(&name), "`mindnet call --help` misses {name}");
        }
    }

    #[test]
    fn every_operation_has_a_subcommand() {
        let cli = super::command_line();
        for name in mindnet_app::ops::names() {
            let command = super::derived::command_name(name);
            assert!(
                cli.find_subcommand(&command).is_some(),
                "no `mindnet {command}`"
            );
        }
    }
}
