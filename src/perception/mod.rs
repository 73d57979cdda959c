//! Perception: turns the glasses' streams into the [`crate::state::EnvironmentState`] the
//! assistant speaks from, and raises [`crate::state::HazardEvent`]s. Causal and non-neural:
//! every tick (50–100 ms of device time) it folds in the samples captured so far.
//!
//! * [`motion`]: standing / walking / turning / stairs and step cadence from the IMUs;
//!   [`step_length`]: step length (so speed) from the cadence, by the human walk ratio.
//! * [`heading`]: compass heading (magnetometer tilt-compensated with gravity, fused with
//!   the gyro); [`elevation`]: height history (barometer or trajectory).
//! * [`pose`]: the latest device pose (MPS trajectory), head yaw and walking direction;
//!   [`inertial_pose`]: a pose from the IMU where there is none, and [`inertial_source`]
//!   the source that adds it to input without a trajectory; [`odometry`]: visual
//!   odometry on the SLAM pair for that pose's position (`--odometry`);
//!   [`walking`]: the walking line from the head track (a turn on the spot starts a new one).
//! * [`gaze`]: the eye-gaze ray through the CPF into the RGB image.
//! * [`points`]: the semi-dense map with a grid index and causal first-seen times;
//!   [`live_map`]: without one, a map built from stereo depth (`--live-map`), which
//!   [`see_through`] clears where a depth frame sees through it;
//!   [`obstacles`]: corridor analysis (things, drop-offs, walkable space) and tracking;
//!   [`corridor_margin`]: what is surely in the corridor, given the direction's uncertainty.
//! * [`hazards`]: one alert per approach.
//! * [`engine`]: [`Perception`], pure; [`consumer`]: [`PerceptionConsumer`], the runtime
//!   stage; [`load`]: what a session folder provides (calibration, points).

pub mod cellhash;
pub mod config;
pub mod consumer;
pub mod corridor_margin;
pub mod depth_input;
pub mod elevation;
pub mod engine;
pub mod error;
pub mod gaze;
pub mod geom;
pub mod hazards;
pub mod heading;
pub mod inertial_pose;
pub mod inertial_source;
pub mod limits;
pub mod live_map;
pub mod load;
pub mod motion;
pub mod movers;
pub mod objects;
pub mod obstacles;
pub mod odometry;
pub mod openings;
pub mod points;
pub mod pose;
pub mod see_through;
pub mod seen_moving;
pub mod sensors;
pub mod step_length;
pub mod stereo;
pub mod text_distance;
pub mod tracker;
pub mod walking;

pub use config::PerceptionConfig;
pub use consumer::PerceptionConsumer;
pub use engine::Perception;
pub use error::PerceptionError;
pub use load::PerceptionInputs;
pub use points::PointMap;
pub use sensors::SensorModels;
