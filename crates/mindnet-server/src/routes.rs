//! The endpoints. Each parses its input, runs one workspace operation on a
//! blocking thread (the store and the models are synchronous), and answers
//! JSON; every error is `{"error": {"code", "message"}}` with the code's
//! HTTP status.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response, sse};
use mindnet_app::api::*;
use mindnet_app::{AppError, ErrorBody, ErrorCode, Workspace};
use serde::de::DeserializeOwned;
use std::sync::{Arc, RwLock};
use utoipa::OpenApi;

/// What the handlers share: the workspace once it is open.
pub struct AppState {
    pub workspace: RwLock<Opening>,
    pub data: String,
}

/// The index while the server starts: opening, open, or failed.
pub enum Opening {
    Pending,
    Ready(Arc<Workspace>),
    Failed(AppError),
}

impl AppState {
    /// The workspace, waiting up to `patience` while it opens: an MCP
    /// client's first call comes the moment it has started us. Blocks.
    pub(crate) fn workspace_within(
        &self,
        patience: std::time::Duration,
    ) -> Result<Arc<Workspace>, AppError> {
        let start = std::time::Instant::now();
        loop {
            let pending = matches!(
                *self.workspace.read().unwrap_or_else(|e| e.into_inner()),
                Opening::Pending
            );
            if !pending || start.elapsed() >= patience {
                return self.workspace();
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
    }

    pub(crate) fn workspace(&self) -> Result<Arc<Workspace>, AppError> {
        match &*self.workspace.read().unwrap_or_else(|e| e.into_inner()) {
            Opening::Ready(ws) => Ok(ws.clone()),
            Opening::Pending => Err(AppError::unavailable(
                "the index is still opening; try again in a moment",
            )),
            Opening::Failed(e) => Err(AppError::unavailable(format!(
                "the index could not be opened: {}",
                e.message
            ))),
        }
    }
}

pub struct ApiError(pub AppError);

impl From<AppError> for ApiError {
    fn from(e: AppError) -> Self {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            tracing::warn!("{}", self.0.message);
        }
        (status, Json(ErrorBody { error: self.0 })).into_response()
    }
}

type Answer<T> = Result<Json<T>, ApiError>;

/// A JSON body whose every rejection is one of our errors: malformed JSON
/// 400, a body of the wrong shape 422, too large 413.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(v)) => Ok(ApiJson(v)),
            Err(rejection) => Err(ApiError(json_error(rejection))),
        }
    }
}

fn json_error(r: JsonRejection) -> AppError {
    let code = match &r {
        JsonRejection::JsonDataError(_) => ErrorCode::Unprocessable,
        JsonRejection::BytesRejection(_) if r.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ErrorCode::PayloadTooLarge
        }
        _ => ErrorCode::from_http_status(r.status().as_u16()),
    };
    let message = match code {
        ErrorCode::PayloadTooLarge => {
            "the request body is larger than the server's limit (--body-limit)".to_string()
        }
        _ => r.body_text(),
    };
    AppError::new(code, message)
}

/// Query parameters with our error on rejection (400).
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(r) => Err(ApiError(AppError::bad_request(r.body_text()))),
        }
    }
}

/// Runs an operation of the workspace on a blocking thread.
async fn run<T: Send + 'static>(
    state: &AppState,
    op: impl FnOnce(&Workspace) -> Result<T, AppError> + Send + 'static,
) -> Answer<T> {
    let ws = state.workspace()?;
    match tokio::task::spawn_blocking(move || op(&ws)).await {
        Ok(result) => Ok(Json(result?)),
        Err(e) => Err(ApiError(AppError::internal(format!(
            "the operation failed: {e}"
        )))),
    }
}

type Shared = State<Arc<AppState>>;

#[utoipa::path(get, path = "/health", responses((status = 200, body = HealthResponse)))]
pub async fn health(State(s): Shared) -> Json<HealthResponse> {
    let status = match &*s.workspace.read().unwrap_or_else(|e| e.into_inner()) {
        Opening::Ready(_) => "ok",
        Opening::Pending => "opening",
        Opening::Failed(_) => "failed",
    };
    Json(HealthResponse {
        status: status.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        data: s.data.clone(),
    })
}

#[utoipa::path(get, path = "/status", responses(
    (status = 200, body = StatusResponse), (status = 503, body = ErrorBody)))]
pub async fn status(State(s): Shared) -> Answer<StatusResponse> {
    run(&s, |ws| ws.status()).await
}

#[utoipa::path(post, path = "/query", request_body = QueryRequest, responses(
    (status = 200, body = QueryResponse), (status = 400, body = ErrorBody),
    (status = 422, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn query(State(s): Shared, ApiJson(req): ApiJson<QueryRequest>) -> Answer<QueryResponse> {
    run(&s, move |ws| ws.query(&req)).await
}

#[utoipa::path(post, path = "/ask", request_body = AskRequest, responses(
    (status = 200, body = QueryResponse), (status = 400, body = ErrorBody),
    (status = 503, body = ErrorBody)))]
pub async fn ask(State(s): Shared, ApiJson(req): ApiJson<AskRequest>) -> Answer<QueryResponse> {
    run(&s, move |ws| ws.ask(&req)).await
}

#[utoipa::path(post, path = "/feedback", request_body = FeedbackRequest, responses(
    (status = 200, body = FeedbackResponse), (status = 404, body = ErrorBody),
    (status = 422, body = ErrorBody)))]
pub async fn feedback(
    State(s): Shared,
    ApiJson(req): ApiJson<FeedbackRequest>,
) -> Answer<FeedbackResponse> {
    run(&s, move |ws| ws.feedback(&req)).await
}

#[utoipa::path(get, path = "/notes/{id}", params(("id" = String, Path,
    description = "note id, vault path or title")), responses(
    (status = 200, body = NoteResponse), (status = 404, body = ErrorBody)))]
pub async fn note(State(s): Shared, Path(id): Path<String>) -> Answer<NoteResponse> {
    run(&s, move |ws| ws.note(&id)).await
}

#[utoipa::path(get, path = "/graph/neighbors", params(NeighborsRequest), responses(
    (status = 200, body = GraphResponse), (status = 400, body = ErrorBody),
    (status = 404, body = ErrorBody)))]
pub async fn neighbors(
    State(s): Shared,
    ApiQuery(req): ApiQuery<NeighborsRequest>,
) -> Answer<GraphResponse> {
    run(&s, move |ws| ws.neighbors(&req)).await
}

#[utoipa::path(post, path = "/chain", request_body = ChainRequest, responses(
    (status = 200, body = ChainResponse), (status = 404, body = ErrorBody)))]
pub async fn chain(State(s): Shared, ApiJson(req): ApiJson<ChainRequest>) -> Answer<ChainResponse> {
    run(&s, move |ws| {
        if req.files {
            mindnet_app::chain_from_files(ws.settings(), &req)
        } else {
            ws.chain(&req)
        }
    })
    .await
}

#[utoipa::path(post, path = "/ingest/analyze", request_body = AnalyzeRequest, responses(
    (status = 200, body = AnalyzeResponse), (status = 400, body = ErrorBody)))]
pub async fn analyze(
    State(s): Shared,
    ApiJson(req): ApiJson<AnalyzeRequest>,
) -> Answer<AnalyzeResponse> {
    run(&s, move |ws| ws.analyze(&req)).await
}

#[utoipa::path(post, path = "/ingest/save", request_body = SaveRequest, responses(
    (status = 200, body = SaveResponse), (status = 409, body = ErrorBody),
    (status = 422, body = ErrorBody)))]
pub async fn save(State(s): Shared, ApiJson(req): ApiJson<SaveRequest>) -> Answer<SaveResponse> {
    run(&s, move |ws| ws.save(&req)).await
}

#[utoipa::path(post, path = "/sync", request_body = SyncRequest, responses(
    (status = 200, body = SyncSummary), (status = 503, body = ErrorBody)))]
pub async fn sync(State(s): Shared, ApiJson(req): ApiJson<SyncRequest>) -> Answer<SyncSummary> {
    run(&s, move |ws| ws.sync(&req, &())).await
}

#[utoipa::path(post, path = "/lint", request_body = LintRequest, responses(
    (status = 200, body = LintResponse), (status = 400, body = ErrorBody)))]
pub async fn lint(State(s): Shared, ApiJson(req): ApiJson<LintRequest>) -> Answer<LintResponse> {
    run(&s, move |ws| mindnet_app::lint(ws.settings(), &req)).await
}

#[utoipa::path(get, path = "/history", params(HistoryRequest), responses(
    (status = 200, body = HistoryResponse), (status = 400, body = ErrorBody)))]
pub async fn history(
    State(s): Shared,
    ApiQuery(req): ApiQuery<HistoryRequest>,
) -> Answer<HistoryResponse> {
    run(&s, move |ws| ws.history(&req)).await
}

#[utoipa::path(get, path = "/config", responses((status = 200, body = ConfigResponse)))]
pub async fn config(State(s): Shared) -> Answer<ConfigResponse> {
    run(&s, |ws| Ok(ws.config_info())).await
}

/// `POST /chat`: a whole JSON answer, or with `Accept: text/event-stream`
/// server-sent events `meta`, `token`…, `done` (or `error`). A client that
/// goes away closes the stream, which cancels a running LLM request.
#[utoipa::path(post, path = "/chat", request_body = ChatRequest, responses(
    (status = 200, body = ChatResponse, description = "JSON, or an event stream of ChatEvent"),
    (status = 400, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub async fn chat(
    State(s): Shared,
    headers: axum::http::HeaderMap,
    ApiJson(req): ApiJson<ChatRequest>,
) -> Response {
    let stream = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if !stream {
        return run(&s, move |ws| ws.chat(&req, &mut |_| true))
            .await
            .into_response();
    }
    let ws = match s
        .workspace()
        .and_then(|ws| ws.check_chat(&req).map(|()| ws))
    {
        Ok(ws) => ws,
        Err(e) => return ApiError(e).into_response(),
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<sse::Event>(64);
    tokio::task::spawn_blocking(move || {
        let mut sink = |e: ChatEvent| tx.blocking_send(event(&e)).is_ok();
        if let Err(e) = ws.chat(&req, &mut sink) {
            let body = ErrorBody { error: e };
            let ev = sse::Event::default()
                .event("error")
                .json_data(&body)
                .unwrap_or_default();
            let _ = tx.blocking_send(ev);
        }
    });
    let events = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|e| (Ok::<_, std::convert::Infallible>(e), rx))
    });
    sse::Sse::new(events)
        .keep_alive(sse::KeepAlive::default())
        .into_response()
}

/// One chat event as SSE: its name, and its fields as JSON.
fn event(e: &ChatEvent) -> sse::Event {
    let name = match e {
        ChatEvent::Meta(_) => "meta",
        ChatEvent::Token { .. } => "token",
        ChatEvent::Done { .. } => "done",
    };
    let data = match e {
        ChatEvent::Done { response } => serde_json::to_value(response),
        other => serde_json::to_value(other),
    }
    .unwrap_or_default();
    sse::Event::default()
        .event(name)
        .json_data(data)
        .unwrap_or_default()
}

/// `POST /lint/fix`: the fixes the linter can make safely, as diffs; with
/// `write: true` they are written (atomically, only into the vault, only to
/// files unchanged since they were read).
#[utoipa::path(post, path = "/lint/fix", request_body = FixRequest, responses(
    (status = 200, body = FixResponse), (status = 400, body = ErrorBody)))]
pub async fn lint_fix(State(s): Shared, ApiJson(req): ApiJson<FixRequest>) -> Answer<FixResponse> {
    run(&s, move |ws| mindnet_app::fix(ws.settings(), &req)).await
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "mindnet",
        description = "A typed knowledge graph of an Obsidian vault: hybrid retrieval with explanations, causal chains, drafts."
    ),
    paths(
        health, status, query, ask, feedback, note, neighbors, chain, analyze, save, sync, lint,
        chat, history, config, lint_fix
    ),
    components(schemas(ErrorBody, AppError, ErrorCode))
)]
struct ApiDoc;

/// The OpenAPI document of the API, generated from the types.
pub fn openapi_json() -> String {
    ApiDoc::openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

pub async fn openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        openapi_json(),
    )
        .into_response()
}

pub async fn not_found() -> ApiError {
    ApiError(AppError::not_found(
        "no such endpoint; see GET /openapi.json",
    ))
}

pub async fn method_not_allowed() -> ApiError {
    ApiError(AppError::bad_request(
        "method not allowed for this endpoint",
    ))
}
