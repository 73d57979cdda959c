//! Buffers under real concurrency: one producer thread, a fast and a slow reader thread.
//! Readers see strictly increasing sequence numbers, the slow one loses only samples older
//! than what it reads next, and the accounting is exact once everyone has finished.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use proptest::prelude::*;
use vista::buffer::{BufferConfig, BufferSet, BufferStats, StreamBuffer};
use vista::sample::{ImuSample, Payload, Sample, StreamId};
use vista::time::{DeviceTime, HostTime};

fn imu(seq: u64, t_ns: i64) -> Sample {
    Sample {
        stream: StreamId::ImuRight,
        capture: DeviceTime(t_ns),
        arrival: HostTime(0),
        seq,
        payload: Payload::Imu(ImuSample::default()),
    }
}

#[test]
fn concurrent_readers_see_increasing_sequences_and_accounting_is_exact() {
    const N: u64 = 200_000;
    let set = Arc::new(BufferSet::new(
        BufferConfig::default().with_capacity(StreamId::ImuRight, 256),
    ));
    let done = Arc::new(AtomicBool::new(false));
    let spawn_reader = |name: &'static str, pause: u32| {
        let mut r = set.reader(name);
        let done = done.clone();
        std::thread::spawn(move || {
            let mut last: Option<u64> = None;
            let mut ok = true;
            let mut window = Vec::new();
            loop {
                let finished = done.load(Ordering::Acquire);
                r.drain_new(StreamId::ImuRight, |s| {
                    ok &= last.is_none_or(|l| s.seq > l);
                    last = Some(s.seq);
                });
                // Windows read concurrently with pushes are sorted and inside the range.
                if let Some(t1) = r.newest_capture() {
                    let t0 = t1.add_ns(-100);
                    r.read_window_into(StreamId::ImuRight, t0, t1, &mut window);
                    ok &= window.windows(2).all(|w| w[0].seq + 1 == w[1].seq);
                    ok &= window.iter().all(|s| t0 <= s.capture && s.capture <= t1);
                }
                if finished {
                    break;
                }
                for _ in 0..pause {
                    std::hint::spin_loop();
                }
                if pause > 0 {
                    std::thread::yield_now();
                }
            }
            (r, ok, last)
        })
    };
    let fast = spawn_reader("fast", 0);
    let slow = spawn_reader("slow", 20_000);
    for i in 0..N {
        set.push(imu(i, i as i64));
    }
    done.store(true, Ordering::Release);
    let (fast, fast_ok, fast_last) = fast.join().unwrap();
    let (slow, slow_ok, slow_last) = slow.join().unwrap();
    assert!(fast_ok && slow_ok);
    assert_eq!((fast_last, slow_last), (Some(N - 1), Some(N - 1)));
    let stats = BufferStats::collect(&set, [&fast, &slow]);
    stats.check().unwrap();
    for c in ["fast", "slow"] {
        let s = stats.consumers[c]["imu-right"];
        assert_eq!(s.pending, 0);
        assert_eq!(s.delivered + s.dropped, N, "{c}: {s:?}");
    }
    assert!(stats.consumers["slow"]["imu-right"].dropped > 0);
    assert_eq!(stats.streams["imu-right"].produced, N);
    assert_eq!(stats.streams["imu-right"].evicted, N - 256);
}

proptest! {
    /// Against a naive model: the buffer holds the last `cap` accepted samples, a window
    /// returns exactly those with `t0 ≤ capture ≤ t1` in order.
    #[test]
    fn windows_match_a_naive_model(
        cap in 1usize..40,
        steps in proptest::collection::vec(0i64..5, 0..120),
        windows in proptest::collection::vec((0i64..400, 0i64..400), 1..20),
    ) {
        let b = StreamBuffer::new(StreamId::ImuRight, cap);
        let mut t = 0i64;
        let mut model = Vec::new();
        for (i, dt) in steps.iter().enumerate() {
            t += dt;
            b.push(imu(i as u64, t));
            model.push((i as u64, t));
        }
        let held = &model[model.len().saturating_sub(cap)..];
        for (t0, t1) in windows {
            let mut out = Vec::new();
            b.read_window(DeviceTime(t0), DeviceTime(t1), &mut out);
            let got: Vec<(u64, i64)> = out.iter().map(|s| (s.seq, s.capture.ns())).collect();
            let want: Vec<(u64, i64)> =
                held.iter().copied().filter(|&(_, c)| t0 <= c && c <= t1).collect();
            prop_assert_eq!(got, want);
        }
        let st = b.stats();
        prop_assert_eq!(st.produced, steps.len() as u64);
        prop_assert_eq!(st.evicted, steps.len().saturating_sub(cap) as u64);
    }
}
