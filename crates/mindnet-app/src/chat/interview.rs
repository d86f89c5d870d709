//! Interviews: the schema's questions without an LLM, one draft with it.

use super::{Answer, Asking, history, meta, mode, route_info, today};
use crate::api::{AnswerMode, ChatEvent, DraftInfo};
use crate::{AppError, Workspace};
use mindnet_chat::draft::heal;
use mindnet_chat::interview::{Interview, Step};
use mindnet_chat::prompts::fill;
use mindnet_chat::route::Route;
use mindnet_chat::{ChatMessage, LlmRequest, Priority, Role};
impl Asking<'_> {
    /// A new interview for the route's type: the schema's first question
    /// without an LLM, the whole draft from one.
    pub(super) fn start_interview(
        &mut self,
        route: Route,
        query_id: String,
    ) -> Result<Answer, AppError> {
        let (message, msgs, prompts) = (self.message, self.msgs, self.prompts);
        let registry = &self.ws.config().registry;
        let note_type = route
            .note_type
            .clone()
            .unwrap_or_else(|| registry.default_type.clone());
        let schema = registry.config(&note_type).schema.clone();
        let Some(llm) = self.llm else {
            let iv = Interview::start(&note_type, message);
            let text = match iv.step(&schema, msgs, &today()) {
                Step::Ask(q) => q,
                Step::Done(md) => md,
            };
            self.session.interview = Some(iv);
            let mode = mode("interview", None);
            return Ok(self.spoken(route, mode, text, None, query_id));
        };
        let fields = schema
            .iter()
            .map(|f| {
                format!(
                    "- {}{}: {}",
                    f.field,
                    if f.required { "*" } else { "" },
                    f.prompt
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        let prompt = fill(
            prompts.template("interview"),
            &[
                ("type", &note_type),
                ("schema", &fields),
                ("history", &history(self.session)),
                ("question", message),
            ],
        );
        let messages = [
            ChatMessage::new(Role::System, prompts.system.clone()),
            ChatMessage::new(Role::User, prompt),
        ];
        let m = mode("llm", Some(llm));
        let sink = &mut *self.sink;
        sink(meta(&route, &m, &[], &query_id));
        let reply = llm
            .chat(
                &LlmRequest {
                    messages: &messages,
                    priority: Priority::Realtime,
                    json_schema: None,
                    max_tokens: Some(700),
                },
                &mut |t| {
                    sink(ChatEvent::Token {
                        text: t.to_string(),
                    })
                },
            )
            .map_err(|e| AppError::unavailable(e.to_string()))?;
        let draft = self.draft_info(&note_type, &reply.text, true);
        Ok(Answer {
            strategy: route.strategy.clone(),
            intent: route.intent.clone(),
            route: route_info(&route),
            mode: m,
            text: reply.text,
            sources: Vec::new(),
            causal: None,
            draft: Some(draft),
            query_id,
            retrieval_ms: 0.0,
            first_token_ms: reply.first_token.map(|d| d.as_secs_f64() * 1000.0),
        })
    }

    /// A draft healed and checked against the type's schema.
    pub(super) fn draft_info(&self, note_type: &str, text: &str, complete: bool) -> DraftInfo {
        let h = heal(text);
        let schema = &self.ws.config().registry.config(note_type).schema;
        let missing = schema
            .iter()
            .filter(|f| f.required && !h.markdown.contains(&format!("## {}", f.field)))
            .map(|f| f.field.clone())
            .collect();
        DraftInfo {
            note_type: h.note_type.unwrap_or_else(|| note_type.to_string()),
            title: h.title,
            markdown: h.markdown,
            repairs: h.repairs,
            missing,
            complete,
        }
    }

    /// An answer with no retrieval, sent as one token.
    pub(super) fn spoken(
        &mut self,
        route: Route,
        mode: AnswerMode,
        text: String,
        draft: Option<DraftInfo>,
        query_id: String,
    ) -> Answer {
        (self.sink)(meta(&route, &mode, &[], &query_id));
        (self.sink)(ChatEvent::Token { text: text.clone() });
        Answer {
            strategy: route.strategy.clone(),
            intent: route.intent.clone(),
            route: route_info(&route),
            mode,
            text,
            sources: Vec::new(),
            causal: None,
            draft,
            query_id,
            retrieval_ms: 0.0,
            first_token_ms: Some(0.0),
        }
    }
}

pub(super) fn interview_strategy(ws: &Workspace) -> Result<String, AppError> {
    ws.engine()
        .chat()
        .strategies
        .iter()
        .find(|(_, s)| s.interview)
        .map(|(n, _)| n.clone())
        .ok_or_else(|| AppError::internal("decision_engine.yaml has no interview strategy"))
}
