//! What a front end without a daemon checks before its turns (headless
//! runs, `serve`, ACP, `mcp serve`): its overrides, and the scope it asked
//! for.

use std::path::Path;

use crate::error::EngineError;

use crate::engine::Engine;
use crate::launcher::TurnOverrides;
use crate::scope::Scope;

impl Engine {
    /// Checks the front end's settings before any turn: a `config.json`
    /// that cannot be read (with nothing read before) fails at once, naming
    /// its line and column, and so does `serve --model` that names no
    /// configured model (listing those there are).
    pub fn check_overrides(&self, overrides: &TurnOverrides) -> Result<(), EngineError> {
        self.config.usable_for_turns()?;
        match overrides.model.as_deref() {
            Some(model) => crate::preflight::pin(&self.config.load(), model).map(|_| ()),
            None => Ok(()),
        }
    }

    /// The scope a front end asked for: the global one, or the project
    /// root of `workspace` (default: `cwd`, unless that is `/`, the home
    /// directory or a parent of it: refused, ending with `instead`, the
    /// front end's own words for what to do).
    pub fn scope_of(
        &self,
        workspace: Option<&Path>,
        global: bool,
        cwd: &Path,
        instead: &str,
    ) -> Result<Scope, EngineError> {
        let scope = Scope::local(&self.home, cwd, workspace, global)?;
        if let (None, Some(root)) = (workspace, &scope.workspace) {
            crate::scope::refuse_implicit(root, instead)?;
        }
        Ok(scope)
    }
}
