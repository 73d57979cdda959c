//! Wire-protocol overhead: encode + decode of a 1408² RGB JPEG-sized image frame and of an
//! IMU batch in memory, and one image frame through a real loopback TCP socket
//! (write → FrameReader → decoded frame). Targets: ≤ 1 ms p99 per image frame on loopback,
//! ≤ 100 µs per IMU batch.

use std::io::Write;
use std::net::{TcpListener, TcpStream};

use bytes::Bytes;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

use vista::sample::{ImageEncoding, ImageFrame, ImuSample, Payload, StreamId};
use vista::source::live::framed::FrameReader;
use vista::source::live::protocol::{decode_frame, encode_frame, Frame, Limits, TimedImu};
use vista::time::DeviceTime;

/// A JPEG-sized payload: Gen1 RGB 1408×1408 JPEGs are typically 300–600 KB.
fn image_frame() -> Frame {
    let data: Vec<u8> = (0..500_000u32).map(|i| (i * 31) as u8).collect();
    Frame::Sample {
        stream: StreamId::CameraRgb,
        capture: DeviceTime(1),
        payload: Payload::Image(ImageFrame {
            width: 1408,
            height: 1408,
            encoding: ImageEncoding::Jpeg,
            data: Bytes::from(data),
            frame_number: 1,
            exposure_s: 0.004,
            gain: 1.0,
        }),
    }
}

fn imu_batch() -> Frame {
    Frame::ImuBatch {
        stream: StreamId::ImuRight,
        samples: (0..20)
            .map(|i| TimedImu {
                capture: DeviceTime(i * 1_000_000),
                imu: ImuSample {
                    accel_mps2: [0.1, 9.8, 0.2],
                    gyro_radps: [0.01, 0.02, 0.03],
                    accel_valid: true,
                    gyro_valid: true,
                    temperature_c: 30.0,
                },
            })
            .collect(),
    }
}

fn in_memory(c: &mut Criterion) {
    let limits = Limits::default();
    for (name, frame) in [
        ("image_500kB_encode_decode", image_frame()),
        ("imu_batch_20_encode_decode", imu_batch()),
    ] {
        let mut buf = Vec::new();
        c.bench_function(name, |b| {
            b.iter(|| {
                buf.clear();
                encode_frame(black_box(&frame), &mut buf).unwrap();
                let body = Bytes::copy_from_slice(&buf[4..]);
                black_box(decode_frame(&body, &limits).unwrap())
            })
        });
    }
}

fn loopback(c: &mut Criterion) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let tx = TcpStream::connect(addr).unwrap();
    tx.set_nodelay(true).unwrap();
    let (rx, _) = listener.accept().unwrap();
    let mut reader = FrameReader::new(rx, "bench", Limits::default());
    for (name, frame) in [
        ("loopback_image_500kB", image_frame()),
        ("loopback_imu_batch_20", imu_batch()),
    ] {
        let mut buf = Vec::new();
        encode_frame(&frame, &mut buf).unwrap();
        // Writer on its own thread so a large frame never deadlocks on socket buffers.
        c.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut w = tx.try_clone().unwrap();
                let bytes = buf.clone();
                let writer = std::thread::spawn(move || {
                    for _ in 0..iters {
                        w.write_all(&bytes).unwrap();
                    }
                });
                let start = std::time::Instant::now();
                for _ in 0..iters {
                    black_box(reader.read_frame().unwrap());
                }
                let t = start.elapsed();
                writer.join().unwrap();
                t
            })
        });
    }
}

/// One frame at a time through loopback (the next is written only after the previous was
/// decoded): write start → decoded frame, per frame; prints p50 / p99 / max. Criterion gives
/// means; the targets are stated as p99.
fn loopback_latency(c: &mut Criterion) {
    let _ = c;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let tx = TcpStream::connect(addr).unwrap();
    tx.set_nodelay(true).unwrap();
    let (rx, _) = listener.accept().unwrap();
    let mut reader = FrameReader::new(rx, "bench", Limits::default());
    for (name, frame, n) in [
        ("image_500kB", image_frame(), 2_000u32),
        ("imu_batch_20", imu_batch(), 20_000),
    ] {
        let mut buf = Vec::new();
        encode_frame(&frame, &mut buf).unwrap();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let (t0_tx, t0_rx) = std::sync::mpsc::channel::<std::time::Instant>();
        let mut w = tx.try_clone().unwrap();
        let writer = std::thread::spawn(move || {
            for _ in 0..n {
                if go_rx.recv().is_err() {
                    return;
                }
                t0_tx.send(std::time::Instant::now()).unwrap();
                w.write_all(&buf).unwrap();
            }
        });
        let mut lat_ns = Vec::with_capacity(n as usize);
        for _ in 0..n {
            go_tx.send(()).unwrap();
            black_box(reader.read_frame().unwrap());
            let t0 = t0_rx.recv().unwrap();
            lat_ns.push(t0.elapsed().as_nanos() as u64);
        }
        writer.join().unwrap();
        lat_ns.sort_unstable();
        let q = |p: f64| lat_ns[((lat_ns.len() - 1) as f64 * p).round() as usize] as f64 / 1e3;
        println!(
            "loopback_latency/{name}: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs over {n} frames",
            q(0.5),
            q(0.99),
            q(1.0)
        );
    }
}

criterion_group!(benches, in_memory, loopback, loopback_latency);
criterion_main!(benches);
