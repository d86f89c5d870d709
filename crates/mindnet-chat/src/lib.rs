//! The chat (CHAT-1 … CHAT-8): the intent router and its strategies,
//! late-bound prompts, extractive answers, the interview and its drafts,
//! and the LLM providers with traffic control. Retrieval is not here: the
//! application layer retrieves and hands this crate plain text and types,
//! so every piece can be tested without an index.

pub mod draft;
pub mod extract;
pub mod interview;
pub mod llm;
pub mod prompts;
pub mod route;

pub use llm::{
    ChatMessage, Llm, LlmConfig, LlmError, LlmReply, LlmRequest, Priority, Provider, Role,
};
pub use prompts::{PromptStore, Prompts};
pub use route::{Centroids, Route, RouteBy};
