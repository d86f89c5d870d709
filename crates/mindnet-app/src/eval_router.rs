//! The chat router against a judged set of messages (CHAT-3): how often
//! it picks the judged strategy (and, for an interview, the note type),
//! with no LLM, and which rule decided each message.

use crate::chat::{centroid_route, centroids};
use crate::{AppError, Settings, open};
use mindnet_chat::route;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Serialize)]
pub struct RouterReport {
    pub messages: usize,
    pub correct: usize,
    pub accuracy: f64,
    /// Messages decided by each rule (keywords, pattern, intent, centroid,
    /// default), with how many of them were right.
    pub by_rule: BTreeMap<String, RuleCount>,
    /// Per judged strategy: messages and right ones.
    pub by_strategy: BTreeMap<String, RuleCount>,
    pub misses: Vec<RouterMiss>,
    pub model: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct RuleCount {
    pub messages: usize,
    pub correct: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct RouterMiss {
    pub id: String,
    pub message: String,
    pub judged: String,
    pub routed: String,
    pub by: String,
}

#[derive(Deserialize)]
struct Judged {
    id: String,
    message: String,
    strategy: String,
    #[serde(rename = "type")]
    note_type: Option<String>,
}

pub fn evaluate_router(settings: &Settings, file: &Path) -> Result<RouterReport, AppError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| AppError::bad_request(format!("{}: {e}", file.display())))?;
    let engine = settings.load_engine()?;
    let config = settings.load_config()?;
    let embedder = open::embedder(settings)?;
    let cents = centroids(&engine, embedder.as_ref());
    let mut report = RouterReport {
        messages: 0,
        correct: 0,
        accuracy: 0.0,
        by_rule: BTreeMap::new(),
        by_strategy: BTreeMap::new(),
        misses: Vec::new(),
        model: embedder.id().name.clone(),
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let j: Judged = serde_json::from_str(line).map_err(|e| {
            AppError::bad_request(format!(
                "{}:{}: {e} (expected id, message, strategy, optional type)",
                file.display(),
                i + 1
            ))
        })?;
        let r = match route::by_rules(&engine, &config.registry, &j.message) {
            Some(r) => r,
            None => centroid_route(
                &engine,
                embedder.as_ref(),
                &cents,
                &j.message,
                &mut Vec::new(),
            )?,
        };
        let right =
            r.strategy == j.strategy && (j.note_type.is_none() || r.note_type == j.note_type);
        let by = r.by.name().to_string();
        for (map, key) in [
            (&mut report.by_rule, by.clone()),
            (&mut report.by_strategy, j.strategy.clone()),
        ] {
            let c = map.entry(key).or_default();
            c.messages += 1;
            c.correct += usize::from(right);
        }
        report.messages += 1;
        if right {
            report.correct += 1;
        } else {
            let routed = match &r.note_type {
                Some(t) => format!("{} {t}", r.strategy),
                None => r.strategy.clone(),
            };
            let judged = match &j.note_type {
                Some(t) => format!("{} {t}", j.strategy),
                None => j.strategy.clone(),
            };
            report.misses.push(RouterMiss {
                id: j.id,
                message: j.message,
                judged,
                routed,
                by,
            });
        }
    }
    report.accuracy = report.correct as f64 / report.messages.max(1) as f64;
    Ok(report)
}
