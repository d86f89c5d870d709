//! Starting and stopping the server: refuse a second owner, bind, open the
//! index in the background (503 until then), warm up, bring the index up
//! to date, watch the vault, and on SIGINT/SIGTERM stop accepting, let the
//! running batch commit, and give the index back.

use crate::guard::{self, Guard};
use crate::owner::{self, OwnerRecord};
use crate::routes::{self, AppState, Opening};
use crate::{paths, watch};
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use mindnet_app::operation::{Method, Operation};
use mindnet_app::ops::chat::ChatOp;
use mindnet_app::ops::sync::SyncRequest;
use mindnet_app::ops::{self, Visit};
use mindnet_app::{AppError, OpenMode, ServeSettings, Settings, Workspace};
use std::any::TypeId;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

pub type ServeError = AppError;

/// How long an MCP call waits for the index to open before it says so.
const MCP_PATIENCE: Duration = Duration::from_secs(60);

/// How long shutdown waits for blocking work (a query, a batch) to end.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The workspace as the MCP server reaches it: waiting while it opens (an
/// MCP client's first call comes the moment it has started us).
fn mcp_source(state: &Arc<AppState>) -> mindnet_mcp::WorkspaceSource {
    let state = state.clone();
    Arc::new(move || state.workspace_within(MCP_PATIENCE))
}

/// The whole HTTP service, and the handle that ends its open MCP streams.
fn router(
    state: Arc<AppState>,
    serve: &ServeSettings,
    source: mindnet_mcp::WorkspaceSource,
) -> (Router, mindnet_mcp::Shutdown) {
    let guard = Arc::new(Guard {
        settings: serve.clone(),
    });
    let mcp = mindnet_mcp::http_endpoint(source, serve.body_limit);
    let shutdown = mcp.shutdown.clone();
    let timeout = serve.timeout;
    let mut table = Mount::default();
    ops::visit(&mut table);
    // Syncs run as long as the vault needs; everything else has a deadline.
    let timed = table
        .timed
        .layer(axum::middleware::from_fn(move |req, next| {
            deadline(timeout, req, next)
        }));
    let app = Router::new()
        .route(paths::UI, get(crate::ui::index))
        .route(paths::UI_FILES, get(crate::ui::asset))
        .route(paths::HEALTH, get(routes::health))
        .route(paths::READY, get(routes::ready))
        .route(paths::OPENAPI, get(crate::openapi::openapi))
        // MCP over streamable HTTP: event streams stay open while a client
        // listens; each tool call runs one workspace operation.
        .nest_service(paths::MCP, mcp.service)
        .merge(timed)
        .merge(table.untimed)
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .with_state(state)
        .layer(DefaultBodyLimit::max(serve.body_limit))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check));
    (app, shutdown)
}

/// The whole HTTP service of `serve` over a workspace that is already open,
/// without a listener, an owner record or a watcher: for a caller that
/// drives it in process (the fuzz target `http` sends it every route).
pub fn router_over(ws: Arc<Workspace>, serve: &ServeSettings) -> Router {
    let state = Arc::new(AppState {
        settings: ws.settings().clone(),
        workspace: RwLock::new(Opening::Ready(ws)),
        data: String::new(),
    });
    let source = mcp_source(&state);
    router(state, serve, source).0
}

/// The routes of the operation table, with the request deadline and without.
#[derive(Default)]
struct Mount {
    timed: Router<Arc<AppState>>,
    untimed: Router<Arc<AppState>>,
}

impl Visit for Mount {
    fn op<O: Operation>(&mut self) {
        let route = O::ROUTE;
        let handler = match route.method {
            // The chat answers as a stream when asked: its own handler.
            _ if TypeId::of::<O>() == TypeId::of::<ChatOp>() => post(routes::chat),
            Method::Get => get(routes::handle::<O>),
            Method::Post => post(routes::handle::<O>),
        };
        let routes = if route.deadline {
            &mut self.timed
        } else {
            &mut self.untimed
        };
        *routes = std::mem::take(routes).route(route.path, handler);
    }
}

async fn deadline(
    limit: Duration,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => routes::ApiError(AppError::new(
            mindnet_app::ErrorCode::Timeout,
            format!(
                "the request took longer than {} s (MINDNET_API_TIMEOUT)",
                limit.as_secs()
            ),
        ))
        .into_response(),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Opens the workspace, marks it ready (catalog and model loaded), then
/// loads the edge graph, syncs and watches; runs on a plain thread so the
/// listener answers `/health` from the first moment.
fn open_in_background(
    settings: Settings,
    watch_vault: bool,
    state: Arc<AppState>,
    stop: Arc<AtomicBool>,
    say: Arc<dyn Fn(&str) + Send + Sync>,
) -> std::thread::JoinHandle<Option<watch::WatchHandle>> {
    std::thread::spawn(move || {
        let t = Instant::now();
        let opened = Workspace::open(settings, OpenMode::CreateIfMissing).and_then(|ws| {
            ws.warm_up()?;
            Ok(ws)
        });
        let ws = match opened {
            Ok(ws) => Arc::new(ws),
            Err(e) => {
                say(&format!("error: {}", e.message));
                *state.workspace.write().unwrap_or_else(|e| e.into_inner()) = Opening::Failed(e);
                return None;
            }
        };
        *state.workspace.write().unwrap_or_else(|e| e.into_inner()) = Opening::Ready(ws.clone());
        say(&format!("ready in {:.2} s", t.elapsed().as_secs_f64()));
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        // The vault may have changed while no server ran.
        let req = SyncRequest {
            paths: Vec::new(),
            sync_deletes: true,
            purge_before_upsert: false,
        };
        match ws.sync(&req, &()) {
            Ok(s) => say(&format!(
                "index up to date: {} notes ({} new, {} changed, {} deleted) in {:.2} s",
                s.notes, s.new, s.changed, s.deleted, s.seconds
            )),
            Err(e) => say(&format!("sync: {}", e.message)),
        }
        if !watch_vault || stop.load(Ordering::SeqCst) {
            return None;
        }
        match watch::start(ws, stop) {
            Ok(h) => {
                say("watching the vault for changes");
                Some(h)
            }
            Err(e) => {
                say(&format!("error: {}", e.message));
                None
            }
        }
    })
}

/// Runs the server until SIGINT or SIGTERM. `say` hears what a user should
/// see (the address first: `listening on http://…`).
pub fn serve(
    settings: Settings,
    serve: ServeSettings,
    say: Arc<dyn Fn(&str) + Send + Sync>,
) -> Result<(), AppError> {
    run(settings, serve, say, |_| shutdown_signal())
}

/// `mindnet mcp`: one MCP session over stdin and stdout, until the client
/// closes them (or a signal). Meanwhile the same server as `serve` listens
/// on `serve.listen` (a free loopback port by default), so the CLI and the
/// web UI reach the index this process holds.
pub fn mcp_stdio(
    settings: Settings,
    serve: ServeSettings,
    say: Arc<dyn Fn(&str) + Send + Sync>,
) -> Result<(), AppError> {
    run(settings, serve, say, |source| async move {
        tokio::select! {
            r = mindnet_mcp::serve_stdio(source) => {
                if let Err(e) = r {
                    tracing::warn!("{}", e.message);
                }
            }
            () = shutdown_signal() => {}
        }
    })
}

/// Runs the server until `until` (given the workspace's source) ends.
fn run<F, Fut>(
    settings: Settings,
    serve: ServeSettings,
    say: Arc<dyn Fn(&str) + Send + Sync>,
    until: F,
) -> Result<(), AppError>
where
    F: FnOnce(mindnet_mcp::WorkspaceSource) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    settings.require_vault()?;
    if let Some(other) = owner::live(&settings.data) {
        return Err(AppError::conflict(format!(
            "the index in {} is already served by mindnet (pid {}) at {}; stop that server first",
            settings.data.display(),
            other.pid,
            other.url()
        )));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("mindnet-http")
        .build()
        .map_err(|e| AppError::internal(format!("cannot start the runtime: {e}")))?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(serve.listen))
        .map_err(|e| AppError::conflict(format!("cannot listen on {}: {e}", serve.listen)))?;
    let address = listener
        .local_addr()
        .map_err(|e| AppError::internal(format!("listener: {e}")))?;
    let serve = ServeSettings {
        listen: address,
        ..serve
    };
    let pid = std::process::id();
    let record = OwnerRecord {
        pid,
        address: address.to_string(),
        started: mindnet_core::time::now(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        token_required: serve.token.is_some(),
    };
    owner::write(&settings.data, &record).map_err(|e| {
        AppError::internal(format!("{}: {e}", owner::path(&settings.data).display()))
    })?;
    say(&format!("listening on http://{address}"));

    // Clients compare this with their own data dir, from any working folder.
    let data_abs = settings
        .data
        .canonicalize()
        .unwrap_or_else(|_| settings.data.clone());
    let state = Arc::new(AppState {
        settings: settings.clone(),
        workspace: RwLock::new(Opening::Pending),
        data: data_abs.display().to_string(),
    });
    let source = mcp_source(&state);
    let (app, mcp_shutdown) = router(state.clone(), &serve, source.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let data = settings.data.clone();
    let opener = open_in_background(
        settings,
        serve.watch,
        state.clone(),
        stop.clone(),
        say.clone(),
    );

    let ended = until(source);
    let served = runtime.block_on(async {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                ended.await;
                // Open MCP event streams would hold the shutdown forever.
                mcp_shutdown.trigger();
            })
            .await
    });
    say("shutting down: finishing the current batch");
    stop.store(true, Ordering::SeqCst);
    if let Opening::Ready(ws) = &*state.workspace.read().unwrap_or_else(|e| e.into_inner()) {
        ws.shut_down();
    }
    if let Ok(Some(watcher)) = opener.join() {
        watcher.join();
    }
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    owner::remove(&data, pid);
    say("stopped");
    served.map_err(|e| AppError::internal(format!("server: {e}")))
}
