//! Things whose class is known (pure): what the object detector saw ([`SeenObject`]), placed
//! in the world when perception can (the foot of its box on the floor for a thing that stands
//! on the ground, else the point map behind its box's centre), merged with earlier sightings
//! of the same class at the same place, kept for a while, and at every tick told in the
//! user's frame ([`ObjectFact`]: clock, metres) and given to the geometric thing that lies
//! there, which then carries its class and is called by it ("chair").

use std::collections::VecDeque;

use nalgebra::{Point3, Vector3};

use crate::state::{bearing_to_clock, ObjectClass, ObjectFact, SeenObject, Thing, ThingKind};

use super::geom::{bearing_and_distance, wrap_deg};

/// How sightings are kept and matched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectsConfig {
    /// Most things kept (the oldest beyond it are dropped and counted).
    pub max_objects: usize,
    /// A thing not seen again for this long is forgotten, ns.
    pub max_age_ns: i64,
    /// A sighting of the same class within this horizontal distance of a placed thing is
    /// that thing again, m.
    pub merge_m: f64,
    /// A sighting that could not be placed is the same thing as an unplaced one of its class
    /// seen in a direction within this angle, degrees.
    pub merge_deg: f32,
    /// A placed thing names the geometric thing within this horizontal distance, m.
    pub link_m: f64,
    /// A box spanning at least this share of the frame's width and of its height is not
    /// taken: on the glasses' wide view it is not a thing in one direction (a thing that
    /// close is the obstacle geometry already alerts) but the detector naming the scene.
    /// Spanning it one way only, it is taken for a large thing (one that stands on the
    /// ground: a person, a car, a table), not for a small one (a tie, a cup), which would
    /// have to touch the glasses to fill a 110° view.
    pub max_frame_share: f32,
}

impl Default for ObjectsConfig {
    fn default() -> Self {
        Self {
            max_objects: 24,
            max_age_ns: 10_000_000_000,
            merge_m: 0.8,
            merge_deg: 10.0,
            link_m: 1.0,
            max_frame_share: 0.9,
        }
    }
}

/// Where a sighting is: a world position when it could be placed, else the world yaw of the
/// ray through its box (a direction without a distance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Placement {
    /// World position, m.
    At([f64; 3]),
    /// World yaw of the direction it was seen in, radians.
    Towards(f64),
    /// Neither (no pose or no RGB calibration).
    Unknown,
}

#[derive(Clone, Debug)]
struct Track {
    seen: SeenObject,
    place: Placement,
    sightings: u32,
}

/// A placed thing may stand this many times the tallest of its class
/// ([`ObjectClass::tallest_m`]) before its class is taken for the detector's mistake: the
/// box's top is loose by a few per cent, and the distance from the foot of the box moves with
/// the head's pitch error (2° at 3 m: 0.2 m nearer or farther).
pub const TALLEST_SLACK: f32 = 1.25;

/// How tall a thing placed at `place` stands over the floor at `floor_z` (world, m), from
/// the ray `(origin, direction)` through the top of its box: the ray's height where it passes
/// over the place (its horizontal distance from the camera). `None` for a ray straight up or
/// down.
pub fn standing_height_m(
    (origin, dir): (Point3<f64>, Vector3<f64>),
    place: [f64; 3],
    floor_z: f64,
) -> Option<f64> {
    let across = dir.x.hypot(dir.y);
    if across < 1e-6 {
        return None;
    }
    let reach = (place[0] - origin.x).hypot(place[1] - origin.y);
    Some(origin.z + dir.z * reach / across - floor_z)
}

/// Whether a thing of `class` standing `height_m` tall is too tall to be one (more than
/// [`TALLEST_SLACK`] times [`ObjectClass::tallest_m`]): the detector's class is wrong.
pub fn taller_than_class(class: ObjectClass, height_m: f64) -> bool {
    class
        .tallest_m()
        .is_some_and(|t| height_m > f64::from(t * TALLEST_SLACK))
}

/// Frames a thing must be seen in before it names the geometric thing there (so before an
/// alert says what it is): one frame's guess ("a vase" on a plain box) is not said.
pub const SIGHTINGS_TO_NAME: u32 = 2;

/// The things whose class is known.
#[derive(Clone, Debug, Default)]
pub struct ObjectTracks {
    cfg: ObjectsConfig,
    tracks: VecDeque<Track>,
    dropped: u64,
}

impl ObjectTracks {
    /// Empty, with `cfg`.
    pub fn new(cfg: ObjectsConfig) -> Self {
        Self {
            cfg,
            tracks: VecDeque::new(),
            dropped: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ObjectsConfig {
        &self.cfg
    }

    /// Whether `seen` spans too much of the frame (`width × height` pixels) to be taken
    /// ([`ObjectsConfig::max_frame_share`]).
    pub fn spans_frame(&self, seen: &SeenObject, width: u32, height: u32) -> bool {
        if width == 0 || height == 0 {
            return false;
        }
        let [x0, y0, x1, y1] = seen.rgb_box;
        let share = self.cfg.max_frame_share;
        let wide = (x1 - x0) >= share * width as f32;
        let tall = (y1 - y0) >= share * height as f32;
        (wide && tall) || ((wide || tall) && !seen.class.stands_on_ground())
    }

    /// Things dropped because more than `max_objects` were kept.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Adds one sighting: it replaces the same thing seen before (same class, same place or
    /// direction), keeping the best confidence; else it is a new thing.
    pub fn add(&mut self, seen: SeenObject, place: Placement) {
        let cfg = self.cfg;
        let same = |t: &Track| {
            t.seen.class == seen.class
                && match (t.place, place) {
                    (Placement::At(a), Placement::At(b)) => {
                        (a[0] - b[0]).hypot(a[1] - b[1]) <= cfg.merge_m
                    }
                    (Placement::Towards(a), Placement::Towards(b)) => {
                        wrap_deg((a - b).to_degrees() as f32).abs() <= cfg.merge_deg
                    }
                    _ => false,
                }
        };
        if let Some(i) = self.tracks.iter().position(same) {
            if let Some(t) = self.tracks.remove(i) {
                let confidence = t.seen.confidence.max(seen.confidence);
                self.tracks.push_back(Track {
                    seen: SeenObject { confidence, ..seen },
                    place,
                    sightings: t.sightings.saturating_add(1),
                });
            }
            return;
        }
        if self.tracks.len() >= cfg.max_objects.max(1) {
            self.tracks.pop_front();
            self.dropped += 1;
        }
        self.tracks.push_back(Track {
            seen,
            place,
            sightings: 1,
        });
    }

    /// The things at `t_ns` in the user's frame of a head at `(x, y)` with yaw `yaw_rad`
    /// (`None`: no pose, so only what the frames said is known), placed ones nearest first,
    /// then the others by confidence; each linked to the geometric thing of `things` it is.
    /// Things older than `max_age_ns` are forgotten first.
    pub fn facts(
        &mut self,
        t_ns: i64,
        head: Option<(f64, f64, f64)>,
        things: &[Thing],
    ) -> Vec<ObjectFact> {
        let max_age = self.cfg.max_age_ns;
        self.tracks
            .retain(|tr| t_ns.saturating_sub(tr.seen.at.ns()) <= max_age);
        let mut out: Vec<ObjectFact> = self
            .tracks
            .iter()
            .filter_map(|tr| {
                let (x, y, yaw) = head?;
                let (clock, distance_m, thing) = match tr.place {
                    Placement::At(w) => {
                        let (b, d) = bearing_and_distance(x, y, yaw, w[0], w[1]);
                        let thing = link(tr.seen.class, w, things, self.cfg.link_m);
                        (bearing_to_clock(b), Some(d), thing)
                    }
                    Placement::Towards(world_yaw) => {
                        let b = wrap_deg((world_yaw - yaw).to_degrees() as f32);
                        (bearing_to_clock(b), None, None)
                    }
                    Placement::Unknown => return None,
                };
                Some(ObjectFact {
                    class: tr.seen.class,
                    confidence: tr.seen.confidence,
                    sightings: tr.sightings,
                    clock,
                    distance_m,
                    thing,
                    rgb_box: tr.seen.rgb_box,
                    at: tr.seen.at,
                })
            })
            .collect();
        out.sort_by(|a, b| match (a.distance_m, b.distance_m) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => b.confidence.total_cmp(&a.confidence),
        });
        out
    }
}

/// Whether a geometric thing of `kind` can be a thing of `class`: a person is a person or
/// an obstacle (standing still); a vehicle a vehicle or an obstacle (parked); anything else
/// an obstacle, low or at head height.
fn kind_fits(class: ObjectClass, kind: ThingKind) -> bool {
    match kind {
        ThingKind::Person => class == ObjectClass::Person,
        ThingKind::Vehicle => class.is_vehicle(),
        ThingKind::Obstacle => true,
        ThingKind::Overhead => !class.stands_on_ground(),
        _ => false,
    }
}

/// The id of the geometric thing nearest `w` within `max_m` that a thing of `class` can be.
fn link(class: ObjectClass, w: [f64; 3], things: &[Thing], max_m: f64) -> Option<u32> {
    things
        .iter()
        .filter(|t| kind_fits(class, t.kind))
        .filter_map(|t| {
            let p = t.world_m?;
            let d = (f64::from(p[0]) - w[0]).hypot(f64::from(p[1]) - w[1]);
            (d <= max_m).then_some((t.id, d))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(id, _)| id)
}

/// Gives each geometric thing that an object fact seen in at least [`SIGHTINGS_TO_NAME`]
/// frames names its class and calls it by it (the most confident fact wins a thing two
/// facts name).
pub fn name_things(things: &mut [Thing], facts: &[ObjectFact]) {
    for t in things.iter_mut() {
        let best = facts
            .iter()
            .filter(|f| f.thing == Some(t.id) && f.sightings >= SIGHTINGS_TO_NAME)
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence));
        if let Some(f) = best {
            t.class = Some(f.class);
            t.label = f.class.spoken().to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence, ThingDetail};
    use crate::time::DeviceTime;

    #[test]
    fn a_walker_is_no_bed_a_bed_is() {
        // Eyes 1.6 m over the floor; a thing 3 m ahead whose box's top is 1.7 m high.
        let eye = Point3::new(0.0, 0.0, 1.6);
        let top = |h: f64| (eye, Vector3::new(3.0, 0.0, h - 1.6).normalize());
        let h = standing_height_m(top(1.7), [3.0, 0.0, 0.0], 0.0).unwrap();
        assert!((h - 1.7).abs() < 1e-9, "{h}");
        // Seen on a floor 0.2 m lower, from the same eyes: it stands 0.2 m taller.
        let h2 = standing_height_m(top(1.7), [3.0, 0.0, -0.2], -0.2).unwrap();
        assert!((h2 - 1.9).abs() < 1e-9, "{h2}");
        assert!(taller_than_class(ObjectClass::Bed, h));
        assert!(!taller_than_class(ObjectClass::Person, h));
        let bed = standing_height_m(top(0.6), [3.0, 0.0, 0.0], 0.0).unwrap();
        assert!(!taller_than_class(ObjectClass::Bed, bed));
        // A class whose size varies too much, or that rests on something: never too tall.
        assert!(!taller_than_class(ObjectClass::PottedPlant, 3.0));
        assert!(!taller_than_class(ObjectClass::Cup, 3.0));
        // A ray straight up tells nothing.
        assert_eq!(
            standing_height_m((eye, Vector3::new(0.0, 0.0, 1.0)), [3.0, 0.0, 0.0], 0.0),
            None
        );
    }

    fn seen(class: ObjectClass, at_s: f64, confidence: f32) -> SeenObject {
        SeenObject {
            class,
            confidence,
            rgb_box: [0.0, 0.0, 10.0, 10.0],
            foot_px: [5.0, 10.0],
            top_px: None,
            at: DeviceTime((at_s * 1e9) as i64),
        }
    }

    fn thing(id: u32, kind: ThingKind, world: [f32; 3]) -> Thing {
        Thing {
            id,
            kind,
            label: "obstacle".into(),
            detail: ThingDetail::None,
            class: None,
            clock: ClockHour::new(12),
            bearing_left_deg: None,
            distance_m: 2.0,
            height: None,
            world_m: Some(world),
            in_path: true,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 0.8,
            evidence: Evidence::Motion,
        }
    }

    /// A chair 2 m ahead of a head at the origin looking along +x, seen twice from a little
    /// apart: one thing, at 12 o'clock, 2 m, with the better confidence; it names the
    /// obstacle there, not the person 3 m to the left.
    #[test]
    fn sightings_merge_place_and_name_the_obstacle_there() {
        let mut o = ObjectTracks::new(ObjectsConfig::default());
        o.add(
            seen(ObjectClass::Chair, 1.0, 0.6),
            Placement::At([2.0, 0.1, 0.0]),
        );
        o.add(
            seen(ObjectClass::Chair, 1.5, 0.8),
            Placement::At([2.1, -0.1, 0.0]),
        );
        let mut things = vec![
            thing(7, ThingKind::Obstacle, [2.0, 0.0, 0.0]),
            thing(8, ThingKind::Person, [2.0, 3.0, 0.0]),
        ];
        let facts = o.facts(2_000_000_000, Some((0.0, 0.0, 0.0)), &things);
        assert_eq!(facts.len(), 1);
        let f = &facts[0];
        assert_eq!(f.clock, ClockHour::new(12));
        assert!((f.distance_m.unwrap() - 2.1).abs() < 0.05, "{f:?}");
        assert_eq!(f.confidence, 0.8);
        assert_eq!(f.sightings, 2);
        assert_eq!(f.thing, Some(7));
        // Seen once, it does not name the obstacle yet.
        let mut once = facts.clone();
        once[0].sightings = 1;
        name_things(&mut things, &once);
        assert_eq!(things[0].class, None);
        name_things(&mut things, &facts);
        assert_eq!(things[0].class, Some(ObjectClass::Chair));
        assert_eq!(things[0].label, "chair");
        assert_eq!(things[1].class, None);
    }

    /// A chair is not the person standing where it was seen; an unplaced cup keeps its
    /// world direction, told relative to the head as the head turns.
    #[test]
    fn kinds_must_fit_and_unplaced_things_keep_their_direction() {
        let mut o = ObjectTracks::new(ObjectsConfig::default());
        o.add(
            seen(ObjectClass::Chair, 1.0, 0.7),
            Placement::At([2.0, 0.0, 0.0]),
        );
        o.add(
            seen(ObjectClass::Cup, 1.0, 0.9),
            Placement::Towards(std::f64::consts::FRAC_PI_2),
        );
        let things = vec![thing(3, ThingKind::Person, [2.0, 0.0, 0.0])];
        // Head turned to face +y: the cup, seen towards +y, is now straight ahead.
        let facts = o.facts(
            1_000_000_000,
            Some((0.0, 0.0, std::f64::consts::FRAC_PI_2)),
            &things,
        );
        let chair = facts
            .iter()
            .find(|f| f.class == ObjectClass::Chair)
            .unwrap();
        assert_eq!(chair.thing, None);
        assert_eq!(chair.clock, ClockHour::new(3));
        let cup = facts.iter().find(|f| f.class == ObjectClass::Cup).unwrap();
        assert_eq!((cup.clock, cup.distance_m), (ClockHour::new(12), None));
        assert_eq!(facts[0].class, ObjectClass::Chair, "placed first");
    }

    #[test]
    fn a_box_spanning_the_frame_is_not_a_thing() {
        let o = ObjectTracks::new(ObjectsConfig::default());
        let mut s = seen(ObjectClass::Person, 1.0, 0.7);
        s.rgb_box = [19.0, 0.0, 1404.0, 1380.0];
        assert!(o.spans_frame(&s, 1408, 1408));
        s.rgb_box = [300.0, 0.0, 1100.0, 1400.0]; // a person close by: tall, not wide
        assert!(!o.spans_frame(&s, 1408, 1408));
        s.class = ObjectClass::Tie; // a tie as tall as the view: not a tie
        assert!(o.spans_frame(&s, 1408, 1408));
        s.rgb_box = [600.0, 600.0, 700.0, 900.0];
        assert!(!o.spans_frame(&s, 1408, 1408));
    }

    #[test]
    fn old_and_surplus_things_are_forgotten() {
        let mut o = ObjectTracks::new(ObjectsConfig {
            max_objects: 2,
            ..ObjectsConfig::default()
        });
        for (i, class) in [ObjectClass::Cup, ObjectClass::Bottle, ObjectClass::Book]
            .into_iter()
            .enumerate()
        {
            o.add(
                seen(class, 1.0, 0.9),
                Placement::At([i as f64 * 5.0, 0.0, 0.0]),
            );
        }
        assert_eq!(o.dropped(), 1);
        let facts = o.facts(2_000_000_000, Some((0.0, 0.0, 0.0)), &[]);
        assert_eq!(facts.len(), 2);
        assert!(facts.iter().all(|f| f.class != ObjectClass::Cup));
        assert!(o
            .facts(12_000_000_001, Some((0.0, 0.0, 0.0)), &[])
            .is_empty());
        // Without a pose nothing can be told in the user's frame.
        o.add(
            seen(ObjectClass::Cup, 20.0, 0.9),
            Placement::At([1.0, 0.0, 0.0]),
        );
        assert!(o.facts(20_000_000_000, None, &[]).is_empty());
    }
}
