//! A replay of a recorded session through the runtime, with the assistant when asked: the
//! session is opened, the models load before the clock starts, the device pose is derived
//! from the IMU when the input has none, records are read ahead on their own thread in real
//! time, and every output is written after the run.

use std::sync::{Arc, Mutex};

use crate::perception::inertial_source::InertialPoseSource;
use crate::runtime::{ClockMode, Consumer, RuntimeConfig};
use crate::source::prefetch::PrefetchSource;
use crate::source::replay::{ReplayOptions, ReplaySource};
use crate::source::Source;

use super::assemble::{assemble, preload, replay_clock, RunSetting};
use super::digest::{DigestConsumer, SequenceDigest};
use super::inputs::AssistantInputs;
use super::options::{clock_jump_ns, Pace, ReplayInput};
use super::stream_report::{build_profile, render};
use super::{outputs, Pipeline, PipelineError, RunOutcome, StreamProfile};

/// Samples read ahead of pacing: ~35 ms of both IMUs, bounding memory to a few images.
const PREFETCH_SAMPLES: usize = 64;

/// Runs `pipeline`, whose input is `input`.
pub(super) fn run(pipeline: Pipeline, input: ReplayInput) -> Result<RunOutcome, PipelineError> {
    if let Pace::RealTime { rate } = input.pace {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(PipelineError::Options(format!(
                "--rate must be a positive number (got {rate})"
            )));
        }
    }
    let options = ReplayOptions {
        from_s: input.from_s,
        to_s: input.to_s,
        extra_loops: input.extra_loops,
        recorded_only: input.recorded_only,
        max_clock_jump_ns: clock_jump_ns(input.max_clock_jump_s),
    };
    let source = ReplaySource::open(&input.session, options).map_err(|source| {
        PipelineError::OpenSession {
            path: input.session.clone(),
            source: Box::new(source),
        }
    })?;
    // Before the models load: an unwritable recording path fails the run at once.
    let view = super::view::start(pipeline.view.as_ref())?;
    let view_log = view.as_ref().map(|(_, log)| log.clone());
    let duration_s = source.duration_s() * f64::from(input.extra_loops + 1);
    log::info!("{} ({:.2} s of device time)", source.describe(), duration_s);

    let real_time = input.pace.is_real_time();
    let mode = match input.pace {
        Pace::RealTime { rate } => ClockMode::RealTime { rate },
        Pace::LockStep => ClockMode::Virtual,
    };
    let mut config = RuntimeConfig::new(mode);
    config.stop = pipeline.stop.clone();
    config.handle_ctrl_c = pipeline.handle_signals;
    if pipeline.handle_signals {
        // From here on: a signal while the models load stops the run before it starts, in
        // order.
        crate::runtime::stop_on_interrupt(&config.stop);
    }
    config.max_clock_jump_ns = clock_jump_ns(input.max_clock_jump_s);
    config.pacing_granularity_ns = i64::from(input.pacing_granularity_us) * 1_000;
    if let Some(progress) = pipeline.progress {
        config.progress = Some(progress(duration_s));
    }
    let digest = Arc::new(Mutex::new(SequenceDigest::default()));
    // The digest reads every byte of every sample, so it only runs when asked for.
    let mut consumers: Vec<Box<dyn Consumer>> = Vec::new();
    if input.digest {
        consumers.push(Box::new(DigestConsumer(Arc::clone(&digest))));
    }
    let spoken = match &pipeline.assistant {
        Some(opts) => {
            let origin = source.start_time();
            // Models load before the clock starts, so loading never delays the first samples.
            let pre = preload(opts, real_time)?;
            let clock = replay_clock(origin, real_time, input.pace.rate());
            let mut inputs = AssistantInputs::from_replay(&input.session, &source)?;
            if input.recorded_only {
                inputs.leave_out_mps_points();
            }
            inputs.derive_pose_if_missing();
            let setting = RunSetting {
                clock: Arc::clone(&clock),
                origin,
                rate: input.pace.rate(),
                link: None,
                options: opts,
                view: view_log.clone(),
            };
            let (run, speak_consumers) = assemble(setting, inputs, pre)?;
            config.clock = Some((origin, clock));
            consumers.extend(speak_consumers);
            Some(run)
        }
        None => {
            if let Some(log) = &view_log {
                log.send(crate::view::ViewItem::Start {
                    label: input.session.display().to_string(),
                    device_from_cpf: None,
                });
                consumers.push(Box::new(crate::view::ViewConsumer::new(log.clone())));
            }
            None
        }
    };
    // Without a device pose (recorded streams only, a session without MPS), the assistant's
    // run derives one from the IMU.
    let derive = spoken.as_ref().and_then(|r| r.derive_pose.clone());
    let source: Box<dyn Source> = match derive {
        Some(d) => Box::new(InertialPoseSource::derived(Box::new(source), d)),
        None => Box::new(source),
    };
    // In real time, record reads happen on a read-ahead thread so pacing never waits on
    // I/O. In lock step, one thread reading and delivering is faster (no hand-off).
    let source: Box<dyn Source> = if real_time {
        Box::new(
            PrefetchSource::spawn(source, PREFETCH_SAMPLES)
                .map_err(PipelineError::thread("the read-ahead thread"))?,
        )
    } else {
        source
    };
    let report = crate::runtime::run(source, config, consumers).map_err(|source| {
        PipelineError::Runtime {
            what: "replay",
            source: Box::new(source),
        }
    })?;
    let digest = if input.digest {
        digest.lock().map(|d| d.hex()).unwrap_or_default()
    } else {
        String::new()
    };
    let (mode, rate) = match input.pace {
        Pace::RealTime { rate } => ("real-time", Some(rate)),
        Pace::LockStep => ("asap", None),
    };
    let mut profile = build_profile(input.session.clone(), mode, rate, &report, digest);
    profile.rerun = view.map(|(recorder, _)| super::view::finish(recorder));
    let stream_table = render(&profile);
    outputs::conclude(
        profile,
        stream_table,
        pipeline.profile_file.as_deref(),
        spoken,
        report.stop_reason,
        StreamProfile::Replay,
    )
}
