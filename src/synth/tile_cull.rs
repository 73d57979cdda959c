//! Per-tile culling (pure compute): which objects of a scene the rays of one small tile of
//! pixels can hit. Every object is bounded by a sphere, and a large one also by the
//! spheres of its pieces (a long wall, a pit floor: one sphere around them would meet
//! nearly every tile); an object is kept for a tile when its sphere and one of its pieces'
//! spheres, seen from the camera centre, meet the tile's cone of rays (widened by a small
//! margin), and the floor plane when some ray of the cone points toward it. The test is
//! conservative: whatever a ray of the tile hits is kept, so the nearest hit is the same as
//! without culling.

use std::ops::Range;

use nalgebra::Vector3;

/// Extra angle allowed when culling against a cone, rad (covers the `f32` rays' rounding).
pub const CULL_MARGIN_RAD: f64 = 0.01;

/// A bounding sphere, m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre.
    pub centre: Vector3<f64>,
    /// Radius.
    pub radius: f64,
}

/// What kind of object a candidate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A quad.
    Quad,
    /// A box.
    Box,
    /// A cylinder.
    Cylinder,
}

/// The bounds of one object: a sphere around all of it and, for a large object, spheres
/// around pieces that together cover it (empty: the whole sphere only).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bounds {
    /// Around the whole object.
    pub whole: Option<Sphere>,
    /// Around its pieces.
    pub pieces: Vec<Sphere>,
}

/// A sphere as seen from the camera centre.
#[derive(Debug, Clone, Copy)]
struct Seen {
    /// Unit direction to the sphere's centre.
    dir: Vector3<f64>,
    /// Angular radius of the sphere plus the margin, rad (`≥ π`: the camera is inside).
    spread: f64,
    cos_spread: f64,
    sin_spread: f64,
}

impl Seen {
    fn new(o: &Vector3<f64>, s: &Sphere) -> Self {
        let v = s.centre - o;
        let n = v.norm();
        let spread = if n <= s.radius * (1.0 + 1e-9) + 1e-9 {
            std::f64::consts::TAU
        } else {
            (s.radius / n).clamp(0.0, 1.0).asin() + CULL_MARGIN_RAD
        };
        Self {
            dir: if n > 0.0 { v / n } else { Vector3::z() },
            spread,
            cos_spread: spread.cos(),
            sin_spread: spread.sin(),
        }
    }

    /// Whether the sphere meets the cone (`axis`, half angle `h` with its cosine and sine).
    #[inline]
    fn meets(&self, axis: &Vector3<f64>, h: f64, cos_h: f64, sin_h: f64) -> bool {
        // Angle to the centre ≤ half angle + spread, as cosines (cos is decreasing).
        h + self.spread >= std::f64::consts::PI
            || self.dir.dot(axis) >= cos_h * self.cos_spread - sin_h * self.sin_spread
    }
}

/// One object as seen from the camera centre.
#[derive(Debug, Clone)]
struct Candidate {
    kind: Kind,
    index: usize,
    whole: Seen,
    /// Its pieces in [`TileCuller::pieces`] (empty: the whole sphere decides).
    pieces: Range<usize>,
}

/// The objects of one tile, by index into the scene's lists, and whether the floor can be
/// hit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TileLists {
    /// The floor plane is in reach.
    pub floor: bool,
    /// Quads.
    pub quads: Vec<usize>,
    /// Boxes.
    pub boxes: Vec<usize>,
    /// Cylinders.
    pub cylinders: Vec<usize>,
}

impl TileLists {
    /// Nothing in reach.
    pub fn clear(&mut self) {
        self.floor = false;
        self.quads.clear();
        self.boxes.clear();
        self.cylinders.clear();
    }
}

/// The scene's objects seen from one camera centre, ready to be culled per tile.
#[derive(Debug, Clone)]
pub struct TileCuller {
    candidates: Vec<Candidate>,
    pieces: Vec<Seen>,
    /// Camera height above the floor, m.
    above_floor_m: f64,
}

impl TileCuller {
    /// Culler for the camera centre `o`, the floor at height `floor_z_m` and `objects`
    /// (`(kind, index, bounds)`; an object without a whole sphere is always kept).
    pub fn new(
        o: &Vector3<f64>,
        floor_z_m: f64,
        objects: impl IntoIterator<Item = (Kind, usize, Bounds)>,
    ) -> Self {
        let mut pieces = Vec::new();
        let candidates = objects
            .into_iter()
            .map(|(kind, index, b)| {
                let first = pieces.len();
                pieces.extend(b.pieces.iter().map(|p| Seen::new(o, p)));
                let whole = match &b.whole {
                    Some(s) => Seen::new(o, s),
                    None => Seen::new(
                        o,
                        &Sphere {
                            centre: *o,
                            radius: 1.0,
                        },
                    ),
                };
                Candidate {
                    kind,
                    index,
                    whole,
                    pieces: first..pieces.len(),
                }
            })
            .collect();
        Self {
            candidates,
            pieces,
            above_floor_m: o.z - floor_z_m,
        }
    }

    /// Fills `out` with what rays within `half_angle_rad` of the unit `axis` (world frame)
    /// can hit.
    pub fn cull(&self, axis: &Vector3<f64>, half_angle_rad: f64, out: &mut TileLists) {
        out.clear();
        let h = half_angle_rad;
        let (cos_h, sin_h) = (h.cos(), h.sin());
        for c in &self.candidates {
            let keep = c.whole.meets(axis, h, cos_h, sin_h)
                && (c.pieces.is_empty()
                    || self
                        .pieces
                        .get(c.pieces.clone())
                        .unwrap_or(&[])
                        .iter()
                        .any(|p| p.meets(axis, h, cos_h, sin_h)));
            if keep {
                match c.kind {
                    Kind::Quad => out.quads.push(c.index),
                    Kind::Box => out.boxes.push(c.index),
                    Kind::Cylinder => out.cylinders.push(c.index),
                }
            }
        }
        // Some ray of the cone points down (camera above the floor) or up (below it):
        // the cone reaches past the horizontal by more than the margin.
        let reach = h + CULL_MARGIN_RAD;
        let toward = if self.above_floor_m > 0.0 {
            -axis.z
        } else {
            axis.z
        };
        out.floor = self.above_floor_m != 0.0
            && (reach >= std::f64::consts::FRAC_PI_2 || -toward < reach.sin());
    }
}

/// Largest side of a piece of a large object, m.
pub const PIECE_M: f64 = 1.0;
/// Most pieces along one edge of an object.
const MAX_PIECES_PER_EDGE: usize = 64;

fn pieces_along(len_m: f64) -> usize {
    ((len_m / PIECE_M).ceil() as usize).clamp(1, MAX_PIECES_PER_EDGE)
}

/// Bounds of the parallelogram `origin + a·u + b·v`, `a, b ∈ [0, 1]`: pieces of at most
/// [`PIECE_M`] a side.
pub fn parallelogram_bounds(origin: Vector3<f64>, u: Vector3<f64>, v: Vector3<f64>) -> Bounds {
    let sphere = |origin: Vector3<f64>, u: Vector3<f64>, v: Vector3<f64>| Sphere {
        centre: origin + (u + v) / 2.0,
        // The farthest points from the centre are corners.
        radius: (u + v).norm().max((u - v).norm()) / 2.0,
    };
    let (nu, nv) = (pieces_along(u.norm()), pieces_along(v.norm()));
    let (du, dv) = (u / nu as f64, v / nv as f64);
    let pieces = if nu * nv > 1 {
        (0..nv)
            .flat_map(|j| (0..nu).map(move |i| (i, j)))
            .map(|(i, j)| sphere(origin + du * i as f64 + dv * j as f64, du, dv))
            .collect()
    } else {
        Vec::new()
    };
    Bounds {
        whole: Some(sphere(origin, u, v)),
        pieces,
    }
}

/// Bounds of the axis-aligned box `lo..hi`: cells of at most [`PIECE_M`] a side.
pub fn box_bounds(lo: Vector3<f64>, hi: Vector3<f64>) -> Bounds {
    let size = hi - lo;
    let n = [
        pieces_along(size.x),
        pieces_along(size.y),
        pieces_along(size.z),
    ];
    let cell = Vector3::new(
        size.x / n[0] as f64,
        size.y / n[1] as f64,
        size.z / n[2] as f64,
    );
    let radius = cell.norm() / 2.0;
    let pieces = if n[0] * n[1] * n[2] > 1 {
        (0..n[2])
            .flat_map(|k| (0..n[1]).flat_map(move |j| (0..n[0]).map(move |i| (i, j, k))))
            .map(|(i, j, k)| Sphere {
                centre: lo
                    + Vector3::new(
                        (i as f64 + 0.5) * cell.x,
                        (j as f64 + 0.5) * cell.y,
                        (k as f64 + 0.5) * cell.z,
                    ),
                radius,
            })
            .collect()
    } else {
        Vec::new()
    };
    Bounds {
        whole: Some(Sphere {
            centre: (lo + hi) / 2.0,
            radius: size.norm() / 2.0,
        }),
        pieces,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: Sphere) -> Bounds {
        Bounds {
            whole: Some(s),
            pieces: Vec::new(),
        }
    }

    fn lists(c: &TileCuller, axis: [f64; 3], half: f64) -> TileLists {
        let mut out = TileLists::default();
        c.cull(&Vector3::from(axis).normalize(), half, &mut out);
        out
    }

    #[test]
    fn objects_outside_the_cone_are_left_out() {
        let o = Vector3::new(0.0, 0.0, 1.5);
        // A ball 10 m ahead (+x) of radius 1 (5.7° wide), one behind, one around the camera.
        let objects = [
            (
                Kind::Box,
                0,
                one(Sphere {
                    centre: Vector3::new(10.0, 0.0, 1.5),
                    radius: 1.0,
                }),
            ),
            (
                Kind::Quad,
                3,
                one(Sphere {
                    centre: Vector3::new(-10.0, 0.0, 1.5),
                    radius: 1.0,
                }),
            ),
            (
                Kind::Cylinder,
                1,
                one(Sphere {
                    centre: Vector3::new(0.2, 0.0, 1.0),
                    radius: 0.8,
                }),
            ),
        ];
        let c = TileCuller::new(&o, 0.0, objects);
        let ahead = lists(&c, [1.0, 0.0, 0.0], 0.05);
        assert_eq!((ahead.boxes, ahead.quads), (vec![0], vec![]));
        assert_eq!(ahead.cylinders, vec![1], "the camera is inside its sphere");
        // 0.1 rad off the ball's edge (asin 0.1 ≈ 0.1002 rad from its centre) with a
        // 0.05 rad cone: out; 0.05 rad off (0.15 from the centre): in.
        let off = |a: f64| [a.cos(), a.sin(), 0.0];
        assert!(lists(&c, off(0.1002 + 0.1 + 0.05), 0.05).boxes.is_empty());
        assert_eq!(lists(&c, off(0.1002 + 0.05), 0.05).boxes, vec![0]);
        assert_eq!(lists(&c, [-1.0, 0.0, 0.0], 0.05).quads, vec![3]);
        // A wide cone keeps everything.
        let all = lists(&c, [0.0, 1.0, 0.0], 3.2);
        assert_eq!((all.boxes, all.quads), (vec![0], vec![3]));
    }

    #[test]
    fn the_floor_is_kept_only_when_a_ray_points_toward_it() {
        let c = TileCuller::new(&Vector3::new(0.0, 0.0, 1.5), 0.0, None);
        assert!(lists(&c, [0.0, 0.0, -1.0], 0.01).floor);
        assert!(lists(&c, [1.0, 0.0, 0.0], 0.01).floor, "the horizon");
        // 0.2 rad above the horizon: a 0.15 rad cone stays above it, a 0.25 rad one does not.
        let up = [0.2f64.cos(), 0.0, 0.2f64.sin()];
        assert!(!lists(&c, up, 0.15).floor);
        assert!(lists(&c, up, 0.25).floor);
        // Below the floor, looking up.
        let under = TileCuller::new(&Vector3::new(0.0, 0.0, -1.0), 0.0, None);
        assert!(lists(&under, [0.0, 0.0, 1.0], 0.01).floor);
        assert!(!lists(&under, [0.0, 0.0, -1.0], 0.01).floor);
    }

    #[test]
    fn pieces_cover_the_object_and_cull_what_the_whole_sphere_cannot() {
        // A 30 m × 3 m wall along x at y = 2, seen from the origin 1.5 m up.
        let (origin, u, v) = (
            Vector3::new(-15.0, 2.0, 0.0),
            Vector3::new(30.0, 0.0, 0.0),
            Vector3::new(0.0, 0.0, 3.0),
        );
        let b = parallelogram_bounds(origin, u, v);
        assert_eq!(b.pieces.len(), 30 * 3);
        // Every point of the wall lies in some piece.
        for (a, c) in [(0.0, 0.0), (0.37, 0.91), (1.0, 1.0), (0.999, 0.5)] {
            let p = origin + u * a + v * c;
            assert!(b
                .pieces
                .iter()
                .any(|s| (s.centre - p).norm() <= s.radius + 1e-12));
        }
        let o = Vector3::new(0.0, 0.0, 1.5);
        let c = TileCuller::new(&o, 0.0, [(Kind::Quad, 0, b)]);
        // Straight at the wall: kept. Up at 60° toward it: the whole sphere (radius 15 m,
        // around the camera) would keep it; no piece reaches there.
        assert_eq!(lists(&c, [0.0, 1.0, 0.0], 0.02).quads, vec![0]);
        let up = 60f64.to_radians();
        assert_eq!(
            lists(&c, [0.0, up.cos(), up.sin()], 0.02).quads,
            Vec::<usize>::new()
        );
        // A box 2 × 7.6 × 0.6 m: 2 · 8 · 1 cells; corners and inner points are covered.
        let bb = box_bounds(Vector3::new(0.0, 0.0, 0.0), Vector3::new(2.0, 7.6, 0.6));
        assert_eq!(bb.pieces.len(), 16);
        for p in [
            [0.0, 0.0, 0.0],
            [2.0, 7.6, 0.6],
            [1.3, 4.4, 0.1],
            [0.0, 7.6, 0.3],
        ] {
            let p = Vector3::from(p);
            assert!(bb
                .pieces
                .iter()
                .any(|s| (s.centre - p).norm() <= s.radius + 1e-12));
        }
    }
}
