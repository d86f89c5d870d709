//! One error type for every operation, with a stable code a client can act
//! on. Transports map the code to their own form (an HTTP status, an exit
//! code, an MCP error) and show the message as it is: it names the file,
//! line or field that is wrong.

use serde::{Deserialize, Serialize};

/// Stable error codes. The HTTP status of each is fixed (`http_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request is malformed or names something invalid.
    BadRequest,
    /// A token is required and was missing or wrong.
    Unauthorized,
    /// Refused on principle: a foreign Host, a foreign origin.
    Forbidden,
    NotFound,
    /// The request conflicts with the state: a file exists, the index is
    /// owned by a server, a model differs.
    Conflict,
    PayloadTooLarge,
    /// Well-formed, but its content cannot be used (e.g. a title that
    /// slugifies to nothing, a path outside the vault).
    Unprocessable,
    /// The index is still opening or syncing for the first time.
    Unavailable,
    Timeout,
    Internal,
}

impl ErrorCode {
    /// The code as it is serialised (`not_found`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Conflict => "conflict",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::Unprocessable => "unprocessable",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Internal => "internal",
        }
    }

    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Conflict => 409,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::Unprocessable => 422,
            ErrorCode::Unavailable => 503,
            ErrorCode::Timeout => 504,
            ErrorCode::Internal => 500,
        }
    }

    pub fn from_http_status(status: u16) -> ErrorCode {
        match status {
            400 => ErrorCode::BadRequest,
            401 => ErrorCode::Unauthorized,
            403 => ErrorCode::Forbidden,
            404 => ErrorCode::NotFound,
            409 => ErrorCode::Conflict,
            413 => ErrorCode::PayloadTooLarge,
            422 => ErrorCode::Unprocessable,
            503 => ErrorCode::Unavailable,
            504 | 408 => ErrorCode::Timeout,
            _ => ErrorCode::Internal,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error, utoipa::ToSchema)]
#[error("{message}")]
pub struct AppError {
    pub code: ErrorCode,
    pub message: String,
    /// With a conflict over a note: the version its file has now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The JSON body of every error response: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: AppError,
}

impl AppError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError {
            code,
            message: message.into(),
            version: None,
        }
    }
    pub fn with_version(mut self, version: String) -> Self {
        self.version = Some(version);
        self
    }
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Conflict, message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Forbidden, message)
    }
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unprocessable, message)
    }
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unavailable, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
}

impl From<mindnet_core::ConfigError> for AppError {
    fn from(e: mindnet_core::ConfigError) -> Self {
        AppError::bad_request(e.to_string())
    }
}

impl From<mindnet_store::StoreError> for AppError {
    fn from(e: mindnet_store::StoreError) -> Self {
        use mindnet_store::StoreError as S;
        let code = match &e {
            S::Busy { .. }
            | S::ServerBusy { .. }
            | S::ModelMismatch { .. }
            | S::ServerModelMismatch { .. }
            | S::Format { .. } => ErrorCode::Conflict,
            S::Dimension { .. } => ErrorCode::Unprocessable,
            // Nothing was written; it works again once space is freed.
            S::Unreachable { .. } | S::Degraded { .. } | S::DiskFull { .. } => {
                ErrorCode::Unavailable
            }
            S::Io { .. }
            | S::Qdrant(_)
            | S::Payload { .. }
            | S::Journal { .. }
            | S::Server { .. } => ErrorCode::Internal,
        };
        AppError::new(code, e.to_string())
    }
}

impl From<mindnet_retrieve::RetrieveError> for AppError {
    fn from(e: mindnet_retrieve::RetrieveError) -> Self {
        use mindnet_retrieve::RetrieveError as R;
        match e {
            R::Store(s) => s.into(),
            R::EmptyIndex => AppError::unavailable(e.to_string()),
            R::Embed(_) => AppError::internal(e.to_string()),
        }
    }
}

impl From<mindnet_embed::EmbedError> for AppError {
    fn from(e: mindnet_embed::EmbedError) -> Self {
        use mindnet_embed::EmbedError as E;
        let code = match &e {
            E::UnknownEmbedder(_) => ErrorCode::BadRequest,
            _ => ErrorCode::Internal,
        };
        AppError::new(code, e.to_string())
    }
}

impl From<mindnet_index::SyncError> for AppError {
    fn from(e: mindnet_index::SyncError) -> Self {
        use mindnet_index::SyncError as S;
        match e {
            S::Store(s) => s.into(),
            S::Stopped { .. } => AppError::unavailable(e.to_string()),
            other => AppError::internal(other.to_string()),
        }
    }
}

impl From<mindnet_ingest::IngestError> for AppError {
    fn from(e: mindnet_ingest::IngestError) -> Self {
        AppError::bad_request(e.to_string())
    }
}

impl From<mindnet_lint::LintError> for AppError {
    fn from(e: mindnet_lint::LintError) -> Self {
        match e {
            mindnet_lint::LintError::NotFound(_) => AppError::not_found(e.to_string()),
            mindnet_lint::LintError::Ingest(e) => e.into(),
        }
    }
}

impl From<mindnet_retrieve::log::LogError> for AppError {
    fn from(e: mindnet_retrieve::log::LogError) -> Self {
        use mindnet_retrieve::log::LogError as L;
        let code = match &e {
            L::Io { .. } => ErrorCode::Internal,
            L::UnknownQuery(_) | L::UnknownNode { .. } => ErrorCode::NotFound,
            L::Score(_) => ErrorCode::Unprocessable,
        };
        AppError::new(code, e.to_string())
    }
}
