//! The embedding progress bar on a terminal (nothing when stderr is not one).

use indicatif::{ProgressBar, ProgressStyle};
use mindnet_app::Progress;
use std::io::IsTerminal;

pub struct Bar(Option<ProgressBar>);

impl Progress for Bar {
    fn start(&self, n: usize) {
        if let Some(b) = &self.0 {
            b.set_length(n as u64);
            b.set_position(0);
        }
    }
    fn advance(&self, n: usize) {
        if let Some(b) = &self.0 {
            b.inc(n as u64);
        }
    }
    fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// The import's bar: chunks embedded.
pub fn bar() -> Bar {
    bar_for("embedding", "chunks")
}

/// A bar that shows `what` is done to how many `units`, their rate and the
/// time left.
pub fn bar_for(what: &str, units: &str) -> Bar {
    if !std::io::stderr().is_terminal() {
        return Bar(None);
    }
    let b = ProgressBar::new(0);
    let template = format!("{what} {{bar:30}} {{pos}}/{{len}} {units}  {{per_sec}}  ETA {{eta}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        b.set_style(style);
    }
    Bar(Some(b))
}
