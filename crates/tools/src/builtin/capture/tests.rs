use super::*;
use seekclaw_testkit::{Xvfb, capability_missing, program_missing};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ChangeWindowAttributesAux, ConnectionExt as _};

fn gradient(w: u32, h: u32) -> Rgb {
    let mut pixels = Vec::new();
    for y in 0..h {
        for x in 0..w {
            pixels.extend_from_slice(&[(x % 256) as u8, (y % 256) as u8, 7]);
        }
    }
    Rgb {
        width: w,
        height: h,
        pixels,
    }
}

#[test]
fn limits_keep_the_aspect_and_never_scale_up() {
    assert_eq!(ImageLimits::ANTHROPIC.fit(800, 600), (800, 600));
    assert_eq!(ImageLimits::ANTHROPIC.fit(1920, 1080), (1429, 804));
    assert_eq!(ImageLimits::OPENAI.fit(1920, 1080), (1672, 940));
    assert_eq!(ImageLimits::OPENAI.fit(4000, 100), (2048, 51));
}

#[test]
fn downscale_averages_and_png_round_trips() {
    let img = Rgb {
        width: 2,
        height: 2,
        pixels: vec![0, 0, 0, 100, 100, 100, 200, 200, 200, 100, 100, 100],
    };
    assert_eq!(downscale(&img, 1, 1).pixels, [100, 100, 100]);
    let big = gradient(300, 200);
    let small = downscale(&big, 150, 100);
    assert_eq!(
        (small.width, small.height, small.pixels.len()),
        (150, 100, 150 * 100 * 3)
    );
    let png = encode_png(&small).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(decode_png(&png).unwrap(), small);
}

#[test]
fn prepare_scales_and_saves_under_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let capture = Capture {
        image: gradient(1920, 1080),
        monitor: 0,
        origin: (0, 0),
    };
    let shot = prepare(capture, ImageLimits::ANTHROPIC, dir.path()).unwrap();
    assert_eq!((shot.source, shot.sent), ((1920, 1080), (1429, 804)));
    assert!(shot.path.starts_with(dir.path()));
    let saved = decode_png(&std::fs::read(&shot.path).unwrap()).unwrap();
    assert_eq!((saved.width, saved.height), (1429, 804));
}

#[test]
fn x11_capture_reads_the_screen_and_a_dead_display_is_an_error() {
    let err = x11::capture(":29871", 0).unwrap_err();
    assert!(
        err.starts_with("cannot connect to the X display :29871"),
        "{err}"
    );
    if capability_missing("xvfb", program_missing("Xvfb")) {
        return;
    }
    let xvfb = Xvfb::start(640, 480).unwrap();
    // Paint the root window a known colour, through a connection of our own.
    let (conn, n) = x11rb::connect(Some(xvfb.display())).unwrap();
    let root = conn.setup().roots[n].root;
    conn.change_window_attributes(
        root,
        &ChangeWindowAttributesAux::new().background_pixel(0x00_30_a0_f0),
    )
    .unwrap();
    conn.clear_area(false, root, 0, 0, 0, 0).unwrap();
    conn.get_input_focus().unwrap().reply().unwrap();
    let shot = x11::capture(xvfb.display(), 0).unwrap();
    assert_eq!((shot.image.width, shot.image.height), (640, 480));
    assert_eq!(&shot.image.pixels[..3], &[0x30, 0xa0, 0xf0]);
    assert_eq!(shot.image.pixels.len(), 640 * 480 * 3);
    let err = x11::capture(xvfb.display(), 3).unwrap_err();
    assert!(
        err.starts_with("monitor_index 3 does not exist: the display has 1 monitor(s)"),
        "{err}"
    );
    assert!(
        x11::describe(xvfb.display())
            .unwrap()
            .contains("640x480, 1 monitor(s)")
    );
}
