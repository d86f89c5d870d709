//! The evaluation engine behind `mindnet eval`: a question set against a
//! vault, with and without graph expansion (and, for questions with a
//! `gold_chain`, with and without causal traversal, CAU-6).

use crate::api::{ChatRequest, Mode, SyncSummary};
use crate::ops::sync::SyncRequest;
use crate::{AppError, OpenMode, Settings, Workspace};
use mindnet_index::Progress;
use mindnet_retrieve::Query;
use mindnet_retrieve::eval;
pub use mindnet_retrieve::eval::{Latency, Scores, Summary};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, Clone)]
pub struct EvalRequest {
    /// One JSON object per line with the question text and `gold` (note
    /// names: file names without `.md`); optional `type` and `gold_chain`.
    pub questions: PathBuf,
    /// The field holding the question text.
    pub field: String,
    pub mode: Mode,
    /// Only the first N questions.
    pub limit: Option<usize>,
    /// Also ask each question with an `answer` through the chat
    /// (extractive) and measure answer recall.
    pub answers: bool,
    /// Also report, per question, the ranked notes of both arms and the
    /// second hop, so each miss can be looked at.
    pub ranks: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvalRun {
    pub graph: bool,
    pub summary: Summary,
    pub latency_ms: Latency,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChainRun {
    pub traversal: bool,
    pub questions: usize,
    /// Mean share of the gold chain's notes (and its `gold_branches`') in
    /// the explanation subgraph.
    pub chain_recall: f64,
    /// Share of questions whose top path holds the gold chain in order.
    pub order_hit_rate: f64,
    /// Share of questions whose top path is anchored at the note asked
    /// about: a why path ends at the gold chain's last note, a consequence
    /// path starts at its first.
    pub anchored_rate: f64,
    /// Questions with `gold_branches`: share whose subgraph holds a note of
    /// every branch beyond the first step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_rate: Option<f64>,
    pub latency_ms: Latency,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub questions_file: PathBuf,
    pub field: String,
    pub mode: Mode,
    pub model: String,
    pub questions: usize,
    /// The index the questions ran against, after its import.
    pub notes: usize,
    pub chunks: usize,
    pub edges: usize,
    pub runs: Vec<EvalRun>,
    /// For questions with a `gold_chain`: causal traversal on and off.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<ChainRun>,
    /// For questions with a judged `intent`: the share detected as judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent_accuracy: Option<IntentAccuracy>,
    /// With `answers`: how often the chat's extractive answer holds the
    /// judged answer string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_recall: Option<AnswerRecall>,
    pub embedding_ms: Latency,
    /// With `ranks`: each question's ranked notes, in question order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_question: Vec<QuestionRanks>,
}

/// One question's ranked notes (names, the first 50) with and without the
/// graph, and the second hop of the graph's search.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionRanks {
    pub question: String,
    pub gold: Vec<String>,
    pub graph: Vec<String>,
    pub no_graph: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hop: Option<HopRanks>,
}

/// The second hop by note name: the hit it followed, the names it searched
/// and the notes it found, best first.
#[derive(Debug, Clone, Serialize)]
pub struct HopRanks {
    pub from: String,
    pub names: Vec<String>,
    pub notes: Vec<String>,
}

/// Answer recall (CHAT-8): the share of questions whose normalised answer
/// (lower case, no punctuation or articles) appears as words.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerRecall {
    pub questions: usize,
    /// In the answer's text.
    pub in_answer: f64,
    /// In the chunks the answer cites.
    pub in_cited: f64,
    /// In any source chunk given to the answer.
    pub in_sources: f64,
    /// The answer's length in words, the median over the questions (a
    /// reply is read first: its recall counts with its length).
    pub median_words: f64,
    pub latency_ms: Latency,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntentAccuracy {
    pub questions: usize,
    pub correct: usize,
    /// Question, judged intent, detected intent, of each miss.
    pub misses: Vec<IntentMiss>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntentMiss {
    pub question: String,
    pub judged: String,
    pub detected: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Gold {
    One(String),
    Many(Vec<String>),
}

/// One question of the set.
pub(crate) struct Question {
    pub text: String,
    pub gold: Vec<String>,
    pub kind: Option<String>,
    pub chain: Option<Vec<String>>,
    /// Other branches of effects (or causes) the subgraph must show too.
    pub branches: Vec<Vec<String>>,
    /// The intent the question asks for, if judged.
    pub intent: Option<String>,
    /// The judged answer string, if any.
    pub answer: Option<String>,
}

pub(crate) fn note_name(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default()
}

pub(crate) fn read_questions(req: &EvalRequest) -> Result<Vec<Question>, AppError> {
    let file = &req.questions;
    let text = std::fs::read_to_string(file)
        .map_err(|e| AppError::bad_request(format!("{}: {e}", file.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at =
            |msg: String| AppError::bad_request(format!("{}:{}: {msg}", file.display(), i + 1));
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| at(e.to_string()))?;
        let q = v[&req.field]
            .as_str()
            .ok_or_else(|| at(format!("no text field `{}`", req.field)))?;
        let gold = match serde_json::from_value::<Gold>(v["gold"].clone())
            .map_err(|_| at("`gold` must be a name or a list of names".into()))?
        {
            Gold::One(g) => vec![g],
            Gold::Many(g) => g,
        };
        out.push(Question {
            text: q.to_string(),
            gold,
            kind: v["type"].as_str().map(str::to_string),
            chain: serde_json::from_value(v["gold_chain"].clone()).ok(),
            branches: serde_json::from_value(v["gold_branches"].clone()).unwrap_or_default(),
            intent: v["intent"].as_str().map(str::to_string),
            answer: v["answer"].as_str().map(str::to_string),
        });
    }
    if let Some(n) = req.limit {
        out.truncate(n);
    }
    Ok(out)
}

/// One arm of the graph A/B.
struct Arm {
    graph: bool,
    scores: Vec<(Option<String>, Scores)>,
    latency: Vec<f64>,
}

/// One arm of the traversal A/B.
struct ChainArm {
    traverse: bool,
    recall: Vec<f64>,
    order: Vec<f64>,
    anchored: Vec<f64>,
    branches: Vec<f64>,
    latency: Vec<f64>,
}

/// The chat's answers against the judged ones.
#[derive(Default)]
struct Answered {
    in_answer: Vec<f64>,
    in_cited: Vec<f64>,
    in_sources: Vec<f64>,
    words: Vec<f64>,
    latency: Vec<f64>,
}

/// Lower case, punctuation to spaces, no articles, single spaces (SQuAD's
/// answer normalisation), padded so a match is a whole-word match.
fn normalized(text: &str) -> String {
    let lower: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let words: Vec<&str> = lower
        .split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
        .collect();
    format!(" {} ", words.join(" "))
}

/// Whether `text` holds `answer` as words, after normalising both.
fn holds(text: &str, answer: &str) -> bool {
    let a = normalized(answer);
    a.trim() != "" && normalized(text).contains(&a)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Imports (or updates) the vault, then runs every question; `say` hears
/// about the progress.
pub fn evaluate(
    settings: &Settings,
    req: &EvalRequest,
    progress: &dyn Progress,
    say: &dyn Fn(&str),
) -> Result<EvalReport, AppError> {
    let questions = read_questions(req)?;
    let ws = Workspace::open(settings.clone(), OpenMode::CreateIfMissing)?;
    let sync = ws.sync(&SyncRequest::default(), progress)?;
    let model = ws.embedder().id().name.clone();
    say(&format!(
        "index {}: {} notes, {} chunks, {} edges ({model}, {} new, {} changed)",
        settings.index_location(),
        sync.notes,
        sync.chunks,
        sync.edges,
        sync.new,
        sync.changed
    ));
    let mut run = Evaluation::new(&ws, req);
    for (i, q) in questions.iter().enumerate() {
        run.question(q)?;
        if (i + 1) % 50 == 0 {
            say(&format!("{}/{} questions", i + 1, questions.len()));
        }
    }
    Ok(run.report(&questions, &sync, model))
}

/// An evaluation under way: what each question added to each arm.
struct Evaluation<'a> {
    ws: &'a Workspace,
    req: &'a EvalRequest,
    embed_ms: Vec<f64>,
    arms: Vec<Arm>,
    chain_arms: Vec<ChainArm>,
    intents: IntentAccuracy,
    answered: Answered,
    per_question: Vec<QuestionRanks>,
}

impl<'a> Evaluation<'a> {
    fn new(ws: &'a Workspace, req: &'a EvalRequest) -> Self {
        Evaluation {
            ws,
            req,
            embed_ms: Vec::new(),
            arms: [true, false]
                .into_iter()
                .map(|graph| Arm {
                    graph,
                    scores: Vec::new(),
                    latency: Vec::new(),
                })
                .collect(),
            chain_arms: [true, false]
                .into_iter()
                .map(|traverse| ChainArm {
                    traverse,
                    recall: Vec::new(),
                    order: Vec::new(),
                    anchored: Vec::new(),
                    branches: Vec::new(),
                    latency: Vec::new(),
                })
                .collect(),
            intents: IntentAccuracy {
                questions: 0,
                correct: 0,
                misses: Vec::new(),
            },
            answered: Answered::default(),
            per_question: Vec::new(),
        }
    }

    /// A note's name (its file name), as the judged sets name notes.
    fn name_of(&self, id: &str) -> String {
        let store = self.ws.read();
        mindnet_store::Store::catalog(&*store)
            .ok()
            .and_then(|c| c.get(id).map(|n| note_name(&n.path)))
            .unwrap_or_default()
    }

    /// One question through every measurement it is judged for.
    fn question(&mut self, q: &Question) -> Result<(), AppError> {
        let t = Instant::now();
        let vector = self.ws.embedder().embed_query(&q.text)?;
        self.embed_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        let mut trace = QuestionRanks {
            question: q.text.clone(),
            gold: q.gold.clone(),
            graph: Vec::new(),
            no_graph: Vec::new(),
            hop: None,
        };
        for arm in 0..self.arms.len() {
            self.rank(arm, q, &vector, &mut trace)?;
        }
        if let Some(judged) = &q.intent {
            self.intent(q, judged);
        }
        if let Some(chain) = &q.chain {
            for arm in 0..self.chain_arms.len() {
                self.chain(arm, q, chain, &vector)?;
            }
        }
        if self.req.answers
            && let Some(answer) = &q.answer
        {
            self.answer(q, answer)?;
        }
        if self.req.ranks {
            self.per_question.push(trace);
        }
        Ok(())
    }

    /// The question's ranking in one arm of the graph A/B.
    fn rank(
        &mut self,
        arm: usize,
        q: &Question,
        vector: &[f32],
        trace: &mut QuestionRanks,
    ) -> Result<(), AppError> {
        let graph = self.arms[arm].graph;
        let mut query = Query::new(q.text.clone());
        query.mode = self.req.mode.into();
        query.graph = graph;
        query.group_by_note = true;
        query.k = 10;
        let r = self.ws.search(&query, vector)?;
        // The metrics rank the whole pool, as the search does, so the list
        // reaches past its k and ends at the ceiling.
        let pool = self.ws.ranked_pool(&query, vector, &r.intent)?;
        let ranked: Vec<String> = pool.notes.iter().map(|id| self.name_of(id)).collect();
        if self.req.ranks {
            let first: Vec<String> = ranked.iter().take(50).cloned().collect();
            if graph {
                trace.graph = first;
                trace.hop = pool.hop.map(|h| HopRanks {
                    from: self.name_of(&h.from),
                    names: h.names,
                    notes: h.notes.iter().take(50).map(|id| self.name_of(id)).collect(),
                });
            } else {
                trace.no_graph = first;
            }
        }
        let shown: Vec<String> = r.hits.iter().map(|h| note_name(&h.path)).collect();
        let replayed = &ranked[..shown.len().min(ranked.len())];
        if shown[..] != *replayed {
            tracing::warn!(
                "the pool's order differs from the search's for {:?}: {shown:?} against {replayed:?}",
                q.text
            );
        }
        let arm = &mut self.arms[arm];
        arm.latency.push(r.timings.search_ms);
        arm.scores
            .push((q.kind.clone(), eval::score(&ranked, &q.gold)));
        Ok(())
    }

    /// Whether the detected intent is the judged one.
    fn intent(&mut self, q: &Question, judged: &str) {
        let detected = mindnet_retrieve::intent::detect(self.ws.engine(), &q.text);
        self.intents.questions += 1;
        if detected == judged {
            self.intents.correct += 1;
        } else {
            self.intents.misses.push(IntentMiss {
                question: q.text.clone(),
                judged: judged.to_string(),
                detected,
            });
        }
    }

    /// The judged chain against the explanation, in one arm of the
    /// traversal A/B.
    fn chain(
        &mut self,
        arm: usize,
        q: &Question,
        chain: &[String],
        vector: &[f32],
    ) -> Result<(), AppError> {
        let mut all_notes = chain.to_vec();
        for n in q.branches.iter().flatten() {
            if !all_notes.contains(n) {
                all_notes.push(n.clone());
            }
        }
        let mut query = Query::new(q.text.clone());
        query.mode = self.req.mode.into();
        query.traverse = self.chain_arms[arm].traverse;
        let r = self.ws.search(&query, vector)?;
        let (found, top): (Vec<String>, Vec<String>) = match &r.causal {
            Some(c) => (
                c.subgraph
                    .nodes
                    .iter()
                    .map(|n| self.name_of(&n.note_id))
                    .collect(),
                c.paths
                    .first()
                    .map(|p| p.notes.iter().map(|n| self.name_of(&n.note_id)).collect())
                    .unwrap_or_default(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let arm = &mut self.chain_arms[arm];
        arm.latency.push(r.timings.search_ms);
        arm.recall.push(eval::chain_recall(&found, &all_notes));
        arm.order
            .push(f64::from(u8::from(eval::contains_in_order(&top, chain))));
        let anchor = match q.intent.as_deref() {
            Some("consequence") => (top.first(), chain.first()),
            _ => (top.last(), chain.last()),
        };
        arm.anchored.push(f64::from(u8::from(
            anchor.0.is_some() && anchor.0 == anchor.1,
        )));
        if !q.branches.is_empty() {
            // Every branch (the chain's own included) shows a note beyond
            // the note asked about.
            let shown = std::iter::once(chain)
                .chain(q.branches.iter().map(Vec::as_slice))
                .all(|b| b.iter().skip(1).any(|n| found.contains(n)));
            arm.branches.push(f64::from(u8::from(shown)));
        }
        Ok(())
    }

    /// Whether the chat's extractive answer, its cited sources or any of
    /// its sources hold the judged answer.
    fn answer(&mut self, q: &Question, answer: &str) -> Result<(), AppError> {
        let t = Instant::now();
        let r = self.ws.chat(
            &ChatRequest {
                message: q.text.clone(),
                extractive: true,
                ..Default::default()
            },
            &mut |_| true,
        )?;
        self.answered
            .latency
            .push(t.elapsed().as_secs_f64() * 1000.0);
        let cited: Vec<&str> = r
            .sources
            .iter()
            .filter(|s| r.citations.iter().any(|c| c.n == s.n))
            .map(|s| s.hit.text.as_str())
            .collect();
        let all: Vec<&str> = r.sources.iter().map(|s| s.hit.text.as_str()).collect();
        let found = |texts: &[&str]| f64::from(u8::from(texts.iter().any(|t| holds(t, answer))));
        self.answered.in_answer.push(found(&[r.answer.as_str()]));
        self.answered
            .words
            .push(r.answer.split_whitespace().count() as f64);
        self.answered.in_cited.push(found(&cited));
        self.answered.in_sources.push(found(&all));
        Ok(())
    }

    fn report(self, questions: &[Question], sync: &SyncSummary, model: String) -> EvalReport {
        let answered = self.answered;
        EvalReport {
            questions_file: self.req.questions.clone(),
            field: self.req.field.clone(),
            mode: self.req.mode,
            model,
            questions: questions.len(),
            notes: sync.notes,
            chunks: sync.chunks,
            edges: sync.edges,
            runs: self
                .arms
                .into_iter()
                .map(|arm| EvalRun {
                    graph: arm.graph,
                    summary: eval::summarize(&arm.scores),
                    latency_ms: eval::latency(&arm.latency),
                })
                .collect(),
            chains: self
                .chain_arms
                .into_iter()
                .filter(|arm| !arm.recall.is_empty())
                .map(|arm| ChainRun {
                    traversal: arm.traverse,
                    questions: arm.recall.len(),
                    chain_recall: mean(&arm.recall),
                    order_hit_rate: mean(&arm.order),
                    anchored_rate: mean(&arm.anchored),
                    branch_rate: (!arm.branches.is_empty()).then(|| mean(&arm.branches)),
                    latency_ms: eval::latency(&arm.latency),
                })
                .collect(),
            intent_accuracy: (self.intents.questions > 0).then_some(self.intents),
            answer_recall: (!answered.in_answer.is_empty()).then(|| AnswerRecall {
                questions: answered.in_answer.len(),
                in_answer: mean(&answered.in_answer),
                in_cited: mean(&answered.in_cited),
                in_sources: mean(&answered.in_sources),
                // The percentiles of `latency` are those of any sample.
                median_words: eval::latency(&answered.words).p50,
                latency_ms: eval::latency(&answered.latency),
            }),
            embedding_ms: eval::latency(&self.embed_ms),
            per_question: self.per_question,
        }
    }
}
