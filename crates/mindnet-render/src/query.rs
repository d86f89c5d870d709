//! Search results, causal answers and evaluation reports.

use crate::one_line;
use mindnet_app::api::{CausalPath, Direction, Lang, PathStep, QueryResponse};
use mindnet_app::eval::EvalReport;
use std::collections::HashMap;
use std::fmt::Write;

/// `mindnet query`: one block per hit; with `explain` the score breakdown
/// and the reasons.
pub fn query_text(r: &QueryResponse, explain: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "query {} · intent {} · {}{} · {:.0} ms (embedding {:.0} ms)",
        r.query_id,
        r.intent,
        r.mode.as_str(),
        if r.graph { " + graph" } else { "" },
        r.timings.search_ms + r.timings.embed_ms,
        r.timings.embed_ms,
    );
    if r.hits.is_empty() {
        out.push_str("no hits\n");
    }
    for (i, h) in r.hits.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>2}. {}  ({}, {})  {:.3}",
            i + 1,
            h.title,
            h.note_type,
            h.path,
            h.score
        );
        if !h.section.is_empty() {
            let _ = writeln!(out, "    § {}", h.section);
        }
        let _ = writeln!(out, "    {}", one_line(&h.text, 160));
        for s in &h.sections {
            let label = if s.section.is_empty() {
                one_line(&s.text, 60)
            } else {
                s.section.clone()
            };
            let _ = writeln!(out, "    + § {label}  {:.3}", s.score);
        }
        if explain {
            let b = &h.score_breakdown;
            let _ = writeln!(
                out,
                "    score {:.3} = semantic {:.3} + edge {:.3} + centrality {:.3} + hop {:.3} + walk {:.3}   [S_sem {:.3} (cos {:.3}, bm25 {:.3}) · W_type {:.2} · M_status {:.2}; B_edge {:.3}; B_cent {:.3}; B_hop {:.3}; B_walk {:.3}]",
                b.total,
                b.semantic,
                b.edge_bonus,
                b.centrality,
                b.hop,
                b.walk,
                b.s_sem,
                b.cosine,
                b.lexical,
                b.w_type,
                b.m_status,
                b.b_edge,
                b.b_cent,
                b.b_hop,
                b.b_walk
            );
            for reason in &h.reasons {
                let _ = writeln!(out, "    · {reason}");
            }
        }
    }
    let _ = writeln!(
        out,
        "Rate a hit: mindnet feedback {} <chunk or note id> <1-5>",
        r.query_id
    );
    out
}

fn title_of<'a>(p: &'a CausalPath, id: &'a str) -> &'a str {
    p.notes
        .iter()
        .find(|n| n.note_id == id)
        .map_or(id, |n| n.title.as_str())
}

/// A path as one line: effect first with the inverse kinds for why
/// questions ("A ⟵caused_by— B"), cause first otherwise ("B —resulted_in⟶ A").
fn chain_line(p: &CausalPath, backward: bool) -> String {
    if p.steps.is_empty() {
        return p
            .notes
            .iter()
            .map(|n| n.title.as_str())
            .collect::<Vec<_>>()
            .join(", ");
    }
    if backward {
        let mut s = title_of(p, &p.steps[p.steps.len() - 1].effect).to_string();
        for step in p.steps.iter().rev() {
            s += &format!(" ⟵{}— {}", step.inverse_kind, title_of(p, &step.cause));
        }
        s
    } else {
        let mut s = title_of(p, &p.steps[0].cause).to_string();
        for step in &p.steps {
            s += &format!(" —{}⟶ {}", step.kind, title_of(p, &step.effect));
        }
        s
    }
}

/// `mindnet ask`: the best chain with its evidence, more paths, and the size
/// of the explanation subgraph.
pub fn ask_text(r: &QueryResponse, lang: Lang) -> String {
    let de = lang == Lang::De;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}",
        if de { "Frage:" } else { "Question:" },
        r.query
    );
    let Some(c) = &r.causal else {
        not_causal(&mut out, r, de);
        return out;
    };
    let backward = c.direction == Direction::Backward;
    let direction = match c.direction {
        Direction::Backward => "Backward",
        Direction::Forward => "Forward",
        Direction::Both => "Both",
    };
    let _ = writeln!(
        out,
        "intent {} · {direction} · {} · max {} hops",
        r.intent,
        c.preferred_edges.join(", "),
        c.max_hops
    );
    let Some(best) = c.paths.first() else {
        let none = if de {
            "Kein Pfad gefunden."
        } else {
            "No path found."
        };
        let _ = writeln!(out, "{none}");
        return out;
    };
    out.push('\n');
    best_path(&mut out, best, backward);
    if c.paths.len() > 1 {
        out.push('\n');
        let _ = writeln!(out, "{}", if de { "Weitere Pfade:" } else { "More paths:" });
        for (i, p) in c.paths.iter().enumerate().skip(1) {
            let _ = writeln!(
                out,
                "  {}. {}  ({:.3})",
                i + 1,
                chain_line(p, backward),
                p.score
            );
        }
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{} {} {}, {} {}",
        if de {
            "Erklärungs-Subgraph:"
        } else {
            "Explanation subgraph:"
        },
        c.subgraph.nodes.len(),
        if de { "Notizen" } else { "notes" },
        c.subgraph.edges.len(),
        if de { "Kanten" } else { "edges" },
    );
    out
}

/// Not a causal question: say so, show the best notes, and how to ask for
/// a chain anyway.
fn not_causal(out: &mut String, r: &QueryResponse, de: bool) {
    let _ = writeln!(
        out,
        "intent {}: {}",
        r.intent,
        if de {
            "keine Kausalfrage; die besten Notizen (eine Kette mit --intent why oder --intent consequence):"
        } else {
            "not a causal question; the best notes (a chain with --intent why or --intent consequence):"
        }
    );
    for (i, h) in r.hits.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}. {} ({}, {})",
            i + 1,
            h.title,
            h.note_type,
            h.path
        );
    }
}

/// The best path: its chain, each step with its evidence, and its score.
fn best_path(out: &mut String, best: &CausalPath, backward: bool) {
    let _ = writeln!(out, "{}", chain_line(best, backward));
    let steps: Vec<&PathStep> = if backward {
        best.steps.iter().rev().collect()
    } else {
        best.steps.iter().collect()
    };
    for (i, s) in steps.iter().enumerate() {
        let line = if backward {
            format!(
                "{} ⟵{}— {}",
                title_of(best, &s.effect),
                s.inverse_kind,
                title_of(best, &s.cause)
            )
        } else {
            format!(
                "{} —{}⟶ {}",
                title_of(best, &s.cause),
                s.kind,
                title_of(best, &s.effect)
            )
        };
        let _ = writeln!(out, "  {}. {line}   [{}]", i + 1, s.provenance);
        if !s.evidence.is_empty() {
            let _ = writeln!(out, "     „{}“", s.evidence);
        }
    }
    let b = &best.score_breakdown;
    let _ = writeln!(
        out,
        "  score {:.3} = {:.2}·semantic {:.3} + {:.2}·coherence {:.3} + {:.2}·shape {:.3}",
        b.total, b.alpha, b.semantic, b.beta, b.coherence, b.gamma, b.shape_match
    );
}

/// The explanation subgraph as a Mermaid flowchart (cause → effect).
pub fn mermaid(r: &QueryResponse) -> String {
    let mut out = String::from("```mermaid\ngraph LR\n");
    let Some(c) = &r.causal else {
        out.push_str("```\n");
        return out;
    };
    let index: HashMap<&str, usize> = c
        .subgraph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.note_id.as_str(), i))
        .collect();
    for (i, n) in c.subgraph.nodes.iter().enumerate() {
        let label = n.title.replace('"', "'");
        let _ = writeln!(
            out,
            "  n{i}[\"{label}<br/><small>{}</small>\"]",
            n.note_type
        );
    }
    for e in &c.subgraph.edges {
        if let (Some(a), Some(b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            let _ = writeln!(out, "  n{a} -->|{}| n{b}", e.kind);
        }
    }
    out.push_str("```\n");
    out
}

/// `mindnet eval`: the metrics table, latencies and chain figures.
pub fn eval_text(r: &EvalReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} questions from {} (field `{}`), model {}, mode {}",
        r.questions,
        r.questions_file.display(),
        r.field,
        r.model,
        r.mode.as_str()
    );
    recall_table(&mut out, r);
    for c in &r.chains {
        let _ = writeln!(
            out,
            "causal chains ({}): {} questions, chain recall {:.3}, top path in gold order {:.3}, anchored at the note asked about {:.3}{}, p50 {:.1} ms, p95 {:.1} ms",
            if c.traversal {
                "traversal"
            } else {
                "no traversal"
            },
            c.questions,
            c.chain_recall,
            c.order_hit_rate,
            c.anchored_rate,
            c.branch_rate
                .map(|b| format!(", all branches shown {b:.3}"))
                .unwrap_or_default(),
            c.latency_ms.p50,
            c.latency_ms.p95
        );
    }
    if let Some(i) = &r.intent_accuracy {
        let _ = writeln!(
            out,
            "intent: {} of {} as judged ({:.3})",
            i.correct,
            i.questions,
            i.correct as f64 / i.questions.max(1) as f64
        );
        for m in &i.misses {
            let _ = writeln!(
                out,
                "  judged {}, detected {}: {}",
                m.judged, m.detected, m.question
            );
        }
    }
    if let Some(a) = &r.answer_recall {
        let _ = writeln!(
            out,
            "answer recall ({} questions, extractive chat): in the answer {:.3}, in the cited chunks {:.3}, in the sources {:.3}; chat p50 {:.0} ms, p95 {:.0} ms",
            a.questions, a.in_answer, a.in_cited, a.in_sources, a.latency_ms.p50, a.latency_ms.p95
        );
    }
    let e = r.embedding_ms;
    let _ = writeln!(
        out,
        "query embedding: p50 {:.1} ms, p95 {:.1} ms (not included above)",
        e.p50, e.p95
    );
    out
}

/// Recall, MRR and nDCG of each arm, overall and by question type, and
/// each arm's search latency.
fn recall_table(out: &mut String, r: &EvalReport) {
    let _ = writeln!(
        out,
        "{:<22} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>8}",
        "", "n", "R@1", "R@2", "R@5", "R@10", "R@20", "R@50", "pool", "MRR", "nDCG@10"
    );
    let mut row = |label: &str, n: usize, s: &mindnet_app::eval::Scores| {
        let _ = writeln!(
            out,
            "{:<22} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>8.3}",
            label,
            n,
            s.recall_1,
            s.recall_2,
            s.recall_5,
            s.recall_10,
            s.recall_20,
            s.recall_50,
            s.pool,
            s.mrr,
            s.ndcg_10
        );
    };
    for run in &r.runs {
        let name = if run.graph { "graph" } else { "no graph" };
        row(
            &format!("{name}: all"),
            run.summary.questions,
            &run.summary.mean,
        );
        for (t, (n, s)) in &run.summary.by_type {
            row(&format!("{name}: {t}"), *n, s);
        }
    }
    for run in &r.runs {
        let l = run.latency_ms;
        let _ = writeln!(
            out,
            "search latency ({}): p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            if run.graph { "graph" } else { "no graph" },
            l.p50,
            l.p95,
            l.p99,
            l.max
        );
    }
}
