//! The wearer's walking line (pure): the head positions of the last [`SWAY_SPAN_NS`] give
//! the walking direction (their mean velocity: the stride's sideways sway averages out of
//! it), the head's short-term velocity (the closing speed) and the sway offset (how far
//! the head is beside the walking line).
//!
//! A stop does not end the walking line: someone who stops and walks on the way they face
//! keeps it, and the positions from before the stop still steady the direction. A turn
//! while standing does end it: when the walk before the last moment the head stood still
//! went another way (more than [`TURN_RAD`]) than the walk since (or, before that walk is
//! long enough to tell, than where the head faces), only the positions since count. The
//! chord across the stop otherwise bends the corridor toward the old line for up to
//! [`SWAY_SPAN_NS`] after the turn (a wall beside the new line, a bin on it missed).

use std::collections::VecDeque;

use nalgebra::Vector3;

use super::geom::{wrap_deg, yaw_of};

/// The closing speed is measured over this span (shorter than the pose tracker's 1 s, so
/// that setting off is seen at once), ns.
pub const FAST_SPAN_NS: i64 = 250_000_000;
/// Head positions kept for it (and for the sway) at most this often, ns.
const FAST_EVERY_NS: i64 = 20_000_000;
/// The corridor starts on the walking line: the head's sideways sway is averaged out
/// over about one stride, ns...
pub const SWAY_SPAN_NS: i64 = 2_000_000_000;
/// ...by at most this much, m.
pub const MAX_SWAY_M: f64 = 0.05;
/// The whole track gives the direction once it spans this long, ns.
const TRACK_MIN_NS: i64 = 1_000_000_000;
/// The head stands still when it moved less than this over [`FAST_SPAN_NS`], m (0.12 m/s;
/// the slowest walk, 0.35 m/s down stairs, covers 0.09 m).
pub const STILL_M: f64 = 0.03;
/// A chord of the head track gives the walking direction when it is at least this long, m
/// (the head's ±2 cm sway then turns it by 4° at most).
pub const LINE_MIN_M: f64 = 0.3;
/// The walk before a stop is compared with the walk after it when it moved the head at
/// least this far within the track, m: shorter, the chord across the stop points the way
/// of the walk after it anyway; longer (the tail of a walk slowing down before a turn),
/// it bends that chord toward the walk before.
pub const BEFORE_MIN_M: f64 = 0.1;
/// ...and the walk after a stop once it is this long, m, and this old, ns (the head's
/// ±2 cm sway then bends its chord by 4° at most).
pub const SINCE_STILL_M: f64 = 0.3;
/// See [`SINCE_STILL_M`].
pub const SINCE_STILL_NS: i64 = 300_000_000;
/// Walks before and after a stop more than this far apart in direction are two lines (a
/// turn on the spot), radians (15°: three times the chords' error; a turn to walk
/// elsewhere is larger).
pub const TURN_RAD: f64 = 0.2618;

/// The head track and the last time the head stood still.
#[derive(Clone, Debug, Default)]
pub struct WalkingTrack {
    track: VecDeque<(i64, Vector3<f64>)>,
    /// The last time the head stood still (see [`STILL_M`]) and where, ns and m.
    still: Option<(i64, Vector3<f64>)>,
}

impl WalkingTrack {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Self {
            track: VecDeque::with_capacity(128),
            still: None,
        }
    }

    /// Folds in the head position `p` at `t` (kept every [`FAST_EVERY_NS`], for
    /// [`SWAY_SPAN_NS`]; bounded).
    pub fn push(&mut self, t: i64, p: Vector3<f64>) {
        let due = self
            .track
            .back()
            .is_none_or(|&(last, _)| t.saturating_sub(last) >= FAST_EVERY_NS);
        if !due {
            return;
        }
        self.track.push_back((t, p));
        while self
            .track
            .front()
            .is_some_and(|&(old, _)| t.saturating_sub(old) > SWAY_SPAN_NS)
        {
            self.track.pop_front();
        }
        let from = t.saturating_sub(FAST_SPAN_NS);
        if let Some(&(t0, p0)) = self.track.iter().find(|(tt, _)| *tt >= from) {
            let moved = (p.x - p0.x).hypot(p.y - p0.y);
            if (t - t0).saturating_mul(2) >= FAST_SPAN_NS && moved < STILL_M {
                self.still = Some((t, p));
            }
        }
    }

    /// When the track holds a turn on the spot: the time the head last stood still, from
    /// which the walking line is measured. The head is at `now_m` (world, m) facing
    /// `head_yaw` (radians counter-clockwise from +x).
    pub fn turned_since(&self, now_m: &Vector3<f64>, head_yaw: f64) -> Option<i64> {
        let (ts, ps) = self.still?;
        let &(t0, p0) = self.track.front()?;
        if t0 >= ts {
            return None;
        }
        let before = ps - p0;
        if before.x.hypot(before.y) < BEFORE_MIN_M {
            return None;
        }
        let before_yaw = yaw_of(&before)?;
        let after = now_m - ps;
        let after_yaw = if after.x.hypot(after.y) >= SINCE_STILL_M {
            yaw_of(&after)?
        } else {
            head_yaw
        };
        let diff = f64::from(wrap_deg((after_yaw - before_yaw).to_degrees() as f32));
        (diff.abs().to_radians() > TURN_RAD).then_some(ts)
    }

    /// The head's mean velocity, from the head at `now_m` at `now_ns`: over the whole
    /// track (up to [`SWAY_SPAN_NS`], at least 1 s), or, after a turn on the spot
    /// (`since`, from [`Self::turned_since`]), since then (at least [`SINCE_STILL_NS`] and
    /// [`SINCE_STILL_M`]), m/s.
    pub fn velocity(
        &self,
        now_ns: i64,
        now_m: &Vector3<f64>,
        since: Option<i64>,
    ) -> Option<Vector3<f64>> {
        let &(t0, p0) = match since {
            None => self.track.front()?,
            Some(s) => self.track.iter().find(|(t, _)| *t >= s)?,
        };
        let dt_ns = now_ns.saturating_sub(t0);
        let d = now_m - p0;
        let enough = match since {
            None => dt_ns >= TRACK_MIN_NS,
            Some(_) => dt_ns >= SINCE_STILL_NS && d.x.hypot(d.y) >= SINCE_STILL_M,
        };
        enough.then(|| d / (dt_ns as f64 * 1e-9))
    }

    /// The walking line's direction from the head at `now_m` at `now_ns`: the chord of the
    /// whole track (at least 1 s) or, after a turn on the spot (`since`), of the track
    /// since (at least [`SINCE_STILL_NS`]), when it is at least [`LINE_MIN_M`] long, m. Its
    /// direction does not need the track's mean speed to be a walking one: walking slowly
    /// (down a curb at 0.5 m/s) a 1 s chord is a third of a stride and the head's sway turns
    /// it by up to 4°, while the whole track's is the longest there is.
    pub fn line(
        &self,
        now_ns: i64,
        now_m: &Vector3<f64>,
        since: Option<i64>,
    ) -> Option<Vector3<f64>> {
        let &(t0, p0) = match since {
            None => self.track.front()?,
            Some(s) => self.track.iter().find(|(t, _)| *t >= s)?,
        };
        let min_ns = if since.is_some() {
            SINCE_STILL_NS
        } else {
            TRACK_MIN_NS
        };
        let d = now_m - p0;
        (now_ns.saturating_sub(t0) >= min_ns && d.x.hypot(d.y) >= LINE_MIN_M).then_some(d)
    }

    /// The head's velocity over the last [`FAST_SPAN_NS`] (at least half of it), m/s.
    pub fn fast_velocity(&self, now_ns: i64, now_m: &Vector3<f64>) -> Option<Vector3<f64>> {
        let from = now_ns.saturating_sub(FAST_SPAN_NS);
        let &(t0, p0) = self.track.iter().find(|(tt, _)| *tt >= from)?;
        let dt = now_ns.saturating_sub(t0) as f64 * 1e-9;
        (dt * 2e9 >= FAST_SPAN_NS as f64).then(|| (now_m - p0) / dt)
    }

    /// While walking along `dir`, how far (m, to the left) the walking line is from the
    /// head: the mean sideways offset of the last stride's head positions (since `since`,
    /// after a turn on the spot), at most [`MAX_SWAY_M`].
    pub fn sway_offset_m(&self, walking: bool, dir: f64, since: Option<i64>) -> f64 {
        let (Some(&(_, now)), true) = (self.track.back(), walking) else {
            return 0.0;
        };
        let from = since.unwrap_or(i64::MIN);
        let (nx, ny) = (-dir.sin(), dir.cos());
        let (sum, n) = self
            .track
            .iter()
            .filter(|(t, _)| *t >= from)
            .fold((0.0, 0usize), |(s, n), (_, p)| {
                (s + (p.x - now.x) * nx + (p.y - now.y) * ny, n + 1)
            });
        let mean = sum / n.max(1) as f64;
        if mean.is_finite() {
            mean.clamp(-MAX_SWAY_M, MAX_SWAY_M)
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A head walking from `from` along `yaw` at `speed` for `dur_s` from `t0_s`, pushed
    /// every 10 ms; returns the end position.
    fn walk(
        w: &mut WalkingTrack,
        t0_s: f64,
        from: Vector3<f64>,
        yaw: f64,
        speed: f64,
        dur_s: f64,
    ) -> Vector3<f64> {
        let n = (dur_s * 100.0).round() as i64;
        let dir = Vector3::new(yaw.cos(), yaw.sin(), 0.0);
        for i in 0..=n {
            let dt = i as f64 * 0.01;
            w.push(((t0_s + dt) * 1e9) as i64, from + dir * (speed * dt));
        }
        from + dir * (speed * dur_s)
    }

    fn yaw_deg(v: &Vector3<f64>) -> f64 {
        v.y.atan2(v.x).to_degrees()
    }

    #[test]
    fn a_turn_on_the_spot_starts_a_new_line() {
        // 2 s along +x, 1 s standing while turning 90° left, then 0.5 s along +y.
        let mut w = WalkingTrack::new();
        let p = walk(&mut w, 0.0, Vector3::zeros(), 0.0, 1.0, 2.0);
        let p = walk(&mut w, 2.01, p, 0.0, 0.0, 1.0);
        let yaw = std::f64::consts::FRAC_PI_2;
        // Standing, facing the new way: already a new line.
        let since = w.turned_since(&p, yaw);
        assert!(since.is_some());
        let now = walk(&mut w, 3.02, p, yaw, 1.0, 0.5);
        let t = 3_520_000_000;
        let since = w.turned_since(&now, yaw);
        assert!(since.is_some());
        let v = w.velocity(t, &now, since).unwrap();
        assert!((yaw_deg(&v) - 90.0).abs() < 1.0, "{}", yaw_deg(&v));
        // The whole track's chord still points between the two lines.
        let v_all = w.velocity(t, &now, None).unwrap();
        assert!(yaw_deg(&v_all) < 60.0, "{}", yaw_deg(&v_all));
    }

    #[test]
    fn a_stop_without_a_turn_keeps_the_line() {
        // 2 s along +x, 1 s standing, then 0.5 s on along +x: one line, the whole track.
        let mut w = WalkingTrack::new();
        let p = walk(&mut w, 0.0, Vector3::zeros(), 0.0, 1.0, 2.0);
        let p = walk(&mut w, 2.01, p, 0.0, 0.0, 1.0);
        assert_eq!(w.turned_since(&p, 0.05), None);
        let now = walk(&mut w, 3.02, p, 0.0, 1.0, 0.5);
        assert_eq!(w.turned_since(&now, 0.0), None);
        let v = w.velocity(3_520_000_000, &now, None).unwrap();
        assert!(yaw_deg(&v).abs() < 0.1);
    }

    #[test]
    fn the_tail_of_the_walk_before_a_turn_does_not_bend_the_new_line() {
        // 2 s along +x, 1 s turning on the spot, 0.78 s along +y: the track's first 0.2 m
        // are the old walk's tail. The line is the new walk's, not the chord across both
        // (75°).
        let mut w = WalkingTrack::new();
        let p = walk(&mut w, 0.0, Vector3::zeros(), 0.0, 1.0, 2.0);
        let p = walk(&mut w, 2.01, p, 0.0, 0.0, 1.0);
        let yaw = std::f64::consts::FRAC_PI_2;
        let now = walk(&mut w, 3.02, p, yaw, 1.0, 0.78);
        let t = 3_800_000_000;
        let since = w.turned_since(&now, yaw);
        assert!(since.is_some());
        let d = w.line(t, &now, since).unwrap();
        assert!((yaw_deg(&d) - 90.0).abs() < 1.0, "{}", yaw_deg(&d));
    }

    #[test]
    fn a_slow_walk_slowing_to_a_stop_keeps_its_line() {
        // 1.2 s down a curb at 0.5 m/s, then standing 0.8 s: the track's mean speed is
        // 0.3 m/s at most, its chord still 0.6 m along the walk.
        let mut w = WalkingTrack::new();
        let p = walk(&mut w, 0.0, Vector3::zeros(), 0.1, 0.5, 1.2);
        let now = walk(&mut w, 1.21, p, 0.1, 0.0, 0.8);
        let t = 2_010_000_000;
        let v = w.velocity(t, &now, None).unwrap();
        assert!(v.norm() < 0.3, "{}", v.norm());
        let d = w.line(t, &now, None).unwrap();
        assert!(
            (yaw_deg(&d) - 0.1f64.to_degrees()).abs() < 0.1,
            "{}",
            yaw_deg(&d)
        );
    }

    #[test]
    fn standing_long_or_walking_on_is_no_turn() {
        // Standing for the whole track: nothing before the stop to compare with.
        let mut w = WalkingTrack::new();
        let p = walk(&mut w, 0.0, Vector3::zeros(), 0.0, 0.0, 3.0);
        assert_eq!(w.turned_since(&p, 1.0), None);
        // Walking without a stop: no still moment in the track.
        let mut w = WalkingTrack::new();
        let p = walk(&mut w, 0.0, Vector3::zeros(), 0.3, 1.0, 3.0);
        assert_eq!(w.turned_since(&p, 1.5), None);
        let v = w.velocity(3_000_000_000, &p, None).unwrap();
        assert!((yaw_deg(&v) - 0.3f64.to_degrees()).abs() < 0.1);
    }
}
