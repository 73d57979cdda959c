//! The window builder as a runtime [`Consumer`]: drains the grid streams' new samples into
//! a [`WindowBuilder`] and, every `update_ns` of device time, rebuilds the window at the
//! newest capture and hands it to a sink.

use crate::buffer::Reader;
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::StreamId;
use crate::time::HostTime;
use crate::window::builder::WindowBuilder;
use crate::window::extract::SOURCES;
use crate::window::tensor::SensorWindow;

/// Receives every rebuilt window (borrowed: copy what must outlive the call).
pub type WindowSink = Box<dyn FnMut(&SensorWindow) + Send>;

/// A [`Consumer`] that keeps the sensor window up to date.
pub struct WindowConsumer {
    name: String,
    builder: WindowBuilder,
    window: SensorWindow,
    update_ns: i64,
    next_update_ns: i64,
    updates: u64,
    sink: WindowSink,
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
        }
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
        SOURCES.contains(&stream)
    }

    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        for s in SOURCES {
            let b = &mut self.builder;
            reader.drain_new(s, |sample| b.push(sample));
        }
        let Some(newest) = self.builder.newest() else {
            return Ok(());
        };
        if newest.ns() >= self.next_update_ns {
            self.builder.snapshot(newest, &mut self.window)?;
            self.updates += 1;
            (self.sink)(&self.window);
            self.next_update_ns = newest
                .ns()
                .div_euclid(self.update_ns)
                .saturating_add(1)
                .saturating_mul(self.update_ns);
        }
        Ok(())
    }
}
