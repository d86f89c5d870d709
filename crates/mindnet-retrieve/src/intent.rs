//! The query's intent (RET-3): the intent with the longest pattern that
//! starts a word of the query (the most specific wins; ties go to the first
//! name in alphabetical order). Patterns are data in
//! `config/retriever.yaml`; the causal engine (CAU-1) refines this later.

use crate::config::{FALLBACK_INTENT, RetrieverConfig};

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

pub fn detect(config: &RetrieverConfig, query: &str) -> String {
    let q = normalize(query);
    let mut best: Option<(usize, &str)> = None;
    for (name, intent) in &config.intents {
        for p in &intent.patterns {
            // " warum" must start a word; it may end inside one ("wieso" in "wiesoo" is fine).
            let p = normalize(p);
            let p = p.trim_end();
            if p.trim().is_empty() || !q.contains(p) {
                continue;
            }
            if best.is_none_or(|(len, _)| p.len() > len) {
                best = Some((p.len(), name));
            }
        }
    }
    best.map_or(FALLBACK_INTENT, |(_, name)| name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intents_follow_the_patterns() {
        let c = RetrieverConfig::builtin();
        assert_eq!(detect(&c, "Warum habe ich den Job gewechselt?"), "why");
        assert_eq!(detect(&c, "Why did I change jobs?"), "why");
        assert_eq!(detect(&c, "Welche Folgen hatte der Umzug?"), "consequence");
        assert_eq!(detect(&c, "Was ist Qdrant?"), "fact");
        // A pattern must start a word: "darum" is not "warum".
        assert_eq!(detect(&c, "darum geht es"), "fact");
    }
}
