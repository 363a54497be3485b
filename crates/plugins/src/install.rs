//! Installing: a source (folder, git URL, `owner/repo`, `NAME@MARKET`) is
//! fetched into a staging folder beside the installed plugins, read, shown
//! ([`Prepared::summary`]) and only then moved into place.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::PluginError;
use crate::marketplace;
use crate::plugin::Plugin;
use crate::state::{Entry, Location};
use crate::summary::Summary;

/// Where a plugin comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A local folder (copied).
    Path(PathBuf),
    /// Anything `git clone` takes.
    Git(String),
}

/// How the user's text names a source. `home_root` resolves `NAME@MARKET`;
/// `cwd` relative paths.
pub fn parse_source(text: &str, home_root: &Path, cwd: &Path) -> Result<Source, PluginError> {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let gitish = ["http://", "https://", "ssh://", "git://", "file://", "git@"]
        .iter()
        .any(|p| lower.starts_with(p));
    if gitish {
        return Ok(Source::Git(text.to_string()));
    }
    let path = match text.strip_prefix("~/").zip(std::env::var_os("HOME")) {
        Some((rest, home)) => PathBuf::from(home).join(rest),
        None => cwd.join(text),
    };
    if path.is_dir() {
        return Ok(Source::Path(path));
    }
    if let Some((name, market)) = text.split_once('@')
        && !name.is_empty()
        && !market.is_empty()
        && !name.contains('/')
    {
        return marketplace::resolve(home_root, name, market);
    }
    // Written as a path (`./x`, `../x`, `/x`, `~/x`): a folder that is not there.
    if text.starts_with(['.', '/', '~']) {
        return Err(PluginError::NoSuchFolder(path));
    }
    if let Some((owner, repo)) = text.split_once('/')
        && !owner.is_empty()
        && !repo.is_empty()
        && [owner, repo].iter().all(|s| {
            s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
    {
        let repo = repo.strip_suffix(".git").unwrap_or(repo);
        return Ok(Source::Git(format!(
            "https://github.com/{owner}/{repo}.git"
        )));
    }
    Err(PluginError::UnknownSource(text.to_string()))
}

/// A plugin fetched and read, not yet installed.
#[derive(Debug)]
pub struct Prepared {
    /// What was read from the staged copy.
    pub plugin: Plugin,
    location: Location,
    source_text: String,
    // Removed on drop when the install does not go ahead.
    staging: tempfile::TempDir,
    staged: PathBuf,
}

/// Fetches `source` into a staging folder of `location` and reads it.
pub fn prepare(
    source: &Source,
    source_text: &str,
    location: &Location,
) -> Result<Prepared, PluginError> {
    fs::create_dir_all(&location.dir).map_err(|e| PluginError::io(&location.dir, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(&location.dir)
        .map_err(|e| PluginError::io(&location.dir, e))?;
    let staged = staging.path().join("plugin");
    match source {
        Source::Path(dir) => copy_tree(dir, &staged)?,
        Source::Git(url) => clone(url, &staged)?,
    }
    let plugin = Plugin::read(&staged)?;
    Ok(Prepared {
        plugin,
        location: location.clone(),
        source_text: source_text.to_string(),
        staging,
        staged,
    })
}

impl Prepared {
    /// What the plugin brings, as it will be installed.
    pub fn summary(&self) -> Summary {
        // Shown with the final folder, so hook commands read as they will run.
        let target = self.location.plugin_dir(self.plugin.name());
        match Plugin::read_as(&self.staged, &target) {
            Ok(p) => Summary::of(&p),
            Err(_) => Summary::of(&self.plugin),
        }
    }

    /// Whether a plugin of this name is installed in the target scope.
    pub fn exists(&self) -> bool {
        self.location.load().0.contains_key(self.plugin.name())
    }

    /// Moves the plugin into place and records it. Refuses to replace an
    /// installed plugin unless `force`.
    pub fn commit(self, force: bool) -> Result<Summary, PluginError> {
        let name = self.plugin.name().to_string();
        let mut state = self.location.load();
        let target = self.location.plugin_dir(&name);
        if (state.0.contains_key(&name) || target.exists()) && !force {
            return Err(PluginError::AlreadyInstalled(name));
        }
        if target.exists() {
            fs::remove_dir_all(&target).map_err(|e| PluginError::io(&target, e))?;
        }
        fs::rename(&self.staged, &target).map_err(|e| PluginError::io(&target, e))?;
        let plugin = Plugin::read(&target)?;
        state.0.insert(
            name,
            Entry {
                source: self.source_text.clone(),
                version: plugin.manifest.version.clone(),
                enabled: true,
                installed_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            },
        );
        self.location.save(&state)?;
        drop(self.staging);
        Ok(Summary::of(&plugin))
    }
}

/// Copies a plugin folder: regular files and folders only, no `.git`, and
/// no symlinks (a plugin's files must really be in it).
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<(), PluginError> {
    fs::create_dir_all(to).map_err(|e| PluginError::io(to, e))?;
    let entries = fs::read_dir(from).map_err(|e| PluginError::io(from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| PluginError::io(from, e))?;
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| PluginError::io(&entry.path(), e))?;
        let dest = to.join(&name);
        if kind.is_dir() {
            copy_tree(&entry.path(), &dest)?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &dest).map_err(|e| PluginError::io(&entry.path(), e))?;
        }
    }
    Ok(())
}

/// `git clone --depth 1` through the user's own git (their credentials and
/// proxies), without a prompt that would hang a daemon.
pub(crate) fn clone(url: &str, to: &Path) -> Result<(), PluginError> {
    let out = Command::new("git")
        .args(["clone", "--quiet", "--depth", "1", "--", url])
        .arg(to)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| PluginError::Git {
            action: "clone".into(),
            detail: format!("could not run git: {e}"),
        })?;
    if !out.status.success() {
        return Err(PluginError::Git {
            action: format!("clone {url}"),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    let git_dir = to.join(".git");
    if git_dir.exists() {
        fs::remove_dir_all(&git_dir).map_err(|e| PluginError::io(&git_dir, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn sources_are_recognised() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("local")).unwrap();
        let home = tmp.path().join("home");
        let p = |t: &str| parse_source(t, &home, tmp.path());
        assert_eq!(p("local").unwrap(), Source::Path(tmp.path().join("local")));
        assert_eq!(
            p("acme/tools").unwrap(),
            Source::Git("https://github.com/acme/tools.git".into())
        );
        assert_eq!(p("file:///x/y").unwrap(), Source::Git("file:///x/y".into()));
        assert!(matches!(
            p("nothing here"),
            Err(PluginError::UnknownSource(_))
        ));
        assert!(matches!(p("a@nomarket"), Err(PluginError::Marketplace(_))));
    }

    #[test]
    fn install_copies_records_and_refuses_to_overwrite() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        write(&src, "plugin.json", r#"{"name":"demo","version":"1"}"#);
        write(&src, "commands/hi.md", "Hi $ARGUMENTS");
        write(&src, ".git/HEAD", "ref");
        let loc = Location::user(&tmp.path().join("home"));
        let source = Source::Path(src.clone());
        let prepared = prepare(&source, "src", &loc).unwrap();
        assert!(!prepared.exists());
        assert_eq!(prepared.summary().commands, ["hi"]);
        prepared.commit(false).unwrap();
        assert!(loc.plugin_dir("demo").join("commands/hi.md").is_file());
        assert!(!loc.plugin_dir("demo").join(".git").exists());
        let st = loc.load();
        assert_eq!(st.0["demo"].source, "src");
        assert_eq!(st.0["demo"].version.as_deref(), Some("1"));
        let again = prepare(&source, "src", &loc).unwrap();
        assert!(again.exists());
        assert!(matches!(
            again.commit(false),
            Err(PluginError::AlreadyInstalled(_))
        ));
        prepare(&source, "src", &loc).unwrap().commit(true).unwrap();
        // No staging folder left behind.
        let left: Vec<_> = fs::read_dir(&loc.dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }
}
