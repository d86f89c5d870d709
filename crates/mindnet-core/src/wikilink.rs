//! The text around `[[…]]` links. Chat's extracts and smart edges both need to
//! tell a line of prose from a list of links, and must agree on where a link
//! ends.

/// A line's text outside its links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideLinks {
    /// Everything outside `[[…]]`, in order.
    pub prose: String,
    /// A `[[` is never closed; the line after it is not in `prose`.
    pub unclosed: bool,
}

pub fn outside_links(line: &str) -> OutsideLinks {
    let mut rest = line;
    let mut prose = String::new();
    while let Some(start) = rest.find("[[") {
        prose.push_str(&rest[..start]);
        match rest[start..].find("]]") {
            Some(end) => rest = &rest[start + end + 2..],
            None => {
                return OutsideLinks {
                    prose,
                    unclosed: true,
                };
            }
        }
    }
    prose.push_str(rest);
    OutsideLinks {
        prose,
        unclosed: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_cut_out_and_an_unclosed_one_ends_the_prose() {
        let o = outside_links("Weil [[A|a]] und ![[B#x]], daher.");
        assert_eq!(o.prose, "Weil  und !, daher.");
        assert!(!o.unclosed);
        let o = outside_links("Text [[offen und mehr");
        assert_eq!(o.prose, "Text ");
        assert!(o.unclosed);
    }
}
