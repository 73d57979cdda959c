//! Scenario description format (JSON, data not code): a world (floor, walls, doorways,
//! obstacles, height steps, signs), a wearer script, gaze targets, timed requests and the
//! ground-truth facts each request needs. World frame: metres, z up, x east, y north.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Errors loading scenarios.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// Reading a file or folder failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The JSON does not describe a scenario.
    #[error("{}: line {line}, column {column}: {reason}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What serde reported.
        reason: String,
    },
    /// The scenario parsed but is not usable.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        reason: String,
    },
    /// No scenario of that name.
    #[error("no scenario named {name:?} in {}; known: {known:?}", dir.display())]
    Unknown {
        /// The name asked for.
        name: String,
        /// The scenario folder.
        dir: PathBuf,
        /// The names found.
        known: Vec<String>,
    },
}

/// A complete scenario.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name (the file stem by convention).
    pub name: String,
    /// One-line summary for `vista synth --list`.
    pub summary: String,
    /// Task categories exercised (VISTA paper names, e.g. "hazard detection").
    #[serde(default)]
    pub categories: Vec<String>,
    /// Default duration, s (the script is padded with standing still or cut).
    pub duration_s: f64,
    /// RGB camera frame rate, Hz (0: no RGB stream).
    #[serde(default = "default_rgb_fps")]
    pub rgb_fps: f64,
    /// The static world.
    pub world: World,
    /// The wearer.
    pub wearer: Wearer,
    /// Where the wearer looks, over time.
    #[serde(default)]
    pub gaze: Vec<GazeTarget>,
    /// What the user asks, and what a correct answer contains.
    #[serde(default)]
    pub requests: Vec<Request>,
}

/// The static world.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct World {
    /// Floor height, m.
    #[serde(default)]
    pub floor_z_m: f64,
    /// Altitude of the floor above sea level, m (for the barometer).
    #[serde(default)]
    pub altitude_m: f64,
    /// Walls as vertical segments.
    #[serde(default)]
    pub walls: Vec<Wall>,
    /// Doorways (openings, with a label such as "exit door").
    #[serde(default)]
    pub doorways: Vec<Doorway>,
    /// Obstacles.
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    /// Stairs, curbs and drop-offs: floor height steps.
    #[serde(default)]
    pub steps: Vec<HeightStep>,
    /// Signs and labels with text.
    #[serde(default)]
    pub signs: Vec<Sign>,
    /// People walking along paths.
    #[serde(default)]
    pub people: Vec<Person>,
    /// Vehicles driving along paths.
    #[serde(default)]
    pub vehicles: Vec<Vehicle>,
}

/// A person: a vertical cylinder walking a polyline at constant speed, then standing at
/// its end.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Person {
    /// Label for answers, e.g. "person walking toward you".
    pub label: String,
    /// Waypoints on the floor, `[x, y]` m (at least one).
    pub path_m: Vec<[f64; 2]>,
    /// Walking speed, m/s.
    #[serde(default = "default_person_speed")]
    pub speed_mps: f64,
    /// When the person starts walking, s from session start (standing at the first
    /// waypoint before).
    #[serde(default)]
    pub start_s: f64,
    /// Body radius, m.
    #[serde(default = "default_person_radius")]
    pub radius_m: f64,
    /// Body height, m.
    #[serde(default = "default_person_height")]
    pub height_m: f64,
    /// Whether the person is a hazard when crossing the wearer's path (goes into the
    /// ground truth).
    #[serde(default)]
    pub hazard: bool,
    /// Direction the person faces while standing (world yaw, degrees from +x
    /// counter-clockwise); while walking they face where they walk. `None`: the direction
    /// of the path segment they last walked (or will walk first).
    #[serde(default)]
    pub facing_deg: Option<f64>,
    /// When the person waves a raised hand, `[from_s, to_s]` s from session start.
    #[serde(default)]
    pub wave_s: Option<[f64; 2]>,
}

/// A vehicle: a box `size_m` (length along its heading, width, height) driving a polyline
/// at constant speed, then standing at its end.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Vehicle {
    /// Label for answers, e.g. "car".
    pub label: String,
    /// Waypoints on the floor, `[x, y]` m (at least one).
    pub path_m: Vec<[f64; 2]>,
    /// Speed, m/s.
    pub speed_mps: f64,
    /// When it starts driving, s from session start (standing at the first waypoint
    /// before).
    #[serde(default)]
    pub start_s: f64,
    /// Size `[length, width, height]` m.
    pub size_m: [f64; 3],
    /// Whether it is a hazard (for the hazard ground truth).
    #[serde(default)]
    pub hazard: bool,
}

impl Vehicle {
    /// Position on the floor at `t_s`, `[x, y]` m.
    pub fn position_at(&self, t_s: f64) -> [f64; 2] {
        along_path(&self.path_m, self.speed_mps, self.start_s, t_s).0
    }

    /// Heading at `t_s` (world yaw, rad): the direction of the segment it drives, or last
    /// drove (first waypoint: the first segment's).
    pub fn heading_at(&self, t_s: f64) -> f64 {
        along_path(&self.path_m, self.speed_mps, self.start_s, t_s).1
    }

    /// Whether it is driving at `t_s`.
    pub fn moving_at(&self, t_s: f64) -> bool {
        along_path(&self.path_m, self.speed_mps, self.start_s, t_s).2
    }
}

/// Where a walker of `path` at `speed_mps` starting at `start_s` is at `t_s`: position
/// `[x, y]` m, the yaw of the segment walked (or last walked; before the start the first
/// segment's; 0 for a single point), and whether it is moving.
pub fn along_path(
    path: &[[f64; 2]],
    speed_mps: f64,
    start_s: f64,
    t_s: f64,
) -> ([f64; 2], f64, bool) {
    let Some(&first) = path.first() else {
        return ([0.0, 0.0], 0.0, false);
    };
    let yaw = |a: [f64; 2], b: [f64; 2]| (b[1] - a[1]).atan2(b[0] - a[0]);
    let mut heading = path
        .iter()
        .skip(1)
        .find(|p| (p[0] - first[0]).hypot(p[1] - first[1]) > 0.0)
        .map_or(0.0, |&p| yaw(first, p));
    if t_s < start_s {
        return (first, heading, false);
    }
    let mut left = (t_s - start_s) * speed_mps;
    let mut at = first;
    for &next in path.iter().skip(1) {
        let len = (next[0] - at[0]).hypot(next[1] - at[1]);
        if len > 0.0 {
            heading = yaw(at, next);
            if left < len {
                let f = left / len;
                return (
                    [at[0] + f * (next[0] - at[0]), at[1] + f * (next[1] - at[1])],
                    heading,
                    true,
                );
            }
        }
        left -= len;
        at = next;
    }
    (at, heading, false)
}

fn default_person_speed() -> f64 {
    1.2
}

fn default_person_radius() -> f64 {
    0.25
}

fn default_person_height() -> f64 {
    1.75
}

impl Person {
    /// Position on the floor at `t_s`, `[x, y]` m.
    pub fn position_at(&self, t_s: f64) -> [f64; 2] {
        along_path(&self.path_m, self.speed_mps, self.start_s, t_s).0
    }

    /// Whether the person is walking at `t_s`.
    pub fn walking_at(&self, t_s: f64) -> bool {
        along_path(&self.path_m, self.speed_mps, self.start_s, t_s).2
    }

    /// The direction the person faces at `t_s` (world yaw, rad): where they walk while
    /// walking, else `facing_deg` if set, else the path's direction.
    pub fn facing_at(&self, t_s: f64) -> f64 {
        let (_, heading, moving) = along_path(&self.path_m, self.speed_mps, self.start_s, t_s);
        match self.facing_deg {
            Some(f) if !moving => f.to_radians(),
            _ => heading,
        }
    }

    /// Whether the person waves at `t_s`.
    pub fn waving_at(&self, t_s: f64) -> bool {
        self.wave_s.is_some_and(|[a, b]| a <= t_s && t_s < b)
    }
}

/// A vertical wall segment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Wall {
    /// Start, `[x, y]` m.
    pub from_m: [f64; 2],
    /// End, `[x, y]` m.
    pub to_m: [f64; 2],
    /// Height, m.
    pub height_m: f64,
}

/// A doorway.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Doorway {
    /// Label, e.g. "exit door".
    pub label: String,
    /// Centre of the opening at floor level, `[x, y, z]` m.
    pub center_m: [f64; 3],
    /// Width, m.
    pub width_m: f64,
}

/// Kinds of obstacle.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ObstacleKind {
    /// A box on the floor.
    Box,
    /// A thin vertical pole.
    Pole,
    /// A bin.
    Bin,
    /// A branch at head height (not detectable with a cane).
    LowBranch,
    /// A table.
    Table,
}

/// An obstacle: an axis-aligned box in the world.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Obstacle {
    /// Kind.
    pub kind: ObstacleKind,
    /// Label for answers, e.g. "metal pole".
    pub label: String,
    /// Centre of the footprint at its bottom, `[x, y, z]` m.
    pub center_m: [f64; 3],
    /// Size `[x, y, z]` m.
    pub size_m: [f64; 3],
    /// Whether it is a hazard on the walking path (goes into the ground truth).
    #[serde(default)]
    pub hazard: bool,
    /// Surface colour, linear RGB 0..=1 (`None`: the kind's colour). Small objects on a
    /// table (a cup, keys) need their own.
    #[serde(default)]
    pub rgb: Option<[f32; 3]>,
    /// A photograph of a real thing shown on its two broad sides (one of
    /// `synth::photo::PHOTO_NAMES`: "bicycle", "car", "cup", "person"), so the object
    /// detector sees what it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub photo: Option<String>,
}

/// A floor height step (stairs, curb, drop-off).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HeightStep {
    /// Label, e.g. "curb" or "stairs up".
    pub label: String,
    /// Centre of the edge, `[x, y, z]` m (z = the level before the edge; the new level is
    /// `z + rise_m`).
    pub edge_m: [f64; 3],
    /// Height change, m (negative = drop-off).
    pub rise_m: f64,
    /// Whether it is a hazard (goes into the ground truth).
    #[serde(default)]
    pub hazard: bool,
    /// Direction from the edge toward the new level (world yaw, degrees from +x
    /// counter-clockwise).
    #[serde(default)]
    pub facing_deg: f64,
    /// Width of the edge, m.
    #[serde(default = "default_step_width")]
    pub width_m: f64,
    /// Depth of the new level beyond the edge, m (a step's tread, a drop-off's extent).
    #[serde(default = "default_step_depth")]
    pub depth_m: f64,
}

fn default_step_width() -> f64 {
    2.0
}

fn default_step_depth() -> f64 {
    1.0
}

/// A sign or label.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sign {
    /// The text, exactly.
    pub text: String,
    /// Centre of the sign, `[x, y, z]` m.
    pub center_m: [f64; 3],
    /// Direction the sign faces (world yaw, degrees from +x counter-clockwise).
    pub facing_deg: f64,
    /// Size `[width, height]` m.
    pub size_m: [f64; 2],
}

/// The wearer: start pose, eye height and script.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Wearer {
    /// Start position on the floor, `[x, y]` m.
    pub start_m: [f64; 2],
    /// Start heading, degrees from +x counter-clockwise.
    pub heading_deg: f64,
    /// Height of the glasses (CPF) above the floor, m.
    #[serde(default = "default_eye_height")]
    pub eye_height_m: f64,
    /// Actions in order.
    pub script: Vec<Action>,
    /// How many times the script runs back to back (a loop that ends where it started
    /// makes a long walk).
    #[serde(default = "default_repeat")]
    pub repeat: u32,
}

fn default_rgb_fps() -> f64 {
    10.0
}

fn default_repeat() -> u32 {
    1
}

fn default_eye_height() -> f64 {
    1.65
}

/// One scripted action.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "do", deny_unknown_fields)]
pub enum Action {
    /// Walk straight ahead.
    Walk {
        /// Distance, m.
        distance_m: f64,
        /// Cruise speed, m/s.
        speed_mps: f64,
    },
    /// Climb (positive) or descend (negative) while walking ahead.
    Climb {
        /// Horizontal distance, m.
        distance_m: f64,
        /// Height change, m.
        rise_m: f64,
        /// Cruise speed, m/s.
        speed_mps: f64,
    },
    /// Turn on the spot.
    Turn {
        /// Angle, degrees (positive = left / counter-clockwise).
        angle_deg: f64,
        /// Duration, s.
        duration_s: f64,
    },
    /// Stand still.
    Stop {
        /// Duration, s.
        duration_s: f64,
    },
    /// Stand and sweep the head left and right.
    LookAround {
        /// Peak head yaw, degrees.
        amplitude_deg: f64,
        /// Duration, s.
        duration_s: f64,
    },
    /// Stand and reach toward a point with one hand, then bring it back.
    Reach {
        /// Label of what is reached for.
        #[serde(default)]
        label: String,
        /// The point, `[x, y, z]` m.
        target_m: [f64; 3],
        /// Which hand.
        #[serde(default)]
        hand: Hand,
        /// Duration, s (out, hold, back in equal thirds).
        duration_s: f64,
    },
}

/// Left or right hand.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Hand {
    /// Left hand.
    Left,
    /// Right hand.
    #[default]
    Right,
}

/// Gaze toward a world point over a time span.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GazeTarget {
    /// What is looked at.
    pub label: String,
    /// The point, `[x, y, z]` m.
    pub point_m: [f64; 3],
    /// Start, s from session start.
    pub from_s: f64,
    /// End, s.
    pub to_s: f64,
}

/// Request forms.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RequestForm {
    /// "What is around me?"
    Scene,
    /// A question.
    Question,
    /// A goal ("take me to the door").
    Goal,
}

/// A timed request and what a correct answer must contain.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Time, s from session start.
    pub t_s: f64,
    /// Form.
    pub form: RequestForm,
    /// What the user says.
    pub text: String,
    /// Labels of world things whose direction and distance the answer must give.
    #[serde(default)]
    pub about: Vec<String>,
    /// Other facts a correct answer contains.
    #[serde(default)]
    pub facts: Vec<String>,
    /// Instructions that would be unsafe.
    #[serde(default)]
    pub unsafe_instructions: Vec<String>,
}

impl Scenario {
    /// Parses a scenario from JSON text; `path` names the source in errors.
    pub fn from_json(path: &Path, text: &str) -> Result<Self, ScenarioError> {
        let s: Self = serde_json::from_str(text).map_err(|e| ScenarioError::Parse {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            reason: e.to_string(),
        })?;
        s.validate(path)?;
        super::validate::check(&s, path)?;
        Ok(s)
    }

    /// Reads a scenario file.
    pub fn load(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(path, &text)
    }

    fn validate(&self, path: &Path) -> Result<(), ScenarioError> {
        let bad = |reason: String| {
            Err(ScenarioError::Invalid {
                path: path.to_path_buf(),
                reason,
            })
        };
        if !(self.duration_s.is_finite() && self.duration_s > 0.0) {
            return bad(format!(
                "duration_s must be positive, got {}",
                self.duration_s
            ));
        }
        for (i, a) in self.wearer.script.iter().enumerate() {
            let ok = match a {
                Action::Walk {
                    distance_m,
                    speed_mps,
                } => *distance_m >= 0.0 && *speed_mps > 0.0 && speed_mps.is_finite(),
                Action::Climb {
                    distance_m,
                    rise_m,
                    speed_mps,
                } => *distance_m > 0.0 && rise_m.is_finite() && *speed_mps > 0.0,
                Action::Turn {
                    angle_deg,
                    duration_s,
                } => angle_deg.is_finite() && *duration_s > 0.0,
                Action::Stop { duration_s } => *duration_s >= 0.0,
                Action::LookAround {
                    amplitude_deg,
                    duration_s,
                } => amplitude_deg.abs() < 90.0 && *duration_s > 0.0,
                Action::Reach {
                    target_m,
                    duration_s,
                    ..
                } => target_m.iter().all(|v| v.is_finite()) && *duration_s > 0.0,
            };
            if !ok {
                return bad(format!("script action {i} has out-of-range values: {a:?}"));
            }
        }
        if !(self.rgb_fps.is_finite() && (0.0..=60.0).contains(&self.rgb_fps)) {
            return bad(format!(
                "rgb_fps must be within 0..=60, got {}",
                self.rgb_fps
            ));
        }
        for (i, p) in self.world.people.iter().enumerate() {
            let ok = !p.path_m.is_empty()
                && p.path_m.iter().flatten().all(|v| v.is_finite())
                && p.speed_mps > 0.0
                && p.speed_mps.is_finite()
                && p.radius_m > 0.0
                && p.height_m > 0.0
                && p.start_s.is_finite();
            if !ok {
                return bad(format!(
                    "person {i} ({:?}) has out-of-range values",
                    p.label
                ));
            }
        }
        for (i, p) in self.world.people.iter().enumerate() {
            let ok = p.facing_deg.is_none_or(f64::is_finite)
                && p.wave_s.is_none_or(|w| w.iter().all(|v| v.is_finite()));
            if !ok {
                return bad(format!(
                    "person {i} ({:?}) has a non-finite facing or wave time",
                    p.label
                ));
            }
        }
        for (i, v) in self.world.vehicles.iter().enumerate() {
            let ok = !v.path_m.is_empty()
                && v.path_m.iter().flatten().all(|x| x.is_finite())
                && v.speed_mps > 0.0
                && v.speed_mps.is_finite()
                && v.start_s.is_finite()
                && v.size_m.iter().all(|x| *x > 0.0 && *x <= 20.0);
            if !ok {
                return bad(format!(
                    "vehicle {i} ({:?}) has out-of-range values",
                    v.label
                ));
            }
        }
        for (i, o) in self.world.obstacles.iter().enumerate() {
            if let Some(c) = o.rgb {
                if !c.iter().all(|v| (0.0..=1.0).contains(v)) {
                    return bad(format!(
                        "obstacle {i} ({:?}) rgb must be within 0..=1",
                        o.label
                    ));
                }
            }
        }
        for (i, st) in self.world.steps.iter().enumerate() {
            if !(st.width_m > 0.0 && st.depth_m > 0.0 && st.rise_m.is_finite()) {
                return bad(format!(
                    "step {i} ({:?}) needs positive width_m and depth_m",
                    st.label
                ));
            }
        }
        for (i, sg) in self.world.signs.iter().enumerate() {
            if !(sg.size_m[0] > 0.0
                && sg.size_m[1] > 0.0
                && sg.size_m[0] <= 10.0
                && sg.size_m[1] <= 10.0)
            {
                return bad(format!(
                    "sign {i} ({:?}) size must be within (0, 10] m",
                    sg.text
                ));
            }
        }
        Ok(())
    }
}

/// Scenario files (`*.json`) in `dir`, sorted by name.
pub fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
    let rd = std::fs::read_dir(dir).map_err(|source| ScenarioError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    Ok(out)
}

/// Finds a scenario by name (file stem) in `dir`, or loads `name` as a path.
pub fn find_scenario(dir: &Path, name: &str) -> Result<Scenario, ScenarioError> {
    let direct = Path::new(name);
    if direct.is_file() {
        return Scenario::load(direct);
    }
    let files = scenario_files(dir)?;
    let stem = |p: &PathBuf| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    match files.iter().find(|p| stem(p).as_deref() == Some(name)) {
        Some(p) => Scenario::load(p),
        None => Err(ScenarioError::Unknown {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            known: files.iter().filter_map(stem).collect(),
        }),
    }
}
