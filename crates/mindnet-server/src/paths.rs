//! The paths of the routes outside the operation table, each written once
//! (the table's own are in each operation's `ROUTE`).

/// Whether the process lives: 200 from the first moment.
pub const HEALTH: &str = "/health";
/// Whether every operation answers: 503 until the index is open.
pub const READY: &str = "/ready";
/// The OpenAPI document.
pub const OPENAPI: &str = "/openapi.json";
/// MCP over streamable HTTP.
pub const MCP: &str = "/mcp";
/// The web UI's page, and its static files (`{file}`).
pub const UI: &str = "/";
pub const UI_FILES: &str = "/ui/{file}";
