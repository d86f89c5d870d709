//! Extractive answers (CHAT-8): without an LLM the chat still answers, with
//! the sentences of the retrieved chunks that share the most rare words
//! with the question, each cited. Nothing is written that no note says.

use std::collections::{BTreeSet, HashMap};

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

/// How much goes into an answer, and which words never count.
#[derive(Debug, Clone, Copy)]
pub struct Limits<'a> {
    pub sentences: usize,
    pub per_source: usize,
    pub stopwords: &'a [String],
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

/// The best sentences for `question` among `sources`, best first. A
/// sentence scores the inverse document frequencies (over all candidate
/// sentences) of the question's words it holds, a stem match at half
/// weight, over the square root of its length; a better-ranked source
/// breaks ties.
pub fn best_sentences(
    question: &str,
    sources: &[SourceText<'_>],
    limits: Limits<'_>,
) -> Vec<Sentence> {
    let q: BTreeSet<String> = terms(question)
        .into_iter()
        .filter(|t| !limits.stopwords.contains(t))
        .collect();
    let q_stems: BTreeSet<String> = q.iter().map(|t| stem(t)).collect();
    let mut pool: Vec<(usize, String, BTreeSet<String>)> = Vec::new();
    for s in sources {
        for sentence in sentences(&plain(s.text)) {
            let t: BTreeSet<String> = terms(&sentence).into_iter().collect();
            pool.push((s.n, sentence, t));
        }
    }
    let mut df: HashMap<&str, usize> = HashMap::new();
    for (_, _, t) in &pool {
        for w in t {
            *df.entry(w.as_str()).or_default() += 1;
        }
    }
    let n = pool.len().max(1) as f64;
    let idf = |w: &str| (1.0 + n / (*df.get(w).unwrap_or(&1) as f64)).ln();
    let mut scored: Vec<Sentence> = pool
        .iter()
        .filter_map(|(source, text, t)| {
            let mut score = 0.0;
            let mut stems_seen = BTreeSet::new();
            for w in t.iter().filter(|w| q.contains(*w)) {
                score += idf(w);
                stems_seen.insert(stem(w));
            }
            for w in t.iter().filter(|w| !q.contains(*w)) {
                let s = stem(w);
                if q_stems.contains(&s) && stems_seen.insert(s) {
                    score += 0.5 * idf(w);
                }
            }
            (score > 0.0).then(|| Sentence {
                text: text.clone(),
                source: *source,
                score: score / (t.len().max(4) as f64).sqrt(),
            })
        })
        .collect();
    // Stable: a better-ranked source, then the earlier sentence, wins a tie.
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.source.cmp(&b.source)));
    let mut out: Vec<Sentence> = Vec::new();
    for s in scored {
        if out.len() >= limits.sentences {
            break;
        }
        if out.iter().filter(|o| o.source == s.source).count() >= limits.per_source
            || out.iter().any(|o| o.text == s.text)
        {
            continue;
        }
        out.push(s);
    }
    out
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

    #[test]
    fn the_sentence_with_the_rare_question_words_wins_and_is_cited() {
        let a = "Lilu ist ein Wesen der Mythologie. Lilu is a spirit in Akkadian texts.";
        let b = "Gallu is a demon of the underworld. Demons are common in many texts.";
        let sources = [SourceText { n: 1, text: a }, SourceText { n: 2, text: b }];
        let stop = ["is".to_string(), "what".to_string()];
        let limits = Limits {
            sentences: 4,
            per_source: 2,
            stopwords: &stop,
        };
        let best = best_sentences("If Gallu is a demon, Lilu is what?", &sources, limits);
        assert_eq!(best[0].source, 2);
        assert!(best.iter().any(|s| s.text.contains("spirit")));
        let text = render(&best);
        assert!(text.contains("[1]") && text.contains("[2]"), "{text}");
        // No sentence without a question word.
        assert!(best_sentences("Photosynthese", &sources, limits).is_empty());
        // A stopword alone matches nothing.
        assert!(best_sentences("What is it?", &sources, limits).is_empty());
    }
}
