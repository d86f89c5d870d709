//! `chat`: a message in, an answer with its route, mode, sources and
//! citations out. Through the table it answers whole; streamed, its events
//! come through `Service::chat` (the server's `/chat` serves both, as the
//! client's `Accept` asks).

use crate::api::{ChatRequest, ChatResponse};
use crate::operation::{Effect, Needs, Operation, Route, Tool};
use crate::{AppError, ErrorCode, Workspace};

/// Answers one message of a conversation.
pub struct ChatOp;

impl Operation for ChatOp {
    type Request = ChatRequest;
    type Response = ChatResponse;
    const NAME: &'static str = "chat";
    const ABOUT: &'static str =
        "Answer a message with citations and sources, or interview to draft a note.";
    const EXAMPLE: &'static str =
        r#"{"message": "Warum habe ich mich für Qdrant entschieden?", "extractive": true}"#;
    const EFFECT: Effect = Effect::Writes;
    const NEEDS: Needs = Needs::Index;
    // A streamed answer runs as long as the LLM writes (each read is
    // bounded by MINDNET_LLM_TIMEOUT).
    const ROUTE: Route = Route::post("/chat").without_deadline().summary(
        "`POST /chat`: a whole JSON answer, or with `Accept: text/event-stream`\n\
         server-sent events `meta`, `token`…, `done` (or `error`). A client that\n\
         goes away closes the stream, which cancels a running LLM request.",
    );
    const FAILS: &'static [ErrorCode] = &[];
    const TOOL: Option<Tool<ChatRequest>> = None;

    fn run(ws: &Workspace, req: &ChatRequest) -> Result<ChatResponse, AppError> {
        ws.chat(req, &mut |_| true)
    }
}
