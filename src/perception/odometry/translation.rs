//! The camera's position from mapped points and the directions they are seen in, with the
//! orientation known (pure): each point `X` seen along the unit bearing `b` (camera frame)
//! gives `b × (M·(X − t) − c) = 0`, two independent equations linear in the position `t`
//! (`M` turns world directions into the camera's, `c` is the camera's offset from the
//! device origin in camera axes). Random pairs of points (a fixed seed: the same input
//! always gives the same answer) propose positions, the one most points agree with within
//! an angle wins, and least squares over those points refines it, with a weak pull toward
//! the predicted position so that points all far away cannot throw it.

use nalgebra::{Matrix3, Vector3};

/// One mapped point and where it is seen now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sighting {
    /// The point, world frame, m.
    pub x_world: Vector3<f64>,
    /// The unit direction it is seen along, camera frame.
    pub bearing: Vector3<f64>,
}

/// Settings of the solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveConfig {
    /// A point agrees with a position when seen within this angle of where it projects, rad.
    pub inlier_rad: f64,
    /// Pairs tried.
    pub trials: usize,
    /// Weight of the predicted position, against a point's weight of 1 per equation,
    /// 1/m² (small: it only settles directions the points leave free).
    pub prior_weight: f64,
}

impl Default for SolveConfig {
    /// 2 px at f = 180 px, 60 pairs, a prior of 0.001 (a prediction 0.3 m off moves the
    /// answer by about a millimetre).
    fn default() -> Self {
        Self {
            inlier_rad: 2.0 / 180.0,
            trials: 60,
            prior_weight: 0.001,
        }
    }
}

/// The position found.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Device origin, world frame, m.
    pub t_world: Vector3<f64>,
    /// Which sightings agree with it.
    pub inliers: Vec<bool>,
    /// How many do.
    pub inlier_count: usize,
    /// Root mean square angle of the inliers, rad.
    pub rms_rad: f64,
}

/// The solver's fixed frame data: `M` (world → camera rotation) and `c` (the camera's
/// offset from the device origin, camera axes, m) such that a world point `X` lies at
/// `M·(X − t) − c` in the camera frame when the device origin is at `t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraFrame {
    /// World → camera rotation.
    pub m: Matrix3<f64>,
    /// The camera's offset, camera axes, m.
    pub c: Vector3<f64>,
}

impl CameraFrame {
    /// Where the world point `x` lies in the camera frame with the device origin at `t`.
    pub fn in_camera(&self, x: &Vector3<f64>, t: &Vector3<f64>) -> Vector3<f64> {
        self.m * (x - t) - self.c
    }

    fn angle(&self, s: &Sighting, t: &Vector3<f64>) -> f64 {
        let q = self.in_camera(&s.x_world, t);
        if q.z <= 0.0 {
            return std::f64::consts::PI;
        }
        q.angle(&s.bearing)
    }

    /// Adds one sighting's equations to the normal equations `(a, y)`.
    fn add(&self, s: &Sighting, w: f64, a: &mut Matrix3<f64>, y: &mut Vector3<f64>) {
        let bx = s.bearing.cross_matrix();
        let j = bx * self.m;
        let rhs = bx * (self.m * s.x_world - self.c);
        *a += j.transpose() * j * w;
        *y += j.transpose() * rhs * w;
    }
}

/// Deterministic pseudo-random pair indices (xorshift).
struct Pairs(u64);

impl Pairs {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn least_squares(
    cam: &CameraFrame,
    sightings: &[Sighting],
    use_: impl Fn(usize) -> bool,
    prior: &Vector3<f64>,
    prior_weight: f64,
) -> Option<Vector3<f64>> {
    let mut a = Matrix3::identity() * prior_weight;
    let mut y = prior * prior_weight;
    for (i, s) in sightings.iter().enumerate() {
        if use_(i) {
            // Nearer points fix the position better; the equations are in the bearing's
            // units (m of lateral offset per m of range), so weight by 1/range².
            let range = cam.in_camera(&s.x_world, prior).norm().max(0.5);
            cam.add(s, 1.0 / (range * range), &mut a, &mut y);
        }
    }
    a.lu().solve(&y).filter(|t| t.iter().all(|v| v.is_finite()))
}

/// The position that most sightings agree with, or `None` with fewer than `min_inliers`
/// agreeing.
pub fn solve(
    cam: &CameraFrame,
    sightings: &[Sighting],
    predicted: &Vector3<f64>,
    min_inliers: usize,
    cfg: &SolveConfig,
) -> Option<Solution> {
    let n = sightings.len();
    if n < min_inliers.max(2) {
        return None;
    }
    let count = |t: &Vector3<f64>| {
        sightings
            .iter()
            .filter(|s| cam.angle(s, t) < cfg.inlier_rad)
            .count()
    };
    let mut best = (count(predicted), *predicted);
    let mut rng = Pairs(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    for _ in 0..cfg.trials {
        let i = rng.next(n);
        let j = rng.next(n);
        if i == j {
            continue;
        }
        let Some(t) = least_squares(cam, sightings, |k| k == i || k == j, predicted, 1e-6) else {
            continue;
        };
        let c = count(&t);
        if c > best.0 {
            best = (c, t);
        }
    }
    let mut t = best.1;
    for _ in 0..3 {
        let agree: Vec<bool> = sightings
            .iter()
            .map(|s| cam.angle(s, &t) < cfg.inlier_rad)
            .collect();
        t = least_squares(cam, sightings, |k| agree[k], predicted, cfg.prior_weight)?;
    }
    let inliers: Vec<bool> = sightings
        .iter()
        .map(|s| cam.angle(s, &t) < cfg.inlier_rad)
        .collect();
    let angles: Vec<f64> = sightings
        .iter()
        .zip(&inliers)
        .filter(|(_, &k)| k)
        .map(|(s, _)| cam.angle(s, &t))
        .collect();
    let inlier_count = angles.len();
    if inlier_count < min_inliers {
        return None;
    }
    let rms_rad = (angles.iter().map(|a| a * a).sum::<f64>() / inlier_count as f64).sqrt();
    Some(Solution {
        t_world: t,
        inliers,
        inlier_count,
        rms_rad,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Rotation3, Unit};

    fn frame() -> CameraFrame {
        let r = Rotation3::from_axis_angle(&Unit::new_normalize(Vector3::new(0.2, 1.0, 0.1)), 0.7);
        CameraFrame {
            m: *r.matrix(),
            c: Vector3::new(0.05, -0.02, 0.01),
        }
    }

    fn scene(cam: &CameraFrame, t: &Vector3<f64>, outliers: usize) -> Vec<Sighting> {
        let mut out = Vec::new();
        let m_inv = cam.m.transpose();
        for k in 0..30u32 {
            // Points 1.5–8 m in front of the camera.
            let kf = f64::from(k);
            let q = Vector3::new(
                (kf * 0.77).sin() * 2.0,
                (kf * 1.3).cos(),
                1.5 + (kf * 0.23) % 6.5,
            );
            let x_world = m_inv * (q + cam.c) + t;
            let mut bearing = q.normalize();
            if (k as usize) < outliers {
                // Each wrong track wrong its own way.
                let off = Vector3::new((kf * 2.1).sin().signum(), (kf * 3.7).cos(), 0.0) * 0.08;
                bearing = (bearing + off).normalize();
            }
            out.push(Sighting { x_world, bearing });
        }
        out
    }

    #[test]
    fn recovers_the_position_despite_wrong_tracks() {
        let cam = frame();
        let truth = Vector3::new(3.0, -1.2, 1.6);
        let sightings = scene(&cam, &truth, 8);
        let predicted = truth + Vector3::new(0.25, -0.15, 0.05);
        let s = solve(&cam, &sightings, &predicted, 6, &SolveConfig::default()).unwrap();
        assert!((s.t_world - truth).norm() < 3e-3, "{:?}", s.t_world);
        assert_eq!(s.inlier_count, 22);
        assert!(s.inliers[..8].iter().all(|k| !k));
        assert!(s.rms_rad < 1e-3);
    }

    #[test]
    fn too_few_agreeing_points_give_nothing() {
        let cam = frame();
        let truth = Vector3::new(0.0, 0.0, 1.5);
        let sightings = scene(&cam, &truth, 26);
        assert!(solve(&cam, &sightings, &truth, 6, &SolveConfig::default()).is_none());
        assert!(solve(&cam, &sightings[..1], &truth, 1, &SolveConfig::default()).is_none());
    }
}
