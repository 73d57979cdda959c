//! Unit tests of the buffer module: drop-oldest counts, cursors, windows, accounting.

use std::sync::Arc;

use super::*;
use crate::sample::{ImuSample, Payload, Sample, StreamId};
use crate::time::{DeviceTime, HostTime};

fn imu(seq: u64, t_ns: i64) -> Sample {
    Sample {
        stream: StreamId::ImuRight,
        capture: DeviceTime(t_ns),
        arrival: HostTime(0),
        seq,
        payload: Payload::Imu(ImuSample::default()),
    }
}

fn small_set(cap: usize) -> Arc<BufferSet> {
    Arc::new(BufferSet::new(
        BufferConfig::default().with_capacity(StreamId::ImuRight, cap),
    ))
}

#[test]
fn full_buffer_drops_oldest_with_exact_counts() {
    let b = StreamBuffer::new(StreamId::ImuRight, 4);
    let outcomes: Vec<bool> = (0..10).map(|i| b.push(imu(i, i as i64)).dropped).collect();
    assert_eq!(
        outcomes,
        [false, false, false, false, true, true, true, true, true, true]
    );
    let st = b.stats();
    assert_eq!(
        (st.produced, st.evicted, st.len, st.high_water),
        (10, 6, 4, 4)
    );
    let mut out = Vec::new();
    let r = b.read_since(0, &mut out);
    assert_eq!((r.missed, r.copied, r.next), (6, 4, 10));
    assert_eq!(out.iter().map(|s| s.seq).collect::<Vec<_>>(), [6, 7, 8, 9]);
}

#[test]
fn backwards_capture_is_rejected_and_counted() {
    let b = StreamBuffer::new(StreamId::ImuRight, 8);
    assert!(!b.push(imu(0, 100)).rejected);
    assert!(
        !b.push(imu(1, 100)).rejected,
        "equal capture times are allowed"
    );
    assert!(b.push(imu(2, 99)).rejected);
    assert!(!b.push(imu(3, 101)).rejected);
    let st = b.stats();
    assert_eq!((st.produced, st.rejected, st.len), (3, 1, 3));
}

#[test]
fn window_is_exactly_the_samples_in_range_across_the_wrap() {
    let b = StreamBuffer::new(StreamId::ImuRight, 8);
    // 13 pushes into 8 slots: the held samples straddle the ring's wrap point.
    for i in 0..13u64 {
        b.push(imu(i, 10 * i as i64));
    }
    // Held: seq 5..=12, captures 50..=120.
    let all: Vec<i64> = (5..13).map(|i| 10 * i).collect();
    for t0 in (30..140).step_by(5) {
        for t1 in (30..140).step_by(5) {
            let mut out = Vec::new();
            let n = b.read_window(DeviceTime(t0), DeviceTime(t1), &mut out);
            let want: Vec<i64> = all
                .iter()
                .copied()
                .filter(|&t| t0 <= t && t <= t1)
                .collect();
            let got: Vec<i64> = out.iter().map(|s| s.capture.ns()).collect();
            assert_eq!(got, want, "window [{t0}, {t1}]");
            assert_eq!(n, want.len());
        }
    }
}

#[test]
fn slow_reader_loses_only_the_oldest_and_accounting_holds() {
    let set = small_set(5);
    let mut fast = set.reader("fast");
    let mut slow = set.reader("slow");
    let mut fast_seen = Vec::new();
    let mut slow_seen = Vec::new();
    for i in 0..100u64 {
        set.push(imu(i, i as i64));
        fast.drain_new(StreamId::ImuRight, |s| fast_seen.push(s.seq));
        if i % 17 == 16 {
            slow.drain_new(StreamId::ImuRight, |s| slow_seen.push(s.seq));
        }
    }
    assert_eq!(fast_seen, (0..100).collect::<Vec<_>>());
    // The slow reader drains at i = 16, 33, 50, 67, 84: each time it gets exactly the 5
    // newest samples (the buffer's capacity), never an older one after a newer one.
    let want: Vec<u64> = [16u64, 33, 50, 67, 84]
        .iter()
        .flat_map(|&i| (i - 4)..=i)
        .collect();
    assert_eq!(slow_seen, want);

    let stats = BufferStats::collect(&set, [&fast, &slow]);
    stats.check().unwrap();
    let s = stats.consumers["slow"]["imu-right"];
    assert_eq!(s.delivered, 25);
    // 85 samples were pushed by the last drain; 25 delivered, 60 lost; 15 pushed after.
    assert_eq!(s.pending, 5);
    assert_eq!(s.dropped, 100 - 25 - 5);
    let f = stats.consumers["fast"]["imu-right"];
    assert_eq!((f.delivered, f.dropped, f.pending), (100, 0, 0));
}

#[test]
fn window_reads_do_not_move_the_cursor() {
    let set = small_set(16);
    let mut r = set.reader("r");
    for i in 0..4u64 {
        set.push(imu(i, i as i64 * 10));
    }
    let mut seen = Vec::new();
    let n = r.read_window(StreamId::ImuRight, DeviceTime(10), DeviceTime(20), |s| {
        seen.push(s.seq)
    });
    assert_eq!((n, seen.as_slice()), (2, &[1u64, 2][..]));
    assert_eq!(r.unread(StreamId::ImuRight), 4);
    assert_eq!(r.drain_new(StreamId::ImuRight, |_| {}), 4);
    assert_eq!(r.newest_capture(), Some(DeviceTime(30)));
    assert_eq!(r.drain_new(StreamId::ImuRight, |_| {}), 0);
    let mut out = vec![imu(99, 99)];
    assert_eq!(
        r.read_window_into(StreamId::ImuRight, DeviceTime(0), DeviceTime(0), &mut out),
        1
    );
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, 0);
}

#[test]
fn empty_and_inverted_windows_are_empty() {
    let b = StreamBuffer::new(StreamId::ImuRight, 4);
    let mut out = Vec::new();
    assert_eq!(b.read_window(DeviceTime(0), DeviceTime(100), &mut out), 0);
    b.push(imu(0, 50));
    assert_eq!(b.read_window(DeviceTime(60), DeviceTime(40), &mut out), 0);
    assert_eq!(b.time_range(), Some((DeviceTime(50), DeviceTime(50))));
}

#[test]
fn drain_into_appends_and_counts_like_drain() {
    let set = small_set(4);
    let mut r = set.reader("r");
    for i in 0..6u64 {
        set.push(imu(i, i as i64));
    }
    let mut out = vec![imu(100, 0)];
    assert_eq!(r.drain_new_into(StreamId::ImuRight, &mut out), 4);
    assert_eq!(
        out.iter().map(|s| s.seq).collect::<Vec<_>>(),
        [100, 2, 3, 4, 5]
    );
    let st = r.stream_stats(StreamId::ImuRight);
    assert_eq!(
        (st.delivered, st.dropped, st.pending, st.max_lag),
        (4, 2, 0, 6)
    );
    assert_eq!(r.newest_capture(), Some(DeviceTime(5)));
}

#[test]
fn accounting_check_catches_a_mismatch() {
    let set = small_set(4);
    let mut r = set.reader("r");
    for i in 0..6u64 {
        set.push(imu(i, i as i64));
    }
    r.drain_new(StreamId::ImuRight, |_| {});
    let mut stats = BufferStats::collect(&set, [&r]);
    stats.check().unwrap();
    // Two consumers with the same name are both kept.
    stats.add_consumer("r", r.stats());
    assert!(stats.consumers.contains_key("r#2"));
    // Lose one delivered sample: the invariant no longer holds, and the error says where.
    if let Some(s) = stats
        .consumers
        .get_mut("r")
        .and_then(|m| m.get_mut("imu-right"))
    {
        s.delivered -= 1;
    }
    let e = stats.check().unwrap_err();
    assert_eq!((e.consumer.as_str(), e.stream.as_str()), ("r", "imu-right"));
    assert_eq!(
        (e.produced, e.delivered, e.dropped, e.pending),
        (6, 3, 2, 0)
    );
    assert!(e.to_string().contains("produced 6"));
}

#[test]
fn stats_cover_only_subscribed_or_drained_streams() {
    let set = Arc::new(BufferSet::new(
        BufferConfig::default().with_capacity(StreamId::ImuLeft, 2),
    ));
    let mut r = set.reader("r");
    r.subscribe_only([StreamId::ImuRight]);
    for i in 0..5u64 {
        set.push(imu(i, i as i64));
        let mut left = imu(i, i as i64);
        left.stream = StreamId::ImuLeft;
        set.push(left);
    }
    assert!(r.is_subscribed(StreamId::ImuRight) && !r.is_subscribed(StreamId::ImuLeft));
    let streams: Vec<StreamId> = r.stats().into_iter().map(|(s, _)| s).collect();
    assert_eq!(streams, [StreamId::ImuRight]);
    // Draining a stream brings it into the accounting, with what it lost before.
    assert_eq!(r.drain_new(StreamId::ImuLeft, |_| {}), 2);
    let stats = r.stats();
    assert_eq!(stats.len(), 2);
    let left = stats[1].1;
    assert_eq!((left.delivered, left.dropped, left.pending), (2, 3, 0));
}

#[test]
fn a_batch_push_matches_single_pushes() {
    // The same 23 samples pushed one by one into one buffer and in batches of 1..=9 into
    // another (some batches longer than the ring, one out of order, one of another
    // stream): same contents, same counters.
    let single = StreamBuffer::new(StreamId::ImuRight, 5);
    let batched = StreamBuffer::new(StreamId::ImuRight, 5);
    let mut all: Vec<Sample> = (0..23u64).map(|i| imu(i, 10 * i as i64)).collect();
    all[11].capture = DeviceTime(-1); // goes backwards: refused
    let mut other = imu(99, 1_000);
    other.stream = StreamId::ImuLeft;
    for s in &all {
        single.push(s.clone());
    }
    let mut batch = Vec::new();
    let mut outcomes = BatchOutcome::default();
    let mut rest = all.as_slice();
    let mut size = 1;
    while !rest.is_empty() {
        let (now, later) = rest.split_at(size.min(rest.len()));
        batch.extend_from_slice(now);
        if size == 3 {
            batch.push(other.clone());
        }
        let o = batched.push_batch(&mut batch);
        assert!(batch.is_empty());
        outcomes.pushed += o.pushed;
        outcomes.evicted += o.evicted;
        outcomes.rejected += o.rejected;
        outcomes.wrong_stream += o.wrong_stream;
        rest = later;
        size = size % 9 + 1;
    }
    assert_eq!(
        (
            outcomes.pushed,
            outcomes.evicted,
            outcomes.rejected,
            outcomes.wrong_stream
        ),
        (22, 17, 1, 1)
    );
    assert_eq!(single.stats(), batched.stats());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert_eq!(single.read_since(3, &mut a), batched.read_since(3, &mut b));
    assert_eq!(a, b);
    assert_eq!(
        a.iter().map(|s| s.seq).collect::<Vec<_>>(),
        [18, 19, 20, 21, 22]
    );
    assert_eq!(single.time_range(), batched.time_range());
    assert_eq!(
        batched.time_range(),
        Some((DeviceTime(180), DeviceTime(220)))
    );
}

#[test]
fn a_batch_longer_than_the_ring_keeps_its_newest() {
    let b = StreamBuffer::new(StreamId::ImuRight, 3);
    b.push(imu(0, 0));
    let mut batch: Vec<Sample> = (1..9u64).map(|i| imu(i, i as i64)).collect();
    let o = b.push_batch(&mut batch);
    assert_eq!((o.pushed, o.evicted, o.rejected), (8, 6, 0));
    let mut out = Vec::new();
    let r = b.read_since(0, &mut out);
    assert_eq!((r.missed, r.copied, r.next), (6, 3, 9));
    assert_eq!(out.iter().map(|s| s.seq).collect::<Vec<_>>(), [6, 7, 8]);
    let st = b.stats();
    assert_eq!(
        (st.produced, st.evicted, st.len, st.high_water),
        (9, 6, 3, 3)
    );
}

#[test]
fn a_batch_releases_evicted_images() {
    let b = StreamBuffer::new(StreamId::CameraRgb, 2);
    let data = bytes::Bytes::from(vec![7u8; 64]);
    let frame = |seq: u64| Sample {
        stream: StreamId::CameraRgb,
        capture: DeviceTime(seq as i64),
        arrival: HostTime(0),
        seq,
        payload: Payload::Image(crate::sample::ImageFrame {
            width: 8,
            height: 8,
            encoding: crate::sample::ImageEncoding::Jpeg,
            data: if seq == 0 {
                data.clone()
            } else {
                bytes::Bytes::new()
            },
            frame_number: seq,
            exposure_s: 0.0,
            gain: 0.0,
        }),
    };
    let mut batch = vec![frame(0), frame(1)];
    b.push_batch(&mut batch);
    assert!(!data.is_unique());
    batch.extend([frame(2), frame(3)]);
    b.push_batch(&mut batch);
    assert!(data.is_unique(), "the evicted frame's bytes are released");
}

#[test]
fn a_ring_of_mixed_payloads_batches_like_single_pushes_and_releases_images() {
    // Plain samples are overwritten in place and copied out in bulk; images are swapped out
    // and cloned. A ring holding both, fed in batches of 1..=9 (wrapping, some longer than
    // the ring), must match single pushes and still release every evicted image.
    let data = bytes::Bytes::from(vec![7u8; 64]);
    let sample = |seq: u64| Sample {
        stream: StreamId::CameraRgb,
        capture: DeviceTime(10 * seq as i64),
        arrival: HostTime(0),
        seq,
        payload: if seq % 3 == 0 {
            Payload::Image(crate::sample::ImageFrame {
                width: 8,
                height: 8,
                encoding: crate::sample::ImageEncoding::Jpeg,
                data: data.clone(),
                frame_number: seq,
                exposure_s: 0.0,
                gain: 0.0,
            })
        } else {
            Payload::Imu(ImuSample {
                temperature_c: seq as f32,
                ..ImuSample::default()
            })
        },
    };
    let single = StreamBuffer::new(StreamId::CameraRgb, 5);
    let batched = StreamBuffer::new(StreamId::CameraRgb, 5);
    let all: Vec<Sample> = (0..40u64).map(sample).collect();
    for s in &all {
        single.push(s.clone());
    }
    let (mut rest, mut size, mut batch) = (all.as_slice(), 1, Vec::new());
    let (mut cursor, mut seen) = (0, Vec::new());
    while !rest.is_empty() {
        let (now, later) = rest.split_at(size.min(rest.len()));
        batch.extend_from_slice(now);
        batched.push_batch(&mut batch);
        cursor = batched.read_since(cursor, &mut seen).next;
        rest = later;
        size = size % 9 + 1;
    }
    assert_eq!(single.stats(), batched.stats());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert_eq!(single.read_since(0, &mut a), batched.read_since(0, &mut b));
    assert_eq!(a, b);
    assert_eq!(
        a.iter().map(|s| s.seq).collect::<Vec<_>>(),
        (35..40).collect::<Vec<_>>()
    );
    // What a reader copied out is what was pushed (the sequence numbers it did not miss).
    assert!(seen.iter().all(|s| all[s.seq as usize] == *s));
    // Evict everything with plain samples: no image bytes may stay referenced.
    for buf in [&single, &batched] {
        let mut plain: Vec<Sample> = (40..45u64)
            .map(|i| {
                let mut s = sample(i);
                s.payload = Payload::Imu(ImuSample::default());
                s
            })
            .collect();
        buf.push_batch(&mut plain);
    }
    drop((all, a, b, seen));
    assert!(
        data.is_unique(),
        "every evicted or copied image was released"
    );
}
