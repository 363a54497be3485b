//! Blocking work that stands between a turn's last token and its `done`.

use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::task::JoinError;

/// Runs `f` at once on this thread, handing the thread's other tasks to
/// another worker (`block_in_place`), instead of queueing it for a
/// blocking-pool thread that has to wake up first: on a busy machine that
/// wake-up alone can take longer than the work. Runtimes that cannot hand
/// off (current-thread ones) use the blocking pool.
pub(crate) async fn run_now<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, JoinError> {
    if Handle::current().runtime_flavor() == RuntimeFlavor::MultiThread {
        return Ok(tokio::task::block_in_place(f));
    }
    tokio::task::spawn_blocking(f).await
}
