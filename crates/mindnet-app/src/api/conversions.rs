//! Internal types → API types. Every conversion destructures its source
//! completely (no `..`), so a new internal field is a compile error here
//! until someone decides whether the API shows it.

use super::notes::ChunkInfo;
use super::notes::EdgeInfo;
use super::notes::NoteInfo;
use super::query::Causal;
use super::query::CausalPath;
use super::query::Direction;
use super::query::Hit;
use super::query::Lang;
use super::query::Mode;
use super::query::PathNote;
use super::query::PathScore;
use super::query::PathStep;
use super::query::QueryResponse;
use super::query::ScoreBreakdown;
use super::query::SectionHit;
use super::query::Subgraph;
use super::query::SubgraphEdge;
use super::query::SubgraphNode;
use super::query::Timings;
use super::status::Skipped;
use super::status::SyncSummary;
use super::status::Warning;
use mindnet_retrieve as r;
use mindnet_retrieve::causal as c;

impl From<r::Mode> for Mode {
    fn from(m: r::Mode) -> Self {
        match m {
            r::Mode::Semantic => Mode::Semantic,
            r::Mode::Lexical => Mode::Lexical,
            r::Mode::Hybrid => Mode::Hybrid,
        }
    }
}

impl From<Mode> for r::Mode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Semantic => r::Mode::Semantic,
            Mode::Lexical => r::Mode::Lexical,
            Mode::Hybrid => r::Mode::Hybrid,
        }
    }
}

impl From<Lang> for r::Lang {
    fn from(l: Lang) -> Self {
        match l {
            Lang::De => r::Lang::De,
            Lang::En => r::Lang::En,
        }
    }
}

impl From<c::Direction> for Direction {
    fn from(d: c::Direction) -> Self {
        match d {
            c::Direction::Backward => Direction::Backward,
            c::Direction::Forward => Direction::Forward,
            c::Direction::Both => Direction::Both,
        }
    }
}

impl From<r::ScoreBreakdown> for ScoreBreakdown {
    fn from(b: r::ScoreBreakdown) -> Self {
        let r::ScoreBreakdown {
            semantic,
            edge_bonus,
            centrality,
            hop,
            walk,
            total,
            s_sem,
            cosine,
            lexical,
            w_type,
            m_status,
            b_edge,
            b_cent,
            b_hop,
            b_walk,
            hub,
            gate,
            w_sem,
            w_edge,
            w_cent,
            w_hop,
            w_walk,
        } = b;
        ScoreBreakdown {
            semantic,
            edge_bonus,
            centrality,
            hop,
            walk,
            total,
            s_sem,
            cosine,
            lexical,
            w_type,
            m_status,
            b_edge,
            b_cent,
            b_hop,
            b_walk,
            hub,
            gate,
            w_sem,
            w_edge,
            w_cent,
            w_hop,
            w_walk,
        }
    }
}

impl From<r::Section> for SectionHit {
    fn from(s: r::Section) -> Self {
        let r::Section {
            chunk_id,
            section,
            text,
            score,
        } = s;
        SectionHit {
            chunk_id,
            section,
            text,
            score,
        }
    }
}

impl From<r::Hit> for Hit {
    fn from(h: r::Hit) -> Self {
        let r::Hit {
            chunk_id,
            note_id,
            title,
            path,
            note_type,
            status,
            section,
            text,
            score,
            score_breakdown,
            reasons,
            via,
            sections,
        } = h;
        Hit {
            chunk_id,
            note_id,
            title,
            path,
            note_type,
            status,
            section,
            text,
            score,
            score_breakdown: score_breakdown.into(),
            reasons,
            via,
            sections: sections.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<c::PathNote> for PathNote {
    fn from(n: c::PathNote) -> Self {
        let c::PathNote {
            note_id,
            title,
            note_type,
        } = n;
        PathNote {
            note_id,
            title,
            note_type,
        }
    }
}

impl From<c::PathStep> for PathStep {
    fn from(s: c::PathStep) -> Self {
        let c::PathStep {
            cause,
            effect,
            kind,
            inverse_kind,
            edge_id,
            provenance,
            evidence_chunk,
            evidence,
        } = s;
        PathStep {
            cause,
            effect,
            kind,
            inverse_kind,
            edge_id,
            provenance,
            evidence_chunk,
            evidence,
        }
    }
}

impl From<c::PathScore> for PathScore {
    fn from(s: c::PathScore) -> Self {
        let c::PathScore {
            semantic,
            coherence,
            shape_match,
            alpha,
            beta,
            gamma,
            total,
            traversal,
        } = s;
        PathScore {
            semantic,
            coherence,
            shape_match,
            alpha,
            beta,
            gamma,
            total,
            traversal,
        }
    }
}

impl From<c::CausalPath> for CausalPath {
    fn from(p: c::CausalPath) -> Self {
        let c::CausalPath {
            notes,
            steps,
            seed,
            score,
            score_breakdown,
        } = p;
        CausalPath {
            notes: notes.into_iter().map(Into::into).collect(),
            steps: steps.into_iter().map(Into::into).collect(),
            seed,
            score,
            score_breakdown: score_breakdown.into(),
        }
    }
}

impl From<c::Subgraph> for Subgraph {
    fn from(g: c::Subgraph) -> Self {
        let c::Subgraph { nodes, edges } = g;
        Subgraph {
            nodes: nodes
                .into_iter()
                .map(|n| {
                    let c::SubgraphNode {
                        note_id,
                        title,
                        note_type,
                        paths,
                        role,
                    } = n;
                    SubgraphNode {
                        note_id,
                        title,
                        note_type,
                        paths,
                        role,
                    }
                })
                .collect(),
            edges: edges
                .into_iter()
                .map(|e| {
                    let c::SubgraphEdge {
                        from,
                        to,
                        kind,
                        edge_id,
                    } = e;
                    SubgraphEdge {
                        from,
                        to,
                        kind,
                        edge_id,
                    }
                })
                .collect(),
        }
    }
}

impl From<c::CausalAnswer> for Causal {
    fn from(a: c::CausalAnswer) -> Self {
        let c::CausalAnswer {
            direction,
            preferred_edges,
            target_types,
            max_hops,
            paths,
            subgraph,
        } = a;
        Causal {
            direction: direction.into(),
            preferred_edges,
            target_types,
            max_hops,
            paths: paths.into_iter().map(Into::into).collect(),
            subgraph: subgraph.into(),
        }
    }
}

impl From<r::QueryResult> for QueryResponse {
    fn from(q: r::QueryResult) -> Self {
        let r::QueryResult {
            query_id,
            query,
            mode,
            intent,
            graph,
            hits,
            causal,
            timings,
        } = q;
        let r::Timings {
            embed_ms,
            search_ms,
        } = timings;
        QueryResponse {
            query_id,
            query,
            mode: mode.into(),
            intent,
            graph,
            hits: hits.into_iter().map(Into::into).collect(),
            causal: causal.map(Into::into),
            timings: Timings {
                embed_ms,
                search_ms,
            },
        }
    }
}

impl From<mindnet_core::Note> for NoteInfo {
    fn from(n: mindnet_core::Note) -> Self {
        let mindnet_core::Note {
            note_id,
            title,
            note_type,
            status,
            tags,
            aliases,
            created,
            updated,
            lang,
            retriever_weight: _,
            chunk_profile: _,
            edge_defaults: _,
            path,
            hash,
            fulltext,
            names,
            name_parts,
        } = n;
        NoteInfo {
            note_id,
            title,
            note_type,
            status: status.as_str().to_string(),
            tags,
            aliases,
            created,
            updated,
            lang,
            path,
            hash,
            text: fulltext,
            names,
            name_parts,
        }
    }
}

impl From<mindnet_core::Chunk> for ChunkInfo {
    fn from(c: mindnet_core::Chunk) -> Self {
        let mindnet_core::Chunk {
            chunk_id,
            note_id: _,
            ord,
            note_type: _,
            text,
            window: _,
            section,
            retriever_weight: _,
            chunk_profile: _,
            neighbors_prev: _,
            neighbors_next: _,
            status: _,
        } = c;
        ChunkInfo {
            chunk_id,
            ord,
            section,
            text,
        }
    }
}

impl From<mindnet_core::Edge> for EdgeInfo {
    fn from(e: mindnet_core::Edge) -> Self {
        let mindnet_core::Edge {
            edge_id,
            source_id,
            target_id,
            target_section,
            note_id,
            kind,
            scope: _,
            provenance,
            rule_id,
            confidence,
            resolved,
        } = e;
        EdgeInfo {
            edge_id,
            source_id,
            target_id,
            target_section,
            note_id,
            kind,
            provenance: provenance.as_str().to_string(),
            rule_id,
            confidence,
            resolved,
        }
    }
}

impl From<mindnet_index::SyncReport> for SyncSummary {
    fn from(r: mindnet_index::SyncReport) -> Self {
        let mindnet_index::SyncReport {
            new,
            changed,
            relinked,
            unchanged,
            deleted,
            notes,
            chunks,
            edges,
            unresolved,
            embedded_chunks,
            skipped,
            warnings,
            seconds,
            embed_seconds,
        } = r;
        SyncSummary {
            new,
            changed,
            relinked,
            unchanged,
            deleted,
            notes,
            chunks,
            edges,
            unresolved,
            embedded_chunks,
            skipped: skipped
                .into_iter()
                .map(|s| {
                    let mindnet_ingest::Skipped {
                        path,
                        reason,
                        by_status: _,
                    } = s;
                    Skipped { path, reason }
                })
                .collect(),
            warnings: warnings.into_iter().map(Into::into).collect(),
            seconds,
            embed_seconds,
        }
    }
}

impl From<mindnet_core::Warning> for Warning {
    fn from(w: mindnet_core::Warning) -> Self {
        let mindnet_core::Warning {
            path,
            line,
            message,
        } = w;
        Warning {
            path,
            line,
            message,
        }
    }
}
