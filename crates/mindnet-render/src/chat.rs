//! A chat answer for the terminal: a badge line before the streamed text,
//! and the sources after it.

use crate::one_line;
use mindnet_app::api::{AnswerMode, ChatResponse, RouteInfo, Source};

/// `[FACT · intent fact · extractive]`, with the route's reason.
pub fn chat_badge(strategy: &str, intent: &str, route: &RouteInfo, mode: &AnswerMode) -> String {
    let mode = match (&mode.provider, &mode.model) {
        (Some(p), Some(m)) => format!("{} {p}:{m}", mode.kind),
        _ => mode.kind.clone(),
    };
    let why = if route.detail.is_empty() {
        route.by.clone()
    } else {
        format!("{}: {}", route.by, route.detail)
    };
    let note_type = route
        .note_type
        .as_deref()
        .map(|t| format!(" {t}"))
        .unwrap_or_default();
    format!(
        "[{}{note_type} · intent {intent} · {mode} · {why}]\n",
        strategy.to_uppercase()
    )
}

/// The numbered sources, with the score and, on `explain`, its breakdown
/// and reasons.
pub fn chat_sources(sources: &[Source], explain: bool) -> String {
    let mut out = String::new();
    for s in sources {
        let h = &s.hit;
        let section = if h.section.is_empty() {
            String::new()
        } else {
            format!(" › {}", one_line(&h.section, 60))
        };
        out.push_str(&format!(
            "[{}] {}{section} ({}, {:.3}{})\n",
            s.n,
            h.title,
            h.note_type,
            h.score,
            if s.injected { ", strategic" } else { "" }
        ));
        if explain {
            let b = &h.score_breakdown;
            out.push_str(&format!(
                "    semantic {:.3} + edge {:.3} + centrality {:.3} + hop {:.3} + walk {:.3} = {:.3}; boost ×{:.2}\n",
                b.semantic, b.edge_bonus, b.centrality, b.hop, b.walk, b.total, s.boost
            ));
            for r in &h.reasons {
                out.push_str(&format!("    - {r}\n"));
            }
        }
    }
    out
}

/// The whole answer at once (for a non-streaming print).
pub fn chat_text(r: &ChatResponse, explain: bool) -> String {
    let mut out = chat_badge(&r.strategy, &r.intent, &r.route, &r.mode);
    out.push_str(r.answer.trim_end());
    out.push('\n');
    if !r.sources.is_empty() {
        out.push('\n');
        out.push_str(&chat_sources(&r.sources, explain));
    }
    for w in &r.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

/// The router's accuracy on a judged set, by rule and by strategy.
pub fn router_text(r: &mindnet_app::eval_router::RouterReport) -> String {
    let mut out = format!(
        "router: {} of {} messages as judged ({:.3}), no LLM, centroids by {}\n",
        r.correct, r.messages, r.accuracy, r.model
    );
    for (title, map) in [("decided by", &r.by_rule), ("judged", &r.by_strategy)] {
        for (k, c) in map {
            out.push_str(&format!(
                "  {title} {k:<10} {:>3} messages, {:>3} right\n",
                c.messages, c.correct
            ));
        }
    }
    for m in &r.misses {
        out.push_str(&format!(
            "  miss {}: judged {}, routed {} ({}): {}\n",
            m.id, m.judged, m.routed, m.by, m.message
        ));
    }
    out
}
