//! The eye-tracking camera's image (pure compute): Aria Gen1's `camera-et` stream (VRS
//! `211-1`) records both eyes side by side in one 640×240 greyscale image, 320×240 per eye
//! (the left half from `camera-et-left`, which sees the wearer's left eye). Each half is
//! drawn as skin around an eye opening (sclera) with an iris and a pupil whose centre
//! follows the scripted gaze: the eye's own yaw and pitch toward the fixated point (with
//! vergence: each eye sits half the interpupillary distance from the CPF), seen from in
//! front of the face, so looking to the wearer's left moves the pupil toward the image's
//! right and looking up moves it up.
//!
//! Which half shows which eye: projectaria_tools splits the image in two halves named
//! `camera-et-left` then `camera-et-right` (each half takes that camera's calibration), and
//! projectaria_eyetracking feeds the left half as it is and the right half mirrored. The
//! real Gen1 sample (`tests/data/gen1`, stream 211-1) shows the two halves as mirror
//! images, each eye seen from below on the nose side. The drawn opening is symmetric, so
//! the mirroring does not change where the pupil is drawn.

use super::gaze::Gaze;

/// Interpupillary distance, m.
pub const IPD_M: f64 = 0.063;
/// Pupil displacement per unit `sin(eye angle)`, pixels (an eyeball of 12 mm radius at
/// ≈ 7.5 px/mm).
pub const PUPIL_TRAVEL_PX: f64 = 90.0;
/// Eye opening: semi-axes, pixels.
pub const OPENING_PX: [f64; 2] = [115.0, 60.0];
/// Iris radius, pixels.
pub const IRIS_PX: f64 = 38.0;
/// Pupil radius, pixels.
pub const PUPIL_PX: f64 = 15.0;
/// Grey levels: skin, sclera, iris, pupil.
pub const GREY: [u8; 4] = [105, 200, 85, 12];

/// Which eye.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eye {
    /// The wearer's left eye (CPF x > 0), drawn in the image's left half.
    Left,
    /// The wearer's right eye, drawn in the right half.
    Right,
}

/// Yaw and pitch (rad) of `eye` looking at the fixated point of `g` (straight along the
/// gaze direction when no depth is known).
pub fn eye_angles(g: &Gaze, eye: Eye) -> (f64, f64) {
    let Some(depth) = g.depth_m.filter(|d| d.is_finite() && *d > 0.05) else {
        return (g.yaw_rad, g.pitch_rad);
    };
    let dir = [g.yaw_rad.tan(), g.pitch_rad.tan(), 1.0];
    let n = (dir[0] * dir[0] + dir[1] * dir[1] + 1.0).sqrt();
    let p = [dir[0] * depth / n, dir[1] * depth / n, depth / n];
    let ex = match eye {
        Eye::Left => IPD_M / 2.0,
        Eye::Right => -IPD_M / 2.0,
    };
    ((p[0] - ex).atan2(p[2]), p[1].atan2(p[2]))
}

/// Pupil centre of `eye` in the full image (`width × height`, both eyes), pixels.
pub fn pupil_centre_px(g: &Gaze, eye: Eye, width: u32, height: u32) -> (f64, f64) {
    let half = f64::from(width) / 2.0;
    let x0 = match eye {
        Eye::Left => 0.0,
        Eye::Right => half,
    };
    let (yaw, pitch) = eye_angles(g, eye);
    (
        x0 + half / 2.0 + PUPIL_TRAVEL_PX * yaw.sin(),
        f64::from(height) / 2.0 + 5.0 - PUPIL_TRAVEL_PX * pitch.sin(),
    )
}

/// Draws both eyes for gaze `g` into `out` (`width · height` bytes, row-major, resized).
/// `_t_s` is reserved for blinks.
pub fn render_eyes_into(g: &Gaze, _t_s: f64, width: u32, height: u32, out: &mut Vec<u8>) {
    let (w, h) = (width as usize, height as usize);
    out.clear();
    out.resize(w * h, GREY[0]);
    let half = f64::from(width) / 2.0;
    for (eye, x0) in [(Eye::Left, 0usize), (Eye::Right, w / 2)] {
        let (px, py) = pupil_centre_px(g, eye, width, height);
        let cx = x0 as f64 + half / 2.0;
        let cy = f64::from(height) / 2.0 + 5.0;
        for (y, row) in out.chunks_exact_mut(w.max(1)).enumerate() {
            let yc = y as f64 + 0.5;
            let Some(row) = row.get_mut(x0..x0 + w / 2) else {
                continue;
            };
            for (i, v) in row.iter_mut().enumerate() {
                let xc = (x0 + i) as f64 + 0.5;
                let (ex, ey) = ((xc - cx) / OPENING_PX[0], (yc - cy) / OPENING_PX[1]);
                if ex * ex + ey * ey > 1.0 {
                    continue;
                }
                let r = (xc - px).hypot(yc - py);
                *v = if r <= PUPIL_PX {
                    GREY[3]
                } else if r <= IRIS_PX {
                    GREY[2]
                } else {
                    GREY[1]
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaze(yaw: f64, pitch: f64, depth: Option<f64>) -> Gaze {
        Gaze {
            yaw_rad: yaw,
            pitch_rad: pitch,
            depth_m: depth,
            target: None,
            reachable: true,
        }
    }

    /// Centroid of the pupil-dark pixels in `[x0, x1)`.
    fn dark_centroid(img: &[u8], w: usize, x0: usize, x1: usize) -> (f64, f64) {
        let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
        for (i, &v) in img.iter().enumerate() {
            let (x, y) = (i % w, i / w);
            if v < 40 && (x0..x1).contains(&x) {
                sx += x as f64 + 0.5;
                sy += y as f64 + 0.5;
                n += 1.0;
            }
        }
        (sx / n, sy / n)
    }

    #[test]
    fn the_pupils_follow_the_gaze() {
        let mut img = Vec::new();
        render_eyes_into(&gaze(0.0, 0.0, None), 0.0, 640, 240, &mut img);
        assert_eq!(img.len(), 640 * 240);
        let l0 = dark_centroid(&img, 640, 0, 320);
        let r0 = dark_centroid(&img, 640, 320, 640);
        assert!(
            (l0.0 - 160.0).abs() < 0.5 && (r0.0 - 480.0).abs() < 0.5,
            "{l0:?} {r0:?}"
        );
        // 0.3 rad to the wearer's left and 0.2 rad up, far away: both pupils move right by
        // 90·sin 0.3 ≈ 26.6 px and up by 90·sin 0.2 ≈ 17.9 px.
        render_eyes_into(&gaze(0.3, 0.2, None), 0.0, 640, 240, &mut img);
        let l1 = dark_centroid(&img, 640, 0, 320);
        let r1 = dark_centroid(&img, 640, 320, 640);
        for (a, b) in [(l0, l1), (r0, r1)] {
            assert!((b.0 - a.0 - 26.6).abs() < 0.5, "{a:?} → {b:?}");
            assert!((a.1 - b.1 - 17.9).abs() < 0.5, "{a:?} → {b:?}");
        }
    }

    #[test]
    fn near_targets_make_the_eyes_converge() {
        // A point 0.3 m straight ahead: the left eye (x = +31.5 mm) turns right (negative
        // yaw), the right eye left, each by atan(0.0315 / 0.3) ≈ 0.1047 rad.
        let g = gaze(0.0, 0.0, Some(0.3));
        let (yl, _) = eye_angles(&g, Eye::Left);
        let (yr, _) = eye_angles(&g, Eye::Right);
        assert!(
            (yl + 0.1047).abs() < 1e-3 && (yr - 0.1047).abs() < 1e-3,
            "{yl} {yr}"
        );
    }
}
