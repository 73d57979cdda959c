//! Frames rendered on several threads are byte-identical to a single-threaded session, and
//! the eye-tracking camera (`211-1`, both eyes side by side, 640×240 greyscale) is written
//! at its rate and reads back through our reader with each pupil where the session's MPS
//! eye gaze (read back through our MPS reader) puts it.

use std::path::Path;

use vista::aria::mps::read_eye_gaze;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::sample::{Payload, StreamId};
use vista::source::session_files::SessionFiles;
use vista::synth::eyes::{pupil_centre_px, Eye};
use vista::synth::gaze::Gaze;
use vista::synth::{find_scenario, write_session, SynthOptions};

fn synth(name: &str, secs: f64, threads: usize, dir: &Path) {
    let sc = find_scenario(Path::new("scenarios"), name).unwrap();
    let opts = SynthOptions {
        seed: 5,
        duration_s: Some(secs),
        rgb_fps: Some(2.0),
        threads: Some(threads),
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts).unwrap();
}

#[test]
fn threads_do_not_change_the_bytes() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("one"), t.path().join("four"));
    // People, a vehicle, a curb and a sign: every moving part of the renderer.
    synth("street_crossing", 2.0, 1, &a);
    synth("street_crossing", 2.0, 4, &b);
    for f in [
        "recording.vrs",
        "ground_truth.json",
        "mps/slam/semidense_points.csv.gz",
    ] {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(x == y, "{f} differs between 1 and 4 threads");
    }
}

/// Centroid of the pupil-dark pixels (< 40) of columns `[x0, x1)` of a 640-wide image.
fn dark_centroid(px: &[u8], x0: usize, x1: usize) -> Option<(f64, f64)> {
    let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
    for (i, &v) in px.iter().enumerate() {
        let (x, y) = (i % 640, i / 640);
        if v < 40 && (x0..x1).contains(&x) {
            sx += x as f64 + 0.5;
            sy += y as f64 + 0.5;
            n += 1.0;
        }
    }
    (n > 100.0).then(|| (sx / n, sy / n))
}

#[test]
fn the_eye_tracking_camera_follows_the_gaze() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    // find_exit: gaze on the EXIT sign, then the trolley (4.5 s on). Exact MPS files: the
    // eye images are drawn from the true gaze and compared with the gaze file to 1.5 px.
    let sc = find_scenario(Path::new("scenarios"), "find_exit").unwrap();
    let opts = SynthOptions {
        seed: 2,
        duration_s: Some(6.0),
        rgb_fps: Some(0.0),
        slam_fps: None,
        semidense: None,
        mps_error: None,
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts).unwrap();
    let files = SessionFiles::locate(dir).unwrap();
    let gaze = read_eye_gaze(files.mps.eye_gaze.as_ref().unwrap()).unwrap();
    let rec = AriaRecording::open(&files.recording).unwrap();
    assert_eq!(rec.image_size(StreamId::CameraEt), Some((640, 240)));
    let (mut frames, mut moved) = (0, 0.0f64);
    let mut first_x = None;
    for s in rec.stream_samples(StreamId::CameraEt) {
        let (_, t, payload) = s.unwrap();
        let Payload::Image(f) = payload else {
            panic!("not an image")
        };
        let img = decode_image(&f).unwrap();
        assert_eq!((img.width, img.height, img.channels), (640, 240, 1));
        // The MPS gaze row of the same instant (both at 10 Hz from the session start).
        let g = gaze
            .iter()
            .find(|g| g.tracking_time.ns() == t.ns())
            .unwrap_or_else(|| panic!("no gaze row at {}", t.ns()));
        let gz = Gaze {
            yaw_rad: g.yaw_rad,
            pitch_rad: g.pitch_rad,
            depth_m: g.depth_m,
            target: None,
            reachable: true,
        };
        for (eye, x0, x1) in [(Eye::Left, 0, 320), (Eye::Right, 320, 640)] {
            let (ex, ey) = pupil_centre_px(&gz, eye, 640, 240);
            let (cx, cy) = dark_centroid(&img.pixels, x0, x1).unwrap();
            assert!(
                (cx - ex).abs() < 1.5 && (cy - ey).abs() < 1.5,
                "{eye:?} at {}: pupil at ({cx:.1}, {cy:.1}), gaze puts it at ({ex:.1}, {ey:.1})",
                t.ns()
            );
            if eye == Eye::Left {
                let x = *first_x.get_or_insert(cx);
                moved = moved.max((cx - x).abs());
            }
        }
        frames += 1;
    }
    // 10 fps for 6 s.
    assert_eq!(frames, 60);
    // The gaze changes target (EXIT sign → trolley): the pupils move visibly.
    assert!(moved > 10.0, "pupil moved at most {moved:.1} px");
}
