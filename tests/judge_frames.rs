//! The frames a judge is shown, from a real Aria Gen1 recording (the unit-test sequence,
//! four 1408×1408 RGB frames): at most eight of the frames up to the request, oldest first,
//! each a JPEG of the frame turned upright (the recorded bottom-left corner is the upright
//! top-left); none before the first frame, and a damaged recording named in its error.

#[path = "common/cli.rs"]
mod cli;

use vista::aria::recording::{decode_image, AriaRecording, DecodedImage};
use vista::judge::frames::{FramesError, SessionFrames, FRAMES_PER_ITEM};
use vista::sample::{ImageFrame, Payload, StreamId};

/// Mean of the `n`×`n` patch at (`x0`, `y0`), per channel.
fn patch_mean(img: &DecodedImage, x0: usize, y0: usize, n: usize) -> Vec<f64> {
    let c = img.channels as usize;
    let mut sum = vec![0.0; c];
    for y in y0..y0 + n {
        for x in x0..x0 + n {
            for (k, s) in sum.iter_mut().enumerate() {
                *s += f64::from(img.pixels[(y * img.width as usize + x) * c + k]);
            }
        }
    }
    sum.iter().map(|s| s / (n * n) as f64).collect()
}

#[test]
fn the_frames_up_to_a_request_upright_as_jpeg() {
    let vrs = cli::gen1_vrs();
    let rec = AriaRecording::open(&vrs).unwrap();
    let recorded: Vec<(i64, ImageFrame)> = rec
        .stream_samples(StreamId::CameraRgb)
        .filter_map(|s| match s.unwrap() {
            (_, t, Payload::Image(f)) => Some((t.ns(), f)),
            _ => None,
        })
        .collect();
    assert_eq!(recorded.len(), 4);
    let frames = SessionFrames::open(&vrs).unwrap();

    let all = frames.until(i64::MAX).unwrap();
    assert_eq!(all.len(), recorded.len().min(FRAMES_PER_ITEM));
    for (f, (t, raw)) in all.iter().zip(&recorded) {
        assert_eq!(f.capture_ns, *t);
        let shown = decode_image(&ImageFrame::still(f.jpeg.clone())).unwrap();
        let raw = decode_image(raw).unwrap();
        assert_eq!((shown.width, shown.height), (raw.height, raw.width));
        // Patches inside the fisheye's image circle (its corners are dark): the recorded
        // patch at (x, y) is the upright one at (h − y − n, x).
        let n = 48;
        let h = raw.height as usize;
        let mut apart = 0.0f64;
        for (rx, ry) in [
            (h / 4, h / 4),
            (h / 4, 3 * h / 4 - n),
            (3 * h / 4 - n, h / 2),
        ] {
            let a = patch_mean(&shown, h - ry - n, rx, n);
            let b = patch_mean(&raw, rx, ry, n);
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 6.0, "({rx}, {ry}): {a:?} vs {b:?}");
            }
            // The same place unturned is another part of the scene.
            let c = patch_mean(&raw, h - ry - n, rx, n);
            apart = apart.max(
                a.iter()
                    .zip(&c)
                    .map(|(x, y)| (x - y).abs())
                    .fold(0.0, f64::max),
            );
        }
        assert!(apart > 12.0, "the patches do not tell a turn: {apart}");
    }

    // Up to the second frame: those two.
    let two = frames.until(recorded[1].0).unwrap();
    assert_eq!(
        two.iter().map(|f| f.capture_ns).collect::<Vec<_>>(),
        vec![recorded[0].0, recorded[1].0]
    );
    // Before the first: none, said.
    let e = frames.until(recorded[0].0 - 1).unwrap_err();
    assert!(matches!(e, FramesError::NoFrame { .. }), "{e}");
    assert!(e.to_string().contains("no RGB camera frame"), "{e}");
}

#[test]
fn a_damaged_or_missing_recording_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(cli::gen1_vrs()).unwrap();
    let cut = tmp.path().join("cut.vrs");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    // A cut file is read as far as it goes (its frames before the cut are shown), or
    // refused by name; never a panic or a frame that does not decode.
    match SessionFrames::open(&cut).and_then(|f| f.until(i64::MAX)) {
        Ok(frames) => {
            assert!(frames.len() < 4, "a third of the file");
            for f in frames {
                decode_image(&ImageFrame::still(f.jpeg)).unwrap();
            }
        }
        Err(e) => assert!(e.to_string().contains("cut.vrs"), "{e}"),
    }
    let e = SessionFrames::open(tmp.path()).unwrap_err();
    assert!(
        e.to_string().contains("recording.vrs"),
        "a session folder without its recording: {e}"
    );
}
