//! `seekclaw acp`: the engine as an Agent Client Protocol agent on
//! stdin/stdout (the protocol lives in `seekclaw_acp`). When a daemon runs,
//! the connection is handed to it (`connection.upgrade`) and this process
//! only relays bytes: the editor's sessions then run in the daemon, where
//! the desktop and the terminal UI watch them live and its MCP connections
//! and locks are shared. Without one it serves in this process over the
//! shared store. Logs go to stderr; stdout carries only JSON-RPC.

use std::process::ExitCode;

use clap::Args;

/// `seekclaw acp`'s arguments (an editor starts it with none).
#[derive(Args, Debug)]
pub struct AcpArgs {
    /// Serve in this process even when a daemon runs.
    #[arg(long)]
    no_daemon: bool,
}

/// Serves until stdin ends (exit 0); 1 when the engine cannot start or the
/// daemon went away mid-session.
pub fn acp(args: AcpArgs) -> ExitCode {
    #[cfg(unix)]
    if !args.no_daemon {
        match relay::through_daemon() {
            Ok(Some(code)) => return code,
            Ok(None) => {}
            Err(e) => {
                eprintln!("seekclaw: {e:#}");
                return ExitCode::from(1);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = args;
    in_process()
}

/// The factory the daemon serves upgraded `acp` connections with.
pub fn daemon_server(
    engine: seekclaw_engine::Engine,
    input: seekclaw_daemon::UpgradeInput,
    output: seekclaw_daemon::UpgradeOutput,
    stop: tokio_util::sync::CancellationToken,
) -> seekclaw_daemon::UpgradeFuture {
    Box::pin(async move {
        if let Err(e) = seekclaw_acp::serve(&engine, input, output, stop).await {
            tracing::warn!(error = %e.0, "acp connection ended with an error");
        }
    })
}

fn in_process() -> ExitCode {
    // Said before the editor's first message is read, not at its first prompt.
    if let Err(e) = seekclaw_config::Home::from_env()
        .map_err(anyhow::Error::from)
        .and_then(|home| crate::config_check::require_readable(&home))
    {
        return crate::report(Err(e));
    }
    crate::serve::run_stdio(|engine, stop| async move {
        engine.start_telemetry("acp");
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        seekclaw_acp::serve(&engine, stdin, tokio::io::stdout(), stop)
            .await
            .map_err(|e| anyhow::anyhow!(e.0))
    })
}

#[cfg(unix)]
mod relay {
    use std::process::ExitCode;

    use seekclaw_client::{ClientError, Upgraded};
    use seekclaw_config::Home;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

    const UPGRADE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    /// Relays stdin/stdout to a running daemon's ACP server: the exit code,
    /// or `None` when no daemon runs (or it cannot serve ACP) so this
    /// process serves instead.
    pub fn through_daemon() -> anyhow::Result<Option<ExitCode>> {
        let home = Home::from_env()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let relayed = runtime.block_on(async move {
            // A daemon that accepts but never answers is wedged: say so
            // rather than leave the editor waiting on a silent agent.
            let upgrade = seekclaw_client::upgrade(home.socket_path(), "acp");
            let answered = tokio::time::timeout(UPGRADE_TIMEOUT, upgrade)
                .await
                .map_err(|_| {
                    anyhow::anyhow!(
                        "the daemon did not answer within {} s (run `seekclaw acp --no-daemon`, or restart the daemon)",
                        UPGRADE_TIMEOUT.as_secs()
                    )
                })?;
            match answered {
                Ok(upgraded) => relay(upgraded).await.map(Some),
                // No daemon runs.
                Err(ClientError::Connect { .. }) => Ok(None),
                Err(ClientError::Closed) => {
                    anyhow::bail!("the daemon closed the connection before answering")
                }
                // An older daemon, or one built without ACP.
                Err(e @ (ClientError::Daemon(_) | ClientError::BadResult { .. })) => {
                    tracing::warn!(answer = %e, "the daemon cannot serve acp; serving in this process");
                    Ok(None)
                }
                Err(e) => Err(e.into()),
            }
        });
        // tokio's stdin reader is a blocking thread that may sit in read(2).
        runtime.shutdown_background();
        relayed
    }

    /// Copies stdin to the daemon and the daemon to stdout until the daemon
    /// closes (after stdin ended it finishes the editor's prompts first).
    async fn relay(upgraded: Upgraded) -> anyhow::Result<ExitCode> {
        let Upgraded {
            reader: mut from_daemon,
            writer: mut to_daemon,
            ..
        } = upgraded;
        let input_ended = tokio_util::sync::CancellationToken::new();
        let ended = input_ended.clone();
        tokio::spawn(async move {
            let mut stdin = tokio::io::stdin();
            let _ = tokio::io::copy(&mut stdin, &mut to_daemon).await;
            let _ = to_daemon.shutdown().await;
            ended.cancel();
        });
        let mut stdout = tokio::io::stdout();
        // What the daemon sent right behind its answer is already buffered.
        let buffered = from_daemon.buffer().to_vec();
        from_daemon.consume(buffered.len());
        stdout.write_all(&buffered).await?;
        stdout.flush().await?;
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = from_daemon.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            stdout.write_all(&chunk[..n]).await?;
            stdout.flush().await?;
        }
        if input_ended.is_cancelled() {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("seekclaw: the daemon closed the connection (did it stop?)");
        Ok(ExitCode::from(1))
    }
}
