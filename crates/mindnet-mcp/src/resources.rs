//! The notes as resources: `mindnet://note/{path}`, the vault path with
//! every byte outside the URI's unreserved characters and `/`
//! percent-encoded (`mindnet://note/projekte/Redis%20Cache.md`). Reading one
//! gives the file's Markdown, frontmatter included.

use mindnet_app::ops::list_notes::{ListNotesOp, ListNotesRequest};
use mindnet_app::ops::read_note::{ReadNoteOp, ReadNoteRequest};
use mindnet_app::{AppError, Service, Workspace};
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};

pub const PREFIX: &str = "mindnet://note/";
const MARKDOWN: &str = "text/markdown";

pub fn template() -> ResourceTemplate {
    ResourceTemplate::new(format!("{PREFIX}{{path}}"), "note")
        .with_title("A note of the vault")
        .with_description(
            "The Markdown of one note, frontmatter included; {path} is its vault path, \
             percent-encoded (as search and read_note report it)",
        )
        .with_mime_type(MARKDOWN)
}

/// The URI of a vault path.
pub fn uri(path: &str) -> String {
    let mut out = String::from(PREFIX);
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The vault path in a URI of ours.
pub fn path_of(uri: &str) -> Result<String, AppError> {
    let rest = uri.strip_prefix(PREFIX).ok_or_else(|| {
        AppError::not_found(format!("{uri}: not a note of mindnet (`{PREFIX}<path>`)"))
    })?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = rest
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| AppError::bad_request(format!("{uri}: a broken `%` escape")))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let path = String::from_utf8(out)
        .map_err(|_| AppError::bad_request(format!("{uri}: the path is not UTF-8")))?;
    if path.is_empty() {
        return Err(AppError::bad_request(format!("{uri}: no path")));
    }
    Ok(path)
}

/// One page of the notes; the cursor is the offset of the next page.
pub fn list(ws: &Workspace, cursor: Option<&str>) -> Result<ListResourcesResult, AppError> {
    let offset = match cursor {
        None => 0,
        Some(c) => c
            .parse()
            .map_err(|_| AppError::bad_request(format!("cursor {c:?} is not one of ours")))?,
    };
    let page = ws.call::<ListNotesOp>(&ListNotesRequest {
        offset,
        limit: None,
    })?;
    let resources = page
        .notes
        .into_iter()
        .map(|n| {
            Resource::new(uri(&n.path), n.path.clone())
                .with_title(n.title)
                .with_description(format!("{} note", n.note_type))
                .with_mime_type(MARKDOWN)
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = page.next_offset.map(|o| o.to_string());
    Ok(result)
}

/// A note's file text. Only indexed notes are resources: the path is looked
/// up in the index, never joined to the vault unchecked.
pub fn read(ws: &Workspace, uri: &str) -> Result<ReadResourceResult, AppError> {
    let path = path_of(uri)?;
    let note = ws.call::<ReadNoteOp>(&ReadNoteRequest {
        note: path,
        section: None,
    })?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(note.text, uri).with_mime_type(MARKDOWN),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip() {
        for p in [
            "a.md",
            "projekte/Redis Cache.md",
            "Über/Ärger #1 (v2)?.md",
            "50%.md",
        ] {
            let u = uri(p);
            assert!(!u[PREFIX.len()..].contains([' ', '#', '?', '(']), "{u}");
            assert_eq!(path_of(&u).unwrap(), p);
        }
        assert_eq!(uri("a b/c.md"), "mindnet://note/a%20b/c.md");
        assert!(path_of("file:///etc/passwd").is_err());
        assert!(path_of("mindnet://note/%zz").is_err());
        assert!(path_of("mindnet://note/%FF").is_err());
    }
}
