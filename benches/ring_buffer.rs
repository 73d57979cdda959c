//! Ring buffer throughput: push + pop of IMU-sized samples on one core, for the fan-out
//! designs considered in `src/buffer/mod.rs`:
//!
//! * `spsc_raw`: one `ringbuf` SPSC buffer, one consumer (the baseline for the
//!   ≥ 50 M samples/s target).
//! * `per_consumer_spsc/K`: one SPSC buffer per consumer; the producer clones each sample
//!   into K buffers (an SPSC producer cannot evict the oldest: a full buffer drops the
//!   *newest*).
//! * `per_consumer_locked/K`: one `Mutex<HeapRb>` per consumer with `push_overwrite`
//!   (drop-oldest, the semantics we need), K clones per sample.
//! * `mutex_cursors/K`: the bare ring of vista's design: one buffer per stream (a `Mutex`
//!   around a `ringbuf` ring, sequence numbers) and K cursors, without the reader layer
//!   (accounting, subscriptions), to show what that layer costs.
//! * `shared_cursors/K`: vista's design through its API: `BufferSet` and K `Reader`s, one
//!   `push` (one lock) per sample.
//! * `shared_batch/K`: the same, with the 64 samples pushed by one `push_batch` (one lock
//!   per batch), as a source that delivers several samples at once does.
//!
//! Each iteration pushes a batch of 64 samples, then every consumer takes all new ones
//! (a consumer woken per batch, as the runtime coalesces wake-ups).
//!
//! Instruction counts: `VISTA_RING_COUNT=VARIANT/K cargo bench --bench ring_buffer` runs
//! only that variant for 2^20 samples outside criterion, in `counted_run`, for
//! `valgrind --tool=callgrind --toggle-collect='*counted_run*'` (instructions per sample =
//! the total Ir / 2^20); variants: `mutex_cursors`, `shared_cursors`, `shared_batch`.
//! `VISTA_RING_N=N` sets the sample count (default 2^20): with a large N (e.g. 2^26), the
//! run's CPU time (`/usr/bin/time`, user + sys) gives a throughput that depends less on the
//! machine's load than criterion's wall-clock figures (its setup costs about 1 ms).

use std::hint::black_box;
use std::sync::{Arc, Mutex};

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use ringbuf::traits::{Consumer as _, Observer as _, Producer as _, RingBuffer as _, Split as _};
use ringbuf::{HeapCons, HeapProd, HeapRb};
use vista::buffer::{BufferConfig, BufferSet};
use vista::sample::{ImuSample, Payload, Sample, StreamId};
use vista::time::{DeviceTime, HostTime};

const BATCH: u64 = 64;
const CAPACITY: usize = 10_000;

fn imu(seq: u64) -> Sample {
    Sample {
        stream: StreamId::ImuRight,
        capture: DeviceTime(seq as i64 * 1_000_000),
        arrival: HostTime(seq as i64),
        seq,
        payload: Payload::Imu(ImuSample {
            accel_mps2: [0.1, 0.2, 9.81],
            gyro_radps: [0.01, 0.02, 0.03],
            accel_valid: true,
            gyro_valid: true,
            temperature_c: 30.0,
        }),
    }
}

/// The bare ring of `StreamBuffer`: a mutex around a ring, a running sequence number,
/// readers with their own cursors.
struct MutexRing {
    inner: Mutex<(HeapRb<Sample>, u64)>,
}

impl MutexRing {
    fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new((HeapRb::new(capacity), 0)),
        }
    }

    fn push(&self, s: Sample) {
        let mut g = self.inner.lock().unwrap();
        let evicted = g.0.push_overwrite(s);
        g.1 += 1;
        drop(g);
        drop(evicted);
    }

    /// Clones samples numbered `cursor` or later into `out`; returns (missed, next cursor).
    fn read_since(&self, cursor: u64, out: &mut Vec<Sample>) -> (u64, u64) {
        let g = self.inner.lock().unwrap();
        let len = g.0.occupied_len() as u64;
        let oldest = g.1 - len;
        let start = cursor.max(oldest);
        let skip = (start - oldest) as usize;
        let (a, b) = g.0.as_slices();
        if skip < a.len() {
            out.extend_from_slice(&a[skip..]);
            out.extend_from_slice(b);
        } else {
            out.extend_from_slice(&b[skip - a.len()..]);
        }
        (start - cursor, g.1)
    }
}

fn consume(s: &Sample, acc: &mut u64) {
    *acc = acc.wrapping_add(s.seq);
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("ring_buffer");
    g.throughput(Throughput::Elements(BATCH));

    g.bench_function("spsc_raw", |b| {
        let (mut prod, mut cons): (HeapProd<Sample>, HeapCons<Sample>) =
            HeapRb::new(CAPACITY).split();
        let mut seq = 0u64;
        let mut acc = 0u64;
        b.iter(|| {
            for _ in 0..BATCH {
                let _ = prod.try_push(imu(seq));
                seq += 1;
            }
            while let Some(s) = cons.try_pop() {
                consume(&s, &mut acc);
            }
            black_box(acc)
        });
    });

    for k in [1usize, 3] {
        g.bench_with_input(BenchmarkId::new("per_consumer_spsc", k), &k, |b, &k| {
            let mut rings: Vec<(HeapProd<Sample>, HeapCons<Sample>)> =
                (0..k).map(|_| HeapRb::new(CAPACITY).split()).collect();
            let mut seq = 0u64;
            let mut acc = 0u64;
            let mut dropped = 0u64;
            b.iter(|| {
                for _ in 0..BATCH {
                    let s = imu(seq);
                    seq += 1;
                    for (p, _) in rings.iter_mut() {
                        if p.try_push(s.clone()).is_err() {
                            dropped += 1;
                        }
                    }
                }
                for (_, c) in rings.iter_mut() {
                    while let Some(s) = c.try_pop() {
                        consume(&s, &mut acc);
                    }
                }
                black_box((acc, dropped))
            });
        });

        g.bench_with_input(BenchmarkId::new("per_consumer_locked", k), &k, |b, &k| {
            let rings: Vec<Arc<Mutex<HeapRb<Sample>>>> = (0..k)
                .map(|_| Arc::new(Mutex::new(HeapRb::new(CAPACITY))))
                .collect();
            let mut seq = 0u64;
            let mut acc = 0u64;
            let mut dropped = 0u64;
            b.iter(|| {
                for _ in 0..BATCH {
                    let s = imu(seq);
                    seq += 1;
                    for r in &rings {
                        let evicted = r.lock().unwrap().push_overwrite(s.clone());
                        dropped += u64::from(evicted.is_some());
                    }
                }
                for r in &rings {
                    let mut g = r.lock().unwrap();
                    while let Some(s) = g.try_pop() {
                        consume(&s, &mut acc);
                    }
                }
                black_box((acc, dropped))
            });
        });

        g.bench_with_input(BenchmarkId::new("mutex_cursors", k), &k, |b, &k| {
            let ring = MutexRing::new(CAPACITY);
            let mut cursors = vec![0u64; k];
            let mut scratch = Vec::with_capacity(CAPACITY);
            let mut seq = 0u64;
            let mut acc = 0u64;
            let mut missed = 0u64;
            b.iter(|| {
                for _ in 0..BATCH {
                    ring.push(imu(seq));
                    seq += 1;
                }
                for c in cursors.iter_mut() {
                    scratch.clear();
                    let (m, next) = ring.read_since(*c, &mut scratch);
                    missed += m;
                    *c = next;
                    for s in &scratch {
                        consume(s, &mut acc);
                    }
                }
                black_box((acc, missed))
            });
        });

        g.bench_with_input(BenchmarkId::new("shared_cursors", k), &k, |b, &k| {
            let set = Arc::new(BufferSet::new(
                BufferConfig::default().with_capacity(StreamId::ImuRight, CAPACITY),
            ));
            let mut readers: Vec<_> = (0..k).map(|i| set.reader(format!("r{i}"))).collect();
            let mut seq = 0u64;
            let mut acc = 0u64;
            b.iter(|| {
                for _ in 0..BATCH {
                    set.push(imu(seq));
                    seq += 1;
                }
                for r in readers.iter_mut() {
                    r.drain_new(StreamId::ImuRight, |s| consume(s, &mut acc));
                }
                black_box(acc)
            });
        });
    }

    for k in [1usize, 3] {
        g.bench_with_input(BenchmarkId::new("shared_batch", k), &k, |b, &k| {
            let set = Arc::new(BufferSet::new(
                BufferConfig::default().with_capacity(StreamId::ImuRight, CAPACITY),
            ));
            let mut readers: Vec<_> = (0..k).map(|i| set.reader(format!("r{i}"))).collect();
            let mut batch = Vec::with_capacity(BATCH as usize);
            let mut seq = 0u64;
            let mut acc = 0u64;
            b.iter(|| {
                for _ in 0..BATCH {
                    batch.push(imu(seq));
                    seq += 1;
                }
                set.push_batch(StreamId::ImuRight, &mut batch);
                for r in readers.iter_mut() {
                    r.drain_new(StreamId::ImuRight, |s| consume(s, &mut acc));
                }
                black_box(acc)
            });
        });
    }

    // Window reads: 200 ms of a 1 kHz IMU (201 samples) out of a full 10 s buffer.
    g.throughput(Throughput::Elements(201));
    g.bench_function("shared_window_200ms", |b| {
        let set = Arc::new(BufferSet::new(BufferConfig::default()));
        for seq in 0..20_000 {
            set.push(imu(seq));
        }
        let mut r = set.reader("w");
        let mut acc = 0u64;
        let t1 = DeviceTime(19_999 * 1_000_000);
        b.iter(|| {
            r.read_window(StreamId::ImuRight, t1.add_ns(-200_000_000), t1, |s| {
                consume(s, &mut acc)
            });
            black_box(acc)
        });
    });
    g.finish();
}

/// One variant for `n` samples, for instruction counts under callgrind (see the module
/// docs). Returns a checksum so nothing is optimised away.
#[inline(never)]
fn counted_run(variant: &str, k: usize, n: u64) -> u64 {
    let mut acc = 0u64;
    match variant {
        "mutex_cursors" => {
            let ring = MutexRing::new(CAPACITY);
            let mut cursors = vec![0u64; k];
            let mut scratch = Vec::with_capacity(CAPACITY);
            for base in (0..n).step_by(BATCH as usize) {
                for seq in base..base + BATCH {
                    ring.push(imu(seq));
                }
                for c in cursors.iter_mut() {
                    scratch.clear();
                    let (m, next) = ring.read_since(*c, &mut scratch);
                    acc = acc.wrapping_add(m);
                    *c = next;
                    for s in &scratch {
                        consume(s, &mut acc);
                    }
                }
            }
        }
        "shared_cursors" | "shared_batch" => {
            let set = Arc::new(BufferSet::new(
                BufferConfig::default().with_capacity(StreamId::ImuRight, CAPACITY),
            ));
            let mut readers: Vec<_> = (0..k).map(|i| set.reader(format!("r{i}"))).collect();
            let mut batch = Vec::with_capacity(BATCH as usize);
            for base in (0..n).step_by(BATCH as usize) {
                if variant == "shared_batch" {
                    batch.extend((base..base + BATCH).map(imu));
                    set.push_batch(StreamId::ImuRight, &mut batch);
                } else {
                    for seq in base..base + BATCH {
                        set.push(imu(seq));
                    }
                }
                for r in readers.iter_mut() {
                    r.drain_new(StreamId::ImuRight, |s| consume(s, &mut acc));
                }
            }
        }
        other => eprintln!("unknown variant {other}"),
    }
    acc
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(v) = std::env::var("VISTA_RING_COUNT") {
        let (variant, k) = v.split_once('/').unwrap_or((v.as_str(), "1"));
        let k: usize = k.parse().unwrap_or(1);
        let n = std::env::var("VISTA_RING_N")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1u64 << 20);
        let acc = counted_run(variant, k, black_box(n));
        println!("{variant}/{k}: {n} samples, checksum {acc}");
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
