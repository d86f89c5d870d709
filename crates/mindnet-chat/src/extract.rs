//! Extractive answers (CHAT-8): without an LLM the chat still answers, with
//! the sentences of the retrieved chunks closest to the question, each
//! cited. Nothing is written that no note says.

use mindnet_retrieve::causal::{AnswerKind, ChatRules};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A numbered source as the answer sees it.
#[derive(Debug, Clone)]
pub struct SourceText<'a> {
    /// Its citation number, from 1.
    pub n: usize,
    pub text: &'a str,
}

/// One sentence of the answer, with the source it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    pub text: String,
    pub source: usize,
    pub score: f64,
}

/// Lower-case words of 3+ characters (umlauts kept).
fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// The first five characters: `Entscheidungen` and `Entscheidung` meet.
fn stem(term: &str) -> String {
    term.chars().take(5).collect()
}

/// Markdown to prose: link syntax to its text, markers and callout headers
/// dropped, code skipped.
pub fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut code = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            code = !code;
            continue;
        }
        if code || t.starts_with("> [!") || t.starts_with('|') || t.starts_with('#') || t == "---" {
            continue;
        }
        let t = t.trim_start_matches(['>', ' ']);
        if is_relation_line(t) || only_links(t) {
            continue;
        }
        let t = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .unwrap_or(t);
        out.push_str(&links_to_text(t));
        out.push('\n');
    }
    out
}

/// A line of links and punctuation only (a list of links): navigation.
fn only_links(t: &str) -> bool {
    if !t.contains("[[") {
        return false;
    }
    let outside = mindnet_core::wikilink::outside_links(t);
    !outside.unclosed && !outside.prose.chars().any(char::is_alphabetic)
}

/// `kind: [[X]] [[Y]]`, the body of an edge callout: links, not prose.
fn is_relation_line(t: &str) -> bool {
    t.split_once(':').is_some_and(|(k, rest)| {
        !k.is_empty()
            && k.chars().all(|c| c.is_alphanumeric() || c == '_')
            && rest.trim_start().starts_with("[[")
    })
}

/// `[[a|b]]` → b, `[[rel:kind a]]` → a, `[[a#s]]` → a, `![[x]]` → x.
fn links_to_text(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find("[[") {
        let Some(len) = rest[start..].find("]]") else {
            break;
        };
        out.push_str(rest[..start].trim_end_matches('!'));
        let inner = &rest[start + 2..start + len];
        let shown = match inner.split_once('|') {
            Some((_, label)) => label,
            None => {
                let target = inner
                    .strip_prefix("rel:")
                    .map_or(inner, |r| r.split_once(' ').map_or(r, |(_, t)| t));
                target.split('#').next().unwrap_or(target)
            }
        };
        out.push_str(shown.trim());
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Sentences of prose: split after `.`, `!`, `?` before a space, and at
/// line ends.
pub fn sentences(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose.lines() {
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, &(i, c)) in chars.iter().enumerate() {
            let next_space = chars.get(k + 1).is_some_and(|(_, n)| n.is_whitespace());
            if matches!(c, '.' | '!' | '?') && next_space {
                // Not after a one-letter abbreviation or a number ("z. B.", "3.").
                let word: String = line[start..i]
                    .rsplit(char::is_whitespace)
                    .next()
                    .unwrap_or("")
                    .to_string();
                if word.chars().count() <= 1 || word.chars().all(|c| c.is_ascii_digit()) {
                    continue;
                }
                out.push(line[start..=i].trim().to_string());
                start = i + c.len_utf8();
            }
        }
        out.push(line[start..].trim().to_string());
    }
    out.retain(|s| s.chars().filter(|c| c.is_alphabetic()).count() >= 12);
    out
}

/// A sentence of a source that may go into the answer.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its source's citation number.
    pub source: usize,
    pub text: String,
    terms: BTreeSet<String>,
}

/// Every sentence of the sources' prose, in source order: what the caller
/// embeds and [`best_sentences`] chooses from.
pub fn candidates(sources: &[SourceText<'_>]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for s in sources {
        for text in sentences(&plain(s.text)) {
            let terms = terms(&text).into_iter().collect();
            out.push(Candidate {
                source: s.n,
                text,
                terms,
            });
        }
    }
    out
}

/// The best sentences for `question`, best first, at most
/// `rules.extractive.sentences` and `per_source` from one source.
///
/// A sentence scores its similarity to the question (`similarity`, one
/// cosine per candidate, scaled over the candidates to 0..1) and, at the
/// share `lexical`, its lexical match (scaled to 0..1 by the best). A
/// source's rank counts against it and holding what the question asks for
/// (a year, a number, a new name) for it: the answer of a bridge question
/// is in the second or third note, and in the sentence of it that has the
/// asked-for kind. Without similarities (the embedder failed, or the
/// words alone are asked for: `lexical: 1`) only the
/// lexical match counts, and a sentence without a question word is never
/// chosen.
pub fn best_sentences(
    question: &str,
    candidates: &[Candidate],
    similarity: Option<&[f32]>,
    rules: &ChatRules,
) -> Vec<Sentence> {
    let x = &rules.extractive;
    let lexical = lexical_scores(question, candidates, &rules.stopwords);
    let best_lexical = lexical.iter().copied().fold(0.0, f64::max);
    let dense = similarity
        .filter(|s| s.len() == candidates.len())
        .map(scaled);
    let kind = answer_kind(question, &rules.answer_types);
    let q_words: BTreeSet<String> = terms(question).into_iter().collect();
    let mut scored: Vec<Sentence> = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        let lex = if best_lexical > 0.0 {
            lexical[i] / best_lexical
        } else {
            0.0
        };
        let base = match &dense {
            Some(d) => (1.0 - x.lexical) * d[i] + x.lexical * lex,
            None if lex > 0.0 => lex,
            None => continue,
        };
        let fits = kind.is_some_and(|k| holds_kind(k, &c.text, &q_words));
        scored.push(Sentence {
            text: c.text.clone(),
            source: c.source,
            score: base - x.source_rank * c.source.saturating_sub(1) as f64
                + if fits { x.answer_type } else { 0.0 },
        });
    }
    // Stable: a better-ranked source, then the earlier sentence, wins a tie.
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.source.cmp(&b.source)));
    let mut out: Vec<Sentence> = Vec::new();
    for s in scored {
        if out.len() >= x.sentences {
            break;
        }
        if out.iter().filter(|o| o.source == s.source).count() >= x.per_source
            || out.iter().any(|o| o.text == s.text)
        {
            continue;
        }
        out.push(s);
    }
    out
}

/// Per candidate: the inverse document frequencies (over the candidates) of
/// the question's words it holds, a stem match at half weight, over the
/// square root of its length.
fn lexical_scores(question: &str, candidates: &[Candidate], stopwords: &[String]) -> Vec<f64> {
    let q: BTreeSet<String> = terms(question)
        .into_iter()
        .filter(|t| !stopwords.contains(t))
        .collect();
    let q_stems: BTreeSet<String> = q.iter().map(|t| stem(t)).collect();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for c in candidates {
        for w in &c.terms {
            *df.entry(w.as_str()).or_default() += 1;
        }
    }
    let n = candidates.len().max(1) as f64;
    let idf = |w: &str| (1.0 + n / (*df.get(w).unwrap_or(&1) as f64)).ln();
    candidates
        .iter()
        .map(|c| {
            let mut score = 0.0;
            let mut stems_seen = BTreeSet::new();
            for w in c.terms.iter().filter(|w| q.contains(*w)) {
                score += idf(w);
                stems_seen.insert(stem(w));
            }
            for w in c.terms.iter().filter(|w| !q.contains(*w)) {
                let s = stem(w);
                if q_stems.contains(&s) && stems_seen.insert(s) {
                    score += 0.5 * idf(w);
                }
            }
            score / (c.terms.len().max(4) as f64).sqrt()
        })
        .collect()
}

/// Cosines to 0..1 over the candidates: their spread, not their level
/// (which differs by model), tells the sentences apart.
fn scaled(similarity: &[f32]) -> Vec<f64> {
    let lo = similarity.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = similarity.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let range = f64::from(hi - lo);
    similarity
        .iter()
        .map(|&s| {
            if range > 0.0 {
                f64::from(s - lo) / range
            } else {
                1.0
            }
        })
        .collect()
}

/// The kind of answer the question's opening asks for.
fn answer_kind(question: &str, openings: &BTreeMap<AnswerKind, Vec<String>>) -> Option<AnswerKind> {
    let q = question.trim_start().to_lowercase();
    openings.iter().find_map(|(kind, opens)| {
        opens
            .iter()
            .any(|o| {
                q.strip_prefix(o.as_str())
                    .is_some_and(|rest| !rest.starts_with(char::is_alphanumeric))
            })
            .then_some(*kind)
    })
}

/// Whether a sentence holds an answer of `kind`: a year (1000–2099), a
/// digit, or a capitalised word the question does not hold.
fn holds_kind(kind: AnswerKind, sentence: &str, question_words: &BTreeSet<String>) -> bool {
    let words = || {
        sentence
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
    };
    match kind {
        AnswerKind::Date => words()
            .any(|w| w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (1000..=2099).contains(&y))),
        AnswerKind::Number => sentence.chars().any(|c| c.is_ascii_digit()),
        AnswerKind::Name => words().any(|w| {
            w.chars().count() >= 2
                && w.starts_with(char::is_uppercase)
                && !question_words.contains(&w.to_lowercase())
        }),
    }
}

/// The sentences as an answer, each with its citation.
pub fn render(sentences: &[Sentence]) -> String {
    sentences
        .iter()
        .map(|s| format!("{} [{}]", s.text, s.source))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_becomes_prose_and_sentences() {
        let md = "# Titel\n\n> [!edge] caused_by: [[Y]]\n> resulted_in: [[Z]]\nQdrant ist eine [[Vektordatenbank|Datenbank]] für Vektoren. Sie läuft z. B. lokal.\n\n> [!edge] caused_by: [[X]]\n```\ncode hier drin\n```\n- Ein Punkt mit [[rel:based_on Lokal zuerst]] als Grund.\n- [[Qdrant als Vektordatenbank]]\n- [[A]], [[B]]";
        let s = sentences(&plain(md));
        assert_eq!(
            s,
            vec![
                "Qdrant ist eine Datenbank für Vektoren.",
                "Sie läuft z. B. lokal.",
                "Ein Punkt mit Lokal zuerst als Grund."
            ]
        );
    }

    /// The built-in chat rules with these extractive weights.
    fn rules(lexical: f64, source_rank: f64, answer_type: f64) -> ChatRules {
        let mut r = mindnet_retrieve::causal::DecisionEngine::builtin()
            .chat()
            .clone();
        r.extractive.sentences = 4;
        r.extractive.per_source = 2;
        r.extractive.lexical = lexical;
        r.extractive.source_rank = source_rank;
        r.extractive.answer_type = answer_type;
        r
    }

    #[test]
    fn the_sentence_with_the_rare_question_words_wins_and_is_cited() {
        let a = "Lilu ist ein Wesen der Mythologie. Lilu is a spirit in Akkadian texts.";
        let b = "Gallu is a demon of the underworld. Demons are common in many texts.";
        let sources = [SourceText { n: 1, text: a }, SourceText { n: 2, text: b }];
        let c = candidates(&sources);
        let rules = rules(1.0, 0.0, 0.0);
        let best = best_sentences("If Gallu is a demon, Lilu is what?", &c, None, &rules);
        assert_eq!(best[0].source, 2);
        assert!(best.iter().any(|s| s.text.contains("spirit")));
        let text = render(&best);
        assert!(text.contains("[1]") && text.contains("[2]"), "{text}");
        // Without similarities, no sentence without a question word.
        assert!(best_sentences("Photosynthese", &c, None, &rules).is_empty());
        // A stopword alone matches nothing.
        assert!(best_sentences("What is it?", &c, None, &rules).is_empty());
    }

    /// A bridge question: the first source names the bridge (the director),
    /// the second answers about it. The reply holds both links of the
    /// chain, in the chain's order, and none of the filler.
    #[test]
    fn a_bridge_reply_holds_the_bridge_and_the_answer() {
        let first = "Jump for Glory is a 1937 film directed by Raoul Walsh. \
                     The film was shot at Denham Studios near London.";
        let second = "Raoul Walsh was an American film director and actor. \
                      Walsh was married to the actress Miriam Cooper from 1916 to 1926.";
        let third = "Glory is a 1989 war film about a regiment of the Civil War.";
        let sources = [
            SourceText { n: 1, text: first },
            SourceText { n: 2, text: second },
            SourceText { n: 3, text: third },
        ];
        let c = candidates(&sources);
        assert_eq!(c.len(), 5);
        // Cosines as an embedder gives them: the spouse sentence is the
        // closest to the question, the studio sentence the farthest.
        let sim = [0.84, 0.78, 0.83, 0.87, 0.82];
        let mut r = rules(0.25, 0.3, 0.2);
        r.extractive.sentences = 2;
        r.extractive.per_source = 1;
        let q = "Who is the spouse of the director of Jump for Glory?";
        let best = best_sentences(q, &c, Some(&sim), &r);
        let texts: Vec<&str> = best.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Jump for Glory is a 1937 film directed by Raoul Walsh.",
                "Walsh was married to the actress Miriam Cooper from 1916 to 1926."
            ]
        );
        // Cosines that are all alike leave the words to decide.
        let flat = [0.8; 5];
        let best = best_sentences(q, &c, Some(&flat), &r);
        assert_eq!(best[0].source, 1, "{best:?}");
        // Cosines for other candidates (a length that does not fit) are
        // not used.
        let words_only = best_sentences(q, &c, None, &r);
        assert_eq!(best_sentences(q, &c, Some(&sim[..2]), &r), words_only);
    }

    /// "Wann …?" asks for a date: of two sentences alike in every other
    /// way, the one with a year wins; "Wie viele …?" wants a number and
    /// "Wer …?" a name the question does not hold.
    #[test]
    fn the_asked_for_kind_of_answer_counts() {
        let text = "Die Brücke über den Fluss wurde lange geplant. \
                    Die Brücke über den Fluss wurde 1932 eröffnet.";
        let sources = [SourceText { n: 1, text }];
        let c = candidates(&sources);
        let sim = [0.8, 0.8];
        let r = rules(0.0, 0.0, 0.2);
        let best = |q: &str| best_sentences(q, &c, Some(&sim), &r)[0].text.clone();
        assert!(best("Wann wurde die Brücke eröffnet?").contains("1932"));
        assert!(best("Wie viele Brücken gibt es?").contains("1932"));
        // Without a kind the tie goes to the earlier sentence.
        assert!(best("Was ist mit der Brücke?").contains("geplant"));
        let names = "Die Oper schrieb Mozart in Wien. Die Oper wurde in Wien gespielt.";
        let c = candidates(&[SourceText { n: 1, text: names }]);
        let top = best_sentences("Wer schrieb die Oper in Wien?", &c, Some(&sim), &r);
        assert!(top[0].text.contains("Mozart"), "{top:?}");
    }

    #[test]
    fn a_lower_source_pays_for_its_rank() {
        let same = "Qdrant speichert Vektoren lokal.";
        let sources = [
            SourceText { n: 1, text: same },
            SourceText {
                n: 2,
                text: "Qdrant speichert Vektoren auf dem Server.",
            },
        ];
        let c = candidates(&sources);
        let sim = [0.80, 0.82];
        assert_eq!(
            best_sentences(
                "Wo speichert Qdrant?",
                &c,
                Some(&sim),
                &rules(0.0, 0.0, 0.0)
            )[0]
            .source,
            2
        );
        assert_eq!(
            best_sentences(
                "Wo speichert Qdrant?",
                &c,
                Some(&sim),
                &rules(0.0, 1.5, 0.0)
            )[0]
            .source,
            1
        );
    }
}
