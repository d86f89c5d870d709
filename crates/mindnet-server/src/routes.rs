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
use mindnet_app::api::{ChatEvent, ChatRequest, HealthResponse};
use mindnet_app::changes::{Door, through};
use mindnet_app::operation::{Method, Operation};
use mindnet_app::service::on_files;
use mindnet_app::{AppError, ErrorBody, ErrorCode, Settings, Workspace};
use serde::de::DeserializeOwned;
use std::sync::{Arc, RwLock};

/// What the handlers share: the settings, and the workspace once it is open.
pub struct AppState {
    /// What operations that need only the files run on, while the index
    /// opens too.
    pub settings: Settings,
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

/// How long a client waits before it asks again after a 503: the index
/// opens, or a cluster elects a leader, within seconds.
const RETRY_AFTER_SECONDS: &str = "2";

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            tracing::warn!("{}", self.0.message);
        }
        let mut response = (status, Json(ErrorBody { error: self.0 })).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static(RETRY_AFTER_SECONDS),
            );
        }
        response
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

/// Runs work on a blocking thread (the store and the models are
/// synchronous).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AppError> + Send + 'static,
) -> Answer<T> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => Ok(Json(result?)),
        Err(e) => Err(ApiError(AppError::internal(format!(
            "the operation failed: {e}"
        )))),
    }
}

/// Runs an operation of the workspace on a blocking thread.
async fn run<T: Send + 'static>(
    state: &AppState,
    op: impl FnOnce(&Workspace) -> Result<T, AppError> + Send + 'static,
) -> Answer<T> {
    let ws = state.workspace()?;
    blocking(move || op(&ws)).await
}

type Shared = State<Arc<AppState>>;

/// `GET /health`: the process lives (and whether its index is open).
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

/// `GET /ready`: whether the server takes work (`openapi.rs` says more).
pub async fn ready(State(s): Shared) -> Answer<HealthResponse> {
    s.workspace()?;
    Ok(health(State(s)).await)
}

/// The request of operation `O`, from wherever its route carries it: the
/// path (a route with `{field}`), the query (`GET`) or a JSON body (`POST`).
pub struct Input<O: Operation>(pub O::Request);

impl<S: Send + Sync, O: Operation> FromRequest<S> for Input<O> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let method = O::ROUTE.method;
        if O::ROUTE.in_path() {
            let (mut parts, _) = req.into_parts();
            return match Path::<O::Request>::from_request_parts(&mut parts, state).await {
                Ok(Path(v)) => Ok(Input(v)),
                Err(r) => Err(ApiError(AppError::bad_request(r.body_text()))),
            };
        }
        match method {
            Method::Get => {
                let (mut parts, _) = req.into_parts();
                let ApiQuery(v) = ApiQuery::from_request_parts(&mut parts, state).await?;
                Ok(Input(v))
            }
            Method::Post => {
                let ApiJson(v) = ApiJson::from_request(req, state).await?;
                Ok(Input(v))
            }
        }
    }
}

/// Every operation of the table: its request taken from the request, the
/// operation run (on the files when it needs no index, so it answers while
/// the index opens), its response as JSON.
pub async fn handle<O: Operation>(State(s): Shared, Input(req): Input<O>) -> Answer<O::Response> {
    let state = s.clone();
    blocking(move || {
        through(Door::Http, || match on_files::<O>(&state.settings, &req) {
            Some(result) => result,
            None => O::run(&*state.workspace()?, &req),
        })
    })
    .await
}

/// The chat's route (`ChatOp`): a whole JSON answer, or with `Accept:
/// text/event-stream` server-sent events `meta`, `token`…, `done` (or
/// `error`). A client that goes away closes the stream, which cancels a
/// running LLM request.
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
