//! `read_file`: a numbered window of a text file.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use schemars::JsonSchema;
use serde::Deserialize;

use super::{READS, blocking, definition, impl_tool};
use crate::args::lenient_u64;
use crate::beneath;
use crate::budget;
use crate::confine::{ConfinedPath, confine_readable};
use crate::error::ToolError;
use crate::fsio::{BINARY_PROBE_BYTES, looks_binary, not_found};
use crate::tool::{ToolContext, ToolDefinition, ToolOutput};

const DEFAULT_LIMIT: u64 = 2000;
const MAX_LINE_CHARS: usize = 2000;
/// Room kept under the budget for the closing note.
const NOTE_RESERVE: usize = 120;

const DESCRIPTION: &str = "Read a text file from the workspace. Returns numbered lines as `N<TAB>text` \
(1-based). Use offset and limit to page through long files; lines longer than 2000 characters are cut. \
Binary files are refused. Read a file before editing it.";

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReadFileArgs {
    /// File path, relative to the workspace root.
    path: String,
    /// First line to read, 1-based. Default 1.
    #[serde(default, deserialize_with = "lenient_u64")]
    offset: Option<u64>,
    /// Maximum number of lines to read. Default 2000.
    #[serde(default, deserialize_with = "lenient_u64")]
    limit: Option<u64>,
}

pub struct ReadFileTool {
    def: ToolDefinition,
}

impl ReadFileTool {
    pub fn new() -> Self {
        ReadFileTool {
            def: definition::<ReadFileArgs>("read_file", DESCRIPTION, READS, "Reading files"),
        }
    }

    async fn run(&self, args: ReadFileArgs, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = confine_readable(ctx, &args.path)?;
        if let Some(diagnostics) = &ctx.diagnostics {
            diagnostics.warm(&path.abs);
        }
        let offset = args.offset.unwrap_or(1).max(1);
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1);
        let budget = ctx.max_output_chars;
        if let Some(files) = &ctx.files {
            let text = crate::files::read(files.as_ref(), &path).await?;
            if text.is_empty() {
                return Ok(ToolOutput::ok(
                    "(empty file)",
                    format!("Read 0 lines from {}", path.rel),
                ));
            }
            return numbered(
                &mut std::io::Cursor::new(text),
                &path.rel,
                offset,
                limit,
                budget,
            );
        }
        blocking(move || read_window(&path, offset, limit, budget)).await
    }
}

impl_tool!(ReadFileTool, ReadFileArgs);

fn read_window(
    path: &ConfinedPath,
    offset: u64,
    limit: u64,
    budget: usize,
) -> Result<ToolOutput, ToolError> {
    let rel = &path.rel;
    let read_err = |e| ToolError::io(format!("Cannot read {rel}"), e);
    // Opened once, beneath the workspace root; the type is that of what was opened.
    let mut file = match beneath::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_found(path)),
        Err(e) => return Err(read_err(e)),
    };
    let meta = file.metadata().map_err(read_err)?;
    if meta.is_dir() {
        return Err(ToolError::failed(format!(
            "{rel} is a directory. Use list_dir to see what it contains."
        )));
    }
    if !meta.is_file() {
        // A FIFO or device would block the read or never end.
        return Err(ToolError::failed(format!("{rel} is not a regular file.")));
    }
    let mut probe = Vec::with_capacity(BINARY_PROBE_BYTES);
    (&mut file)
        .take(BINARY_PROBE_BYTES as u64)
        .read_to_end(&mut probe)
        .map_err(read_err)?;
    if probe.is_empty() {
        return Ok(ToolOutput::ok(
            "(empty file)",
            format!("Read 0 lines from {rel}"),
        ));
    }
    if looks_binary(&probe) {
        return Err(ToolError::failed(format!(
            "Cannot read {rel}: it looks like a binary file (NUL byte in the first 8 KB, {} bytes in all). \
Inspect it with bash (e.g. `file` or `xxd | head`) if needed.",
            meta.len()
        )));
    }
    file.seek(SeekFrom::Start(0)).map_err(read_err)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    numbered(&mut reader, rel, offset, limit, budget)
}

/// The numbered window of a text, within the output budget.
fn numbered<R: BufRead>(
    reader: &mut R,
    rel: &str,
    offset: u64,
    limit: u64,
    budget: usize,
) -> Result<ToolOutput, ToolError> {
    let read_err = |e| ToolError::io(format!("Cannot read {rel}"), e);
    let mut out = String::new();
    let mut out_chars = 0usize;
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    let mut shown = 0u64;
    let mut stopped_by_budget = false;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(read_err)? == 0 {
            break;
        }
        line_no += 1;
        if line_no < offset {
            continue;
        }
        let line = String::from_utf8_lossy(trim_eol(&buf));
        let line = budget::cut_line(&line, MAX_LINE_CHARS);
        let entry = format!("{line_no}\t{line}\n");
        let entry_chars = entry.chars().count();
        if out_chars + entry_chars + NOTE_RESERVE > budget && shown > 0 {
            stopped_by_budget = true;
            break;
        }
        out.push_str(&entry);
        out_chars += entry_chars;
        shown += 1;
        if shown == limit {
            break;
        }
    }
    if shown == 0 {
        return Err(ToolError::failed(format!(
            "Offset {offset} is past the end of {rel} ({line_no} lines)."
        )));
    }
    let next = offset + shown;
    if stopped_by_budget {
        out.push_str(&format!(
            "… [file truncated: output budget reached after line {}; continue with offset={next}]\n",
            next - 1
        ));
    } else if shown == limit && !reader.fill_buf().map_err(read_err)?.is_empty() {
        out.push_str(&format!(
            "… [more lines follow; continue with offset={next}]\n"
        ));
    }
    Ok(ToolOutput::ok(
        out,
        format!("Read {shown} lines from {rel}"),
    ))
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::testing::ws;
    use crate::tool::Tool;
    use serde_json::json;

    #[tokio::test]
    async fn numbered_lines_and_summary() {
        let w = ws();
        w.write("src/a.rs", "fn main() {\r\n    println!(\"hi\");\r\n}\n");
        let out = w
            .call(&ReadFileTool::new(), json!({"path": "src/a.rs"}))
            .await;
        assert!(out.success);
        assert_eq!(
            out.content,
            "1\tfn main() {\n2\t    println!(\"hi\");\n3\t}\n"
        );
        assert_eq!(out.summary, "Read 3 lines from src/a.rs");
        assert!(!out.mutated);
    }

    #[tokio::test]
    async fn offset_and_limit_page_through() {
        let w = ws();
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        w.write("f.txt", &text);
        let tool = ReadFileTool::new();
        let out = w
            .call(&tool, json!({"path": "f.txt", "offset": 4, "limit": "2"}))
            .await;
        assert_eq!(
            out.content,
            "4\tline 4\n5\tline 5\n… [more lines follow; continue with offset=6]\n"
        );
        assert_eq!(out.summary, "Read 2 lines from f.txt");
        let out = w.call(&tool, json!({"path": "f.txt", "offset": 9})).await;
        assert_eq!(out.content, "9\tline 9\n10\tline 10\n");
        let out = w.call(&tool, json!({"path": "f.txt", "offset": 50})).await;
        assert!(!out.success);
        assert_eq!(
            out.content,
            "Offset 50 is past the end of f.txt (10 lines)."
        );
    }

    #[tokio::test]
    async fn empty_missing_directory_binary() {
        let w = ws();
        let tool = ReadFileTool::new();
        w.write("empty.txt", "");
        let out = w.call(&tool, json!({"path": "empty.txt"})).await;
        assert_eq!((out.success, out.content.as_str()), (true, "(empty file)"));

        let out = w.call(&tool, json!({"path": "nope.txt"})).await;
        assert!(!out.success);
        assert_eq!(
            out.content,
            format!("File not found: {}", w.path("nope.txt").display())
        );

        std::fs::create_dir_all(w.path("dir")).unwrap();
        let out = w.call(&tool, json!({"path": "dir"})).await;
        assert_eq!(
            out.content,
            "dir is a directory. Use list_dir to see what it contains."
        );

        w.write("img.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let out = w.call(&tool, json!({"path": "img.png"})).await;
        assert!(!out.success);
        assert!(
            out.content
                .starts_with("Cannot read img.png: it looks like a binary file"),
            "{}",
            out.content
        );
    }

    #[tokio::test]
    async fn long_lines_non_utf8_and_budget() {
        let w = ws();
        let tool = ReadFileTool::new();
        w.write("long.txt", format!("{}\nshort\n", "x".repeat(2500)));
        let out = w.call(&tool, json!({"path": "long.txt"})).await;
        assert!(
            out.content
                .starts_with(&format!("1\t{}… [+500 chars]\n", "x".repeat(2000)))
        );
        assert!(out.content.ends_with("2\tshort\n"));

        w.write("latin1.txt", b"caf\xe9\n");
        let out = w.call(&tool, json!({"path": "latin1.txt"})).await;
        assert_eq!(out.content, "1\tcaf\u{fffd}\n");

        let text: String = (1..=5000).map(|i| format!("line number {i}\n")).collect();
        w.write("big.txt", &text);
        let mut small = w.ctx.clone();
        small.max_output_chars = 4000;
        let out = tool.execute(json!({"path": "big.txt"}), &small).await;
        assert!(out.content.chars().count() <= 4000);
        assert!(
            out.content
                .contains("… [file truncated: output budget reached after line"),
            "{}",
            out.content
        );
    }

    #[tokio::test]
    async fn a_50_mb_file_and_a_fifo() {
        let w = ws();
        let line = "0123456789".repeat(10);
        let text: String = (0..500_000).map(|i| format!("{i} {line}\n")).collect();
        assert!(text.len() > 50_000_000);
        w.write("huge.txt", &text);
        let tool = ReadFileTool::new();
        let out = w
            .call(
                &tool,
                json!({"path": "huge.txt", "offset": 499_999, "limit": 5}),
            )
            .await;
        assert!(out.success, "{}", out.content);
        assert_eq!(
            out.content,
            format!("499999\t499998 {line}\n500000\t499999 {line}\n")
        );

        let fifo = w.path("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let out = w.call(&tool, json!({"path": "pipe"})).await;
        assert_eq!(out.content, "pipe is not a regular file.");
    }

    #[tokio::test]
    async fn confinement_and_bad_arguments() {
        let w = ws();
        let tool = ReadFileTool::new();
        let out = w.call(&tool, json!({"path": "../../etc/passwd"})).await;
        assert!(!out.success && out.content.contains("leaves the workspace"));
        let out = w.call(&tool, json!({"offset": 1})).await;
        assert_eq!(
            out.content,
            "Invalid tool arguments: missing field `path`. Regenerate the tool call with valid JSON arguments."
        );
    }
}
