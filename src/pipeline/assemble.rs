//! Assembles the assistant side of a run: loads the models ahead of the clock
//! ([`preload`]), then wires perception (stereo depth, vehicles, text reading), the
//! language model's consumers, request sources, the assistant and its speaker, and the
//! trace's timeline ([`assemble`]). What it returns is run by the runtime and written out by
//! [`super::outputs`].

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::aria::calib::DeviceCalibration;
use crate::assistant::lm::setup::LmSetup;
use crate::assistant::request_pump::RequestPump;
use crate::assistant::requests::{spawn_socket, spawn_stdin, RequestQueue};
use crate::assistant::run_start::{start_assistant, SessionOptions};
use crate::assistant::understand::similar::SimilarAsks;
use crate::assistant::Assistant;
use crate::detect::{Detector, DetectorConfig, DetectorSeer, SeerStats};
use crate::eval::mode::RunInputs;
use crate::eval::SessionClock;
use crate::ocr::text_reads::{ProfiledReader, TextReadStats};
use crate::ocr::{OcrConfig, OcrEngine, OcrReader, ReadMode, ReaderConfig, RgbGeometry};
use crate::perception::consumer::PerceptionReportSlot;
use crate::perception::inertial_source::PoseDerivation;
use crate::perception::odometry::{OdometryConfig, StereoOdometry};
use crate::perception::{PerceptionConfig, PerceptionConsumer};
use crate::profile::timeline::{self, Timeline};
use crate::runtime::Consumer;
use crate::sample::StreamId;
use crate::source::live::LinkStats;
use crate::state::{EnvironmentState, HazardEvent, PerceptionSink, ReadRequests, TextReader};
use crate::stop::StopHandle;
use crate::time::{Clock, DeviceTime, HostTime};
use crate::worker::Worker;

use super::inputs::AssistantInputs;
use super::monitor::Monitor;
use super::options::{AssistantOptions, LmOptions};
use super::PipelineError;

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

/// The assistant side of a run, set up before it starts.
pub struct AssistantRun {
    /// The output folder.
    pub dir: PathBuf,
    /// The session folder with ground truth, if any.
    pub truth: Option<PathBuf>,
    /// The trace's title.
    pub(crate) label: String,
    /// The assistant, shared with perception.
    pub(crate) assistant: Arc<Mutex<Assistant>>,
    /// The session clock (written to `session_clock.json`).
    pub(crate) clock: SessionClock,
    /// Whether text is read.
    pub ocr: bool,
    /// Text reading's statistics, when text is read.
    pub(crate) text_stats: Option<Arc<TextReadStats>>,
    /// The object detector's statistics, when it runs.
    pub(crate) object_stats: Option<Arc<SeerStats>>,
    /// Perception's counters, left when its consumer finishes.
    pub(crate) perception_report: PerceptionReportSlot,
    /// Listening's statistics, when the wearer is heard.
    pub(crate) voice_stats: Option<Arc<crate::listen::consumer::VoiceStats>>,
    /// The run's stage spans and counter samples.
    pub(crate) timeline: Arc<Timeline>,
    /// Set-up notes (what the session lacks).
    pub notes: Vec<String>,
    /// The language model's set-up (its prefill thread lives as long as the run and is
    /// joined when the run is finished).
    #[cfg_attr(not(feature = "llm"), allow(dead_code))]
    pub(crate) lm: LmSetup,
    /// Real time: the thread that answers live requests when they are made (stopped when
    /// the run is finished; the assistant ignores it once it has finished).
    _pump: Option<RequestPump>,
    /// Stops the request threads when the run is dropped (standard input's at its next
    /// line: a blocking read cannot be interrupted, so that thread is not joined).
    _requests_stop: StopOnDrop,
    /// The request socket's listener, stopped and joined (with its clients) when the run
    /// is dropped.
    _requests_listener: Option<Worker>,
    /// Real time with a budget: the thread that keeps it (stopped when the run finishes).
    pub(crate) budget: Option<super::budget::BudgetKeeper>,
    /// The budget asked for, cores.
    pub(crate) budget_cores: Option<f64>,
    /// The sensor models to derive the device pose from the IMU with, when the input has no
    /// pose (the source is wrapped in an `InertialPoseSource`).
    pub derive_pose: Option<PoseDerivation>,
    /// Live or offline, and the MPS inputs used (written to `run.json`).
    pub inputs: RunInputs,
}

impl AssistantRun {
    /// Replaces the session clock (live runs know the device-to-host offset only at the
    /// end).
    pub fn set_session_clock(&mut self, clock: SessionClock) {
        self.clock = clock;
    }
}

/// Stops a handle when dropped (the request threads' stop).
struct StopOnDrop(StopHandle);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// What a run loads before it starts (the language model, PP-OCR's engines), so that
/// loading never delays the first samples: a replay's clock starts after it, a live run
/// accepts its link after it.
pub struct Preloaded {
    lm: LmSetup,
    /// PP-OCR's engines, unless text reading is off (`Err`: why they did not load).
    ocr: Option<Result<OcrEngine, String>>,
    /// The object detector, unless it is off (`Err`: why it did not load).
    detector: Option<Result<Detector, String>>,
    /// The voice detector and recogniser, when listening (`Err`: why they did not load).
    voice: Option<super::voice::VoiceModels>,
    /// Likeness to labelled requests, unless it is off (`Err`: why it did not load).
    likeness: Option<Result<Arc<SimilarAsks>, String>>,
}

impl std::fmt::Debug for Preloaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preloaded")
            .field("lm", &self.lm)
            .field("ocr", &self.ocr.as_ref().map(|r| r.is_ok()))
            .field("detector", &self.detector.as_ref().map(|r| r.is_ok()))
            .field("voice", &self.voice.as_ref().map(|r| r.is_ok()))
            .field("likeness", &self.likeness.as_ref().map(|r| r.is_ok()))
            .finish()
    }
}

/// Loads the language model and PP-OCR for a run (`real_time`: with the prefill thread).
pub fn preload(opts: &AssistantOptions, real_time: bool) -> Result<Preloaded, PipelineError> {
    let t0 = std::time::Instant::now();
    let LmOptions { choice, threads } = &opts.lm;
    let lm = crate::assistant::lm::setup::load_lm_with(choice, real_time, *threads)?;
    let ocr = opts.sight.read_text.then(|| {
        OcrEngine::new(OcrConfig {
            det_limit: crate::ocr::DetLimit::Max(960),
            ..OcrConfig::default()
        })
        .map_err(|e| format!("{e:#}"))
    });
    let detector = opts
        .sight
        .objects
        .then(|| Detector::load(&DetectorConfig::default()).map_err(|e| error_chain(&e)));
    let voice = opts.listen.then(super::voice::load_voice_models);
    let likeness = opts.likeness.then(load_likeness);
    log::info!(
        "assistant models loaded in {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    Ok(Preloaded {
        lm,
        ocr,
        detector,
        voice,
        likeness,
    })
}

/// The sentence encoder and the labelled requests' vectors (kept beside the model once
/// computed).
fn load_likeness() -> Result<Arc<SimilarAsks>, String> {
    let encoder = crate::infer::sentence::load_minilm().map_err(|e| error_chain(&e))?;
    let cache = crate::infer::sentence::minilm_cache_dir();
    let (similar, source) = SimilarAsks::new(Arc::new(encoder), Some(&cache));
    log::info!("likeness: {} labelled requests ({source:?})", similar.len());
    Ok(Arc::new(similar))
}

/// The clock of a replay, made before the run so the speaker shares it.
pub fn replay_clock(origin: DeviceTime, real_time: bool, rate: f64) -> Arc<dyn Clock> {
    if real_time {
        Arc::new(crate::time::ReplayClock::start(origin, rate))
    } else {
        Arc::new(crate::time::VirtualClock::new(origin))
    }
}

/// Spans and counter samples kept for `trace.json` (≈ 40 B each: ≈ 5 MiB; at ~2,500
/// spans/s of ingest, the last ~50 s of a run; older ones are dropped and counted).
const TRACE_SPANS: usize = 131_072;
/// Counter samples kept (at 10 Hz × 4 counters: the last ~400 s).
const TRACE_COUNTERS: usize = 16_384;

/// Where and how a run's assistant is set up.
pub struct RunSetting<'a> {
    /// The run's clock.
    pub clock: Arc<dyn Clock>,
    /// The device time that starts the session.
    pub origin: DeviceTime,
    /// The replay rate (real time), for the session clock.
    pub rate: f64,
    /// The live link's counters, for the trace.
    pub link: Option<LinkStats>,
    /// The assistant's options.
    pub options: &'a AssistantOptions,
    /// The run's Rerun recording, when it makes one.
    pub view: Option<crate::view::ViewLog>,
}

/// Sets up perception and the assistant for a run with `inputs` in `setting`, with the
/// models `pre` loaded. Returns the run and the consumers to add to the runtime.
pub fn assemble(
    setting: RunSetting<'_>,
    inputs: AssistantInputs,
    pre: Preloaded,
) -> Result<(AssistantRun, Vec<Box<dyn Consumer>>), PipelineError> {
    let RunSetting {
        clock,
        origin,
        rate,
        link,
        options: opts,
        view,
    } = setting;
    let dir = opts.out_dir.as_path();
    std::fs::create_dir_all(dir).map_err(PipelineError::write(dir))?;
    // The optional stages' rates, set by the budget's governor in real time (in lock step
    // they stay at the stages' own rates: deterministic).
    let dials = crate::budget::Dials::new();
    let streams = inputs.streams.clone();
    let (derive_pose, models) = (inputs.derive_pose, inputs.perception.models.clone());
    let run_inputs = inputs.run_inputs();
    if let Some(log) = &view {
        super::view::offer_session(log, &inputs);
    }
    log::info!("mode: {}", run_inputs.mode);
    let mut notes = inputs.perception.notes.clone();
    let slam_pair =
        streams.contains(&StreamId::CameraSlamLeft) && streams.contains(&StreamId::CameraSlamRight);
    let static_map = inputs.perception.points.is_some();
    // Without a semi-dense map, stereo depth sees what is in view, and builds a map live
    // when asked.
    let stereo_without_map = !static_map && opts.sight.stereo_depth && slam_pair;
    let live_map = stereo_without_map && opts.sight.live_map;
    // What the session cannot do, as the state will say it, in the run's notes too.
    for l in crate::perception::limits::limitations(
        &inputs.perception.models,
        inputs.perception.points.as_deref(),
        live_map,
        stereo_without_map,
        |s| streams.contains(&s),
    ) {
        if !notes.contains(&l) {
            notes.push(l);
        }
    }
    let mut engine = inputs
        .perception
        .engine(PerceptionConfig::default(), &streams);
    if live_map {
        engine = engine.with_live_map(crate::perception::live_map::LiveMapConfig::default());
        notes.push("no semi-dense map: a map is built live from stereo depth".into());
    } else if stereo_without_map {
        notes.push("a map can be built live from stereo depth (--live-map)".into());
    }
    for n in &notes {
        log::warn!("perception: {n}");
    }

    // Listening, the wearer's requests come from their voice: the session's scripted
    // requests are not asked as well (an explicit --requests file still is).
    let requests = match (&opts.requests, opts.listen) {
        (Some(r), _) => Some(r.clone()),
        (None, false) => inputs.default_requests.clone(),
        (None, true) => {
            if inputs.default_requests.is_some() {
                notes.push(
                    "requests from the wearer's voice (--voice-requests): the session's requests.jsonl is not read"
                        .into(),
                );
            }
            None
        }
    };
    let live = (opts.stdin_requests || opts.requests_listen.is_some() || opts.listen)
        .then(|| RequestQueue::new(64));
    // The standard-input thread ends with the process (a blocking read cannot be
    // interrupted) or at its next line after the run; the socket listener is joined when
    // the run ends.
    let stop = StopHandle::new();
    let mut listener = None;
    if let Some(q) = &live {
        if opts.stdin_requests {
            spawn_stdin(q.clone(), Arc::clone(&clock), stop.clone())
                .map_err(PipelineError::thread(
                    "reading requests from standard input",
                ))?
                .detach();
        }
        if let Some(addr) = &opts.requests_listen {
            let sa: std::net::SocketAddr = addr.parse().map_err(|_| {
                PipelineError::Options(format!("--requests-listen {addr}: not an IP:PORT address"))
            })?;
            let (bound, worker) = spawn_socket(sa, q.clone(), Arc::clone(&clock), stop.clone())
                .map_err(|source| PipelineError::Requests {
                    what: format!("listening for requests on {addr}"),
                    source: Box::new(source),
                })?;
            log::info!("requests: listening on {bound}");
            listener = Some(worker);
        }
    }
    let Preloaded {
        mut lm,
        ocr,
        detector,
        voice,
        likeness,
    } = pre;
    notes.extend(lm.note.clone());
    notes.extend(lm.notes.iter().cloned());
    lm.follow_budget(&dials.prefill);
    let mut consumers: Vec<Box<dyn Consumer>> = Vec::new();
    if let Some(log) = &view {
        consumers.push(Box::new(crate::view::ViewConsumer::new(log.clone())));
    }
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
    let started = start_assistant(
        SessionOptions {
            out_dir: dir,
            requests: requests.as_deref(),
            audio: opts.audio,
            generator: lm.generator.take(),
            live: live.clone(),
            ambient_every_ns: opts.ambient_every_ns(),
            speech_rate_wpm: opts.speech_rate_wpm,
            verbosity: opts.verbosity,
            answer_voice: opts.answer_voice,
            taps: super::view::taps(view.as_ref()),
        },
        Arc::clone(&clock),
    )
    .map_err(|e| PipelineError::Assistant(Box::new(e)))?;
    if let Some(why) = &started.fallback_reason {
        notes.push(why.clone());
    }
    log::info!(
        "assistant: {} scripted request(s), speech to {}",
        started.scripted,
        started.sink
    );
    let mut started_assistant = started.assistant;
    match likeness {
        Some(Ok(l)) => started_assistant.set_likeness(l),
        Some(Err(e)) => {
            let n = format!(
                "questions no rule understands are not typed by likeness: {e} (run models/fetch)"
            );
            log::warn!("{n}");
            notes.push(n);
        }
        None => notes.push("likeness off (--no-likeness)".into()),
    }
    let assistant = Arc::new(Mutex::new(started_assistant));
    // Real time: live requests are answered when made, not at the next perception state.
    let pump = if clock.is_real_time() {
        RequestPump::start(Arc::clone(&assistant))
            .map_err(PipelineError::thread("the request thread"))?
    } else {
        None
    };
    let perception_report: PerceptionReportSlot = Arc::default();
    let mut sink = lm.wrap_sink(SharedSink(Arc::clone(&assistant)));
    if let Some(log) = &view {
        sink = Box::new(super::view::ViewTap::new(sink, log.clone()));
    }
    let mut consumer =
        PerceptionConsumer::new(engine, sink).with_report(Arc::clone(&perception_report));
    if let Some(log) = &view {
        consumer = consumer.with_depth_tap(super::view::depth_tap(log.clone()));
    }

    let mut voice_stats = None;
    match (voice, &live) {
        (None, _) => {}
        (Some(_), _) if !streams.contains(&StreamId::Audio) => {
            notes.push("no audio stream: the wearer cannot be heard (--voice-requests)".into());
        }
        (Some(Err(e)), _) => {
            let n = format!("listening unavailable: {e} (run models/fetch)");
            log::warn!("{n}");
            notes.push(n);
        }
        (Some(Ok(models)), Some(q)) => {
            let (c, stats) = super::voice::voice_consumer(
                models,
                q.clone(),
                &assistant,
                Arc::clone(&clock),
                link.is_some(),
                opts.wake.clone(),
            );
            consumers.push(c);
            voice_stats = Some(stats);
        }
        (Some(Ok(_)), None) => {}
    }

    let mut text_stats = None;
    if !opts.sight.read_text {
        notes.push("text reading off (--no-ocr)".into());
    } else if !streams.contains(&StreamId::CameraRgb) {
        let n = "no RGB camera: cannot read text".to_string();
        if !notes.contains(&n) {
            notes.push(n);
        }
    } else {
        let stats = Arc::new(TextReadStats::new());
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
        let reader = match ocr {
            Some(Ok(e)) => text_reader(
                e,
                text_calibration,
                clock.is_real_time(),
                Arc::clone(&stats),
                &dials,
            ),
            Some(Err(e)) => Err(e),
            None => Err("PP-OCR was not loaded".to_string()),
        };
        match reader {
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
                let n = format!("text reading unavailable: {e}");
                log::warn!("{n}");
                notes.push(n);
            }
        }
    }
    let mut object_stats = None;
    if !opts.sight.objects {
        notes.push("object detection off (--no-objects)".into());
    } else if !streams.contains(&StreamId::CameraRgb) {
        notes.push("no RGB camera: cannot tell what things are".into());
    } else {
        let seer = match detector {
            Some(Ok(d)) if clock.is_real_time() => {
                DetectorSeer::threaded(d, OBJECTS_MIN_INTERVAL_NS)
                    .map_err(|e| format!("starting the detector's thread: {e}"))
            }
            Some(Ok(d)) => Ok(DetectorSeer::inline(d, OBJECTS_MIN_INTERVAL_NS)),
            Some(Err(e)) => Err(e),
            None => Err("the detector was not loaded".to_string()),
        };
        match seer {
            Ok(seer) => {
                object_stats = Some(seer.stats());
                let seer = seer.with_dial(dials.objects.clone());
                consumer = consumer.with_object_seer(Box::new(seer));
            }
            Err(e) => {
                let n = format!("object detection unavailable: {e}");
                log::warn!("{n}");
                notes.push(n);
            }
        }
    }
    if !opts.sight.stereo_depth {
        notes.push("stereo depth off (--no-depth)".into());
    } else if !slam_pair {
        notes.push("no SLAM camera pair: no stereo depth (moving people are unseen)".into());
    } else {
        match inputs.calibration.as_ref().map(|c| {
            crate::perception::stereo::StereoDepth::new(
                c,
                crate::perception::stereo::StereoConfig::default(),
            )
        }) {
            Some(Ok(stereo)) => {
                consumer = consumer.with_depth(crate::perception::depth_input::DepthInput::new(
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
    // Where the pose is derived: its position from visual odometry on the SLAM pair.
    let odometry = if !derive_pose {
        None
    } else if !opts.sight.odometry {
        notes.push("derived position by counted steps (visual odometry: --odometry): it drifts, and height is not tracked".into());
        None
    } else if !slam_pair {
        notes.push("no SLAM camera pair: the derived position is by counted steps (it drifts, and height is not tracked)".into());
        None
    } else {
        match inputs
            .calibration
            .as_ref()
            .map(|c| crate::perception::stereo::Rectification::slam_pair(c, &Default::default()))
        {
            Some(Ok(rect)) => {
                notes.push("derived position from visual odometry on the SLAM cameras (by counted steps while it has no track)".into());
                Some(StereoOdometry::new(rect, OdometryConfig::default()))
            }
            Some(Err(e)) => {
                let n = format!(
                    "visual odometry unavailable: {e}; the derived position is by counted steps"
                );
                log::warn!("{n}");
                notes.push(n);
                None
            }
            None => {
                notes.push("no calibration: the derived position is by counted steps".into());
                None
            }
        }
    };
    if !opts.sight.movers {
        notes.push("vehicle detection off (--no-movers)".into());
    } else if !slam_pair {
        notes.push("no SLAM cameras: vehicles coming from the side are unseen".into());
    } else {
        match inputs.calibration.as_ref().map(|c| {
            crate::perception::movers::MoverInput::new(
                c,
                crate::perception::movers::MoverConfig::default(),
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
    let budget = match opts.cpu_budget_cores {
        Some(b) if clock.is_real_time() => Some(
            super::budget::BudgetKeeper::start(b, dials)
                .map_err(PipelineError::thread("the CPU budget's thread"))?,
        ),
        _ => None,
    };
    Ok((
        AssistantRun {
            dir: dir.to_path_buf(),
            truth: inputs.truth,
            label: inputs.label,
            assistant,
            clock: session_clock,
            ocr: text_stats.is_some(),
            text_stats,
            object_stats,
            perception_report,
            voice_stats,
            timeline: trace,
            notes,
            lm,
            _pump: pump,
            _requests_stop: StopOnDrop(stop),
            _requests_listener: listener,
            budget,
            budget_cores: opts.cpu_budget_cores,
            derive_pose: derive_pose.then_some(PoseDerivation { models, odometry }),
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
    dials: &crate::budget::Dials,
) -> Result<Box<dyn TextReader>, String> {
    let geometry = calibration.and_then(|c| RgbGeometry::from_device(c, "camera-rgb"));
    let cfg = ReaderConfig {
        mode: ReadMode::Synchronous,
        ..ReaderConfig::default()
    };
    let inner = OcrReader::new(engine, geometry, cfg).map_err(|e| error_chain(&e))?;
    Ok(Box::new(
        ProfiledReader::new(Box::new(inner), OCR_MIN_INTERVAL_NS, threaded, stats)
            .map_err(|e| format!("starting the text-reading thread: {e}"))?
            .with_dial(dials.text_reads.clone()),
    ))
}

/// An error and its causes, `: `-separated.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

/// Text is read at most this often (device time): signs do not change between frames, and
/// one read costs ~0.3–1 s of one core on this class of machine.
const OCR_MIN_INTERVAL_NS: i64 = 1_000_000_000;

/// At most one RGB frame per this much capture time goes to the object detector (2 Hz: about
/// 5 % of a core at 24 ms a frame; what it sees lasts seconds, a hazard is alerted from
/// geometry without it).
const OBJECTS_MIN_INTERVAL_NS: i64 = 500_000_000;
