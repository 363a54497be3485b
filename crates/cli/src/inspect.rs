//! `seekclaw inspect`: the browser view of the sessions (crate
//! `seekclaw-inspect`), or `--export` to one HTML file.

use std::io::Write as _;
use std::path::PathBuf;

use seekclaw_config::Home;

/// `seekclaw inspect [--port N] [--open] [--session ID] [--export FILE.html]`.
#[derive(clap::Args)]
pub struct InspectArgs {
    /// Port on 127.0.0.1 (0, the default, picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Open the URL in the desktop's browser (`xdg-open`/`open`).
    #[arg(long)]
    open: bool,
    /// A session to show first; with `--export`, the sessions to export
    /// (repeatable; every session without it).
    #[arg(long, value_name = "ID")]
    session: Vec<String>,
    /// Write one self-contained HTML page with the sessions instead of serving.
    #[arg(long, value_name = "FILE.html")]
    export: Option<PathBuf>,
}

/// Runs `seekclaw inspect`.
pub fn inspect(home: &Home, args: InspectArgs) -> anyhow::Result<()> {
    let db = home.db_path();
    // The inspector never writes, so it does not create the database either.
    if !db.exists() {
        anyhow::bail!(
            "no sessions yet: {} does not exist (a first turn creates it)",
            db.display()
        );
    }
    if let Some(out) = &args.export {
        let data = seekclaw_inspect::Data::open(&db)?;
        let html = seekclaw_inspect::export_html(&data, &args.session)?;
        std::fs::write(out, html)?;
        println!("{}", out.display());
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = seekclaw_inspect::Server::bind(seekclaw_inspect::Options {
            db,
            port: args.port,
            session: args.session.first().cloned(),
        })
        .await?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", server.url())?;
        out.flush()?;
        drop(out);
        if args.open {
            open_browser(server.url());
        }
        server.run().await?;
        anyhow::Ok(())
    })
}

/// Best effort: the URL is printed either way.
fn open_browser(url: &str) {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(program)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("seekclaw: could not start {program}: {e}");
    }
}
