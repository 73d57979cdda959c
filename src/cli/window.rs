//! `vista window SESSION --at SECONDS [--json]`: the model's view of one moment: every
//! stream's 64-bin grid (shape, per-channel mean, masked bins) and the 8 frames' times;
//! `--json` prints the tensors themselves.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;

use vista::window::imu_resample::IMU_WINDOW_CHANNELS;
use vista::window::replay_windows::window_at_moment;
use vista::window::{ImuWindowConfig, NormStats, StreamTensor, WindowBuilder, WindowConfig};

/// Arguments of `vista window`.
#[derive(Debug, clap::Args)]
pub struct WindowArgs {
    /// A session folder (`recording.vrs`, optional `mps/`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// The window's end, seconds after the session's first sample.
    #[arg(long, value_name = "SECONDS")]
    pub at: f64,
    /// Print the tensors as JSON.
    #[arg(long)]
    pub json: bool,
    /// Normalise with these statistics (`vista stats`).
    #[arg(long, value_name = "FILE")]
    pub norm: Option<PathBuf>,
    /// Window length in seconds (64 bins; default 6.4).
    #[arg(long, default_value_t = 6.4, value_name = "SECONDS")]
    pub window_s: f64,
    /// Frame stride of the causal frame variant (frames).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub causal_stride: usize,
    /// Keep IMU, magnetometer and barometer raw (default: rectified with the recording's
    /// calibration).
    #[arg(long)]
    pub raw: bool,
}

#[derive(Debug, Serialize)]
struct JsonStream {
    shape: [usize; 2],
    channels: &'static [&'static str],
    values: Vec<f32>,
    mask: Vec<bool>,
}

#[derive(Debug, Serialize)]
struct JsonWindow {
    session: PathBuf,
    t_end_ns: i64,
    at_s: f64,
    bin_ns: i64,
    first_bin_start_ns: i64,
    normalised: bool,
    streams: BTreeMap<&'static str, JsonStream>,
    frames_ns: Vec<i64>,
    causal_frames_ns: Vec<i64>,
    imu_window: JsonImuWindow,
}

#[derive(Debug, Serialize)]
struct JsonImuWindow {
    shape: [usize; 2],
    rate_hz: f64,
    channels: &'static [&'static str],
    values: Vec<f32>,
    mask: Vec<bool>,
}

fn json_stream(t: &StreamTensor) -> JsonStream {
    JsonStream {
        shape: t.shape(),
        channels: t.stream.channels(),
        values: t.values.clone(),
        mask: t.mask.to_vec(),
    }
}

/// Runs `vista window`.
pub fn run(args: WindowArgs) -> anyhow::Result<()> {
    let config = WindowConfig::with_length_ns((args.window_s * 1e9).round() as i64)?;
    let mut builder = WindowBuilder::new(config)?;
    if let Some(p) = &args.norm {
        let stats = NormStats::load(p)?;
        if let Some(rectified) = stats.rectified {
            if rectified == args.raw {
                anyhow::bail!(
                    "{}: statistics were computed {} rectification; run with{} --raw",
                    p.display(),
                    if rectified { "with" } else { "without" },
                    if rectified { "out" } else { "" }
                );
            }
        }
        builder = builder
            .with_norm(&stats)
            .with_context(|| format!("applying {}", p.display()))?;
    }
    let m = window_at_moment(
        &args.session,
        args.at,
        builder,
        args.causal_stride,
        !args.raw,
    )
    .with_context(|| format!("window of {}", args.session.display()))?;
    for msg in &m.read.skipped {
        log::warn!("{}: {msg}", args.session.display());
    }
    let w = &m.window;
    if args.json {
        let out = JsonWindow {
            session: args.session.clone(),
            t_end_ns: w.t_end.ns(),
            at_s: args.at,
            bin_ns: w.bin_ns,
            first_bin_start_ns: w.first_bin_start_ns,
            normalised: w.normalised,
            streams: w
                .streams
                .iter()
                .map(|t| (t.stream.name(), json_stream(t)))
                .collect(),
            frames_ns: m.frames_ns.clone(),
            causal_frames_ns: m.causal_frames_ns.clone(),
            imu_window: JsonImuWindow {
                shape: [m.imu_window.mask.len(), IMU_WINDOW_CHANNELS.len()],
                rate_hz: ImuWindowConfig::default().rate_hz,
                channels: &IMU_WINDOW_CHANNELS,
                values: m.imu_window.values.clone(),
                mask: m.imu_window.mask.clone(),
            },
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let origin = m.read.origin_ns;
    let rel = |t: i64| (t - origin) as f64 * 1e-9;
    println!(
        "{}: window [{:.3} s, {:.3} s] after the first sample, {} bins of {} ms{}",
        args.session.display(),
        rel(w.first_bin_start_ns),
        rel(w.t_end.ns()),
        w.streams.first().map_or(0, |t| t.shape()[0]),
        w.bin_ns as f64 * 1e-6,
        if w.normalised { ", normalised" } else { "" }
    );
    for t in &w.streams {
        let [bins, c] = t.shape();
        let masked: Vec<usize> = (0..bins)
            .filter(|&b| !t.mask.get(b).copied().unwrap_or(false))
            .collect();
        println!(
            "{:<11} [{bins}, {c}]  valid {}/{bins}  masked bins: {}",
            t.stream.name(),
            t.valid_bins(),
            ranges(&masked)
        );
        for (ch, name) in t.stream.channels().iter().enumerate() {
            match t.channel_mean(ch) {
                Some(mean) => println!("    {name:<20} mean {mean:+.6}"),
                None => println!("    {name:<20} (no observed value)"),
            }
        }
    }
    let fmt = |v: &[i64]| {
        v.iter()
            .map(|&t| format!("{:.3}", rel(t)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let iw = &m.imu_window;
    println!(
        "imu_window  [{}, {}] at {} Hz (right IMU, for the IMU encoder)  valid {}/{}",
        iw.mask.len(),
        IMU_WINDOW_CHANNELS.len(),
        ImuWindowConfig::default().rate_hz,
        iw.mask.iter().filter(|&&v| v).count(),
        iw.mask.len()
    );
    println!("frames (uniform, s): [{}]", fmt(&m.frames_ns));
    println!("frames (causal, s):  [{}]", fmt(&m.causal_frames_ns));
    let c = m.read.counters;
    println!(
        "{} samples read, {} aggregated, {} NaN values skipped, {} too late, {} unreadable",
        m.read.samples,
        c.added,
        c.nan_values,
        c.too_late,
        m.read.skipped.len()
    );
    Ok(())
}

/// "0-9, 12, 20-63" from sorted bin numbers.
fn ranges(nums: &[usize]) -> String {
    let Some(&first) = nums.first() else {
        return "none".to_string();
    };
    let mut out = Vec::new();
    let mut start = first;
    let mut prev = start;
    for &n in nums.iter().skip(1) {
        if n != prev + 1 {
            out.push(span(start, prev));
            start = n;
        }
        prev = n;
    }
    out.push(span(start, prev));
    out.join(", ")
}

fn span(a: usize, b: usize) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}-{b}")
    }
}
