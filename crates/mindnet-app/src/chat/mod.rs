//! The chat over the workspace (CHAT-1 … CHAT-8): route the message, then
//! either interview (a draft of a new note) or retrieve (primary hybrid
//! search, plus a strategic search filtered to the strategy's
//! `inject_types`, merged) and answer from the sources, extractively or
//! with the configured LLM. Every answer says its route, its mode and its
//! sources; every `[n]` points to a note, a section and a chunk.
//!
//! Sessions are files in the data dir (a bounded number, a bounded history
//! each, a week's expiry): a restart keeps conversations and interviews.
//!
//! `routing.rs` chooses the strategy, `interview.rs` drafts notes, `rag.rs`
//! retrieves and answers, `judge.rs` lends the LLM to smart edges,
//! `sessions.rs` keeps the conversations.

use crate::api::AnswerMode;
use crate::api::CHAT_K;
use crate::api::Causal;
use crate::api::ChatEvent;
use crate::api::ChatMeta;
use crate::api::ChatRequest;
use crate::api::ChatResponse;
use crate::api::ChatTimings;
use crate::api::DraftInfo;
use crate::api::RouteInfo;
use crate::api::Source;
mod interview;
mod judge;
mod rag;
mod routing;
mod sessions;

use interview::interview_strategy;
use judge::LlmJudge;
use rag::citations;
pub(crate) use routing::{centroid_route, centroids};
use sessions::{Session, Sessions, Turn};

use crate::settings::LlmSetting;
use crate::{AppError, Settings, Workspace};
use mindnet_chat::interview::{Interview, Step};
use mindnet_chat::prompts::{Messages, Prompts};
use mindnet_chat::route::{self, Centroids, Route, RouteBy};
use mindnet_chat::{Llm, PromptStore};
use mindnet_core::time::now;
use mindnet_index::LinkJudge;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// The longest message taken, in bytes.
const MAX_MESSAGE_BYTES: usize = 32 * 1024;
pub const MAX_CHAT_K: usize = 20;
/// Words that end an interview without a draft.
const CANCEL: [&str; 4] = ["/abbrechen", "/cancel", "abbrechen", "cancel"];

/// What the chat keeps between requests.
pub(crate) struct ChatServices {
    prompts: PromptStore,
    llm: Result<Option<Arc<Llm>>, String>,
    centroids: OnceLock<Result<Centroids, String>>,
    sessions: Sessions,
}

impl ChatServices {
    pub(crate) fn new(settings: &Settings) -> Self {
        let llm = match &settings.llm {
            LlmSetting::None => Ok(None),
            LlmSetting::Invalid(e) => Err(e.clone()),
            LlmSetting::Configured(c) => Llm::new(c.clone())
                .map(|l| Some(Arc::new(l)))
                .map_err(|e| e.to_string()),
        };
        ChatServices {
            prompts: PromptStore::new(settings.files.prompts.clone()),
            llm,
            centroids: OnceLock::new(),
            sessions: Sessions::new(&settings.data),
        }
    }

    pub(crate) fn llm(&self) -> Option<&Llm> {
        self.llm.as_ref().ok().and_then(Option::as_deref)
    }

    /// The LLM as the judge of smart edges, if one is configured.
    pub(crate) fn link_judge(&self) -> Option<Arc<dyn LinkJudge>> {
        let llm = self.llm.as_ref().ok()?.as_ref()?.clone();
        Some(Arc::new(LlmJudge {
            llm,
            prompts: self.prompts.current().prompts,
        }))
    }
}

/// What every answer carries, gathered while it is made.
struct Answer {
    strategy: String,
    intent: String,
    route: RouteInfo,
    mode: AnswerMode,
    text: String,
    sources: Vec<Source>,
    causal: Option<Causal>,
    draft: Option<DraftInfo>,
    query_id: String,
    retrieval_ms: f64,
    first_token_ms: Option<f64>,
}

fn route_info(r: &Route) -> RouteInfo {
    RouteInfo {
        by: r.by.name().to_string(),
        detail: r.detail.clone(),
        question: r.question,
        note_type: r.note_type.clone(),
    }
}

fn mode(kind: &str, llm: Option<&Llm>) -> AnswerMode {
    AnswerMode {
        kind: kind.to_string(),
        provider: llm.map(|l| {
            match l.config().provider {
                mindnet_chat::Provider::OpenAi => "openai",
                mindnet_chat::Provider::Ollama => "ollama",
            }
            .to_string()
        }),
        model: llm.map(|l| l.config().model.clone()),
    }
}

/// The conversation so far, for a prompt.
fn history(session: &Session) -> String {
    session
        .turns
        .iter()
        .rev()
        .take(6)
        .rev()
        .map(|t| format!("Nutzer: {}\nmindnet: {}", t.user, t.answer))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Workspace {
    /// The LLM the environment configures, if any (and valid).
    pub fn llm(&self) -> Option<&Llm> {
        self.chat.llm()
    }

    /// Answers one message. `sink` gets the events of a streaming answer;
    /// when it returns false (the client went away) a running LLM request
    /// is cancelled and the answer ends there.
    pub fn chat(
        &self,
        req: &ChatRequest,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<ChatResponse, AppError> {
        let started = Instant::now();
        self.check_chat(req)?;
        let message = req.message.trim();
        let k = req.k.unwrap_or(CHAT_K);
        let mut warnings = Vec::new();
        let current = self.chat.prompts.current();
        warnings.extend(current.warning.clone());
        let prompts = current.prompts;
        let lang = req.lang.to_string();
        let msgs = prompts.messages(&lang);
        let llm = if req.extractive {
            None
        } else {
            if let Err(e) = &self.chat.llm {
                warnings.push(format!("no LLM: {e}"));
            }
            self.chat.llm()
        };
        let (session_id, mut session) = self.chat.sessions.take(req.session.as_deref());
        let sid = session_id.clone();
        let mut sink = |e: ChatEvent| match e {
            ChatEvent::Meta(mut m) => {
                m.session = sid.clone();
                sink(ChatEvent::Meta(m))
            }
            other => sink(other),
        };
        let result = Asking {
            ws: self,
            req,
            message,
            k,
            prompts: &prompts,
            msgs,
            llm,
            session: &mut session,
            warnings: &mut warnings,
            sink: &mut sink,
        }
        .answer();
        let answer = match result {
            Ok(a) => a,
            Err(e) => {
                if let Err(w) = self.chat.sessions.keep(&session_id, session) {
                    tracing::warn!("{w}");
                }
                return Err(e);
            }
        };
        session.turns.push(Turn {
            user: message.to_string(),
            answer: answer.text.clone(),
        });
        if let Err(w) = self.chat.sessions.keep(&session_id, session) {
            warnings.push(w);
        }
        let citations = citations(&answer.text, &answer.sources);
        let response = ChatResponse {
            query_id: answer.query_id,
            session: session_id,
            strategy: answer.strategy,
            intent: answer.intent,
            route: answer.route,
            mode: answer.mode,
            answer: answer.text,
            citations,
            sources: answer.sources,
            causal: answer.causal,
            draft: answer.draft,
            warnings,
            timings: ChatTimings {
                retrieval_ms: answer.retrieval_ms,
                first_token_ms: answer.first_token_ms,
                total_ms: started.elapsed().as_secs_f64() * 1000.0,
            },
        };
        sink(ChatEvent::Done {
            response: Box::new(response.clone()),
        });
        Ok(response)
    }

    /// The request's own errors, before anything runs (a streaming
    /// transport answers them with a status, not an event).
    pub fn check_chat(&self, req: &ChatRequest) -> Result<(), AppError> {
        let message = req.message.trim();
        if message.is_empty() {
            return Err(AppError::bad_request("`message` is empty"));
        }
        if message.len() > MAX_MESSAGE_BYTES {
            return Err(AppError::bad_request(format!(
                "`message` has {} bytes; at most {MAX_MESSAGE_BYTES} are taken",
                message.len()
            )));
        }
        let k = req.k.unwrap_or(CHAT_K);
        if !(1..=MAX_CHAT_K).contains(&k) {
            return Err(AppError::bad_request(format!(
                "`k` must be 1 to {MAX_CHAT_K}, not {k}"
            )));
        }
        if let Some(id) = &req.session {
            let ok = (1..=64).contains(&id.len())
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !ok {
                return Err(AppError::bad_request(
                    "`session` must be 1 to 64 letters, digits, `-` or `_`",
                ));
            }
        }
        let rules = self.engine().chat();
        if let Some(name) = &req.strategy
            && !rules.strategies.contains_key(name)
        {
            return Err(AppError::bad_request(format!(
                "unknown strategy `{name}`; known: {}",
                rules
                    .strategies
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(())
    }
}

/// One message being answered: what every step of the answer reads (the
/// request, the prompts of the moment, the LLM) and writes (the session,
/// the warnings, the events a streaming client gets).
struct Asking<'a> {
    ws: &'a Workspace,
    req: &'a ChatRequest,
    /// The message, trimmed.
    message: &'a str,
    /// How many sources.
    k: usize,
    prompts: &'a Prompts,
    msgs: &'a Messages,
    /// `None`: extractive answers (none configured, or asked for).
    llm: Option<&'a Llm>,
    session: &'a mut Session,
    warnings: &'a mut Vec<String>,
    /// Gets each event; `false` back means the client went away.
    sink: &'a mut dyn FnMut(ChatEvent) -> bool,
}

impl Asking<'_> {
    /// The answer: an interview in progress goes on; otherwise the router
    /// (or the request) picks the strategy, which interviews or answers
    /// from the notes.
    fn answer(&mut self) -> Result<Answer, AppError> {
        let query_id = mindnet_retrieve::random_uuid();
        if let Some(iv) = self.session.interview.take() {
            return self.go_on_interviewing(iv, query_id);
        }
        let route = match &self.req.strategy {
            Some(name) => {
                let mut r = route::fallback(self.ws.engine(), self.message, None);
                r.strategy = name.clone();
                r.detail = "request".into();
                r
            }
            None => self.route()?,
        };
        let rules = self.ws.engine().chat();
        let strategy = &rules.strategies[&route.strategy];
        if strategy.interview {
            return self.start_interview(route, query_id);
        }
        self.rag(route, strategy)
    }

    /// An interview in progress takes the message as its answer.
    fn go_on_interviewing(
        &mut self,
        mut iv: Interview,
        query_id: String,
    ) -> Result<Answer, AppError> {
        let route = Route {
            strategy: interview_strategy(self.ws)?,
            note_type: Some(iv.note_type.clone()),
            by: RouteBy::Interview,
            question: false,
            intent: self.ws.engine().fallback.clone(),
            detail: String::new(),
        };
        let schema = self
            .ws
            .config()
            .registry
            .config(&iv.note_type)
            .schema
            .clone();
        let msgs = self.msgs;
        let (text, draft) = if CANCEL.contains(&self.message.to_lowercase().as_str()) {
            (msgs.interview_cancelled.clone(), None)
        } else {
            iv.answer(self.message, &schema);
            match iv.step(&schema, msgs, &today()) {
                Step::Ask(q) => {
                    let partial = iv.draft(&schema, msgs, &today());
                    let draft = self.draft_info(&iv.note_type, &partial, false);
                    self.session.interview = Some(iv);
                    (q, Some(draft))
                }
                Step::Done(md) => {
                    let draft = self.draft_info(&iv.note_type, &md, true);
                    (
                        format!("{}\n\n```markdown\n{md}```", msgs.interview_done),
                        Some(draft),
                    )
                }
            }
        };
        let mode = mode("interview", None);
        Ok(self.spoken(route, mode, text, draft, query_id))
    }
}

fn meta(route: &Route, mode: &AnswerMode, sources: &[Source], query_id: &str) -> ChatEvent {
    ChatEvent::Meta(Box::new(ChatMeta {
        query_id: query_id.to_string(),
        session: String::new(),
        strategy: route.strategy.clone(),
        intent: route.intent.clone(),
        route: route_info(route),
        mode: mode.clone(),
        sources: sources.to_vec(),
    }))
}

/// Today, as `YYYY-MM-DD` (UTC).
fn today() -> String {
    now().chars().take(10).collect()
}
