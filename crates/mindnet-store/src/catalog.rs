//! The stored notes' identities in memory: what filters, hit display, link
//! resolution and change detection need, without a scroll over the notes
//! collection per question. Loaded on first use and updated on every write,
//! so a long-running process never reads it twice.

use crate::{NoteState, NoteWrite, StoreError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The catalog in `cell`, built on first use. One thread builds it;
/// concurrent first readers wait for it instead of building it too.
pub(crate) fn built_once<'a>(
    cell: &'a OnceLock<Catalog>,
    building: &Mutex<()>,
    build: impl FnOnce() -> Result<Catalog, StoreError>,
) -> Result<&'a Catalog, StoreError> {
    if let Some(c) = cell.get() {
        return Ok(c);
    }
    let _one = building.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = cell.get() {
        return Ok(c);
    }
    let t = std::time::Instant::now();
    let catalog = build()?;
    let c = cell.get_or_init(|| catalog);
    tracing::debug!(
        "catalog: {} notes loaded in {:.3} s",
        c.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(c)
}

#[derive(Debug, Default, Clone)]
pub struct Catalog {
    notes: HashMap<String, NoteState>,
    names: NameIndex,
}

/// The entity graph's extent: distinct names, (name, note) pairs and heap
/// bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityGraphSize {
    pub names: usize,
    pub postings: usize,
    pub bytes: usize,
}

/// The entity graph: each name and the notes that mention it, as sorted
/// note ids (one shared `Arc` per note), apart by whether a note writes the
/// name alone or only as a word of a longer one (`NoteState::name_parts`).
/// Kept up to date by every write like the rest of the catalog, so a query
/// never builds it.
#[derive(Debug, Default, Clone)]
struct NameIndex {
    notes: HashMap<String, Postings>,
}

#[derive(Debug, Default, Clone)]
struct Postings {
    whole: Vec<Arc<str>>,
    parts: Vec<Arc<str>>,
}

/// The notes that mention a name.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Named<'a> {
    /// The notes that write it alone ("Weber"), sorted by id.
    pub whole: &'a [Arc<str>],
    /// The notes that write it only inside a longer name ("Dr Weber").
    pub parts: &'a [Arc<str>],
}

impl Named<'_> {
    /// How many notes mention it at all.
    pub fn len(&self) -> usize {
        self.whole.len() + self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl NameIndex {
    fn lists(s: &NoteState) -> impl Iterator<Item = (&String, bool)> {
        let whole = s.names.iter().map(|n| (n, true));
        whole.chain(s.name_parts.iter().map(|n| (n, false)))
    }

    fn insert(&mut self, s: &NoteState) {
        let id: Arc<str> = Arc::from(s.note_id.as_str());
        for (name, whole) in Self::lists(s) {
            let p = self.notes.entry(name.clone()).or_default();
            let list = if whole { &mut p.whole } else { &mut p.parts };
            if let Err(at) = list.binary_search(&id) {
                list.insert(at, id.clone());
            }
        }
    }

    fn remove(&mut self, s: &NoteState) {
        for (name, whole) in Self::lists(s) {
            if let Some(p) = self.notes.get_mut(name) {
                let list = if whole { &mut p.whole } else { &mut p.parts };
                if let Ok(at) = list.binary_search_by(|x| (**x).cmp(s.note_id.as_str())) {
                    list.remove(at);
                }
                if p.whole.is_empty() && p.parts.is_empty() {
                    self.notes.remove(name);
                }
            }
        }
    }
}

impl Catalog {
    pub fn from_states(states: impl IntoIterator<Item = NoteState>) -> Self {
        let mut c = Catalog::default();
        for s in states {
            c.names.insert(&s);
            c.notes.insert(s.note_id.clone(), s);
        }
        c
    }

    /// The notes that mention `name`.
    pub fn notes_named(&self, name: &str) -> Named<'_> {
        self.names
            .notes
            .get(name)
            .map_or(Named::default(), |p| Named {
                whole: &p.whole,
                parts: &p.parts,
            })
    }

    /// How many distinct names the notes mention.
    pub fn name_count(&self) -> usize {
        self.names.notes.len()
    }

    /// What the entity graph holds and its heap bytes: the name index and
    /// the names kept on each note (counted by capacity, with the hash
    /// table's slots), so `bench graph` can report its memory as the vault
    /// grows.
    pub fn entity_graph_size(&self) -> EntityGraphSize {
        const STRING: usize = std::mem::size_of::<String>();
        const ENTRY: usize = std::mem::size_of::<Postings>();
        const ID: usize = std::mem::size_of::<Arc<str>>();
        let index = &self.names.notes;
        let mut bytes = index.capacity() * (STRING + ENTRY + 1);
        let mut postings = 0;
        for (name, p) in index {
            postings += p.whole.len() + p.parts.len();
            bytes += name.capacity() + (p.whole.capacity() + p.parts.capacity()) * ID;
        }
        let strings =
            |v: &Vec<String>| v.capacity() * STRING + v.iter().map(String::capacity).sum::<usize>();
        // Each note's id is shared by one `Arc` (two counters and the text).
        bytes += self.notes.len() * 16
            + self.notes.keys().map(String::len).sum::<usize>()
            + self
                .notes
                .values()
                .map(|s| strings(&s.names) + strings(&s.name_parts))
                .sum::<usize>();
        EntityGraphSize {
            names: index.len(),
            postings,
            bytes,
        }
    }

    pub fn get(&self, note_id: &str) -> Option<&NoteState> {
        self.notes.get(note_id)
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// In no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &NoteState> {
        self.notes.values()
    }

    /// Every note, sorted by path (the order of everything deterministic).
    pub fn sorted(&self) -> Vec<NoteState> {
        let mut v: Vec<NoteState> = self.notes.values().cloned().collect();
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    }

    /// The note whose vault path is `path`.
    pub fn by_path(&self, path: &str) -> Option<&NoteState> {
        self.notes.values().find(|n| n.path == path)
    }

    pub(crate) fn apply(&mut self, writes: &[NoteWrite<'_>], deletes: &[String]) {
        for id in deletes {
            if let Some(old) = self.notes.remove(id) {
                self.names.remove(&old);
            }
        }
        for w in writes {
            let s = NoteState::of(w);
            if let Some(old) = self.notes.remove(&s.note_id) {
                self.names.remove(&old);
            }
            self.names.insert(&s);
            self.notes.insert(s.note_id.clone(), s);
        }
    }
}

impl NoteState {
    /// The state a write leaves behind.
    pub fn of(w: &NoteWrite<'_>) -> Self {
        let n = w.note;
        NoteState {
            note_id: n.note_id.clone(),
            path: n.path.clone(),
            title: n.title.clone(),
            aliases: n.aliases.clone(),
            note_type: n.note_type.clone(),
            status: n.status,
            tags: n.tags.clone(),
            retriever_weight: n.retriever_weight,
            hash: n.hash.clone(),
            chunks_digest: w.chunks_digest.to_string(),
            edges_digest: w.edges_digest.to_string(),
            names: n.names.clone(),
            name_parts: n.name_parts.clone(),
        }
    }
}
