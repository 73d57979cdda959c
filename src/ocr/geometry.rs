//! Plane geometry for text boxes: [`Quad`] (four corners), convex hull, minimum-area
//! rectangle (rotating calipers, as `cv2.minAreaRect`), corner ordering as PaddleOCR's
//! `get_mini_boxes` and `order_points_clockwise`, and polygon rasterisation.

/// A quadrilateral's corners, pixels: top-left, top-right, bottom-right, bottom-left.
pub type Quad = [[f32; 2]; 4];

/// A rectangle of any orientation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RotatedRect {
    /// Its four corners, in order around the rectangle.
    pub corners: [[f64; 2]; 4],
    /// Length of the first side (corner 0 → 1), pixels.
    pub side_a: f64,
    /// Length of the second side (corner 1 → 2), pixels.
    pub side_b: f64,
}

impl RotatedRect {
    /// The shorter side, pixels.
    pub fn short_side(&self) -> f64 {
        self.side_a.min(self.side_b)
    }

    /// The same rectangle grown by `d` pixels outward on every side.
    pub fn grown(&self, d: f64) -> RotatedRect {
        let c = self.corners;
        let cx = (c[0][0] + c[2][0]) * 0.5;
        let cy = (c[0][1] + c[2][1]) * 0.5;
        let unit = |a: [f64; 2], b: [f64; 2], len: f64| {
            if len > 0.0 {
                [(b[0] - a[0]) / len, (b[1] - a[1]) / len]
            } else {
                [0.0, 0.0]
            }
        };
        let mut ua = unit(c[0], c[1], self.side_a);
        let mut ub = unit(c[1], c[2], self.side_b);
        if self.side_a == 0.0 {
            ua = [-ub[1], ub[0]];
        }
        if self.side_b == 0.0 {
            ub = [-ua[1], ua[0]];
        }
        if self.side_a == 0.0 && self.side_b == 0.0 {
            ua = [1.0, 0.0];
            ub = [0.0, 1.0];
        }
        let (ha, hb) = (self.side_a * 0.5 + d, self.side_b * 0.5 + d);
        let corner = |sa: f64, sb: f64| {
            [
                cx + sa * ha * ua[0] + sb * hb * ub[0],
                cy + sa * ha * ua[1] + sb * hb * ub[1],
            ]
        };
        RotatedRect {
            corners: [
                corner(-1.0, -1.0),
                corner(1.0, -1.0),
                corner(1.0, 1.0),
                corner(-1.0, 1.0),
            ],
            side_a: 2.0 * ha,
            side_b: 2.0 * hb,
        }
    }
}

fn cross(o: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// The convex hull of points (Andrew's monotone chain), counter-clockwise in a y-up frame,
/// without collinear points. Fewer than three distinct points are returned as they are.
pub fn convex_hull(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut p: Vec<[f64; 2]> = points.to_vec();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(p.len() * 2);
    // Lower chain, left to right.
    for &pt in &p {
        while hull.len() >= 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], pt) <= 0.0 {
            hull.pop();
        }
        hull.push(pt);
    }
    // Upper chain, right to left, never popping into the lower chain.
    let lower = hull.len() + 1;
    for &pt in p.iter().rev().skip(1) {
        while hull.len() >= lower && cross(hull[hull.len() - 2], hull[hull.len() - 1], pt) <= 0.0 {
            hull.pop();
        }
        hull.push(pt);
    }
    hull.pop();
    hull
}

/// The smallest-area rectangle enclosing the points (rotating calipers over the hull edges);
/// `None` for no points.
pub fn min_area_rect(points: &[[f64; 2]]) -> Option<RotatedRect> {
    let hull = convex_hull(points);
    match hull.len() {
        0 => return None,
        1 => {
            let p = hull[0];
            return Some(RotatedRect {
                corners: [p; 4],
                side_a: 0.0,
                side_b: 0.0,
            });
        }
        _ => {}
    }
    let mut best: Option<(f64, RotatedRect)> = None;
    for i in 0..hull.len() {
        let a = hull[i];
        let b = hull[(i + 1) % hull.len()];
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = (dx * dx + dy * dy).sqrt();
        if len == 0.0 {
            continue;
        }
        let u = [dx / len, dy / len];
        let v = [-u[1], u[0]];
        let (mut umin, mut umax, mut vmin, mut vmax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in &hull {
            let pu = p[0] * u[0] + p[1] * u[1];
            let pv = p[0] * v[0] + p[1] * v[1];
            umin = umin.min(pu);
            umax = umax.max(pu);
            vmin = vmin.min(pv);
            vmax = vmax.max(pv);
        }
        let area = (umax - umin) * (vmax - vmin);
        if best.as_ref().is_none_or(|(a, _)| area < *a - 1e-9) {
            let at = |su: f64, sv: f64| [su * u[0] + sv * v[0], su * u[1] + sv * v[1]];
            let rect = RotatedRect {
                corners: [
                    at(umin, vmin),
                    at(umax, vmin),
                    at(umax, vmax),
                    at(umin, vmax),
                ],
                side_a: umax - umin,
                side_b: vmax - vmin,
            };
            best = Some((area, rect));
        }
    }
    best.map(|(_, r)| r)
}

/// PaddleOCR's `get_mini_boxes` order: corners sorted by x; of the two leftmost the upper is
/// first and the lower last; of the two rightmost the upper is second, the lower third.
pub fn mini_box_order(corners: &[[f64; 2]; 4]) -> [[f64; 2]; 4] {
    let mut p = *corners;
    p.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let (i1, i4) = if p[1][1] > p[0][1] { (0, 1) } else { (1, 0) };
    let (i2, i3) = if p[3][1] > p[2][1] { (2, 3) } else { (3, 2) };
    [p[i1], p[i2], p[i3], p[i4]]
}

/// `order_points_clockwise` (imutils): the two leftmost corners (by x) sorted by y give
/// top-left and bottom-left, the two rightmost give top-right and bottom-right.
pub fn order_clockwise(q: &Quad) -> Quad {
    let mut p = *q;
    p.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let (l0, l1) = if p[1][1] < p[0][1] {
        (p[1], p[0])
    } else {
        (p[0], p[1])
    };
    let (r0, r1) = if p[3][1] < p[2][1] {
        (p[3], p[2])
    } else {
        (p[2], p[3])
    };
    [l0, r0, r1, l1]
}

/// Distance between two corners.
pub fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Whether pixel centre `(x, y)` lies inside (or on) a convex polygon.
pub fn inside_convex(poly: &[[f64; 2]], x: f64, y: f64) -> bool {
    let n = poly.len();
    if n < 3 {
        return false;
    }
    let (mut pos, mut neg) = (false, false);
    for i in 0..n {
        let c = cross(poly[i], poly[(i + 1) % n], [x, y]);
        if c > 1e-9 {
            pos = true;
        } else if c < -1e-9 {
            neg = true;
        }
        if pos && neg {
            return false;
        }
    }
    true
}

/// The axis-aligned bounds `[x0, y0, x1, y1]` of a quad.
pub fn quad_bounds(q: &Quad) -> [f32; 4] {
    let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
    for p in q {
        b[0] = b[0].min(p[0]);
        b[1] = b[1].min(p[1]);
        b[2] = b[2].max(p[0]);
        b[3] = b[3].max(p[1]);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_aligned_points_give_their_bounding_box() {
        let pts: Vec<[f64; 2]> = (0..=10)
            .flat_map(|x| (3..=7).map(move |y| [f64::from(x), f64::from(y)]))
            .collect();
        let r = min_area_rect(&pts).unwrap();
        let area = r.side_a * r.side_b;
        assert!((area - 40.0).abs() < 1e-9, "{r:?}");
        assert!((r.short_side() - 4.0).abs() < 1e-9);
        let b = mini_box_order(&r.corners);
        assert_eq!(b, [[0.0, 3.0], [10.0, 3.0], [10.0, 7.0], [0.0, 7.0]]);
    }

    #[test]
    fn a_rotated_rectangle_is_found_with_its_own_sides() {
        // Corners of a 20×6 rectangle turned 30°, computed by hand.
        let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        let corners: Vec<[f64; 2]> = [(-10.0, -3.0), (10.0, -3.0), (10.0, 3.0), (-10.0, 3.0)]
            .iter()
            .map(|&(x, y)| [50.0 + x * c - y * s, 40.0 + x * s + y * c])
            .collect();
        let mut pts = corners.clone();
        pts.push([50.0, 40.0]);
        let r = min_area_rect(&pts).unwrap();
        let (long, short) = (r.side_a.max(r.side_b), r.short_side());
        assert!(
            (long - 20.0).abs() < 1e-9 && (short - 6.0).abs() < 1e-9,
            "{r:?}"
        );
        let g = r.grown(2.0);
        assert!((g.side_a.max(g.side_b) - 24.0).abs() < 1e-9);
        assert!((g.short_side() - 10.0).abs() < 1e-9);
    }

    #[test]
    fn the_hull_of_a_skewed_quadrilateral_keeps_all_four_corners() {
        // Found by tests/ocr_props.rs: the upper chain must not pop into the lower one.
        let pts = [
            [462.0, -483.0],
            [474.5, 0.0],
            [0.0, 0.0],
            [0.0, 0.0],
            [0.0, 196.8],
        ];
        let mut h = convex_hull(&pts);
        h.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
        assert_eq!(
            h,
            vec![[0.0, 0.0], [0.0, 196.8], [462.0, -483.0], [474.5, 0.0]]
        );
    }

    #[test]
    fn clockwise_order_and_inside_test() {
        let q: Quad = [[10.0, 5.0], [0.0, 0.0], [0.0, 5.0], [10.0, 0.0]];
        assert_eq!(
            order_clockwise(&q),
            [[0.0, 0.0], [10.0, 0.0], [10.0, 5.0], [0.0, 5.0]]
        );
        let sq = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]];
        assert!(inside_convex(&sq, 4.0, 2.0));
        assert!(!inside_convex(&sq, 4.5, 2.0));
        assert_eq!(quad_bounds(&q), [0.0, 0.0, 10.0, 5.0]);
        assert!(min_area_rect(&[]).is_none());
    }
}
