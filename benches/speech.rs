//! Speech latency targets (criterion; medians in `target/criterion/speech*/new/estimates.json`):
//!
//! * `speech/text_to_first_sample/*`: from calling [`Tts::synthesize`] to the first block of
//!   samples in the caller's hands (target ≤ 5 ms), for a 15-word sentence at 175 and
//!   350 wpm.
//! * `speech/whole_sentence/*`: the same sentence synthesised whole (the engine's
//!   throughput).
//! * `speech/alert_to_sink/*`: from `Speaker::say(alert)` on a producer thread to the alert's
//!   first samples arriving in the sink (target ≤ 10 ms), with the speaker idle and with a
//!   long answer playing that the alert must cut, measured by the speaker's
//!   [`FirstAudio`] events into the (real-time) null sink; a device sink adds its own buffer
//!   (`DeviceSink::buffered_secs`), reported separately. The session clock runs 50× faster than the host so that each
//!   iteration's audio plays out in milliseconds; the latencies are host wall time.
//!
//! eSpeak NG runs in a `vista tts-worker` process, as `vista` runs it; with
//! `VISTA_BENCH_TTS=in-process`, inside the bench process, as a library user gets it by
//! default.
//!
//! Run: `cargo bench --bench speech` (and `VISTA_BENCH_TTS=in-process cargo bench --bench
//! speech`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use crossbeam_channel::{unbounded, Receiver};

use vista::speech::sink::NullSink;
use vista::speech::{
    FirstAudio, Flow, Priority, Speaker, SpeakerConfig, Tts, Utterance, VoiceParams,
};
use vista::time::{Clock, DeviceTime, HostTime};

const SENTENCE: &str =
    "The door is about three metres ahead of you, slightly to the left, and it is open.";
const LONG: &str = "This is a long answer that describes the whole room in detail, the table, \
    the chairs, the window on the far wall, and the shelves beside the door.";

/// Runs eSpeak NG in a worker process unless `VISTA_BENCH_TTS=in-process` (before the first
/// handle of the process).
fn choose_engine() {
    if std::env::var("VISTA_BENCH_TTS").as_deref() != Ok("in-process") {
        vista::speech::tts::use_worker_process(vista::speech::tts::WorkerCommand {
            program: env!("CARGO_BIN_EXE_vista").into(),
            args: vec!["tts-worker".into()],
        });
    }
}

fn text_to_first_sample(c: &mut Criterion) {
    choose_engine();
    let mut group = c.benchmark_group("speech/text_to_first_sample");
    for rate_wpm in [175u32, 350] {
        let tts = Tts::new(VoiceParams {
            rate_wpm,
            ..VoiceParams::default()
        })
        .unwrap();
        tts.synthesize_to_vec("Warm up.").unwrap();
        group.bench_function(format!("{rate_wpm}wpm"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t0 = Instant::now();
                    let mut first = None;
                    tts.synthesize(SENTENCE, |_| {
                        first.get_or_insert_with(|| t0.elapsed());
                        Flow::Stop
                    })
                    .unwrap();
                    total += first.unwrap_or_default();
                }
                total
            })
        });
    }
    group.finish();
}

fn whole_sentence(c: &mut Criterion) {
    choose_engine();
    let mut group = c.benchmark_group("speech/whole_sentence");
    for rate_wpm in [175u32, 350] {
        let tts = Tts::new(VoiceParams {
            rate_wpm,
            ..VoiceParams::default()
        })
        .unwrap();
        group.bench_function(format!("{rate_wpm}wpm"), |b| {
            b.iter(|| tts.synthesize_to_vec(SENTENCE).unwrap().len())
        });
    }
    group.finish();
}

/// A session clock running `FACTOR`× faster than the host.
struct FastClock {
    start: Instant,
}
const FACTOR: u32 = 50;

impl Clock for FastClock {
    fn due(&self, _capture: DeviceTime) -> HostTime {
        self.now()
    }
    fn now(&self) -> HostTime {
        HostTime((self.start.elapsed() * FACTOR).as_nanos() as i64)
    }
    fn wait_until(&self, t: HostTime) -> HostTime {
        while self.now() < t {
            std::thread::sleep(Duration::from_micros(200));
        }
        self.now()
    }
    fn is_real_time(&self) -> bool {
        true
    }
    fn host_duration(&self, clock_ns: i64) -> Duration {
        Duration::from_nanos(clock_ns.max(0) as u64 / u64::from(FACTOR))
    }
}

fn alert_to_sink(c: &mut Criterion) {
    choose_engine();
    let clock = Arc::new(FastClock {
        start: Instant::now(),
    });
    let (tx, rx) = unbounded::<FirstAudio>();
    let speaker = Speaker::start(
        SpeakerConfig {
            first_audio_events: Some(tx),
            ..SpeakerConfig::default()
        },
        Box::new(NullSink::new()),
        clock.clone(),
    )
    .unwrap();
    let utt = |priority, request_id, text: &str| Utterance {
        text: text.to_string(),
        priority,
        request_id,
        capture: DeviceTime(0),
        decided: clock.now(),
        earcon: None,
        cue: None,
        pan: vista::speech::Pan::CENTRE,
        urgent: priority == Priority::Alert,
    };
    // Host time from `say` to the alert's first samples in the sink.
    let alert_latency = |rx: &Receiver<FirstAudio>, t0: HostTime| -> Duration {
        loop {
            let e = rx.recv().unwrap();
            if e.priority == Priority::Alert {
                return Duration::from_nanos(e.in_sink.since(t0).max(0) as u64);
            }
        }
    };
    let mut group = c.benchmark_group("speech/alert_to_sink");
    group.sample_size(20);
    group.bench_function("idle", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // "Stop. Car." lasts ~1 s of session time: 20 ms of host time here.
                std::thread::sleep(Duration::from_millis(40));
                let t0 = HostTime::now();
                speaker.say(utt(Priority::Alert, 0, "Stop. Car.")).unwrap();
                total += alert_latency(&rx, t0);
            }
            total
        })
    });
    let mut request = 0;
    group.bench_function("cutting_an_answer", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                std::thread::sleep(Duration::from_millis(40));
                request += 1;
                speaker.say(utt(Priority::Answer, request, LONG)).unwrap();
                // Wait until the answer is playing.
                let started = rx.recv().unwrap();
                assert_eq!(started.priority, Priority::Answer);
                std::thread::sleep(Duration::from_millis(2));
                let t0 = HostTime::now();
                speaker.say(utt(Priority::Alert, 0, "Stop. Car.")).unwrap();
                total += alert_latency(&rx, t0);
            }
            total
        })
    });
    group.finish();
    let report = speaker.finish(None).unwrap();
    assert!(report.interrupted > 0, "alerts must have cut answers");
}

criterion_group!(benches, text_to_first_sample, whole_sentence, alert_to_sink);
criterion_main!(benches);
