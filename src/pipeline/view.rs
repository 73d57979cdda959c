//! A run's Rerun recording, wired in (`--rerun`, `--rerun-connect`): started before the
//! models load (an unwritable path fails the run there, named), the glasses' streams offered
//! by a runtime consumer, perception's states and hazards by a tap in front of the
//! assistant, decisions and the transcript as they are written, the point map and the ground
//! truth once; finished (drained and flushed) when the runtime ends, its counts in the
//! stream profile.

use std::path::Path;
use std::sync::Arc;

use crate::assistant::run_start::RunTaps;
use crate::jsonl::LineTap;
use crate::state::{EnvironmentState, HazardEvent, PerceptionSink};
use crate::time::HostTime;
use crate::view::{Stamp, TruthMark, ViewItem, ViewLog, ViewRecorder, ViewTarget};

use super::inputs::AssistantInputs;
use super::PipelineError;

/// The state's text is rendered for the recording at most this often (device time), ns.
const STATE_TEXT_EVERY_NS: i64 = 1_000_000_000;

/// Starts the recording, when one is asked for.
pub(super) fn start(
    target: Option<&ViewTarget>,
) -> Result<Option<(ViewRecorder, ViewLog)>, PipelineError> {
    target
        .map(|t| ViewRecorder::start(t).map_err(|e| PipelineError::Options(e.to_string())))
        .transpose()
}

/// Offers what a session holds before it starts: its name and the central pupil frame, the
/// static point map, and the ground truth when there is one.
pub(super) fn offer_session(log: &ViewLog, inputs: &AssistantInputs) {
    log.send(ViewItem::Start {
        label: inputs.label.clone(),
        device_from_cpf: inputs.calibration.as_ref().map(|c| c.t_device_cpf()),
    });
    if let Some(map) = &inputs.perception.points {
        log.send(ViewItem::PointMap {
            points: map.points().iter().map(|p| p.p).collect(),
        });
    }
    if let Some(session) = &inputs.truth {
        match truth_marks(session) {
            Ok(hazards) => log.send(ViewItem::Truth { hazards }),
            Err(e) => log::warn!("rerun: the ground truth is not shown: {e}"),
        }
    }
}

/// The ground truth's hazards of the session at `session`.
fn truth_marks(session: &Path) -> Result<Vec<TruthMark>, crate::eval::EvalError> {
    let truth: crate::eval::truth::GroundTruthFile =
        crate::eval::load::read_json(&session.join("ground_truth.json"))?;
    Ok(truth
        .hazards
        .iter()
        .map(|h| TruthMark {
            label: h.label.clone(),
            kind: serde_json::to_value(h.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            position_m: h.position_m,
            window_ns: (h.relevant_from_ns, h.latest_alert_ns),
        })
        .collect())
}

/// What shows the recording the run's decisions and transcript.
pub(super) fn taps(log: Option<&ViewLog>) -> RunTaps {
    let Some(log) = log else {
        return RunTaps::default();
    };
    let (d, t) = (log.clone(), log.clone());
    RunTaps {
        decisions: Some(LineTap::new(move |d_: &crate::state::Decision| {
            d.send(ViewItem::Decision {
                stamp: Stamp {
                    device_ns: d_.state_at_ns,
                    host_ns: d_.decided_ns,
                },
                decision: Box::new(d_.clone()),
            })
        })),
        transcript: Some(LineTap::new(
            move |e: &crate::speech::transcript::TranscriptEntry| {
                t.send(ViewItem::Spoken {
                    stamp: Stamp {
                        device_ns: e.capture_ns,
                        host_ns: e.first_audio_ns.unwrap_or(e.end_ns),
                    },
                    entry: Box::new(e.clone()),
                })
            },
        )),
    }
}

/// The live map is offered with a depth frame at most this often (device time), ns.
const LIVE_MAP_EVERY_NS: i64 = 1_000_000_000;

/// What shows the recording each stereo depth frame (and the live map, once a second).
pub(super) fn depth_tap(log: ViewLog) -> crate::perception::consumer::DepthTap {
    let mut last_map_ns: Option<i64> = None;
    Box::new(move |capture_ns, now, kept, live_map| {
        let map = match (live_map, last_map_ns) {
            (Some(m), None) => Some(m),
            (Some(m), Some(last)) if !(0..LIVE_MAP_EVERY_NS).contains(&(capture_ns - last)) => {
                Some(m)
            }
            _ => None,
        };
        if map.is_some() {
            last_map_ns = Some(capture_ns);
        }
        log.send(ViewItem::Depth {
            stamp: Stamp {
                device_ns: capture_ns,
                host_ns: now.ns(),
            },
            kept: kept.to_vec(),
            live_map: map,
        });
    })
}

/// Shows perception's states and hazards to the recording, then forwards them.
pub(super) struct ViewTap {
    inner: Box<dyn PerceptionSink>,
    log: ViewLog,
    last_text_ns: Option<i64>,
}

impl ViewTap {
    /// Wraps `inner`.
    pub(super) fn new(inner: Box<dyn PerceptionSink>, log: ViewLog) -> Self {
        Self {
            inner,
            log,
            last_text_ns: None,
        }
    }
}

impl PerceptionSink for ViewTap {
    fn on_hazard(&mut self, event: &HazardEvent) {
        self.log.send(ViewItem::Hazard {
            stamp: Stamp {
                device_ns: event.evidence.ns(),
                host_ns: event.raised.ns(),
            },
            event: Box::new(event.clone()),
        });
        self.inner.on_hazard(event);
    }

    fn on_state(&mut self, state: &Arc<EnvironmentState>, now: HostTime) {
        let at = state.at.ns();
        let text = match self.last_text_ns {
            Some(last) if (0..STATE_TEXT_EVERY_NS).contains(&(at - last)) => None,
            _ => {
                self.last_text_ns = Some(at);
                Some(crate::assistant::render::render_state(state))
            }
        };
        self.log.send(ViewItem::State {
            stamp: Stamp {
                device_ns: at,
                host_ns: now.ns(),
            },
            state: Arc::clone(state),
            text,
        });
        self.inner.on_state(state, now);
    }

    fn finish(&mut self) {
        self.inner.finish();
    }
}

/// Ends the recording: what is queued is logged and flushed; returns its counts.
pub(super) fn finish(recorder: ViewRecorder) -> crate::view::ViewReport {
    let r = recorder.finish();
    log::info!(
        "rerun: {} item(s) logged to {}, {} dropped, {} refused",
        r.logged,
        r.target,
        r.dropped,
        r.failed
    );
    r
}
