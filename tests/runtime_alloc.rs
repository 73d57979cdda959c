//! The ingest path does not allocate per sample: a run over twice as many samples makes
//! (almost) no more allocations than the shorter run, in lock-step and real-time modes.

use std::sync::atomic::Ordering;

use vista::buffer::Reader;
use vista::runtime::{run, ClockMode, Consumer, ConsumerError, RuntimeConfig};
use vista::sample::{ImuSample, Payload, Sample, StreamId};
use vista::source::VecSource;
use vista::time::{DeviceTime, HostTime};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{ALLOCS, COUNTING};

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

struct Drain;

impl Consumer for Drain {
    fn name(&self) -> &str {
        "drain"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        reader.drain_all_new(|s| {
            std::hint::black_box(s.seq);
        });
        Ok(())
    }
}

fn allocations_for(n: usize, mode: ClockMode) -> u64 {
    let samples: Vec<Sample> = (0..n)
        .map(|i| Sample {
            stream: if i % 2 == 0 {
                StreamId::ImuRight
            } else {
                StreamId::ImuLeft
            },
            capture: DeviceTime(i as i64 * 500_000),
            arrival: HostTime(0),
            seq: i as u64 / 2,
            payload: Payload::Imu(ImuSample::default()),
        })
        .collect();
    let source = Box::new(VecSource::new(samples));
    let mut config = RuntimeConfig::new(mode);
    config.lockstep_tick_ns = 1_000_000;
    let consumers: Vec<Box<dyn Consumer>> = vec![Box::new(Drain), Box::new(Drain)];
    ALLOCS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    let report = run(source, config, consumers).unwrap();
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(report.profile.streams["imu-right"].delivered, n as u64 / 2);
    ALLOCS.load(Ordering::SeqCst)
}

#[test]
fn ingest_does_not_allocate_per_sample() {
    for mode in [ClockMode::Virtual, ClockMode::RealTime { rate: 200.0 }] {
        let short = allocations_for(10_000, mode);
        let long = allocations_for(20_000, mode);
        // 10 000 more samples (and 5 000 more lock-step rounds): a per-sample or per-round
        // allocation would add thousands.
        assert!(
            long < short + 200,
            "{mode:?}: {short} allocations for 10k samples, {long} for 20k"
        );
        assert!(short > 0, "the counting allocator counts");
    }
}
