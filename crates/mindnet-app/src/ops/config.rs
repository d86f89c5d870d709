//! `config`: what this process runs with.

use crate::api::NoArgs;
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The configuration in use: files, model, language, LLM.
pub struct ConfigOp;

impl Operation for ConfigOp {
    type Request = NoArgs;
    type Response = ConfigResponse;
    const NAME: &'static str = "config";
    const ABOUT: &'static str = "The configuration in use: files, model, language, LLM.";
    const EXAMPLE: &'static str = r#"{}"#;
    const EFFECT: Effect = Effect::Reads;
    const NEEDS: Needs = Needs::Index;
    const ROUTE: Route = Route::get("/config");
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<NoArgs>> = None;

    fn run(ws: &Workspace, _: &NoArgs) -> Result<ConfigResponse, AppError> {
        Ok(config_info(ws))
    }
}

/// `GET /config`: what this server runs with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConfigResponse {
    pub vault: String,
    pub data: String,
    pub model: String,
    pub lang: String,
    /// Each configuration file by name: its path, or `built-in`.
    pub files: Vec<ConfigFile>,
    /// `extractive`, or the LLM's provider and model; an invalid LLM setting
    /// is named here.
    pub llm: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ConfigFile {
    pub name: String,
    pub path: String,
}

/// The configuration in use: files, model, language, LLM.
fn config_info(ws: &Workspace) -> ConfigResponse {
    let f = &ws.settings().files;
    let file = |name: &str, p: &Option<std::path::PathBuf>| ConfigFile {
        name: name.to_string(),
        path: p
            .as_ref()
            .filter(|p| p.is_file())
            .map_or("built-in".to_string(), |p| p.display().to_string()),
    };
    let llm = match (&ws.settings().llm, ws.chat.llm()) {
        (crate::settings::LlmSetting::Invalid(e), _) => format!("invalid: {e}"),
        (_, Some(l)) => format!(
            "{:?} {} at {}",
            l.config().provider,
            l.config().model,
            l.config().url
        ),
        (_, None) => "extractive (no LLM)".to_string(),
    };
    ConfigResponse {
        vault: ws.settings().vault.display().to_string(),
        data: ws.settings().data.display().to_string(),
        model: ws.embedder().id().name.clone(),
        lang: ws.settings().lang.clone(),
        files: vec![
            file("types.yaml", &f.types),
            file("edge_vocabulary.yaml", &f.vocabulary),
            file("retriever.yaml", &f.retriever),
            file("decision_engine.yaml", &f.decision_engine),
            file("lint.yaml", &f.lint),
            file("prompts.yaml", &f.prompts),
        ],
        llm,
    }
}
