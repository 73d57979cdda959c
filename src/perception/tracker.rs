//! Stable thing ids and velocities (pure): each tick's detections (clusters and floor
//! edges, with world positions) are matched greedily, nearest first, to the tracks of the
//! same kind within [`ASSOCIATE_M`] of where each track's velocity puts it now; unmatched
//! detections start new tracks, tracks unseen for the configured time are forgotten. A
//! track's velocity is the least-squares slope of its last [`HISTORY`] positions spanning at
//! least [`MIN_SPAN_NS`] (`None` before that).
//!
//! Ticks come faster than depth frames: the detections of ticks between two frames, or
//! while the newest frames add nothing to a thing, are the same evidence seen again. A
//! track keeps one position per piece of evidence, stamped with its capture time (a tick
//! with no newer evidence refreshes the newest position), so the slope is measured over
//! capture times: the repeats made a staircase whose slope a still thing's one jump (its
//! points coming and going) turned into a walk.

use crate::state::ThingKind;

/// Largest horizontal distance between a track and its next detection, m.
pub const ASSOCIATE_M: f32 = 0.8;
/// Tracks kept at most (the oldest-seen is forgotten first, counted).
pub const MAX_TRACKS: usize = 256;
/// Positions kept per track for its velocity.
pub const HISTORY: usize = 8;
/// A velocity needs positions spanning at least this long, ns.
pub const MIN_SPAN_NS: i64 = 200_000_000;
/// A velocity needs at least this many positions: two are one jump, which a still
/// thing's centroid makes as its points come and go.
pub const MIN_FIT_POSITIONS: usize = 3;
/// Predicted moves longer than this are not trusted for association, m.
const MAX_PREDICT_M: f32 = 0.5;

/// One tracked thing.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    /// Stable id.
    pub id: u32,
    /// Kind.
    pub kind: ThingKind,
    /// Last world position (horizontal), m.
    pub xy_m: [f32; 2],
    /// First seen, device ns.
    pub first_seen_ns: i64,
    /// Last seen, device ns.
    pub last_seen_ns: i64,
    /// Recent `(device ns, [x, y] m)`, oldest first, at most [`HISTORY`].
    history: Vec<(i64, [f32; 2])>,
}

impl Track {
    /// Velocity over the recent positions, `[x, y]` m/s: the least-squares slope of at
    /// least [`MIN_FIT_POSITIONS`]; `None` while there are fewer or they span less than
    /// [`MIN_SPAN_NS`].
    pub fn velocity_mps(&self) -> Option<[f32; 2]> {
        let (first, last) = (self.history.first()?, self.history.last()?);
        if last.0.saturating_sub(first.0) < MIN_SPAN_NS || self.history.len() < MIN_FIT_POSITIONS {
            return None;
        }
        let n = self.history.len() as f64;
        let t0 = first.0;
        let ts = |t: i64| (t - t0) as f64 * 1e-9;
        let mt = self.history.iter().map(|h| ts(h.0)).sum::<f64>() / n;
        let sxx: f64 = self.history.iter().map(|h| (ts(h.0) - mt).powi(2)).sum();
        if sxx <= 0.0 {
            return None;
        }
        let mut v = [0.0f32; 2];
        for (k, out) in v.iter_mut().enumerate() {
            let coord = |h: &(i64, [f32; 2])| f64::from(h.1.get(k).copied().unwrap_or(0.0));
            let mx = self.history.iter().map(coord).sum::<f64>() / n;
            let sxy: f64 = self
                .history
                .iter()
                .map(|h| (ts(h.0) - mt) * (coord(h) - mx))
                .sum();
            *out = (sxy / sxx) as f32;
        }
        v.iter().all(|x| x.is_finite()).then_some(v)
    }

    fn predicted(&self, t_ns: i64) -> [f32; 2] {
        let Some(v) = self.velocity_mps() else {
            return self.xy_m;
        };
        let newest = self.history.last().map_or(self.last_seen_ns, |h| h.0);
        let dt = (t_ns.saturating_sub(newest)) as f32 * 1e-9;
        let (dx, dy) = (v[0] * dt, v[1] * dt);
        let len = dx.hypot(dy);
        let k = if len > MAX_PREDICT_M {
            MAX_PREDICT_M / len
        } else {
            1.0
        };
        [self.xy_m[0] + dx * k, self.xy_m[1] + dy * k]
    }

    /// Seen at tick `t_ns` at `xy`, on evidence captured at `evidence_ns`: a new position
    /// when the evidence is newer than the newest position's, else that position refreshed.
    fn observe(&mut self, t_ns: i64, evidence_ns: i64, xy: [f32; 2]) {
        match self.history.last_mut() {
            Some(last) if evidence_ns <= last.0 => last.1 = xy,
            _ => {
                if self.history.len() >= HISTORY {
                    self.history.remove(0);
                }
                self.history.push((evidence_ns, xy));
            }
        }
        self.xy_m = xy;
        self.last_seen_ns = t_ns;
    }
}

/// One thing detected at a tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    /// Its kind.
    pub kind: ThingKind,
    /// Where it is, world `[x, y]`, m.
    pub xy_m: [f32; 2],
    /// When the newest evidence it was made from was captured, device ns (at most the
    /// tick): the same for ticks between two depth frames, or while new frames add
    /// nothing to it.
    pub evidence_ns: i64,
}

/// What the tracker says about one detection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackRef {
    /// Stable id (0: dropped, the tracker is full of current tracks).
    pub id: u32,
    /// First seen, device ns.
    pub first_seen_ns: i64,
    /// Velocity, `[x, y]` m/s, when known.
    pub velocity_mps: Option<[f32; 2]>,
    /// The oldest position it keeps, world `[x, y]` m.
    pub oldest_m: Option<[f32; 2]>,
    /// When that position was seen, device ns: its velocity is measured since.
    pub oldest_ns: Option<i64>,
}

/// The tracker.
#[derive(Clone, Debug)]
pub struct ThingTracker {
    tracks: Vec<Track>,
    next_id: u32,
    forget_after_ns: i64,
    forgotten_for_space: u64,
}

fn same_class(a: ThingKind, b: ThingKind) -> bool {
    let ob = |k| matches!(k, ThingKind::Obstacle | ThingKind::Overhead);
    a == b || (ob(a) && ob(b))
}

impl ThingTracker {
    /// Forgets tracks unseen for `forget_after_ns`.
    pub fn new(forget_after_ns: i64) -> Self {
        Self {
            tracks: Vec::new(),
            next_id: 1,
            forget_after_ns,
            forgotten_for_space: 0,
        }
    }

    /// Matches the `detections` seen at tick `t_ns`; returns one [`TrackRef`] per
    /// detection, in order.
    pub fn update(&mut self, t_ns: i64, detections: &[Detection]) -> Vec<TrackRef> {
        let horizon = self.forget_after_ns;
        self.tracks
            .retain(|t| t_ns.saturating_sub(t.last_seen_ns) <= horizon);
        let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
        for (di, det) in detections.iter().enumerate() {
            for (ti, t) in self.tracks.iter().enumerate() {
                if !same_class(det.kind, t.kind) {
                    continue;
                }
                let at = t.predicted(t_ns);
                let d = (det.xy_m[0] - at[0]).hypot(det.xy_m[1] - at[1]);
                if d <= ASSOCIATE_M {
                    pairs.push((d, di, ti));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut det_track: Vec<Option<usize>> = vec![None; detections.len()];
        let mut taken = vec![false; self.tracks.len()];
        for (_, di, ti) in pairs {
            let free = taken.get(ti).is_some_and(|t| !t);
            if free && det_track.get(di).is_some_and(Option::is_none) {
                if let (Some(t), Some(d)) = (taken.get_mut(ti), det_track.get_mut(di)) {
                    *t = true;
                    *d = Some(ti);
                }
            }
        }
        let none = TrackRef {
            id: 0,
            first_seen_ns: t_ns,
            velocity_mps: None,
            oldest_m: None,
            oldest_ns: None,
        };
        let mut out: Vec<TrackRef> = vec![none; detections.len()];
        for (di, det) in detections.iter().enumerate() {
            let Some(ti) = det_track.get(di).copied().flatten() else {
                continue;
            };
            if let (Some(t), Some(o)) = (self.tracks.get_mut(ti), out.get_mut(di)) {
                t.kind = det.kind;
                t.observe(t_ns, det.evidence_ns.min(t_ns), det.xy_m);
                *o = TrackRef {
                    id: t.id,
                    first_seen_ns: t.first_seen_ns,
                    velocity_mps: t.velocity_mps(),
                    oldest_m: t.history.first().map(|h| h.1),
                    oldest_ns: t.history.first().map(|h| h.0),
                };
            }
        }
        for (di, det) in detections.iter().enumerate() {
            if det_track.get(di).copied().flatten().is_some() {
                continue;
            }
            if self.tracks.len() >= MAX_TRACKS {
                let oldest = self
                    .tracks
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.last_seen_ns < t_ns)
                    .min_by_key(|(_, t)| t.last_seen_ns)
                    .map(|(i, _)| i);
                match oldest {
                    Some(i) => {
                        self.tracks.remove(i);
                        self.forgotten_for_space += 1;
                    }
                    None => continue,
                }
            }
            let id = self.next_id;
            self.next_id = self.next_id.checked_add(1).unwrap_or(1);
            self.tracks.push(Track {
                id,
                kind: det.kind,
                xy_m: det.xy_m,
                first_seen_ns: t_ns,
                last_seen_ns: t_ns,
                history: vec![(det.evidence_ns.min(t_ns), det.xy_m)],
            });
            if let Some(o) = out.get_mut(di) {
                *o = TrackRef {
                    id,
                    first_seen_ns: t_ns,
                    velocity_mps: None,
                    oldest_m: Some(det.xy_m),
                    oldest_ns: Some(det.evidence_ns.min(t_ns)),
                };
            }
        }
        out
    }

    /// Tracks forgotten to make room.
    pub fn forgotten_for_space(&self) -> u64 {
        self.forgotten_for_space
    }

    /// Live tracks.
    pub fn tracks(&self) -> &[Track] {
        &self.tracks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `detections` seen at tick `t_ns` on evidence captured at `evidence_ns`.
    fn seen(
        tr: &mut ThingTracker,
        t_ns: i64,
        evidence_ns: i64,
        detections: &[(ThingKind, [f32; 2])],
    ) -> Vec<TrackRef> {
        let dets: Vec<Detection> = detections
            .iter()
            .map(|&(kind, xy_m)| Detection {
                kind,
                xy_m,
                evidence_ns,
            })
            .collect();
        tr.update(t_ns, &dets)
    }

    #[test]
    fn ids_survive_small_moves_and_are_forgotten() {
        let mut tr = ThingTracker::new(1_000);
        let a = seen(
            &mut tr,
            0,
            0,
            &[
                (ThingKind::Obstacle, [1.0, 0.0]),
                (ThingKind::DropOff, [3.0, 0.0]),
            ],
        );
        let (ia, ib) = (a[0].id, a[1].id);
        assert_ne!(ia, ib);
        // Moved a little, order swapped: same ids.
        let b = seen(
            &mut tr,
            100,
            100,
            &[
                (ThingKind::DropOff, [3.2, 0.1]),
                (ThingKind::Overhead, [1.3, 0.1]),
            ],
        );
        assert_eq!((b[0].id, b[1].id), (ib, ia));
        // Far away: a new id.
        let c = seen(&mut tr, 200, 200, &[(ThingKind::Obstacle, [5.0, 0.0])]);
        assert!(c[0].id != ia && c[0].id != ib);
        // After the horizon the first two are gone.
        seen(&mut tr, 1_500, 1_500, &[]);
        assert_eq!(tr.tracks().len(), 0);
    }

    #[test]
    fn velocity_of_a_walking_person_and_of_a_still_box() {
        // A person crossing at (0.3, −1.1) m/s seen every 50 ms with ±2 cm jitter, a box
        // still at (5, 5) with the same jitter.
        let mut tr = ThingTracker::new(1_000_000_000);
        let jitter = |i: i64| if i % 2 == 0 { 0.02 } else { -0.02 };
        let mut last = Vec::new();
        for i in 0..20i64 {
            let t = i * 50_000_000;
            let s = t as f32 * 1e-9;
            last = seen(
                &mut tr,
                t,
                t,
                &[
                    (
                        ThingKind::Person,
                        [1.0 + 0.3 * s + jitter(i), 2.0 - 1.1 * s],
                    ),
                    (ThingKind::Obstacle, [5.0, 5.0 + jitter(i)]),
                ],
            );
            if i < 4 {
                // 150 ms of history: not yet.
                assert_eq!(last[0].velocity_mps, None);
            }
        }
        let v = last[0].velocity_mps.unwrap();
        // The alternating ±2 cm over 8 samples 50 ms apart moves a slope by at most
        // 0.04 m / 0.35 s ≈ 0.11 m/s; the slope of the straight part is exact.
        assert!(
            (v[0] - 0.3).abs() < 0.12 && (v[1] + 1.1).abs() < 1e-3,
            "{v:?}"
        );
        let b = last[1].velocity_mps.unwrap();
        assert!(b[0].abs() < 1e-6 && b[1].abs() < 0.12, "{b:?}");
        // One id each throughout.
        assert_eq!(tr.tracks().len(), 2);
    }

    /// Ticks every 50 ms over depth frames every 200 ms: each tick's detection is where the
    /// newest frame put the thing.
    fn ticks_over_frames(frames: &[[f32; 2]], kind: ThingKind) -> (ThingTracker, Vec<TrackRef>) {
        let mut tr = ThingTracker::new(10_000_000_000);
        let mut last = Vec::new();
        for tick in 0..(frames.len() as i64 * 4) {
            let t = tick * 50_000_000;
            let frame = tick / 4;
            let xy = frames[frame as usize];
            last = seen(&mut tr, t, frame * 200_000_000, &[(kind, xy)]);
        }
        (tr, last)
    }

    #[test]
    fn a_walk_seen_again_between_frames_is_measured_over_the_frames() {
        // Walking at 1.2 m/s along x, one depth frame every 200 ms, ticks four times as
        // often. Stamped with the ticks, the repeated positions make a staircase whose
        // slope over 8 ticks (350 ms) is anything from 0.7 to 2.4 m/s depending on the
        // phase; stamped with the frames, the slope is exact.
        let frames: Vec<[f32; 2]> = (0..6).map(|i| [1.2 * 0.2 * i as f32, 3.0]).collect();
        let (tr, last) = ticks_over_frames(&frames, ThingKind::Person);
        let v = tr.tracks()[0].velocity_mps().unwrap();
        assert!((v[0] - 1.2).abs() < 1e-3 && v[1].abs() < 1e-3, "{v:?}");
        assert_eq!(last[0].velocity_mps, Some(v));
    }

    #[test]
    fn a_still_thing_whose_points_come_and_go_stays_still() {
        // A box still at y = 1 m whose cluster's centroid wanders by up to 0.15 m from frame
        // to frame as its points come and go. Stamped with the ticks, the last two frames'
        // 0.25 m jump repeated over 8 ticks is a slope of 0.95 m/s (a walk); stamped with
        // the frames, the wander averages out to 0.04 m/s.
        let frames = [
            [2.0, 1.0],
            [2.0, 1.12],
            [2.0, 0.95],
            [2.0, 1.15],
            [2.0, 0.9],
            [2.0, 1.15],
        ];
        let (tr, _) = ticks_over_frames(&frames, ThingKind::Obstacle);
        let v = tr.tracks()[0].velocity_mps().unwrap();
        let moving = crate::perception::engine::MOVING_MPS;
        assert!(v[0].hypot(v[1]) < 0.1, "{v:?}");
        // The same detections with every tick taken for new evidence.
        let mut ticks = ThingTracker::new(10_000_000_000);
        for tick in 0..(frames.len() as i64 * 4) {
            let t = tick * 50_000_000;
            seen(
                &mut ticks,
                t,
                t,
                &[(ThingKind::Obstacle, frames[(tick / 4) as usize])],
            );
        }
        let stair = ticks.tracks()[0].velocity_mps().unwrap();
        assert!(stair[0].hypot(stair[1]) > 2.0 * moving, "{stair:?}");
    }

    #[test]
    fn no_fit_from_two_positions() {
        // Two frames fit any line exactly: no velocity, however far apart in time.
        let mut tr = ThingTracker::new(10_000_000_000);
        seen(&mut tr, 0, 0, &[(ThingKind::Person, [0.0, 0.0])]);
        let r = seen(
            &mut tr,
            500_000_000,
            500_000_000,
            &[(ThingKind::Person, [0.5, 0.0])],
        );
        assert_eq!(r[0].velocity_mps, None);
        // A tick on the same evidence adds nothing.
        let r = seen(
            &mut tr,
            550_000_000,
            500_000_000,
            &[(ThingKind::Person, [0.5, 0.0])],
        );
        assert_eq!(r[0].velocity_mps, None);
        let r = seen(
            &mut tr,
            700_000_000,
            700_000_000,
            &[(ThingKind::Person, [0.7, 0.0])],
        );
        assert!((r[0].velocity_mps.unwrap()[0] - 1.0).abs() < 1e-3, "{r:?}");
    }
}
