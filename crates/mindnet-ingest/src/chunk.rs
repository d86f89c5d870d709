pub fn estimate_tokens(s: &str) -> usize { s.chars().count().div_ceil(4) }
