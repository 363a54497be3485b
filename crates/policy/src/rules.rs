//! Permission rules in Claude Code's syntax: `Bash(npm run test:*)`,
//! `Read(./.env)`, `Edit(src/**)`, `WebFetch(domain:docs.rs)`,
//! `mcp__github__*`, a bare tool name. Deny is evaluated first, then ask,
//! then allow; within a verdict the strictest layer's first match decides.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

use crate::names::{absolute, our_name};
use crate::shell::{self, ShellCommand, SimpleCommand, Word};
use crate::{Layer, Verdict};

/// Which calls a rule's tool part covers.
#[derive(Debug, Clone)]
enum Tools {
    /// A built-in tool family (`Read` covers every tool that reads files).
    Family(&'static [&'static str]),
    /// One tool by name (ours or an MCP tool), or a glob over MCP names.
    Name(String),
    Glob(GlobMatcher),
}

#[derive(Debug, Clone)]
enum Spec {
    /// The whole tool.
    Any,
    /// A shell command pattern as words; `*` matches any words.
    Command(Vec<Pat>),
    /// Path globs (absolute), the path or anything under it.
    Path(Vec<GlobMatcher>),
    /// A host and its subdomains.
    Domain(String),
}

/// One word of a command pattern, compiled once.
#[derive(Debug, Clone)]
enum Pat {
    /// `*`: any number of words (none too).
    Any,
    /// This word exactly.
    Word(String),
    /// One literal word matching a glob (`test:*`, `*.log`).
    Glob(GlobMatcher),
}

impl Pat {
    fn of(word: &str) -> Result<Pat, String> {
        if word == "*" {
            return Ok(Pat::Any);
        }
        if !word.contains('*') {
            return Ok(Pat::Word(word.to_string()));
        }
        GlobBuilder::new(word)
            .literal_separator(false)
            .build()
            .map(|g| Pat::Glob(g.compile_matcher()))
            .map_err(|e| format!("`{word}`: {e}"))
    }

    /// The fixed text of a pattern word (none for `*` and globs).
    fn fixed(&self) -> Option<&str> {
        match self {
            Pat::Word(w) => Some(w),
            _ => None,
        }
    }
}

/// One rule, compiled against a workspace.
#[derive(Debug, Clone)]
pub struct Rule {
    /// As the user wrote it.
    pub text: String,
    /// What it decides.
    pub verdict: Verdict,
    /// Where it came from.
    pub layer: Layer,
    /// The file it is in.
    pub file: PathBuf,
    /// Whether it applies (an untrusted workspace's allow rules do not).
    pub active: bool,
    tools: Tools,
    spec: Spec,
}

const READERS: &[&str] = &["read_file", "grep", "glob", "list_dir"];
const EDITORS: &[&str] = &[
    "edit_file",
    "multi_edit",
    "write_file",
    "remove",
    "apply_patch",
];

/// Where relative path patterns start and what `~` is.
#[derive(Debug, Clone)]
pub struct Bases {
    /// The workspace root (or the turn's directory): `./x`, `x` and `/x`.
    pub root: PathBuf,
    /// The user's home directory: `~/x`.
    pub home: Option<PathBuf>,
}

impl Rule {
    /// Parses `text`; `Err` says why it cannot be a rule.
    pub fn parse(
        text: &str,
        verdict: Verdict,
        layer: Layer,
        file: &Path,
        bases: &Bases,
    ) -> Result<Rule, String> {
        let text = text.trim();
        let (name, arg) = match text.split_once('(') {
            Some((name, rest)) => {
                let arg = rest
                    .strip_suffix(')')
                    .ok_or_else(|| format!("`{text}` has no closing `)`"))?;
                (name.trim(), Some(arg.trim()))
            }
            None => (text, None),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '.'))
        {
            return Err(format!("`{text}` is not a tool name or `Tool(pattern)`"));
        }
        let tools = tools_of(name)?;
        let spec = match arg.filter(|a| !a.is_empty() && *a != "*") {
            None => Spec::Any,
            Some(arg) => spec_of(name, arg, bases)?,
        };
        Ok(Rule {
            text: text.to_string(),
            verdict,
            layer,
            file: file.to_path_buf(),
            active: true,
            tools,
            spec,
        })
    }

    fn covers(&self, tool: &str) -> bool {
        match &self.tools {
            Tools::Family(f) => f.contains(&tool),
            Tools::Name(n) => n == tool,
            Tools::Glob(g) => g.is_match(tool),
        }
    }
}

fn tools_of(name: &str) -> Result<Tools, String> {
    if name.starts_with("mcp__") {
        if name.contains('*') {
            let glob = GlobBuilder::new(name)
                .build()
                .map_err(|e| format!("`{name}`: {e}"))?;
            return Ok(Tools::Glob(glob.compile_matcher()));
        }
        // `mcp__server` alone covers the server's tools.
        if name.matches("__").count() == 1 {
            let glob = GlobBuilder::new(&format!("{name}__*"))
                .build()
                .map_err(|e| format!("`{name}`: {e}"))?;
            return Ok(Tools::Glob(glob.compile_matcher()));
        }
        return Ok(Tools::Name(name.to_string()));
    }
    Ok(match name {
        "Read" => Tools::Family(READERS),
        "Edit" => Tools::Family(EDITORS),
        _ if crate::names::is_known(name) => Tools::Name(our_name(name).to_string()),
        _ => return Err(format!("unknown tool `{name}`")),
    })
}

fn spec_of(name: &str, arg: &str, bases: &Bases) -> Result<Spec, String> {
    match our_name(name) {
        "bash" => {
            let (head, any_tail) = match arg.strip_suffix(":*") {
                Some(head) => (head, true),
                None => (arg, false),
            };
            let mut words =
                shlex::split(head).ok_or_else(|| format!("`{arg}` has an unterminated quote"))?;
            if any_tail {
                words.push("*".into());
            }
            if words.is_empty() {
                return Err(format!("`Bash({arg})` names no command"));
            }
            let pats = words.iter().map(|w| Pat::of(w)).collect::<Result<_, _>>()?;
            Ok(Spec::Command(pats))
        }
        "web_fetch" => match arg.strip_prefix("domain:") {
            Some(host) if !host.trim().is_empty() => Ok(Spec::Domain(host.trim().to_lowercase())),
            _ => Err(format!(
                "`WebFetch({arg})`: expected `WebFetch(domain:HOST)`"
            )),
        },
        "Read" | "Edit" | "read_file" | "edit_file" | "multi_edit" | "write_file" | "remove"
        | "apply_patch" | "grep" | "glob" | "list_dir" => Ok(Spec::Path(path_globs(arg, bases)?)),
        _ => Err(format!("`{name}` takes no pattern (write `{name}` alone)")),
    }
}

/// Claude Code's path patterns: `//abs`, `~/home`, `/root-relative`,
/// `./x` or `x/y` (from the root), `name` (at any depth, as in gitignore).
fn path_globs(arg: &str, bases: &Bases) -> Result<Vec<GlobMatcher>, String> {
    let root = bases.root.display().to_string();
    let root = root.trim_end_matches('/');
    let pattern = if let Some(abs) = arg.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = arg.strip_prefix("~/") {
        let home = bases
            .home
            .as_ref()
            .ok_or_else(|| format!("`{arg}`: no home directory"))?;
        format!("{}/{rest}", home.display())
    } else if let Some(rest) = arg.strip_prefix('/') {
        format!("{root}/{rest}")
    } else if let Some(rest) = arg.strip_prefix("./") {
        format!("{root}/{rest}")
    } else if arg.trim_end_matches('/').contains('/') {
        format!("{root}/{arg}")
    } else {
        format!("{root}/**/{arg}")
    };
    let pattern = match pattern.strip_suffix('/') {
        Some(dir) => format!("{dir}/**"),
        None => pattern,
    };
    let mut out = Vec::new();
    for p in [pattern.clone(), format!("{pattern}/**")] {
        let glob = GlobBuilder::new(&p)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`{arg}`: {e}"))?;
        out.push(glob.compile_matcher());
    }
    Ok(out)
}

/// A call as the rules see it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// Our tool name (`bash`, `read_file`, `mcp__gh__create_issue`).
    pub tool: &'a str,
    /// Its arguments (our names).
    pub args: &'a Value,
    /// Where relative paths start (the turn's directory).
    pub cwd: &'a Path,
    /// The workspace a redirection may write in without asking.
    pub workspace: Option<&'a Path>,
}

/// The rule that decided a call.
#[derive(Debug, Clone)]
pub struct RuleMatch<'r> {
    /// Allow, ask or deny.
    pub verdict: Verdict,
    /// The rule.
    pub rule: &'r Rule,
}

/// Every rule of a turn, strictest layer first.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    rules: Vec<Rule>,
}

/// Environment prefixes that change what a command runs or loads: a
/// command with one is never allowed by a rule.
const RISKY_ENV: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "NODE_OPTIONS",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "RUBYOPT",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_GLOBAL",
    "EDITOR",
    "PAGER",
];

impl Rules {
    /// The rules in evaluation order (callers push strictest layer first).
    pub fn new(rules: Vec<Rule>) -> Rules {
        Rules { rules }
    }

    /// Every rule, active or not.
    pub fn all(&self) -> &[Rule] {
        &self.rules
    }

    /// The first rule that decides `call`: deny, then ask, then allow;
    /// `None` when no rule does (the approval policy decides).
    pub fn decide(&self, call: &Call<'_>) -> Option<RuleMatch<'_>> {
        let shell = (call.tool == "bash")
            .then(|| call.args["command"].as_str().map(shell::parse))
            .flatten();
        let target = Target::of(call, shell.as_ref());
        for verdict in [Verdict::Deny, Verdict::Ask] {
            let found = self
                .rules
                .iter()
                .filter(|r| r.active && r.verdict == verdict)
                .find(|r| restricts(r, call, shell.as_ref(), &target));
            if let Some(rule) = found {
                return Some(RuleMatch { verdict, rule });
            }
        }
        let mut allow = self
            .rules
            .iter()
            .filter(|r| r.active && r.verdict == Verdict::Allow);
        let rule = match &shell {
            Some(sh) => self.allows_line(sh, call)?,
            None => allow.find(|r| {
                r.covers(call.tool)
                    && match &r.spec {
                        Spec::Any => true,
                        Spec::Path(globs) => target.all_paths_match(globs),
                        Spec::Domain(host) => target.host_matches(host),
                        Spec::Command(_) => false,
                    }
            })?,
        };
        Some(RuleMatch {
            verdict: Verdict::Allow,
            rule,
        })
    }

    /// An allow rule passes a command line only if every command in it is
    /// allowed (by one allow rule or another) and nothing in it is beyond
    /// reading: no opaque part, no risky environment, no write outside the
    /// workspace. A bare `Bash` rule allows every line. Returns the rule of
    /// the line's first command.
    fn allows_line<'r>(&'r self, sh: &ShellCommand, call: &Call<'_>) -> Option<&'r Rule> {
        let allow: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|r| r.active && r.verdict == Verdict::Allow && r.covers("bash"))
            .collect();
        if let Some(all) = allow.iter().find(|r| matches!(r.spec, Spec::Any)) {
            return Some(all);
        }
        if !allowable(sh, call) {
            return None;
        }
        let mut first = None;
        for c in &sh.commands {
            if c.words.is_empty() {
                continue;
            }
            let rule = allow.iter().find(|r| match &r.spec {
                Spec::Command(p) => words_match(p, c.program_words()),
                _ => false,
            })?;
            first.get_or_insert(*rule);
        }
        first
    }
}

/// What a call is about, worked out once for all rules: its file (and,
/// lazily, where a symlink leads), its host, the files a command writes.
struct Target {
    /// The files the call is about (a patch names several), absolute.
    paths: Vec<String>,
    /// Where each of `paths` leads through symlinks, when elsewhere.
    real: std::cell::OnceCell<Vec<Option<String>>>,
    host: Option<String>,
    writes: Vec<String>,
}

impl Target {
    fn of(call: &Call<'_>, shell: Option<&ShellCommand>) -> Target {
        Target {
            paths: call_paths(call),
            real: std::cell::OnceCell::new(),
            host: call.args["url"].as_str().and_then(host_of),
            writes: shell
                .map(|sh| {
                    sh.commands
                        .iter()
                        .flat_map(|c| &c.writes)
                        .filter(|w| w.literal)
                        .map(|w| absolute(call.cwd, &expand_home(&w.text)))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Whether any of the call's files matches (deny and ask rules).
    fn path_matches(&self, globs: &[GlobMatcher]) -> bool {
        (0..self.paths.len()).any(|i| self.nth_matches(i, globs))
    }

    /// Whether every one of the call's files matches (allow rules: a patch
    /// is allowed only when all its files are).
    fn all_paths_match(&self, globs: &[GlobMatcher]) -> bool {
        !self.paths.is_empty() && (0..self.paths.len()).all(|i| self.nth_matches(i, globs))
    }

    fn nth_matches(&self, i: usize, globs: &[GlobMatcher]) -> bool {
        let path = &self.paths[i];
        if globs.iter().any(|g| g.is_match(path)) {
            return true;
        }
        // Through a symlink to the same file (resolved once per call).
        let real = self.real.get_or_init(|| {
            self.paths
                .iter()
                .map(|path| {
                    std::fs::canonicalize(path)
                        .ok()
                        .map(|p| p.display().to_string())
                        .filter(|r| r != path)
                })
                .collect()
        });
        real.get(i)
            .and_then(Option::as_ref)
            .is_some_and(|r| globs.iter().any(|g| g.is_match(r)))
    }

    fn host_matches(&self, host: &str) -> bool {
        self.host
            .as_deref()
            .is_some_and(|h| h == host || h.strip_suffix(host).is_some_and(|p| p.ends_with('.')))
    }
}

/// Whether a deny or ask rule covers the call.
fn restricts(rule: &Rule, call: &Call<'_>, shell: Option<&ShellCommand>, t: &Target) -> bool {
    // A shell redirection writing a file is an edit of it.
    if let Spec::Path(globs) = &rule.spec
        && !t.writes.is_empty()
        && rule.covers("write_file")
        && t.writes.iter().any(|w| globs.iter().any(|g| g.is_match(w)))
    {
        return true;
    }
    if !rule.covers(call.tool) {
        return false;
    }
    match &rule.spec {
        Spec::Any => true,
        Spec::Command(pattern) => shell.is_some_and(|sh| {
            sh.commands
                .iter()
                .any(|c| words_match(pattern, &c.words) || words_match(pattern, c.program_words()))
                || (sh.opaque.is_some()
                    && raw_match(pattern, call.args["command"].as_str().unwrap_or_default()))
        }),
        Spec::Path(globs) => t.path_matches(globs),
        Spec::Domain(host) => t.host_matches(host),
    }
}

/// Whether any allow rule could pass the line: it was read with certainty,
/// sets no risky environment and writes nothing outside the workspace.
pub fn allowable(sh: &ShellCommand, call: &Call<'_>) -> bool {
    sh.opaque.is_none()
        && !sh.commands.is_empty()
        && sh
            .commands
            .iter()
            .all(|c| writes_inside(c, call) && !c.env.iter().any(|e| risky_env(e)))
}

fn risky_env(name: &str) -> bool {
    RISKY_ENV.contains(&name) || name.starts_with("LD_") || name.starts_with("DYLD_")
}

fn writes_inside(c: &SimpleCommand, call: &Call<'_>) -> bool {
    c.writes.iter().all(|w| {
        if !w.literal {
            return false;
        }
        if matches!(w.text.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr") {
            return true;
        }
        let target = absolute(call.cwd, &expand_home(&w.text));
        call.workspace
            .is_some_and(|ws| Path::new(&target).starts_with(ws))
    })
}

fn expand_home(p: &str) -> String {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => format!("{}/{rest}", Path::new(&home).display()),
        _ => p.to_string(),
    }
}

/// Rule words against command words: `*` matches any words (none too), a
/// word with `*` matches one literal word by glob, others exactly. The
/// program matches by its base name (`/bin/rm` is `rm`).
fn words_match(pattern: &[Pat], words: &[Word]) -> bool {
    fn go(p: &[Pat], w: &[Word], first: bool) -> bool {
        let Some((head, rest)) = p.split_first() else {
            return w.is_empty();
        };
        if let Pat::Any = head {
            return (0..=w.len()).any(|skip| go(rest, &w[skip..], false));
        }
        let Some((word, more)) = w.split_first() else {
            return false;
        };
        if !word.literal {
            return false;
        }
        let one = match head {
            Pat::Word(h) if first && !h.contains('/') => h == shell::basename(&word.text),
            Pat::Word(h) => *h == word.text,
            Pat::Glob(g) => g.is_match(&word.text),
            Pat::Any => true,
        };
        one && go(rest, more, false)
    }
    go(pattern, words, true)
}

/// For a line that could not be read: the rule's fixed words appear in it
/// as tokens, in order (`rm${IFS}-rf`, `{rm,-rf,x}` included). Errs toward
/// matching: only deny and ask rules use it.
fn raw_match(pattern: &[Pat], raw: &str) -> bool {
    let fixed: Vec<&str> = pattern.iter().map_while(Pat::fixed).collect();
    if fixed.is_empty() {
        return true;
    }
    let mut tokens = raw
        .split(|c: char| c.is_whitespace() || ";&|()`$\"'{},\\<>=".contains(c))
        .filter(|t| !t.is_empty())
        .map(shell::basename);
    fixed.iter().all(|f| tokens.any(|t| t == *f))
}

/// The files or folder a file tool's call is about, absolute.
fn call_paths(call: &Call<'_>) -> Vec<String> {
    let given = crate::names::file_paths(call.tool, call.args);
    if given.is_empty() && matches!(call.tool, "grep" | "glob" | "list_dir") {
        // Searches without a path search the turn's directory.
        return vec![absolute(call.cwd, ".")];
    }
    given.iter().map(|p| absolute(call.cwd, p)).collect()
}

/// The host a fetch of `url` goes to, parsed as the `web_fetch` tool parses
/// it (`https://` added when there is no scheme); `None`: no host.
fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url)
        .or_else(|_| url::Url::parse(&format!("https://{url}")))
        .ok()?;
    parsed.host_str().map(str::to_lowercase)
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
