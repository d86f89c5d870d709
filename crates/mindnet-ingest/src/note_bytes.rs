//! A note's file both ways: its bytes, the text the parser reads from them
//! (no byte-order mark, `\n` line ends), and back. A change made to the
//! text goes back to disk in the file's own encoding, so a note written on
//! Windows keeps its CRLF and its BOM, and every byte nobody changed stays.

use sha2::{Digest, Sha256};

/// How a file's bytes map to the text the parser saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoding {
    pub bom: bool,
    pub crlf: bool,
}

impl Encoding {
    /// The encoding of `raw` if `text` (what the parser read from it) goes
    /// back to exactly `raw`; `None` for invalid UTF-8 or mixed line ends,
    /// which no rewrite could keep.
    pub fn of(raw: &[u8], text: &str) -> Option<Encoding> {
        let bom = raw.starts_with(b"\xEF\xBB\xBF");
        let body = std::str::from_utf8(if bom { &raw[3..] } else { raw }).ok()?;
        let enc = Encoding {
            bom,
            crlf: body.contains("\r\n"),
        };
        (enc.encode(text) == raw).then_some(enc)
    }

    pub fn encode(&self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + 3);
        if self.bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        if self.crlf {
            out.extend_from_slice(text.replace('\n', "\r\n").as_bytes());
        } else {
            out.extend_from_slice(text.as_bytes());
        }
        out
    }
}

/// A note file that can be changed and written back byte for byte.
#[derive(Debug, Clone)]
pub struct NoteBytes {
    /// The file as read.
    pub bytes: Vec<u8>,
    /// As the parser reads it.
    pub text: String,
    pub encoding: Encoding,
}

/// Why a file cannot be changed through its text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotEditable {
    #[error("not valid UTF-8 (line {line}); a rewrite would lose bytes")]
    InvalidUtf8 { line: usize },
    #[error("mixed line endings (LF and CRLF); a rewrite would change lines nobody edited")]
    MixedLineEnds,
}

impl NoteBytes {
    pub fn new(bytes: Vec<u8>) -> Result<NoteBytes, NotEditable> {
        let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let body = std::str::from_utf8(&bytes[start..]).map_err(|e| {
            let bad = start + e.valid_up_to();
            NotEditable::InvalidUtf8 {
                line: bytes[..bad].iter().filter(|&&b| b == b'\n').count() + 1,
            }
        })?;
        let text = body.replace("\r\n", "\n");
        let encoding = Encoding::of(&bytes, &text).ok_or(NotEditable::MixedLineEnds)?;
        Ok(NoteBytes {
            bytes,
            text,
            encoding,
        })
    }

    /// `text` in this file's encoding.
    pub fn encode(&self, text: &str) -> Vec<u8> {
        self.encoding.encode(text)
    }

    pub fn version(&self) -> String {
        version_of(&self.bytes)
    }
}

/// The version of a file: its bytes' SHA-256, shortened to 16 hex digits
/// (a client compares it, nobody types it; 64 bits do not collide by
/// chance between two states of one note).
pub fn version_of(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    mindnet_core::ids::hex(&digest[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_bom_survive_a_change() {
        let raw = b"\xEF\xBB\xBF---\r\ntitle: A\r\n---\r\nText\r\n".to_vec();
        let n = NoteBytes::new(raw.clone()).unwrap();
        assert_eq!(n.text, "---\ntitle: A\n---\nText\n");
        assert_eq!(n.encode(&n.text), raw);
        assert_eq!(n.encode("x\ny\n"), b"\xEF\xBB\xBFx\r\ny\r\n".to_vec());
    }

    #[test]
    fn what_cannot_be_kept_is_refused() {
        assert_eq!(
            NoteBytes::new(b"a\r\nb\nc".to_vec()).unwrap_err(),
            NotEditable::MixedLineEnds
        );
        assert_eq!(
            NoteBytes::new(b"a\nb\xff".to_vec()).unwrap_err(),
            NotEditable::InvalidUtf8 { line: 2 }
        );
    }

    #[test]
    fn versions_differ_by_one_byte() {
        assert_eq!(version_of(b"a").len(), 16);
        assert_ne!(version_of(b"a"), version_of(b"b"));
        assert_eq!(version_of(b"a"), version_of(b"a"));
    }
}
