//! Per-pixel signatures for matching (pure): the 7×7 census transform (one bit per
//! neighbour: darker than the centre) and a texture measure (summed absolute second
//! difference along the rows over a window), both on a rectified image with its validity
//! mask. The texture measure ignores linear ramps on purpose: a ramp's census is the same
//! at every position along it (nothing to localise), and smooth shading is the part of an
//! image most likely to differ between two viewpoints.

/// Census radius (7×7 window, 48 neighbour bits).
pub const CENSUS_RADIUS: usize = 3;
/// Bits in one census signature.
pub const CENSUS_BITS: u32 = 48;
/// Signature of a pixel whose census window leaves the valid region (no valid signature
/// has bits above 48 set).
pub const CENSUS_INVALID: u64 = u64::MAX;

/// Writes the census signature of every pixel of `img` (`w × h`, row-major) into `out`;
/// pixels whose 7×7 window touches the border or an invalid pixel get [`CENSUS_INVALID`].
pub fn census_7x7(img: &[u8], valid: &[bool], w: usize, h: usize, out: &mut Vec<u64>) {
    out.clear();
    out.resize(w * h, CENSUS_INVALID);
    let r = CENSUS_RADIUS;
    if w <= 2 * r || h <= 2 * r || img.len() < w * h || valid.len() < w * h {
        return;
    }
    // Rows of invalid pixels per column window, so a pixel is tested in O(1): count the
    // invalid pixels in each 7-row column strip, then in each 7-wide run of strips.
    let mut bad_cols = vec![0u16; w];
    for y in r..h - r {
        bad_cols.iter_mut().for_each(|c| *c = 0);
        for yy in y - r..=y + r {
            let row = &valid[yy * w..(yy + 1) * w];
            for (c, &ok) in bad_cols.iter_mut().zip(row) {
                *c += u16::from(!ok);
            }
        }
        let mut bad: u16 = bad_cols[..2 * r].iter().sum();
        for x in r..w - r {
            bad += bad_cols[x + r];
            if bad == 0 {
                let c = img[y * w + x];
                let mut sig = 0u64;
                for yy in y - r..=y + r {
                    let row = &img[yy * w + x - r..=yy * w + x + r];
                    for (dx, &p) in row.iter().enumerate() {
                        if yy == y && dx == r {
                            continue;
                        }
                        sig = (sig << 1) | u64::from(p < c);
                    }
                }
                out[y * w + x] = sig;
            }
            bad -= bad_cols[x - r];
        }
    }
}

/// Writes, for every pixel, the sum over the `(2·radius+1)²` window of
/// `|I(x+1, y) − 2·I(x, y) + I(x−1, y)|` (0 where the window leaves the image) into `out`:
/// the texture along the rows that block matching can lock onto.
pub fn texture_sum(img: &[u8], w: usize, h: usize, radius: usize, out: &mut Vec<u32>) {
    out.clear();
    out.resize(w * h, 0);
    if w < 3 || h == 0 || img.len() < w * h || w <= 2 * radius + 2 || h <= 2 * radius {
        return;
    }
    let mut grad = vec![0u32; w * h];
    for y in 0..h {
        let row = &img[y * w..(y + 1) * w];
        for x in 1..w - 1 {
            let second = i32::from(row[x + 1]) - 2 * i32::from(row[x]) + i32::from(row[x - 1]);
            grad[y * w + x] = second.unsigned_abs();
        }
    }
    // Box sum: rows, then columns.
    let mut rows = vec![0u32; w * h];
    for y in 0..h {
        let g = &grad[y * w..(y + 1) * w];
        let mut s: u32 = g[..2 * radius].iter().sum();
        for x in radius..w - radius {
            s += g[x + radius];
            rows[y * w + x] = s;
            s -= g[x - radius];
        }
    }
    for x in 0..w {
        let mut s: u32 = (0..2 * radius).map(|y| rows[y * w + x]).sum();
        for y in radius..h - radius {
            s += rows[(y + radius) * w + x];
            out[y * w + x] = s;
            s -= rows[(y - radius) * w + x];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn census_bits_follow_the_definition_and_masks_invalidate() {
        let (w, h) = (9, 8);
        // Pseudo-random pixels from a fixed LCG.
        let mut s = 12345u32;
        let img: Vec<u8> = (0..w * h)
            .map(|_| {
                s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (s >> 16) as u8
            })
            .collect();
        let mut valid = vec![true; w * h];
        let mut out = Vec::new();
        census_7x7(&img, &valid, w, h, &mut out);
        // Direct definition at (4, 4): neighbours in row-major order, centre skipped.
        let (x, y) = (4, 4);
        let c = img[y * w + x];
        let mut want = 0u64;
        for yy in y - 3..=y + 3 {
            for xx in x - 3..=x + 3 {
                if (xx, yy) != (x, y) {
                    want = (want << 1) | u64::from(img[yy * w + xx] < c);
                }
            }
        }
        assert_eq!(out[y * w + x], want);
        assert_eq!(out[0], CENSUS_INVALID);
        assert_eq!(out[y * w + 2], CENSUS_INVALID);
        // One invalid pixel invalidates every window that contains it, and only those.
        valid[2 * w + 6] = false;
        census_7x7(&img, &valid, w, h, &mut out);
        for yy in 3..h - 3 {
            for xx in 3..w - 3 {
                let touches = (yy as i32 - 2).abs() <= 3 && (xx as i32 - 6).abs() <= 3;
                assert_eq!(out[yy * w + xx] == CENSUS_INVALID, touches, "({xx},{yy})");
            }
        }
    }

    #[test]
    fn texture_is_zero_on_flat_and_ramps_and_counts_a_step_edge() {
        let (w, h) = (12, 7);
        let flat = vec![90u8; w * h];
        let mut out = Vec::new();
        texture_sum(&flat, w, h, 1, &mut out);
        assert!(out.iter().all(|&t| t == 0));
        let ramp: Vec<u8> = (0..w * h).map(|i| (10 * (i % w)) as u8).collect();
        texture_sum(&ramp, w, h, 1, &mut out);
        assert!(out.iter().all(|&t| t == 0));
        // A vertical step of 40 between columns 5 and 6: the second difference is −40 at
        // x = 5 and +40 at x = 6; a 3×3 window centred at x = 6 covers both in 3 rows.
        let step: Vec<u8> = (0..w * h)
            .map(|i| if i % w >= 6 { 130 } else { 90 })
            .collect();
        texture_sum(&step, w, h, 1, &mut out);
        assert_eq!(out[3 * w + 6], 2 * 40 * 3);
        assert_eq!(out[3 * w + 9], 0);
    }
}
