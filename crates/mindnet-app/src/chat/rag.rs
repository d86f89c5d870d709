//! Answers from the notes: the primary and the strategic retrieval,
//! merged, then an extract or the LLM's answer over the enriched context.

use super::{Answer, Asking, history, meta, mode, route_info};
use crate::AppError;
use crate::api::{AnswerMode, Causal, ChatEvent, Citation, Source};
use crate::ops::query::QueryRequest;
use mindnet_chat::extract::{self, SourceText};
use mindnet_chat::prompts::{Messages, Prompts, fill};
use mindnet_chat::route::Route;
use mindnet_chat::{ChatMessage, Llm, LlmRequest, Priority, Role};
use mindnet_core::time::now;
use mindnet_retrieve::causal::Strategy;
use std::time::Instant;

/// What the retrieval found for a message.
struct Retrieved {
    /// The strategy's intent.
    intent: String,
    sources: Vec<Source>,
    causal: Option<Causal>,
    query_id: String,
    retrieval_ms: f64,
    /// The top causal path as one line, if there is one.
    chain: Option<String>,
}

impl Asking<'_> {
    /// An answer from the notes: retrieved, then the LLM's answer over the
    /// enriched context, or (without one, or when it fails) an extract.
    pub(super) fn rag(&mut self, route: Route, strategy: &Strategy) -> Result<Answer, AppError> {
        let t = Instant::now();
        let found = self.retrieve(&route, strategy)?;
        if let Some(llm) = self.llm
            && let Some(answer) = self.llm_answer(llm, &route, strategy, &found)?
        {
            return Ok(answer);
        }
        Ok(self.extractive(route, found, t))
    }

    /// The primary search and the one filtered to the strategy's types,
    /// merged by note, ordered by score × the type's boost, and logged.
    fn retrieve(&self, route: &Route, strategy: &Strategy) -> Result<Retrieved, AppError> {
        let t = Instant::now();
        let engine = self.ws.engine();
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
            k: Some(self.k),
            intent: Some(intent.clone()),
            lang: self.req.lang,
            ..QueryRequest::new(self.message)
        };
        let vector = self.ws.embedder().embed_query(self.message)?;
        let q = self.ws.query_of(&base)?;
        let mut primary = self.ws.search(&q, &vector)?;
        let strategic = if strategy.inject_types.is_empty() {
            Vec::new()
        } else {
            let q2 = self.ws.query_of(&QueryRequest {
                types: strategy.inject_types.clone(),
                intent: Some(engine.fallback.clone()),
                ..base.clone()
            })?;
            self.ws.search(&q2, &vector)?.hits
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
        merged.truncate(self.k);
        primary.hits = merged.iter().map(|(_, h)| h.clone()).collect();
        self.ws.logs.record_search(&primary, &now())?;
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
        let chain = causal
            .as_ref()
            .and_then(|c| chain_line(c, &sources, self.msgs));
        Ok(Retrieved {
            intent,
            sources,
            causal,
            query_id: primary.query_id,
            retrieval_ms: t.elapsed().as_secs_f64() * 1000.0,
            chain,
        })
    }

    /// The LLM's answer over the enriched context, streamed; `None` when it
    /// failed and the notes answer instead (a warning says so).
    fn llm_answer(
        &mut self,
        llm: &Llm,
        route: &Route,
        strategy: &Strategy,
        found: &Retrieved,
    ) -> Result<Option<Answer>, AppError> {
        let m = mode("llm", Some(llm));
        (self.sink)(meta(route, &m, &found.sources, &found.query_id));
        let context = self.context(self.prompts, &found.sources);
        let prompt = fill(
            self.prompts.template(&strategy.template),
            &[
                ("context", &context),
                ("question", self.message),
                ("history", &history(self.session)),
                ("chain", found.chain.as_deref().unwrap_or("-")),
            ],
        );
        let messages = [
            ChatMessage::new(Role::System, self.prompts.system.clone()),
            ChatMessage::new(Role::User, prompt),
        ];
        let mut cancelled = false;
        let sink = &mut *self.sink;
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
            Ok(r) => Ok(Some(Answer {
                strategy: route.strategy.clone(),
                intent: found.intent.clone(),
                route: route_info(route),
                mode: AnswerMode {
                    model: Some(r.model.clone()),
                    ..m
                },
                text: r.text,
                sources: found.sources.clone(),
                causal: found.causal.clone(),
                draft: None,
                query_id: found.query_id.clone(),
                retrieval_ms: found.retrieval_ms,
                first_token_ms: r.first_token.map(|d| d.as_secs_f64() * 1000.0),
            })),
            Err(e) if !cancelled => {
                self.warnings
                    .push(format!("{e}; answered from the notes instead"));
                Ok(None)
            }
            Err(e) => Err(AppError::unavailable(e.to_string())),
        }
    }

    /// The sentences of the sources that hold the question's rarer words
    /// (CHAT-8), after the causal chain's line, sent line by line.
    fn extractive(&mut self, route: Route, found: Retrieved, started: Instant) -> Answer {
        let m = mode("extractive", None);
        (self.sink)(meta(&route, &m, &found.sources, &found.query_id));
        let texts: Vec<SourceText<'_>> = found
            .sources
            .iter()
            .map(|s| SourceText {
                n: s.n,
                text: &s.hit.text,
            })
            .collect();
        let candidates = extract::candidates(&texts);
        let similarity = self.similarity(&candidates);
        let rules = self.ws.engine().chat();
        let best = extract::best_sentences(self.message, &candidates, similarity.as_deref(), rules);
        let mut text = String::new();
        if let Some(c) = &found.chain {
            text.push_str(c);
            text.push('\n');
        }
        text.push_str(&extract::render(&best));
        if text.trim().is_empty() {
            text = self.msgs.no_sources.clone();
        }
        let first = started.elapsed().as_secs_f64() * 1000.0;
        for line in text.split_inclusive('\n') {
            if !(self.sink)(ChatEvent::Token {
                text: line.to_string(),
            }) {
                break;
            }
        }
        Answer {
            strategy: route.strategy.clone(),
            intent: found.intent,
            route: route_info(&route),
            mode: m,
            text,
            sources: found.sources,
            causal: found.causal,
            draft: None,
            query_id: found.query_id,
            retrieval_ms: found.retrieval_ms,
            first_token_ms: Some(first),
        }
    }

    /// Each candidate sentence's cosine to the message, by the index's
    /// embedder (one batch, a few milliseconds a sentence); none when the
    /// words alone choose (`lexical: 1`). When the embedder fails the
    /// extract is chosen by words alone, with a warning.
    fn similarity(&mut self, candidates: &[extract::Candidate]) -> Option<Vec<f32>> {
        if candidates.is_empty() || self.ws.engine().chat().extractive.lexical >= 1.0 {
            return None;
        }
        let embedder = self.ws.embedder();
        let texts: Vec<&str> = candidates.iter().map(|c| c.text.as_str()).collect();
        let vectors = embedder
            .embed_query(self.message)
            .and_then(|q| Ok((q, embedder.embed_passages(&texts)?)));
        match vectors {
            Ok((q, passages)) => Some(
                passages
                    .iter()
                    .map(|p| p.iter().zip(&q).map(|(a, b)| a * b).sum())
                    .collect(),
            ),
            Err(e) => {
                self.warnings
                    .push(format!("{e}; the extract was chosen by its words alone"));
                None
            }
        }
    }

    /// The sources as the LLM sees them (CHAT-1): each with its type, what
    /// the type means, its note, section and score.
    fn context(&self, prompts: &Prompts, sources: &[Source]) -> String {
        let registry = &self.ws.config().registry;
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
pub(super) fn citations(text: &str, sources: &[Source]) -> Vec<Citation> {
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
