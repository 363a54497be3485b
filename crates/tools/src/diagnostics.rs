//! Diagnostics after an edit: a front end (the engine's language servers)
//! tells an edit tool which errors the edit introduced, within a bound.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

use crate::tool::{ToolContext, ToolOutput};

/// The future [`Diagnostics::after_edit`] returns.
pub type DiagnosticsFuture<'a> = Pin<Box<dyn Future<Output = Option<String>> + Send + 'a>>;

/// Reports the errors an edit introduced.
pub trait Diagnostics: Send + Sync {
    /// After `abs` changed from `before` to `after` (already written): the
    /// errors present after and not before, as text for the model; `None` when
    /// no server covers the file, none were introduced, or the bound passed.
    /// Never takes longer than its own bound.
    fn after_edit<'a>(
        &'a self,
        abs: &'a Path,
        before: &'a str,
        after: &'a str,
    ) -> DiagnosticsFuture<'a>;

    /// `abs` was read, so an edit of it may follow: start (in the background,
    /// never waiting) what the edit's diagnostics will need, so that a cold
    /// server's start is not paid inside the edit's bound.
    fn warm(&self, _abs: &Path) {}
}

/// Appends what `ctx.diagnostics` reports for the edit of `abs` to `output`.
pub(crate) async fn append(
    ctx: &ToolContext,
    abs: &Path,
    before: &str,
    after: &str,
    output: &mut ToolOutput,
) {
    let Some(diagnostics) = &ctx.diagnostics else {
        return;
    };
    if let Some(text) = diagnostics.after_edit(abs, before, after).await {
        output.content.push_str("\n\n");
        output.content.push_str(&text);
    }
}
