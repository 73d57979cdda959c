//! Tracks of ground sightings (pure): each sighting joins the track whose predicted
//! position is nearest (within a gate that grows with range, since range from the ground
//! contact is coarse far away), else starts one. A track's velocity is the least-squares
//! line through its recent positions; a track is a **vehicle** once it has been seen
//! often enough, for long enough, moving faster than anyone walks, along a line its
//! positions keep to, and is as tall as a car. Bounded: at most
//! [`MAX_TRACKS`] tracks of at most [`MAX_HISTORY`] positions.

use std::collections::VecDeque;

use super::place::Sighting;

/// Tracks kept at most (the oldest-seen is dropped for a new one).
pub const MAX_TRACKS: usize = 16;
/// Positions kept per track.
pub const MAX_HISTORY: usize = 24;
/// A younger track within this of an older one's position along their way (plus
/// [`TrackConfig::gate_per_m`] of the range, twice: both positions are ranged), moving the
/// same way, is another part of the same vehicle (a car's rear edge changes too, ~4 m
/// behind its front) and is dropped, m.
pub const SAME_VEHICLE_M: f64 = 5.0;
/// …and within this across their way (plus the gate's growth with range), m.
pub const SAME_VEHICLE_ACROSS_M: f64 = 2.0;
/// Largest angle between two tracks' velocities for them to be one vehicle, degrees.
pub const SAME_VEHICLE_DEG: f64 = 35.0;
/// A younger track seen within an older vehicle's extent in azimuth (widened by this,
/// degrees) and not nearer than it is a part of it ranged wrongly (a roof line or far
/// side whose lowest point is not where the car meets the road) or behind it.
pub const BEHIND_MARGIN_DEG: f64 = 3.0;

/// Vehicle rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackConfig {
    /// A sighting joins a track within this of its prediction, m, plus
    /// [`Self::gate_per_m`] of its range.
    pub gate_m: f64,
    /// Growth of the gate with range, m per m.
    pub gate_per_m: f64,
    /// A track unseen this long is dropped, ns.
    pub forget_ns: i64,
    /// Velocity from the positions of this last stretch, ns.
    pub fit_span_ns: i64,
    /// A vehicle has at least this many sightings in the fit span.
    pub min_sightings: usize,
    /// …spanning at least this long, ns.
    pub min_span_ns: i64,
    /// …moves at least this fast, m/s (faster than anyone walks or runs by a kerb).
    pub min_speed_mps: f64,
    /// …at most this fast, m/s.
    pub max_speed_mps: f64,
    /// …whose positions stay within this of the fitted line (rms), m, plus
    /// [`Self::gate_per_m`] of the range.
    pub max_residual_m: f64,
    /// …at least this tall (median), m.
    pub min_height_m: f64,
    /// …at most this tall (median), m.
    pub max_height_m: f64,
}

impl Default for TrackConfig {
    fn default() -> Self {
        Self {
            gate_m: 1.5,
            gate_per_m: 0.12,
            forget_ns: 600_000_000,
            fit_span_ns: 1_000_000_000,
            min_sightings: 4,
            min_span_ns: 300_000_000,
            min_speed_mps: 3.0,
            max_speed_mps: 40.0,
            max_residual_m: 0.8,
            min_height_m: 0.7,
            max_height_m: 4.5,
        }
    }
}

/// A tracked mover.
#[derive(Clone, Debug, PartialEq)]
pub struct MoverTrack {
    /// Stable id (from 1).
    pub id: u32,
    /// First sighting, device ns.
    pub first_ns: i64,
    /// Last sighting, device ns.
    pub last_ns: i64,
    history: VecDeque<Sighting>,
}

/// What a track says at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoverFit {
    /// Position on the fitted line at the last sighting (world, m).
    pub position_m: [f64; 2],
    /// Velocity (world, m/s).
    pub velocity_mps: [f64; 2],
    /// Sightings in the fit.
    pub sightings: usize,
    /// Time the fit spans, ns.
    pub span_ns: i64,
    /// RMS distance of the positions from the line, m.
    pub residual_m: f64,
    /// Median height, m.
    pub height_m: f64,
    /// Median width, m.
    pub width_m: f64,
    /// Range of the last sighting, m.
    pub range_m: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

impl MoverTrack {
    /// The least-squares fit over the sightings of the last `span_ns` (`None` with fewer
    /// than two at distinct times).
    pub fn fit(&self, span_ns: i64) -> Option<MoverFit> {
        let last = self.history.back()?;
        let recent: Vec<&Sighting> = self
            .history
            .iter()
            .filter(|s| last.capture_ns.saturating_sub(s.capture_ns) <= span_ns)
            .collect();
        let n = recent.len() as f64;
        let t = |s: &Sighting| (s.capture_ns.saturating_sub(last.capture_ns)) as f64 * 1e-9;
        let mt = recent.iter().map(|s| t(s)).sum::<f64>() / n;
        let mx = recent.iter().map(|s| s.ground_m[0]).sum::<f64>() / n;
        let my = recent.iter().map(|s| s.ground_m[1]).sum::<f64>() / n;
        let stt: f64 = recent.iter().map(|s| (t(s) - mt).powi(2)).sum();
        if stt.is_nan() || stt <= 1e-9 {
            return None;
        }
        let vx = recent
            .iter()
            .map(|s| (t(s) - mt) * (s.ground_m[0] - mx))
            .sum::<f64>()
            / stt;
        let vy = recent
            .iter()
            .map(|s| (t(s) - mt) * (s.ground_m[1] - my))
            .sum::<f64>()
            / stt;
        let at = |tt: f64| [mx + vx * (tt - mt), my + vy * (tt - mt)];
        let residual = (recent
            .iter()
            .map(|s| {
                let p = at(t(s));
                (s.ground_m[0] - p[0]).powi(2) + (s.ground_m[1] - p[1]).powi(2)
            })
            .sum::<f64>()
            / n)
            .sqrt();
        let first = recent.first()?;
        Some(MoverFit {
            position_m: at(0.0),
            velocity_mps: [vx, vy],
            sightings: recent.len(),
            span_ns: last.capture_ns.saturating_sub(first.capture_ns),
            residual_m: residual,
            height_m: median(recent.iter().map(|s| s.height_m).collect()),
            width_m: median(recent.iter().map(|s| s.width_m).collect()),
            range_m: last.range_m,
        })
    }

    fn predict(&self, t_ns: i64, span_ns: i64) -> Option<[f64; 2]> {
        let last = self.history.back()?;
        let dt = (t_ns.saturating_sub(last.capture_ns)) as f64 * 1e-9;
        match self.fit(span_ns) {
            Some(f) if f.sightings >= 3 => Some([
                f.position_m[0] + f.velocity_mps[0] * dt,
                f.position_m[1] + f.velocity_mps[1] * dt,
            ]),
            _ => Some(last.ground_m),
        }
    }
}

/// The tracker.
#[derive(Clone, Debug, Default)]
pub struct MoverTracker {
    cfg: TrackConfig,
    tracks: Vec<MoverTrack>,
    next_id: u32,
    dropped: u64,
}

impl MoverTracker {
    /// A tracker with `cfg`.
    pub fn new(cfg: TrackConfig) -> Self {
        Self {
            cfg,
            tracks: Vec::new(),
            next_id: 1,
            dropped: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &TrackConfig {
        &self.cfg
    }

    /// Tracks dropped to make room (beyond [`MAX_TRACKS`]).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The live tracks.
    pub fn tracks(&self) -> &[MoverTrack] {
        &self.tracks
    }

    /// Folds in the sightings of one frame (all at one capture time); tracks unseen for
    /// [`TrackConfig::forget_ns`] are dropped first. Each track takes at most one
    /// sighting of a frame.
    pub fn update(&mut self, capture_ns: i64, sightings: &[Sighting]) {
        let c = self.cfg;
        self.tracks
            .retain(|t| capture_ns.saturating_sub(t.last_ns) <= c.forget_ns);
        let mut taken = vec![false; self.tracks.len()];
        let mut order: Vec<&Sighting> = sightings.iter().collect();
        order.sort_by_key(|s| std::cmp::Reverse(s.pixels));
        for s in order {
            let gate = c.gate_m + c.gate_per_m * s.range_m;
            let best = self
                .tracks
                .iter()
                .enumerate()
                .filter(|(i, _)| !taken.get(*i).copied().unwrap_or(true))
                .filter_map(|(i, t)| {
                    let p = t.predict(s.capture_ns, c.fit_span_ns)?;
                    let d = (p[0] - s.ground_m[0]).hypot(p[1] - s.ground_m[1]);
                    (d <= gate).then_some((i, d))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match best {
                Some((i, _)) => {
                    if let (Some(t), Some(f)) = (self.tracks.get_mut(i), taken.get_mut(i)) {
                        *f = true;
                        t.last_ns = s.capture_ns.max(t.last_ns);
                        if t.history.len() >= MAX_HISTORY {
                            t.history.pop_front();
                        }
                        t.history.push_back(*s);
                    }
                }
                None => {
                    if self.tracks.len() >= MAX_TRACKS {
                        if let Some(oldest) = self
                            .tracks
                            .iter()
                            .enumerate()
                            .min_by_key(|(_, t)| (t.last_ns, t.id))
                            .map(|(i, _)| i)
                        {
                            self.tracks.remove(oldest);
                            taken.remove(oldest);
                            self.dropped += 1;
                        }
                    }
                    let id = self.next_id.max(1);
                    self.next_id = id.checked_add(1).unwrap_or(1);
                    self.tracks.push(MoverTrack {
                        id,
                        first_ns: s.capture_ns,
                        last_ns: s.capture_ns,
                        history: VecDeque::from([*s]),
                    });
                    taken.push(true);
                }
            }
        }
        self.drop_parts();
    }

    /// Drops each track that is another part of an older track's vehicle: both fitted
    /// over at least three sightings, moving faster than half the vehicle speed, within
    /// [`SAME_VEHICLE_M`] and [`SAME_VEHICLE_DEG`] of each other.
    fn drop_parts(&mut self) {
        let c = self.cfg;
        let fits: Vec<Option<MoverFit>> = self
            .tracks
            .iter()
            .map(|t| {
                t.fit(c.fit_span_ns).filter(|f| {
                    f.sightings >= 3
                        && f.velocity_mps[0].hypot(f.velocity_mps[1]) >= c.min_speed_mps / 2.0
                })
            })
            .collect();
        let same = |a: &MoverFit, b: &MoverFit| {
            let (va, vb) = (a.velocity_mps, b.velocity_mps);
            let (na, nb) = (va[0].hypot(va[1]), vb[0].hypot(vb[1]));
            let cos = (va[0] * vb[0] + va[1] * vb[1]) / (na * nb);
            let (dx, dy) = (
                b.position_m[0] - a.position_m[0],
                b.position_m[1] - a.position_m[1],
            );
            let along = (dx * va[0] + dy * va[1]) / na;
            let across = (-dx * va[1] + dy * va[0]) / na;
            let grow = c.gate_per_m * a.range_m.max(b.range_m);
            cos >= SAME_VEHICLE_DEG.to_radians().cos()
                && along.abs() <= SAME_VEHICLE_M + 2.0 * grow
                && across.abs() <= SAME_VEHICLE_ACROSS_M + grow
        };
        // Seen (at the same time) within the extent of `a`, and not nearer.
        let behind = |a: &Sighting, b: &Sighting| {
            let az = (b.ground_m[1] - b.origin_m[1]).atan2(b.ground_m[0] - b.origin_m[0]);
            let m = BEHIND_MARGIN_DEG.to_radians();
            let [lo, hi] = a.azimuth_rad;
            let rel = (az - lo).rem_euclid(std::f64::consts::TAU);
            a.capture_ns.abs_diff(b.capture_ns) <= 150_000_000
                && (rel <= hi - lo + m || rel >= std::f64::consts::TAU - m)
                && b.range_m >= a.range_m - 1.0
        };
        let mut keep = vec![true; self.tracks.len()];
        for (j, tj) in self.tracks.iter().enumerate() {
            let fj = fits.get(j).copied().flatten();
            let part = self.tracks.iter().enumerate().any(|(i, ti)| {
                let Some(fi) = fits.get(i).copied().flatten() else {
                    return false;
                };
                let older = (ti.first_ns, ti.id) < (tj.first_ns, tj.id);
                let hidden = match (ti.history.back(), tj.history.back()) {
                    (Some(a), Some(b)) => fi.sightings >= c.min_sightings && behind(a, b),
                    _ => false,
                };
                i != j
                    && keep.get(i).copied().unwrap_or(false)
                    && older
                    && (fj.is_some_and(|fj| same(&fi, &fj)) || hidden)
            });
            if part {
                if let Some(k) = keep.get_mut(j) {
                    *k = false;
                }
            }
        }
        let mut it = keep.into_iter();
        self.tracks.retain(|_| it.next().unwrap_or(true));
    }

    /// The tracks that are vehicles now, with their fits.
    pub fn vehicles(&self) -> Vec<(&MoverTrack, MoverFit)> {
        let c = &self.cfg;
        self.tracks
            .iter()
            .filter_map(|t| {
                let f = t.fit(c.fit_span_ns)?;
                let speed = f.velocity_mps[0].hypot(f.velocity_mps[1]);
                let ok = f.sightings >= c.min_sightings
                    && f.span_ns >= c.min_span_ns
                    && speed >= c.min_speed_mps
                    && speed <= c.max_speed_mps
                    && f.residual_m <= c.max_residual_m + c.gate_per_m * f.range_m
                    && f.height_m >= c.min_height_m
                    && f.height_m <= c.max_height_m;
                ok.then_some((t, f))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sighting(t_s: f64, x: f64, y: f64) -> Sighting {
        Sighting {
            capture_ns: (t_s * 1e9) as i64,
            camera: 0,
            ground_m: [x, y],
            range_m: x.hypot(y),
            height_m: 1.5,
            width_m: 2.0,
            pixels: 20,
            origin_m: [0.0, 0.0],
            azimuth_rad: {
                let az = y.atan2(x);
                let half = (1.0 / x.hypot(y)).atan();
                [az - half, az + half]
            },
        }
    }

    #[test]
    fn a_car_driving_past_becomes_a_vehicle_with_its_velocity() {
        let mut tr = MoverTracker::new(TrackConfig::default());
        for i in 0..8 {
            let t = 1.0 + 0.1 * f64::from(i);
            // 8 m/s along −y at x = 5, with ±0.3 m of range noise.
            let noise = if i % 2 == 0 { 0.3 } else { -0.3 };
            tr.update(
                (t * 1e9) as i64,
                &[sighting(t, 5.0 + noise, 20.0 - 8.0 * (t - 1.0))],
            );
            let v = tr.vehicles();
            if i < 3 {
                assert!(v.is_empty(), "too early at {i}");
            }
        }
        let v = tr.vehicles();
        assert_eq!(v.len(), 1);
        let f = v[0].1;
        assert!((f.velocity_mps[1] + 8.0).abs() < 0.5, "{f:?}");
        assert!(f.velocity_mps[0].abs() < 0.5, "{f:?}");
        assert!((f.position_m[1] - (20.0 - 8.0 * 0.7)).abs() < 0.5, "{f:?}");
        assert_eq!(tr.tracks().len(), 1);
    }

    #[test]
    fn a_walker_a_jumping_blob_and_a_low_thing_are_not_vehicles() {
        let mut walker = MoverTracker::new(TrackConfig::default());
        let mut jumper = MoverTracker::new(TrackConfig::default());
        let mut low = MoverTracker::new(TrackConfig::default());
        for i in 0..10 {
            let t = 0.1 * f64::from(i);
            let ns = (t * 1e9) as i64;
            walker.update(ns, &[sighting(t, 6.0, 1.4 * t)]);
            // Range from the ground contact jumping ±3 m about a fixed place: fast on
            // paper, but not along a line.
            let j = if i % 2 == 0 { 3.0 } else { -3.0 };
            jumper.update(ns, &[sighting(t, 15.0 + j, 0.0)]);
            let mut s = sighting(t, 8.0, 10.0 - 8.0 * t);
            s.height_m = 0.3;
            low.update(ns, &[s]);
        }
        assert!(walker.vehicles().is_empty());
        assert!(jumper.vehicles().is_empty());
        assert!(low.vehicles().is_empty());
    }

    #[test]
    fn the_rear_of_a_car_is_not_a_second_vehicle_but_a_second_car_beside_it_is() {
        let mut tr = MoverTracker::new(TrackConfig::default());
        for i in 0..10 {
            let t = 0.1 * f64::from(i);
            let ns = (t * 1e9) as i64;
            let front = sighting(t, 5.0, 20.0 - 8.0 * t);
            // The rear edge, 4 m behind, seen from the fourth frame on.
            let rear = sighting(t, 5.2, 24.0 - 8.0 * t);
            // Another car on the far lane, driving the other way.
            let other = sighting(t, 9.0, -20.0 + 8.0 * t);
            if i < 3 {
                tr.update(ns, &[front, other]);
            } else {
                tr.update(ns, &[front, rear, other]);
            }
        }
        let v = tr.vehicles();
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(v
            .iter()
            .any(|(_, f)| f.velocity_mps[1] < -7.0 && f.position_m[1] < 14.0));
        assert!(v.iter().any(|(_, f)| f.velocity_mps[1] > 7.0));
    }

    #[test]
    fn what_is_seen_behind_a_vehicle_is_part_of_it() {
        let mut tr = MoverTracker::new(TrackConfig::default());
        for i in 0..10 {
            let t = 0.1 * f64::from(i);
            let ns = (t * 1e9) as i64;
            // The car 3 m ahead moving across, 2 m wide as seen.
            let car = sighting(t, 3.0, 2.0 - 8.0 * t);
            // Its roof line, ranged on the road 9 m away in the same direction, drifting.
            let s = car.ground_m[1].atan2(car.ground_m[0]);
            let roof = sighting(t, 9.0 * s.cos(), 9.0 * s.sin() + 0.5 * t);
            tr.update(ns, &[car, roof]);
        }
        let v = tr.vehicles();
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(v[0].1.position_m[0] < 4.0);
    }

    #[test]
    fn tracks_are_bounded_and_forgotten() {
        let mut tr = MoverTracker::new(TrackConfig::default());
        let far_apart: Vec<Sighting> = (0..(MAX_TRACKS + 4))
            .map(|i| sighting(0.0, 10.0 * i as f64, 100.0))
            .collect();
        tr.update(0, &far_apart);
        assert_eq!(tr.tracks().len(), MAX_TRACKS);
        assert_eq!(tr.dropped(), 4);
        tr.update(1_000_000_000, &[]);
        assert!(tr.tracks().is_empty());
    }
}
