//! [`Perception`]: the pure perception engine. Samples are folded in as they come
//! ([`Perception::on_sample`]); every tick ([`Perception::tick`]) reads the current motion,
//! heading, elevation, pose, gaze and corridor, tracks things, gates hazards and returns the
//! new [`EnvironmentState`] with the hazard events to raise. No I/O, no threads, no clock:
//! the caller says what time it is.

use std::collections::VecDeque;
use std::sync::Arc;

use nalgebra::Vector3;

use super::config::PerceptionConfig;
use super::corridor_margin::sure_half_width_m;
use super::elevation::{standard_altitude_m, HeightHistory, CHANGE_SPAN_NS};
use super::gaze::{gaze_ray, GazeRay};
use super::geom::{bearing_and_distance, wrap_deg, yaw_of};
use super::hazards::{Approach, GateConfig, HazardGate, MIN_CLOSING_MPS};
use super::heading::HeadingFilter;
use super::limits::limitations;
use super::live_map::{LiveMap, LiveMapConfig, LiveMapStats};
use super::motion::{classify, MotionDebounce, MotionInputs, StepDetector};
use super::movers::{MoverTracker, Sighting, TrackConfig};
use super::objects::{name_things, ObjectTracks, ObjectsConfig, Placement};
use super::obstacles::{
    Corridor, CorridorAnalyzer, CorridorFrame, CorridorView, FloorDepth, Sources,
};
use super::openings::OpeningDetector; // openings hook (goal routing)
use super::points::{PointMap, RecentPoints};
use super::pose::{HeadPose, PoseTracker};
use super::seen_moving::{MotionVerdict, MotionWitness};
use super::sensors::SensorModels;
use super::stereo::filter::{DepthFilter, DepthFilterConfig, DepthFilterStats};
use super::tracker::{Detection, ThingTracker};
use super::walking::WalkingTrack;
use crate::lexicon::thing_label;
use crate::sample::{Payload, Sample, StreamId};
use crate::state::{
    bearing_to_clock, EnvironmentState, Evidence, GazeFact, HazardEvent, HeightBand, MotionFact,
    MotionState, SeenObject, Side, TextFact, Thing, ThingDetail, ThingKind, TurnTracker,
};
use crate::time::{DeviceTime, HostTime};

/// An IMU (or gaze) sample older than this no longer counts as current, ns.
const CURRENT_NS: i64 = 500_000_000;
/// Walking direction is taken from the trajectory above this speed, m/s.
const DIRECTION_FROM_VELOCITY_MPS: f64 = 0.3;
/// The gaze is on a thing within this bearing, degrees (or 0.3 m at its distance).
const GAZE_ON_THING_DEG: f32 = 8.0;
/// While standing, the body's direction follows the head's with this time constant, s (a
/// turn on the spot carries it round; looking left and right averages out).
const BODY_YAW_TAU_S: f64 = 2.0;
/// A tracked cluster made mostly of depth points moving faster than this is a person (or
/// another moving thing), m/s.
pub const MOVING_MPS: f32 = 0.4;
/// A cluster spread wider than this along its longest axis (standard deviation, m) is not
/// one moving thing: a walking person's points spread about 0.15–0.3 m (two side by side
/// about 0.35 m), while the part of a wall in view, whose centroid slides along it as the
/// wearer walks, spreads more.
pub const MOVER_MAX_SPREAD_M: f32 = 0.5;
/// A moving cluster whose top is lower than this above the floor is not a person, m: a
/// walking child's shoulders, a seated wheelchair user's head are higher; the treads of
/// stairs or a kerb, whose depth points shift as the wearer walks, are lower.
pub const PERSON_MIN_TOP_M: f32 = 0.9;
/// A moving thing counts when its path enters the corridor within this time, s.
pub const PREDICT_S: f32 = 3.0;
/// Step of that prediction, s.
const PREDICT_STEP_S: f32 = 0.1;
/// Radius assumed for a moving person around its points' centroid, m.
pub const PERSON_RADIUS_M: f32 = 0.25;
/// Radius assumed for a vehicle around where it touches the ground (its near face), m:
/// half a car's width and a margin.
pub const VEHICLE_RADIUS_M: f32 = 1.0;
/// Depth points nearer than this to the cameras (horizontally) stay out of the live map
/// (the wearer's hands and body), m.
pub const LIVE_MAP_MIN_RANGE_M: f32 = 0.5;
/// Depth points near the floor farther than this from the cameras stay out of the live
/// map, m: stereo depth's error grows as the square of the range (σ ≈ 0.12 m here for the
/// Gen1 SLAM pair at a quarter pixel), and the map must hold floor heights to a few
/// centimetres (steps, kerbs).
pub const LIVE_MAP_FLOOR_RANGE_M: f32 = 3.5;
/// Depth points well above the floor (obstacles, walls: clear of it by twice their depth
/// error) enter the live map from this far, m: their height matters less than their being
/// mapped early.
pub const LIVE_MAP_MAX_RANGE_M: f32 = 6.0;
/// The disparity error the live map allows for, px.
const LIVE_MAP_DISPARITY_ERR_PX: f32 = 0.25;
/// Floor-level depth points are kept this long behind the newest frame, ns: a few frames
/// fill the floor where one frame's texture leaves gaps, and in so short a time an estimated
/// pose drifts far less than a floor-profile bin.
pub const RECENT_FLOOR_WINDOW_NS: i64 = 500_000_000;
/// Floor-level depth points held at most.
pub const MAX_RECENT_FLOOR_POINTS: usize = 40_000;
/// A pose of at least this quality is a tracked trajectory's (MPS); below, an estimate.
pub const TRUSTED_POSE_QUALITY: f32 = 0.99;
/// A pose below this quality is its tracker saying it is lost (Aria Gen2's VIO reports 0, an
/// unhealthy tracker): it is not used, the last good pose serves until it is stale
/// ([`super::pose::POSE_STALE_NS`]), and the state says tracking is lost.
pub const LOST_POSE_QUALITY: f32 = 0.05;
/// How long after the last lost pose the state still says tracking was lost, ns.
pub const LOST_POSE_NOTICE_NS: i64 = 1_000_000_000;
/// What the state says while the pose tracker is lost.
pub const TRACKING_LOST: &str =
    "the glasses lost track of where they are: positions in the room are out of date until tracking recovers";
/// Moving regions are left out, and tracked depth clusters count as moving only across
/// the walking line, while a step was detected within this (with a pose not trusted), ns;
/// for a cluster, within this before the oldest position its velocity is measured over.
pub const MOVER_STEP_NS: i64 = 800_000_000;
/// Ids of vehicles start here, far above the obstacle tracker's and the doorways'
/// ([`super::openings::DOOR_ID_BASE`]), so they never collide.
pub const VEHICLE_ID_BASE: u32 = 2_000_000_000;

/// Counters of one engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PerceptionStats {
    /// Samples folded in.
    pub samples: u64,
    /// Samples that carried nothing usable (non-finite, invalid, unknown stream).
    pub unusable: u64,
    /// Ticks run.
    pub ticks: u64,
    /// Hazard events raised.
    pub hazards: u64,
    /// Texts dropped because more than the configured number were held.
    pub texts_dropped: u64,
    /// Detector boxes not taken because they spanned the whole frame.
    pub objects_spanning_frame: u64,
    /// Detector boxes not taken because, placed, the thing stood taller than any of its
    /// class ([`ObjectClass::tallest_m`]: a person named "bed").
    pub objects_too_tall: u64,
    /// Things left out of a state because more than the configured number were near.
    pub things_dropped: u64,
    /// Depth points dropped (non-finite, too old, beyond the cap of the recent set).
    pub depth_points_dropped: u64,
    /// Frames of moving regions left out because the wearer was walking.
    pub mover_frames_walking: u64,
    /// Poses not used because their tracker reported itself lost
    /// (quality below [`LOST_POSE_QUALITY`]).
    pub poses_lost: u64,
    /// Times the pose jumped further than a head moves (a tracker that reset or
    /// relocalised its frame, [`super::pose::PoseTracker::take_jump`]).
    pub pose_jumps: u64,
    /// The live map's counters (zero without one).
    pub live_map: LiveMapStats,
    /// Floor-level depth points dropped (beyond the cap of the recent floor set).
    pub floor_points_dropped: u64,
}

/// The perception engine (pure).
#[derive(Debug)]
pub struct Perception {
    cfg: PerceptionConfig,
    models: SensorModels,
    points: Option<Arc<PointMap>>,
    recent: RecentPoints,
    /// Without a semi-dense map: the recent depth points at floor level (the floor
    /// underfoot and the floor profile ahead; see [`Self::on_depth_frame`]).
    recent_floor: RecentPoints,
    /// The last depth frames' free space, which tells a thing that moved from one seen anew.
    witness: MotionWitness,
    depth_filter: DepthFilter,
    body_yaw: Option<(i64, f64)>,
    walk: WalkingTrack,
    declared: Option<Vec<StreamId>>,
    seen: [bool; StreamId::COUNT],
    steps: StepDetector,
    imu_stream: Option<(StreamId, i64)>,
    heading: HeadingFilter,
    turns: TurnTracker,
    baro: HeightHistory,
    traj_z: HeightHistory,
    pose: PoseTracker,
    pose_yaw_rate_dps: Option<(i64, f32)>,
    /// Quality of the newest pose (0 before any).
    pose_quality: f32,
    /// Capture time of the latest pose whose tracker was lost.
    pose_lost_ns: Option<i64>,
    pose_up_device: Option<Vector3<f64>>,
    gaze: Option<(i64, GazeRay)>,
    motion: MotionDebounce,
    analyzer: CorridorAnalyzer,
    /// A depth frame's floor-level points (reused buffer).
    floor_scratch: Vec<[f32; 3]>,
    tracker: ThingTracker,
    movers: MoverTracker,
    gate: HazardGate,
    /// Texts read, with where each is in the world when the point map places it.
    texts: VecDeque<(TextFact, Option<[f64; 3]>)>,
    /// Things whose class the object detector saw.
    objects: ObjectTracks,
    /// Whether an object detector feeds [`Self::add_objects`].
    sees_objects: bool,
    newest_ns: Option<i64>,
    last_view: CorridorView,
    stats: PerceptionStats,
    openings: OpeningDetector, // openings hook (goal routing)
    /// Without a static map: the map built from stereo depth (see [`Self::with_live_map`]).
    live_map: Option<LiveMap>,
    /// A stereo depth frame has been folded in (what is in view is seen without a map).
    depth_seen: bool,
}

impl Perception {
    /// An engine with `models` (from the calibration; [`SensorModels::default`] without
    /// one) and the session's point map, when it has one.
    pub fn new(cfg: PerceptionConfig, models: SensorModels, points: Option<Arc<PointMap>>) -> Self {
        let gate = HazardGate::new(GateConfig {
            alert_distance_m: cfg.alert_distance_m,
            alert_ttc_s: cfg.alert_ttc_s,
            max_alert_distance_m: cfg.max_alert_distance_m,
            rearm_margin_m: cfg.rearm_margin_m,
            rearm_after_ns: cfg.rearm_after_ns,
        });
        Self {
            pose: PoseTracker::new(models.t_device_cpf),
            tracker: ThingTracker::new(cfg.forget_after_ns),
            movers: MoverTracker::new(TrackConfig::default()),
            texts: VecDeque::with_capacity(cfg.max_texts),
            objects: ObjectTracks::new(ObjectsConfig::default()),
            sees_objects: false,
            cfg,
            models,
            points,
            recent: RecentPoints::default(),
            recent_floor: RecentPoints::new(RECENT_FLOOR_WINDOW_NS, MAX_RECENT_FLOOR_POINTS),
            witness: MotionWitness::new(),
            depth_filter: DepthFilter::default(),
            body_yaw: None,
            walk: WalkingTrack::new(),
            declared: None,
            seen: [false; StreamId::COUNT],
            steps: StepDetector::new(),
            imu_stream: None,
            heading: HeadingFilter::new(),
            turns: TurnTracker::new(),
            baro: HeightHistory::new(),
            traj_z: HeightHistory::new(),
            pose_yaw_rate_dps: None,
            pose_quality: 0.0,
            pose_lost_ns: None,
            pose_up_device: None,
            gaze: None,
            motion: MotionDebounce::default(),
            analyzer: CorridorAnalyzer::new(),
            floor_scratch: Vec::new(),
            gate,
            newest_ns: None,
            last_view: CorridorView::default(),
            stats: PerceptionStats::default(),
            openings: OpeningDetector::default(), // openings hook (goal routing)
            live_map: None,
            depth_seen: false,
        }
    }

    /// Without a static point map: builds one live from the stereo depth frames folded in
    /// ([`LiveMap`]); each depth frame then replaces the point map with the live map's
    /// snapshot. With a static map this does nothing.
    ///
    /// Depth points on the live map's points are explained by them from the frame that
    /// mapped them: a live map point is a place seen still in several frames, so, unlike
    /// the semi-dense map (which holds people where they stood), it needs no age first. A
    /// still thing then leaves the depth points (where its centroid, shifting as its points
    /// are mapped, read as motion: "Person ahead" in front of a box) for the map as soon as
    /// it is mapped, while a moving one is never mapped where it is.
    pub fn with_live_map(mut self, cfg: LiveMapConfig) -> Self {
        if self.points.is_none() {
            self.live_map = Some(LiveMap::new(cfg));
            self.depth_filter = DepthFilter::new(DepthFilterConfig {
                map_min_age_ns: 0,
                ..*self.depth_filter.config()
            });
        }
        self
    }

    /// Whether a live map stands in for the static one.
    pub fn has_live_map(&self) -> bool {
        self.live_map.is_some()
    }

    /// Declares the streams the session has (so limitations are known from the first
    /// tick, before any sample of a stream arrives).
    pub fn with_streams(mut self, streams: &[StreamId]) -> Self {
        self.declared = Some(streams.to_vec());
        self
    }

    /// Sets the depth error model of the stereo pair that measures the depth points: its
    /// rectified focal length, px, times its baseline, m (the depth filter's and the live
    /// map's tolerances; the default is the Gen1 SLAM pair's). Set before the first frame:
    /// the depth filter's counters start again.
    pub fn set_focal_baseline_px_m(&mut self, focal_baseline_px_m: f32) {
        if focal_baseline_px_m.is_finite() && focal_baseline_px_m > 0.0 {
            self.depth_filter = DepthFilter::new(DepthFilterConfig {
                focal_baseline_px_m,
                ..*self.depth_filter.config()
            });
        }
    }

    /// Filters stereo depth points with `cfg` (the default: [`DepthFilterConfig::default`]).
    pub fn with_depth_filter(mut self, cfg: DepthFilterConfig) -> Self {
        self.depth_filter = DepthFilter::new(cfg);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &PerceptionConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> PerceptionStats {
        PerceptionStats {
            depth_points_dropped: self.recent.dropped(),
            floor_points_dropped: self.recent_floor.dropped(),
            live_map: self
                .live_map
                .as_ref()
                .map(LiveMap::stats)
                .unwrap_or_default(),
            ..self.stats
        }
    }

    /// Folds in one frame of depth points (world frame, m) captured at `capture_ns`, with
    /// the cameras where the latest head pose is (see [`Self::on_depth_frame`]).
    pub fn on_depth_points(&mut self, capture_ns: i64, points_world: &[[f32; 3]]) {
        let Some(h) = self.pose.head(capture_ns) else {
            // Without a pose nothing can be placed or filtered (and no corridor is looked
            // at): the frame is dropped and counted.
            self.depth_filter.count_unplaced(points_world.len());
            return;
        };
        let p = h.position_m;
        self.on_depth_frame(
            capture_ns,
            [p.x as f32, p.y as f32, p.z as f32],
            points_world,
        );
    }

    /// The live map as the corridor analysis sees it now (see [`Self::with_live_map`]);
    /// `None` without one.
    pub fn live_map_points(&self) -> Option<Arc<PointMap>> {
        self.live_map.as_ref().and(self.points.clone())
    }

    /// Folds in one frame of depth points (world frame, m) captured at `capture_ns` with
    /// the cameras at `origin_m` (world, m). The [`DepthFilter`] keeps what the static map
    /// lacks — dense, persistent patches in the band between floor and head height,
    /// beyond the wearer's hands — and those points are kept for
    /// [`super::points::RECENT_WINDOW_NS`] behind the newest frame, at most
    /// [`super::points::MAX_RECENT_POINTS`] (drops counted in [`PerceptionStats`]): the
    /// corridor analysis sees them beside the static map — they are what shows people.
    /// Without a semi-dense map, the frame's points at floor level (within
    /// [`LIVE_MAP_FLOOR_RANGE_M`]) are kept too, for [`RECENT_FLOOR_WINDOW_NS`]: they are the
    /// floor the corridor analysis reads (its profile, steps and drops), never obstacles.
    /// Returns the points the filter kept.
    pub fn on_depth_frame(
        &mut self,
        capture_ns: i64,
        origin_m: [f32; 3],
        points_world: &[[f32; 3]],
    ) -> Vec<[f32; 3]> {
        let floor_z = if self.last_view.floor_seen {
            self.last_view.floor_z_m
        } else {
            origin_m[2] - self.cfg.eye_height_m
        };
        self.depth_seen = true;
        let kept = self.depth_filter.apply(
            capture_ns,
            origin_m,
            floor_z,
            self.points.as_deref(),
            points_world,
        );
        self.recent.push(capture_ns, &kept);
        self.witness.add_frame(capture_ns, origin_m, points_world);
        if self.points.is_none() || self.live_map.is_some() {
            // No semi-dense map shows the floor: the depth points at floor level do, within
            // the range where stereo depth holds a floor height to a few centimetres.
            let (near2, far2) = (
                LIVE_MAP_MIN_RANGE_M * LIVE_MAP_MIN_RANGE_M,
                LIVE_MAP_FLOOR_RANGE_M * LIVE_MAP_FLOOR_RANGE_M,
            );
            let (lowest, highest) = (
                floor_z - super::obstacles::DEEPEST_DROP_M,
                floor_z + self.depth_filter.config().band.min_height_m,
            );
            self.floor_scratch.clear();
            self.floor_scratch.extend(points_world.iter().filter(|p| {
                let (dx, dy) = (p[0] - origin_m[0], p[1] - origin_m[1]);
                let h2 = dx * dx + dy * dy;
                (near2..=far2).contains(&h2) && (lowest..highest).contains(&p[2])
            }));
            log::trace!(
                "{capture_ns}: {} of {} depth points at floor level",
                self.floor_scratch.len(),
                points_world.len()
            );
            self.recent_floor.push(capture_ns, &self.floor_scratch);
        }
        if let Some(live) = self.live_map.as_mut() {
            // Not the wearer's own body and hands (as the depth filter's band), nor what
            // is too far for stereo depth to place well.
            let near2 = LIVE_MAP_MIN_RANGE_M * LIVE_MAP_MIN_RANGE_M;
            let floor_far2 = LIVE_MAP_FLOOR_RANGE_M * LIVE_MAP_FLOOR_RANGE_M;
            let far2 = LIVE_MAP_MAX_RANGE_M * LIVE_MAP_MAX_RANGE_M;
            let above_floor = floor_z + super::obstacles::OBSTACLE_MIN_M;
            let focal_baseline = self.depth_filter.config().focal_baseline_px_m;
            let away = points_world.iter().filter(|p| {
                let (dx, dy) = (p[0] - origin_m[0], p[1] - origin_m[1]);
                let dz = p[2] - origin_m[2];
                let (h2, r2) = (dx * dx + dy * dy, dx * dx + dy * dy + dz * dz);
                // Beyond the floor's range, only what stands clear of the floor by
                // twice its depth's error (a quarter pixel's) along the ray.
                let sigma = r2 * LIVE_MAP_DISPARITY_ERR_PX / focal_baseline;
                let clear = p[2] > above_floor + 2.0 * sigma;
                h2 >= near2 && (r2 <= floor_far2 || (clear && r2 <= far2))
            });
            live.see_through(origin_m, points_world, focal_baseline);
            live.insert(capture_ns, origin_m, away);
            self.points = Some(Arc::new(live.snapshot()));
        }
        self.newest_ns = Some(self.newest_ns.map_or(capture_ns, |n| n.max(capture_ns)));
        kept
    }

    /// Whether the wearer walks at `t_ns` on a pose that is only an estimate (the IMU's own,
    /// quality below [`TRUSTED_POSE_QUALITY`]): a step detected within [`MOVER_STEP_NS`]
    /// with the IMU current. Such a pose lags a walk (its speed comes from the step
    /// cadence), so still things seem to move along the walking line.
    fn walking_on_estimate(&self, t_ns: i64) -> bool {
        self.walked_on_estimate_since(t_ns, t_ns)
    }

    /// Whether the wearer walked on an estimated pose at any time from `since_ns` to `t_ns`
    /// ([`Self::walking_on_estimate`] at one of them): positions of still things placed then
    /// carry the pose's lag, and a velocity measured over them does too.
    fn walked_on_estimate_since(&self, t_ns: i64, since_ns: i64) -> bool {
        let imu_current = self
            .imu_stream
            .is_some_and(|(_, last)| t_ns.saturating_sub(last) < CURRENT_NS);
        self.pose_quality < TRUSTED_POSE_QUALITY
            && imu_current
            && self.steps.stepped_within(
                t_ns,
                MOVER_STEP_NS.saturating_add(t_ns.saturating_sub(since_ns).max(0)),
            )
    }

    /// Folds in the moving regions one camera frame captured at `capture_ns` showed,
    /// placed on the floor ([`super::movers`]); tracks moving like vehicles join the state
    /// at the next tick.
    pub fn on_mover_sightings(&mut self, capture_ns: i64, sightings: &[Sighting]) {
        // Walking, the head's translation makes near things move by parallax; the mover
        // input checks the pose for it, but a pose less than fully trusted (the IMU's own
        // estimate, quality < 1) lags a walk (its speed comes from the step cadence): then
        // a step detected within the last 0.8 s also says the wearer walks, and the frame
        // is left out.
        if self.walking_on_estimate(capture_ns) {
            self.stats.mover_frames_walking += 1;
            return;
        }
        for s in sightings {
            log::debug!(
                "movers {capture_ns}: cam {} ground ({:.1}, {:.1}) range {:.1} height {:.2} width {:.2} px {}",
                s.camera,
                s.ground_m[0],
                s.ground_m[1],
                s.range_m,
                s.height_m,
                s.width_m,
                s.pixels
            );
        }
        self.movers.update(capture_ns, sightings);
        for (tr, f) in self.movers.vehicles() {
            log::debug!("movers {capture_ns}: vehicle #{} {f:?}", tr.id);
        }
        self.newest_ns = Some(self.newest_ns.map_or(capture_ns, |n| n.max(capture_ns)));
    }

    /// The floor's height under the wearer at `t_ns` (world, m): the corridor analysis'
    /// when it saw the floor, else the head's height less the eye height; `None` without
    /// a pose.
    pub fn floor_z_m(&self, t_ns: i64) -> Option<f64> {
        let h = self.pose.head(t_ns)?;
        Some(if self.last_view.floor_seen {
            f64::from(self.last_view.floor_z_m)
        } else {
            h.position_m.z - f64::from(self.cfg.eye_height_m)
        })
    }

    /// What the depth filter kept and removed so far.
    pub fn depth_filter_stats(&self) -> DepthFilterStats {
        self.depth_filter.stats()
    }

    /// The last corridor analysis (for debugging and tests).
    pub fn last_view(&self) -> &CorridorView {
        &self.last_view
    }

    /// The newest gaze pixel in the RGB image, when current at `at`.
    pub fn gaze_pixel(&self, at: DeviceTime) -> Option<[f32; 2]> {
        self.gaze
            .as_ref()
            .filter(|(t, _)| at.ns().saturating_sub(*t) <= CURRENT_NS)
            .and_then(|(_, g)| g.rgb_pixel)
    }

    /// Folds in one sample (any order across streams; a stream's older samples are
    /// skipped by the filters).
    pub fn on_sample(&mut self, s: &Sample) {
        self.stats.samples += 1;
        if let Some(f) = self.seen.get_mut(s.stream.index()) {
            *f = true;
        }
        let t = s.capture.ns();
        self.newest_ns = Some(self.newest_ns.map_or(t, |n| n.max(t)));
        let used = match &s.payload {
            Payload::Imu(imu) => self.on_imu(s.stream, t, imu),
            Payload::Magnetometer(m) => {
                let up = self.up_device(t);
                match (self.models.mag_device(m), up) {
                    (Some(field), Some(up)) => {
                        let fwd = self.models.forward_device();
                        self.heading.on_mag(t, &field, &up, &fwd);
                        true
                    }
                    _ => false,
                }
            }
            Payload::Barometer(b) => match self
                .models
                .pressure_pa(b.pressure_pa)
                .and_then(standard_altitude_m)
            {
                Some(alt) => {
                    self.baro.push(t, alt);
                    true
                }
                None => false,
            },
            Payload::EyeGaze(g) => match gaze_ray(&self.models, g) {
                Some(r) => {
                    self.gaze = Some((t, r));
                    true
                }
                None => false,
            },
            Payload::Pose(p) if p.quality.is_nan() || p.quality < LOST_POSE_QUALITY => {
                self.pose_lost_ns = Some(self.pose_lost_ns.map_or(t, |l| l.max(t)));
                self.stats.poses_lost += 1;
                false
            }
            Payload::Pose(p) if self.pose.push(t, p) => {
                if let Some(at) = self.pose.take_jump() {
                    // Positions kept from before are in the frame the tracker left: the state
                    // says tracking was lost while they age out.
                    self.stats.pose_jumps += 1;
                    self.pose_lost_ns = Some(self.pose_lost_ns.map_or(at, |l| l.max(at)));
                }
                // Finite: a quality that is not (NaN) counted as lost above.
                self.pose_quality = p.quality;
                let r = p.t_world_device.rotation;
                let w = Vector3::new(
                    f64::from(p.angular_velocity_radps[0]),
                    f64::from(p.angular_velocity_radps[1]),
                    f64::from(p.angular_velocity_radps[2]),
                );
                let yaw_rate = (r * w).z.to_degrees() as f32;
                if yaw_rate.is_finite() {
                    self.pose_yaw_rate_dps = Some((t, yaw_rate));
                }
                self.pose_up_device = (r.inverse() * Vector3::z()).try_normalize(1e-9);
                if let Some(h) = self.pose.head(t) {
                    self.traj_z.push(t, h.position_m.z);
                    self.walk.push(h.t_ns, h.position_m);
                }
                true
            }
            Payload::Pose(_) => false,
            Payload::Image(_) => true,
            _ => false,
        };
        if !used {
            self.stats.unusable += 1;
        }
    }

    fn on_imu(&mut self, stream: StreamId, t: i64, imu: &crate::sample::ImuSample) -> bool {
        // One IMU at a time: the first seen, until it falls silent for CURRENT_NS.
        match self.imu_stream {
            Some((s, last)) if s != stream && t.saturating_sub(last) < CURRENT_NS => return true,
            _ => {}
        }
        let Some((a, w)) = self.models.imu_device(stream, imu) else {
            return false;
        };
        self.imu_stream = Some((stream, t));
        self.steps.push(t, &a, &w);
        if let Some(up) = self.up_device(t) {
            self.heading.on_gyro(t, &w, &up);
        }
        true
    }

    /// "Up" in the device frame: from the trajectory when current (exact, unlike the
    /// accelerometer's, which walking accelerations tilt), else the accelerometer.
    fn up_device(&self, t: i64) -> Option<Vector3<f64>> {
        if self.pose.head(t).is_some() {
            if let Some(up) = self.pose_up_device {
                return Some(up);
            }
        }
        let imu_current = self
            .imu_stream
            .is_some_and(|(_, last)| t.saturating_sub(last) < CURRENT_NS);
        if imu_current {
            self.steps.up_device()
        } else {
            None
        }
    }

    /// Adds texts read from the RGB camera (the oldest beyond the cap are dropped and
    /// counted).
    pub fn add_texts(&mut self, texts: impl IntoIterator<Item = TextFact>) {
        for t in texts {
            if self.texts.len() >= self.cfg.max_texts.max(1) {
                self.texts.pop_front();
                self.stats.texts_dropped += 1;
            }
            let world = self.text_world(&t);
            self.texts.push_back((t, world));
        }
    }

    /// Where a text read is in the world ([`super::text_distance`]): the
    /// ray through its box from the RGB camera at the head pose of its frame, to the first
    /// surface of the point map behind it; `None` without a pose, an RGB calibration, a map
    /// or a surface.
    fn text_world(&self, text: &TextFact) -> Option<[f64; 3]> {
        let head = self.pose.head(text.at.ns())?;
        let camera = self.models.rgb.as_ref()?;
        let map = self.points.as_ref()?;
        let t_world_device = head.t_world_cpf * self.models.t_device_cpf.inverse();
        let hit = super::text_distance::text_hit(
            camera,
            &t_world_device,
            text.rgb_box,
            map,
            text.at,
            &super::text_distance::RayHitConfig::default(),
        )?;
        Some([hit.point.x, hit.point.y, hit.point.z])
    }

    /// Says that an object detector feeds [`Self::add_objects`] (the state says so).
    pub fn set_sees_objects(&mut self, sees: bool) {
        self.sees_objects = sees;
    }

    /// Adds what the object detector saw, each placed in the world ([`Self::object_place`]).
    pub fn add_objects(&mut self, seen: impl IntoIterator<Item = SeenObject>) {
        for s in seen {
            if let Some(c) = self.models.rgb.as_ref() {
                if self.objects.spans_frame(&s, c.image_width, c.image_height) {
                    self.stats.objects_spanning_frame += 1;
                    continue;
                }
            }
            let place = self.object_place(&s);
            if let Some(height) = self.standing_height_m(&s, &place) {
                if super::objects::taller_than_class(s.class, height) {
                    log::debug!(
                        "object at {} ns: {} {:.2} stands {height:.2} m tall: not one",
                        s.at.ns(),
                        s.class,
                        s.confidence
                    );
                    self.stats.objects_too_tall += 1;
                    continue;
                }
            }
            log::debug!(
                "object at {} ns: {} {:.2} box {:?} placed {place:?}",
                s.at.ns(),
                s.class,
                s.confidence,
                s.rgb_box
            );
            self.objects.add(s, place);
        }
    }

    /// Where a thing the detector saw is, from the head pose of its frame and the RGB
    /// calibration: the point map's surface behind the centre of its box when there is one;
    /// else, for a thing that stands on the ground, where the ray through the foot of its
    /// box meets the floor (within the perception range); else the direction of the ray
    /// through its centre.
    fn object_place(&self, s: &SeenObject) -> Placement {
        let (Some(head), Some(camera)) = (self.pose.head(s.at.ns()), self.models.rgb.as_ref())
        else {
            return Placement::Unknown;
        };
        let t_world_device = head.t_world_cpf * self.models.t_device_cpf.inverse();
        if let Some(map) = self.points.as_ref() {
            if let Some(hit) = super::text_distance::text_hit(
                camera,
                &t_world_device,
                s.rgb_box,
                map,
                s.at,
                &super::text_distance::RayHitConfig::default(),
            ) {
                return Placement::At([hit.point.x, hit.point.y, hit.point.z]);
            }
        }
        let [x0, y0, x1, y1] = s.rgb_box;
        if s.class.stands_on_ground() {
            if let (Some(floor), Some((origin, dir))) = (
                self.floor_z_m(s.at.ns()),
                super::text_distance::pixel_ray_world(camera, &t_world_device, s.foot_px),
            ) {
                if dir.z < -1e-3 {
                    let range = (floor - origin.z) / dir.z;
                    let p = origin + dir * range;
                    let reach = (p.x - origin.x).hypot(p.y - origin.y);
                    if range > 0.0 && reach <= f64::from(self.cfg.range_m) {
                        return Placement::At([p.x, p.y, p.z]);
                    }
                }
            }
        }
        match super::text_distance::pixel_ray_world(
            camera,
            &t_world_device,
            [(x0 + x1) * 0.5, (y0 + y1) * 0.5],
        ) {
            Some((_, dir)) if dir.x.hypot(dir.y) > 1e-6 => Placement::Towards(dir.y.atan2(dir.x)),
            _ => Placement::Unknown,
        }
    }

    /// How tall a thing the detector saw and perception placed at `place` stands over the
    /// floor, m: where the ray through the top of its box passes over the place (its
    /// horizontal distance from the camera). `None` without a place, a box top, a floor or
    /// a pose.
    fn standing_height_m(&self, s: &SeenObject, place: &Placement) -> Option<f64> {
        let (Placement::At(p), Some(top)) = (place, s.top_px) else {
            return None;
        };
        let head = self.pose.head(s.at.ns())?;
        let camera = self.models.rgb.as_ref()?;
        let floor = self.floor_z_m(s.at.ns())?;
        let t_world_device = head.t_world_cpf * self.models.t_device_cpf.inverse();
        let top_ray = super::text_distance::pixel_ray_world(camera, &t_world_device, top)?;
        super::objects::standing_height_m(top_ray, *p, floor)
    }

    /// The state at device time `at` (the clock's present is `now`), and the hazards to
    /// alert now.
    pub fn tick(
        &mut self,
        at: DeviceTime,
        now: HostTime,
    ) -> (Arc<EnvironmentState>, Vec<HazardEvent>) {
        self.stats.ticks += 1;
        let t = at.ns();
        let head = self.pose.head(t);
        let velocity = self.pose.velocity_mps(t);
        let traj_speed = velocity.map(|v| v.x.hypot(v.y) as f32);
        let imu_current = self
            .imu_stream
            .is_some_and(|(_, last)| t.saturating_sub(last) < CURRENT_NS);
        let cadence = imu_current.then(|| self.steps.cadence_spm(t)).flatten();
        let yaw_rate = if imu_current {
            self.steps.yaw_rate_dps()
        } else {
            self.pose_yaw_rate_dps
                .filter(|(pt, _)| t.saturating_sub(*pt) < CURRENT_NS)
                .map(|(_, r)| r)
        };
        let (vertical, elevation_change) = if head.is_some() {
            (
                self.traj_z.speed_mps(t),
                self.traj_z.change_m(t, CHANGE_SPAN_NS),
            )
        } else {
            (
                self.baro.speed_mps(t),
                self.baro.change_m(t, CHANGE_SPAN_NS),
            )
        };
        let inputs = MotionInputs {
            cadence_spm: cadence,
            speed_mps: traj_speed,
            vertical_mps: vertical,
            yaw_rate_dps: yaw_rate,
        };
        let (state, since) = self.motion.update(t, classify(&inputs));
        let speed = traj_speed
            .or_else(|| cadence.map(|c| super::step_length::speed_mps(f64::from(c)) as f32));
        let confidence = match (imu_current, head.is_some()) {
            (true, true) => 0.9,
            (true, false) => 0.7,
            (false, true) => 0.6,
            (false, false) => 0.0,
        };
        let heading_deg = self.heading.heading_deg(t);
        let turns = self.turns.update(at, heading_deg);
        let motion = MotionFact {
            state,
            since: DeviceTime(since),
            cadence_spm: cadence,
            speed_mps: speed,
            heading_deg,
            elevation_change_m: elevation_change,
            confidence: if state == MotionState::Unknown {
                0.0
            } else {
                confidence
            },
        };
        // The corridor: the walking direction when moving; standing, the body's direction
        // (the head's, slowly: looking around does not swing it).
        let mut things = Vec::new();
        let mut approaches = Vec::new();
        let mut walkable = None;
        let mut closing = speed;
        let mut walking_line = None;
        if let Some(h) = head {
            // Direction from the head track (since a turn on the spot, when there was one),
            // else the steadier 1 s velocity (not after such a turn: it may hold the walk
            // before it), else the short one (setting off); closing speed from the short one.
            let now_m = h.position_m;
            let fast = self.walk.fast_velocity(h.t_ns, &now_m).or(velocity);
            let fast_enough = |v: &Vector3<f64>| v.x.hypot(v.y) >= DIRECTION_FROM_VELOCITY_MPS;
            let since = self.walk.turned_since(&now_m, h.yaw_rad);
            let steady = velocity.filter(|_| since.is_none());
            let track = self.walk.velocity(h.t_ns, &now_m, since);
            // Walking (or just stopping) when any of the three is a walking speed; the
            // direction then from the longest of them that is long enough (see
            // `WalkingTrack::line`).
            let moving = [track, steady, fast].iter().flatten().any(fast_enough);
            let walking_dir = if moving {
                self.walk
                    .line(h.t_ns, &now_m, since)
                    .or(steady.filter(fast_enough))
                    .or(fast.filter(fast_enough))
                    .and_then(|v| yaw_of(&v))
            } else {
                None
            };
            let dir = self.body_direction(t, walking_dir, h.yaw_rad);
            walking_line = walking_dir.map(|w| w as f32);
            log::trace!(
                "tick {t}: sources track {:?} pose {:?} fast {:?}",
                self.walk
                    .velocity(h.t_ns, &now_m, since)
                    .and_then(|v| yaw_of(&v))
                    .map(|y| (y.to_degrees() * 10.0).round() / 10.0),
                velocity.map(|v| (v.x.hypot(v.y) * 100.0).round() / 100.0),
                fast.map(|v| (v.x.hypot(v.y) * 100.0).round() / 100.0)
            );
            let v_w = fast.map_or([0.0f32; 2], |v| [v.x as f32, v.y as f32]);
            if let Some(v) = fast {
                closing = Some((v.x * dir.cos() + v.y * dir.sin()) as f32);
            }
            let side = self.walk.sway_offset_m(walking_dir.is_some(), dir, since);
            let c = Corridor {
                head_m: [
                    (h.position_m.x - side * dir.sin()) as f32,
                    (h.position_m.y + side * dir.cos()) as f32,
                    h.position_m.z as f32,
                ],
                dir_rad: dir as f32,
                width_m: self.cfg.corridor_width_m,
                range_m: self.cfg.range_m,
                eye_height_m: self.cfg.eye_height_m,
            };
            let map = self.points.clone();
            if map.is_some() || !self.recent.is_empty() || !self.recent_floor.is_empty() {
                let sources = Sources {
                    map: map.as_deref(),
                    recent: (!self.recent.is_empty()).then_some(&self.recent),
                    floor: (!self.recent_floor.is_empty()).then_some(FloorDepth {
                        points: &self.recent_floor,
                        range_error_per_m2: LIVE_MAP_DISPARITY_ERR_PX
                            / self.depth_filter.config().focal_baseline_px_m,
                    }),
                };
                let view = self.analyzer.analyze_sources(sources, &c, at);
                let found = self.things_from(&view, &h, at, &c, v_w, closing);
                walkable = view.walkable.clone();
                self.last_view = view;
                let mut pairs: Vec<(Thing, Approach)> = found;
                pairs.sort_by(|a, b| a.0.distance_m.total_cmp(&b.0.distance_m));
                if log::log_enabled!(log::Level::Trace) {
                    let path: Vec<String> = pairs
                        .iter()
                        .filter(|(_, ap)| ap.in_path)
                        .map(|(th, ap)| {
                            format!(
                                "#{} {} {:.2}m ahead {:.2} ttc {:?} appr {} sure {}",
                                th.id,
                                th.label,
                                th.distance_m,
                                ap.distance_m,
                                ap.ttc_s,
                                ap.approaching,
                                ap.sure
                            )
                        })
                        .collect();
                    log::trace!(
                        "tick {t}: head ({:.3}, {:.3}, {:.2}) floor {:.2} {} yaw {:.0}° walking {:?} since {since:?} \
                         corridor {:.0}° closing {closing:?}; in path: {}",
                        h.position_m.x,
                        h.position_m.y,
                        h.position_m.z,
                        self.last_view.floor_z_m,
                        self.last_view.floor_seen,
                        h.yaw_rad.to_degrees(),
                        walking_dir.map(|w| w.to_degrees().round()),
                        dir.to_degrees(),
                        path.join(", ")
                    );
                }
                for (th, ap) in pairs {
                    things.push(th);
                    approaches.push(ap);
                }
            }
            for (th, ap) in self.vehicles(t, &h, &c, v_w) {
                things.push(th);
                approaches.push(ap);
            }
        }
        // What things are: the detector's sightings told from the head now, each naming
        // the geometric thing it is (before alerts, which then say what it is).
        let objects = self.objects.facts(
            t,
            head.as_ref()
                .map(|h| (h.position_m.x, h.position_m.y, h.yaw_rad)),
            &things,
        );
        name_things(&mut things, &objects);
        let alerts = self
            .gate
            .update_walking(t, &things, &approaches, walking_line);
        let evidence = DeviceTime(self.newest_ns.unwrap_or(t).min(t));
        let events: Vec<HazardEvent> = alerts
            .into_iter()
            .filter_map(|(i, ttc)| {
                things.get(i).map(|th| HazardEvent {
                    thing: th.clone(),
                    time_to_contact_s: ttc,
                    evidence,
                    raised: now,
                })
            })
            .collect();
        for e in &events {
            log::trace!(
                "tick {t}: hazard event {} {} at {:.2} m",
                e.thing.id,
                e.thing.label,
                e.thing.distance_m
            );
        }
        self.stats.hazards += events.len() as u64;
        let max_things = self.cfg.max_things;
        if things.len() > max_things {
            self.stats.things_dropped += (things.len() - max_things) as u64;
            things.truncate(max_things);
        }
        // ---- openings hook (goal routing, src/perception/openings.rs): doorways and open
        // corridor ends from the point map, as `ThingKind::Door` things (never in the
        // path, never alerted; at most `openings::MAX_OPENINGS` beyond `max_things`).
        if let (Some(h), Some(map)) = (head.as_ref(), self.points.as_ref()) {
            let (hx, hy) = (h.position_m.x, h.position_m.y);
            self.openings
                .update(map, [hx as f32, hy as f32], self.last_view.floor_z_m, t);
            things.extend(self.openings.things([hx, hy], h.yaw_rad, at));
            things.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
        }
        // ---- end of the openings hook
        let gaze = self.gaze_fact(t, head.as_ref(), &things);
        let gaze_px = gaze.as_ref().and_then(|g| g.rgb_pixel);
        let max_age = self.cfg.text_max_age_ns;
        self.texts
            .retain(|(tx, _)| t.saturating_sub(tx.at.ns()) <= max_age);
        let texts = self
            .texts
            .iter()
            .map(|(tx, world)| {
                let mut tx = tx.clone();
                // Texts the map placed: direction and distance from the head now.
                if let (Some(w), Some(h)) = (world, head.as_ref()) {
                    let (hx, hy) = (h.position_m.x, h.position_m.y);
                    let (b, d) = bearing_and_distance(hx, hy, h.yaw_rad, w[0], w[1]);
                    tx.clock = bearing_to_clock(b);
                    tx.distance_m = Some(d);
                }
                tx.gazed = gaze_px.is_some_and(|[u, v]| {
                    let [x0, y0, x1, y1] = tx.rgb_box;
                    let m = 20.0;
                    u >= x0 - m && u <= x1 + m && v >= y0 - m && v <= y1 + m
                });
                tx
            })
            .collect();
        let mut limits = limitations(
            &self.models,
            self.points.as_deref(),
            self.live_map.is_some(),
            self.depth_seen,
            |s| self.has_stream(s),
        );
        if self
            .pose_lost_ns
            .is_some_and(|l| t.saturating_sub(l) <= LOST_POSE_NOTICE_NS)
        {
            limits.push(TRACKING_LOST.to_string());
        }
        let state = EnvironmentState {
            at: evidence,
            motion,
            turns,
            things,
            texts,
            objects,
            sees_objects: self.sees_objects,
            gaze,
            walkable,
            limitations: limits,
        };
        (Arc::new(state), events)
    }

    fn has_stream(&self, s: StreamId) -> bool {
        match &self.declared {
            Some(d) => d.contains(&s),
            None => self.seen.get(s.index()).copied().unwrap_or(false),
        }
    }

    /// The corridor's direction at `t`: the walking direction when walking, else the
    /// body's (following the head's yaw with [`BODY_YAW_TAU_S`]).
    fn body_direction(&mut self, t: i64, walking_dir: Option<f64>, head_yaw: f64) -> f64 {
        let yaw = match (walking_dir, self.body_yaw) {
            (Some(w), _) => w,
            (None, None) => head_yaw,
            (None, Some((last, y))) => {
                let dt = (t.saturating_sub(last)).max(0) as f64 * 1e-9;
                let k = (dt / BODY_YAW_TAU_S).min(1.0);
                let diff = f64::from(wrap_deg((head_yaw - y).to_degrees() as f32)).to_radians();
                y + k * diff
            }
        };
        self.body_yaw = Some((t, yaw));
        yaw
    }

    /// The tracked movers that are vehicles at `t`, where they are now (their fitted
    /// line carried forward), each with how it approaches the corridor `c`.
    fn vehicles(
        &self,
        t: i64,
        h: &HeadPose,
        c: &Corridor,
        wearer_v: [f32; 2],
    ) -> Vec<(Thing, Approach)> {
        let (hx, hy) = (h.position_m.x, h.position_m.y);
        let floor = self.floor_z_m(t).unwrap_or(h.position_m.z - 1.6) as f32;
        self.movers
            .vehicles()
            .into_iter()
            .map(|(tr, f)| {
                let dt = (t.saturating_sub(tr.last_ns)).max(0) as f64 * 1e-9;
                let p = [
                    (f.position_m[0] + f.velocity_mps[0] * dt) as f32,
                    (f.position_m[1] + f.velocity_mps[1] * dt) as f32,
                    floor,
                ];
                let v = [f.velocity_mps[0] as f32, f.velocity_mps[1] as f32];
                let conflict = vehicle_conflict(c, p, v, wearer_v);
                log::debug!(
                    "tick {t}: vehicle #{} at ({:.1}, {:.1}) v ({:.1}, {:.1}) corridor {:.0}° from ({:.1}, {:.1}) wearer v ({:.2}, {:.2}) conflict {conflict:?}",
                    tr.id, p[0], p[1], v[0], v[1], c.dir_rad.to_degrees(), c.head_m[0], c.head_m[1], wearer_v[0], wearer_v[1]
                );
                let (b, d) = bearing_and_distance(hx, hy, h.yaw_rad, f64::from(p[0]), f64::from(p[1]));
                // Which side of the walking line it is on, and whether it is coming at it.
                let detail = moving_detail(c.frame(), [p[0], p[1]], v);
                let th = Thing {
                    id: VEHICLE_ID_BASE.saturating_add(tr.id),
                    kind: ThingKind::Vehicle,
                    label: thing_label(ThingKind::Vehicle, &detail, Some(HeightBand::Body)),
                    detail,
                    class: None,
                    clock: bearing_to_clock(b),
                    bearing_left_deg: Some(b),
                    distance_m: d,
                    height: Some(HeightBand::Body),
                    world_m: Some(p),
                    in_path: conflict.is_some(),
                    first_seen: DeviceTime(tr.first_ns),
                    last_seen: DeviceTime(tr.last_ns),
                    confidence: 0.6,
                    evidence: Evidence::Motion,
                };
                let ap = Approach {
                    in_path: conflict.is_some(),
                    distance_m: conflict.map_or(d, |(_, along)| along),
                    ttc_s: conflict.map(|(s, _)| s),
                    approaching: conflict.is_some(),
                    sure: conflict.is_some(),
                    motion_unknown: false,
                };
                (th, ap)
            })
            .collect()
    }

    /// Things from the analysis, tracked, each with how it is being approached.
    fn things_from(
        &mut self,
        view: &CorridorView,
        h: &HeadPose,
        at: DeviceTime,
        c: &Corridor,
        wearer_v: [f32; 2],
        closing: Option<f32>,
    ) -> Vec<(Thing, Approach)> {
        let (hx, hy) = (h.position_m.x, h.position_m.y);
        // A cluster is evidence as new as its newest depth point (the depth frames of the
        // last half second make it: between frames, and while new frames add nothing to
        // it, a tick sees it again); the static map and the floor's edges as the newest
        // depth frame.
        let newest = self.recent.newest_ns().unwrap_or(at.ns());
        let mut dets = Vec::with_capacity(view.clusters.len() + view.edges.len());
        for c in &view.clusters {
            dets.push(Detection {
                kind: c.kind,
                xy_m: [c.centroid_m[0], c.centroid_m[1]],
                evidence_ns: c.newest_depth_ns.unwrap_or(newest),
            });
        }
        for e in &view.edges {
            dets.push(Detection {
                kind: e.kind,
                xy_m: [e.world_m[0], e.world_m[1]],
                evidence_ns: newest,
            });
        }
        let ids = self.tracker.update(at.ns(), &dets);
        let mut out = Vec::with_capacity(dets.len());
        let mk = |id: u32,
                  first: i64,
                  kind: ThingKind,
                  detail: ThingDetail,
                  near: [f32; 3],
                  world: [f32; 3],
                  height: Option<HeightBand>,
                  in_path: bool,
                  confidence: f32| {
            let (b, d) =
                bearing_and_distance(hx, hy, h.yaw_rad, f64::from(near[0]), f64::from(near[1]));
            Thing {
                id,
                kind,
                label: thing_label(kind, &detail, height),
                detail,
                class: None,
                clock: bearing_to_clock(b),
                bearing_left_deg: Some(b),
                distance_m: d,
                height,
                world_m: Some(world),
                in_path,
                first_seen: DeviceTime(first),
                last_seen: at,
                confidence,
                evidence: Evidence::Points,
            }
        };
        let approaching = super::hazards::is_approaching(closing);
        // Walking on an estimated pose, motion along the walking line is the pose's lag as
        // much as the thing's: only motion across it says a thing moves (for a thing whose
        // velocity is measured over positions placed while the wearer walked: just after a
        // stop, the pose's overshoot is still in it).
        let across_only_since =
            |since: Option<i64>| self.walked_on_estimate_since(at.ns(), since.unwrap_or(at.ns()));
        let live = self.live_map.is_some();
        let (line_cos, line_sin) = (c.dir_rad.cos(), c.dir_rad.sin());
        let origin = [hx as f32, hy as f32, h.position_m.z as f32];
        let focal_baseline = self.depth_filter.config().focal_baseline_px_m;
        let static_approach =
            |in_path: bool, ahead: f32, sure: bool, motion_unknown: bool| Approach {
                in_path,
                distance_m: ahead,
                ttc_s: super::hazards::time_to_contact_s(ahead, closing).filter(|_| in_path),
                approaching,
                sure: in_path && sure,
                motion_unknown,
            };
        for (cl, tr) in view.clusters.iter().zip(&ids) {
            if tr.id == 0 {
                continue;
            }
            let conf = (cl.points as f32 / 30.0).clamp(0.2, 0.95);
            // Moving: mostly depth points, compact as one thing is (not a wall, whose part
            // in view slides along it as the wearer walks), its track faster than a drift,
            // over the ground and relative to the wearer (a slice of wall at the edge of
            // the analysed range keeps pace with the wearer), and across the walking line
            // while the pose is an estimate that lags the walk. With a live map, not where
            // the map holds it: a live map point is a place seen still, and a thing being
            // mapped part by part (its top first, clear of the floor's depth error) leaves
            // its remaining depth points with a centroid that slides as if it walked.
            let mapped = live && cl.mapped_cells * 2 >= cl.dynamic_cells.max(1);
            let seems = tr.velocity_mps.filter(|v| {
                let relative = (v[0] - wearer_v[0]).hypot(v[1] - wearer_v[1]);
                let across = (-line_sin * v[0] + line_cos * v[1]).abs();
                v[0].hypot(v[1]) >= MOVING_MPS
                    && relative >= MOVING_MPS
                    && (!across_only_since(tr.oldest_ns) || across >= MOVING_MPS)
                    && cl.dynamic_points * 2 >= cl.points
                    && cl.wall_m.is_none()
                    && cl.spread_m <= MOVER_MAX_SPREAD_M
                    && cl.top_m >= PERSON_MIN_TOP_M
                    && !mapped
            });
            // And seen to move: where it stands now was seen through a moment ago, or where
            // it stood is seen through now (a thing coming into view, or a still one whose
            // points come and go, only seems to).
            let witnessed = seems.map(|v| {
                self.witness
                    .verdict(cl.centroid_m, v, tr.oldest_m, origin, focal_baseline)
            });
            let moving = seems.filter(|_| {
                matches!(
                    witnessed,
                    Some(MotionVerdict::Moved | MotionVerdict::Unseen)
                )
            });
            if let Some(v) = moving {
                let conflict = predict_conflict(c, cl.centroid_m, v, wearer_v);
                let th = mk(
                    tr.id,
                    tr.first_seen_ns,
                    ThingKind::Person,
                    moving_detail(c.frame(), [cl.centroid_m[0], cl.centroid_m[1]], v),
                    cl.nearest_m,
                    cl.centroid_m,
                    Some(cl.band),
                    conflict.is_some(),
                    conf,
                );
                // Surely in the path: its points surely in the corridor now (as for
                // anything standing), or its path entering the narrowed corridor from
                // outside it. A cluster of depth points at the corridor's edge whose
                // centroid wanders as points come and go (a door jamb 4.5 m ahead, its
                // depth 0.4 m short) reads as a slow "person" already within reach of the
                // corridor, and is no surer than the jamb it is.
                let sure = conflict.is_some()
                    && (cl.sure
                        || predict_sure_conflict(c, cl.centroid_m, v, wearer_v)
                            .is_some_and(|dt| dt > 0.0));
                let ap = Approach {
                    in_path: conflict.is_some(),
                    distance_m: cl.ahead_m.unwrap_or(cl.distance_m),
                    ttc_s: conflict,
                    approaching: conflict.is_some(),
                    sure,
                    motion_unknown: false,
                };
                out.push((th, ap));
                continue;
            }
            let detail = if cl.wall_m.is_some() {
                ThingDetail::Wall
            } else {
                ThingDetail::None
            };
            // Where it is: for something in the path, where the wearer would meet it.
            let world = cl.hit_m.filter(|_| cl.in_path).unwrap_or(cl.centroid_m);
            let th = mk(
                tr.id,
                tr.first_seen_ns,
                cl.kind,
                detail,
                cl.nearest_m,
                world,
                Some(cl.band),
                cl.in_path,
                conf,
            );
            // A cluster whose track has no velocity yet may be a person just come into
            // view; a wall or a mapped thing stands.
            let unknown = (tr.velocity_mps.is_none() || witnessed == Some(MotionVerdict::NotYet))
                && cl.wall_m.is_none()
                && !mapped;
            let ap = static_approach(
                cl.in_path,
                cl.ahead_m.unwrap_or(cl.distance_m),
                cl.sure,
                unknown,
            );
            out.push((th, ap));
        }
        for (e, tr) in view.edges.iter().zip(ids.iter().skip(view.clusters.len())) {
            if tr.id == 0 {
                continue;
            }
            // Measured and said to the centimetre.
            let detail = ThingDetail::Edge {
                rise_m: (e.rise_m.abs() * 100.0).round() / 100.0,
            };
            let conf = if view.floor_seen { 0.8 } else { 0.5 };
            let th = mk(
                tr.id,
                tr.first_seen_ns,
                e.kind,
                detail,
                e.world_m,
                e.world_m,
                Some(HeightBand::Ground),
                true,
                conf,
            );
            // An edge is found on the corridor's centre line: surely in it.
            out.push((th, static_approach(true, e.along_m, true, false)));
        }
        out
    }

    fn gaze_fact(&self, t: i64, head: Option<&HeadPose>, things: &[Thing]) -> Option<GazeFact> {
        let (gt, g) = self.gaze.as_ref()?;
        if t.saturating_sub(*gt) > CURRENT_NS {
            return None;
        }
        let (bearing, pitch, target) = match head {
            Some(h) => {
                let d = h.t_world_cpf.rotation * g.dir_cpf;
                let yaw = yaw_of(&d)?;
                let b = wrap_deg((yaw - h.yaw_rad).to_degrees() as f32);
                let pitch = d.z.atan2(d.x.hypot(d.y)).to_degrees() as f32;
                let horiz = g.depth_m.map(|dm| dm * (d.x.hypot(d.y) as f32));
                let target = things
                    .iter()
                    .filter_map(|th| {
                        let w = th.world_m?;
                        let (tb, td) = bearing_and_distance(
                            h.position_m.x,
                            h.position_m.y,
                            h.yaw_rad,
                            f64::from(w[0]),
                            f64::from(w[1]),
                        );
                        let tol = GAZE_ON_THING_DEG.max((0.3 / td.max(0.1)).atan().to_degrees());
                        let diff = wrap_deg(tb - b).abs();
                        let depth_ok = horiz.is_none_or(|hd| (hd - td).abs() <= 1.0);
                        (diff <= tol && depth_ok).then_some((diff, th.id))
                    })
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, id)| id);
                (b, pitch, target)
            }
            None => {
                let dc = g.dir_cpf;
                let b = dc.x.atan2(dc.z).to_degrees() as f32;
                let p = dc.y.atan2(dc.x.hypot(dc.z)).to_degrees() as f32;
                (b, p, None)
            }
        };
        Some(GazeFact {
            clock: bearing_to_clock(bearing),
            pitch_deg: pitch,
            depth_m: g.depth_m,
            rgb_pixel: g.rgb_pixel,
            target,
            at: DeviceTime(*gt),
        })
    }
}

/// When a thing at `p_m` moving at `v_mps` (world, horizontal) enters the corridor `c` of a
/// wearer moving at `wearer_mps`, within [`PREDICT_S`]: seconds from now (0: in it now).
/// A standing wearer counts only a thing closing in.
pub fn predict_conflict(
    c: &Corridor,
    p_m: [f32; 3],
    v_mps: [f32; 2],
    wearer_mps: [f32; 2],
) -> Option<f32> {
    conflict_within(c, p_m, v_mps, wearer_mps, false, PERSON_RADIUS_M, 0.0).map(|(dt, _)| dt)
}

/// Like [`predict_conflict`], into the corridor narrowed by the walking direction's
/// uncertainty at each predicted distance ([`super::corridor_margin::sure_half_width_m`]):
/// when the thing enters the corridor surely.
pub fn predict_sure_conflict(
    c: &Corridor,
    p_m: [f32; 3],
    v_mps: [f32; 2],
    wearer_mps: [f32; 2],
) -> Option<f32> {
    conflict_within(c, p_m, v_mps, wearer_mps, true, PERSON_RADIUS_M, 0.0).map(|(dt, _)| dt)
}

/// When a vehicle whose near face is at `p_m`, moving at `v_mps`, enters the corridor `c`
/// of a wearer moving at `wearer_mps`, within [`PREDICT_S`]: seconds from now (0: in it
/// now) and how far ahead along the corridor, m. A standing wearer counts only a vehicle
/// closing in.
pub fn vehicle_conflict(
    c: &Corridor,
    p_m: [f32; 3],
    v_mps: [f32; 2],
    wearer_mps: [f32; 2],
) -> Option<(f32, f32)> {
    conflict_within(
        c,
        p_m,
        v_mps,
        wearer_mps,
        false,
        VEHICLE_RADIUS_M,
        VEHICLE_RADIUS_M,
    )
}

/// When a thing at `p_m` of `radius_m` moving at `v_mps` enters the corridor `c` (narrowed
/// by the direction's uncertainty when `sure`) of a wearer moving at `wearer_mps`, within
/// [`PREDICT_S`], counting it from `behind_m` behind the head along the corridor: seconds
/// from now and how far ahead, m. A standing wearer counts only a thing closing in.
fn conflict_within(
    c: &Corridor,
    p_m: [f32; 3],
    v_mps: [f32; 2],
    wearer_mps: [f32; 2],
    sure: bool,
    radius_m: f32,
    behind_m: f32,
) -> Option<(f32, f32)> {
    let rel = [v_mps[0] - wearer_mps[0], v_mps[1] - wearer_mps[1]];
    let (dx, dy) = (p_m[0] - c.head_m[0], p_m[1] - c.head_m[1]);
    let standing = wearer_mps[0].hypot(wearer_mps[1]) < MIN_CLOSING_MPS;
    if standing && rel[0] * dx + rel[1] * dy >= 0.0 {
        return None;
    }
    let frame = c.frame();
    let half = c.width_m / 2.0;
    let steps = (PREDICT_S / PREDICT_STEP_S).round() as usize;
    (0..=steps).find_map(|i| {
        let dt = i as f32 * PREDICT_STEP_S;
        let (along, lat) = frame.rotate([dx + rel[0] * dt, dy + rel[1] * dt]);
        let half = if sure {
            sure_half_width_m(half, along)
        } else {
            half
        };
        let reach = half + radius_m;
        (lat.abs() <= reach && along > -behind_m && along - radius_m <= c.range_m)
            .then_some((dt, along.max(0.0)))
    })
}

/// A mover's side of the walking line and whether it comes towards it, from where it is
/// (world `[x, y]` m) and its velocity (world m/s).
fn moving_detail(frame: CorridorFrame, p_m: [f32; 2], v_mps: [f32; 2]) -> ThingDetail {
    let (_, lateral_m) = frame.local(p_m);
    let (_, lateral_mps) = frame.rotate(v_mps);
    ThingDetail::Moving {
        side: if lateral_m >= 0.0 {
            Side::Left
        } else {
            Side::Right
        },
        approaching: lateral_m * lateral_mps < 0.0,
    }
}
