//! RGB images: area-average downscaling and PNG encoding/decoding.

use super::Rgb;

/// `img` scaled down to `width`×`height` by averaging the source pixels each
/// target pixel covers (a box filter: sharp text stays readable, no aliasing).
pub(crate) fn downscale(img: &Rgb, width: u32, height: u32) -> Rgb {
    if (width, height) == (img.width, img.height) {
        return img.clone();
    }
    let (sw, sh) = (img.width as usize, img.height as usize);
    let (dw, dh) = (width.max(1) as usize, height.max(1) as usize);
    // Source column span of every target column, computed once.
    let cols: Vec<(usize, usize)> = (0..dw)
        .map(|x| {
            let x0 = x * sw / dw;
            (x0, ((x + 1) * sw / dw).max(x0 + 1).min(sw))
        })
        .collect();
    let mut out = Vec::with_capacity(dw * dh * 3);
    let mut sums = vec![0u32; dw * 3];
    for y in 0..dh {
        let y0 = y * sh / dh;
        let y1 = ((y + 1) * sh / dh).max(y0 + 1).min(sh);
        sums.iter_mut().for_each(|s| *s = 0);
        for sy in y0..y1 {
            let row = &img.pixels[sy * sw * 3..(sy + 1) * sw * 3];
            for (x, &(x0, x1)) in cols.iter().enumerate() {
                let acc = &mut sums[x * 3..x * 3 + 3];
                for px in row[x0 * 3..x1 * 3].chunks_exact(3) {
                    acc[0] += u32::from(px[0]);
                    acc[1] += u32::from(px[1]);
                    acc[2] += u32::from(px[2]);
                }
            }
        }
        for (x, &(x0, x1)) in cols.iter().enumerate() {
            let n = ((x1 - x0) * (y1 - y0)) as u32;
            for c in 0..3 {
                out.push(((sums[x * 3 + c] + n / 2) / n) as u8);
            }
        }
    }
    Rgb {
        width: dw as u32,
        height: dh as u32,
        pixels: out,
    }
}

/// PNG bytes of `img` (fast compression: a screenshot is sent once).
pub(crate) fn encode_png(img: &Rgb) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(img.pixels.len() / 4);
    let mut encoder = png::Encoder::new(&mut out, img.width, img.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("cannot encode the PNG: {e}"))?;
    writer
        .write_image_data(&img.pixels)
        .map_err(|e| format!("cannot encode the PNG: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("cannot encode the PNG: {e}"))?;
    Ok(out)
}

/// An 8-bit RGB image of PNG `bytes` (what `grim` and `screencapture` write).
pub(crate) fn decode_png(bytes: &[u8]) -> Result<Rgb, String> {
    let bad = |e: png::DecodingError| format!("cannot read the screenshot PNG: {e}");
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(bad)?;
    let size = reader
        .output_buffer_size()
        .ok_or("the screenshot PNG is too large")?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(bad)?;
    buf.truncate(info.buffer_size());
    let channels = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err("an indexed PNG was not expanded".into()),
    };
    let pixels = if channels == 3 {
        buf
    } else {
        buf.chunks_exact(channels)
            .flat_map(|p| match channels {
                1 | 2 => [p[0], p[0], p[0]],
                _ => [p[0], p[1], p[2]],
            })
            .collect()
    };
    Ok(Rgb {
        width: info.width,
        height: info.height,
        pixels,
    })
}
