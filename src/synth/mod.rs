//! Synthetic sessions with ground truth: a scripted Aria wearer in a simple 3D world.
//!
//! [`scenario`] is the description format (JSON files under `scenarios/`: walls, obstacles,
//! steps and drop-offs, signs, people, vehicles, the wearer's script with reaches, gaze
//! targets, requests), [`trajectory`] the wearer's kinematics, [`sensors`] the physically
//! derived IMU, magnetometer and barometer signals, [`render`] the ray-cast SLAM (grey) and
//! RGB (colour) frames through the real calibration, [`eyes`] the eye-tracking camera's
//! image of both eyes, [`exposure`] the SLAM cameras' auto-exposure, [`frames`] every
//! camera's frames rendered, exposed and encoded
//! ([`pipeline`]: ahead of the writer on worker threads; [`rays`] and [`tile_cull`]: per-pixel
//! rays and per-tile culling), [`text`] sign text from a real font, [`surface_texture`] the seeded fine texture of every
//! other surface, [`jpeg`] the frames' JPEG encoding,
//! [`semidense`] the MPS semi-dense points seen by the SLAM cameras, [`people`] moving
//! bodies, [`hands`] wrist and palm poses of reaches, [`gaze`] the eye gaze toward scripted
//! targets, [`mps_noise`] the error models that make the MPS files estimates, not truth,
//! [`device`] which glasses are imitated (Aria Gen1 or Gen2), [`device_noise`] and
//! [`device_records`] Gen2's own VIO, eye gaze and hand tracking as estimates, [`truth`] the requests and ground-truth facts ([`truth_people`]: people and
//! vehicles at each request), and [`session_writer`] writes it all as a session folder
//! (`recording.vrs`, `mps/`, `requests.jsonl`, `ground_truth.json`). With
//! `--spoken-requests` the recording also holds the microphones' stream ([`mic_stream`]:
//! its Aria Gen1 layout; [`mic_signal`]: the room and the voice at each microphone), with
//! each request spoken by the wearer ([`spoken`]: the Piper voice, [`resample`]d to 48 kHz)
//! and listed in `spoken_requests.jsonl`. Everything is
//! deterministic for a seed ([`rng`]), whatever the number of threads. [`named`] lists the
//! scenario folder and writes a scenario found by name (`vista synth`).

pub mod device;
pub mod device_noise;
pub mod device_records;
pub mod exposure;
pub mod eyes;
pub mod frames;
pub mod gaze;
pub mod hands;
pub mod jpeg;
pub mod mic_signal;
pub mod mic_stream;
pub mod mps_noise;
pub mod mps_out;
pub mod named;
pub mod people;
pub mod photo;
pub mod pipeline;
pub mod rays;
pub mod render;
pub mod resample;
pub mod rng;
pub mod scenario;
pub mod semidense;
pub mod sensors;
pub mod session_writer;
pub mod spoken;
pub mod surface_texture;
pub mod text;
pub mod tile_cull;
pub mod trajectory;
pub mod truth;
pub mod truth_people;
pub mod validate;

pub use rng::SplitMix64;
pub use scenario::{find_scenario, scenario_files, Scenario, ScenarioError};
pub use sensors::NoiseSpec;
pub use session_writer::{session_path, write_session, SynthError, SynthOptions, SynthSummary};
pub use trajectory::{Gait, WearerPath};
