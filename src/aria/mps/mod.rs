//! Machine Perception Services (MPS) outputs, read natively: device trajectories
//! ([`trajectory`]), online calibration ([`online_calib`]), eye gaze of every schema
//! generation ([`eye_gaze`], geometry in [`gaze_math`]), hand tracking ([`wrist_palm`],
//! [`hand_results`]), semi-dense points and observations ([`semidense`]), folder discovery
//! ([`discover`]) and summaries ([`summary`]).
//!
//! Conventions shared by all readers (see [`csv_table`]): columns are looked up by name;
//! a missing required column is [`MpsError::MissingColumn`]; empty optional cells are `None`;
//! NaN cells are kept as NaN; rows are delivered in file order, never reordered (use
//! [`check_monotonic`] or [`MpsFileSummary::backward_steps`] to see disorder). Every reader
//! streams (one row in memory at a time); the `read_*` functions collect, and the
//! `read_*_partial` ones keep everything read before the first error. Errors name the file
//! and the 1-based line (and column).

pub mod csv_table;
pub mod discover;
pub mod error;
pub mod eye_gaze;
pub mod gaze_math;
pub mod hand_results;
pub mod monotonic;
pub mod online_calib;
pub mod semidense;
pub mod summary;
pub mod trajectory;
pub mod wrist_palm;

pub use csv_table::Partial;
pub use discover::MpsFiles;
pub use error::MpsError;
pub use eye_gaze::{
    read_eye_gaze, read_eye_gaze_partial, EyeGaze, EyeGazeReader, GazeSchema, Vergence,
};
pub use hand_results::{
    read_hand_tracking_results, read_hand_tracking_results_partial, HandLandmarks,
    HandTrackingReader, HandTrackingResult, WristPalmNormals,
};
pub use monotonic::{check_monotonic, MonotonicReport};
pub use online_calib::{
    read_online_calibrations, read_online_calibrations_partial, OnlineCalibration,
    OnlineCalibrationReader,
};
pub use semidense::{
    read_point_observations, read_semidense_points, read_semidense_points_partial, PointFilter,
    PointObservation, SemidensePoint, SemidenseReader,
};
pub use summary::{read_service_summary, MpsFileKind, MpsFileSummary, ServiceSummary};
pub use trajectory::{
    read_trajectory, read_trajectory_partial, TrajectoryKind, TrajectoryPose, TrajectoryReader,
};
pub use wrist_palm::{
    read_wrist_and_palm, read_wrist_and_palm_partial, HandWristPalm, WristAndPalm,
    WristAndPalmReader,
};
