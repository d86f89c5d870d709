use serde::{Deserialize, Serialize};
use std::fmt;

/// A problem in the user's vault that did not stop the import.
///
/// `line` is 1-based; problems with a whole file (binary, too large, a symlink
/// loop) point at line 1 so that every warning reads `path:line: message` and
/// editors can jump to it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Warning {
    /// Vault-relative path with `/` separators.
    pub path: String,
    pub line: usize,
    pub message: String,
}

impl Warning {
    pub fn new(path: impl Into<String>, line: usize, message: impl Into<String>) -> Self {
        Warning {
            path: path.into(),
            line: line.max(1),
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.message)
    }
}
