//! The strategy of a message: the rules, then the LLM router, then the
//! centroids of the strategies' example phrases.

use super::Asking;
use crate::AppError;
use mindnet_chat::ChatMessage;
use mindnet_chat::Llm;
use mindnet_chat::Priority;
use mindnet_chat::Role;
use mindnet_chat::prompts::Prompts;
use mindnet_chat::prompts::fill;
use mindnet_chat::route;
use mindnet_chat::route::Centroids;
use mindnet_chat::route::Route;
use mindnet_chat::route::RouteBy;
use mindnet_embed::Embedder;
use mindnet_retrieve::causal::DecisionEngine;
use mindnet_retrieve::causal::Strategy;
impl Asking<'_> {
    /// The rules, then the LLM router (with an LLM), then the centroids.
    pub(super) fn route(&mut self) -> Result<Route, AppError> {
        let (ws, message) = (self.ws, self.message);
        let engine = ws.engine();
        if let Some(r) = route::by_rules(engine, &ws.config().registry, message) {
            return Ok(r);
        }
        if let Some(llm) = self.llm {
            match self.llm_route(llm, self.prompts, message) {
                Ok(Some(r)) => return Ok(r),
                Ok(None) => {}
                Err(e) => self
                    .warnings
                    .push(format!("LLM router: {e}; the centroids decided")),
            }
        }
        let centroids = ws
            .chat
            .centroids
            .get_or_init(|| centroids(engine, ws.embedder()));
        centroid_route(engine, ws.embedder(), centroids, message, self.warnings)
    }

    /// Asks the LLM for a strategy by name (structured output).
    /// `prompts` are the request's: the file is read once per request.
    fn llm_route(
        &self,
        llm: &Llm,
        prompts: &Prompts,
        message: &str,
    ) -> Result<Option<Route>, mindnet_chat::LlmError> {
        let engine = self.ws.engine();
        let rules = engine.chat();
        // A question is never an interview, whoever routes it (the rules
        // and the centroids hold to this too): the LLM is not offered one.
        let question = route::is_question(rules, message);
        let offered: Vec<(&String, &Strategy)> = rules
            .strategies
            .iter()
            .filter(|(_, s)| !(question && s.interview))
            .collect();
        let names: Vec<&String> = offered.iter().map(|(n, _)| *n).collect();
        let list = offered
            .iter()
            .map(|(n, s)| format!("- {n}: {}", s.description))
            .collect::<Vec<_>>()
            .join("\n");
        let prompt = fill(
            prompts.template("router"),
            &[("strategies", &list), ("message", message)],
        );
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"strategy": {"type": "string", "enum": names}},
            "required": ["strategy"],
            "additionalProperties": false
        });
        let v = llm.structured(
            &[ChatMessage::new(Role::User, prompt)],
            &schema,
            Priority::Realtime,
        )?;
        let Some(name) = v["strategy"]
            .as_str()
            .filter(|n| names.iter().any(|m| m == n))
        else {
            return Ok(None);
        };
        let mut r = route::fallback(engine, message, None);
        r.strategy = name.to_string();
        r.by = RouteBy::Llm;
        r.detail = String::new();
        Ok(Some(r))
    }
}

/// The strategies' centroids, embedded once.
pub(crate) fn centroids(
    engine: &DecisionEngine,
    embedder: &dyn Embedder,
) -> Result<Centroids, String> {
    Centroids::build(engine.chat(), |texts| {
        texts
            .iter()
            .map(|t| embedder.embed_query(t))
            .collect::<Result<Vec<_>, _>>()
    })
    .map_err(|e| e.to_string())
}

/// The fallback without an LLM: the nearest centroid, else the default.
pub(crate) fn centroid_route(
    engine: &DecisionEngine,
    embedder: &dyn Embedder,
    centroids: &Result<Centroids, String>,
    message: &str,
    warnings: &mut Vec<String>,
) -> Result<Route, AppError> {
    let vector = embedder.embed_query(message)?;
    Ok(match centroids {
        Ok(c) => route::fallback(engine, message, Some((c, &vector))),
        Err(e) => {
            warnings.push(format!("router centroids: {e}"));
            route::fallback(engine, message, None)
        }
    })
}
