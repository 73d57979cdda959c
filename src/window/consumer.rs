//! The window builder as a runtime [`Consumer`]: drains the grid streams' new samples into
//! a [`WindowBuilder`] and, every `update_ns` of device time, rebuilds the window at the
//! newest capture and hands it to a sink.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::buffer::Reader;
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::Sample;
use crate::sample::StreamId;
use crate::time::HostTime;
use crate::window::builder::WindowBuilder;
use crate::window::extract::SOURCES;
use crate::window::frames::{
    causal_indices_into, uniform_indices_into, FrameSampling, SharedFrameCache, WindowFrame, FRAMES,
};
use crate::window::imu_resample::{ImuResampler, ImuWindow};
use crate::window::tensor::SensorWindow;

/// One update of the window consumer (borrowed: copy what must outlive the sink call; the
/// frames are shared `Arc`s).
#[derive(Clone, Copy, Debug)]
pub struct WindowUpdate<'a> {
    /// The five grid streams.
    pub window: &'a SensorWindow,
    /// The window's RGB frames (empty without [`WindowConsumer::with_frames`]).
    pub frames: &'a [Arc<WindowFrame>],
    /// The fixed-rate IMU window (with [`WindowConsumer::with_imu_window`]).
    pub imu: Option<&'a ImuWindow>,
}

/// Receives every update.
pub type WindowSink = Box<dyn FnMut(WindowUpdate<'_>) + Send>;

/// The fixed-rate IMU window's state.
struct ImuState {
    resampler: ImuResampler,
    window: ImuWindow,
}

/// The RGB frames of the recent past and how to pick the window's 8.
struct FrameState {
    cache: SharedFrameCache,
    sampling: FrameSampling,
    held: VecDeque<Sample>,
    capacity: usize,
    times: Vec<i64>,
    picked: Vec<usize>,
    frames: Vec<Arc<WindowFrame>>,
}

/// A [`Consumer`] that keeps the sensor window up to date.
pub struct WindowConsumer {
    name: String,
    builder: WindowBuilder,
    window: SensorWindow,
    update_ns: i64,
    next_update_ns: i64,
    updates: u64,
    sink: WindowSink,
    frames: Option<FrameState>,
    imu: Option<ImuState>,
}

impl std::fmt::Debug for WindowConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowConsumer")
            .field("name", &self.name)
            .field("update_ns", &self.update_ns)
            .field("updates", &self.updates)
            .finish()
    }
}

impl WindowConsumer {
    /// Rebuilds the window every `update_ns` of device time (10 Hz: 100 ms; at least 1 ns)
    /// and calls `sink` with it.
    pub fn new(builder: WindowBuilder, update_ns: i64, sink: WindowSink) -> Self {
        Self {
            name: "window".to_string(),
            builder,
            window: SensorWindow::new(),
            update_ns: update_ns.max(1),
            next_update_ns: i64::MIN,
            updates: 0,
            sink,
            frames: None,
            imu: None,
        }
    }

    /// Also hands out the fixed-rate IMU window (for the IMU encoder), ending at each
    /// update's end.
    pub fn with_imu_window(mut self, resampler: ImuResampler) -> Self {
        let window = resampler.new_window();
        self.imu = Some(ImuState { resampler, window });
        self
    }

    /// Also hands out the window's 8 RGB frames, picked by `sampling`, decoded and resized
    /// through `cache` (shared with other consumers: each frame is decoded once).
    pub fn with_frames(mut self, cache: SharedFrameCache, sampling: FrameSampling) -> Self {
        // 30 fps over the window plus margin; RGB samples share their JPEG bytes.
        let length_s = self.builder.config().length_ns() as f64 * 1e-9;
        let capacity = (length_s * 30.0).ceil() as usize + 16;
        self.frames = Some(FrameState {
            cache,
            sampling,
            held: VecDeque::with_capacity(capacity),
            capacity,
            times: Vec::with_capacity(capacity),
            picked: Vec::with_capacity(FRAMES),
            frames: Vec::with_capacity(FRAMES),
        });
        self
    }

    /// Windows built so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The builder (counters, configuration).
    pub fn builder(&self) -> &WindowBuilder {
        &self.builder
    }
}

impl Consumer for WindowConsumer {
    fn name(&self) -> &str {
        &self.name
    }

    fn wants(&self, stream: StreamId) -> bool {
        SOURCES.contains(&stream) || (stream == StreamId::CameraRgb && self.frames.is_some())
    }

    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        for s in SOURCES {
            let b = &mut self.builder;
            let imu = &mut self.imu;
            reader.drain_new(s, |sample| {
                b.push(sample);
                if let Some(i) = imu.as_mut() {
                    i.resampler.push(sample);
                }
            });
        }
        if let Some(f) = self.frames.as_mut() {
            reader.drain_new(StreamId::CameraRgb, |s| {
                if f.held.len() >= f.capacity {
                    f.held.pop_front();
                }
                f.held.push_back(s.clone());
            });
        }
        let Some(newest) = self.builder.newest() else {
            return Ok(());
        };
        if newest.ns() >= self.next_update_ns {
            self.builder.snapshot(newest, &mut self.window)?;
            self.updates += 1;
            let length = self.builder.config().length_ns();
            let frames: &[Arc<WindowFrame>] = match self.frames.as_mut() {
                Some(f) => {
                    f.pick(newest.ns(), length)?;
                    &f.frames
                }
                None => &[],
            };
            let imu = self.imu.as_mut().map(|i| {
                i.resampler.resample(newest, &mut i.window);
                &i.window
            });
            (self.sink)(WindowUpdate {
                window: &self.window,
                frames,
                imu,
            });
            self.next_update_ns = newest
                .ns()
                .div_euclid(self.update_ns)
                .saturating_add(1)
                .saturating_mul(self.update_ns);
        }
        Ok(())
    }
}

impl FrameState {
    /// Picks the window's frames (ending at `t_end_ns`) and fetches them from the cache.
    fn pick(&mut self, t_end_ns: i64, length_ns: i64) -> Result<(), ConsumerError> {
        self.times.clear();
        self.times.extend(self.held.iter().map(|s| s.capture.ns()));
        match self.sampling {
            FrameSampling::Uniform => uniform_indices_into(
                &self.times,
                t_end_ns.saturating_sub(length_ns),
                t_end_ns,
                FRAMES,
                &mut self.picked,
            ),
            FrameSampling::Causal { stride } => {
                causal_indices_into(&self.times, t_end_ns, FRAMES, stride, &mut self.picked)
            }
        }
        self.frames.clear();
        let mut cache = self
            .cache
            .lock()
            .map_err(|_| "frame cache poisoned by a panicked consumer")?;
        for &i in &self.picked {
            if let Some(s) = self.held.get(i) {
                self.frames.push(cache.get(s)?);
            }
        }
        Ok(())
    }
}
