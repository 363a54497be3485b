//! `capture_screen`: a PNG of the screen, attached to the tool result as an
//! image. X11 is read over the X protocol (x11rb `GetImage`: nothing to
//! install, works on Xvfb); Wayland goes through `grim`, macOS through
//! `screencapture`. The picture is scaled to the model's image limits, saved
//! under the workspace cache (`.seekclaw/cache/screenshots/`) and attached.

mod image;
#[cfg(all(unix, not(target_os = "macos")))]
mod x11;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{blocking, definition, impl_tool};
use crate::args::lenient_u64;
use crate::error::ToolError;
use crate::tool::{ImageLimits, ToolContext, ToolDefinition, ToolFlags, ToolImage, ToolOutput};

pub(crate) use image::{decode_png, downscale, encode_png};

const DESCRIPTION: &str = "Take a screenshot of the user's screen and look at it. `monitor_index` \
(default 0, the primary monitor) picks the monitor; `description` says what you are looking for. \
The image is attached to the result.";

const FLAGS: ToolFlags = ToolFlags {
    mutating: false,
    network: false,
    vision: true,
    display: true,
    parallel_safe: false,
};

/// An 8-bit RGB image, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgb {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width × height × 3` bytes.
    pub pixels: Vec<u8>,
}

/// One monitor's picture.
#[derive(Debug, Clone)]
pub(crate) struct Capture {
    pub image: Rgb,
    pub monitor: usize,
    /// Top-left corner on the virtual screen.
    pub origin: (i32, i32),
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CaptureScreenArgs {
    /// What you want to see or check on the screen.
    #[serde(default)]
    description: Option<String>,
    /// Which monitor, 0-based (0: the primary). Default 0.
    #[serde(default, deserialize_with = "lenient_u64")]
    monitor_index: Option<u64>,
}

pub struct CaptureScreenTool {
    def: ToolDefinition,
}

impl CaptureScreenTool {
    pub fn new() -> Self {
        CaptureScreenTool {
            def: definition::<CaptureScreenArgs>(
                "capture_screen",
                DESCRIPTION,
                FLAGS,
                "Capturing the screen",
            ),
        }
    }

    async fn run(
        &self,
        args: CaptureScreenArgs,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let index = usize::try_from(args.monitor_index.unwrap_or(0)).unwrap_or(usize::MAX);
        let dir = screenshots_dir(ctx);
        let limits = ctx.image_limits;
        let shot = blocking(move || {
            let capture = capture(index).map_err(ToolError::failed)?;
            Ok(prepare(capture, limits, &dir))
        })
        .await?
        .map_err(ToolError::failed)?;
        let mut content = format!(
            "Screenshot of monitor {} ({}x{} at {},{}), attached as a {}x{} PNG; saved to {}.",
            shot.monitor,
            shot.source.0,
            shot.source.1,
            shot.origin.0,
            shot.origin.1,
            shot.sent.0,
            shot.sent.1,
            shot.path.display()
        );
        if let Some(d) = args
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            content.push_str(&format!("\nLooking for: {d}"));
        }
        let mut out = ToolOutput::ok(
            content,
            format!(
                "Captured monitor {} ({}x{})",
                shot.monitor, shot.sent.0, shot.sent.1
            ),
        );
        out.images.push(ToolImage {
            media_type: "image/png".into(),
            data_base64: base64::engine::general_purpose::STANDARD.encode(&shot.png),
        });
        Ok(out)
    }
}

impl_tool!(CaptureScreenTool, CaptureScreenArgs);

/// A screenshot ready for the model.
pub(crate) struct Shot {
    pub png: Vec<u8>,
    pub path: PathBuf,
    pub monitor: usize,
    pub origin: (i32, i32),
    pub source: (u32, u32),
    pub sent: (u32, u32),
}

/// `<cache>/screenshots`: the workspace's `.seekclaw/cache`, else the temp dir's.
fn screenshots_dir(ctx: &ToolContext) -> PathBuf {
    ctx.cache_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("seekclaw-cache"))
        .join("screenshots")
}

/// Scales, encodes and saves `capture`.
pub(crate) fn prepare(capture: Capture, limits: ImageLimits, dir: &Path) -> Result<Shot, String> {
    let source = (capture.image.width, capture.image.height);
    let (w, h) = limits.fit(source.0, source.1);
    let scaled = downscale(&capture.image, w, h);
    drop(capture.image);
    let png = encode_png(&scaled)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S%.3f");
    let path = dir.join(format!("screen-{stamp}-{:04x}.png", fastrand::u16(..)));
    std::fs::write(&path, &png).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Shot {
        png,
        path,
        monitor: capture.monitor,
        origin: capture.origin,
        source,
        sent: (w, h),
    })
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Whether this process may reach a display: macOS always, elsewhere when
/// `DISPLAY` or `WAYLAND_DISPLAY` is set. (Whether it answers is learnt by
/// capturing: a dead display is a tool error, not a missing tool.)
pub fn display_reachable() -> bool {
    cfg!(target_os = "macos") || env("DISPLAY").is_some() || env("WAYLAND_DISPLAY").is_some()
}

/// How a capture would be taken here, checked for real (connecting to X,
/// finding `grim`); `Err` says why none can be.
pub fn capture_method() -> Result<String, String> {
    if cfg!(target_os = "macos") {
        return which("screencapture")
            .map(|p| format!("macOS {}", p.display()))
            .ok_or_else(|| "screencapture is not on PATH".into());
    }
    if env("WAYLAND_DISPLAY").is_some()
        && let Some(grim) = which("grim")
    {
        return Ok(format!("Wayland, {}", grim.display()));
    }
    match env("DISPLAY") {
        #[cfg(all(unix, not(target_os = "macos")))]
        Some(display) => x11::describe(&display),
        #[cfg(not(all(unix, not(target_os = "macos"))))]
        Some(_) => Err("X11 capture is not built on this platform".into()),
        None if env("WAYLAND_DISPLAY").is_some() => {
            Err("WAYLAND_DISPLAY is set but grim is not on PATH (and DISPLAY is not set)".into())
        }
        None => Err("no display: neither DISPLAY nor WAYLAND_DISPLAY is set".into()),
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// Monitor `index`, by the first mechanism this machine has.
fn capture(index: usize) -> Result<Capture, String> {
    let failed = |why: String| format!("Cannot capture the screen: {why}");
    if cfg!(target_os = "macos") {
        return external(
            &[
                "screencapture",
                "-x",
                "-t",
                "png",
                "-D",
                &(index + 1).to_string(),
            ],
            index,
            true,
        )
        .map_err(failed);
    }
    if env("WAYLAND_DISPLAY").is_some() && which("grim").is_some() {
        if index > 0 {
            return Err(failed(
                "under Wayland only monitor_index 0 (all outputs) can be captured".into(),
            ));
        }
        return external(&["grim", "-t", "png", "-"], index, false).map_err(failed);
    }
    match env("DISPLAY") {
        #[cfg(all(unix, not(target_os = "macos")))]
        Some(display) => x11::capture(&display, index).map_err(failed),
        #[cfg(not(all(unix, not(target_os = "macos"))))]
        Some(_) => Err(failed("X11 capture is not built on this platform".into())),
        None => Err(failed(
            "no display is reachable (neither DISPLAY nor WAYLAND_DISPLAY is set, or grim is missing)"
                .into(),
        )),
    }
}

/// A helper program's PNG: on stdout, or (`to_file`) in a temp file it writes.
fn external(argv: &[&str], index: usize, to_file: bool) -> Result<Capture, String> {
    let program = argv[0];
    let tmp = std::env::temp_dir().join(format!(
        "seekclaw-shot-{}-{:08x}.png",
        std::process::id(),
        fastrand::u32(..)
    ));
    let mut cmd = std::process::Command::new(program);
    cmd.args(&argv[1..]);
    if to_file {
        cmd.arg(&tmp);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!(
            "{program} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let bytes = if to_file {
        let b = std::fs::read(&tmp).map_err(|e| format!("{program} wrote no image: {e}"));
        let _ = std::fs::remove_file(&tmp);
        b?
    } else {
        out.stdout
    };
    let image = decode_png(&bytes)?;
    Ok(Capture {
        image,
        monitor: index,
        origin: (0, 0),
    })
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
