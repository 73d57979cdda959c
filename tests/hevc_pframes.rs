//! H.265 frames between key frames, which the real Aria Gen2 sample lacks: streams made by
//! `scripts/make_hevc_pframes.sh` (x265: I P P I P P I, grey 4:0:0 and colour 4:2:0), read in
//! order through `StreamDecoders` as a recording's reader does, against ffmpeg's own decode.

use vista::aria::recording::{decode_image, StreamDecoders};
use vista::sample::{ImageEncoding, ImageFrame, StreamId};

const DIR: &str = "tests/data/hevc";
const W: u32 = 128;
const H: u32 = 96;

/// The stream's access units: a new one starts at a parameter set, delimiter or prefix SEI,
/// or at a slice that begins a picture, once the current one holds a slice.
fn access_units(b: &[u8]) -> Vec<Vec<u8>> {
    let mut starts = Vec::new();
    let mut i = 0;
    while i + 3 <= b.len() {
        if b[i..i + 3] == [0, 0, 1] {
            starts.push(i);
            i += 3;
        } else {
            i += 1;
        }
    }
    let mut units: Vec<Vec<u8>> = Vec::new();
    let mut has_slice = false;
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(b.len());
        let nal = &b[s..end];
        let kind = (nal[3] >> 1) & 0x3f;
        let slice = kind < 32;
        let first_slice = slice && nal[5] & 0x80 != 0;
        let opens = matches!(kind, 32..=35 | 39) || first_slice;
        if units.is_empty() || (opens && has_slice) {
            units.push(Vec::new());
            has_slice = false;
        }
        units.last_mut().unwrap().extend_from_slice(&[0]);
        units.last_mut().unwrap().extend_from_slice(nal);
        has_slice |= slice;
    }
    units
}

/// The frames as a recording holds them: key frame index from the group (a key frame
/// every 3).
fn frames(name: &str) -> Vec<ImageFrame> {
    let b = std::fs::read(format!("{DIR}/{name}")).unwrap();
    access_units(&b)
        .into_iter()
        .enumerate()
        .map(|(i, au)| ImageFrame {
            width: W,
            height: H,
            encoding: ImageEncoding::Hevc {
                key_frame_index: (i % 3) as u32,
            },
            data: au.into(),
            frame_number: i as u64,
            exposure_s: 0.001,
            gain: 1.0,
        })
        .collect()
}

fn pixels(f: &ImageFrame) -> (u8, Vec<u8>) {
    let img = decode_image(f).unwrap_or_else(|e| panic!("frame {}: {e}", f.frame_number));
    assert_eq!((img.width, img.height), (W, H));
    (img.channels, img.pixels)
}

#[test]
fn grey_frames_between_key_frames_decode_in_order_as_ffmpeg_does() {
    let fs = frames("pframes_gray.h265");
    assert_eq!(fs.len(), 7);
    let want = std::fs::read(format!("{DIR}/pframes_gray.ffmpeg.gray")).unwrap();
    let mut dec = StreamDecoders::default();
    for (i, f) in fs.into_iter().enumerate() {
        let out = dec.hevc_frame(StreamId::CameraSlamLeft, f).unwrap();
        // Key frames stay encoded for whoever needs them; the others come out as pixels.
        match out.encoding {
            ImageEncoding::Hevc { key_frame_index } => assert_eq!(key_frame_index, 0, "#{i}"),
            ImageEncoding::Raw {
                pixel_format,
                stride,
            } => {
                assert_eq!((pixel_format, stride), (1, W), "#{i}");
                assert_ne!(i % 3, 0, "#{i}: a key frame decoded eagerly");
            }
            other => panic!("#{i}: {other:?}"),
        }
        let (channels, px) = pixels(&out);
        assert_eq!(channels, 1);
        let n = (W * H) as usize;
        assert!(
            px == want[i * n..(i + 1) * n],
            "frame {i} differs from ffmpeg's"
        );
    }
}

#[test]
fn colour_frames_between_key_frames_decode_to_rgb() {
    let fs = frames("pframes_yuv420.h265");
    let yuv = std::fs::read(format!("{DIR}/pframes_yuv420.ffmpeg.yuv")).unwrap();
    let mut dec = StreamDecoders::default();
    for (i, f) in fs.into_iter().enumerate() {
        let out = dec.hevc_frame(StreamId::CameraRgb, f).unwrap();
        let (channels, px) = pixels(&out);
        assert_eq!(channels, 3);
        // Back to luma (BT.601, limited range): within rounding of ffmpeg's Y plane, where no
        // channel was clipped to 0 or 255 (most of the pattern's saturated colours are).
        let n = (W * H) as usize;
        let luma = &yuv[i * n * 3 / 2..i * n * 3 / 2 + n];
        let mut worst = 0.0f64;
        let mut compared = 0;
        for (k, rgb) in px.chunks_exact(3).enumerate() {
            if rgb.iter().any(|&c| !(3..=252).contains(&c)) {
                continue;
            }
            compared += 1;
            let y = 16.0
                + (65.481 * f64::from(rgb[0])
                    + 128.553 * f64::from(rgb[1])
                    + 24.966 * f64::from(rgb[2]))
                    / 255.0;
            worst = worst.max((y - f64::from(luma[k])).abs());
        }
        assert!(
            compared > 1000,
            "frame {i}: {compared} of {n} pixels unclipped"
        );
        assert!(worst <= 3.0, "frame {i}: luma off by {worst}");
    }
}

#[test]
fn a_group_read_from_its_middle_or_with_a_gap_is_an_error_until_the_next_key_frame() {
    let fs = frames("pframes_gray.h265");
    // Starting at frame 1 (a seek into the group): frames 1 and 2 cannot be decoded.
    let mut dec = StreamDecoders::default();
    for f in &fs[1..3] {
        let e = dec
            .hevc_frame(StreamId::CameraSlamLeft, f.clone())
            .unwrap_err();
        assert!(e.contains("were not read"), "{e}");
    }
    // The next key frame starts a group that decodes.
    for f in &fs[3..6] {
        let out = dec.hevc_frame(StreamId::CameraSlamLeft, f.clone()).unwrap();
        pixels(&out);
    }
    // A missing frame (1 skipped): 2 is refused, and so is the rest of its group.
    let mut dec = StreamDecoders::default();
    dec.hevc_frame(StreamId::CameraSlamLeft, fs[0].clone())
        .unwrap();
    let e = dec
        .hevc_frame(StreamId::CameraSlamLeft, fs[2].clone())
        .unwrap_err();
    assert!(e.contains("expected frame 1"), "{e}");
    // Streams keep their own groups.
    let mut dec = StreamDecoders::default();
    dec.hevc_frame(StreamId::CameraSlamLeft, fs[0].clone())
        .unwrap();
    let e = dec
        .hevc_frame(StreamId::CameraSlamRight, fs[1].clone())
        .unwrap_err();
    assert!(e.contains("were not read"), "{e}");
    pixels(
        &dec.hevc_frame(StreamId::CameraSlamLeft, fs[1].clone())
            .unwrap(),
    );
}
