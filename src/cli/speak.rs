//! `--speak DIR` for `vista replay`, `vista profile` and `vista live`: the whole assistant on
//! a run. Perception watches the streams (with PP-OCR reading text from the RGB camera when
//! the models are present), the assistant alerts and answers the session's requests (and
//! typed or socket requests), and everything lands in `DIR`: `speech.wav`,
//! `transcript.jsonl`, `decisions.jsonl`, `session_clock.json`, `profile.json` (with text
//! reading: per-read latency and counts), `trace.json` (utterances, the runtime's stage
//! spans, queue depths and drops as counter tracks) and, with ground truth, `latency.svg`
//! and `score.json`. The source (a replay, or live input) is described by [`SpeakInputs`].

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde::Serialize;

use vista::aria::calib::DeviceCalibration;
use vista::aria::recorded_calib::{recorded_camera_sizes, recording_calibration};
use vista::assistant::requests::{spawn_socket, spawn_stdin, RequestQueue};
use vista::assistant::session::{start_assistant, SessionOptions};
use vista::assistant::{Assistant, AssistantCounters};
use vista::buffer::Reader;
use vista::eval::mode::RunInputs;
use vista::eval::SessionClock;
use vista::ocr::text_reads::{ProfiledReader, TextReadReport, TextReadStats};
use vista::ocr::{OcrConfig, OcrEngine, OcrReader, ReadMode, ReaderConfig, RgbGeometry};
use vista::perception::{PerceptionConfig, PerceptionConsumer, PerceptionInputs};
use vista::profile::timeline::{self, CounterSample, Timeline, TimelineStats};
use vista::runtime::{Consumer, ConsumerError};
use vista::sample::StreamId;
use vista::source::live::LinkStats;
use vista::source::replay::ReplaySource;
use vista::source::Source;
use vista::speech::sink::AudioChoice;
use vista::state::{EnvironmentState, HazardEvent, PerceptionSink, ReadRequests, TextReader};
use vista::time::{Clock, DeviceTime, HostTime};

/// Options of the assistant for a runtime command.
#[derive(Debug, Clone, clap::Args)]
pub struct SpeakArgs {
    /// Run the assistant and write its speech, transcript, decisions, profile, trace and
    /// latency picture into DIR.
    #[arg(long, value_name = "DIR")]
    pub speak: Option<PathBuf>,
    /// Where speech plays: `wav` (the file only), `device` (the sound card, recorded into
    /// the WAV; falls back to the WAV when none plays), `null` (paced, recorded).
    #[arg(long, value_enum, default_value = "wav")]
    pub audio: AudioChoice,
    /// Scripted requests (default: the session's `requests.jsonl`, when present).
    #[arg(long, value_name = "FILE")]
    pub requests: Option<PathBuf>,
    /// Also take requests typed on standard input (one per line; `scene:` / `goal:` prefixes).
    #[arg(long)]
    pub stdin_requests: bool,
    /// Also take requests from a local TCP socket (loopback only), one per line.
    #[arg(long, value_name = "ADDR")]
    pub requests_listen: Option<String>,
    /// Describe the scene every this many seconds of device time (off by default).
    #[arg(long, value_name = "SECONDS")]
    pub scene_every: Option<f64>,
    /// Do not read text (skip PP-OCR even when its models are present).
    #[arg(long)]
    pub no_ocr: bool,
    /// Do not compute stereo depth from the two SLAM cameras. It is on by default: it is
    /// what shows people and other things the static map does not hold (its points are
    /// filtered first: band, static map, temporal consistency; see the README).
    #[arg(long)]
    pub no_depth: bool,
    /// Stereo depth is on by default; `--depth` is still accepted (no effect).
    #[arg(long, hide = true, conflicts_with = "no_depth")]
    pub depth: bool,
    /// Do not look for vehicles moving in the SLAM cameras' images. On by default: it is
    /// what sees a car coming from the side, beyond stereo depth's reach (see the README).
    #[arg(long)]
    pub no_movers: bool,
    // --- language model (h-llm) ---
    /// The language model for scene descriptions and open questions: SmolLM2 from the model
    /// cache by default (templates, with one warning, when it is missing or corrupt), or a
    /// GGUF path. Goals and safety questions stay with the grounded templates; alerts never
    /// wait for the model; every generated sentence passes the safety guard.
    #[arg(long, value_name = "GGUF|default")]
    pub lm: Option<String>,
    /// Answer with the grounded templates only (no language model).
    #[arg(long, conflicts_with = "lm")]
    pub no_lm: bool,
    /// A model bundle (`models/<name>/`, a folder with `bundle.toml`): its language model
    /// and, when it has one, its sensor-fusion network, whose tokens go into the prompts.
    /// Checked before the run starts (a fusion width that is not the model's embedding
    /// width is an error).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["lm", "no_lm"])]
    pub bundle: Option<String>,
    /// llama.cpp threads for the language model (default: from the cores and the load
    /// average, per request, at most cores − 1; recorded in every decision).
    #[arg(long, value_name = "N")]
    pub lm_threads: Option<u32>,
    // --- end language model ---
}

/// Forwards perception's calls to the shared assistant (so its counters and speaker report
/// can be read after the run).
struct SharedSink(Arc<Mutex<Assistant>>);

impl PerceptionSink for SharedSink {
    fn on_hazard(&mut self, event: &HazardEvent) {
        if let Ok(mut a) = self.0.lock() {
            a.on_hazard(event);
        }
    }
    fn on_state(&mut self, state: &Arc<EnvironmentState>, now: HostTime) {
        if let Ok(mut a) = self.0.lock() {
            a.on_state(state, now);
        }
    }
    fn finish(&mut self) {
        if let Ok(mut a) = self.0.lock() {
            a.finish();
        }
    }
}

/// What a run offers the assistant, whatever its source (a replay or live input).
#[derive(Debug)]
pub struct SpeakInputs {
    /// The streams the run may deliver.
    pub streams: Vec<StreamId>,
    /// Perception's sensor models and point map.
    pub perception: PerceptionInputs,
    /// The device calibration at the streamed image sizes (for text directions), if known.
    pub calibration: Option<DeviceCalibration>,
    /// Without one: the nominal Gen1 calibration at the streamed sizes, for text directions
    /// only (never for depth or sensor axes).
    pub nominal_calibration: Option<DeviceCalibration>,
    /// The requests file used when `--requests` is not given.
    pub default_requests: Option<PathBuf>,
    /// A session folder with `ground_truth.json` to score against, if any.
    pub truth: Option<PathBuf>,
    /// What the run is, for the trace's title (a session path, a device address).
    pub label: String,
    /// The source has no `device-pose` stream: the run derives one from the IMU
    /// ([`vista::perception::inertial_source::InertialPoseSource`]; `streams` already lists it).
    pub derive_pose: bool,
}

impl SpeakInputs {
    /// Marks the run to derive the device pose from the IMU when `streams` lack one (and
    /// have the IMU): the stream is listed and a note says so. A semi-dense point map (a
    /// replay of a session with MPS, `--recorded-only`) is then not used: its points are
    /// in the MPS trajectory's world frame, not in the derived pose's (which starts at the
    /// origin, facing +x, at height 0): the floor 1.6 m below the real eyes stood at eye
    /// height beside the derived head, an "obstacle at head height" that walked along.
    pub fn derive_pose_if_missing(&mut self) {
        use vista::perception::inertial_source::InertialPoseSource;
        if InertialPoseSource::needed(&self.streams) {
            self.derive_pose = true;
            self.streams.push(StreamId::DevicePose);
            self.perception.notes.push(
                "no device pose in the input: derived from the IMU (attitude held to gravity, \
                 position by counted steps; it drifts, and height is not tracked)"
                    .to_string(),
            );
            if self.perception.points.take().is_some() {
                self.perception.notes.push(
                    "the semi-dense point map is in the MPS trajectory's frame, not the \
                     IMU-derived pose's: not used"
                        .to_string(),
                );
            }
        }
    }
}

impl SpeakInputs {
    /// The inputs of a replay of `session` read by `source`.
    pub fn from_replay(session: &Path, source: &ReplaySource) -> anyhow::Result<Self> {
        let perception = PerceptionInputs::from_session(session)
            .with_context(|| format!("loading perception inputs of {}", session.display()))?;
        // A damaged calibration is left out (the nominal one serves text directions), as for
        // a recording that carries none.
        let calibration = match recording_calibration(source.recording()) {
            Ok(c) => c,
            Err(e) => {
                log::warn!(
                    "{}: calibration unreadable, left out ({e}); using the nominal one",
                    session.display()
                );
                None
            }
        };
        let nominal_calibration = match calibration {
            Some(_) => None,
            None => nominal_for(&recorded_camera_sizes(source.recording())),
        };
        let root = source.files().root.clone();
        let requests = root.join("requests.jsonl");
        let truth = root
            .join("ground_truth.json")
            .is_file()
            .then(|| root.clone());
        Ok(Self {
            streams: source.streams(),
            perception,
            calibration,
            nominal_calibration,
            default_requests: requests.is_file().then_some(requests),
            truth,
            label: format!("session {}", root.display()),
            derive_pose: false,
        })
    }
}

/// The nominal Gen1 calibration at the streamed camera sizes (`None`, logged, if a size
/// cannot be applied).
pub fn nominal_for(sizes: &[(String, u32, u32)]) -> Option<DeviceCalibration> {
    match vista::aria::nominal_calib::nominal_gen1(sizes) {
        Ok(c) => Some(c),
        Err(e) => {
            log::warn!("the nominal calibration does not fit these streams: {e}");
            None
        }
    }
}

/// The assistant side of a run, set up before it starts.
pub struct SpeakRun {
    /// The output folder.
    pub dir: PathBuf,
    /// The session folder with ground truth, if any.
    pub truth: Option<PathBuf>,
    /// The trace's title.
    label: String,
    /// The assistant, shared with perception.
    assistant: Arc<Mutex<Assistant>>,
    /// The session clock (written to `session_clock.json`).
    clock: SessionClock,
    /// Whether text is read.
    pub ocr: bool,
    /// Text reading's statistics, when text is read.
    text_stats: Option<Arc<TextReadStats>>,
    /// The run's stage spans and counter samples.
    timeline: Arc<Timeline>,
    /// Set-up notes (what the session lacks).
    pub notes: Vec<String>,
    /// The language model's set-up (its prefill thread lives as long as the run and is
    /// joined when the run is finished).
    _lm: vista::assistant::lm_setup::LmSetup,
    /// Real time: the thread that answers live requests when they are made (stopped when
    /// the run is finished; the assistant ignores it once it has finished).
    _pump: Option<vista::assistant::request_pump::RequestPump>,
    /// The sensor models to derive the device pose from the IMU with, when the input has no
    /// pose (the caller wraps its source in an `InertialPoseSource`).
    pub derive_pose: Option<vista::perception::SensorModels>,
    /// Live or offline, and the MPS inputs used (written to `run.json`).
    pub inputs: RunInputs,
}

/// Which MPS inputs a run uses: a device pose it did not derive from the IMU, the
/// semi-dense point map, eye gaze, hands.
fn run_inputs(inputs: &SpeakInputs) -> RunInputs {
    let has = |s: StreamId| inputs.streams.contains(&s);
    let mut mps = Vec::new();
    if has(StreamId::DevicePose) && !inputs.derive_pose {
        mps.push(StreamId::DevicePose.name().to_string());
    }
    if inputs.perception.points.is_some() {
        mps.push(StreamId::SemidensePoints.name().to_string());
    }
    for s in [StreamId::EyeGaze, StreamId::HandTracking] {
        if has(s) {
            mps.push(s.name().to_string());
        }
    }
    RunInputs::new(mps, inputs.derive_pose)
}

impl SpeakRun {
    /// Replaces the session clock (live runs know the device-to-host offset only at the
    /// end).
    pub fn set_session_clock(&mut self, clock: SessionClock) {
        self.clock = clock;
    }
}

/// What a run loads before it starts (the language model, PP-OCR's engines), so that
/// loading never delays the first samples: a replay's clock starts after it, a live run
/// accepts its link after it.
pub struct Preloaded {
    lm: vista::assistant::lm_setup::LmSetup,
    /// PP-OCR's engines, unless text reading is off (`Err`: why they did not load).
    ocr: Option<Result<OcrEngine, String>>,
}

impl std::fmt::Debug for Preloaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preloaded")
            .field("lm", &self.lm)
            .field("ocr", &self.ocr.as_ref().map(|r| r.is_ok()))
            .finish()
    }
}

/// Loads the language model and PP-OCR for a run (`real_time`: with the prefill thread).
pub fn preload(args: &SpeakArgs, real_time: bool) -> anyhow::Result<Preloaded> {
    let t0 = std::time::Instant::now();
    let choice = vista::assistant::lm_setup::LmChoice::from_args_with_bundle(
        args.lm.as_deref(),
        args.no_lm,
        args.bundle.as_deref(),
    );
    let threads = vista::assistant::lm_threads::ThreadPolicy::from_arg(args.lm_threads);
    let lm = vista::assistant::lm_setup::load_lm_with(&choice, real_time, threads)?;
    let ocr = (!args.no_ocr).then(|| {
        OcrEngine::new(OcrConfig {
            det_limit: vista::ocr::DetLimit::Max(960),
            ..OcrConfig::default()
        })
        .map_err(|e| format!("{e:#}"))
    });
    log::info!(
        "assistant models loaded in {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    Ok(Preloaded { lm, ocr })
}

/// The clock of a replay, made before the run so the speaker shares it.
pub fn replay_clock(origin: DeviceTime, asap: bool, rate: f64) -> Arc<dyn Clock> {
    if asap {
        Arc::new(vista::time::VirtualClock::new(origin))
    } else {
        Arc::new(vista::time::ReplayClock::start(origin, rate))
    }
}

/// Sets up perception and the assistant for a replay of `source` (before the source is
/// wrapped for read-ahead) with the models `pre` loaded; returns the consumers to add to
/// the run (perception, and the fusion network's window with a bundle that has one).
#[allow(clippy::too_many_arguments)]
pub fn setup(
    args: &SpeakArgs,
    dir: &Path,
    session: &Path,
    source: &ReplaySource,
    clock: Arc<dyn Clock>,
    origin: DeviceTime,
    rate: f64,
    pre: Preloaded,
) -> anyhow::Result<(SpeakRun, Vec<Box<dyn vista::runtime::Consumer>>)> {
    let mut inputs = SpeakInputs::from_replay(session, source)?;
    inputs.derive_pose_if_missing();
    setup_with(args, dir, inputs, clock, origin, rate, None, pre)
}

/// Spans and counter samples kept for `trace.json` (≈ 40 B each: ≈ 5 MiB; at ~2,500
/// spans/s of ingest, the last ~50 s of a run; older ones are dropped and counted).
const TRACE_SPANS: usize = 131_072;
/// Counter samples kept (at 10 Hz × 4 counters: the last ~400 s).
const TRACE_COUNTERS: usize = 16_384;
/// Counter tracks are sampled at most this often (host ns).
const COUNTER_EVERY_NS: i64 = 100_000_000;

/// Sets up perception and the assistant for a run with `inputs` on `clock` (whose device
/// time `origin` starts the session) with the models `pre` loaded; `link` adds the live
/// link's counters to the trace. Returns the consumers to add to the run.
#[allow(clippy::too_many_arguments)]
pub fn setup_with(
    args: &SpeakArgs,
    dir: &Path,
    inputs: SpeakInputs,
    clock: Arc<dyn Clock>,
    origin: DeviceTime,
    rate: f64,
    link: Option<LinkStats>,
    pre: Preloaded,
) -> anyhow::Result<(SpeakRun, Vec<Box<dyn vista::runtime::Consumer>>)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let streams = inputs.streams.clone();
    let (derive_pose, models) = (inputs.derive_pose, inputs.perception.models.clone());
    let run_inputs = run_inputs(&inputs);
    log::info!("mode: {}", run_inputs.mode);
    let mut notes = inputs.perception.notes.clone();
    // (audit) What the session cannot do, as the state will say it, in the run's notes too.
    for l in vista::perception::limits::limitations(
        &inputs.perception.models,
        inputs.perception.points.as_deref(),
        |s| streams.contains(&s),
    ) {
        if !notes.contains(&l) {
            notes.push(l);
        }
    }
    for n in &notes {
        log::warn!("perception: {n}");
    }
    let engine = inputs
        .perception
        .engine(PerceptionConfig::default(), &streams);

    let requests = args.requests.clone().or(inputs.default_requests.clone());
    let live =
        (args.stdin_requests || args.requests_listen.is_some()).then(|| RequestQueue::new(64));
    // The request threads end with the process (a blocking stdin read cannot be
    // interrupted); `stop` ends the socket listener.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Some(q) = &live {
        if args.stdin_requests {
            spawn_stdin(q.clone(), Arc::clone(&clock), Arc::clone(&stop))
                .context("reading requests from standard input")?;
        }
        if let Some(addr) = &args.requests_listen {
            let sa: std::net::SocketAddr = addr
                .parse()
                .with_context(|| format!("--requests-listen {addr}: not an IP:PORT address"))?;
            let (bound, _) = spawn_socket(sa, q.clone(), Arc::clone(&clock), Arc::clone(&stop))
                .with_context(|| format!("listening for requests on {addr}"))?;
            log::info!("requests: listening on {bound}");
        }
    }
    let ambient_every_ns = args
        .scene_every
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| (s * 1e9) as i64);
    // --- language model (h-llm) ---
    let Preloaded { mut lm, ocr } = pre;
    notes.extend(lm.note.clone());
    notes.extend(lm.notes.iter().cloned());
    let mut consumers: Vec<Box<dyn vista::runtime::Consumer>> = Vec::new();
    #[cfg(feature = "llm")]
    if let Some(w) = lm.window.take() {
        let (consumer, note) = w.into_consumer(inputs.calibration.as_ref());
        notes.extend(note);
        consumers.push(Box::new(consumer));
    }
    #[cfg(feature = "llm")]
    if let Some(v) = lm.vision.as_mut() {
        match v.take_consumer() {
            Some(c) if streams.contains(&StreamId::CameraRgb) => consumers.push(Box::new(c)),
            _ => {
                v.no_camera();
                notes.push(
                    "no RGB camera: the bundle's vision projector sees nothing; answers use \
                     the state text alone"
                        .into(),
                );
            }
        }
    }
    // --- end language model ---
    let started = start_assistant(
        SessionOptions {
            out_dir: dir,
            requests: requests.as_deref(),
            audio: args.audio,
            generator: lm.generator.take(),
            live,
            ambient_every_ns,
        },
        Arc::clone(&clock),
    )
    .context("starting the assistant")?;
    if let Some(why) = &started.fallback_reason {
        notes.push(why.clone());
    }
    log::info!(
        "assistant: {} scripted request(s), speech to {}",
        started.scripted,
        started.sink
    );
    let assistant = Arc::new(Mutex::new(started.assistant));
    // Real time: live requests are answered when made, not at the next perception state.
    let pump = if clock.is_real_time() {
        vista::assistant::request_pump::RequestPump::start(Arc::clone(&assistant))
            .context("starting the request thread")?
    } else {
        None
    };
    let mut consumer =
        PerceptionConsumer::new(engine, lm.wrap_sink(SharedSink(Arc::clone(&assistant))));

    let mut text_stats = None;
    if args.no_ocr {
        notes.push("text reading off (--no-ocr)".into());
    } else if !streams.contains(&StreamId::CameraRgb) {
        let n = "no RGB camera: cannot read text".to_string();
        if !notes.contains(&n) {
            notes.push(n);
        }
    } else {
        let stats = Arc::new(TextReadStats::new());
        let engine = match ocr {
            Some(Ok(e)) => Ok(e),
            Some(Err(e)) => Err(anyhow::anyhow!(e)),
            None => Err(anyhow::anyhow!("PP-OCR was not loaded")),
        };
        let text_calibration = match (&inputs.calibration, &inputs.nominal_calibration) {
            (Some(c), _) => Some(c),
            (None, Some(n)) => {
                notes.push(
                    "no calibration: text directions from a nominal Gen1 calibration (within \
                     about a clock hour)"
                        .into(),
                );
                Some(n)
            }
            (None, None) => {
                notes.push("no calibration: text is placed straight ahead (12 o'clock)".into());
                None
            }
        };
        match engine.and_then(|e| {
            text_reader(
                e,
                text_calibration,
                clock.is_real_time(),
                Arc::clone(&stats),
            )
        }) {
            Ok(r) => {
                // Requests that need text the state does not hold have the newest frame
                // read whole and wait for it (bounded).
                let whole = Arc::new(ReadRequests::new());
                consumer = consumer
                    .with_text_reader(r)
                    .with_read_requests(Arc::clone(&whole));
                if let Ok(mut a) = assistant.lock() {
                    a.set_read_requests(whole);
                }
                text_stats = Some(stats);
            }
            Err(e) => {
                let n = format!("text reading unavailable: {e:#}");
                log::warn!("{n}");
                notes.push(n);
            }
        }
    }
    if args.no_depth {
        notes.push("stereo depth off (--no-depth)".into());
    } else if !(streams.contains(&StreamId::CameraSlamLeft)
        && streams.contains(&StreamId::CameraSlamRight))
    {
        notes.push("no SLAM camera pair: no stereo depth (moving people are unseen)".into());
    } else {
        match inputs.calibration.as_ref().map(|c| {
            vista::perception::stereo::StereoDepth::new(
                c,
                vista::perception::stereo::StereoConfig::default(),
            )
        }) {
            Some(Ok(stereo)) => {
                consumer = consumer.with_depth(vista::perception::depth_input::DepthInput::new(
                    stereo,
                    clock.is_real_time(),
                ));
            }
            Some(Err(e)) => {
                let n = format!("stereo depth unavailable: {e}");
                log::warn!("{n}");
                notes.push(n);
            }
            None => notes.push("no calibration: no stereo depth".into()),
        }
    }
    if args.no_movers {
        notes.push("vehicle detection off (--no-movers)".into());
    } else if !(streams.contains(&StreamId::CameraSlamLeft)
        && streams.contains(&StreamId::CameraSlamRight))
    {
        notes.push("no SLAM cameras: vehicles coming from the side are unseen".into());
    } else {
        match inputs.calibration.as_ref().map(|c| {
            vista::perception::movers::MoverInput::new(
                c,
                vista::perception::movers::MoverConfig::default(),
            )
        }) {
            Some(Ok(m)) => consumer = consumer.with_movers(m),
            Some(Err(e)) => {
                let n = format!("vehicle detection unavailable: {e}");
                log::warn!("{n}");
                notes.push(n);
            }
            None => notes.push("no calibration: no vehicle detection".into()),
        }
    }
    let session_clock = SessionClock {
        origin_device_ns: origin.ns(),
        origin_host_ns: clock.due(origin).ns(),
        rate: if clock.is_real_time() { rate } else { 1.0 },
    };
    let trace = Arc::new(Timeline::new(TRACE_SPANS, TRACE_COUNTERS));
    timeline::install(Arc::clone(&trace));
    let monitor = Monitor {
        inner: Box::new(consumer),
        last: None,
        assistant: Arc::clone(&assistant),
        text: text_stats.clone(),
        link,
    };
    consumers.insert(0, Box::new(monitor));
    Ok((
        SpeakRun {
            dir: dir.to_path_buf(),
            truth: inputs.truth,
            label: inputs.label,
            assistant,
            clock: session_clock,
            ocr: text_stats.is_some(),
            text_stats,
            timeline: trace,
            notes,
            _lm: lm,
            _pump: pump,
            derive_pose: derive_pose.then_some(models),
            inputs: run_inputs,
        },
        consumers,
    ))
}

/// PP-OCR (`engine`), read synchronously inside a [`ProfiledReader`] (throttled, timed; on
/// its own thread in real time).
fn text_reader(
    engine: OcrEngine,
    calibration: Option<&DeviceCalibration>,
    threaded: bool,
    stats: Arc<TextReadStats>,
) -> anyhow::Result<Box<dyn TextReader>> {
    let geometry = calibration.and_then(|c| RgbGeometry::from_device(c, "camera-rgb"));
    let cfg = ReaderConfig {
        mode: ReadMode::Synchronous,
        ..ReaderConfig::default()
    };
    let inner = OcrReader::new(engine, geometry, cfg)?;
    Ok(Box::new(
        ProfiledReader::new(Box::new(inner), OCR_MIN_INTERVAL_NS, threaded, stats)
            .context("starting the text-reading thread")?,
    ))
}

/// Text is read at most this often (device time): signs do not change between frames, and
/// one read costs ~0.3–1 s of one core on this class of machine.
const OCR_MIN_INTERVAL_NS: i64 = 1_000_000_000;

/// The perception consumer, sampling queue depths and drops into the timeline's counter
/// tracks (at most every [`COUNTER_EVERY_NS`] of the clock) before each call.
struct Monitor {
    inner: Box<dyn Consumer>,
    last: Option<HostTime>,
    assistant: Arc<Mutex<Assistant>>,
    text: Option<Arc<TextReadStats>>,
    link: Option<LinkStats>,
}

impl Monitor {
    fn sample(&self, reader: &Reader, at: HostTime) {
        let (pending, dropped, max_lag) = reader
            .stats()
            .iter()
            .fold((0u64, 0u64, 0u64), |(p, d, m), (_, s)| {
                (p + s.pending, d + s.dropped, m.max(s.max_lag))
            });
        timeline::record_counter(CounterSample::new(
            "perception queue",
            at,
            &[
                ("pending", pending as f64),
                ("dropped", dropped as f64),
                ("max_lag", max_lag as f64),
            ],
        ));
        if let Some(t) = &self.text {
            let r = t.report();
            timeline::record_counter(CounterSample::new(
                "text reads",
                at,
                &[
                    ("reads", r.reads as f64),
                    ("skipped_throttle", r.skipped_throttle as f64),
                    ("skipped_busy", r.skipped_busy as f64),
                    ("results_dropped", r.results_dropped as f64),
                ],
            ));
        }
        if let Ok(a) = self.assistant.lock() {
            let c = a.counters();
            timeline::record_counter(CounterSample::new(
                "assistant",
                at,
                &[
                    ("alerts", c.alerts as f64),
                    ("alerts_suppressed", c.alerts_suppressed as f64),
                    ("answers", c.answers as f64),
                    ("dropped_requests", c.dropped_requests as f64),
                    ("cancelled", c.cancelled as f64),
                ],
            ));
        }
        if let Some(l) = &self.link {
            let r = l.report();
            timeline::record_counter(CounterSample::new(
                "link",
                at,
                &[
                    ("connections", r.connections as f64),
                    ("link_drops", r.link_drops as f64),
                    ("bad_frames", r.bad_frames as f64),
                ],
            ));
        }
    }
}

impl Consumer for Monitor {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn wants(&self, stream: StreamId) -> bool {
        self.inner.wants(stream)
    }
    fn on_samples(&mut self, reader: &mut Reader, now: HostTime) -> Result<(), ConsumerError> {
        if self.last.is_none_or(|l| now.since(l) >= COUNTER_EVERY_NS) {
            self.last = Some(now);
            self.sample(reader, now);
        }
        self.inner.on_samples(reader, now)
    }
    fn finish(&mut self) {
        self.inner.finish();
    }
}

/// What the assistant did, for `profile.json`.
#[derive(Debug, Serialize)]
pub struct AssistantSummary {
    /// Counters.
    pub counters: AssistantCountersJson,
    /// Whether text was read.
    pub ocr: bool,
    /// What the session lacked.
    pub notes: Vec<String>,
    /// Text reading: per-read latency and counts (absent when text was not read).
    pub text_reads: Option<TextReadReport>,
    /// The trace's stage spans and counter samples: held and dropped.
    pub trace: TimelineStats,
    /// The prefill ahead of requests (real time with a language model only): states
    /// offered, prefills run and cut short, and requests answered over a prefilled state.
    #[cfg(feature = "llm")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lm_prefill: Option<vista::assistant::lm_prefill::PrefillCounters>,
    /// Camera frames in the answers (a bundle with a vision projector): counters and the
    /// per-frame encode time.
    #[cfg(feature = "llm")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<vista::assistant::lm_vision::VisionReport>,
}

/// [`AssistantCounters`] as JSON.
#[derive(Debug, Serialize)]
pub struct AssistantCountersJson {
    /// Alerts spoken.
    pub alerts: u64,
    /// Hazard events not alerted (duplicates, rate limit).
    pub alerts_suppressed: u64,
    /// Answers given.
    pub answers: u64,
    /// Scene updates.
    pub ambient: u64,
    /// Sentences the guard blocked.
    pub guard_interventions: u64,
    /// Requests the evidence could not answer.
    pub unanswerable: u64,
    /// Requests dropped (queues full).
    pub dropped_requests: u64,
    /// Answers cancelled.
    pub cancelled: u64,
    /// Generator failures.
    pub generator_failures: u64,
}

impl From<AssistantCounters> for AssistantCountersJson {
    fn from(c: AssistantCounters) -> Self {
        Self {
            alerts: c.alerts,
            alerts_suppressed: c.alerts_suppressed,
            answers: c.answers,
            ambient: c.ambient,
            guard_interventions: c.guard_interventions,
            unanswerable: c.unanswerable,
            dropped_requests: c.dropped_requests,
            cancelled: c.cancelled,
            generator_failures: c.generator_failures,
        }
    }
}

/// The trace process holding the runtime's stage spans and counters (the utterance tracks
/// are process 1).
const STAGES_PID: u32 = 2;

/// `profile.json` of a spoken run.
#[derive(Serialize)]
struct SpokenProfile<'a, R: Serialize> {
    replay: &'a R,
    assistant: AssistantSummary,
    utterances: vista::report::utterance::UtteranceReport,
    /// The language model's answers, stage by stage (absent when it answered none).
    #[serde(skip_serializing_if = "Option::is_none")]
    lm_answers: Option<vista::report::utterance_lm::LmBreakdownReport>,
    cpu: vista::profile::cpu::CpuReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<&'a vista::eval::Scorecard>,
}

/// The language model's answers in `dir`'s decisions and transcript (logged, not fatal,
/// when they cannot be read).
fn lm_answers(dir: &Path) -> Option<vista::report::utterance_lm::LmBreakdownReport> {
    let read = || -> anyhow::Result<_> {
        let d = vista::assistant::decisions::read_decisions(&dir.join("decisions.jsonl"))?;
        let t = vista::speech::transcript::read_transcript(&dir.join("transcript.jsonl"))?;
        Ok(vista::report::utterance_lm::lm_breakdown(&d, &t))
    };
    read().unwrap_or_else(|e| {
        log::warn!("language model breakdown: {e:#}");
        None
    })
}

/// After the run: writes `session_clock.json`, the latency report, `trace.json`,
/// `latency.svg`, `profile.json` (with `replay` = the stream profile), and `score.json` when
/// the session has ground truth; prints the tables.
pub fn finish(run: SpeakRun, replay: &impl Serialize) -> anyhow::Result<()> {
    let cpu = vista::profile::cpu::snapshot();
    let dir = &run.dir;
    let clock_path = dir.join("session_clock.json");
    std::fs::write(
        &clock_path,
        serde_json::to_string_pretty(&run.clock)? + "\n",
    )
    .with_context(|| format!("writing {}", clock_path.display()))?;
    let run_path = dir.join(vista::eval::mode::RUN_FILE);
    std::fs::write(&run_path, serde_json::to_string_pretty(&run.inputs)? + "\n")
        .with_context(|| format!("writing {}", run_path.display()))?;
    println!("mode: {}", run.inputs.mode);
    let counters = run
        .assistant
        .lock()
        .map(|a| a.counters())
        .unwrap_or_default();
    let mut notes = run.notes.clone();
    if let Some(n) = run.assistant.lock().ok().and_then(|a| a.lm_failure()) {
        notes.push(n);
    }
    // The run is over: stop copying spans (the trace is written from `run.timeline`).
    let _ = timeline::uninstall();
    let text_reads = run.text_stats.as_ref().map(|t| t.report());
    let summary = AssistantSummary {
        counters: counters.into(),
        ocr: run.ocr,
        notes,
        text_reads: text_reads.clone(),
        trace: run.timeline.stats(),
        #[cfg(feature = "llm")]
        lm_prefill: run._lm.prefill.as_ref().map(|p| p.counters()),
        #[cfg(feature = "llm")]
        images: run._lm.vision_report(),
    };
    #[cfg(feature = "llm")]
    if let Some(r) = &summary.images {
        println!("{}", r.line());
    }
    let (utterances, card) = if let Some(session) = &run.truth {
        let inputs = vista::eval::load(session, dir)
            .with_context(|| format!("reading the run back from {}", dir.display()))?;
        let card = vista::eval::score(
            &inputs,
            &vista::eval::HazardTolerances::default(),
            &vista::eval::Targets::default(),
        );
        let lat = vista::eval::latency::run_latency(&inputs, &card);
        let mut picture = vista::eval::latency::picture(&inputs, &card, &lat);
        picture
            .stages
            .extend(vista::report::run_view::runtime_distributions(
                &run.timeline.spans(),
            ));
        let svg = vista::report::cpu_view::with_cpu_panel(
            &vista::report::plot::render_svg(&picture),
            &cpu,
        );
        let svg_path = dir.join("latency.svg");
        std::fs::write(&svg_path, svg)
            .with_context(|| format!("writing {}", svg_path.display()))?;
        let trace_path = dir.join("trace.json");
        let file = File::create(&trace_path)
            .with_context(|| format!("creating {}", trace_path.display()))?;
        let mut w = vista::profile::trace::TraceWriter::new(BufWriter::new(file))
            .with_context(|| format!("writing {}", trace_path.display()))?;
        vista::eval::latency::write_trace(&mut w, &inputs, &card, &lat);
        run.timeline
            .write_trace(&mut w, STAGES_PID, &format!("runtime: {}", run.label));
        w.finish()
            .with_context(|| format!("writing {}", trace_path.display()))?;
        let score_path = dir.join("score.json");
        std::fs::write(&score_path, serde_json::to_string_pretty(&card)? + "\n")
            .with_context(|| format!("writing {}", score_path.display()))?;
        (lat.latency.report(), Some(card))
    } else {
        let decisions = vista::assistant::decisions::read_decisions(&dir.join("decisions.jsonl"))?;
        let transcript = vista::speech::transcript::read_transcript(&dir.join("transcript.jsonl"))?;
        let clock = run.clock;
        let (timings, lat) =
            vista::report::utterance::latency_without_truth(&decisions, &transcript, &|d| {
                clock.to_host_ns(d)
            });
        let trace_path = dir.join("trace.json");
        let file = File::create(&trace_path)
            .with_context(|| format!("creating {}", trace_path.display()))?;
        let mut w = vista::profile::trace::TraceWriter::new(BufWriter::new(file))
            .with_context(|| format!("writing {}", trace_path.display()))?;
        vista::report::utterance::write_timings_trace(&mut w, &run.label, &timings);
        // (audit) The hazard and speech-queue tracks and the picture, without ground truth too.
        vista::report::run_view::write_alert_spans(&mut w, 1, 1, &decisions, &timings);
        vista::report::run_view::write_speech_counters(&mut w, 1, &transcript);
        run.timeline
            .write_trace(&mut w, STAGES_PID, &format!("runtime: {}", run.label));
        w.finish()
            .with_context(|| format!("writing {}", trace_path.display()))?;
        let to_s =
            |h: i64| clock.to_device_ns(h).saturating_sub(clock.origin_device_ns) as f64 / 1e9;
        let mut picture = vista::report::run_view::picture_without_truth(
            &format!("{} (no ground truth)", run.label),
            &decisions,
            &timings,
            &lat,
            &to_s,
        );
        picture
            .stages
            .extend(vista::report::run_view::runtime_distributions(
                &run.timeline.spans(),
            ));
        let svg_path = dir.join("latency.svg");
        std::fs::write(
            &svg_path,
            vista::report::cpu_view::with_cpu_panel(
                &vista::report::plot::render_svg(&picture),
                &cpu,
            ),
        )
        .with_context(|| format!("writing {}", svg_path.display()))?;
        log::info!("no ground truth for {}: no score", run.label);
        (lat.report(), None)
    };
    print!("{}", utterances.to_table());
    let lm_answers = lm_answers(dir);
    if let Some(b) = &lm_answers {
        print!("{}", b.to_table());
    }
    #[cfg(feature = "llm")]
    if let Some(c) = &summary.lm_prefill {
        println!(
            "prefill ahead of requests: {} state(s) offered, {} superseded, {} prefill(s) \
             ({} token(s)), {} cut short by a request, {} failed; {} of {} request(s) over a \
             prefilled state",
            c.offered,
            c.superseded,
            c.prefills,
            c.prefill_tokens,
            c.interrupted,
            c.failures,
            c.on_prefilled,
            c.requests
        );
    }
    if let Some(t) = &text_reads {
        print!("{}", t.to_table());
    }
    if let Some(card) = &card {
        print!("{}", card.to_table());
    }
    print!("{}", cpu.to_table());
    let profile = SpokenProfile {
        replay,
        assistant: summary,
        utterances,
        lm_answers,
        cpu,
        score: card.as_ref(),
    };
    let path = dir.join("profile.json");
    std::fs::write(&path, serde_json::to_string_pretty(&profile)? + "\n")
        .with_context(|| format!("writing {}", path.display()))?;
    println!(
        "assistant: {} alert(s), {} answer(s), {} guard intervention(s); output in {}",
        counters.alerts,
        counters.answers,
        counters.guard_interventions,
        dir.display()
    );
    Ok(())
}
