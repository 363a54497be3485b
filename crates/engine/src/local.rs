//! Turns of a process without a daemon (`seekclaw run`, `serve`): the CLI
//! owns the presentation (printing, Ctrl-C); this picks the scope, the
//! session and the images, and starts the turn.

use std::path::{Path, PathBuf};

use crate::error::EngineError;
use seekclaw_agent::{Approvals, Unattended};
use seekclaw_config::normalize_path;

use crate::engine::Engine;
use crate::launcher::{TurnHandle, TurnOrigin, TurnOverrides, TurnRequest};
use crate::scope::Scope;
use crate::target::{SessionTarget, TurnControls};

/// What `seekclaw run` was asked.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The process's working directory (the default workspace).
    pub cwd: PathBuf,
    /// The user's message.
    pub prompt: String,
    /// Project directory; its project root is the scope.
    pub workspace: Option<PathBuf>,
    /// Run in the global scope instead of a workspace.
    pub global: bool,
    /// Continue this session instead of starting a new one.
    pub session: Option<String>,
    /// Continue the scope's latest session.
    pub continue_latest: bool,
    /// Image files sent with the prompt.
    pub images: Vec<PathBuf>,
    /// Model, mode and step limit over the config's.
    pub overrides: TurnOverrides,
}

impl Engine {
    /// Starts the run's turn on a new session (or the one named, or the
    /// scope's latest with `--continue`) in its scope. `run` has nobody to
    /// ask: what the approval policy asks about is refused, whatever
    /// `controls` say.
    pub async fn start_run(
        &self,
        opts: &RunOptions,
        mut controls: TurnControls,
    ) -> Result<TurnHandle, EngineError> {
        let scope = self.scope_of(opts.workspace.as_deref(), opts.global, &opts.cwd)?;
        let session = match (&opts.session, opts.continue_latest) {
            (Some(id), _) => SessionTarget::Id(id.clone()),
            (None, true) => SessionTarget::Latest,
            (None, false) => SessionTarget::New { id: None },
        };
        let images = opts
            .images
            .iter()
            .map(|p| crate::images::from_path(&normalize_path(p, &opts.cwd)))
            .collect::<Result<Vec<_>, _>>()?;
        controls.approvals = Approvals::unattended(Unattended::Reject(
            "`seekclaw run` cannot ask a person (use `seekclaw serve` or `seekclaw chat` to be asked)"
                .into(),
        ));
        self.start_turn(TurnRequest {
            scope,
            session,
            message: opts.prompt.clone(),
            images,
            reasoning: None,
            overrides: opts.overrides.clone(),
            controls,
            origin: TurnOrigin::new("run"),
        })
        .await
    }

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
    /// directory or a parent of it).
    pub fn scope_of(
        &self,
        workspace: Option<&Path>,
        global: bool,
        cwd: &Path,
    ) -> Result<Scope, EngineError> {
        let scope = Scope::local(&self.home, cwd, workspace, global)?;
        if let (None, Some(root)) = (workspace, &scope.workspace) {
            crate::scope::refuse_implicit(
                root,
                "Run seekclaw in a project directory, name one with `--workspace DIR`, or use `--global`.",
            )?;
        }
        Ok(scope)
    }
}
