//! A run on live input from the glasses' bridge or `vista device-sim`, with the assistant
//! when asked. The assistant's models load before the link is opened or accepted; the
//! socket is then read on its own thread; the first moments are read ahead (origin, image
//! sizes) so the hello's calibration is rescaled to what is streamed; device time maps to
//! host time through the live clock-offset estimate. Live input has no point map and no
//! MPS-derived streams: `map` supplies a session's, merged by capture time; `truth` scores
//! the run against a session's ground truth.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::aria::calib::{CalibSource, DeviceCalibration};
use crate::eval::SessionClock;
use crate::perception::inertial_source::InertialPoseSource;
use crate::perception::load::load_points;
use crate::perception::{PerceptionInputs, SensorModels};
use crate::runtime::{ClockMode, RuntimeConfig};
use crate::source::live::overlay::{session_mps, MpsOverlay};
use crate::source::live::primed::{calibration_sizes, PrimeLimits, Primed};
use crate::source::live::protocol::Hello;
use crate::source::live::{LiveClock, LiveConfig, LiveSource, OffsetCell};
use crate::source::prefetch::PrefetchSource;
use crate::source::Source;

use super::assemble::{assemble, preload, Preloaded, RunSetting};
use super::inputs::{nominal_for, AssistantInputs};
use super::options::{clock_jump_ns, AssistantOptions, LiveInput};
use super::stream_report::{build_profile, render_live, LiveProfile};
use super::{outputs, Pipeline, PipelineError, RunOutcome, StreamProfile};

/// Samples read off the link ahead of the runtime: ~1.5 s of every Gen1 stream (IMUs at
/// 1 kHz + 800 Hz dominate), enough to cover the assistant's set-up.
const LIVE_READ_AHEAD: usize = 4096;

/// Runs `pipeline`, whose input is `input`.
pub(super) fn run(pipeline: Pipeline, input: LiveInput) -> Result<RunOutcome, PipelineError> {
    let mut config = RuntimeConfig::new(ClockMode::Live);
    config.stop = pipeline.stop.clone();
    config.handle_ctrl_c = pipeline.handle_signals;
    if pipeline.handle_signals {
        // From the start: a signal while waiting for the device (or after a goodbye with
        // `stay`) stops the run in order, with every output written.
        crate::runtime::stop_on_interrupt(&config.stop);
    }
    config.max_clock_jump_ns = clock_jump_ns(input.max_clock_jump_s);
    if input.listen {
        check_local(&input.address)?;
    }
    let mut live_config = LiveConfig::new(input.address.clone());
    live_config.listen = input.listen;
    live_config.token = input.token.clone();
    live_config.stay = input.stay;
    live_config.max_clock_jump = Duration::from_nanos(config.max_clock_jump_ns.unsigned_abs());
    live_config.stop = Some(config.stop.clone());
    live_config.reconnect_for = input.reconnect_for();
    if pipeline.assistant.is_none() && (input.map.is_some() || input.truth.is_some()) {
        return Err(PipelineError::Options(
            "--map and --truth need --speak DIR".into(),
        ));
    }
    if let Some(progress) = pipeline.progress {
        config.progress = Some(progress(0.0));
    }
    // The assistant's models (language model, PP-OCR) load before the link is opened or
    // accepted, so the first seconds of the stream are not held up behind them.
    // Before the models load: an unwritable recording path fails the run at once.
    let view = super::view::start(pipeline.view.as_ref())?;
    let view_log = view.as_ref().map(|(_, log)| log.clone());
    let pre = match &pipeline.assistant {
        Some(opts) => Some(preload(opts, true)?),
        None => None,
    };
    let mut source = LiveSource::new(live_config);
    let hello = source
        .connect()
        .map_err(|source| PipelineError::Connect {
            address: input.address.clone(),
            source: Box::new(source),
        })?
        .clone();
    let stats = source.stats();
    let (report, spoken) = match (&pipeline.assistant, pre) {
        (Some(opts), Some(pre)) => {
            let (report, run) = run_spoken(&input, opts, source, &hello, config, pre, view_log)?;
            (report, Some(run))
        }
        _ => {
            let mut consumers: Vec<Box<dyn crate::runtime::Consumer>> = Vec::new();
            if let Some(log) = &view_log {
                log.send(crate::view::ViewItem::Start {
                    label: input.address.clone(),
                    device_from_cpf: None,
                });
                consumers.push(Box::new(crate::view::ViewConsumer::new(log.clone())));
            }
            let report =
                crate::runtime::run(Box::new(source), config, consumers).map_err(|source| {
                    PipelineError::Runtime {
                        what: "live run",
                        source: Box::new(source),
                    }
                })?;
            (report, None)
        }
    };
    let mut profile = LiveProfile {
        base: build_profile(
            PathBuf::from(&input.address),
            "live",
            None,
            &report,
            String::new(),
        ),
        link: stats.report(),
    };
    profile.base.rerun = view.map(|(recorder, _)| super::view::finish(recorder));
    let stream_table = render_live(&profile);
    outputs::conclude(
        profile,
        stream_table,
        pipeline.profile_file.as_deref(),
        spoken,
        report.stop_reason,
        StreamProfile::Live,
    )
}

/// A device may connect to a listening run from this machine only (a Unix socket, or a
/// loopback address): the live link carries no authentication of the device.
fn check_local(addr: &str) -> Result<(), PipelineError> {
    if addr.starts_with(crate::source::live::link::UNIX_PREFIX) {
        return Ok(());
    }
    use std::net::ToSocketAddrs;
    let resolved: Vec<_> = addr
        .to_socket_addrs()
        .map_err(|e| {
            PipelineError::Options(format!("--listen {addr}: not a host:port address: {e}"))
        })?
        .collect();
    if resolved.is_empty() || resolved.iter().any(|a| !a.ip().is_loopback()) {
        return Err(PipelineError::Options(format!(
            "--listen {addr}: only loopback addresses or unix:/path are allowed"
        )));
    }
    Ok(())
}

/// The assistant on live input: reads the first moments ahead (origin, image sizes), sets
/// the assistant up on the live clock and runs.
fn run_spoken(
    input: &LiveInput,
    opts: &AssistantOptions,
    source: LiveSource,
    hello: &Hello,
    mut config: RuntimeConfig,
    pre: Preloaded,
    view: Option<crate::view::ViewLog>,
) -> Result<(crate::runtime::RunReport, super::assemble::AssistantRun), PipelineError> {
    // The link's counters, shared with the caller's (the trace shows them).
    let stats = source.stats();
    let offset = source.offset_cell();
    // The socket is read on its own thread from here on, so that setting the assistant up
    // (and any stall of the runtime) never holds the link: arrival stamps and link latency
    // stay true, and the device never blocks on a full socket buffer.
    let source = PrefetchSource::spawn(Box::new(source), LIVE_READ_AHEAD)
        .map_err(PipelineError::thread("the live read thread"))?;
    let primed = Primed::new(source, PrimeLimits::default());
    let first = primed
        .first_capture()
        .ok_or_else(|| PipelineError::NoSample {
            address: input.address.clone(),
        })?;
    let sizes = calibration_sizes(primed.image_sizes(), hello);
    let mut inputs = live_inputs(input, hello, &sizes)?;
    let source: Box<dyn Source> = match &input.map {
        Some(map) => {
            let mps = map_mps(map)?;
            let overlay = MpsOverlay::new(primed, &mps).map_err(|e| PipelineError::Map {
                path: map.clone(),
                what: "reading its MPS streams",
                source: Box::new(e),
            })?;
            Box::new(overlay)
        }
        None => Box::new(primed),
    };
    inputs.streams = source.streams();
    // With a --map overlay, MPS's trajectory, gaze and hands join what the glasses stream.
    inputs.from_mps = if input.map.is_some() {
        inputs
            .streams
            .iter()
            .copied()
            .filter(|s| s.is_derived())
            .collect()
    } else {
        Vec::new()
    };
    // Live glasses stream no trajectory: without a map the pose is derived from the IMU.
    inputs.derive_pose_if_missing();
    let clock: Arc<dyn crate::time::Clock> = Arc::new(LiveClock::new(offset.clone()));
    config.clock = Some((first, Arc::clone(&clock)));
    let setting = RunSetting {
        clock,
        origin: first,
        rate: 1.0,
        link: Some(stats),
        options: opts,
        view,
    };
    let (mut run, consumers) = assemble(setting, inputs, pre)?;
    let source: Box<dyn Source> = match run.derive_pose.clone() {
        Some(d) => Box::new(InertialPoseSource::derived(source, d)),
        None => source,
    };
    let report = crate::runtime::run(source, config, consumers).map_err(|source| {
        PipelineError::Runtime {
            what: "live run",
            source: Box::new(source),
        }
    })?;
    run.set_session_clock(session_clock(first.ns(), &offset));
    Ok((report, run))
}

/// The MPS files of the `--map` session.
fn map_mps(map: &Path) -> Result<crate::aria::mps::MpsFiles, PipelineError> {
    session_mps(map).map_err(|source| PipelineError::NamedSession {
        option: "--map",
        path: map.to_path_buf(),
        source: Box::new(source),
    })
}

/// The session clock of a live run: device time `origin_ns` maps to host time through the
/// offset estimated at the end (host = device + offset); without one, host = device.
fn session_clock(origin_ns: i64, offset: &OffsetCell) -> SessionClock {
    let o = offset.get().unwrap_or(0);
    SessionClock {
        origin_device_ns: origin_ns,
        origin_host_ns: origin_ns.saturating_add(o),
        rate: 1.0,
    }
}

/// What the assistant gets from live input: the hello's calibration at the streamed image
/// sizes, the map session's points, the truth session's requests and ground truth.
fn live_inputs(
    input: &LiveInput,
    hello: &Hello,
    sizes: &[(String, u32, u32)],
) -> Result<AssistantInputs, PipelineError> {
    let mut notes = Vec::new();
    let calibration = if hello.calib_json.is_empty() {
        None
    } else {
        let src = CalibSource::Named(format!(
            "calibration in the hello of {} on {}",
            hello.device_serial, input.address
        ));
        // The live source refused a calibration that does not parse; one that does not fit
        // the streamed image sizes is refused here, for this run's geometry only.
        match DeviceCalibration::from_json_str_with_source(&hello.calib_json, src)
            .and_then(|c| c.with_recorded_sizes(sizes))
        {
            Ok(c) => Some(c),
            Err(e) => {
                log::warn!("{e}; going on without it");
                notes.push(format!("the hello's calibration was refused: {e}"));
                None
            }
        }
    };
    let models = match &calibration {
        Some(c) => SensorModels::from_calibration(c),
        None => {
            notes.push(format!(
                "{}: the hello carries no calibration: sensor axes assumed",
                input.address
            ));
            SensorModels::default()
        }
    };
    let points = match &input.map {
        Some(map) => {
            let mps = map_mps(map)?;
            load_points(&mps, &mut notes)
                .map_err(|e| PipelineError::Map {
                    path: map.clone(),
                    what: "reading its points",
                    source: Box::new(e),
                })?
                .map(Arc::new)
        }
        None => {
            let own = if hello
                .known_streams()
                .contains(&crate::sample::StreamId::DevicePose)
            {
                "the glasses send their own pose, eye gaze and hands"
            } else {
                "and no pose, eye gaze or hands"
            };
            notes.push(format!(
                "live input has no point map ({own}): pass --map SESSION for a mapped place"
            ));
            None
        }
    };
    let (default_requests, truth) = match &input.truth {
        Some(t) => truth_session(t)?,
        None => (None, None),
    };
    Ok(AssistantInputs {
        from_mps: Vec::new(),
        // What the device announced: Gen2's own pose, gaze and hands are live streams.
        streams: hello.known_streams(),
        perception: PerceptionInputs {
            models,
            points,
            notes,
        },
        nominal_calibration: calibration.is_none().then(|| nominal_for(sizes)).flatten(),
        calibration,
        default_requests,
        truth,
        label: format!("live {} on {}", hello.device_serial, input.address),
        derive_pose: false,
    })
}

/// The requests file and root of the session `t` named to score against (it must hold
/// `ground_truth.json`).
fn truth_session(t: &Path) -> Result<(Option<PathBuf>, Option<PathBuf>), PipelineError> {
    let files = crate::source::session_files::SessionFiles::locate(t).map_err(|source| {
        PipelineError::NamedSession {
            option: "--truth",
            path: t.to_path_buf(),
            source: Box::new(source),
        }
    })?;
    let root = files.root;
    if !root.join("ground_truth.json").is_file() {
        return Err(PipelineError::Options(format!(
            "--truth {}: no ground_truth.json",
            root.display()
        )));
    }
    let r = root.join("requests.jsonl");
    Ok((r.is_file().then_some(r), Some(root)))
}
