//! What the rewind and fork actions do against the daemon.

use crate::app::App;
use crate::lifecycle::Daemon;
use crate::rewind::{Goal, Restore};
use crate::{Scope, TuiError};

pub(crate) async fn open(_: &Daemon, _: &Scope, _: &mut App, _: Goal) -> Result<(), TuiError> {
    Ok(())
}

pub(crate) async fn rewind(
    _: &Daemon,
    _: &Scope,
    _: &mut App,
    _: u64,
    _: Restore,
    _: bool,
) -> Result<(), TuiError> {
    Ok(())
}

pub(crate) async fn fork(
    _: &Daemon,
    _: &Scope,
    _: &mut App,
    _: u64,
    _: bool,
    _: bool,
) -> Result<(), TuiError> {
    Ok(())
}
