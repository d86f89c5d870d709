//! The chat over the workspace (CHAT-1 … CHAT-8): route the message, then
//! either interview (a draft of a new note) or retrieve (primary hybrid
//! search, plus a strategic search filtered to the strategy's
//! `inject_types`, merged) and answer from the sources, extractively or
//! with the configured LLM. Every answer says its route, its mode and its
//! sources; every `[n]` points to a note, a section and a chunk.
//!
//! Sessions live in memory (a bounded number, a bounded history each): a
//! restart forgets conversations, never notes.

use crate::api::*;
use crate::settings::LlmSetting;
use crate::timestamp as now;
use crate::{AppError, Settings, Workspace};
use mindnet_chat::draft::heal;
use mindnet_chat::extract::{self, Limits, SourceText};
use mindnet_chat::interview::{Interview, Step};
use mindnet_chat::prompts::{Messages, Prompts, fill};
use mindnet_chat::route::{self, Centroids, Route, RouteBy};
use mindnet_chat::{ChatMessage, Llm, LlmRequest, Priority, PromptStore, Role};
use mindnet_embed::Embedder;
use mindnet_index::{LinkCandidate, LinkJudge};
use mindnet_retrieve::causal::{DecisionEngine, Strategy};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
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
    sessions: Mutex<Sessions>,
}

#[derive(Default)]
struct Sessions {
    map: HashMap<String, Session>,
    /// Least recently used first.
    order: VecDeque<String>,
}

#[derive(Debug, Clone, Default)]
struct Session {
    turns: Vec<Turn>,
    interview: Option<Interview>,
}

#[derive(Debug, Clone)]
struct Turn {
    user: String,
    answer: String,
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
            sessions: Mutex::new(Sessions::default()),
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

    /// The session of `id` (a new one when unknown or not given).
    fn take_session(&self, id: Option<&str>) -> (String, Session) {
        // The id was checked with the request (`check_chat`).
        let id = id.map_or_else(mindnet_retrieve::random_uuid, str::to_string);
        let mut s = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = s.map.remove(&id).unwrap_or_default();
        s.order.retain(|x| x != &id);
        (id, session)
    }

    fn keep_session(&self, id: String, mut session: Session) {
        if session.turns.len() > MAX_TURNS {
            let excess = session.turns.len() - MAX_TURNS;
            session.turns.drain(..excess);
        }
        let mut s = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        while s.map.len() >= MAX_SESSIONS {
            let Some(old) = s.order.pop_front() else {
                break;
            };
            s.map.remove(&old);
        }
        s.order.push_back(id.clone());
        s.map.insert(id, session);
    }
}

/// Smart edges judged by the LLM (CHAT-7): one structured question per
/// link, at background priority, so a chat stays responsive meanwhile.
#[derive(Debug)]
struct LlmJudge {
    llm: Arc<Llm>,
    prompts: Arc<Prompts>,
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
        let (session_id, mut session) = self.chat.take_session(req.session.as_deref());
        let sid = session_id.clone();
        let mut sink = |e: ChatEvent| match e {
            ChatEvent::Meta(mut m) => {
                m.session = sid.clone();
                sink(ChatEvent::Meta(m))
            }
            other => sink(other),
        };
        let result = self.answer(
            req,
            message,
            k,
            &prompts,
            msgs,
            llm,
            &mut session,
            &mut warnings,
            &mut sink,
        );
        let answer = match result {
            Ok(a) => a,
            Err(e) => {
                self.chat.keep_session(session_id, session);
                return Err(e);
            }
        };
        session.turns.push(Turn {
            user: message.to_string(),
            answer: answer.text.clone(),
        });
        self.chat.keep_session(session_id.clone(), session);
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

    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        req: &ChatRequest,
        message: &str,
        k: usize,
        prompts: &Prompts,
        msgs: &Messages,
        llm: Option<&Llm>,
        session: &mut Session,
        warnings: &mut Vec<String>,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<Answer, AppError> {
        let rules = self.engine().chat();
        let query_id = mindnet_retrieve::random_uuid();
        // An interview in progress takes the message as its answer.
        if let Some(mut iv) = session.interview.take() {
            let route = Route {
                strategy: interview_strategy(self)?,
                note_type: Some(iv.note_type.clone()),
                by: RouteBy::Interview,
                question: false,
                intent: self.engine().fallback.clone(),
                detail: String::new(),
            };
            let schema = self.config().registry.config(&iv.note_type).schema.clone();
            let (text, draft) = if CANCEL.contains(&message.to_lowercase().as_str()) {
                (msgs.interview_cancelled.clone(), None)
            } else {
                iv.answer(message, &schema);
                match iv.step(&schema, msgs, &today()) {
                    Step::Ask(q) => {
                        let partial = iv.draft(&schema, msgs, &today());
                        let draft = self.draft_info(&iv.note_type, &partial, false);
                        session.interview = Some(iv);
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
            return Ok(self.spoken(route, mode("interview", None), text, draft, query_id, sink));
        }
        let route = match &req.strategy {
            Some(name) => {
                let mut r = route::fallback(self.engine(), message, None);
                r.strategy = name.clone();
                r.detail = "request".into();
                r
            }
            None => self.route(message, llm, warnings)?,
        };
        let strategy = &rules.strategies[&route.strategy];
        if strategy.interview {
            return self
                .start_interview(route, message, prompts, msgs, llm, session, query_id, sink);
        }
        self.rag(
            req, message, k, route, strategy, prompts, msgs, llm, session, warnings, sink,
        )
    }

    /// The rules, then the LLM router (with an LLM), then the centroids.
    fn route(
        &self,
        message: &str,
        llm: Option<&Llm>,
        warnings: &mut Vec<String>,
    ) -> Result<Route, AppError> {
        let engine = self.engine();
        if let Some(r) = route::by_rules(engine, &self.config().registry, message) {
            return Ok(r);
        }
        if let Some(llm) = llm {
            match self.llm_route(llm, message) {
                Ok(Some(r)) => return Ok(r),
                Ok(None) => {}
                Err(e) => warnings.push(format!("LLM router: {e}; the centroids decided")),
            }
        }
        let centroids = self
            .chat
            .centroids
            .get_or_init(|| centroids(engine, self.embedder()));
        centroid_route(engine, self.embedder(), centroids, message, warnings)
    }

    /// Asks the LLM for a strategy by name (structured output).
    fn llm_route(&self, llm: &Llm, message: &str) -> Result<Option<Route>, mindnet_chat::LlmError> {
        let engine = self.engine();
        let rules = engine.chat();
        let names: Vec<&String> = rules.strategies.keys().collect();
        let list = rules
            .strategies
            .iter()
            .map(|(n, s)| format!("- {n}: {}", s.description))
            .collect::<Vec<_>>()
            .join("\n");
        let prompts = self.chat.prompts.current().prompts;
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
            .filter(|n| rules.strategies.contains_key(*n))
        else {
            return Ok(None);
        };
        let mut r = route::fallback(engine, message, None);
        r.strategy = name.to_string();
        r.by = RouteBy::Llm;
        r.detail = String::new();
        Ok(Some(r))
    }

    #[allow(clippy::too_many_arguments)]
    fn start_interview(
        &self,
        route: Route,
        message: &str,
        prompts: &Prompts,
        msgs: &Messages,
        llm: Option<&Llm>,
        session: &mut Session,
        query_id: String,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<Answer, AppError> {
        let registry = &self.config().registry;
        let note_type = route
            .note_type
            .clone()
            .unwrap_or_else(|| registry.default_type.clone());
        let schema = registry.config(&note_type).schema.clone();
        let Some(llm) = llm else {
            let iv = Interview::start(&note_type, message);
            let text = match iv.step(&schema, msgs, &today()) {
                Step::Ask(q) => q,
                Step::Done(md) => md,
            };
            session.interview = Some(iv);
            return Ok(self.spoken(route, mode("interview", None), text, None, query_id, sink));
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
                ("history", &history(session)),
                ("question", message),
            ],
        );
        let messages = [
            ChatMessage::new(Role::System, prompts.system.clone()),
            ChatMessage::new(Role::User, prompt),
        ];
        let m = mode("llm", Some(llm));
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
    fn draft_info(&self, note_type: &str, text: &str, complete: bool) -> DraftInfo {
        let h = heal(text);
        let schema = &self.config().registry.config(note_type).schema;
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
    fn spoken(
        &self,
        route: Route,
        mode: AnswerMode,
        text: String,
        draft: Option<DraftInfo>,
        query_id: String,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Answer {
        sink(meta(&route, &mode, &[], &query_id));
        sink(ChatEvent::Token { text: text.clone() });
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

    #[allow(clippy::too_many_arguments)]
    fn rag(
        &self,
        req: &ChatRequest,
        message: &str,
        k: usize,
        route: Route,
        strategy: &Strategy,
        prompts: &Prompts,
        msgs: &Messages,
        llm: Option<&Llm>,
        session: &Session,
        warnings: &mut Vec<String>,
        sink: &mut dyn FnMut(ChatEvent) -> bool,
    ) -> Result<Answer, AppError> {
        let t = Instant::now();
        let engine = self.engine();
        // The strategy's intent: the one detected when the strategy takes
        // it, else the strategy's first (a WHY chosen by its centroid still
        // walks the causal graph).
        let intent = if strategy.intents.contains(&route.intent) {
            route.intent.clone()
        } else {
            strategy
                .intents
                .first()
                .cloned()
                .unwrap_or_else(|| engine.fallback.clone())
        };
        let base = QueryRequest {
            text: message.to_string(),
            k: Some(k),
            intent: Some(intent.clone()),
            lang: req.lang,
            ..Default::default()
        };
        let vector = self.embedder().embed_query(message)?;
        let q = self.query_of(&base)?;
        let mut primary = self.search(&q, &vector)?;
        let strategic = if strategy.inject_types.is_empty() {
            Vec::new()
        } else {
            let q2 = self.query_of(&QueryRequest {
                types: strategy.inject_types.clone(),
                intent: Some(engine.fallback.clone()),
                ..base.clone()
            })?;
            self.search(&q2, &vector)?.hits
        };
        let boost = |t: &str| strategy.type_boosts.get(t).copied().unwrap_or(1.0);
        let mut merged: Vec<(bool, mindnet_retrieve::Hit)> =
            primary.hits.drain(..).map(|h| (false, h)).collect();
        for h in strategic {
            if !merged.iter().any(|(_, m)| m.note_id == h.note_id) {
                merged.push((true, h));
            }
        }
        merged.sort_by(|a, b| {
            (b.1.score * boost(&b.1.note_type)).total_cmp(&(a.1.score * boost(&a.1.note_type)))
        });
        merged.truncate(k);
        primary.hits = merged.iter().map(|(_, h)| h.clone()).collect();
        self.logs.record_search(&primary, &now())?;
        let query_id = primary.query_id.clone();
        let causal: Option<Causal> = primary.causal.clone().map(Into::into);
        let sources: Vec<Source> = merged
            .into_iter()
            .enumerate()
            .map(|(i, (injected, h))| Source {
                n: i + 1,
                injected,
                boost: boost(&h.note_type),
                hit: h.into(),
            })
            .collect();
        let retrieval_ms = t.elapsed().as_secs_f64() * 1000.0;
        let chain = causal.as_ref().and_then(|c| chain_line(c, &sources, msgs));
        if let Some(llm) = llm {
            let m = mode("llm", Some(llm));
            sink(meta(&route, &m, &sources, &query_id));
            let context = self.context(prompts, &sources);
            let prompt = fill(
                prompts.template(&strategy.template),
                &[
                    ("context", &context),
                    ("question", message),
                    ("history", &history(session)),
                    ("chain", chain.as_deref().unwrap_or("-")),
                ],
            );
            let messages = [
                ChatMessage::new(Role::System, prompts.system.clone()),
                ChatMessage::new(Role::User, prompt),
            ];
            let mut cancelled = false;
            let reply = llm.chat(
                &LlmRequest {
                    messages: &messages,
                    priority: Priority::Realtime,
                    json_schema: None,
                    max_tokens: Some(600),
                },
                &mut |t| {
                    let go_on = sink(ChatEvent::Token {
                        text: t.to_string(),
                    });
                    cancelled |= !go_on;
                    go_on
                },
            );
            match reply {
                Ok(r) => {
                    return Ok(Answer {
                        strategy: route.strategy.clone(),
                        intent,
                        route: route_info(&route),
                        mode: AnswerMode {
                            model: Some(r.model.clone()),
                            ..m
                        },
                        text: r.text,
                        sources,
                        causal,
                        draft: None,
                        query_id,
                        retrieval_ms,
                        first_token_ms: r.first_token.map(|d| d.as_secs_f64() * 1000.0),
                    });
                }
                Err(e) if !cancelled => {
                    warnings.push(format!("{e}; answered from the notes instead"));
                }
                Err(e) => return Err(AppError::unavailable(e.to_string())),
            }
        }
        let m = mode("extractive", None);
        sink(meta(&route, &m, &sources, &query_id));
        let texts: Vec<SourceText<'_>> = sources
            .iter()
            .map(|s| SourceText {
                n: s.n,
                text: &s.hit.text,
            })
            .collect();
        let rules = engine.chat();
        let limits = Limits {
            sentences: rules.extractive.sentences,
            per_source: rules.extractive.per_source,
            stopwords: &rules.stopwords,
        };
        let best = extract::best_sentences(message, &texts, limits);
        let mut text = String::new();
        if let Some(c) = &chain {
            text.push_str(c);
            text.push('\n');
        }
        text.push_str(&extract::render(&best));
        if text.trim().is_empty() {
            text = msgs.no_sources.clone();
        }
        let first = t.elapsed().as_secs_f64() * 1000.0;
        for line in text.split_inclusive('\n') {
            if !sink(ChatEvent::Token {
                text: line.to_string(),
            }) {
                break;
            }
        }
        Ok(Answer {
            strategy: route.strategy.clone(),
            intent,
            route: route_info(&route),
            mode: m,
            text,
            sources,
            causal,
            draft: None,
            query_id,
            retrieval_ms,
            first_token_ms: Some(first),
        })
    }

    /// The sources as the LLM sees them (CHAT-1): each with its type, what
    /// the type means, its note, section and score.
    fn context(&self, prompts: &Prompts, sources: &[Source]) -> String {
        let registry = &self.config().registry;
        sources
            .iter()
            .map(|s| {
                let h = &s.hit;
                fill(
                    &prompts.source,
                    &[
                        ("n", &s.n.to_string()),
                        ("TYPE", &h.note_type.to_uppercase()),
                        (
                            "type_description",
                            &registry.config(&h.note_type).description,
                        ),
                        ("title", &h.title),
                        ("section", &h.section),
                        ("score", &format!("{:.2}", h.score)),
                        ("text", &extract::plain(&h.text)),
                    ],
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
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

fn interview_strategy(ws: &Workspace) -> Result<String, AppError> {
    ws.engine()
        .chat()
        .strategies
        .iter()
        .find(|(_, s)| s.interview)
        .map(|(n, _)| n.clone())
        .ok_or_else(|| AppError::internal("decision_engine.yaml has no interview strategy"))
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

/// The top causal path as one line, cause first, each note cited when it
/// is a source.
fn chain_line(c: &Causal, sources: &[Source], msgs: &Messages) -> Option<String> {
    let path = c.paths.first()?;
    let notes: Vec<String> = path
        .notes
        .iter()
        .map(
            |n| match sources.iter().find(|s| s.hit.note_id == n.note_id) {
                Some(s) => format!("{} [{}]", n.title, s.n),
                None => n.title.clone(),
            },
        )
        .collect();
    (notes.len() > 1).then(|| format!("{}: {}", msgs.chain, notes.join(" → ")))
}

/// Every `[n]` of the answer that names a source, in order, once.
fn citations(text: &str, sources: &[Source]) -> Vec<Citation> {
    let mut out: Vec<Citation> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('[') {
        rest = &rest[start + 1..];
        let Some(end) = rest.find(']') else { break };
        if let Ok(n) = rest[..end].trim().parse::<usize>()
            && let Some(s) = sources.iter().find(|s| s.n == n)
            && !out.iter().any(|c| c.n == n)
        {
            let h = &s.hit;
            out.push(Citation {
                n,
                note_id: h.note_id.clone(),
                title: h.title.clone(),
                path: h.path.clone(),
                section: h.section.clone(),
                chunk_id: h.chunk_id.clone(),
            });
        }
    }
    out
}

/// Today, as `YYYY-MM-DD` (UTC).
fn today() -> String {
    now().chars().take(10).collect()
}
