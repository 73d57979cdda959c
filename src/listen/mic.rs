//! The host's microphone through `cpal`, for a desk test of listening without glasses: the
//! default input device (or one named), opened at 16 kHz mono when it offers that (no
//! resampling then), else at its own default configuration; each callback's frames are
//! mixed down to mono and pushed into a lock-free ring of [`RING_SECONDS`] that the reader
//! drains. A reader that falls behind loses the oldest audio, counted, never blocks the
//! device.
//!
//! Like the speech device, the `cpal` stream lives on a thread of its own
//! ([`crate::audio::StreamThread`]), and only a stream that really delivers audio counts as
//! open.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use ringbuf::traits::{Consumer, Observer, Producer, Split};
use ringbuf::{HeapCons, HeapProd, HeapRb};

use crate::audio::{first_callback, StreamThread};

/// Audio kept for a reader that falls behind, seconds.
pub const RING_SECONDS: usize = 10;

/// How long the device may take to deliver its first audio.
const PROBE_TIMEOUT: Duration = Duration::from_millis(2000);

/// The rate the recogniser wants; asked for first.
const WANTED_HZ: u32 = 16_000;

/// The microphone could not be used.
#[derive(Debug, thiserror::Error)]
#[error("microphone {device}: {message}")]
pub struct MicError {
    /// The device (`default` when none was found).
    pub device: String,
    /// What went wrong.
    pub message: String,
}

fn mic_err(device: &str, message: String) -> MicError {
    MicError {
        device: device.to_string(),
        message,
    }
}

/// An open microphone.
pub struct Microphone {
    device: String,
    rate_hz: u32,
    channels: u16,
    format: cpal::SampleFormat,
    consumer: HeapCons<f32>,
    dropped: Arc<AtomicU64>,
    failed: Arc<AtomicBool>,
    /// Closed when dropped (the last field: after the ring's consumer).
    stream: StreamThread,
}

impl std::fmt::Debug for Microphone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Microphone")
            .field("device", &self.device)
            .field("rate_hz", &self.rate_hz)
            .finish()
    }
}

struct Opened {
    device: String,
    rate_hz: u32,
    channels: u16,
    format: cpal::SampleFormat,
    consumer: HeapCons<f32>,
}

impl Microphone {
    /// Opens the input device whose name contains `device` (the default input device when
    /// `None`), and proves that it delivers audio.
    pub fn open(device: Option<&str>) -> Result<Self, MicError> {
        let failed = Arc::new(AtomicBool::new(false));
        let dropped = Arc::new(AtomicU64::new(0));
        let callbacks = Arc::new(AtomicU64::new(0));
        let (f, d, c) = (
            Arc::clone(&failed),
            Arc::clone(&dropped),
            Arc::clone(&callbacks),
        );
        let wanted = device.map(str::to_string);
        let label = device.unwrap_or("default").to_string();
        let (stream, opened) = StreamThread::spawn(
            "vista-mic",
            move || start_stream(wanted.as_deref(), f, d, c),
            |m| mic_err(&label, m),
        )?;
        let mut mic = Self {
            device: opened.device,
            rate_hz: opened.rate_hz,
            channels: opened.channels,
            format: opened.format,
            consumer: opened.consumer,
            dropped,
            failed,
            stream,
        };
        if !first_callback(&callbacks, &mic.failed, PROBE_TIMEOUT) {
            mic.stream.close();
            return Err(mic_err(
                &mic.device,
                format!("the stream started but delivered no audio within {PROBE_TIMEOUT:?}"),
            ));
        }
        Ok(mic)
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// What the device delivers: its channels (mixed down here) and sample format, e.g.
    /// `1 × f32`.
    pub fn capture(&self) -> String {
        format!("{} × {}", self.channels, self.format)
    }

    /// The rate of the samples [`Self::take`] gives, Hz.
    pub fn rate_hz(&self) -> u32 {
        self.rate_hz
    }

    /// Moves every mono sample captured so far onto the end of `out`; returns how many.
    pub fn take(&mut self, out: &mut Vec<f32>) -> usize {
        let n = self.consumer.occupied_len();
        let start = out.len();
        out.resize(start + n, 0.0);
        let got = self.consumer.pop_slice(&mut out[start..]);
        out.truncate(start + got);
        got
    }

    /// Samples lost because the reader fell more than [`RING_SECONDS`] behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Whether the device reported an error (capture has stopped).
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }
}

/// The device's configuration to open: 16 kHz mono in a sample format handled here when
/// the device offers it, else its default.
fn choose_config(
    device: &cpal::Device,
    name: &str,
) -> Result<(cpal::StreamConfig, cpal::SampleFormat), MicError> {
    let handled = |f: cpal::SampleFormat| {
        matches!(
            f,
            cpal::SampleFormat::F32 | cpal::SampleFormat::I16 | cpal::SampleFormat::I32
        )
    };
    if let Ok(mut ranges) = device.supported_input_configs() {
        if let Some(r) = ranges.find(|r| {
            r.channels() == 1
                && handled(r.sample_format())
                && (r.min_sample_rate()..=r.max_sample_rate()).contains(&WANTED_HZ)
        }) {
            let c = r.with_sample_rate(WANTED_HZ);
            return Ok((c.config(), c.sample_format()));
        }
    }
    let c = device
        .default_input_config()
        .map_err(|e| mic_err(name, format!("no input configuration: {e}")))?;
    Ok((c.config(), c.sample_format()))
}

fn start_stream(
    wanted: Option<&str>,
    failed: Arc<AtomicBool>,
    dropped: Arc<AtomicU64>,
    callbacks: Arc<AtomicU64>,
) -> Result<(cpal::Stream, Opened), MicError> {
    let host = cpal::default_host();
    let label = wanted.unwrap_or("default");
    let device = match wanted {
        None => host.default_input_device(),
        Some(w) => host
            .input_devices()
            .map_err(|e| mic_err(label, format!("cannot list input devices: {e}")))?
            .find(|d| d.to_string().contains(w)),
    }
    .ok_or_else(|| mic_err(label, "no such input device".into()))?;
    let name = device.to_string();
    let (config, format) = choose_config(&device, &name)?;
    let channels = usize::from(config.channels.max(1));
    let rate_hz = config.sample_rate;
    let (producer, consumer) =
        HeapRb::<f32>::new(RING_SECONDS * (rate_hz as usize).max(8_000)).split();
    let on_error = {
        let failed = Arc::clone(&failed);
        let name = name.clone();
        move |e: cpal::Error| {
            if !failed.swap(true, Ordering::AcqRel) {
                log::error!("microphone {name}: {e}");
            }
        }
    };
    let feed = Feed {
        producer,
        channels,
        dropped,
        callbacks,
        mono: Vec::with_capacity(8_192),
    };
    let stream = match format {
        cpal::SampleFormat::F32 => build::<f32>(&device, config, feed, on_error),
        cpal::SampleFormat::I16 => build::<i16>(&device, config, feed, on_error),
        cpal::SampleFormat::I32 => build::<i32>(&device, config, feed, on_error),
        other => {
            return Err(mic_err(&name, format!("unsupported sample format {other}")));
        }
    }
    .map_err(|e| mic_err(&name, format!("cannot build the input stream: {e}")))?;
    stream
        .play()
        .map_err(|e| mic_err(&name, format!("cannot start the input stream: {e}")))?;
    Ok((
        stream,
        Opened {
            device: name,
            rate_hz,
            channels: config.channels,
            format,
            consumer,
        },
    ))
}

/// What the device's callback writes into.
struct Feed {
    producer: HeapProd<f32>,
    channels: usize,
    dropped: Arc<AtomicU64>,
    callbacks: Arc<AtomicU64>,
    /// This callback's frames, mixed down (kept to avoid allocating on the audio thread).
    mono: Vec<f32>,
}

impl Feed {
    /// Mixes `data`'s frames down to mono and queues them; what does not fit is dropped
    /// and counted.
    fn push<T>(&mut self, data: &[T])
    where
        T: cpal::Sample,
        f32: cpal::FromSample<T>,
    {
        self.mono.clear();
        for frame in data.chunks(self.channels) {
            let sum: f32 = frame
                .iter()
                .map(|s| <f32 as cpal::FromSample<T>>::from_sample_(*s))
                .sum();
            self.mono.push(sum / frame.len().max(1) as f32);
        }
        let pushed = self.producer.push_slice(&self.mono);
        if pushed < self.mono.len() {
            self.dropped
                .fetch_add((self.mono.len() - pushed) as u64, Ordering::Relaxed);
        }
        self.callbacks.fetch_add(1, Ordering::Release);
    }
}

fn build<T>(
    device: &cpal::Device,
    config: cpal::StreamConfig,
    mut feed: Feed,
    on_error: impl FnMut(cpal::Error) + Send + 'static,
) -> Result<cpal::Stream, cpal::Error>
where
    T: cpal::SizedSample,
    f32: cpal::FromSample<T>,
{
    device.build_input_stream(
        config,
        move |data: &[T], _: &cpal::InputCallbackInfo| feed.push(data),
        on_error,
        None,
    )
}
