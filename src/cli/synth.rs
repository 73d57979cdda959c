//! `vista synth SCENARIO [--device gen1|gen2] [--seed N] [--duration S] [--rgb-fps F]
//! [--et-fps F] [--threads N] [--mps-exact] [--nominal-gait] [--plain-surfaces]
//! [--spoken-requests] --out DIR` and
//! `vista synth --list`: writes a synthetic session of a scripted wearer, or names the
//! scenarios (name, duration, RGB rate, task categories, summary).

use std::path::PathBuf;

use anyhow::bail;

use vista::synth::device::SynthDevice;
use vista::synth::named::{list_scenarios, synthesize_named};
use vista::synth::SynthOptions;

/// Arguments of `vista synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// Scenario name (a file stem in the scenario folder) or path to a scenario file.
    pub scenario: Option<String>,
    /// List the scenarios, one line each, and exit.
    #[arg(long)]
    pub list: bool,
    /// The glasses imitated: Aria Gen1, or Gen2 with the glasses' own VIO, eye gaze and hand
    /// tracking recorded as estimates (docs/synthetic.md).
    #[arg(long, value_enum, default_value_t = SynthDevice::Gen1)]
    pub device: SynthDevice,
    /// Seed of the sensor noise (same seed, byte-identical session).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Length in seconds (default: the scenario's).
    #[arg(long)]
    pub duration: Option<f64>,
    /// RGB camera frame rate, Hz (default: the scenario's; 0: no RGB stream).
    #[arg(long)]
    pub rgb_fps: Option<f64>,
    /// Eye-tracking camera frame rate, Hz (default 10; 0: no eye-tracking stream; Gen2
    /// sessions draw no eye images).
    #[arg(long)]
    pub et_fps: Option<f64>,
    /// Threads rendering frames (default: the available cores, at most 8; the bytes do not
    /// depend on it).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output session folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Scenario folder.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))]
    pub scenarios: PathBuf,
    /// Template recording whose Aria stream layouts and calibration are used (default: the
    /// device's real sample shipped with vista).
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// Write the MPS files (trajectory, eye gaze, hands, semi-dense points), and on Gen2 the
    /// glasses' own VIO, gaze and hands, as the simulator's exact truth instead of estimates
    /// with their errors. Not what MPS or the glasses write: for tests of geometry only.
    #[arg(long)]
    pub mps_exact: bool,
    /// Walk with the fixed nominal gait (0.7 m steps at every speed, 4 cm bob) instead of
    /// the gait drawn for the seed and scenario.
    #[arg(long)]
    pub nominal_gait: bool,
    /// Render flat-coloured surfaces and noiseless SLAM frames (the images before the
    /// surface texture and camera noise of docs/synthetic.md): for comparisons only.
    #[arg(long)]
    pub plain_surfaces: bool,
    /// Add the microphones' audio stream (Aria Gen1: 48 kHz, 7 channels) with each request
    /// spoken by the wearer from its time, and list them in spoken_requests.jsonl (needs the
    /// Piper voice from models/fetch).
    #[arg(long)]
    pub spoken_requests: bool,
    /// What the wearer says before each spoken request to call the assistant (a wake phrase
    /// as `--wake` takes it), or `none`.
    #[arg(long, value_name = "PHRASE|none", default_value = "hey vista", value_parser = vista::listen::Wake::parse, requires = "spoken_requests")]
    pub spoken_wake: vista::listen::Wake,
}

/// Runs `vista synth`.
pub fn run(args: SynthArgs) -> anyhow::Result<()> {
    if args.list {
        for (stem, sc) in list_scenarios(&args.scenarios)? {
            println!(
                "{stem:<21} {:>6.0} s  rgb {:>2.0} fps  [{}]  {}",
                sc.duration_s,
                sc.rgb_fps,
                sc.categories.join(", "),
                sc.summary
            );
        }
        return Ok(());
    }
    let Some(name) = args.scenario else {
        bail!("name a scenario (vista synth --list shows them)");
    };
    let Some(out) = args.out else {
        bail!("--out DIR is required");
    };
    if let Some(d) = args.duration {
        let max = vista::synth::validate::MAX_DURATION_S;
        if !(d.is_finite() && d > 0.0 && d <= max) {
            bail!("--duration must be within (0, {max}] seconds, got {d}");
        }
    }
    if let Some(f) = args.rgb_fps {
        if !(f.is_finite() && (0.0..=60.0).contains(&f)) {
            bail!("--rgb-fps must be within 0..=60, got {f}");
        }
    }
    if let Some(f) = args.et_fps {
        if !(f.is_finite() && (0.0..=60.0).contains(&f)) {
            bail!("--et-fps must be within 0..=60, got {f}");
        }
    }
    if args.threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    let defaults = SynthOptions::for_device(args.device);
    let opts = SynthOptions {
        seed: args.seed,
        duration_s: args.duration,
        template: args.template.unwrap_or_else(|| defaults.template.clone()),
        rgb_fps: args.rgb_fps,
        et_fps: args.et_fps.or(defaults.et_fps),
        threads: args.threads,
        mps_error: if args.mps_exact {
            None
        } else {
            defaults.mps_error.clone()
        },
        device_error: if args.mps_exact {
            None
        } else {
            defaults.device_error.clone()
        },
        nominal_gait: args.nominal_gait,
        plain_surfaces: args.plain_surfaces,
        spoken_requests: args.spoken_requests,
        spoken_wake: args.spoken_wake.spoken(),
        ..defaults
    };
    let done = synthesize_named(&args.scenarios, &name, &out, &opts)?;
    let sum = &done.summary;
    println!(
        "{}: {:.1} s of scenario {} (seed {}) in {:.2} s",
        out.display(),
        sum.duration_s,
        done.scenario.name,
        args.seed,
        done.elapsed_s
    );
    println!(
        "  recording.vrs: {} records, {} bytes",
        sum.recording.records, sum.recording.bytes
    );
    for (id, n) in &sum.data_records {
        println!("    {id}: {n} data records");
    }
    for f in &sum.files {
        println!("  {f}");
    }
    let (points, observations, dropped) = sum.semidense;
    if points > 0 {
        println!(
            "  semi-dense: {points} points, {observations} observations, {dropped} dropped (map full)"
        );
    }
    if let Some(s) = &sum.spoken {
        println!(
            "  spoken requests: {} spoken, {} skipped (too long for the voice, or after the audio's end), {} cut",
            s.spoken, s.skipped, s.cut
        );
    }
    Ok(())
}
