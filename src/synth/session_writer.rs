//! Writes a synthetic session folder: `recording.vrs` (IMU right/left, magnetometer,
//! barometer, SLAM left/right and RGB cameras with the real Aria Gen1 stream layouts and
//! configuration records copied from a template recording, and its `calib_json`),
//! `mps/slam/closed_loop_trajectory.csv`, `mps/slam/semidense_points.csv.gz` and
//! `semidense_observations.csv.gz`, `mps/eye_gaze/general_eye_gaze.csv`,
//! `mps/hand_tracking/wrist_and_palm_poses.csv` (when the script reaches),
//! `requests.jsonl`, `ground_truth.json` and the wearer's true path
//! (`ground_truth_trajectory.csv`, the closed-loop format, for the scorer).
//!
//! Cameras are ray cast ([`super::render`]) through the template's calibration rescaled to
//! the resolution its configuration records state (SLAM 640×480 greyscale, RGB 1408×1408
//! colour), and JPEG-encoded ([`super::jpeg`]; RGB as YCbCr 4:2:0 like Aria's) into the same
//! DataLayout + `image/jpg` records as real recordings. Signs show their text in a real font
//! ([`super::text`]); people and vehicles move ([`super::people`]). The eye-tracking
//! camera (`211-1`, 640×240, both eyes side by side) is drawn from the scripted gaze
//! ([`super::eyes`]) at [`ET_FPS`] by default. Frames are rendered ahead in parallel
//! ([`super::pipeline`]) while the writer encodes the rest; the bytes do not depend on the
//! number of threads.
//!
//! The wearer walks with a gait drawn for the seed and scenario ([`session_path`]), and the
//! MPS files carry the error models of [`super::mps_noise`] unless
//! [`SynthOptions::mps_error`] is `None` (`vista synth --mps-exact`: exact truth, for
//! tests of geometry only — no real MPS output is exact).
//!
//! With [`SynthOptions::device`] Aria Gen2 (`vista synth --device gen2`) the recording has
//! Gen2's shape ([`super::device`]: its four SLAM cameras, IMUs, magnetometer and barometer
//! in the layouts of the real Gen2 template, its calibration) and holds what the glasses
//! compute themselves, as estimates ([`super::device_noise`], [`super::device_records`]):
//! VIO at 800 Hz and 10 Hz in an odometry frame of its own, eye gaze and hand tracking.
//! Its cameras are JPEG, not H.265 (no H.265 encoder is among the dependencies); no
//! eye-tracking images are drawn (the glasses' gaze stream carries the gaze).
//!
//! With [`SynthOptions::spoken_requests`] (`vista synth --spoken-requests`) the recording
//! also holds the microphones' stream (`231-1`, [`super::mic_stream`]): a quiet room
//! ([`super::mic_signal`]) and each request spoken by the wearer from its `t_ns`
//! ([`super::spoken`]), listed in `spoken_requests.jsonl`. Without it nothing of that is
//! written and the session's bytes are those of a writer without the option.

use std::path::{Path, PathBuf};

use nalgebra::Isometry3;

use super::device::{SynthDevice, GEN2_GAZE_HANDS_HZ, GEN2_VIO_HF_HZ, GEN2_VIO_HZ};
use super::device_noise::{DeviceErrorSpec, VioTrack};
use super::device_records::{self, CpfGaze, DeviceHand, RecordExtras};
use super::frames::{FrameCamera, FrameKind, FrameWorld};
use super::gaze::gaze_at;
use super::hands::{reaches as script_reaches, wrist_palm_csv, TrackedHands};
use super::mic_signal::{mic_sensitivities, Microphones};
use super::mic_stream::{self, AudioRecordEncoder, AUDIO, FRAMES_PER_RECORD};
use super::mps_noise::{GazeError, MpsErrorSpec, TrajectoryError};
use super::mps_out::{closed_loop_csv, eye_gaze_csv};
use super::pipeline::FramePipeline;
use super::render::{default_threads, RayTable, Scene};
use super::rng::SplitMix64;
use super::scenario::Scenario;
use super::semidense::{MapFrame, SemidenseMap, SemidenseSpec};
use super::sensors::{baro_readings, imu_readings, mag_readings, ImuReading, NoiseSpec};
use super::spoken::{load_voice, spoken_jsonl, SpokenCounts, WearerVoice, SPOKEN_REQUESTS_FILE};
use super::surface_texture::SurfaceTexture;
use super::text::{sign_texture, SignFont, TextError};
use super::trajectory::{Gait, WearerPath};
use super::truth::ground_truth;
use crate::aria::calib::{CalibError, CalibSource, DeviceCalibration};
use crate::aria::vrs::{
    Compression, DataLayout, DataLayoutEncoder, PieceKind, RecordType, Scalar, StreamSpec,
    VrsError, VrsReader, VrsStreamId, VrsWriter, WriteSummary,
};
use crate::eval::load::TRUTH_TRAJECTORY_FILE;
use crate::speech::piper::PiperError;

/// The template recording shipped with the crate (real Aria Gen1 layouts and calibration).
pub const DEFAULT_TEMPLATE: &str = super::device::GEN1_TEMPLATE;
/// Device time of the first sample, ns.
pub const T0_NS: i64 = 1_000_000_000;
/// Rate of the true path's rows (`ground_truth_trajectory.csv`), Hz: the scorer's head
/// track keeps 100 Hz.
pub const TRUTH_TRAJECTORY_HZ: f64 = 100.0;
/// IMU-right rate, Hz.
pub const IMU_RIGHT_HZ: f64 = 1000.0;
/// IMU-left rate, Hz.
pub const IMU_LEFT_HZ: f64 = 800.0;
/// Magnetometer rate, Hz.
pub const MAG_HZ: f64 = 10.0;
/// Barometer rate, Hz.
pub const BARO_HZ: f64 = 50.0;
/// MPS trajectory rate, Hz.
pub const TRAJECTORY_HZ: f64 = 1000.0;
/// MPS eye gaze rate, Hz.
pub const EYE_GAZE_HZ: f64 = 10.0;

/// Eye-tracking camera rate by default, Hz (Aria recording profiles use 10 or 30).
pub const ET_FPS: f64 = 10.0;
/// JPEG quality of rendered frames.
pub const JPEG_QUALITY: u8 = 90;
/// Frames rendered ahead of the writer per rendering thread.
const PIPELINE_AHEAD_PER_THREAD: usize = 4;

/// Errors writing a synthetic session.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// Reading the template or writing the recording failed.
    #[error(transparent)]
    Vrs(#[from] VrsError),
    /// The template's calibration is unusable.
    #[error(transparent)]
    Calib(#[from] CalibError),
    /// The template lacks something the session needs.
    #[error("{}: {reason}", path.display())]
    Template {
        /// The template recording.
        path: PathBuf,
        /// What is missing.
        reason: String,
    },
    /// The sign font cannot be loaded.
    #[error(transparent)]
    Text(#[from] TextError),
    /// Writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Encoding a record failed (a layout without the expected piece).
    #[error("{}: stream {stream}: {reason}", path.display())]
    Encode {
        /// The recording being written.
        path: PathBuf,
        /// The stream.
        stream: VrsStreamId,
        /// What was wrong.
        reason: String,
    },
    /// `--spoken-requests` needs the Piper voice and it cannot be loaded.
    #[error("spoken requests need the Piper voice, which models/fetch provides")]
    VoiceLoad {
        /// Why the voice did not load.
        source: PiperError,
    },
    /// A request could not be spoken.
    #[error("spoken request at {t_ns} ns ({text:?}): {reason}")]
    Speak {
        /// The request's time, device ns.
        t_ns: i64,
        /// Its text (the first 80 characters).
        text: String,
        /// What went wrong.
        reason: String,
    },
}

/// Options of one synthetic session.
#[derive(Debug, Clone)]
pub struct SynthOptions {
    /// Seed of every random draw.
    pub seed: u64,
    /// Length, s (`None`: the scenario's).
    pub duration_s: Option<f64>,
    /// Sensor noise levels.
    pub noise: NoiseSpec,
    /// The glasses imitated.
    pub device: SynthDevice,
    /// Template recording (layouts, configuration records, calibration) of that device.
    pub template: PathBuf,
    /// SLAM camera frame rate, Hz (`None`: no SLAM camera streams).
    pub slam_fps: Option<f64>,
    /// RGB camera frame rate, Hz (`None`: the scenario's `rgb_fps`; 0: no RGB stream).
    pub rgb_fps: Option<f64>,
    /// Eye-tracking camera frame rate, Hz (`None` or 0: no eye-tracking stream).
    pub et_fps: Option<f64>,
    /// Threads rendering frames (`None`: the available cores, at most 8). The bytes do
    /// not depend on it.
    pub threads: Option<usize>,
    /// Semi-dense points from the SLAM cameras' keyframes (`None`: no point files; also
    /// none without SLAM cameras).
    pub semidense: Option<SemidenseSpec>,
    /// Error models of the MPS files (`None`: the simulator's exact truth, which is not
    /// what MPS writes; for tests of geometry only).
    pub mps_error: Option<MpsErrorSpec>,
    /// Error models of what Gen2 glasses compute themselves (`None`: exact truth in the
    /// odometry frame; for tests of geometry only).
    pub device_error: Option<DeviceErrorSpec>,
    /// Walk with [`Gait::NOMINAL`] instead of the gait drawn for the seed and scenario.
    pub nominal_gait: bool,
    /// Flat-coloured surfaces and noiseless SLAM frames instead of the surface texture
    /// ([`super::surface_texture`]), the cameras' read and shot noise and their
    /// auto-exposure ([`super::exposure`]): for comparisons and for tests written before
    /// them.
    pub plain_surfaces: bool,
    /// The microphones' audio stream, with each request spoken by the wearer from its
    /// `t_ns` (Piper voice from `models/fetch`), and `spoken_requests.jsonl`
    /// ([`super::spoken`]). Off: no audio stream.
    pub spoken_requests: bool,
    /// What the wearer says before each spoken request to call the assistant ("Hey Vista");
    /// `None`: the request alone.
    pub spoken_wake: Option<String>,
}

impl Default for SynthOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            duration_s: None,
            noise: NoiseSpec::TYPICAL,
            device: SynthDevice::Gen1,
            template: PathBuf::from(DEFAULT_TEMPLATE),
            slam_fps: Some(10.0),
            rgb_fps: None,
            et_fps: Some(ET_FPS),
            threads: None,
            semidense: Some(SemidenseSpec::default()),
            mps_error: Some(MpsErrorSpec::TYPICAL),
            device_error: Some(DeviceErrorSpec::TYPICAL),
            nominal_gait: false,
            plain_surfaces: false,
            spoken_requests: false,
            spoken_wake: Some(DEFAULT_SPOKEN_WAKE.to_owned()),
        }
    }
}

/// The wake phrase a synthetic wearer says: the assistant's default one.
pub const DEFAULT_SPOKEN_WAKE: &str = "Hey Vista";

impl SynthOptions {
    /// The defaults for `device`, with its template.
    pub fn for_device(device: SynthDevice) -> Self {
        Self {
            device,
            template: PathBuf::from(device.default_template()),
            ..Self::default()
        }
    }
}

/// The gait of the wearer of `sc` in a session written with `opts`.
pub fn session_gait(sc: &Scenario, opts: &SynthOptions) -> Gait {
    if opts.nominal_gait {
        Gait::NOMINAL
    } else {
        Gait::draw(opts.seed, &sc.name)
    }
}

/// The wearer's path in a session of `sc` written with `opts` (its ground truth's path),
/// with the calibration's `T_Device_CPF`.
pub fn session_path(
    sc: &Scenario,
    opts: &SynthOptions,
    t_device_cpf: Isometry3<f64>,
) -> WearerPath {
    WearerPath::with_gait(
        &sc.wearer,
        sc.world.floor_z_m,
        t_device_cpf,
        session_gait(sc, opts),
    )
}

/// What was written.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SynthSummary {
    /// The session folder.
    pub out_dir: PathBuf,
    /// Session length, s.
    pub duration_s: f64,
    /// The recording.
    pub recording: WriteSummary,
    /// DATA records per stream: `(vrs id, count)`.
    pub data_records: Vec<(String, usize)>,
    /// Other files written, relative to `out_dir`.
    pub files: Vec<String>,
    /// Semi-dense map: `(points, observations, dropped points + observations)`.
    pub semidense: (usize, usize, u64),
    /// Requests spoken into the audio stream (`None`: no audio stream).
    pub spoken: Option<SpokenCounts>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), SynthError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::write(path, bytes).map_err(io(path))
}

/// One sample to encode, in time order.
enum Rec<'a> {
    Imu(VrsStreamId, &'a ImuReading),
    Mag(VrsStreamId, i64, [f32; 3]),
    Baro(VrsStreamId, i64, f64),
    Frame(VrsStreamId, u64, i64),
    /// An audio record: its index and first frame's time.
    Audio(u64, i64),
    /// The glasses' own high-frequency VIO: the sample's index in the track.
    VioHf(VrsStreamId, usize, i64),
    /// The glasses' VIO: its frame id and time.
    Vio(VrsStreamId, u64, i64),
    /// The glasses' eye gaze.
    Gaze(VrsStreamId, i64),
    /// The glasses' hand tracking.
    Hands(VrsStreamId, i64),
}

impl Rec<'_> {
    fn key(&self) -> (i64, i32, u16) {
        let (t, id) = match self {
            Rec::Imu(id, r) => (r.t_ns, *id),
            Rec::Mag(id, t, _) | Rec::Baro(id, t, _) => (*t, *id),
            Rec::Frame(id, _, t) | Rec::Vio(id, _, t) | Rec::VioHf(id, _, t) => (*t, *id),
            Rec::Gaze(id, t) | Rec::Hands(id, t) => (*t, *id),
            Rec::Audio(_, t) => (*t, AUDIO),
        };
        (t, id.type_id, id.instance)
    }
}

/// A template stream's spec as a synthetic session writes it: camera images as JPEG
/// (Gen2 records H.265).
fn synth_spec(s: &crate::aria::vrs::VrsStream) -> StreamSpec {
    let mut spec = StreamSpec::from_stream(s);
    for (_, _, rf, _) in &mut spec.formats {
        *rf = rf
            .split('+')
            .map(|b| {
                if b.starts_with("image/") {
                    "image/jpg"
                } else {
                    b
                }
            })
            .collect::<Vec<_>>()
            .join("+");
    }
    spec
}

/// Writes the session of `sc` into `out_dir` (created if needed).
pub fn write_session(
    sc: &Scenario,
    out_dir: &Path,
    opts: &SynthOptions,
) -> Result<SynthSummary, SynthError> {
    let duration_s = opts.duration_s.unwrap_or(sc.duration_s);
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let template = VrsReader::open(&opts.template)?;
    let tpl_err = |reason: String| SynthError::Template {
        path: opts.template.clone(),
        reason,
    };
    let calib_json = template
        .file_tags()
        .get("calib_json")
        .ok_or_else(|| tpl_err("no calib_json file tag".into()))?;
    let source = CalibSource::Named(format!("{}: calib_json tag", opts.template.display()));
    let cal = DeviceCalibration::from_json_str_with_source(calib_json, source)?;
    let device = opts.device.layout(&template).map_err(tpl_err)?;
    if cal.generation != device.generation {
        return Err(tpl_err(format!(
            "its calibration is an Aria {:?} device's, not the {:?} asked for",
            cal.generation, device.generation
        )));
    }
    if opts.spoken_requests && device.generation != crate::aria::generation::Generation::Gen1 {
        return Err(tpl_err(
            "spoken requests are written in Gen1's microphone layout only (Gen2 records Opus)"
                .into(),
        ));
    }
    let path = session_path(sc, opts, cal.t_device_cpf());
    // The wearer's voice first: `--spoken-requests` without it fails before any work.
    let voice = if opts.spoken_requests {
        Some(load_voice()?)
    } else {
        None
    };

    // Signals.
    let seed = opts.seed;
    let noise = &opts.noise;
    let imu = |label: &str, hz: f64| -> Result<Vec<ImuReading>, SynthError> {
        let c = cal
            .imu(label)
            .ok_or_else(|| tpl_err(format!("calibration has no {label}")))?;
        Ok(imu_readings(
            &path,
            c,
            T0_NS,
            hz,
            duration_s,
            noise,
            &mut SplitMix64::derive(seed, label),
        ))
    };
    let (imu_right, imu_right_hz) = device.imu_right;
    let (imu_left, imu_left_hz) = device.imu_left;
    let (mag_id, mag_hz) = device.mag;
    let baro_id = device.baro;
    let imu_r = imu("imu-right", imu_right_hz)?;
    let imu_l = imu("imu-left", imu_left_hz)?;
    let t_device_mag = cal
        .cad_t_device_sensor("mag0")
        .unwrap_or_else(Isometry3::identity);
    let mag = mag_readings(
        &path,
        cal.magnetometer("mag0"),
        &t_device_mag,
        T0_NS,
        mag_hz,
        duration_s,
        noise,
        &mut SplitMix64::derive(seed, "mag0"),
    );
    let baro = baro_readings(
        &path,
        cal.barometer("baro0"),
        sc.world.altitude_m,
        T0_NS,
        BARO_HZ,
        duration_s,
        noise,
        &mut SplitMix64::derive(seed, "baro0"),
    );

    // Recording.
    let vrs_path = out_dir.join("recording.vrs");
    // A seed-derived creation id (instead of the wall clock): same seed, same bytes.
    let mut w = VrsWriter::create_with_id(
        &vrs_path,
        template.file_tags().clone(),
        SplitMix64::derive(seed, "creation_id").next_u64(),
    )?;
    let rgb = device.rgb;
    let mut ids = vec![imu_right, imu_left, mag_id, baro_id];
    let mut cams = Vec::new();
    let mut wanted: Vec<(VrsStreamId, &str, f64)> = Vec::new();
    if let Some(fps) = opts.slam_fps.filter(|f| *f > 0.0) {
        for &(id, label) in &device.slam {
            wanted.push((id, label, fps));
        }
    }
    let rgb_fps = opts.rgb_fps.unwrap_or(sc.rgb_fps);
    if rgb_fps > 0.0 && rgb_fps.is_finite() {
        wanted.push((rgb, "camera-rgb", rgb_fps));
    }
    for (id, label, fps) in wanted {
        // Calibrated for the resolution the template records (RGB: 2880² → 1408²).
        let c = recorded_camera(&template, &cal, id, label).map_err(tpl_err)?;
        ids.push(id);
        let rays = RayTable::new(&c);
        let kind = if id == rgb {
            FrameKind::Rgb
        } else {
            FrameKind::Grey
        };
        let (width, height) = (rays.width, rays.height);
        let cam = FrameCamera {
            kind,
            calib: Some(c),
            rays: Some(rays),
            width,
            height,
        };
        cams.push((id, cam, fps));
    }
    if let (Some(fps), Some(et)) = (opts.et_fps.filter(|f| *f > 0.0 && f.is_finite()), device.et) {
        let (width, height) = recorded_size(&template, et).map_err(tpl_err)?;
        ids.push(et);
        let cam = FrameCamera {
            kind: FrameKind::Eyes,
            calib: None,
            rays: None,
            width,
            height,
        };
        cams.push((et, cam, fps));
    }
    // The glasses' own perception (Gen2).
    if let Some(od) = &device.on_device {
        ids.extend([od.vio_high_frequency, od.vio, od.eye_gaze, od.hands]);
    }
    let mut scene = Scene::from_world(&sc.world);
    if !opts.plain_surfaces {
        scene.surface_texture = Some(SurfaceTexture::new(opts.seed));
    }
    // Vehicles are appended after the static boxes, per frame.
    let static_boxes = scene.boxes.len();
    let reaches = script_reaches(&path);
    if !sc.world.signs.is_empty() {
        let font = SignFont::load_default()?;
        let textures = sc
            .world
            .signs
            .iter()
            .map(|s| sign_texture(&font, &s.text, s.size_m))
            .collect();
        scene.set_textures(&sc.world, textures);
    }
    let photos: Vec<_> = sc
        .world
        .obstacles
        .iter()
        .filter_map(|o| o.photo.as_deref())
        .map(|name| {
            super::photo::photo_texture(name).ok_or_else(|| SynthError::Template {
                path: PathBuf::from(name),
                reason: "the photograph does not decode".into(),
            })
        })
        .collect::<Result<_, _>>()?;
    if !photos.is_empty() {
        scene.set_photos(&sc.world, photos);
    }
    let mut layouts: Vec<(VrsStreamId, u32, DataLayout)> = Vec::new();
    for &id in &ids {
        let s = template
            .stream(id)
            .ok_or_else(|| tpl_err(format!("no stream {id}")))?;
        let spec = synth_spec(s);
        let ver = spec
            .formats
            .iter()
            .find(|f| f.0 == RecordType::Data)
            .map(|f| f.1)
            .ok_or_else(|| tpl_err(format!("stream {id} has no DATA format")))?;
        let dl = template.data_layout(id, RecordType::Data, ver, 0)?.clone();
        layouts.push((id, ver, dl));
        w.add_stream(spec)?;
    }
    // The microphones (only with the wearer's voice).
    let audio_records = if voice.is_some() {
        mic_stream::record_count(duration_s)
    } else {
        0
    };
    let audio_err = |reason: String| SynthError::Encode {
        path: vrs_path.clone(),
        stream: AUDIO,
        reason,
    };
    let mut audio = match voice {
        Some(voice) => {
            let session_id = ids.iter().find_map(|id| {
                template
                    .stream(*id)
                    .and_then(|s| s.user_tags.get("session_id").cloned())
            });
            w.add_stream(mic_stream::stream_spec(
                session_id.as_deref(),
                SplitMix64::derive(seed, "audio-serial").next_u64(),
            ))?;
            let requests = sc
                .requests
                .iter()
                .filter(|r| r.t_s < duration_s)
                .enumerate()
                .map(|(i, r)| (i, request_t_ns(r.t_s), r));
            let end_frame = audio_records * FRAMES_PER_RECORD as u64;
            Some((
                WearerVoice::new(voice, opts.spoken_wake.clone(), requests, T0_NS, end_frame),
                Microphones::new(seed, mic_sensitivities(calib_json)),
                AudioRecordEncoder::new().map_err(audio_err)?,
            ))
        }
        None => None,
    };
    // Configuration records first, 1 ms before the first sample, in VRS index order.
    let mut config_ids = ids.clone();
    if audio.is_some() {
        config_ids.push(AUDIO);
    }
    config_ids.sort_by_key(|id| (id.type_id, id.instance));
    for &id in &config_ids {
        if id == AUDIO {
            w.write_record(
                id,
                RecordType::Configuration,
                mic_stream::CONFIG_VERSION,
                (T0_NS - 1_000_000) as f64 * 1e-9,
                &mic_stream::config_payload().map_err(audio_err)?,
                Compression::None,
            )?;
            continue;
        }
        let Some(e) = template
            .index()
            .iter()
            .find(|e| e.stream == id && e.record_type == RecordType::Configuration)
        else {
            return Err(tpl_err(format!("stream {id} has no configuration record")));
        };
        let r = template.read_record(e)?;
        let mut payload = r.payload.to_vec();
        // The cameras run at our rate, not the template's.
        if let Some((_, _, fps)) = cams.iter().find(|c| c.0 == id) {
            let layout =
                template.data_layout(id, RecordType::Configuration, r.header.format_version, 0)?;
            set_f64_piece(&mut payload, layout, "nominal_rate", *fps)
                .map_err(|reason| tpl_err(format!("stream {id} configuration: {reason}")))?;
        }
        w.write_record(
            id,
            RecordType::Configuration,
            r.header.format_version,
            (T0_NS - 1_000_000) as f64 * 1e-9,
            &payload,
            Compression::None,
        )?;
    }
    let mut recs: Vec<Rec> = Vec::with_capacity(imu_r.len() + imu_l.len() + mag.len() + baro.len());
    recs.extend(imu_r.iter().map(|r| Rec::Imu(imu_right, r)));
    recs.extend(imu_l.iter().map(|r| Rec::Imu(imu_left, r)));
    recs.extend(mag.iter().map(|&(t, m)| Rec::Mag(mag_id, t, m)));
    recs.extend(baro.iter().map(|&(t, p)| Rec::Baro(baro_id, t, p)));
    // The glasses' own perception (Gen2): the VIO's track first (both rates sample it).
    let on_device = device.on_device.map(|od| {
        let track = VioTrack::new(
            &path,
            T0_NS,
            GEN2_VIO_HF_HZ,
            duration_s,
            opts.device_error.as_ref(),
            &mut SplitMix64::derive(seed, "device-vio"),
        );
        let extras = |id| RecordExtras::from_template(&template, id).map_err(tpl_err);
        Ok::<_, SynthError>((od, track, extras(od.vio)?, extras(od.vio_high_frequency)?))
    });
    let on_device = on_device.transpose()?;
    // DATA records of the glasses' own perception per stream.
    let mut device_counts: Vec<(String, usize)> = Vec::new();
    if let Some((od, track, ..)) = &on_device {
        recs.extend(
            track
                .samples()
                .iter()
                .enumerate()
                .map(|(i, v)| Rec::VioHf(od.vio_high_frequency, i, v.t_ns)),
        );
        let vio_times = super::sensors::sample_times(T0_NS, GEN2_VIO_HZ, duration_s);
        let before = recs.len();
        recs.extend(
            vio_times
                .enumerate()
                .map(|(k, (t_ns, _))| Rec::Vio(od.vio, k as u64, t_ns)),
        );
        let vio_n = recs.len() - before;
        let before = recs.len();
        for (t_ns, _) in super::sensors::sample_times(T0_NS, GEN2_GAZE_HANDS_HZ, duration_s) {
            recs.push(Rec::Gaze(od.eye_gaze, t_ns));
            recs.push(Rec::Hands(od.hands, t_ns));
        }
        let gaze_n = (recs.len() - before) / 2;
        device_counts = vec![
            (od.vio_high_frequency.to_string(), track.samples().len()),
            (od.vio.to_string(), vio_n),
            (od.eye_gaze.to_string(), gaze_n),
            (od.hands.to_string(), gaze_n),
        ];
    }
    let device_spec = opts.device_error.as_ref();
    let mut gaze_rng = SplitMix64::derive(seed, "device-eye-gaze");
    let device_gaze = device_spec.map(|e| GazeError::new(&e.perception, &mut gaze_rng));
    let mut hand_rng = SplitMix64::derive(seed, "device-hands");
    let mut device_hands = TrackedHands::new(
        &reaches,
        device_spec.map(|e| (&e.perception, &mut hand_rng)),
    );
    let t_device_cpf = cal.t_device_cpf();
    for (id, _, fps) in &cams {
        for (k, (t_ns, _)) in super::sensors::sample_times(T0_NS, *fps, duration_s).enumerate() {
            recs.push(Rec::Frame(*id, k as u64, t_ns));
        }
    }
    for k in 0..audio_records {
        let t_ns = mic_stream::frame_time_ns(T0_NS, k * FRAMES_PER_RECORD as u64);
        recs.push(Rec::Audio(k, t_ns));
    }
    recs.sort_by_key(Rec::key);
    let mut audio_written = 0usize;
    let mut pcm: Vec<i32> = Vec::new();
    let mut frames = vec![0usize; cams.len()];
    let mut buf = Vec::with_capacity(128);
    // Frames in record order, rendered ahead in parallel batches.
    let frame_jobs: Vec<(usize, i64)> = recs
        .iter()
        .filter_map(|r| match r {
            Rec::Frame(id, _, t) => cams.iter().position(|c| c.0 == *id).map(|i| (i, *t)),
            _ => None,
        })
        .collect();
    let frame_cams: Vec<FrameCamera> = cams.iter().map(|c| c.1.clone()).collect();
    let fw = FrameWorld {
        scenario: sc,
        path: &path,
        reaches: &reaches,
        static_boxes,
        t0_ns: T0_NS,
        quality: JPEG_QUALITY,
        seed: opts.seed,
        noise: if opts.plain_surfaces {
            NoiseSpec {
                slam_read_noise_dn: 0.0,
                slam_shot_noise_dn2_per_dn: 0.0,
                ..opts.noise
            }
        } else {
            opts.noise
        },
        auto_exposure: !opts.plain_surfaces,
    };
    let threads = opts.threads.unwrap_or_else(default_threads).max(1);
    let mut semidense = opts.semidense.clone().map(SemidenseMap::new);
    // The workers' scene (each clones it); the writer dresses `scene` for the semi-dense map.
    let frame_scene = scene.clone();
    std::thread::scope(|s| -> Result<(), SynthError> {
        let mut pipeline = FramePipeline::start(
            s,
            fw,
            &frame_cams,
            &frame_jobs,
            &frame_scene,
            threads,
            PIPELINE_AHEAD_PER_THREAD * threads,
        );
        for rec in &recs {
            let id = match rec {
                Rec::Imu(id, _) | Rec::Mag(id, ..) | Rec::Baro(id, ..) => *id,
                Rec::Frame(id, ..) | Rec::VioHf(id, ..) | Rec::Vio(id, ..) => *id,
                Rec::Gaze(id, _) | Rec::Hands(id, _) => *id,
                Rec::Audio(k, t_ns) => {
                    let Some((wearer, mics, enc)) = audio.as_mut() else {
                        continue;
                    };
                    let first = k * FRAMES_PER_RECORD as u64;
                    wearer.speak_due(first + FRAMES_PER_RECORD as u64, mics)?;
                    mics.render(first, FRAMES_PER_RECORD, &mut pcm);
                    buf.clear();
                    enc.encode(T0_NS, first, &pcm, &mut buf)
                        .map_err(audio_err)?;
                    // Zstd, as the glasses compress their audio records.
                    w.write_record(
                        AUDIO,
                        RecordType::Data,
                        mic_stream::DATA_VERSION,
                        *t_ns as f64 * 1e-9,
                        &buf,
                        Compression::Zstd,
                    )?;
                    audio_written += 1;
                    continue;
                }
            };
            let Some((_, ver, dl)) = layouts.iter().find(|l| l.0 == id) else {
                continue;
            };
            let enc_err = |reason: String| SynthError::Encode {
                path: vrs_path.clone(),
                stream: id,
                reason,
            };
            let mut e = DataLayoutEncoder::new(dl);
            let t_ns = rec.key().0;
            buf.clear();
            // A frame's camera (index into `cams`) and JPEG bytes, once rendered.
            let mut frame_out: Option<(usize, Vec<u8>)> = None;
            match rec {
                Rec::Imu(_, r) => {
                    e.set::<bool>("accelerometer_valid", true)
                        .and_then(|e| e.set::<bool>("gyroscope_valid", true))
                        .and_then(|e| e.set_floats("temperature_deg_c", &[30.0]))
                        .and_then(|e| e.set::<i64>("capture_timestamp_ns", t_ns))
                        .and_then(|e| e.set_array::<f32>("accelerometer", &r.accel_mps2))
                        .and_then(|e| e.set_array::<f32>("gyroscope", &r.gyro_radps))
                        .map_err(enc_err)?;
                }
                Rec::Mag(_, _, m) => {
                    let m = m.map(|v| (f64::from(v) * device.mag_record_per_ut) as f32);
                    e.set::<bool>("magnetometer_valid", true)
                        .and_then(|e| e.set_floats("temperature_deg_c", &[30.0]))
                        .and_then(|e| e.set::<i64>("capture_timestamp_ns", t_ns))
                        .and_then(|e| e.set_array::<f32>("magnetometer", &m))
                        .map_err(enc_err)?;
                }
                Rec::Baro(_, _, p) => {
                    e.set::<i64>("capture_timestamp_ns", t_ns)
                        .and_then(|e| e.set_floats("temperature", &[25.0]))
                        .and_then(|e| e.set_floats("pressure", &[*p]))
                        .map_err(enc_err)?;
                }
                Rec::Frame(_, k, _) => {
                    let Some(i) = cams.iter().position(|c| c.0 == id) else {
                        continue;
                    };
                    let frame = pipeline.next_frame().flatten().ok_or_else(|| {
                        let (w, h) = cams.get(i).map_or((0, 0), |c| (c.1.width, c.1.height));
                        enc_err(format!("cannot render or JPEG-encode a {w}×{h} frame"))
                    })?;
                    e.set::<i64>("capture_timestamp_ns", t_ns)
                        .and_then(|e| e.set::<u64>("frame_number", *k))
                        .and_then(|e| {
                            e.set_floats("exposure_duration_s", &[frame.exposure.exposure_s.into()])
                        })
                        .and_then(|e| e.set_floats("gain", &[frame.exposure.gain.into()]))
                        .map_err(enc_err)?;
                    frame_out = Some((i, frame.jpeg));
                }
                Rec::VioHf(_, i, _) => {
                    let (v, extras) = on_device
                        .as_ref()
                        .and_then(|(_, track, _, x)| Some((track.samples().get(*i)?, x)))
                        .ok_or_else(|| enc_err(format!("no VIO sample {i}")))?;
                    device_records::vio_high_frequency(dl, v, extras, &mut buf).map_err(enc_err)?;
                }
                Rec::Vio(_, k, _) => {
                    let t_s = (t_ns - T0_NS) as f64 * 1e-9;
                    let (v, extras) = on_device
                        .as_ref()
                        .and_then(|(_, track, x, _)| Some((track.at(t_s)?, x)))
                        .ok_or_else(|| enc_err("no VIO sample".into()))?;
                    let v = super::device_noise::VioSample { t_ns, ..*v };
                    device_records::vio(dl, &v, *k as i64, extras, &mut buf).map_err(enc_err)?;
                }
                Rec::Gaze(..) => {
                    let t_s = (t_ns - T0_NS) as f64 * 1e-9;
                    let g = gaze_at(&path, &sc.gaze, t_s);
                    let (yaw_rad, pitch_rad, depth_m) = match &device_gaze {
                        Some(err) => err.disturb(g.yaw_rad, g.pitch_rad, g.depth_m, &mut gaze_rng),
                        None => (g.yaw_rad, g.pitch_rad, g.depth_m),
                    };
                    let gaze = CpfGaze {
                        yaw_rad,
                        pitch_rad,
                        depth_m,
                    };
                    device_records::eye_gaze(dl, t_ns, &gaze, &t_device_cpf, &mut buf)
                        .map_err(enc_err)?;
                }
                Rec::Hands(..) => {
                    let t_s = (t_ns - T0_NS) as f64 * 1e-9;
                    let [left, right] = device_hands.device_at(&path, t_s).map(|side| {
                        side.map(|(w, p)| DeviceHand {
                            wrist_m: w.coords,
                            palm_m: p.coords,
                        })
                    });
                    device_records::hands(dl, t_ns, left.as_ref(), right.as_ref(), &mut buf)
                        .map_err(enc_err)?;
                }
                // Written above.
                Rec::Audio(..) => continue,
            }
            if matches!(
                rec,
                Rec::Imu(..) | Rec::Mag(..) | Rec::Baro(..) | Rec::Frame(..)
            ) {
                e.encode_into(&mut buf);
            }
            if let (Rec::Frame(_, k, _), Some((i, jpeg))) = (rec, &frame_out) {
                let Some((_, cam, _)) = cams.get(*i) else {
                    continue;
                };
                let t_s = (t_ns - T0_NS) as f64 * 1e-9;
                if let (Some(map), Some(c), Some(rays)) =
                    (semidense.as_mut(), cam.calib.as_ref(), cam.rays.as_ref())
                {
                    let every = map.spec().keyframe_every.max(1) as u64;
                    if id != rgb && k % every == 0 {
                        fw.dress(&mut scene, t_s);
                        map.observe(&scene, c, rays, &fw.camera_pose(c, t_s), t_ns);
                    }
                }
                buf.extend_from_slice(jpeg);
                if let Some(n) = frames.get_mut(*i) {
                    *n += 1;
                }
            }
            w.write_record(
                id,
                RecordType::Data,
                *ver,
                t_ns as f64 * 1e-9,
                &buf,
                Compression::None,
            )?;
        }
        Ok(())
    })?;
    let recording = w.finish()?;
    let spoken = audio.map(|(wearer, ..)| wearer.finish());

    // MPS, requests, ground truth.
    let uid = format!("synth-{}-{seed}", sc.name);
    let mut files = Vec::new();
    let mut put = |rel: &str, bytes: &[u8]| -> Result<(), SynthError> {
        write_file(&out_dir.join(rel), bytes)?;
        files.push(rel.to_string());
        Ok(())
    };
    let mps_error = opts.mps_error.as_ref();
    let traj_error = mps_error.map(|e| {
        let mut rng = SplitMix64::derive(seed, "mps-trajectory");
        TrajectoryError::new(e, TRAJECTORY_HZ, duration_s, &mut rng)
    });
    put(
        "mps/slam/closed_loop_trajectory.csv",
        closed_loop_csv(
            &path,
            &uid,
            T0_NS,
            TRAJECTORY_HZ,
            duration_s,
            mps_error.zip(traj_error.as_ref()),
        )
        .as_bytes(),
    )?;
    // The wearer's true path, for the scorer only (never read by a replay): MPS is an
    // estimate, and the yardstick measures against what happened.
    put(
        TRUTH_TRAJECTORY_FILE,
        closed_loop_csv(&path, &uid, T0_NS, TRUTH_TRAJECTORY_HZ, duration_s, None).as_bytes(),
    )?;
    let mut gaze_rng = SplitMix64::derive(seed, "mps-eye-gaze");
    put(
        "mps/eye_gaze/general_eye_gaze.csv",
        eye_gaze_csv(
            &path,
            &sc.gaze,
            &uid,
            T0_NS,
            EYE_GAZE_HZ,
            duration_s,
            mps_error.map(|e| (e, &mut gaze_rng)),
        )
        .as_bytes(),
    )?;
    if let Some(map) = semidense.as_ref().filter(|m| !m.is_empty()) {
        let device_at = |t_ns: i64| {
            path.t_world_device((t_ns - T0_NS) as f64 * 1e-9)
                .translation
                .vector
        };
        let points = map.finish_points(
            mps_error,
            traj_error.as_ref().map(|error| MapFrame {
                error,
                device_at: &device_at,
                t0_ns: T0_NS,
            }),
            &mut SplitMix64::derive(seed, "semidense"),
        );
        put(
            "mps/slam/semidense_points.csv.gz",
            &gzip(SemidenseMap::points_csv(&points, &uid).as_bytes()),
        )?;
        put(
            "mps/slam/semidense_observations.csv.gz",
            &gzip(map.observations_csv().as_bytes()),
        )?;
        if map.dropped_points + map.dropped_observations > 0 {
            log::warn!(
                "semi-dense map full: {} points and {} observations dropped",
                map.dropped_points,
                map.dropped_observations
            );
        }
    }
    let mut jsonl = String::new();
    for r in sc.requests.iter().filter(|r| r.t_s < duration_s) {
        let line = serde_json::json!({
            "t_ns": request_t_ns(r.t_s),
            "form": r.form,
            "text": r.text,
        });
        jsonl.push_str(&line.to_string());
        jsonl.push('\n');
    }
    put("requests.jsonl", jsonl.as_bytes())?;
    if let Some((lines, _)) = &spoken {
        put(SPOKEN_REQUESTS_FILE, spoken_jsonl(lines).as_bytes())?;
    }
    if !reaches.is_empty() {
        let hz = opts.slam_fps.filter(|f| *f > 0.0).unwrap_or(10.0);
        let mut hand_rng = SplitMix64::derive(seed, "mps-hands");
        put(
            "mps/hand_tracking/wrist_and_palm_poses.csv",
            wrist_palm_csv(
                &path,
                &reaches,
                T0_NS,
                hz,
                duration_s,
                mps_error.map(|e| (e, &mut hand_rng)),
            )
            .as_bytes(),
        )?;
    }
    let mut truth = ground_truth(sc, &path, seed, T0_NS, duration_s);
    for (t, tex) in truth.texts.iter_mut().zip(&scene.textures) {
        t.lines = tex.lines.clone();
        t.cap_height_m = Some(tex.cap_height_m);
    }
    let truth_json = serde_json::to_string_pretty(&truth).map_err(|e| SynthError::Io {
        path: out_dir.join("ground_truth.json"),
        source: std::io::Error::other(e),
    })?;
    put("ground_truth.json", truth_json.as_bytes())?;

    Ok(SynthSummary {
        out_dir: out_dir.to_path_buf(),
        duration_s,
        recording,
        data_records: vec![
            (imu_right.to_string(), imu_r.len()),
            (imu_left.to_string(), imu_l.len()),
            (mag_id.to_string(), mag.len()),
            (baro_id.to_string(), baro.len()),
        ]
        .into_iter()
        .chain(cams.iter().zip(&frames).map(|(c, n)| (c.0.to_string(), *n)))
        .chain(device_counts)
        .chain((audio_written > 0).then(|| (AUDIO.to_string(), audio_written)))
        .collect(),
        files,
        semidense: semidense.as_ref().map_or((0, 0, 0), |m| {
            (
                m.len(),
                m.observation_count(),
                m.dropped_points + m.dropped_observations,
            )
        }),
        spoken: spoken.map(|(_, counts)| counts),
    })
}

/// A request's device time, ns (`requests.jsonl`'s `t_ns`).
fn request_t_ns(t_s: f64) -> i64 {
    T0_NS + (t_s * 1e9).round() as i64
}

/// Gzip of `bytes` (no file name, zero mtime: deterministic).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    // Writing into a Vec cannot fail.
    let _ = e.write_all(bytes);
    e.finish().unwrap_or_default()
}

/// The calibration of camera `label` rescaled to the image size the template's stream `id`
/// records (its configuration record's `image_width`/`image_height`), as projectaria_tools
/// does for recordings.
fn recorded_camera(
    template: &VrsReader,
    cal: &DeviceCalibration,
    id: VrsStreamId,
    label: &str,
) -> Result<crate::aria::calib::CameraCalibration, String> {
    let c = cal
        .camera(label)
        .ok_or_else(|| format!("calibration has no {label}"))?;
    let e = template
        .index()
        .iter()
        .find(|e| e.stream == id && e.record_type == RecordType::Configuration)
        .ok_or_else(|| format!("stream {id} has no configuration record"))?;
    let r = template
        .read_record(e)
        .map_err(|e| format!("stream {id} configuration: {e}"))?;
    let layout = template
        .data_layout(id, RecordType::Configuration, r.header.format_version, 0)
        .map_err(|e| format!("stream {id} configuration layout: {e}"))?;
    let w = layout.value::<u32>(&r.payload, "image_width");
    let h = layout.value::<u32>(&r.payload, "image_height");
    match (w, h) {
        (Some(w), Some(h)) if w > 0 && h > 0 => c
            .rescaled(w, h)
            .map_err(|e| format!("{label}: cannot rescale to {w}×{h}: {e}")),
        _ => Err(format!("stream {id} configuration has no image size")),
    }
}

/// The image size the template's stream `id` records (its configuration record's
/// `image_width`/`image_height`).
fn recorded_size(template: &VrsReader, id: VrsStreamId) -> Result<(u32, u32), String> {
    let e = template
        .index()
        .iter()
        .find(|e| e.stream == id && e.record_type == RecordType::Configuration)
        .ok_or_else(|| format!("stream {id} has no configuration record"))?;
    let r = template
        .read_record(e)
        .map_err(|e| format!("stream {id} configuration: {e}"))?;
    let layout = template
        .data_layout(id, RecordType::Configuration, r.header.format_version, 0)
        .map_err(|e| format!("stream {id} configuration layout: {e}"))?;
    match (
        layout.value::<u32>(&r.payload, "image_width"),
        layout.value::<u32>(&r.payload, "image_height"),
    ) {
        (Some(w), Some(h)) if w > 0 && h > 0 => Ok((w, h)),
        _ => Err(format!("stream {id} configuration has no image size")),
    }
}

/// Overwrites the fixed `f64` piece `name` of a DataLayout block in place.
fn set_f64_piece(block: &mut [u8], layout: &DataLayout, name: &str, v: f64) -> Result<(), String> {
    let Some(PieceKind::Value { offset, elem }) = layout.piece(name).map(|p| &p.kind) else {
        return Err(format!("no fixed piece {name:?}"));
    };
    if elem.scalar != Scalar::F64 || elem.count != 1 {
        return Err(format!("{name:?} is not a double"));
    }
    let len = block.len();
    let dst = block
        .get_mut(*offset..*offset + 8)
        .ok_or_else(|| format!("{name:?} at byte {offset} is outside the {len}-byte block"))?;
    dst.copy_from_slice(&v.to_le_bytes());
    Ok(())
}
