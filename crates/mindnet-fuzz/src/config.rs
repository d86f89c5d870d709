//! Every YAML config loader on the same text: each either loads it or
//! refuses it with an error that names the file and a line.

use mindnet_core::{ConfigError, EdgeVocabulary, TypeRegistry};
use std::path::Path;

pub fn loaders(data: &[u8]) {
    let text = crate::text(data);
    let path = Path::new("fuzz.yaml");
    let vocab = match EdgeVocabulary::from_yaml(path, &text) {
        Ok(v) => v,
        Err(e) => {
            named(&e);
            EdgeVocabulary::builtin()
        }
    };
    match TypeRegistry::from_yaml(path, &text, &vocab) {
        Ok(registry) => {
            for name in ["concept", "decision", "fuzz"] {
                registry.config(name);
                registry.matrix_rule(name, "decision");
            }
        }
        Err(e) => named(&e),
    }
    check(mindnet_retrieve::RetrieverConfig::from_yaml(path, &text));
    check(mindnet_retrieve::causal::DecisionEngine::from_yaml(
        path, &text,
    ));
    check(mindnet_lint::LintConfig::from_yaml(path, &text));
    check(mindnet_chat::Prompts::from_yaml(path, &text));
}

fn check<T>(loaded: Result<T, ConfigError>) {
    if let Err(e) = loaded {
        named(&e);
    }
}

fn named(e: &ConfigError) {
    let text = e.to_string();
    assert!(
        text.starts_with("fuzz.yaml"),
        "an error without the file: {text}"
    );
    if let ConfigError::Invalid { line, .. } = e {
        assert!(*line >= 1, "an error on line 0: {text}");
    }
}
