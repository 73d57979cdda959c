//! Reading a whole frame as overlapping squares at the camera's own resolution. PP-OCRv4's
//! detector misses small, far text in a whole 1408² frame that it finds in a 640² square
//! of the same pixels (a synthetic "EXIT" 16 m away: found in every 640² square, in one of
//! six whole frames at 1408 px and none at 960 px), so a whole-frame read on request reads
//! the frame square by square, the squares nearest the middle (where the head points)
//! first, handing each square's lines on as soon as it is read. Squares overlap by at least
//! a quarter of their side, so a line cut by one square's inner edge is whole in another:
//! lines that may be cut (touching an inner edge, or ending within two line heights of a
//! side edge: the words beyond it may be lost, "Gate" of "Gate 12") wait until the end, and
//! are handed on only if no whole line took their place. A line seen in two squares (boxes overlapping by half the smaller one)
//! is handed on once.

use super::engine::{OcrEngine, TextLine};
use super::error::OcrError;
use super::image::BgrImage;
use super::roi::PixelRect;

/// Where squares of `tile` pixels start along a side of `len` pixels: evenly spread, the
/// first at 0 and the last at the end, overlapping by at least `tile / 4`.
pub fn tile_starts(len: u32, tile: u32) -> Vec<u32> {
    let tile = tile.max(1);
    if len <= tile {
        return vec![0];
    }
    let overlap = tile / 4;
    let step = (tile - overlap).max(1);
    let n = (len - overlap).div_ceil(step).max(2);
    let span = f64::from(len - tile);
    (0..n)
        .map(|i| (span * f64::from(i) / f64::from(n - 1)).round() as u32)
        .collect()
}

/// The squares covering a `width × height` image, nearest the middle first.
pub fn tiles(width: u32, height: u32, tile: u32) -> Vec<PixelRect> {
    let (tw, th) = (tile.min(width), tile.min(height));
    let mut out = Vec::new();
    for y0 in tile_starts(height, th) {
        for x0 in tile_starts(width, tw) {
            out.push(PixelRect {
                x0,
                y0,
                w: tw,
                h: th,
            });
        }
    }
    let off_centre = |r: &PixelRect| {
        let dx = i64::from(2 * r.x0 + r.w) - i64::from(width);
        let dy = i64::from(2 * r.y0 + r.h) - i64::from(height);
        dx * dx + dy * dy
    };
    out.sort_by_key(off_centre);
    out
}

/// A line this close to a top or bottom inner edge of its square may be cut by it, pixels.
const EDGE_PX: f32 = 2.0;
/// ... and this many line heights from a side edge (a word beyond it may be lost).
const SIDE_LINE_HEIGHTS: f32 = 2.0;

/// Whether `l` (in the image's pixels) may be cut by an edge of `r` that is not the
/// image's.
fn cut_by(l: &TextLine, r: &PixelRect, width: u32, height: u32) -> bool {
    let b = bounds(l);
    let side = (SIDE_LINE_HEIGHTS * (b[3] - b[1])).max(EDGE_PX);
    let (x0, y0) = (r.x0 as f32, r.y0 as f32);
    let (x1, y1) = ((r.x0 + r.w) as f32, (r.y0 + r.h) as f32);
    (r.x0 > 0 && b[0] <= x0 + side)
        || (r.y0 > 0 && b[1] <= y0 + EDGE_PX)
        || (r.x0 + r.w < width && b[2] >= x1 - side)
        || (r.y0 + r.h < height && b[3] >= y1 - EDGE_PX)
}

fn bounds(l: &TextLine) -> [f32; 4] {
    let xs = l.quad.iter().map(|p| p[0]);
    let ys = l.quad.iter().map(|p| p[1]);
    [
        xs.clone().fold(f32::INFINITY, f32::min),
        ys.clone().fold(f32::INFINITY, f32::min),
        xs.fold(f32::NEG_INFINITY, f32::max),
        ys.fold(f32::NEG_INFINITY, f32::max),
    ]
}

fn area(b: [f32; 4]) -> f32 {
    (b[2] - b[0]).max(0.0) * (b[3] - b[1]).max(0.0)
}

/// Whether two lines' boxes overlap by at least half the smaller box.
fn same_line(a: &TextLine, b: &TextLine) -> bool {
    let (p, q) = (bounds(a), bounds(b));
    let i = [
        p[0].max(q[0]),
        p[1].max(q[1]),
        p[2].min(q[2]),
        p[3].min(q[3]),
    ];
    let small = area(p).min(area(q));
    small > 0.0 && area(i) >= 0.5 * small
}

/// Keeps each line once (see the module documentation), in first-seen order.
pub fn merge_lines(lines: Vec<TextLine>) -> Vec<TextLine> {
    let mut kept: Vec<TextLine> = Vec::with_capacity(lines.len());
    for l in lines {
        match kept.iter_mut().find(|k| same_line(k, &l)) {
            Some(k) => {
                let better = (area(bounds(&l)), l.confidence) > (area(bounds(k)), k.confidence);
                if better {
                    *k = l;
                }
            }
            None => kept.push(l),
        }
    }
    kept
}

/// Reads all of `img` square by square (`tile` pixels a side), handing each square's new
/// lines to `on_lines` as soon as it is read (boxes in `img`'s pixels); see the module
/// documentation.
pub fn read_tiled_each(
    engine: &mut OcrEngine,
    img: &BgrImage,
    tile: u32,
    on_lines: &mut dyn FnMut(Vec<TextLine>),
) -> Result<(), OcrError> {
    let (w, h) = (img.width(), img.height());
    let mut given: Vec<TextLine> = Vec::new();
    let mut cut: Vec<TextLine> = Vec::new();
    for r in tiles(w, h, tile) {
        let crop = img.crop(r.x0, r.y0, r.w, r.h)?;
        let mut new = Vec::new();
        for mut l in engine.read(&crop)? {
            for p in &mut l.quad {
                p[0] += r.x0 as f32;
                p[1] += r.y0 as f32;
            }
            if cut_by(&l, &r, w, h) {
                cut.push(l);
            } else if !given.iter().chain(&new).any(|g| same_line(g, &l)) {
                new.push(l);
            }
        }
        if !new.is_empty() {
            given.extend(new.iter().cloned());
            on_lines(new);
        }
    }
    let rest: Vec<TextLine> = merge_lines(cut)
        .into_iter()
        .filter(|l| !given.iter().any(|g| same_line(g, l)))
        .collect();
    if !rest.is_empty() {
        on_lines(rest);
    }
    Ok(())
}

/// [`read_tiled_each`], all lines at once.
pub fn read_tiled(
    engine: &mut OcrEngine,
    img: &BgrImage,
    tile: u32,
) -> Result<Vec<TextLine>, OcrError> {
    let mut lines = Vec::new();
    read_tiled_each(engine, img, tile, &mut |l| lines.extend(l))?;
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, b: [f32; 4], confidence: f32) -> TextLine {
        TextLine {
            quad: [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]],
            text: text.into(),
            confidence,
            det_score: 0.9,
        }
    }

    #[test]
    fn squares_cover_the_frame_with_overlap() {
        assert_eq!(tile_starts(1408, 640), vec![0, 384, 768]);
        assert_eq!(tile_starts(640, 640), vec![0]);
        assert_eq!(tile_starts(300, 640), vec![0]);
        assert_eq!(tile_starts(700, 640), vec![0, 60]);
        for (len, tile) in [(1408u32, 640u32), (2880, 640), (1408, 768), (1000, 333)] {
            let s = tile_starts(len, tile);
            assert_eq!(*s.first().unwrap(), 0);
            assert_eq!(s.last().unwrap() + tile, len);
            for w in s.windows(2) {
                assert!(w[1] - w[0] <= tile - tile / 4, "{len} {tile}: {s:?}");
            }
        }
        let t = tiles(1408, 1408, 640);
        assert_eq!(t.len(), 9);
        assert!(t.iter().all(|r| r.w == 640 && r.h == 640));
        // The middle square first, the corners last.
        assert_eq!((t[0].x0, t[0].y0), (384, 384));
        assert!(t[5..].iter().all(|r| r.x0 != 384 && r.y0 != 384));
        assert_eq!(tiles(300, 200, 640).len(), 1);
    }

    #[test]
    fn lines_on_an_inner_edge_are_cut_unless_the_edge_is_the_image_s() {
        let r = PixelRect {
            x0: 384,
            y0: 0,
            w: 640,
            h: 640,
        };
        let at = |b| line("x", b, 0.9);
        assert!(cut_by(&at([384.0, 100.0, 420.0, 130.0]), &r, 1408, 1408));
        assert!(cut_by(&at([990.0, 100.0, 1024.0, 130.0]), &r, 1408, 1408));
        assert!(cut_by(&at([500.0, 610.0, 540.0, 640.0]), &r, 1408, 1408));
        // Ending 50 px (less than two line heights of 30 px) before a side edge.
        assert!(cut_by(&at([900.0, 100.0, 974.0, 130.0]), &r, 1408, 1408));
        assert!(!cut_by(&at([900.0, 100.0, 960.0, 130.0]), &r, 1408, 1408));
        // The top edge is the image's.
        assert!(!cut_by(&at([500.0, 0.0, 540.0, 30.0]), &r, 1408, 1408));
        assert!(!cut_by(&at([500.0, 100.0, 540.0, 130.0]), &r, 1408, 1408));
    }

    #[test]
    fn a_line_seen_twice_is_kept_once_whole() {
        let cut = line("EX", [500.0, 100.0, 540.0, 130.0], 0.99);
        let whole = line("EXIT", [500.0, 100.0, 580.0, 130.0], 0.95);
        let other = line("Gate 12", [900.0, 400.0, 1000.0, 430.0], 0.9);
        let same_twice = line("Gate 12", [901.0, 401.0, 1000.0, 430.0], 0.95);
        let m = merge_lines(vec![cut, other, whole, same_twice]);
        let texts: Vec<(&str, f32)> = m.iter().map(|l| (l.text.as_str(), l.confidence)).collect();
        assert_eq!(texts, vec![("EXIT", 0.95), ("Gate 12", 0.9)]);
    }
}
