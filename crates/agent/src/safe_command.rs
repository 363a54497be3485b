//! The shell commands `on-request` runs without asking: plain reads with no
//! redirection, substitution or background. Conservative by design: anything
//! it cannot read with certainty asks.

/// Programs that only read (with the exceptions [`safe_words`] checks).
const READERS: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "grep", "egrep", "fgrep", "rg",
    "tree", "file", "stat", "du", "df", "which", "whoami", "date", "uname", "diff", "cmp", "cut",
    "tr", "nl", "basename", "dirname", "realpath", "readlink", "true", "false", "test", "id",
    "hostname", "find", "git", "sort",
];

/// Git subcommands that only read.
const GIT_READERS: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "rev-parse",
    "ls-files",
    "blame",
    "grep",
    "describe",
    "shortlog",
];

/// Whether `command` only reads: every part of a `&&`/`||`/`;`/`|` chain is
/// a known reader with harmless arguments.
pub fn is_safe_command(command: &str) -> bool {
    // Redirections, substitutions, subshells, backgrounding and line breaks
    // are beyond a word check.
    if command.contains(['`', '>', '<', '\n', '\r', '(', ')', '{', '}', '$']) {
        return false;
    }
    let chained = command
        .replace("&&", ";")
        .replace("||", ";")
        .replace('|', ";");
    if chained.contains('&') {
        return false;
    }
    chained
        .split(';')
        .all(|part| shlex::split(part).is_some_and(|words| !words.is_empty() && safe_words(&words)))
}

fn safe_words(words: &[String]) -> bool {
    let (program, args) = (words[0].as_str(), &words[1..]);
    if !READERS.contains(&program) {
        return false;
    }
    let has = |flags: &[&str]| {
        args.iter().any(|a| {
            flags
                .iter()
                .any(|f| a == f || a.starts_with(&format!("{f}=")))
        })
    };
    match program {
        "find" => !has(&[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ]),
        // `rg --pre CMD` runs CMD on every file.
        "rg" => !has(&["--pre"]),
        "sort" => !has(&["-o", "--output"]) && !args.iter().any(|a| a.starts_with("-o")),
        "git" => args.first().is_some_and(|sub| {
            GIT_READERS.contains(&sub.as_str()) && !has(&["--output", "--ext-diff"])
        }),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::is_safe_command;

    #[test]
    fn reads_pass_and_anything_else_asks() {
        for ok in [
            "ls -la",
            "cat src/main.rs | head -20",
            "git status && git diff --stat",
            "grep -rn 'fn main' src; wc -l Cargo.toml",
            "find . -name '*.rs'",
            "rg foo",
        ] {
            assert!(is_safe_command(ok), "{ok}");
        }
        for asks in [
            "rm -rf target",
            "echo hi > file",
            "cat a >> b",
            "ls; rm x",
            "find . -delete",
            "find . -exec rm {} ;",
            "git commit -m x",
            "git diff --output=x",
            "echo $(rm x)",
            "echo `rm x`",
            "sleep 100 &",
            "FOO=1 ls",
            "/bin/ls",
            "rg --pre sh x",
            "sort -o out in",
            "ls 'unterminated",
            "",
            "cargo test",
        ] {
            assert!(!is_safe_command(asks), "{asks}");
        }
    }
}
