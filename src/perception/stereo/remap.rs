//! [`RemapTable`]: where each pixel of a rectified image comes from in a source image,
//! built once, applied per frame with fixed-point bilinear interpolation (pure compute, no
//! allocation per frame).

/// Fractional bits of the interpolation weights.
const FRAC_BITS: u32 = 8;
/// `1.0` in weight units.
const ONE: u32 = 1 << FRAC_BITS;
/// Marks a rectified pixel that no source pixel covers.
const INVALID: u32 = u32::MAX;

/// One rectified pixel's source: the top-left of its 2×2 source neighbourhood and the
/// bilinear weights of the right column and the bottom row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    /// `y0 · src_width + x0`, or [`INVALID`].
    index: u32,
    /// Weight of column `x0 + 1`, `0..=256`.
    wx: u16,
    /// Weight of row `y0 + 1`, `0..=256`.
    wy: u16,
}

/// Source coordinates of every pixel of a rectified image, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct RemapTable {
    width: u32,
    height: u32,
    src_width: u32,
    src_height: u32,
    entries: Vec<Entry>,
}

impl RemapTable {
    /// A `width × height` table whose pixel `(u, v)` samples the source image
    /// (`src_width × src_height`) at `source(u, v)`, pixel centres at integers; `None`, a
    /// non-finite or an out-of-image coordinate (outside `[0, W−1] × [0, H−1]`) marks the
    /// pixel invalid. Sources narrower or shorter than 2 pixels make every pixel invalid.
    pub fn from_fn(
        width: u32,
        height: u32,
        src_width: u32,
        src_height: u32,
        mut source: impl FnMut(u32, u32) -> Option<[f64; 2]>,
    ) -> Self {
        let mut entries = Vec::with_capacity(width as usize * height as usize);
        let (max_x, max_y) = (f64::from(src_width) - 1.0, f64::from(src_height) - 1.0);
        let usable = src_width >= 2 && src_height >= 2;
        for v in 0..height {
            for u in 0..width {
                let e = source(u, v)
                    .filter(|&[x, y]| {
                        usable && x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0
                    })
                    .filter(|&[x, y]| x <= max_x && y <= max_y)
                    .map_or(
                        Entry {
                            index: INVALID,
                            wx: 0,
                            wy: 0,
                        },
                        |[x, y]| {
                            // The right / bottom neighbour must exist: on the last column or
                            // row, step back one and put the whole weight on it.
                            let x0 = (x.floor() as u32).min(src_width - 2);
                            let y0 = (y.floor() as u32).min(src_height - 2);
                            let wx = ((x - f64::from(x0)) * f64::from(ONE)).round() as u16;
                            let wy = ((y - f64::from(y0)) * f64::from(ONE)).round() as u16;
                            Entry {
                                index: y0 * src_width + x0,
                                wx,
                                wy,
                            }
                        },
                    );
                entries.push(e);
            }
        }
        Self {
            width,
            height,
            src_width,
            src_height,
            entries,
        }
    }

    /// Rectified width, px.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rectified height, px.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Source image size `(width, height)`, px.
    pub fn source_size(&self) -> (u32, u32) {
        (self.src_width, self.src_height)
    }

    /// The source coordinate of rectified pixel `(u, v)` as stored (1/256 px), `None` when
    /// invalid or outside the table.
    pub fn source_px(&self, u: u32, v: u32) -> Option<[f64; 2]> {
        if u >= self.width || v >= self.height {
            return None;
        }
        let e = self
            .entries
            .get(v as usize * self.width as usize + u as usize)?;
        if e.index == INVALID {
            return None;
        }
        let x0 = e.index % self.src_width;
        let y0 = e.index / self.src_width;
        let s = f64::from(ONE);
        Some([
            f64::from(x0) + f64::from(e.wx) / s,
            f64::from(y0) + f64::from(e.wy) / s,
        ])
    }

    /// Validity of every rectified pixel, row-major.
    pub fn valid_mask(&self) -> Vec<bool> {
        self.entries.iter().map(|e| e.index != INVALID).collect()
    }

    /// Number of valid rectified pixels.
    pub fn valid_count(&self) -> usize {
        self.entries.iter().filter(|e| e.index != INVALID).count()
    }

    /// Resamples `src` (greyscale, `src_width × src_height`, row-major) into `out`
    /// (resized to `width × height`); invalid pixels get 0. A source shorter than the table
    /// expects reads as 0 where it is missing (callers check sizes first).
    pub fn apply(&self, src: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.resize(self.entries.len(), 0);
        let sw = self.src_width as usize;
        for (o, e) in out.iter_mut().zip(&self.entries) {
            if e.index == INVALID {
                continue;
            }
            let i = e.index as usize;
            let (Some(top), Some(bottom)) = (src.get(i..i + 2), src.get(i + sw..i + sw + 2)) else {
                continue;
            };
            let (wx, wy) = (u32::from(e.wx), u32::from(e.wy));
            let row = |p: &[u8]| {
                let (a, b) = (p.first().copied(), p.get(1).copied());
                u32::from(a.unwrap_or(0)) * (ONE - wx) + u32::from(b.unwrap_or(0)) * wx
            };
            let v = row(top) * (ONE - wy) + row(bottom) * wy;
            *o = ((v + (1 << (2 * FRAC_BITS - 1))) >> (2 * FRAC_BITS)) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_and_half_pixel_shift_interpolate_exactly() {
        // A 4×3 ramp: value = 10·x + 50·y.
        let src: Vec<u8> = (0..3)
            .flat_map(|y| (0..4).map(move |x| (10 * x + 50 * y) as u8))
            .collect();
        let id = RemapTable::from_fn(4, 3, 4, 3, |u, v| Some([f64::from(u), f64::from(v)]));
        let mut out = Vec::new();
        id.apply(&src, &mut out);
        assert_eq!(out, src);
        // Half a pixel right and down: the mean of four neighbours, a linear ramp's value
        // at the midpoint (10·(x+0.5) + 50·(y+0.5)).
        let half = RemapTable::from_fn(3, 2, 4, 3, |u, v| {
            Some([f64::from(u) + 0.5, f64::from(v) + 0.5])
        });
        half.apply(&src, &mut out);
        let want: Vec<u8> = (0..2)
            .flat_map(|y| (0..3).map(move |x| (10 * x + 5 + 50 * y + 25) as u8))
            .collect();
        assert_eq!(out, want);
        assert_eq!(half.source_px(1, 1), Some([1.5, 1.5]));
    }

    #[test]
    fn outside_or_non_finite_sources_are_invalid_and_black() {
        let t = RemapTable::from_fn(4, 1, 4, 3, |u, _| match u {
            0 => Some([3.0, 2.0]), // the last pixel: valid
            1 => Some([3.01, 0.0]),
            2 => Some([f64::NAN, 0.0]),
            _ => None,
        });
        assert_eq!(t.valid_mask(), vec![true, false, false, false]);
        let src = vec![7u8; 12];
        let mut out = Vec::new();
        t.apply(&src, &mut out);
        assert_eq!(out, vec![7, 0, 0, 0]);
        // A short source does not panic.
        t.apply(&src[..5], &mut out);
        assert_eq!(out.len(), 4);
        // A 1-pixel-wide source cannot be interpolated: all invalid.
        let thin = RemapTable::from_fn(2, 2, 1, 5, |_, _| Some([0.0, 0.0]));
        assert_eq!(thin.valid_count(), 0);
    }
}
