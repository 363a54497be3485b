//! Source-like text and a generated workspace tree: 50,000 files in nested
//! directories with a `.gitignore`, a known number of needle lines in searched
//! files and more in ignored ones (so an ignore bug shows as a wrong count).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

/// The grep pattern: a literal no generated identifier can form ("jitter" is
/// not in the vocabulary).
pub const NEEDLE: &str = "retry_backoff_jitter";
pub const TOTAL_FILES: usize = 50_000;

const WORDS: &[&str] = &[
    "config", "state", "buffer", "index", "entry", "value", "result", "error", "path", "file",
    "name", "count", "offset", "limit", "token", "session", "request", "response", "handler",
    "stream", "event", "queue", "cache", "store", "reader", "writer", "parse", "build", "load",
    "save", "open", "close", "send", "recv", "item", "node", "tree", "list", "map", "key", "line",
    "chunk", "frame", "header", "body", "client", "server", "worker", "task", "timer", "retry",
    "backoff", "delay", "lock", "guard", "root", "child", "parent", "len", "size",
];
const TYPES: &[&str] = &[
    "String",
    "Vec<u8>",
    "usize",
    "u64",
    "bool",
    "Config",
    "Session",
    "PathBuf",
    "Request",
    "Response",
    "Option<String>",
    "Arc<State>",
    "HashMap<String, Value>",
    "Duration",
];
const EXTS: &[&str] = &["rs", "rs", "rs", "py", "ts", "go", "md"];
const AREAS: &[&str] = &[
    "api", "core", "util", "net", "db", "ui", "cli", "model", "io", "auth",
];

fn word(rng: &mut fastrand::Rng) -> &'static str {
    WORDS[rng.usize(..WORDS.len())]
}

fn ident(rng: &mut fastrand::Rng, out: &mut String) {
    out.push_str(word(rng));
    if rng.bool() {
        out.push('_');
        out.push_str(word(rng));
    }
}

fn ty(rng: &mut fastrand::Rng) -> &'static str {
    TYPES[rng.usize(..TYPES.len())]
}

/// Appends one line of Rust-looking code (about 40 bytes on average).
pub fn line(rng: &mut fastrand::Rng, out: &mut String) {
    let indent = ["", "    ", "    ", "        ", "            "][rng.usize(..5)];
    out.push_str(indent);
    match rng.u8(..10) {
        0 => {
            out.push_str("let ");
            ident(rng, out);
            out.push_str(" = ");
            ident(rng, out);
            out.push('.');
            ident(rng, out);
            let _ = write!(out, "({});", rng.u32(..1000));
        }
        1 => {
            out.push_str("if ");
            ident(rng, out);
            let _ = write!(out, ".len() > {} {{", rng.u32(..64));
        }
        2 => out.push('}'),
        3 => {
            out.push_str("// ");
            for _ in 0..rng.usize(3..9) {
                out.push_str(word(rng));
                out.push(' ');
            }
        }
        4 => {
            out.push_str("pub fn ");
            ident(rng, out);
            out.push('(');
            ident(rng, out);
            let _ = write!(out, ": &{}) -> Result<{}, Error> {{", ty(rng), ty(rng));
        }
        5 => {
            out.push_str("use crate::");
            out.push_str(word(rng));
            let _ = write!(out, "::{};", ty(rng));
        }
        6 => {
            out.push_str("self.");
            ident(rng, out);
            out.push_str(".insert(");
            ident(rng, out);
            out.push_str(".clone(), \"");
            out.push_str(word(rng));
            out.push_str("\");");
        }
        7 => {
            out.push_str("return Ok(");
            ident(rng, out);
            out.push_str(");");
        }
        8 => out.push_str(""),
        _ => {
            ident(rng, out);
            out.push_str(": ");
            out.push_str(ty(rng));
            out.push(',');
        }
    }
    out.push('\n');
}

/// `lines` lines of source-like text.
pub fn text(rng: &mut fastrand::Rng, lines: usize) -> String {
    let mut out = String::with_capacity(lines * 44);
    for _ in 0..lines {
        line(rng, &mut out);
    }
    out
}

const NEEDLE_LINE: &str = "        let delay = retry_backoff_jitter(attempt, base);\n";

/// A source file of 10-80 lines, with the needle line when `needle`.
fn file(rng: &mut fastrand::Rng, needle: bool) -> String {
    let n = rng.usize(10..80);
    let at = rng.usize(..n);
    let mut out = String::with_capacity(n * 44 + NEEDLE_LINE.len());
    for i in 0..n {
        if needle && i == at {
            out.push_str(NEEDLE_LINE);
        }
        line(rng, &mut out);
    }
    out
}

/// What was generated.
pub struct Tree {
    pub files: usize,
    pub bytes: u64,
    /// Needle lines in files `grep`/`rg` must search.
    pub expected_matches: usize,
    /// Needle lines in ignored files (must not be found).
    pub ignored_matches: usize,
}

/// Writes the tree under `root`:
/// `crate_TT/<area>/part_P/<area>_F.<ext>` (20×10×5×48 searched files) plus one
/// `debug_P.log` per leaf directory, `crate_TT/generated/` (40 files each) and a
/// top-level `target/` (200 files), all three ignored by the `.gitignore`.
pub fn generate(root: &Path) -> Result<Tree> {
    let mut rng = fastrand::Rng::with_seed(0x5eec1a);
    let mut tree = Tree {
        files: 0,
        bytes: 0,
        expected_matches: 0,
        ignored_matches: 0,
    };
    let put = |rel: String, text: String, tree: &mut Tree| -> Result<()> {
        std::fs::write(root.join(rel), &text)?;
        tree.files += 1;
        tree.bytes += text.len() as u64;
        Ok(())
    };
    put(
        ".gitignore".into(),
        "# build output and generated code\n/target/\ngenerated/\n*.log\n".into(),
        &mut tree,
    )?;
    let mut searched = 0usize;
    for t in 0..20 {
        for area in AREAS {
            for p in 0..5 {
                let dir = format!("crate_{t:02}/{area}/part_{p}");
                std::fs::create_dir_all(root.join(&dir))?;
                for f in 0..48 {
                    let needle = searched.is_multiple_of(97);
                    searched += 1;
                    tree.expected_matches += usize::from(needle);
                    let ext = EXTS[rng.usize(..EXTS.len())];
                    put(
                        format!("{dir}/{area}_{f}.{ext}"),
                        file(&mut rng, needle),
                        &mut tree,
                    )?;
                }
                tree.ignored_matches += 1;
                put(
                    format!("{dir}/debug_{p}.log"),
                    file(&mut rng, true),
                    &mut tree,
                )?;
            }
        }
        std::fs::create_dir_all(root.join(format!("crate_{t:02}/generated")))?;
        for f in 0..40 {
            tree.ignored_matches += 1;
            put(
                format!("crate_{t:02}/generated/gen_{f}.rs"),
                file(&mut rng, true),
                &mut tree,
            )?;
        }
    }
    std::fs::create_dir_all(root.join("target"))?;
    // One fewer: the `.gitignore` makes the total 50,000.
    for f in 0..199 {
        tree.ignored_matches += 1;
        put(
            format!("target/out_{f}.rs"),
            file(&mut rng, true),
            &mut tree,
        )?;
    }
    Ok(tree)
}
