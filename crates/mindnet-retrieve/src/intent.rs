//! The question's intent (CAU-1, RET-3): the intent whose pattern starts
//! earliest in the question (question words come first: "Why … software
//! development?" is a why question), then the longest such pattern, then the
//! first name in alphabetical order. A pattern must start a word. The patterns are data in
//! `config/decision_engine.yaml`.

use crate::causal::DecisionEngine;

fn normalize(text: &str) -> String {
    let lower: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    format!(
        " {} ",
        lower.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

pub fn detect(engine: &DecisionEngine, query: &str) -> String {
    let rules = engine
        .intents
        .iter()
        .map(|(name, rule)| (name.as_str(), rule.patterns.as_slice()));
    earliest(query, rules)
        .unwrap_or(engine.fallback.as_str())
        .to_string()
}

/// The key whose pattern starts earliest in `text`, then the longest such
/// pattern, then the first key given. A pattern must start a word and may
/// end inside one (" folge" in " folgen").
pub fn earliest<'a, K: Copy>(
    text: &str,
    rules: impl IntoIterator<Item = (K, &'a [String])>,
) -> Option<K> {
    let q = normalize(text);
    let mut best: Option<(usize, usize, K)> = None; // position, length, key
    for (name, patterns) in rules {
        for p in patterns {
            let p = normalize(p);
            let p = p.trim_end();
            if p.trim().is_empty() {
                continue;
            }
            let Some(at) = q.find(p) else { continue };
            if best.is_none_or(|(pos, len, _)| at < pos || (at == pos && p.len() > len)) {
                best = Some((at, p.len(), name));
            }
        }
    }
    best.map(|(_, _, name)| name)
}

/// The words of `text`, lower case, punctuation dropped.
pub fn words(text: &str) -> Vec<String> {
    normalize(text)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intents_follow_the_patterns() {
        let e = DecisionEngine::builtin();
        assert_eq!(detect(&e, "Warum habe ich den Job gewechselt?"), "why");
        assert_eq!(detect(&e, "Why did I change jobs?"), "why");
        assert_eq!(detect(&e, "What led to the crash?"), "why");
        assert_eq!(detect(&e, "What did the crash lead to?"), "consequence");
        assert_eq!(detect(&e, "Welche Folgen hatte der Umzug?"), "consequence");
        assert_eq!(
            detect(&e, "Wie hat sich mein Weltbild entwickelt?"),
            "development"
        );
        assert_eq!(detect(&e, "Was ist Qdrant?"), "fact");
        // A pattern must start a word: "darum" is not "warum", and
        // "Softwareentwicklung" is not "Entwicklung".
        assert_eq!(detect(&e, "darum geht es"), "fact");
        assert_eq!(detect(&e, "Warum Softwareentwicklung?"), "why");
        assert_eq!(
            detect(&e, "Why did I switch to software development?"),
            "why"
        );
    }
}
