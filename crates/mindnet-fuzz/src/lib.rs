//! The fuzz targets. Each takes arbitrary bytes, feeds them to one parser or
//! input boundary, and panics only where mindnet is wrong: on a panic inside
//! mindnet, or on a broken invariant (a plan that depends on the order of
//! the files, a chunk of another note). An input mindnet refuses with an
//! error is a pass.
//!
//! Two drivers share them: the afl binaries in `fuzz/` (coverage-guided,
//! `cargo afl`), and `tests/corpus.rs`, which replays the seed corpus, every
//! minimised crash and the malformed-input corpus on each test run.

#[cfg(feature = "full")]
mod api;
#[cfg(feature = "full")]
mod config;
#[cfg(feature = "full")]
mod http;
#[cfg(feature = "full")]
mod mcp;
mod note;

/// A fuzz target: what part of mindnet the bytes go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Up to four notes (split at ASCII record separators, 0x1E), read,
    /// parsed, chunked and derived, in both orders.
    Note,
    /// A frontmatter block alone.
    Frontmatter,
    /// The inside of a `[[…]]`, and the Markdown parser with its
    /// `[!edge]` callouts.
    Links,
    /// Each YAML config loader.
    #[cfg(feature = "full")]
    Config,
    /// The draft-healing parser of the chat.
    #[cfg(feature = "full")]
    Draft,
    /// An HTTP request (route, headers, body) through the server's router,
    /// on an index of the example vault.
    #[cfg(feature = "full")]
    Http,
    /// JSON-RPC messages to the MCP server, after its handshake, on the
    /// same index.
    #[cfg(feature = "full")]
    Mcp,
}

impl Target {
    pub const ALL: &[Target] = &[
        Target::Note,
        Target::Frontmatter,
        Target::Links,
        #[cfg(feature = "full")]
        Target::Config,
        #[cfg(feature = "full")]
        Target::Draft,
        #[cfg(feature = "full")]
        Target::Http,
        #[cfg(feature = "full")]
        Target::Mcp,
    ];

    /// The name of the afl binary and of the corpus folder.
    pub fn name(self) -> &'static str {
        match self {
            Target::Note => "note",
            Target::Frontmatter => "frontmatter",
            Target::Links => "links",
            #[cfg(feature = "full")]
            Target::Config => "config",
            #[cfg(feature = "full")]
            Target::Draft => "draft",
            #[cfg(feature = "full")]
            Target::Http => "http",
            #[cfg(feature = "full")]
            Target::Mcp => "mcp",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.iter().copied().find(|t| t.name() == name)
    }

    pub fn run(self, data: &[u8]) {
        match self {
            Target::Note => note::notes(data),
            Target::Frontmatter => note::frontmatter(data),
            Target::Links => note::links(data),
            #[cfg(feature = "full")]
            Target::Config => config::loaders(data),
            #[cfg(feature = "full")]
            Target::Draft => note::draft(data),
            #[cfg(feature = "full")]
            Target::Http => http::http(data),
            #[cfg(feature = "full")]
            Target::Mcp => mcp::mcp(data),
        }
    }
}

/// Does the one-time setup of the targets (the index the HTTP and MCP
/// targets query) before the first input, so it is not timed as one.
pub fn warm_up() {
    #[cfg(feature = "full")]
    api::warm_up();
}

/// The bytes as text the way mindnet reads a file: invalid UTF-8 replaced.
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}
