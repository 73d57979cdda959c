//! Corners to track (pure): the Shi–Tomasi score (the smaller eigenvalue of the gradient's
//! structure tensor over a window) on a grid of cells, the strongest corner of each free
//! cell. A cell that already holds a tracked feature gets none, so features spread over
//! the image instead of piling onto one textured patch.

use super::image::Grey;

/// Settings of the detector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CornerConfig {
    /// Side of a grid cell, px.
    pub cell_px: usize,
    /// Half-size of the structure tensor's window, px.
    pub window_r_px: usize,
    /// Smallest accepted score: the smaller eigenvalue of the window's mean structure
    /// tensor, (grey levels / px)².
    pub min_score: f32,
    /// Margin kept from the image border and from invalid pixels, px.
    pub margin_px: usize,
}

impl Default for CornerConfig {
    /// 16 px cells (20 × 16 cells at 320 × 256), a 5 × 5 window, a score of 10 (a corner
    /// of two edges of about 6 grey levels per pixel), 8 px from any border.
    fn default() -> Self {
        Self {
            cell_px: 16,
            window_r_px: 2,
            min_score: 10.0,
            margin_px: 8,
        }
    }
}

/// A corner found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corner {
    /// Position, px.
    pub xy: [f32; 2],
    /// Its score.
    pub score: f32,
}

/// The strongest corner in each grid cell without an `existing` feature, inside `valid` (a
/// mask of the image's pixels, or empty for all valid), strongest first, none within half
/// a cell of a stronger one or of an existing feature.
pub fn detect(
    img: &Grey,
    valid: &[bool],
    existing: &[[f32; 2]],
    cfg: &CornerConfig,
) -> (Vec<Corner>, GridShape) {
    let grid = GridShape::of(img.width, img.height, cfg.cell_px);
    let mut occupied = vec![false; grid.cells()];
    for p in existing {
        occupied[grid.cell_of(p[0], p[1])] = true;
    }
    let mut best: Vec<Option<Corner>> = vec![None; grid.cells()];
    let (w, h) = (img.width, img.height);
    let m = cfg.margin_px.max(cfg.window_r_px + 1);
    if w <= 2 * m || h <= 2 * m {
        return (Vec::new(), grid);
    }
    // Gradients once.
    let mut gx = vec![0f32; w * h];
    let mut gy = vec![0f32; w * h];
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            gx[i] = 0.5 * (img.px[i + 1] - img.px[i - 1]);
            gy[i] = 0.5 * (img.px[i + w] - img.px[i - w]);
        }
    }
    let r = cfg.window_r_px as isize;
    let n = ((2 * r + 1) * (2 * r + 1)) as f32;
    let ok =
        |x: usize, y: usize| valid.is_empty() || valid.get(y * w + x).copied().unwrap_or(false);
    for y in m..h - m {
        for x in m..w - m {
            let c = grid.cell_of(x as f32, y as f32);
            if occupied.get(c).copied().unwrap_or(false) {
                continue;
            }
            // Corners only where the margin around them is valid (corners of the mask).
            if !(ok(x - m, y - m) && ok(x + m, y - m) && ok(x - m, y + m) && ok(x + m, y + m)) {
                continue;
            }
            let (mut sxx, mut sxy, mut syy) = (0f32, 0f32, 0f32);
            for dy in -r..=r {
                let row = (y as isize + dy) as usize * w;
                for dx in -r..=r {
                    let i = row + (x as isize + dx) as usize;
                    sxx += gx[i] * gx[i];
                    sxy += gx[i] * gy[i];
                    syy += gy[i] * gy[i];
                }
            }
            let (a, b, d) = (sxx / n, sxy / n, syy / n);
            let tr = 0.5 * (a + d);
            let score = tr - (0.25 * (a - d) * (a - d) + b * b).sqrt();
            if score < cfg.min_score {
                continue;
            }
            if best[c].is_none_or(|k| score > k.score) {
                best[c] = Some(Corner {
                    xy: [x as f32, y as f32],
                    score,
                });
            }
        }
    }
    // One corner spreads its score over neighbouring pixels, and so over the cells a
    // boundary runs through: the weaker of two corners closer than half a cell goes.
    let mut found: Vec<Corner> = best.into_iter().flatten().collect();
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    let min_d2 = (cfg.cell_px as f32 * 0.5).powi(2);
    let mut kept: Vec<Corner> = Vec::with_capacity(found.len());
    let near = |a: &[f32; 2], b: &[f32; 2]| {
        let (dx, dy) = (a[0] - b[0], a[1] - b[1]);
        dx * dx + dy * dy < min_d2
    };
    for c in found {
        let near =
            kept.iter().any(|k| near(&k.xy, &c.xy)) || existing.iter().any(|e| near(e, &c.xy));
        if !near {
            kept.push(c);
        }
    }
    (kept, grid)
}

/// The grid of cells over an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridShape {
    /// Cells across.
    pub cols: usize,
    /// Cells down.
    pub rows: usize,
    /// Cell side, px.
    pub cell_px: usize,
}

impl GridShape {
    /// The grid of `cell_px` cells over a `width × height` image.
    pub fn of(width: usize, height: usize, cell_px: usize) -> Self {
        let cell_px = cell_px.max(1);
        Self {
            cols: width.div_ceil(cell_px).max(1),
            rows: height.div_ceil(cell_px).max(1),
            cell_px,
        }
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cols * self.rows
    }

    /// The cell holding pixel `(x, y)` (clamped to the grid).
    pub fn cell_of(&self, x: f32, y: f32) -> usize {
        let c = ((x.max(0.0) as usize) / self.cell_px).min(self.cols - 1);
        let r = ((y.max(0.0) as usize) / self.cell_px).min(self.rows - 1);
        r * self.cols + c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bright square on a dark background: its four corners are found, its edges and
    /// flat areas are not.
    #[test]
    fn finds_the_corners_of_a_square_and_not_its_edges() {
        let (w, h) = (100usize, 80usize);
        let mut px = vec![30u8; w * h];
        for y in 20..60 {
            for x in 30..70 {
                px[y * w + x] = 200;
            }
        }
        let img = Grey::from_u8(w, h, &px);
        let cfg = CornerConfig {
            cell_px: 16,
            ..CornerConfig::default()
        };
        let (found, grid) = detect(&img, &[], &[], &cfg);
        assert_eq!(grid.cells(), 7 * 5);
        assert_eq!(found.len(), 4, "{found:?}");
        for want in [[30.0, 20.0], [69.0, 20.0], [30.0, 59.0], [69.0, 59.0]] {
            assert!(
                found
                    .iter()
                    .any(|c| (c.xy[0] - want[0]).abs() <= 1.5 && (c.xy[1] - want[1]).abs() <= 1.5),
                "{want:?} in {found:?}"
            );
        }
        // No new corner beside a feature already there.
        let (fewer, _) = detect(&img, &[], &[[30.0, 20.0]], &cfg);
        assert_eq!(fewer.len(), 3);
        // An invalid region hides its corners.
        let mut valid = vec![true; w * h];
        for y in 0..h {
            for x in 0..50 {
                valid[y * w + x] = false;
            }
        }
        let (right_only, _) = detect(&img, &valid, &[], &cfg);
        assert_eq!(right_only.len(), 2, "{right_only:?}");
        assert!(right_only.iter().all(|c| c.xy[0] > 60.0));
    }
}
