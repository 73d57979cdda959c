//! From aggregated bins to output channels (pure compute): validity masks, relative
//! trajectory, gaze unit vector, heading and pressure change. See `docs/window-channels.md`.

use nalgebra::{Quaternion, UnitQuaternion, Vector3};

use crate::window::spec::{GridStream, BINS, MAX_SLOTS};

/// Most output channels any stream has.
pub const MAX_CHANNELS: usize = 14;

/// One grid stream's aggregated slot values for the window's bins (oldest bin first).
#[derive(Clone, Debug, PartialEq)]
pub struct GridRaw {
    /// Per bin and slot: the aggregated value (meaningful where `n > 0`).
    pub vals: [[f64; MAX_SLOTS]; BINS],
    /// Per bin and slot: finite values aggregated.
    pub n: [[u32; MAX_SLOTS]; BINS],
}

impl Default for GridRaw {
    fn default() -> Self {
        Self {
            vals: [[0.0; MAX_SLOTS]; BINS],
            n: [[0; MAX_SLOTS]; BINS],
        }
    }
}

impl GridRaw {
    /// Clears every bin.
    pub fn clear(&mut self) {
        self.n = [[0; MAX_SLOTS]; BINS];
    }

    /// The value of `slot` in `bin`, if observed.
    pub fn get(&self, bin: usize, slot: usize) -> Option<f64> {
        let n = *self.n.get(bin)?.get(slot)?;
        if n == 0 {
            return None;
        }
        self.vals.get(bin)?.get(slot).copied()
    }

    fn count(&self, bin: usize, slot: usize) -> u32 {
        self.n
            .get(bin)
            .and_then(|b| b.get(slot))
            .copied()
            .unwrap_or(0)
    }

    fn get3(&self, bin: usize, first: usize) -> Option<Vector3<f64>> {
        Some(Vector3::new(
            self.get(bin, first)?,
            self.get(bin, first + 1)?,
            self.get(bin, first + 2)?,
        ))
    }
}

/// One grid stream's output channels before normalisation: `NaN` marks an optional channel
/// that was not observed in a valid bin; masked bins hold `NaN` everywhere.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelGrid {
    /// Per bin and channel.
    pub vals: [[f64; MAX_CHANNELS]; BINS],
    /// Per bin: valid.
    pub mask: [bool; BINS],
}

impl Default for ChannelGrid {
    fn default() -> Self {
        Self {
            vals: [[f64::NAN; MAX_CHANNELS]; BINS],
            mask: [false; BINS],
        }
    }
}

impl ChannelGrid {
    fn set(&mut self, bin: usize, ch: usize, v: Option<f64>) {
        if let Some(x) = self.vals.get_mut(bin).and_then(|b| b.get_mut(ch)) {
            *x = v.unwrap_or(f64::NAN);
        }
    }
    fn set3(&mut self, bin: usize, first: usize, v: Vector3<f64>) {
        for i in 0..3 {
            self.set(bin, first + i, Some(v[i]));
        }
    }
}

/// Computes `stream`'s channels from its aggregated bins into `out`.
pub fn compute(stream: GridStream, raw: &GridRaw, out: &mut ChannelGrid) {
    out.vals = [[f64::NAN; MAX_CHANNELS]; BINS];
    for bin in 0..BINS {
        let ok = stream
            .required_slots()
            .iter()
            .all(|&s| raw.get(bin, s).is_some());
        if let Some(m) = out.mask.get_mut(bin) {
            *m = ok;
        }
    }
    match stream {
        GridStream::Imu => imu(raw, out),
        GridStream::MagBaro => mag_baro(raw, out),
        GridStream::EyeGaze => eye_gaze(raw, out),
        GridStream::Hands => hands(raw, out),
        GridStream::Trajectory => trajectory(raw, out),
    }
    // Masked bins carry nothing.
    for bin in 0..BINS {
        if !out.mask.get(bin).copied().unwrap_or(false) {
            if let Some(b) = out.vals.get_mut(bin) {
                *b = [f64::NAN; MAX_CHANNELS];
            }
        }
    }
}

fn valid_bins(mask: [bool; BINS]) -> impl DoubleEndedIterator<Item = usize> {
    (0..BINS).filter(move |&b| mask.get(b).copied().unwrap_or(false))
}

fn imu(raw: &GridRaw, out: &mut ChannelGrid) {
    for bin in 0..BINS {
        for s in 0..12 {
            out.set(bin, s, raw.get(bin, s));
        }
    }
}

/// Heading (rad) of a field direction: its azimuth in the sensor's x–y plane.
fn azimuth_rad(v: &Vector3<f64>) -> f64 {
    v.y.atan2(v.x)
}

/// Wraps an angle to `[-π, π)`.
pub fn wrap_rad(a: f64) -> f64 {
    use std::f64::consts::PI;
    (a + PI).rem_euclid(2.0 * PI) - PI
}

fn mag_baro(raw: &GridRaw, out: &mut ChannelGrid) {
    // A zero field has no direction: the bin is not valid.
    for bin in 0..BINS {
        if raw.get3(bin, 0).is_some_and(|f| f.norm() <= 0.0) {
            if let Some(m) = out.mask.get_mut(bin) {
                *m = false;
            }
        }
    }
    let Some(anchor) = valid_bins(out.mask).next_back() else {
        return;
    };
    let (Some(f_end), Some(p_end)) = (raw.get3(anchor, 0), raw.get(anchor, 3)) else {
        return;
    };
    let heading_end = azimuth_rad(&f_end);
    for bin in valid_bins(out.mask) {
        let (Some(f), Some(p)) = (raw.get3(bin, 0), raw.get(bin, 3)) else {
            continue;
        };
        let dir = f / f.norm();
        out.set3(bin, 0, dir);
        out.set(bin, 3, Some(wrap_rad(azimuth_rad(&f) - heading_end)));
        out.set(bin, 4, Some(p - p_end));
    }
}

fn eye_gaze(raw: &GridRaw, out: &mut ChannelGrid) {
    for bin in 0..BINS {
        let Some(d) = raw.get3(bin, 0) else { continue };
        let norm = d.norm();
        if norm.is_nan() || norm <= 0.0 {
            if let Some(m) = out.mask.get_mut(bin) {
                *m = false;
            }
            continue;
        }
        out.set3(bin, 0, d / norm);
        out.set(bin, 3, raw.get(bin, 3));
        let with_depth = f64::from(raw.count(bin, 3));
        let all = f64::from(raw.count(bin, 0).max(1));
        out.set(bin, 4, Some(with_depth / all));
    }
}

fn hands(raw: &GridRaw, out: &mut ChannelGrid) {
    for bin in 0..BINS {
        for s in 0..14 {
            out.set(bin, s, raw.get(bin, s));
        }
    }
}

fn pose(raw: &GridRaw, bin: usize) -> Option<(Vector3<f64>, UnitQuaternion<f64>)> {
    let t = raw.get3(bin, 0)?;
    let q = Quaternion::new(
        raw.get(bin, 6)?,
        raw.get(bin, 3)?,
        raw.get(bin, 4)?,
        raw.get(bin, 5)?,
    );
    if q.norm().is_nan() || q.norm() <= 0.0 {
        return None;
    }
    Some((t, UnitQuaternion::from_quaternion(q)))
}

fn trajectory(raw: &GridRaw, out: &mut ChannelGrid) {
    for bin in 0..BINS {
        if pose(raw, bin).is_none() {
            if let Some(m) = out.mask.get_mut(bin) {
                *m = false;
            }
        }
    }
    let Some((t_end, q_end)) = valid_bins(out.mask).next_back().and_then(|b| pose(raw, b)) else {
        return;
    };
    let q_end_inv = q_end.inverse();
    for bin in valid_bins(out.mask) {
        let Some((t, q)) = pose(raw, bin) else {
            continue;
        };
        out.set3(bin, 0, q_end_inv * (t - t_end));
        out.set3(bin, 3, (q_end_inv * q).scaled_axis());
        for s in 7..14 {
            out.set(bin, s - 1, raw.get(bin, s));
        }
    }
}
