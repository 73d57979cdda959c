//! Stable thing ids (pure): each tick's detections (clusters and floor edges, with world
//! positions) are matched greedily, nearest first, to the tracks of the same kind within
//! [`ASSOCIATE_M`]; unmatched detections start new tracks, tracks unseen for the configured
//! time are forgotten.

use crate::state::ThingKind;

/// Largest horizontal distance between a track and its next detection, m.
pub const ASSOCIATE_M: f32 = 0.8;
/// Tracks kept at most (the oldest-seen is forgotten first, counted).
pub const MAX_TRACKS: usize = 256;

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

    /// Matches `detections` (kind, world x/y) seen at `t_ns`; returns `(id, first seen ns)`
    /// for each detection, in order (id 0: dropped, the tracker is full of current tracks).
    pub fn update(&mut self, t_ns: i64, detections: &[(ThingKind, [f32; 2])]) -> Vec<(u32, i64)> {
        let horizon = self.forget_after_ns;
        self.tracks
            .retain(|t| t_ns.saturating_sub(t.last_seen_ns) <= horizon);
        let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
        for (di, (kind, xy)) in detections.iter().enumerate() {
            for (ti, t) in self.tracks.iter().enumerate() {
                if !same_class(*kind, t.kind) {
                    continue;
                }
                let d = (xy[0] - t.xy_m[0]).hypot(xy[1] - t.xy_m[1]);
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
        let mut out: Vec<(u32, i64)> = vec![(0, t_ns); detections.len()];
        for (di, (kind, xy)) in detections.iter().enumerate() {
            let Some(ti) = det_track.get(di).copied().flatten() else {
                continue;
            };
            if let (Some(t), Some(o)) = (self.tracks.get_mut(ti), out.get_mut(di)) {
                t.kind = *kind;
                t.xy_m = *xy;
                t.last_seen_ns = t_ns;
                *o = (t.id, t.first_seen_ns);
            }
        }
        for (di, (kind, xy)) in detections.iter().enumerate() {
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
                kind: *kind,
                xy_m: *xy,
                first_seen_ns: t_ns,
                last_seen_ns: t_ns,
            });
            if let Some(o) = out.get_mut(di) {
                *o = (id, t_ns);
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

    #[test]
    fn ids_survive_small_moves_and_are_forgotten() {
        let mut tr = ThingTracker::new(1_000);
        let a = tr.update(
            0,
            &[
                (ThingKind::Obstacle, [1.0, 0.0]),
                (ThingKind::DropOff, [3.0, 0.0]),
            ],
        );
        let (ia, ib) = (a[0].0, a[1].0);
        assert_ne!(ia, ib);
        // Moved a little, order swapped: same ids.
        let b = tr.update(
            100,
            &[
                (ThingKind::DropOff, [3.2, 0.1]),
                (ThingKind::Overhead, [1.3, 0.1]),
            ],
        );
        assert_eq!((b[0].0, b[1].0), (ib, ia));
        // Far away: a new id.
        let c = tr.update(200, &[(ThingKind::Obstacle, [5.0, 0.0])]);
        assert!(c[0].0 != ia && c[0].0 != ib);
        // After the horizon the first two are gone.
        tr.update(1_500, &[]);
        assert_eq!(tr.tracks().len(), 0);
    }
}
