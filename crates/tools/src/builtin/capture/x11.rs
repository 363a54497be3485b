//! X11 capture over the X protocol itself (x11rb's pure-Rust connection): one
//! `GetImage` of the root window, cropped to the RandR monitor asked for. No
//! helper program and no libxcb to link; Xvfb and XWayland answer it too.

use x11rb::connection::Connection;
use x11rb::protocol::randr::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, ImageOrder};

use super::{Capture, Rgb};

/// A screen region: the whole root window or one monitor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Region {
    pub x: i16,
    pub y: i16,
    pub width: u16,
    pub height: u16,
}

fn connect(display: &str) -> Result<(x11rb::rust_connection::RustConnection, usize), String> {
    x11rb::connect(Some(display))
        .map_err(|e| format!("cannot connect to the X display {display}: {e}"))
}

/// The monitors of the display (RandR), else the root window as one.
fn monitors(
    conn: &x11rb::rust_connection::RustConnection,
    root: u32,
    whole: Region,
) -> Vec<Region> {
    let listed = conn
        .randr_get_monitors(root, true)
        .ok()
        .and_then(|c| c.reply().ok())
        .map(|r| {
            let mut ms = r.monitors;
            // The primary monitor is index 0, the rest left to right.
            ms.sort_by_key(|m| (!m.primary, m.x, m.y));
            ms.into_iter()
                .map(|m| Region {
                    x: m.x,
                    y: m.y,
                    width: m.width,
                    height: m.height,
                })
                .filter(|m| m.width > 0 && m.height > 0)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if listed.is_empty() {
        vec![whole]
    } else {
        listed
    }
}

/// What `doctor` says: the display, its size and monitor count.
pub(crate) fn describe(display: &str) -> Result<String, String> {
    let (conn, n) = connect(display)?;
    let screen = conn
        .setup()
        .roots
        .get(n)
        .ok_or_else(|| format!("the X display {display} has no screen {n}"))?;
    let whole = Region {
        x: 0,
        y: 0,
        width: screen.width_in_pixels,
        height: screen.height_in_pixels,
    };
    let count = monitors(&conn, screen.root, whole).len();
    Ok(format!(
        "X11 display {display} ({}x{}, {count} monitor(s)), read with GetImage",
        whole.width, whole.height
    ))
}

/// Monitor `index` of `display` as RGB.
pub(crate) fn capture(display: &str, index: usize) -> Result<Capture, String> {
    let (conn, n) = connect(display)?;
    let setup = conn.setup();
    let screen = setup
        .roots
        .get(n)
        .ok_or_else(|| format!("the X display {display} has no screen {n}"))?;
    let whole = Region {
        x: 0,
        y: 0,
        width: screen.width_in_pixels,
        height: screen.height_in_pixels,
    };
    let all = monitors(&conn, screen.root, whole);
    let region = *all.get(index).ok_or_else(|| {
        format!(
            "monitor_index {index} does not exist: the display has {} monitor(s) (0-{}).",
            all.len(),
            all.len() - 1
        )
    })?;
    let reply = conn
        .get_image(
            ImageFormat::Z_PIXMAP,
            screen.root,
            region.x,
            region.y,
            region.width,
            region.height,
            u32::MAX,
        )
        .map_err(|e| format!("GetImage failed: {e}"))?
        .reply()
        .map_err(|e| format!("GetImage failed: {e}"))?;
    let format = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == reply.depth)
        .ok_or_else(|| format!("no pixmap format for depth {}", reply.depth))?;
    let bpp = usize::from(format.bits_per_pixel);
    let pad = usize::from(format.scanline_pad).max(8);
    let (w, h) = (usize::from(region.width), usize::from(region.height));
    let stride = (w * bpp).div_ceil(pad) * pad / 8;
    if bpp != 32 && bpp != 24 {
        return Err(format!(
            "the X display uses {bpp} bits per pixel; only 24 and 32 are supported"
        ));
    }
    if reply.data.len() < stride * h {
        return Err("the X server returned a short image".into());
    }
    let lsb = setup.image_byte_order == ImageOrder::LSB_FIRST;
    let step = bpp / 8;
    let mut pixels = Vec::with_capacity(w * h * 3);
    for row in reply.data.chunks(stride).take(h) {
        for px in row[..w * step].chunks_exact(step) {
            // 0x00RRGGBB in the server's byte order.
            if lsb {
                pixels.extend_from_slice(&[px[2], px[1], px[0]]);
            } else {
                let o = step - 3;
                pixels.extend_from_slice(&[px[o], px[o + 1], px[o + 2]]);
            }
        }
    }
    Ok(Capture {
        image: Rgb {
            width: u32::from(region.width),
            height: u32::from(region.height),
            pixels,
        },
        monitor: index,
        origin: (i32::from(region.x), i32::from(region.y)),
    })
}
