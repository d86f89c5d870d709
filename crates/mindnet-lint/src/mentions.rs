//! Unlinked mentions (`link/unlinked-mention`): another note's title or
//! alias in a note's prose that no link of the note names. The import
//! already turns each into an implicit edge (`mindnet_ingest::mentions`);
//! the finding offers the author the explicit link, and `--fix
//! --link-mentions` writes it at the first place the name is mentioned.
//! The matcher is the import's, so lint offers exactly the edges the index
//! holds.

use crate::{Finding, Lang, LinkRef, Msg, Vault};
use mindnet_ingest::mentions::MentionIndex;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

pub(crate) const RULE: &str = "link/unlinked-mention";

/// The first unlinked mention of one note in another.
pub(crate) struct Unlinked {
    pub note: usize,
    pub target: usize,
    pub range: Range<usize>,
    /// The name as the prose writes it.
    pub text: String,
}

impl Unlinked {
    /// The link that replaces the mention: `[[Name]]` where the prose
    /// writes the file name, else `[[Name|as written]]`, so the text reads
    /// the same. A file name two notes share is given with its folder.
    pub fn link(&self, vault: &Vault<'_>, stems: &HashMap<String, usize>) -> String {
        let path = &vault.notes[self.target].path;
        let full = mindnet_core::lookup::without_md(path);
        let stem = full.rsplit('/').next().unwrap_or(full);
        let name = if stems.get(&stem.to_lowercase()).copied().unwrap_or(0) > 1 {
            full
        } else {
            stem
        };
        if name == self.text {
            format!("[[{name}]]")
        } else {
            format!("[[{name}|{}]]", self.text)
        }
    }
}

/// How many notes have each lower-case file name.
pub(crate) fn stems(vault: &Vault<'_>) -> HashMap<String, usize> {
    let mut out: HashMap<String, usize> = HashMap::new();
    for n in &vault.notes {
        let full = mindnet_core::lookup::without_md(&n.path);
        let stem = full.rsplit('/').next().unwrap_or(full);
        *out.entry(stem.to_lowercase()).or_default() += 1;
    }
    out
}

/// Per note and mentioned note, the first mention, in note order.
pub(crate) fn unlinked(vault: &Vault<'_>, links: &[LinkRef<'_>]) -> Vec<Unlinked> {
    let rules = vault.config.vocab.names();
    let index = MentionIndex::new(&crate::entries(vault), rules);
    let linked: HashSet<(usize, usize)> = links
        .iter()
        .filter_map(|l| l.target.map(|t| (l.note, t)))
        .collect();
    // Notes are matched in parallel, as the import does; the order of the
    // result is the notes' order all the same.
    vault
        .notes
        .par_iter()
        .enumerate()
        .filter(|(i, _)| vault.asked(*i))
        .flat_map_iter(|(i, n)| {
            // As the import reads it: the note's `lang:`, else its words.
            let lang = match n
                .lang
                .or(n.votes.lead().and_then(Lang::from_tag))
                .unwrap_or(vault.lang)
            {
                Lang::De => "de",
                Lang::En => "en",
            };
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for m in index.find(&n.text, &n.parsed.prose, rules, lang) {
                if m.note == i || linked.contains(&(i, m.note)) || !seen.insert(m.note) {
                    continue;
                }
                // The link takes the ending the matcher allowed ("Webers",
                // "Atlas's"), so the word stays whole; a hyphen ends it.
                let rest = &n.text[m.range.end..];
                let ending: usize = rest
                    .char_indices()
                    .find(|&(_, c)| !(c.is_alphabetic() || c == '\'' || c == '’'))
                    .map_or(rest.len(), |(i, _)| i);
                let range = m.range.start..m.range.end + ending;
                out.push(Unlinked {
                    note: i,
                    target: m.note,
                    text: n.text[range.clone()].to_string(),
                    range,
                });
            }
            out
        })
        .collect()
}

pub(crate) fn check(vault: &Vault<'_>, links: &[LinkRef<'_>]) -> Vec<Finding> {
    let stems = stems(vault);
    unlinked(vault, links)
        .into_iter()
        .map(|u| {
            let title = &vault.notes[u.target].title;
            let link = u.link(vault, &stems);
            let msg = Msg::new(
                format!(
                    "„{}“ erwähnt die Notiz „{title}“ ohne Link; als Link: {link} (`mindnet lint --fix --link-mentions`)",
                    u.text
                ),
                format!(
                    "“{}” mentions the note “{title}” without a link; as a link: {link} (`mindnet lint --fix --link-mentions`)",
                    u.text
                ),
            );
            vault.finding(u.note, u.range.start, RULE, msg)
        })
        .collect()
}
