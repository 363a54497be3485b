//! Where `seekclaw`'s own log lines (tracing) go. A command that draws on the
//! terminal or prints for a person (`chat`, `run`, `review`, the admin
//! commands) never writes them into its output: they are appended to
//! `$SEEKCLAW_HOME/logs/seekclaw.log` (the file is made at the first line,
//! so a command that logs nothing writes nothing). `SEEKCLAW_LOG=stderr`
//! sends them to stderr instead, when stderr is not a terminal (a CI job,
//! `2>run.log`); on a terminal the file is kept, since the screen is drawn
//! there. Servers whose stderr is their log channel (`daemon`, `serve`,
//! `acp`, `mcp serve`: a service manager's journal, an editor's log) keep
//! logging to stderr.

use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use seekclaw_config::Home;
use tracing_subscriber::fmt::MakeWriter;

/// The variable that asks for log lines on stderr.
pub const LOG_ENV: &str = "SEEKCLAW_LOG";

/// The log file of the commands that do not log to stderr.
pub fn log_file(home: &Home) -> PathBuf {
    home.logs_dir().join("seekclaw.log")
}

/// Where a command's log lines go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    /// Its stderr.
    Stderr,
    /// Appended to this file.
    File(PathBuf),
    /// Nowhere (no home to keep a file in).
    Nowhere,
}

impl Sink {
    /// `server`: the command's stderr is its log channel. `asked`: the
    /// value of [`LOG_ENV`]. `home`: where the file lives, if known.
    pub fn choose(
        server: bool,
        asked: Option<&str>,
        stderr_is_terminal: bool,
        home: Option<&Home>,
    ) -> Sink {
        let wants_stderr = asked.is_some_and(|v| v.trim().eq_ignore_ascii_case("stderr"));
        if server || (wants_stderr && !stderr_is_terminal) {
            return Sink::Stderr;
        }
        match home {
            Some(home) => Sink::File(log_file(home)),
            None => Sink::Nowhere,
        }
    }
}

/// Installs the subscriber: `RUST_LOG` filters (else `default_filter`), the
/// lines go to `sink`.
pub fn init(sink: Sink, default_filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match sink {
        Sink::Stderr => builder
            .with_writer(std::io::stderr)
            // Colour codes only for a person: a log file or pipe gets plain text.
            .with_ansi(std::io::stderr().is_terminal())
            .init(),
        Sink::File(path) => builder
            .with_writer(LazyFile::new(path))
            .with_ansi(false)
            .init(),
        Sink::Nowhere => builder.with_writer(std::io::sink).init(),
    }
}

/// A log file opened (with its folder) at the first line written; lines
/// are dropped if it cannot be.
struct LazyFile {
    path: PathBuf,
    file: OnceLock<Option<Mutex<File>>>,
}

impl LazyFile {
    fn new(path: PathBuf) -> LazyFile {
        LazyFile {
            path,
            file: OnceLock::new(),
        }
    }

    fn open(path: &Path) -> Option<Mutex<File>> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).ok()?;
        }
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(path).ok().map(Mutex::new)
    }
}

/// One line's writer: the file, or nothing.
struct Line<'a>(Option<&'a Mutex<File>>);

impl Write for Line<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(file) = self.0
            && let Ok(mut file) = file.lock()
        {
            file.write_all(buf)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LazyFile {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line(self.file.get_or_init(|| Self::open(&self.path)).as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_servers_and_an_asked_for_non_terminal_get_stderr() {
        let home = Home::at("/h");
        let file = Sink::File(PathBuf::from("/h/logs/seekclaw.log"));
        assert_eq!(Sink::choose(true, None, true, Some(&home)), Sink::Stderr);
        assert_eq!(Sink::choose(false, None, false, Some(&home)), file);
        assert_eq!(Sink::choose(false, None, true, Some(&home)), file);
        assert_eq!(
            Sink::choose(false, Some("stderr"), false, Some(&home)),
            Sink::Stderr
        );
        // A drawn screen is never written into, asked or not.
        assert_eq!(Sink::choose(false, Some("stderr"), true, Some(&home)), file);
        assert_eq!(Sink::choose(false, Some("file"), false, Some(&home)), file);
        assert_eq!(Sink::choose(false, None, false, None), Sink::Nowhere);
    }

    #[test]
    fn the_file_is_made_at_the_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs").join("seekclaw.log");
        let lazy = LazyFile::new(path.clone());
        assert!(!path.exists());
        lazy.make_writer().write_all(b"one\n").unwrap();
        lazy.make_writer().write_all(b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    }
}
