//! Where a new note goes: its file name from its title, its folder, and
//! the check that keeps every write inside the vault (`save`, the chat's
//! drafts).

use crate::AppError;
use std::path::{Component, Path, PathBuf};
use unicode_normalization::UnicodeNormalization;

const MAX_SLUG_CHARS: usize = 80;

/// A file name from a title: lower case ASCII letters and digits, German
/// umlauts and ß spelled out, other accents dropped, anything else a single
/// `-`. Empty when nothing usable is left.
pub fn slugify(title: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for ch in title.nfc().flat_map(char::to_lowercase) {
        let ascii: String = match ch {
            'ä' => "ae".into(),
            'ö' => "oe".into(),
            'ü' => "ue".into(),
            'ß' => "ss".into(),
            // `é` → `e`; a character with no ASCII part (`日`) becomes a gap.
            _ => std::iter::once(ch).nfd().filter(char::is_ascii).collect(),
        };
        if ascii.is_empty() {
            dash = true;
        }
        for c in ascii.chars() {
            if c.is_ascii_alphanumeric() {
                if dash && !out.is_empty() {
                    out.push('-');
                }
                dash = false;
                out.push(c);
            } else {
                dash = true;
            }
        }
    }
    out.truncate(MAX_SLUG_CHARS);
    out.trim_end_matches('-').to_string()
}

/// A vault-relative folder (the request's `field`), checked: relative, no `..`, no hidden or
/// encoded components.
pub(crate) fn folder_parts(field: &str, folder: &str) -> Result<Vec<String>, AppError> {
    let bad = |why: &str| AppError::unprocessable(format!("`{field}` {folder:?}: {why}"));
    if folder.contains('\\') || folder.contains('\0') {
        return Err(bad("use `/` between folders"));
    }
    if folder.contains('%') {
        return Err(bad("percent-encoded names are not accepted"));
    }
    let p = Path::new(folder);
    let mut parts = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_string_lossy().to_string();
                if s.starts_with('.') {
                    return Err(bad("hidden folders are not notes"));
                }
                parts.push(s);
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(bad("`..` would leave the vault")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(bad("must be relative to the vault"));
            }
        }
    }
    Ok(parts)
}

/// Creates (or finds) the folder inside the vault (`root`, canonical); a
/// symlink that leads out of the vault is refused.
pub(crate) fn inside_vault(root: &Path, parts: &[String]) -> Result<PathBuf, AppError> {
    let mut dir = root.to_path_buf();
    for part in parts {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir)
                    .map_err(|e| AppError::internal(format!("{}: {e}", dir.display())))?;
            }
            Err(e) => return Err(AppError::internal(format!("{}: {e}", dir.display()))),
        }
        let real = dir
            .canonicalize()
            .map_err(|e| AppError::internal(format!("{}: {e}", dir.display())))?;
        if !real.starts_with(root) {
            return Err(AppError::unprocessable(format!(
                "`folder`: {} leads outside the vault",
                parts.join("/")
            )));
        }
        if !real.is_dir() {
            return Err(AppError::unprocessable(format!(
                "`folder`: {} is not a folder",
                parts.join("/")
            )));
        }
        dir = real;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slugify("Warum Qdrant?"), "warum-qdrant");
        assert_eq!(slugify("Über Größe & Maß"), "ueber-groesse-mass");
        assert_eq!(slugify("Café déjà vu"), "cafe-deja-vu");
        assert_eq!(slugify("../../etc/passwd"), "etc-passwd");
        assert_eq!(slugify("???"), "");
        assert_eq!(slugify("日本"), "");
        assert_eq!(slugify("a日本b"), "a-b");
        assert_eq!(slugify("  -x- "), "x");
    }

    #[test]
    fn folders() {
        assert!(folder_parts("folder", "../x").is_err());
        assert!(folder_parts("folder", "/etc").is_err());
        assert!(folder_parts("folder", "%2e%2e/x").is_err());
        assert!(folder_parts("folder", "a/../../x").is_err());
        assert!(folder_parts("folder", ".obsidian").is_err());
        assert_eq!(
            folder_parts("folder", "Projekte/Neu").unwrap(),
            ["Projekte", "Neu"]
        );
        assert!(folder_parts("folder", "").unwrap().is_empty());
    }
}
