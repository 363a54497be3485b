//! Reading a shell command for the permission rules: every simple command
//! it would run (pipelines, `;`, `&&`, `||`, subshells, groups, `$(…)`,
//! backticks, process substitution, `eval`, `bash -c`, `xargs`, `find
//! -exec`), the files its redirections write, and its environment prefixes.
//!
//! Conservative by design: what it cannot read with certainty (a here-document,
//! a loop, a word built from expansions where a program name goes, an
//! unterminated quote) makes the command *opaque*, and an opaque command is
//! never allowed by a rule (it asks). Deny rules still see every command that
//! could be read, and the raw text.

/// One word as the program receives it (quotes removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text with quotes removed; expansions are kept as written.
    pub text: String,
    /// No expansion, substitution or glob touches it: `text` is exactly
    /// what the program gets.
    pub literal: bool,
}

impl Word {
    fn unknown() -> Word {
        Word {
            text: String::new(),
            literal: false,
        }
    }
}

/// A simple command: `NAME=v … prog args… >file`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// The words after the environment prefixes.
    pub words: Vec<Word>,
    /// Names of the environment prefixes (`FOO=1 cmd`).
    pub env: Vec<String>,
    /// Where its redirections write (`> f`, `>> f`, `&> f`, `2> f`).
    pub writes: Vec<Word>,
    /// Leading words that only run the rest (`env`, `nohup`, `command`,
    /// `time`, `nice -n 5`, `timeout 10`): the program is `words[wrappers..]`.
    pub wrappers: usize,
}

impl SimpleCommand {
    /// The words from the program on (after transparent wrappers).
    pub fn program_words(&self) -> &[Word] {
        &self.words[self.wrappers.min(self.words.len())..]
    }
}

/// A command line read for the rules.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellCommand {
    /// Every simple command it runs, nested ones included.
    pub commands: Vec<SimpleCommand>,
    /// Why part of it could not be read with certainty (`None`: all of it was).
    pub opaque: Option<String>,
}

impl ShellCommand {
    fn opaque(&mut self, why: &str) {
        if self.opaque.is_none() {
            self.opaque = Some(why.to_string());
        }
    }
}

#[path = "shell_lex.rs"]
mod lex;
use lex::Lexer;

/// Nesting depth past which a command is opaque (`$( $( $( … ) ) )`).
const MAX_DEPTH: u8 = 8;

/// Reads `src`.
pub fn parse(src: &str) -> ShellCommand {
    let mut out = ShellCommand::default();
    parse_into(src, 0, &mut out);
    out
}

fn parse_into(src: &str, depth: u8, out: &mut ShellCommand) {
    if depth > MAX_DEPTH {
        out.opaque("nested too deeply");
        return;
    }
    let chars: Vec<char> = src.chars().collect();
    let mut lx = Lexer {
        s: &chars,
        i: 0,
        depth,
        out,
    };
    let mut current = Pending::default();
    while let Some(tok) = lx.next_token() {
        match tok {
            Tok::Word(w) => {
                if let Some(kind) = current.redirect.take() {
                    if kind == RedirectKind::Write {
                        current.cmd.writes.push(w);
                    }
                } else {
                    current.word(w);
                }
            }
            Tok::Redirect(kind) => {
                if current.redirect.is_some() {
                    lx.out.opaque("a redirection without a target");
                }
                current.redirect = Some(kind);
            }
            Tok::HereDoc => lx.out.opaque("a here-document"),
            Tok::Duplicate => {}
            Tok::Separator | Tok::Close => current.finish(lx.out, depth),
            Tok::Open => {
                // `f() { …; }` defines a function; `(` after words is not a subshell.
                if !current.cmd.words.is_empty() {
                    lx.out.opaque("a function definition");
                }
                current.finish(lx.out, depth);
            }
        }
    }
    if current.redirect.is_some() {
        lx.out.opaque("a redirection without a target");
    }
    current.finish(lx.out, depth);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RedirectKind {
    /// Writes a file (`>`, `>>`, `&>`, `>|`, `<>`).
    Write,
    /// Reads a file or a here-string.
    Read,
}

enum Tok {
    Word(Word),
    Redirect(RedirectKind),
    HereDoc,
    /// `>&2`: a descriptor copy, which writes no file.
    Duplicate,
    Separator,
    Open,
    Close,
}

/// The simple command being read.
#[derive(Default)]
struct Pending {
    cmd: SimpleCommand,
    redirect: Option<RedirectKind>,
}

/// Words that open or close compound commands; where a program goes they
/// are skipped (what follows them runs) or make the command opaque.
const TRANSPARENT_KEYWORDS: &[&str] = &[
    "!", "{", "}", "then", "do", "else", "if", "elif", "while", "until", "fi", "done",
];
const OPAQUE_KEYWORDS: &[&str] = &[
    "for", "select", "case", "esac", "function", "[[", "]]", "((", "coproc", "in",
];

impl Pending {
    fn word(&mut self, w: Word) {
        let at_program = self.cmd.words.is_empty();
        if at_program && w.literal && is_assignment(&w.text) {
            let name = w.text.split('=').next().unwrap_or_default().to_string();
            self.cmd.env.push(name);
            return;
        }
        if at_program && w.literal && TRANSPARENT_KEYWORDS.contains(&w.text.as_str()) {
            return;
        }
        self.cmd.words.push(w);
    }

    fn finish(&mut self, out: &mut ShellCommand, depth: u8) {
        let cmd = std::mem::take(&mut self.cmd);
        self.redirect = None;
        if cmd.words.is_empty() {
            // Assignments alone, or only redirections: nothing runs, but a
            // redirection may still write.
            if !cmd.writes.is_empty() {
                out.commands.push(cmd);
            }
            return;
        }
        if let Some(first) = cmd.words.first()
            && first.literal
            && OPAQUE_KEYWORDS.contains(&first.text.as_str())
        {
            out.opaque(&format!("a `{}` construct", first.text));
            out.commands.push(cmd);
            return;
        }
        unwrap_into(cmd, depth, out);
    }
}

fn is_assignment(text: &str) -> bool {
    let Some((name, _)) = text.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Programs that only run the rest of their words, and how many option
/// words of their own they take before it.
fn wrapper_arity(program: &str, rest: &[Word]) -> Option<usize> {
    let flags = |takes_value: &[&str]| options_len(rest, takes_value);
    match program {
        "command" | "builtin" | "nohup" => Some(flags(&[])),
        // `exec -a NAME cmd`, GNU `time -o FILE -f FORMAT cmd`: values, not the program.
        "exec" => Some(flags(&["-a"])),
        "time" => Some(flags(&["-o", "-f", "--output", "--format"])),
        "nice" => Some(flags(&["-n"])),
        "stdbuf" => Some(flags(&["-i", "-o", "-e"])),
        // `timeout [opts] DURATION cmd`
        "timeout" => {
            let n = flags(&["-s", "-k", "--signal", "--kill-after"]);
            Some(n + 1)
        }
        "env" => {
            let mut n = flags(&["-u", "-C", "-S", "--unset", "--chdir"]);
            while rest.get(n).is_some_and(|w| is_assignment(&w.text)) {
                n += 1;
            }
            Some(n)
        }
        _ => None,
    }
}

/// Records `cmd`, reading through what runs other commands: transparent
/// wrappers are marked, `eval` and `sh -c` scripts are read as commands,
/// `xargs` and `find -exec` add the command they run.
fn unwrap_into(mut cmd: SimpleCommand, depth: u8, out: &mut ShellCommand) {
    let mut at = 0;
    while let Some(w) = cmd.words.get(at) {
        if !w.literal {
            break;
        }
        let program = basename(&w.text);
        match wrapper_arity(program, &cmd.words[at + 1..]) {
            Some(n) => {
                if program == "env" {
                    for a in &cmd.words[at + 1..(at + 1 + n).min(cmd.words.len())] {
                        if is_assignment(&a.text) {
                            cmd.env
                                .push(a.text.split('=').next().unwrap_or_default().to_string());
                        }
                    }
                }
                at += 1 + n;
            }
            None => break,
        }
    }
    cmd.wrappers = at.min(cmd.words.len());
    let words = cmd.program_words().to_vec();
    let Some(first) = words.first() else {
        out.commands.push(cmd);
        return;
    };
    if !first.literal {
        out.opaque("a program name built from expansions");
        out.commands.push(cmd);
        return;
    }
    let program = basename(&first.text);
    match program {
        "eval" => {
            let rest = &words[1..];
            if rest.iter().all(|w| w.literal) {
                let script: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
                parse_into(&script.join(" "), depth + 1, out);
            } else {
                out.opaque("`eval` of expanded text");
            }
            return;
        }
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" => {
            if let Some(script) = dash_c_script(&words[1..]) {
                match script {
                    Some(text) => parse_into(&text, depth + 1, out),
                    None => out.opaque("a shell script built from expansions"),
                }
                return;
            }
            // `… | bash`, `bash <<< "…"`: the script is data this reader never sees.
            if words[1..].iter().all(|w| w.text.starts_with('-')) {
                out.opaque("a shell reading its script from standard input");
            }
        }
        // The command a privilege tool runs must pass the rules too (and
        // the tool itself: `sudo` is never transparent to an allow rule).
        "sudo" | "doas" => {
            let n = options_len(
                &words[1..],
                &["-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D", "-T"],
            );
            let inner = &words[1 + n..];
            if !inner.is_empty() {
                unwrap_into(
                    SimpleCommand {
                        words: inner.to_vec(),
                        ..SimpleCommand::default()
                    },
                    depth + 1,
                    out,
                );
            }
        }
        "xargs" => {
            let n = options_len(
                &words[1..],
                &["-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"],
            );
            let inner = &words[1 + n..];
            if !inner.is_empty() {
                let mut run = inner.to_vec();
                run.push(Word::unknown());
                unwrap_into(
                    SimpleCommand {
                        words: run,
                        ..SimpleCommand::default()
                    },
                    depth + 1,
                    out,
                );
            }
        }
        "find" => find_exec(&words, depth, out),
        _ => {}
    }
    out.commands.push(cmd);
}

/// `-c SCRIPT` among a shell's options (`-c`, `-lc`, `-euc`): `Some(None)`
/// when the script is not a literal.
fn dash_c_script(args: &[Word]) -> Option<Option<String>> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        if !w.text.starts_with('-') || w.text == "-" || w.text == "--" {
            return None;
        }
        let is_c = !w.text.starts_with("--") && w.text[1..].contains('c');
        if is_c {
            return Some(
                args.get(i + 1)
                    .and_then(|s| s.literal.then(|| s.text.clone())),
            );
        }
        // `-o option` takes a value.
        i += if w.text == "-o" || w.text == "+o" {
            2
        } else {
            1
        };
    }
    None
}

/// How many leading words of `args` are options (`--` ends them; those in
/// `takes_value` take the next word too).
fn options_len(args: &[Word], takes_value: &[&str]) -> usize {
    let mut n = 0;
    while let Some(w) = args.get(n) {
        if !w.text.starts_with('-') || w.text == "-" {
            break;
        }
        n += if takes_value.contains(&w.text.as_str()) {
            2
        } else {
            1
        };
        if w.text == "--" {
            break;
        }
    }
    n.min(args.len())
}

/// `find … -exec CMD … ;` runs CMD: it must pass the rules too.
fn find_exec(words: &[Word], depth: u8, out: &mut ShellCommand) {
    let mut i = 0;
    while i < words.len() {
        if matches!(
            words[i].text.as_str(),
            "-exec" | "-execdir" | "-ok" | "-okdir"
        ) {
            let start = i + 1;
            let mut end = start;
            while end < words.len() && words[end].text != ";" && words[end].text != "+" {
                end += 1;
            }
            if end > start {
                unwrap_into(
                    SimpleCommand {
                        words: words[start..end].to_vec(),
                        ..SimpleCommand::default()
                    },
                    depth + 1,
                    out,
                );
            }
            i = end;
        }
        i += 1;
    }
}

/// `/usr/bin/git` → `git`.
pub fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
