//! The chat router (CHAT-3). Rules first, because they are predictable
//! and explainable: the question check, then the keyword fast path, then
//! strategy patterns and causal intents. Only a message that none of them
//! recognises goes to the fallback: the LLM router when there is an LLM,
//! else the nearest centroid of each strategy's example phrases.

use mindnet_core::TypeRegistry;
use mindnet_retrieve::causal::{ChatRules, DecisionEngine};
use mindnet_retrieve::intent;
use serde::Serialize;

/// Which rule chose the strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteBy {
    /// An action keyword and a type's object keyword: an interview.
    Keywords,
    /// A strategy's own pattern.
    Pattern,
    /// A causal intent's pattern (decision_engine.yaml `intents`).
    Intent,
    /// The nearest centroid of the strategies' example phrases.
    Centroid,
    /// The LLM router.
    Llm,
    /// Nothing matched: `default_strategy`.
    Default,
    /// An interview in progress takes the message as an answer.
    Interview,
}

impl RouteBy {
    pub fn name(self) -> &'static str {
        match self {
            RouteBy::Keywords => "keywords",
            RouteBy::Pattern => "pattern",
            RouteBy::Intent => "intent",
            RouteBy::Centroid => "centroid",
            RouteBy::Llm => "llm",
            RouteBy::Default => "default",
            RouteBy::Interview => "interview",
        }
    }
}

/// The router's decision, with what it saw.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Route {
    pub strategy: String,
    /// The note type of an interview.
    pub note_type: Option<String>,
    pub by: RouteBy,
    /// A `?` or a leading question word: never an interview.
    pub question: bool,
    /// The causal intent detected in the message (decision_engine.yaml).
    pub intent: String,
    /// The phrase, keyword or similarity behind the choice, for the user.
    pub detail: String,
}

/// The mean embedding of each strategy's example phrases.
#[derive(Debug, Clone, Default)]
pub struct Centroids {
    strategies: Vec<Centroid>,
}

#[derive(Debug, Clone)]
struct Centroid {
    strategy: String,
    vector: Vec<f32>,
}

impl Centroids {
    /// Embeds every example phrase once (`embed` takes texts, returns one
    /// normalised vector each). Strategies without examples stay out.
    pub fn build<E>(
        rules: &ChatRules,
        embed: impl FnOnce(&[String]) -> Result<Vec<Vec<f32>>, E>,
    ) -> Result<Self, E> {
        let mut names = Vec::new();
        let mut texts = Vec::new();
        for (name, s) in &rules.strategies {
            for e in &s.examples {
                names.push(name.clone());
                texts.push(e.clone());
            }
        }
        let vectors = embed(&texts)?;
        let mut strategies: Vec<Centroid> = Vec::new();
        for (name, v) in names.into_iter().zip(vectors) {
            match strategies.iter_mut().find(|c| c.strategy == name) {
                Some(c) => c.vector.iter_mut().zip(&v).for_each(|(a, b)| *a += b),
                None => strategies.push(Centroid {
                    strategy: name,
                    vector: v,
                }),
            }
        }
        for c in &mut strategies {
            let norm = c.vector.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                c.vector.iter_mut().for_each(|x| *x /= norm);
            }
        }
        Ok(Centroids { strategies })
    }

    pub fn is_empty(&self) -> bool {
        self.strategies.is_empty()
    }

    /// The nearest strategy and its cosine, if it beats the runner-up by
    /// `margin`.
    pub fn nearest(&self, query: &[f32], margin: f64) -> Option<(&str, f64)> {
        let mut scored: Vec<(&str, f64)> = self
            .strategies
            .iter()
            .map(|c| {
                let dot: f32 = c.vector.iter().zip(query).map(|(a, b)| a * b).sum();
                (c.strategy.as_str(), f64::from(dot))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        match scored.as_slice() {
            [best, next, ..] if best.1 - next.1 >= margin => Some(*best),
            [best] => Some(*best),
            _ => None,
        }
    }
}

/// A `?`, or a question word first.
pub fn is_question(rules: &ChatRules, message: &str) -> bool {
    message.contains('?')
        || intent::words(message)
            .first()
            .is_some_and(|w| rules.question_words.iter().any(|q| q == w))
}

/// What the rules say, before any fallback.
pub fn by_rules(engine: &DecisionEngine, types: &TypeRegistry, message: &str) -> Option<Route> {
    let rules = engine.chat();
    let words = intent::words(message);
    let question = is_question(rules, message);
    let causal_intent = intent::detect(engine, message);
    let route = |strategy: &str, note_type: Option<String>, by: RouteBy, detail: String| Route {
        strategy: strategy.to_string(),
        note_type,
        by,
        question,
        intent: causal_intent.clone(),
        detail,
    };
    if !question
        && let Some(trigger) = words
            .iter()
            .find(|w| rules.trigger_keywords.iter().any(|t| t == *w))
    {
        let objects = types
            .types
            .iter()
            .map(|(name, t)| (name.as_str(), t.detection_keywords.as_slice()));
        if let Some(note_type) = intent::earliest(message, objects)
            && let Some((name, _)) = rules.strategies.iter().find(|(_, s)| s.interview)
        {
            return Some(route(
                name,
                Some(note_type.to_string()),
                RouteBy::Keywords,
                format!("„{trigger}“ + {note_type}"),
            ));
        }
    }
    // Strategy patterns and the causal intents that select a strategy, by
    // the earliest match in the message.
    let mut candidates: Vec<(String, Vec<String>, RouteBy)> = Vec::new();
    for (name, s) in &rules.strategies {
        if s.interview {
            continue;
        }
        candidates.push((name.clone(), s.patterns.clone(), RouteBy::Pattern));
        for i in &s.intents {
            if i != &engine.fallback {
                candidates.push((
                    name.clone(),
                    engine.rule(i).patterns.clone(),
                    RouteBy::Intent,
                ));
            }
        }
    }
    let hit = intent::earliest(
        message,
        candidates
            .iter()
            .enumerate()
            .map(|(k, (_, p, _))| (k, p.as_slice())),
    )?;
    let (name, _, by) = &candidates[hit];
    let detail = match by {
        RouteBy::Intent => format!("intent {causal_intent}"),
        _ => "pattern".to_string(),
    };
    Some(route(name, None, *by, detail))
}

/// The rules, then the nearest centroid (when `query` is given), then the
/// default strategy. The LLM router, when configured, is asked by the
/// caller between the rules and the centroids.
pub fn route(
    engine: &DecisionEngine,
    types: &TypeRegistry,
    message: &str,
    centroids: Option<(&Centroids, &[f32])>,
) -> Route {
    if let Some(r) = by_rules(engine, types, message) {
        return r;
    }
    fallback(engine, message, centroids)
}

/// The centroid fallback, then the default strategy.
pub fn fallback(
    engine: &DecisionEngine,
    message: &str,
    centroids: Option<(&Centroids, &[f32])>,
) -> Route {
    let rules = engine.chat();
    let question = is_question(rules, message);
    let intent = intent::detect(engine, message);
    if let Some((c, q)) = centroids
        && let Some((name, cos)) = c.nearest(q, rules.centroid_margin)
        && !rules.strategies.get(name).is_some_and(|s| s.interview)
    {
        return Route {
            strategy: name.to_string(),
            note_type: None,
            by: RouteBy::Centroid,
            question,
            intent,
            detail: format!("cosine {cos:.3}"),
        };
    }
    Route {
        strategy: rules.default_strategy.clone(),
        note_type: None,
        by: RouteBy::Default,
        question,
        intent,
        detail: String::new(),
    }
}
