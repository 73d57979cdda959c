//! The sound device through `cpal`. Only a stream that really plays counts: opening builds
//! the output stream, starts it, and waits until the device has asked for audio at least
//! once; anything less is an error, so the caller can fall back (see
//! [`super::open_sink`]).
//!
//! The `cpal` stream lives on a thread of its own ([`crate::audio::StreamThread`]); audio
//! reaches its callback through a lock-free ring buffer of stereo frames, resampled to the
//! device's rate and placed between the ears by its [`Pan`]: left and right on the first two
//! channels, the louder of the two on any others and on a mono device (the voice at its own
//! level: the balance law keeps one side at full level). When the ring runs dry the device
//! plays silence.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use ringbuf::traits::{Consumer, Observer, Producer, Split};
use ringbuf::{HeapCons, HeapProd, HeapRb};

use super::resample::LinearResampler;
use super::{AudioSink, Pacing, SinkError};
use crate::audio::{first_callback, StreamThread};
use crate::speech::pan::Pan;

/// How long the device may take to ask for its first audio.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);
/// How long a write waits for room before the device counts as stalled.
const STALL_TIMEOUT: Duration = Duration::from_secs(2);

/// Plays speech on the default output device.
pub struct DeviceSink {
    device: String,
    rate_hz: u32,
    producer: HeapProd<f32>,
    resampler: LinearResampler,
    scratch: Vec<f32>,
    /// Resamples the cues heard over speech ([`AudioSink::write_over`]).
    cue_resampler: LinearResampler,
    cue_scratch: Vec<f32>,
    /// Interleaved stereo frames of `scratch`.
    frames: Vec<f32>,
    failed: Arc<AtomicBool>,
    underruns: Arc<AtomicU64>,
    stream: StreamThread,
}

impl std::fmt::Debug for DeviceSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceSink")
            .field("device", &self.device)
            .field("rate_hz", &self.rate_hz)
            .finish()
    }
}

struct Opened {
    device: String,
    rate_hz: u32,
    producer: HeapProd<f32>,
}

impl DeviceSink {
    /// Opens the default output device for speech at `source_rate_hz`, and proves that it
    /// plays.
    pub fn open(source_rate_hz: u32) -> Result<Self, SinkError> {
        let failed = Arc::new(AtomicBool::new(false));
        let underruns = Arc::new(AtomicU64::new(0));
        let callbacks = Arc::new(AtomicU64::new(0));
        let (f, u, c) = (
            Arc::clone(&failed),
            Arc::clone(&underruns),
            Arc::clone(&callbacks),
        );
        let (stream, opened) = StreamThread::spawn(
            "vista-audio",
            move || start_stream(f, u, c),
            |m| device_err("default", m),
        )?;
        let mut sink = Self {
            device: opened.device,
            rate_hz: opened.rate_hz,
            producer: opened.producer,
            resampler: LinearResampler::new(source_rate_hz, opened.rate_hz),
            scratch: Vec::new(),
            cue_resampler: LinearResampler::new(source_rate_hz, opened.rate_hz),
            cue_scratch: Vec::new(),
            frames: Vec::new(),
            failed,
            underruns,
            stream,
        };
        // Only a stream that really asks for audio counts.
        if !first_callback(&callbacks, &sink.failed, PROBE_TIMEOUT) {
            sink.close();
            return Err(device_err(
                &sink.device,
                format!("the stream started but never asked for audio within {PROBE_TIMEOUT:?}"),
            ));
        }
        Ok(sink)
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// The device's sample rate.
    pub fn rate_hz(&self) -> u32 {
        self.rate_hz
    }

    /// Device callbacks that found the ring empty mid-way (silence played).
    pub fn underruns(&self) -> u64 {
        self.underruns.load(Ordering::Relaxed)
    }

    /// Audio queued for the device and not yet played, in seconds (the sink's own buffer).
    pub fn buffered_secs(&self) -> f64 {
        (self.producer.occupied_len() / 2) as f64 / self.rate_hz.max(1) as f64
    }

    fn close(&mut self) {
        self.stream.close();
    }
}

impl Drop for DeviceSink {
    fn drop(&mut self) {
        self.close();
    }
}

fn device_err(device: &str, message: String) -> SinkError {
    SinkError::Device {
        device: device.to_string(),
        message,
    }
}

fn start_stream(
    failed: Arc<AtomicBool>,
    underruns: Arc<AtomicU64>,
    callbacks: Arc<AtomicU64>,
) -> Result<(cpal::Stream, Opened), SinkError> {
    let host = cpal::default_host();
    let device = host
        .default_output_device()
        .ok_or_else(|| device_err("default", "no default output device".into()))?;
    let name = device.to_string();
    let supported = device
        .default_output_config()
        .map_err(|e| device_err(&name, format!("no output configuration: {e}")))?;
    let config = supported.config();
    let channels = usize::from(config.channels.max(1));
    let rate_hz = config.sample_rate;
    // About a second of stereo frames.
    let (producer, consumer) = HeapRb::<f32>::new(2 * (rate_hz as usize).max(4_096)).split();
    let on_error = {
        let failed = Arc::clone(&failed);
        let name = name.clone();
        move |e: cpal::Error| {
            if !failed.swap(true, Ordering::AcqRel) {
                log::error!("audio device {name}: {e}");
            }
        }
    };
    let stream = match supported.sample_format() {
        cpal::SampleFormat::F32 => build::<f32>(
            &device, config, channels, consumer, underruns, callbacks, on_error,
        ),
        cpal::SampleFormat::I16 => build::<i16>(
            &device, config, channels, consumer, underruns, callbacks, on_error,
        ),
        cpal::SampleFormat::I32 => build::<i32>(
            &device, config, channels, consumer, underruns, callbacks, on_error,
        ),
        cpal::SampleFormat::U8 => build::<u8>(
            &device, config, channels, consumer, underruns, callbacks, on_error,
        ),
        other => {
            return Err(device_err(
                &name,
                format!("unsupported sample format {other}"),
            ));
        }
    }
    .map_err(|e| device_err(&name, format!("cannot build the output stream: {e}")))?;
    stream
        .play()
        .map_err(|e| device_err(&name, format!("cannot start the output stream: {e}")))?;
    Ok((
        stream,
        Opened {
            device: name,
            rate_hz,
            producer,
        },
    ))
}

fn build<T>(
    device: &cpal::Device,
    config: cpal::StreamConfig,
    channels: usize,
    mut consumer: HeapCons<f32>,
    underruns: Arc<AtomicU64>,
    callbacks: Arc<AtomicU64>,
    on_error: impl FnMut(cpal::Error) + Send + 'static,
) -> Result<cpal::Stream, cpal::Error>
where
    T: cpal::SizedSample + cpal::FromSample<f32>,
{
    let mut was_playing = false;
    device.build_output_stream(
        config,
        move |data: &mut [T], _: &cpal::OutputCallbackInfo| {
            let mut starved = false;
            for frame in data.chunks_mut(channels) {
                // A frame is played whole or not at all (the writer may have pushed half).
                let (l, r) = if consumer.occupied_len() >= 2 {
                    (
                        consumer.try_pop().unwrap_or(0.0),
                        consumer.try_pop().unwrap_or(0.0),
                    )
                } else {
                    starved = true;
                    (0.0, 0.0)
                };
                let louder = if l.abs() >= r.abs() { l } else { r };
                match frame {
                    [mono] => *mono = T::from_sample(louder),
                    [left, right, rest @ ..] => {
                        *left = T::from_sample(l);
                        *right = T::from_sample(r);
                        for s in rest {
                            *s = T::from_sample(louder);
                        }
                    }
                    [] => {}
                }
            }
            if starved && was_playing {
                underruns.fetch_add(1, Ordering::Relaxed);
            }
            was_playing = !consumer.is_empty();
            callbacks.fetch_add(1, Ordering::Release);
        },
        on_error,
        None,
    )
}

impl AudioSink for DeviceSink {
    fn name(&self) -> &str {
        "device"
    }

    fn pacing(&self) -> Pacing {
        Pacing::RealTime
    }

    fn write(&mut self, start_index: u64, samples: &[i16], pan: Pan) -> Result<(), SinkError> {
        self.write_over(start_index, samples, pan, &[], Pan::CENTRE)
    }

    fn write_over(
        &mut self,
        _start_index: u64,
        samples: &[i16],
        pan: Pan,
        over: &[i16],
        over_pan: Pan,
    ) -> Result<(), SinkError> {
        self.scratch.clear();
        self.resampler.process(samples, &mut self.scratch);
        let (gl, gr) = pan.gains();
        self.frames.clear();
        self.frames
            .extend(self.scratch.iter().flat_map(|&v| [v * gl, v * gr]));
        if !over.is_empty() {
            // The cue has its own resampler (continuous across its runs); a sample more or
            // less than the speech's at a run's end is left out.
            let n = over.len().min(samples.len());
            self.cue_scratch.clear();
            self.cue_resampler
                .process(over.get(..n).unwrap_or(&[]), &mut self.cue_scratch);
            let (cl, cr) = over_pan.gains();
            for (f, &v) in self.frames.chunks_exact_mut(2).zip(&self.cue_scratch) {
                if let [l, r] = f {
                    *l = (*l + v * cl).clamp(-1.0, 1.0);
                    *r = (*r + v * cr).clamp(-1.0, 1.0);
                }
            }
        }
        let mut rest = &self.frames[..];
        let mut last_progress = Instant::now();
        while !rest.is_empty() {
            if self.failed.load(Ordering::Acquire) {
                return Err(device_err(&self.device, "the stream failed".into()));
            }
            let n = self.producer.push_slice(rest);
            if n > 0 {
                rest = rest.get(n..).unwrap_or(&[]);
                last_progress = Instant::now();
            } else if last_progress.elapsed() > STALL_TIMEOUT {
                return Err(device_err(
                    &self.device,
                    format!("stopped taking audio for {STALL_TIMEOUT:?}"),
                ));
            } else {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        Ok(())
    }

    fn finish(&mut self, _end_index: Option<u64>) -> Result<(), SinkError> {
        // Let what is queued play out, then stop the stream.
        let deadline = Instant::now() + Duration::from_secs_f64(self.buffered_secs() + 1.0);
        while !self.producer.is_empty() && Instant::now() < deadline {
            if self.failed.load(Ordering::Acquire) {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // The device still holds up to one period of audio after the ring runs dry.
        std::thread::sleep(Duration::from_millis(50));
        self.close();
        Ok(())
    }
}
