//! The consumer side of the runtime: anything that reads the buffers (perception, frame
//! encoder, window builder) implements [`Consumer`] and runs on its own thread.

use crate::buffer::Reader;
use crate::sample::StreamId;
use crate::time::HostTime;

/// The error a consumer reports; it stops the run in order.
pub type ConsumerError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A stage that reads the buffers. Each consumer gets its own thread and its own
/// [`Reader`] (cursors and counters).
///
/// `on_samples` is called when new samples of a stream it [`wants`](Consumer::wants) have
/// been pushed; several pushes may be coalesced into one call, so it should drain everything
/// new (e.g. with [`Reader::drain_new`]). In [`crate::runtime::ClockMode::Virtual`] it is
/// called in lock step with ingest (ingest waits for every consumer), at deterministic
/// points, with a deterministic `now`: the same input gives the same calls. After the last
/// sample it is called once more, then `finish`.
pub trait Consumer: Send {
    /// A short name, used in logs, stats and the profile (stage name).
    fn name(&self) -> &str;
    /// Whether this consumer reads `stream` (asked once per stream at start): pushes of it
    /// wake the consumer (real-time modes), and only these streams (plus any it drains
    /// anyway) are accounted as delivered or dropped for it. Default: every stream.
    fn wants(&self, stream: StreamId) -> bool {
        let _ = stream;
        true
    }
    /// New samples are available. `now` is the clock's present (virtual time in lock-step
    /// mode). An error stops the run.
    fn on_samples(&mut self, reader: &mut Reader, now: HostTime) -> Result<(), ConsumerError>;
    /// The run is over (called exactly once, after the last `on_samples`).
    fn finish(&mut self) {}
}
