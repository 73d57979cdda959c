//! Steady state allocates nothing: pushing (with eviction), draining new samples and
//! reading windows, for IMU and image samples, counted by a global allocator (on this
//! test's thread only: the test harness's own threads may allocate at any time).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use vista::buffer::{BufferConfig, BufferSet};
use vista::sample::{ImageEncoding, ImageFrame, ImuSample, Payload, Sample, StreamId};
use vista::time::{DeviceTime, HostTime};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn counting() -> bool {
    COUNTING.try_with(|c| c.get()).unwrap_or(false)
}

fn set_counting(on: bool) {
    COUNTING.with(|c| c.set(on));
}
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn imu(seq: u64) -> Sample {
    Sample {
        stream: StreamId::ImuRight,
        capture: DeviceTime(seq as i64 * 1_000_000),
        arrival: HostTime(0),
        seq,
        payload: Payload::Imu(ImuSample::default()),
    }
}

fn image(seq: u64, data: &bytes::Bytes) -> Sample {
    Sample {
        stream: StreamId::CameraRgb,
        capture: DeviceTime(seq as i64 * 100_000_000),
        arrival: HostTime(0),
        seq,
        payload: Payload::Image(ImageFrame {
            width: 2,
            height: 2,
            encoding: ImageEncoding::Jpeg,
            data: data.clone(),
            frame_number: seq,
            exposure_s: 0.0,
            gain: 1.0,
        }),
    }
}

#[test]
fn steady_state_push_drain_and_windows_do_not_allocate() {
    let set = Arc::new(BufferSet::new(
        BufferConfig::default()
            .with_capacity(StreamId::ImuRight, 1_000)
            .with_capacity(StreamId::CameraRgb, 20),
    ));
    let mut readers = [
        set.reader("perception"),
        set.reader("encoder"),
        set.reader("window"),
    ];
    // Shared image bytes (a JPEG from the source would be shared the same way).
    let jpeg = bytes::Bytes::from(vec![0xFFu8; 4096]);
    let _ = jpeg.clone(); // promote to shared storage once, as any reader would
    let mut window: Vec<Sample> = Vec::new();
    let mut checksum = 0u64;

    let mut step = |seq: u64,
                    readers: &mut [vista::buffer::Reader; 3],
                    window: &mut Vec<Sample>| {
        set.push(imu(seq));
        if seq % 100 == 0 {
            set.push(image(seq / 100, &jpeg));
        }
        // Perception drains every 50 samples and reads a 200 ms IMU window.
        if seq % 50 == 0 {
            readers[0].drain_new(StreamId::ImuRight, |s| checksum += s.seq);
            let t1 = DeviceTime(seq as i64 * 1_000_000);
            readers[0].read_window(StreamId::ImuRight, t1.add_ns(-200_000_000), t1, |s| {
                checksum += s.seq
            });
        }
        // The encoder drains images.
        readers[1].drain_new(StreamId::CameraRgb, |s| checksum += s.seq);
        // The window builder copies 500 ms of IMU into its own vector every 10 samples.
        if seq % 10 == 0 {
            let t1 = DeviceTime(seq as i64 * 1_000_000);
            readers[2].read_window_into(StreamId::ImuRight, t1.add_ns(-500_000_000), t1, window);
            checksum += window.len() as u64;
        }
    };

    // Warm up: fill the buffers past capacity and grow every scratch vector.
    for seq in 0..5_000 {
        step(seq, &mut readers, &mut window);
    }
    ALLOCS.store(0, Ordering::Relaxed);
    set_counting(true);
    for seq in 5_000..50_000 {
        step(seq, &mut readers, &mut window);
    }
    let allocs = ALLOCS.load(Ordering::Relaxed);
    // The counter works: one deliberate allocation is seen.
    let probe = std::hint::black_box(Box::new(7u64));
    let after_probe = ALLOCS.load(Ordering::Relaxed);
    set_counting(false);
    drop(probe);
    assert_eq!(after_probe, allocs + 1, "the counting allocator counts");
    assert_eq!(allocs, 0, "allocations in steady state");
    assert!(checksum > 0);
    // Sanity: the work really happened and was counted.
    let st = readers[0].stream_stats(StreamId::ImuRight);
    assert_eq!(st.delivered + st.dropped + st.pending, 50_000);
    assert_eq!(readers[1].stream_stats(StreamId::CameraRgb).delivered, 500);
}
