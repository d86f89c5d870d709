//! Smart edges judged by the LLM (CHAT-7).

use mindnet_chat::ChatMessage;
use mindnet_chat::Llm;
use mindnet_chat::Priority;
use mindnet_chat::Role;
use mindnet_chat::prompts::Prompts;
use mindnet_chat::prompts::fill;
use mindnet_index::LinkCandidate;
use mindnet_index::LinkJudge;
use std::sync::Arc;
/// Smart edges judged by the LLM (CHAT-7): one structured question per
/// link, at background priority, so a chat stays responsive meanwhile.
#[derive(Debug)]
pub(super) struct LlmJudge {
    pub(super) llm: Arc<Llm>,
    pub(super) prompts: Arc<Prompts>,
}

impl LinkJudge for LlmJudge {
    fn method(&self) -> &'static str {
        "llm"
    }
    fn fingerprint(&self) -> String {
        self.llm.config().model.clone()
    }
    fn confidence(&self) -> f64 {
        0.9
    }
    fn keep(&self, c: &LinkCandidate<'_>) -> Result<bool, String> {
        let prompt = fill(
            self.prompts.template("smart_edge"),
            &[
                ("source", c.source_title),
                ("target", c.target_title),
                ("passage", &c.passage),
            ],
        );
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"keep": {"type": "boolean"}},
            "required": ["keep"],
            "additionalProperties": false
        });
        let v = self
            .llm
            .structured(
                &[ChatMessage::new(Role::User, prompt)],
                &schema,
                Priority::Background,
            )
            .map_err(|e| e.to_string())?;
        v["keep"]
            .as_bool()
            .ok_or_else(|| format!("the LLM's verdict has no `keep`: {v}"))
    }
}
