//! `mindnet tune`: argument parsing, one call into the application layer,
//! one printer.

use crate::args::{ConfigArgs, settings};
use anyhow::{Result, bail};
use mindnet_app::settings::tune_index_dir;
use mindnet_app::tune::{JudgedSet, TuneRequest, tune};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Judged sets: a folder holding `questions.jsonl` and `vault/`, or
    /// `QUESTIONS.jsonl@VAULT`; `:FIELD` after either picks the question
    /// field (e.g. `xquad-de:question_en`).
    #[arg(value_name = "SET")]
    pub sets: Vec<String>,
    /// A vault whose search history and feedback log (ratings 4–5 mark the
    /// relevant notes) become a set of their own. Repeatable.
    #[arg(long, value_name = "VAULT")]
    pub feedback: Vec<PathBuf>,
    /// Folds of the cross-validation.
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
    /// Where the judged sets' indexes are kept (default: the user cache).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// The proposed retriever.yaml.
    #[arg(long, value_name = "FILE", default_value = "retriever.proposed.yaml")]
    pub out: PathBuf,
    /// Replace the active retriever file (--retriever) with the proposal,
    /// unless it hurts a set.
    #[arg(long)]
    pub write: bool,
    /// Embedding model for new indexes (default: e5-small).
    #[arg(long, value_name = "NAME")]
    pub embedder: Option<String>,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `DIR[:FIELD]` or `FILE@VAULT[:FIELD]`.
fn judged_set(spec: &str) -> Result<JudgedSet> {
    let (body, field) = match spec.rsplit_once(':') {
        // A Windows drive letter is not a field.
        Some((b, f)) if !f.contains(['/', '\\']) && !f.is_empty() && b.len() > 1 => {
            (b, Some(f.to_string()))
        }
        _ => (spec, None),
    };
    let (questions, vault) = match body.split_once('@') {
        Some((q, v)) => (PathBuf::from(q), PathBuf::from(v)),
        None => {
            let dir = Path::new(body);
            (dir.join("questions.jsonl"), dir.join("vault"))
        }
    };
    if !questions.is_file() {
        bail!("{spec}: no questions file at {}", questions.display());
    }
    if !vault.is_dir() {
        bail!("{spec}: no vault folder at {}", vault.display());
    }
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default()
    };
    let base = if body.contains('@') {
        format!("{}-{}", stem(&vault), stem(&questions))
    } else {
        stem(Path::new(body.trim_end_matches('/')))
    };
    let name = match &field {
        Some(f) => format!("{base}:{f}"),
        None => base,
    };
    Ok(JudgedSet {
        name,
        questions,
        vault,
        field: field.unwrap_or_else(|| "question".to_string()),
    })
}

pub fn run(args: TuneArgs) -> Result<ExitCode> {
    let sets = args
        .sets
        .iter()
        .map(|s| judged_set(s))
        .collect::<Result<Vec<_>>>()?;
    let s = settings(
        None,
        &Default::default(),
        args.embedder.clone(),
        &args.config,
    );
    // A feedback vault's index is opened here: not while a server owns it.
    for vault in &args.feedback {
        let at = settings(Some(vault.clone()), &Default::default(), None, &args.config);
        crate::backend::refuse_if_served(&at, "tune")?;
    }
    let req = TuneRequest {
        sets,
        feedback: args.feedback.clone(),
        index_dir: args.index_dir.clone().unwrap_or_else(tune_index_dir),
        folds: args.folds,
        out: args.out.clone(),
        write: args.write,
    };
    let report = tune(&s, &req, &crate::progress::bar(), &|m| eprintln!("{m}"))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", mindnet_render::tune_text(&report));
    }
    Ok(if report.refused.is_some() && args.write {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_specs() {
        let dir = std::env::temp_dir().join(format!("mindnet-tune-spec-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("vault")).unwrap();
        std::fs::write(dir.join("questions.jsonl"), "").unwrap();
        let d = dir.display().to_string();
        let s = judged_set(&format!("{d}:question_en")).unwrap();
        assert_eq!(s.field, "question_en");
        assert!(s.name.ends_with(":question_en"));
        assert_eq!(s.vault, dir.join("vault"));
        let s = judged_set(&format!("{d}/questions.jsonl@{d}/vault")).unwrap();
        assert_eq!(s.field, "question");
        assert_eq!(s.name, "vault-questions");
        assert!(judged_set(&format!("{d}/nothing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
