//! Stereo rectification against the calibration: 3-D points projected through both real
//! Gen1 fisheye calibrations (projectaria_tools-checked code in `aria::calib`) land, via the
//! remap tables, on the same rectified row with the disparity `f·B / z`; plus typed errors
//! for bad calibration, sizes and configuration.

mod stereo_common;

use nalgebra::{Point2, Point3, Vector3};
use stereo_common::*;
use vista::perception::stereo::remap::RemapTable;
use vista::perception::stereo::{
    GreyView, MatchConfig, Rectification, RectifyConfig, Side, StereoConfig, StereoDepth,
    StereoError,
};

/// The table's source coordinate at a fractional rectified position, interpolated
/// bilinearly between the four stored neighbours.
fn source_at(t: &RemapTable, u: f64, v: f64) -> Option<[f64; 2]> {
    let (u0, v0) = (u.floor(), v.floor());
    let (fu, fv) = (u - u0, v - v0);
    let (u0, v0) = (u0 as u32, v0 as u32);
    let a = t.source_px(u0, v0)?;
    let b = t.source_px(u0 + 1, v0)?;
    let c = t.source_px(u0, v0 + 1)?;
    let d = t.source_px(u0 + 1, v0 + 1)?;
    let lerp = |k: usize| {
        (a[k] * (1.0 - fu) + b[k] * fu) * (1.0 - fv) + (c[k] * (1.0 - fu) + d[k] * fu) * fv
    };
    Some([lerp(0), lerp(1)])
}

#[test]
fn known_points_land_on_the_same_row_with_the_expected_disparity() {
    let cal = calib();
    let (l, r) = slam(&cal);
    let rect = Rectification::new(&l, &r, &RectifyConfig::default()).unwrap();
    let g = rect.geometry;
    // The rectified frame is orthonormal and x runs along the baseline.
    let m = g.r_device_rect.matrix();
    assert!((m.transpose() * m - nalgebra::Matrix3::identity()).norm() < 1e-12);
    let b =
        (r.t_device_camera.translation.vector - l.t_device_camera.translation.vector).normalize();
    assert!((m.column(0) - b).norm() < 1e-12);
    assert!((g.baseline_m - 0.1378).abs() < 1e-3, "{}", g.baseline_m);

    let mut checked = 0;
    // Points in front of the pair on a grid of directions and depths.
    for &z in &[0.6, 1.5, 3.0, 7.0] {
        for iy in -4..=4 {
            for ix in -4..=4 {
                let dir = Vector3::new(f64::from(ix) * 0.17, f64::from(iy) * 0.15, 1.0);
                let p_rect = dir * z;
                let p_dev = Point3::from(g.left_centre_m + g.r_device_rect * p_rect);
                // Independent: each fisheye's own projection of the point.
                let (Some(fl), Some(fr)) = (l.project_device(&p_dev), r.project_device(&p_dev))
                else {
                    continue;
                };
                let [ul, vl, zl] = g.project(Side::Left, &p_dev).unwrap();
                let [ur, vr, zr] = g.project(Side::Right, &p_dev).unwrap();
                // Same row, same depth, disparity f·B/z.
                assert!((vl - vr).abs() < 1e-9, "rows {vl} {vr}");
                assert!((zl - zr).abs() < 1e-9);
                assert!((ul - ur - g.focal_px * g.baseline_m / zl).abs() < 1e-9);
                // The remap tables send those rectified positions to the fisheye pixels the
                // calibration projects the point to (1/256 px storage, bilinear between
                // entries one rectified pixel apart).
                let (Some(sl), Some(sr)) = (
                    source_at(&rect.left_map, ul, vl),
                    source_at(&rect.right_map, ur, vr),
                ) else {
                    continue;
                };
                for (s, f) in [(sl, fl), (sr, fr)] {
                    let err = ((s[0] - f.x).powi(2) + (s[1] - f.y).powi(2)).sqrt();
                    assert!(err < 0.02, "z {z} ({ix},{iy}): table {s:?} calib {f:?}");
                }
                checked += 1;
            }
        }
    }
    assert!(
        checked > 60,
        "only {checked} points seen by both rectified cameras"
    );
}

#[test]
fn validity_mask_covers_exactly_what_each_fisheye_sees() {
    let cal = calib();
    let (l, r) = slam(&cal);
    let rect = Rectification::new(&l, &r, &RectifyConfig::default()).unwrap();
    let g = rect.geometry;
    let (mut both, mut agree, mut total) = (0, 0, 0);
    for v in (0..g.height_px).step_by(7) {
        for u in (0..g.width_px).step_by(7) {
            let ray = Vector3::new(
                (f64::from(u) - g.cu_px) / g.focal_px,
                (f64::from(v) - g.cv_px) / g.focal_px,
                1.0,
            );
            for (cam, table) in [(&l, &rect.left_map), (&r, &rect.right_map)] {
                let p_cam = cam.t_device_camera.rotation.inverse() * (g.r_device_rect * ray);
                // The calibration's own validity (cone, image, valid radius), shrunk to
                // pixel centres where bilinear interpolation has all four neighbours.
                let seen = cam.project(&p_cam).filter(|p: &Point2<f64>| {
                    p.x >= 0.0
                        && p.y >= 0.0
                        && p.x <= f64::from(cam.image_width) - 1.0
                        && p.y <= f64::from(cam.image_height) - 1.0
                });
                total += 1;
                agree += usize::from(seen.is_some() == table.source_px(u, v).is_some());
            }
            both += usize::from(
                rect.left_map.source_px(u, v).is_some() && rect.right_map.source_px(u, v).is_some(),
            );
        }
    }
    assert_eq!(agree, total);
    // The overlap is a real part of the image, not everything: the fisheyes diverge.
    let grid = g.height_px.div_ceil(7) as usize * g.width_px.div_ceil(7) as usize;
    assert!(both > grid / 4 && both < grid, "{both} of {grid}");
}

#[test]
fn bad_inputs_give_typed_errors() {
    let cal = calib();
    let (l, r) = slam(&cal);
    // Missing camera.
    let mut no_right = cal.clone();
    no_right.cameras.retain(|c| c.label != "camera-slam-right");
    assert!(matches!(
        StereoDepth::new(&no_right, StereoConfig::default()),
        Err(StereoError::MissingCamera { label }) if label == "camera-slam-right"
    ));
    // NaN in the extrinsics or intrinsics.
    let mut nan = r.clone();
    nan.t_device_camera.translation.vector.x = f64::NAN;
    assert!(matches!(
        StereoDepth::from_cameras(&l, &nan, StereoConfig::default()),
        Err(StereoError::NonFiniteCalibration { .. })
    ));
    let mut nan = l.clone();
    if let vista::aria::calib::CameraModel::Fisheye624(m) = &mut nan.model {
        m.k[2] = f64::NAN;
    }
    assert!(matches!(
        StereoDepth::from_cameras(&nan, &r, StereoConfig::default()),
        Err(StereoError::NonFiniteCalibration { .. })
    ));
    // The same camera twice: no baseline.
    assert!(matches!(
        StereoDepth::from_cameras(&l, &l, StereoConfig::default()),
        Err(StereoError::NoBaseline { .. })
    ));
    // Bad configuration.
    let mut cfg = StereoConfig::default();
    cfg.rectify.focal_px = f64::NAN;
    assert!(matches!(
        StereoDepth::from_cameras(&l, &r, cfg),
        Err(StereoError::BadConfig {
            field: "focal_px",
            ..
        })
    ));
    let cfg = StereoConfig {
        matcher: MatchConfig {
            max_disparity_px: 1000,
            ..MatchConfig::default()
        },
        ..StereoConfig::default()
    };
    assert!(matches!(
        StereoDepth::from_cameras(&l, &r, cfg),
        Err(StereoError::BadConfig { .. })
    ));
    // Mismatched image sizes and short buffers, naming the camera and the capture time.
    let mut st = StereoDepth::from_cameras(&l, &r, StereoConfig::default()).unwrap();
    let img = vec![0u8; 640 * 480];
    let small = vec![0u8; 320 * 240];
    let full = GreyView {
        width: 640,
        height: 480,
        pixels: &img,
    };
    let half = GreyView {
        width: 320,
        height: 240,
        pixels: &small,
    };
    let e = st.process(42, full, half).unwrap_err();
    assert!(matches!(
        e,
        StereoError::SizeMismatch { capture_ns: 42, .. }
    ));
    assert!(e.to_string().contains("camera-slam-right"), "{e}");
    let short = GreyView {
        width: 640,
        height: 480,
        pixels: &img[..1000],
    };
    assert!(matches!(
        st.process(43, short, full),
        Err(StereoError::BadImage { capture_ns: 43, .. })
    ));
    // An undecodable JPEG is an error, not a panic.
    let bad = vista::sample::ImageFrame {
        width: 640,
        height: 480,
        encoding: vista::sample::ImageEncoding::Jpeg,
        data: bytes::Bytes::from_static(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16]),
        frame_number: 7,
        exposure_s: 0.0,
        gain: 1.0,
    };
    let e = st.process_frames(44, &bad, &bad).unwrap_err();
    assert!(
        matches!(e, StereoError::BadImage { capture_ns: 44, .. }),
        "{e}"
    );
}

#[test]
fn blank_and_garbage_images_give_no_points() {
    let cal = calib();
    let (l, r) = slam(&cal);
    let mut st = StereoDepth::from_cameras(&l, &r, StereoConfig::default()).unwrap();
    fn view(p: &[u8]) -> GreyView<'_> {
        GreyView {
            width: 640,
            height: 480,
            pixels: p,
        }
    }
    for level in [0u8, 128, 255] {
        let blank = vec![level; 640 * 480];
        let f = st.process(1, view(&blank), view(&blank)).unwrap();
        assert_eq!(f.points_device.len(), 0, "blank {level}");
        assert_eq!(f.stats.matching.textured_px, 0);
    }
    // Independent noise in each camera: fully textured, nothing corresponds.
    let mut s = 99u64;
    let mut noise = || {
        (0..640 * 480)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 56) as u8
            })
            .collect::<Vec<u8>>()
    };
    let (a, b) = (noise(), noise());
    let f = st.process(2, view(&a), view(&b)).unwrap();
    assert!(f.stats.matching.textured_px > 10_000);
    assert_eq!(f.points_device.len(), 0, "{:?}", f.stats);
}
