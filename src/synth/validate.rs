//! Budgets on a scenario before anything is synthesised: durations, counts, sizes, distances
//! and coordinates each within a named bound, and geometry that can exist (positive sizes,
//! walls with length). A scenario outside them is refused with the field named
//! (`world.obstacles[2].size_m[0]`), instead of panicking in the ground truth, stalling on a
//! 1e9 m walk or allocating tens of GB for a 1e6 s session.

use std::path::Path;

use super::scenario::{Action, Scenario, ScenarioError};

/// Longest scenario, s. The synthesiser holds the whole session's IMU, trajectory and
/// ground truth in memory (~32 KB per second: 1e6 s asked for 32 GB); one hour is 115 MB and
/// longer than any walk a scenario scripts.
pub const MAX_DURATION_S: f64 = 3600.0;

/// Largest coordinate anywhere in the world, m (|x|, |y|, |z|). A building or a street
/// block fits in ±1 km; beyond that single-precision rendering and the ray caster's tiles
/// lose meaning, and a hazard out there can never be met.
pub const MAX_COORD_M: f64 = 1000.0;

/// Largest size of one thing (obstacle side, wall height, step width or depth, vehicle
/// side), m. The largest thing a scenario places is a bus or a stretch of kerb.
pub const MAX_SIZE_M: f64 = 100.0;

/// Longest single walk or climb in a wearer's script, m (a 1e9 m walk stalled the
/// synthesiser; the world is 2 km across).
pub const MAX_WALK_M: f64 = 2.0 * MAX_COORD_M;

/// Fastest anything moves, m/s: a car in town at 180 km/h. A wearer or person walks < 3 m/s.
pub const MAX_SPEED_MPS: f64 = 50.0;

/// Most times the wearer's script repeats (each repeat is simulated in full).
pub const MAX_REPEAT: u32 = 1000;

/// Most actions in the script, things of one kind in the world, waypoints in one path,
/// gaze targets or requests: far above any hand-written scenario, small enough that no
/// per-thing cost adds up.
pub const MAX_ITEMS: usize = 10_000;

/// Longest text (sign, label, request), bytes.
pub const MAX_TEXT_BYTES: usize = 2048;

/// Checks every budget; the first field out of bounds is the error.
pub fn check(s: &Scenario, path: &Path) -> Result<(), ScenarioError> {
    Checker { path }.scenario(s)
}

struct Checker<'a> {
    path: &'a Path,
}

type Checked = Result<(), ScenarioError>;

impl Checker<'_> {
    fn bad(&self, field: &str, value: impl std::fmt::Display, rule: &str) -> Checked {
        Err(ScenarioError::Invalid {
            path: self.path.to_path_buf(),
            reason: format!("{field} = {value}: {rule}"),
        })
    }

    /// `lo < v <= hi` (`open_low`) or `lo <= v <= hi`.
    fn within(&self, field: &str, v: f64, lo: f64, hi: f64, open_low: bool) -> Checked {
        let ok = v.is_finite() && v <= hi && if open_low { v > lo } else { v >= lo };
        if ok {
            return Ok(());
        }
        let open = if open_low { "(" } else { "[" };
        self.bad(field, v, &format!("must be within {open}{lo}, {hi}]"))
    }

    fn coord(&self, field: &str, v: f64) -> Checked {
        self.within(field, v, -MAX_COORD_M, MAX_COORD_M, false)
    }

    fn point<const N: usize>(&self, field: &str, p: &[f64; N]) -> Checked {
        for (k, v) in p.iter().enumerate() {
            self.coord(&format!("{field}[{k}]"), *v)?;
        }
        Ok(())
    }

    fn size(&self, field: &str, v: f64) -> Checked {
        self.within(field, v, 0.0, MAX_SIZE_M, true)
    }

    fn duration(&self, field: &str, v: f64) -> Checked {
        self.within(field, v, 0.0, MAX_DURATION_S, false)
    }

    fn time(&self, field: &str, v: f64) -> Checked {
        self.within(field, v, -MAX_DURATION_S, MAX_DURATION_S, false)
    }

    fn angle(&self, field: &str, v: f64) -> Checked {
        self.within(field, v, -36_000.0, 36_000.0, false)
    }

    fn count(&self, field: &str, n: usize) -> Checked {
        if n > MAX_ITEMS {
            return self.bad(field, format!("{n} items"), &format!("at most {MAX_ITEMS}"));
        }
        Ok(())
    }

    fn text(&self, field: &str, t: &str) -> Checked {
        if t.len() > MAX_TEXT_BYTES {
            let n = t.len();
            return self.bad(
                field,
                format!("{n} bytes"),
                &format!("at most {MAX_TEXT_BYTES}"),
            );
        }
        Ok(())
    }

    /// Something that moves along a path (a person, a vehicle): its label, its path, a
    /// speed in (0, [`MAX_SPEED_MPS`]] and a start time.
    fn mover(
        &self,
        f: &str,
        label: &str,
        path: &[[f64; 2]],
        speed_mps: f64,
        start_s: f64,
    ) -> Checked {
        self.text(&format!("{f}.label"), label)?;
        self.path_m(&format!("{f}.path_m"), path)?;
        self.within(
            &format!("{f}.speed_mps"),
            speed_mps,
            0.0,
            MAX_SPEED_MPS,
            true,
        )?;
        self.time(&format!("{f}.start_s"), start_s)
    }

    fn path_m(&self, field: &str, p: &[[f64; 2]]) -> Checked {
        self.count(field, p.len())?;
        for (k, q) in p.iter().enumerate() {
            self.point(&format!("{field}[{k}]"), q)?;
        }
        Ok(())
    }

    fn scenario(&self, s: &Scenario) -> Checked {
        self.within("duration_s", s.duration_s, 0.0, MAX_DURATION_S, true)?;
        self.text("name", &s.name)?;
        self.world(s)?;
        self.wearer(s)?;
        self.count("gaze", s.gaze.len())?;
        for (i, g) in s.gaze.iter().enumerate() {
            let f = format!("gaze[{i}]");
            self.text(&format!("{f}.label"), &g.label)?;
            self.point(&format!("{f}.point_m"), &g.point_m)?;
            self.time(&format!("{f}.from_s"), g.from_s)?;
            self.time(&format!("{f}.to_s"), g.to_s)?;
        }
        self.count("requests", s.requests.len())?;
        for (i, r) in s.requests.iter().enumerate() {
            let f = format!("requests[{i}]");
            self.duration(&format!("{f}.t_s"), r.t_s)?;
            self.text(&format!("{f}.text"), &r.text)?;
            for (name, list) in [
                ("about", &r.about),
                ("facts", &r.facts),
                ("unsafe_instructions", &r.unsafe_instructions),
            ] {
                self.count(&format!("{f}.{name}"), list.len())?;
                for (k, t) in list.iter().enumerate() {
                    self.text(&format!("{f}.{name}[{k}]"), t)?;
                }
            }
        }
        Ok(())
    }

    fn world(&self, s: &Scenario) -> Checked {
        let w = &s.world;
        self.coord("world.floor_z_m", w.floor_z_m)?;
        self.within("world.altitude_m", w.altitude_m, -1000.0, 9000.0, false)?;
        for (name, n) in [
            ("world.walls", w.walls.len()),
            ("world.doorways", w.doorways.len()),
            ("world.obstacles", w.obstacles.len()),
            ("world.steps", w.steps.len()),
            ("world.signs", w.signs.len()),
            ("world.people", w.people.len()),
            ("world.vehicles", w.vehicles.len()),
        ] {
            self.count(name, n)?;
        }
        for (i, wall) in w.walls.iter().enumerate() {
            let f = format!("world.walls[{i}]");
            self.point(&format!("{f}.from_m"), &wall.from_m)?;
            self.point(&format!("{f}.to_m"), &wall.to_m)?;
            self.size(&format!("{f}.height_m"), wall.height_m)?;
            let len = (wall.to_m[0] - wall.from_m[0]).hypot(wall.to_m[1] - wall.from_m[1]);
            if len <= 1e-6 {
                return self.bad(&format!("{f}.to_m"), "from_m", "a wall needs a length");
            }
        }
        for (i, d) in w.doorways.iter().enumerate() {
            let f = format!("world.doorways[{i}]");
            self.text(&format!("{f}.label"), &d.label)?;
            self.point(&format!("{f}.center_m"), &d.center_m)?;
            self.within(&format!("{f}.width_m"), d.width_m, 0.0, 20.0, true)?;
        }
        for (i, o) in w.obstacles.iter().enumerate() {
            let f = format!("world.obstacles[{i}]");
            self.text(&format!("{f}.label"), &o.label)?;
            self.point(&format!("{f}.center_m"), &o.center_m)?;
            for (k, v) in o.size_m.iter().enumerate() {
                self.size(&format!("{f}.size_m[{k}]"), *v)?;
            }
            if let Some(p) = &o.photo {
                if !super::photo::PHOTO_NAMES.contains(&p.as_str()) {
                    return self.bad(
                        &format!("{f}.photo"),
                        format!("{p:?}"),
                        &format!("one of {}", super::photo::PHOTO_NAMES.join(", ")),
                    );
                }
            }
        }
        for (i, st) in w.steps.iter().enumerate() {
            let f = format!("world.steps[{i}]");
            self.text(&format!("{f}.label"), &st.label)?;
            self.point(&format!("{f}.edge_m"), &st.edge_m)?;
            self.within(
                &format!("{f}.rise_m"),
                st.rise_m,
                -MAX_SIZE_M,
                MAX_SIZE_M,
                false,
            )?;
            self.angle(&format!("{f}.facing_deg"), st.facing_deg)?;
            self.size(&format!("{f}.width_m"), st.width_m)?;
            self.size(&format!("{f}.depth_m"), st.depth_m)?;
        }
        for (i, sg) in w.signs.iter().enumerate() {
            let f = format!("world.signs[{i}]");
            self.text(&format!("{f}.text"), &sg.text)?;
            self.point(&format!("{f}.center_m"), &sg.center_m)?;
            self.angle(&format!("{f}.facing_deg"), sg.facing_deg)?;
        }
        for (i, p) in w.people.iter().enumerate() {
            let f = format!("world.people[{i}]");
            self.mover(&f, &p.label, &p.path_m, p.speed_mps, p.start_s)?;
            self.within(&format!("{f}.radius_m"), p.radius_m, 0.0, 5.0, true)?;
            self.within(&format!("{f}.height_m"), p.height_m, 0.0, 5.0, true)?;
        }
        for (i, v) in w.vehicles.iter().enumerate() {
            let f = format!("world.vehicles[{i}]");
            self.mover(&f, &v.label, &v.path_m, v.speed_mps, v.start_s)?;
        }
        Ok(())
    }

    fn wearer(&self, s: &Scenario) -> Checked {
        let w = &s.wearer;
        self.point("wearer.start_m", &w.start_m)?;
        self.angle("wearer.heading_deg", w.heading_deg)?;
        self.within("wearer.eye_height_m", w.eye_height_m, 0.0, 3.0, true)?;
        if w.repeat > MAX_REPEAT {
            return self.bad("wearer.repeat", w.repeat, &format!("at most {MAX_REPEAT}"));
        }
        self.count("wearer.script", w.script.len())?;
        for (i, a) in w.script.iter().enumerate() {
            let f = format!("wearer.script[{i}]");
            match a {
                Action::Walk {
                    distance_m,
                    speed_mps,
                } => {
                    self.within(
                        &format!("{f}.distance_m"),
                        *distance_m,
                        0.0,
                        MAX_WALK_M,
                        false,
                    )?;
                    self.within(&format!("{f}.speed_mps"), *speed_mps, 0.0, 10.0, true)?;
                }
                Action::Climb {
                    distance_m,
                    rise_m,
                    speed_mps,
                } => {
                    self.within(
                        &format!("{f}.distance_m"),
                        *distance_m,
                        0.0,
                        MAX_WALK_M,
                        true,
                    )?;
                    self.within(
                        &format!("{f}.rise_m"),
                        *rise_m,
                        -MAX_SIZE_M,
                        MAX_SIZE_M,
                        false,
                    )?;
                    self.within(&format!("{f}.speed_mps"), *speed_mps, 0.0, 10.0, true)?;
                }
                Action::Turn {
                    angle_deg,
                    duration_s,
                } => {
                    self.angle(&format!("{f}.angle_deg"), *angle_deg)?;
                    self.duration(&format!("{f}.duration_s"), *duration_s)?;
                }
                Action::Stop { duration_s } => {
                    self.duration(&format!("{f}.duration_s"), *duration_s)?;
                }
                Action::LookAround { duration_s, .. } => {
                    self.duration(&format!("{f}.duration_s"), *duration_s)?;
                }
                Action::Reach {
                    label,
                    target_m,
                    duration_s,
                    ..
                } => {
                    self.text(&format!("{f}.label"), label)?;
                    self.point(&format!("{f}.target_m"), target_m)?;
                    self.duration(&format!("{f}.duration_s"), *duration_s)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> serde_json::Value {
        serde_json::json!({
            "name": "t", "summary": "", "duration_s": 10.0,
            "world": {
                "walls": [{"from_m": [0.0, 0.0], "to_m": [5.0, 0.0], "height_m": 2.5}],
                "obstacles": [{"kind": "box", "label": "box", "center_m": [2.0, 1.0, 0.5],
                               "size_m": [0.5, 0.5, 1.0], "hazard": true}]
            },
            "wearer": {"start_m": [0.0, 0.0], "heading_deg": 0.0, "repeat": 1,
                       "script": [{"do": "walk", "distance_m": 3.0, "speed_mps": 1.0}]}
        })
    }

    fn refusal(v: serde_json::Value) -> String {
        let text = v.to_string();
        match Scenario::from_json(Path::new("s.json"), &text) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_sound_scenario_passes() {
        assert_eq!(refusal(base()), "");
    }

    #[test]
    fn each_bomb_is_refused_with_its_field_named() {
        let cases: [(&str, serde_json::Value, &str); 7] = [
            ("/duration_s", 1e6.into(), "duration_s = 1000000"),
            (
                "/world/obstacles/0/size_m/0",
                (-1.0).into(),
                "world.obstacles[0].size_m[0] = -1",
            ),
            (
                "/wearer/script/0/distance_m",
                1e9.into(),
                "wearer.script[0].distance_m = 1000000000",
            ),
            (
                "/world/obstacles/0/center_m/1",
                5e4.into(),
                "world.obstacles[0].center_m[1]",
            ),
            (
                "/world/walls/0/to_m",
                serde_json::json!([0.0, 0.0]),
                "world.walls[0].to_m",
            ),
            ("/wearer/repeat", 4_000_000_000u32.into(), "wearer.repeat"),
            (
                "/world/walls/0/height_m",
                0.0.into(),
                "world.walls[0].height_m = 0",
            ),
        ];
        for (pointer, value, want) in cases {
            let mut v = base();
            *v.pointer_mut(pointer).unwrap() = value;
            let e = refusal(v);
            assert!(
                e.starts_with("s.json: ") && e.contains(want),
                "{pointer}: {e}"
            );
        }
    }
}
