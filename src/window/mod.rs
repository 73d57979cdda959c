//! The VISTA sensor window: the exact inputs of the paper's multimodal model, built
//! causally and incrementally from the ring buffers.
//!
//! * Five sensor streams ([`GridStream`]: IMU, magnetometer/barometer, eye gaze, hands,
//!   trajectory) are aggregated onto a [`BINS`]-bin grid over `[t_end − length, t_end]`
//!   (default 6.4 s, [`DEFAULT_BIN_NS`]) with one rule per slot ([`Aggregation`]) and a
//!   validity mask per bin; channels are documented in `docs/window-channels.md`.
//! * [`WindowBuilder`] adds samples in O(1) and reads a window in O(BINS) with no
//!   allocation; [`window_at`] is the offline twin over a whole clip (bit-identical).
//! * [`NormStats`] holds per-channel training statistics (`vista stats`), applied by the
//!   builder.
//! * [`ImuResampler`] makes fixed-rate IMU windows for a pretrained IMU encoder
//!   (200 Hz × 5 s by default).
//! * [`frames`] picks the 8 RGB frames (uniform or causal) and decodes and resizes each
//!   once ([`FrameCache`]); [`replay_windows`] reads recorded sessions.
//! * [`moment_report`] shows one moment's window (`vista window`).
//! * [`split_stats`] computes the statistics over a training split (`vista stats`).
//! * [`WindowConsumer`] runs all of it as a runtime consumer, handing every update
//!   ([`WindowUpdate`]) to a sink.
//!
//! Pure compute (`spec`, `extract`, `bins`, `features`, `norm`) is separate from I/O.

pub mod bins;
pub mod builder;
pub mod config;
pub mod consumer;
pub mod error;
pub mod extract;
pub mod features;
pub mod frames;
pub mod imu_resample;
pub mod moment_report;
pub mod norm;
pub mod rectify;
pub mod replay_windows;
pub mod resize;
pub mod spec;
pub mod split_stats;
pub mod tensor;

pub use builder::{window_at, WindowBuilder, WindowCounters};
pub use config::{WindowConfig, DEFAULT_BIN_NS};
pub use consumer::{WindowConsumer, WindowSink, WindowUpdate};
pub use error::WindowError;
pub use frames::{FrameCache, FrameSampling, SharedFrameCache, WindowFrame, FRAMES};
pub use imu_resample::{ImuResampler, ImuWindow, ImuWindowConfig};
pub use norm::{NormStats, NormTable, StatsAccumulator, Welford};
pub use rectify::Rectifiers;
pub use spec::{Aggregation, GridStream, BINS};
pub use tensor::{SensorWindow, StreamTensor};
