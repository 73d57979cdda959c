//! The incremental window builder (O(1) per sample, O(BINS) per window, no allocation after
//! construction) and the offline function over a whole clip, which runs the same code and
//! so gives bit-identical tensors.

use crate::sample::Sample;
use crate::time::DeviceTime;
use crate::window::bins::{AddOutcome, BinRing};
use crate::window::config::WindowConfig;
use crate::window::error::WindowError;
use crate::window::extract::{extract, source_index, source_layout, SOURCES};
use crate::window::features::{compute, ChannelGrid, GridRaw};
use crate::window::norm::{NormStats, NormTable};
use crate::window::rectify::Rectifiers;
use crate::window::spec::{GridStream, BINS};
use crate::window::tensor::SensorWindow;

/// What the builder has seen, for logs and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WindowCounters {
    /// Samples aggregated into a bin.
    pub added: u64,
    /// Observed values that were NaN or infinite (skipped; the rest of the sample counts).
    pub nan_values: u64,
    /// Samples whose bin had already left the ring (out of order by more than a window).
    pub too_late: u64,
    /// Samples of grid streams whose payload did not match the stream.
    pub mismatched: u64,
}

/// Builds windows from samples as they arrive.
///
/// Feed every sample of the grid streams with [`WindowBuilder::push`] (in capture order per
/// stream; streams may interleave in any way), then read the window ending at any moment at
/// or after the newest sample with [`WindowBuilder::snapshot`].
#[derive(Clone, Debug)]
pub struct WindowBuilder {
    config: WindowConfig,
    rings: [BinRing; SOURCES.len()],
    norm: Option<NormTable>,
    rectifiers: Option<Box<Rectifiers>>,
    newest_ns: i64,
    counters: WindowCounters,
}

impl WindowBuilder {
    /// A builder with no normalisation (raw channel values).
    pub fn new(config: WindowConfig) -> Result<Self, WindowError> {
        if config.bin_ns <= 0 {
            return Err(WindowError::Config(format!(
                "bin width {} ns must be positive",
                config.bin_ns
            )));
        }
        Ok(Self {
            config,
            rings: std::array::from_fn(|_| BinRing::new()),
            norm: None,
            rectifiers: None,
            newest_ns: i64::MIN,
            counters: WindowCounters::default(),
        })
    }

    /// Applies `stats` to every window from now on.
    pub fn with_norm(mut self, stats: &NormStats) -> Result<Self, WindowError> {
        if stats.bin_ns != self.config.bin_ns {
            return Err(WindowError::Config(format!(
                "statistics were computed with {} ns bins, the window uses {} ns",
                stats.bin_ns, self.config.bin_ns
            )));
        }
        self.norm = Some(stats.table().map_err(WindowError::Config)?);
        Ok(self)
    }

    /// Rectifies IMU, magnetometer and barometer samples with these models before
    /// aggregating them.
    pub fn with_rectifiers(mut self, rectifiers: Rectifiers) -> Self {
        self.rectifiers = Some(Box::new(rectifiers));
        self
    }

    /// Whether samples are rectified.
    pub fn rectifies(&self) -> bool {
        self.rectifiers.is_some()
    }

    /// The configuration.
    pub fn config(&self) -> &WindowConfig {
        &self.config
    }

    /// Counters so far.
    pub fn counters(&self) -> WindowCounters {
        self.counters
    }

    /// The newest capture time pushed, if any.
    pub fn newest(&self) -> Option<DeviceTime> {
        (self.newest_ns != i64::MIN).then_some(DeviceTime(self.newest_ns))
    }

    /// Adds one sample (ignored when its stream does not feed the grid). O(1), no allocation.
    pub fn push(&mut self, sample: &Sample) {
        let (Some(src), Some((grid, first, len))) =
            (source_index(sample.stream), source_layout(sample.stream))
        else {
            return;
        };
        let Some(mut raw) = extract(sample) else {
            self.counters.mismatched += 1;
            return;
        };
        if let Some(r) = &self.rectifiers {
            r.apply(sample.stream, &mut raw);
        }
        let rules = grid.slot_rules().get(first..first + len).unwrap_or(&[]);
        let bin = self.config.bin_of(sample.capture.ns());
        // Older than any window that can still be read (windows end at or after the
        // newest sample): too late.
        if self.newest_ns != i64::MIN
            && bin
                < self
                    .config
                    .bin_of(self.newest_ns)
                    .saturating_sub(BINS as i64 - 1)
        {
            self.counters.too_late += 1;
            return;
        }
        let Some(ring) = self.rings.get_mut(src) else {
            return;
        };
        match ring.add(bin, &raw, rules) {
            AddOutcome::Added { nan } => {
                self.counters.added += 1;
                self.counters.nan_values += u64::from(nan);
                self.newest_ns = self.newest_ns.max(sample.capture.ns());
            }
            AddOutcome::TooLate => self.counters.too_late += 1,
        }
    }

    /// Writes the window ending at `t_end` into `out` (reuse `out`: no allocation). The
    /// newest bin is the one holding `t_end`; `t_end` must not be before the newest sample
    /// pushed.
    pub fn snapshot(&self, t_end: DeviceTime, out: &mut SensorWindow) -> Result<(), WindowError> {
        if t_end.ns() < self.newest_ns {
            return Err(WindowError::EndBeforeNewest {
                t_end_ns: t_end.ns(),
                newest_ns: self.newest_ns,
            });
        }
        let last_bin = self.config.bin_of(t_end.ns());
        let first_bin = last_bin.saturating_sub(BINS as i64 - 1);
        out.t_end = t_end;
        out.bin_ns = self.config.bin_ns;
        out.first_bin_start_ns = first_bin.saturating_mul(self.config.bin_ns);
        out.normalised = self.norm.is_some();
        let mut raw = GridRaw::default();
        let mut grid = ChannelGrid::default();
        let identity = NormTable::identity();
        let norm = self.norm.as_ref().unwrap_or(&identity);
        for tensor in out.streams.iter_mut() {
            let gs = tensor.stream;
            self.gather(gs, first_bin, &mut raw);
            compute(gs, &raw, &mut grid);
            write_tensor(gs, &grid, norm, tensor);
        }
        Ok(())
    }

    /// Copies `gs`'s sources' bins `first_bin ..= first_bin + BINS − 1` into `raw`.
    fn gather(&self, gs: GridStream, first_bin: i64, raw: &mut GridRaw) {
        raw.clear();
        for (src, ring) in SOURCES.iter().zip(&self.rings) {
            let Some((g, first, len)) = source_layout(*src) else {
                continue;
            };
            if g != gs {
                continue;
            }
            let rules = gs.slot_rules();
            for i in 0..BINS {
                let Some(acc) = ring.get(first_bin.saturating_add(i as i64)) else {
                    continue;
                };
                let (Some(vals), Some(ns)) = (raw.vals.get_mut(i), raw.n.get_mut(i)) else {
                    continue;
                };
                for s in 0..len {
                    let rule = rules.get(first + s).copied();
                    let (Some(rule), Some(v), Some(n)) =
                        (rule, vals.get_mut(first + s), ns.get_mut(first + s))
                    else {
                        continue;
                    };
                    if let Some(x) = acc.value(s, rule) {
                        *v = x;
                        *n = acc.n.get(s).copied().unwrap_or(0);
                    }
                }
            }
        }
    }
}

fn write_tensor(
    gs: GridStream,
    grid: &ChannelGrid,
    norm: &NormTable,
    tensor: &mut crate::window::tensor::StreamTensor,
) {
    let c = gs.channel_count();
    tensor.mask = grid.mask;
    for (bin, row) in grid.vals.iter().enumerate() {
        let valid = grid.mask.get(bin).copied().unwrap_or(false);
        let mut bits = 0u16;
        let Some(dst) = tensor.values.get_mut(bin * c..(bin + 1) * c) else {
            continue;
        };
        for (ch, (d, &v)) in dst.iter_mut().zip(row.iter()).enumerate() {
            *d = if valid && v.is_finite() {
                bits |= 1 << ch;
                norm.apply(gs, ch, v) as f32
            } else {
                0.0
            };
        }
        if let Some(o) = tensor.observed.get_mut(bin) {
            *o = bits;
        }
    }
}

/// The window ending at `t_end` over a whole clip's samples (in capture order per stream,
/// as a source delivers them): the offline twin of [`WindowBuilder`], bit-identical to it.
pub fn window_at<'a>(
    samples: impl IntoIterator<Item = &'a Sample>,
    t_end: DeviceTime,
    config: WindowConfig,
    norm: Option<&NormStats>,
) -> Result<SensorWindow, WindowError> {
    let mut b = WindowBuilder::new(config)?;
    if let Some(n) = norm {
        b = b.with_norm(n)?;
    }
    let first_start = config
        .bin_of(t_end.ns())
        .saturating_sub(BINS as i64 - 1)
        .saturating_mul(config.bin_ns);
    for s in samples {
        let t = s.capture.ns();
        if t >= first_start && t <= t_end.ns() {
            b.push(s);
        }
    }
    let mut out = SensorWindow::new();
    b.snapshot(t_end, &mut out)?;
    Ok(out)
}
