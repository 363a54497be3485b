//! `edit_file` on a 10 MB file and `read_file` of a window of a 100,000-line
//! file, each against plain std::fs doing the same work in the same run.

use std::hint::black_box;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use seekclaw_tools::{WriteLocks, builtin_registry};
use serde_json::json;

use crate::tree;
use crate::{Row, call, context, median, ms};

const EDIT_BYTES: usize = 10 * 1024 * 1024;
const EDIT_RUNS: usize = 15;
const EDIT_TARGET: Duration = Duration::from_millis(50);
const READ_LINES: usize = 100_000;
const READ_OFFSET: usize = 50_000;
const READ_LIMIT: usize = 200;
const READ_RUNS: usize = 51;
const READ_TARGET: Duration = Duration::from_millis(5);

/// The line each edit flips; it occurs once, in the middle of the file.
fn marker(state: bool) -> String {
    format!("const EDIT_TARGET: u32 = {};", u8::from(state))
}

/// A ~10 MB source-like file with the marker line in the middle.
fn big_file(path: &Path) -> Result<usize> {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut text = String::with_capacity(EDIT_BYTES + 4096);
    while text.len() < EDIT_BYTES / 2 {
        tree::line(&mut rng, &mut text);
    }
    text.push_str(&marker(false));
    text.push('\n');
    while text.len() < EDIT_BYTES {
        tree::line(&mut rng, &mut text);
    }
    std::fs::write(path, &text)?;
    Ok(text.len())
}

/// The baseline: what any edit must do at least — read, replace, write back.
fn plain_edit(path: &Path, from: &str, to: &str) -> Result<()> {
    let text = std::fs::read_to_string(path)?;
    let out = text.replacen(from, to, 1);
    let mut file = std::fs::File::create(path)?;
    file.write_all(out.as_bytes())?;
    Ok(())
}

/// The baseline window: read the file, skip to the offset, number the lines.
fn plain_window(path: &Path, offset: usize, limit: usize) -> Result<String> {
    let bytes = std::fs::read(path)?;
    let mut out = String::new();
    for (i, line) in bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .skip(offset - 1)
        .take(limit)
    {
        out.push_str(&format!("{}\t{}\n", i + 1, String::from_utf8_lossy(line)));
    }
    Ok(out)
}

pub async fn edit_and_read() -> Result<Vec<Row>> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    let registry = builtin_registry();
    let ctx = context(&root, "bench/00000001", Arc::new(WriteLocks::new()), 60_000);

    // edit_file: flip the marker back and forth so the file keeps its size.
    let big = root.join("big.rs");
    let size = big_file(&big)?;
    let (mut ours, mut plain) = (Vec::new(), Vec::new());
    let mut state = false;
    for _ in 0..EDIT_RUNS {
        let args =
            json!({"path": "big.rs", "old_string": marker(state), "new_string": marker(!state)});
        let started = Instant::now();
        let out = call(&registry, "edit_file", args, &ctx).await?;
        ours.push(started.elapsed());
        black_box(out);
        state = !state;
        let started = Instant::now();
        plain_edit(&big, &marker(state), &marker(!state))?;
        plain.push(started.elapsed());
        state = !state;
    }
    if std::fs::read_to_string(&big)?
        .matches(&marker(state))
        .count()
        != 1
    {
        bail!("the edited file lost its marker");
    }
    let (ours, plain) = (median(&mut ours), median(&mut plain));
    println!(
        "edit_file: {:.1} MB file, median {} (plain read+replace+write {})",
        size as f64 / 1e6,
        ms(ours),
        ms(plain)
    );
    let mut rows = vec![Row {
        name: format!("edit_file, 10 MB (median of {EDIT_RUNS})"),
        measured: ms(ours),
        baseline: format!("std {}", ms(plain)),
        target: format!("< {}", ms(EDIT_TARGET)),
        pass: ours < EDIT_TARGET,
    }];

    // read_file: a 200-line window from the middle of a 100,000-line file.
    let mut rng = fastrand::Rng::with_seed(11);
    std::fs::write(root.join("long.rs"), tree::text(&mut rng, READ_LINES))?;
    let args = json!({"path": "long.rs", "offset": READ_OFFSET, "limit": READ_LIMIT});
    let first = call(&registry, "read_file", args.clone(), &ctx).await?;
    let expected = plain_window(&root.join("long.rs"), READ_OFFSET, READ_LIMIT)?;
    if !first.content.starts_with(&expected) {
        bail!("read_file's window differs from the plain read");
    }
    let (mut ours, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..READ_RUNS {
        let started = Instant::now();
        black_box(call(&registry, "read_file", args.clone(), &ctx).await?);
        ours.push(started.elapsed());
        let started = Instant::now();
        black_box(plain_window(
            &root.join("long.rs"),
            READ_OFFSET,
            READ_LIMIT,
        )?);
        plain.push(started.elapsed());
    }
    let (ours, plain) = (median(&mut ours), median(&mut plain));
    println!(
        "read_file: window {READ_OFFSET}+{READ_LIMIT} of {READ_LINES} lines, median {} (plain read+split {})",
        ms(ours),
        ms(plain)
    );
    rows.push(Row {
        name: format!("read_file, 100k lines @50k+200 (median of {READ_RUNS})"),
        measured: ms(ours),
        baseline: format!("std {}", ms(plain)),
        target: format!("< {}", ms(READ_TARGET)),
        pass: ours < READ_TARGET,
    });
    rows.push(small_read(&root).await?);
    Ok(rows)
}

const SMALL_RUNS: usize = 1000;

/// `read_file` of a small file, opened race-free beneath the workspace root
/// (`openat2`), against the same call opening by name (a context with
/// `allowOutsideWorkspace`, which skips the confinement), alternating, median
/// of 1,000 each.
async fn small_read(root: &Path) -> Result<Row> {
    let registry = builtin_registry();
    std::fs::create_dir_all(root.join("src/module"))?;
    std::fs::write(
        root.join("src/module/small.rs"),
        "fn main() {}\n".repeat(20),
    )?;
    let confined = context(root, "bench/00000002", Arc::new(WriteLocks::new()), 60_000);
    let mut by_name = context(root, "bench/00000003", Arc::new(WriteLocks::new()), 60_000);
    by_name.allow_outside_workspace = true;
    let args = json!({"path": "src/module/small.rs"});
    let (mut ours, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..SMALL_RUNS {
        let started = Instant::now();
        black_box(call(&registry, "read_file", args.clone(), &confined).await?);
        ours.push(started.elapsed());
        let started = Instant::now();
        black_box(call(&registry, "read_file", args.clone(), &by_name).await?);
        plain.push(started.elapsed());
    }
    let (ours, plain) = (median(&mut ours), median(&mut plain));
    println!(
        "read_file small: beneath the root {} , by name {}",
        crate::us(ours),
        crate::us(plain)
    );
    Ok(Row {
        name: format!("read_file, small file, race-free (median of {SMALL_RUNS})"),
        measured: crate::us(ours),
        baseline: format!("by name {}", crate::us(plain)),
        target: "report".into(),
        pass: true,
    })
}
