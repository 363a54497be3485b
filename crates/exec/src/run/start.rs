//! Starting a headless run's turn: the scope, the session and the images
//! it was asked for, with nobody there to answer an approval.

use std::path::PathBuf;

use seekclaw_agent::{Approvals, Unattended};
use seekclaw_config::normalize_path;
use seekclaw_engine::{
    Engine, EngineError, SessionTarget, TurnControls, TurnHandle, TurnOrigin, TurnOverrides,
    TurnRequest,
};

use seekclaw_protocol::wording::IMPLICIT_WORKSPACE;

/// What `seekclaw run` (or `review`) was asked.
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

/// Starts the run's turn on a new session (or the one named, or the
/// scope's latest with `--continue`) in its scope. A run has nobody to
/// ask: what the approval policy asks about is refused, whatever
/// `controls` say.
pub async fn start_run(
    engine: &Engine,
    opts: &RunOptions,
    mut controls: TurnControls,
) -> Result<TurnHandle, EngineError> {
    let scope = engine.scope_of(
        opts.workspace.as_deref(),
        opts.global,
        &opts.cwd,
        IMPLICIT_WORKSPACE,
    )?;
    let session = match (&opts.session, opts.continue_latest) {
        (Some(id), _) => SessionTarget::Id(id.clone()),
        (None, true) => SessionTarget::Latest,
        (None, false) => SessionTarget::New { id: None },
    };
    let images = opts
        .images
        .iter()
        .map(|p| seekclaw_engine::image_from_path(&normalize_path(p, &opts.cwd)))
        .collect::<Result<Vec<_>, _>>()?;
    controls.approvals = Approvals::unattended(Unattended::Reject(
        "`seekclaw run` cannot ask a person (use `seekclaw serve` or `seekclaw chat` to be asked)"
            .into(),
    ));
    engine
        .start_turn(TurnRequest {
            scope,
            session,
            message: opts.prompt.clone(),
            images,
            reasoning: None,
            overrides: TurnOverrides {
                start_dir: Some(
                    opts.workspace
                        .as_deref()
                        .map(|w| normalize_path(w, &opts.cwd))
                        .unwrap_or_else(|| opts.cwd.clone()),
                ),
                ..opts.overrides.clone()
            },
            controls,
            origin: TurnOrigin::new("run"),
        })
        .await
}
