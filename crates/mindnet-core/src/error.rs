use std::path::PathBuf;

/// A configuration file that cannot be used. Always names the file, and the
/// line and field where that is known, so the user can fix it without guessing.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        /// Dotted path of the offending field, e.g. `types.project.chunk_profile`.
        field: String,
        message: String,
    },
}
