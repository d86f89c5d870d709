//! Reading one note file. Bad files (too large, binary, unreadable) are
//! skipped with a warning; invalid UTF-8 is repaired and reported.

use crate::scan::SourceFile;
use mindnet_core::Warning;
use sha2::{Digest, Sha256};

/// Files larger than this are skipped unless the user raises the limit: a
/// 20 MB "note" is almost always an export or a log pasted into the vault.
pub const DEFAULT_MAX_NOTE_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct SourceText {
    pub file: SourceFile,
    /// With `\r\n` turned into `\n` and without a byte-order mark.
    pub text: String,
    pub warnings: Vec<Warning>,
}

pub fn read_source(file: &SourceFile, max_bytes: u64) -> Result<SourceText, Warning> {
    let fail = |msg: String| Warning::new(file.rel_path.clone(), 1, msg);
    let len = std::fs::metadata(&file.abs_path)
        .map_err(|e| fail(format!("cannot read: {e}")))?
        .len();
    if len > max_bytes {
        return Err(fail(format!(
            "file is {}, over the limit of {} (raise it with --max-note-size); skipped",
            human_bytes(len),
            human_bytes(max_bytes)
        )));
    }
    let bytes = std::fs::read(&file.abs_path).map_err(|e| fail(format!("cannot read: {e}")))?;
    decode(file, bytes)
}

/// Turns the file's bytes into text; public so benchmarks can skip the disk.
pub fn decode(file: &SourceFile, bytes: Vec<u8>) -> Result<SourceText, Warning> {
    let mut warnings = Vec::new();
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(Warning::new(
            file.rel_path.clone(),
            1,
            "binary file with a .md name (contains NUL bytes); skipped",
        ));
    }
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let bad = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let line = bytes[..bad].iter().filter(|&&b| b == b'\n').count() + 1;
            warnings.push(Warning::new(
                file.rel_path.clone(),
                line,
                format!("invalid UTF-8 at byte {bad}; bad bytes replaced by U+FFFD"),
            ));
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    let text = if text.contains('\r') {
        text.replace("\r\n", "\n")
    } else {
        text
    };
    if text.trim().is_empty() {
        warnings.push(Warning::new(
            file.rel_path.clone(),
            1,
            "empty note; indexed without chunks",
        ));
    }
    Ok(SourceText {
        file: file.clone(),
        text,
        warnings,
    })
}

/// `sha256:<hex>` of the normalised content; a note whose hash is unchanged is skipped on re-import.
pub fn content_hash(text: &str) -> String {
    format!(
        "sha256:{}",
        mindnet_core::ids::hex(&Sha256::digest(text.as_bytes()))
    )
}

fn human_bytes(n: u64) -> String {
    format!("{:.1} MB", n as f64 / 1_000_000.0)
}
