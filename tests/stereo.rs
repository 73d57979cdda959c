//! Stereo depth against independent geometry: scenes rendered by the synth ray caster
//! through the real Gen1 SLAM calibration, each point's depth compared with ray-cast depth
//! within the tolerance a disparity error of half a pixel gives at that depth
//! (`δz = z²/(f·B)·0.5`); and the real Gen1 sample as a sanity run.

mod stereo_common;

use std::collections::BTreeMap;
use std::path::Path;

use stereo_common::*;
use vista::aria::recording::AriaRecording;
use vista::perception::stereo::{GreyView, StereoConfig, StereoDepth, StereoPairer};
use vista::sample::{ImageEncoding, ImageFrame, Sample};
use vista::synth::jpeg::encode_grey;
use vista::synth::render::{Cylinder, Quad, Scene, Surface, FLOOR_RGB, WALL_RGB};
use vista::synth::scenario::Scenario;
use vista::synth::text::Texture;
use vista::synth::trajectory::WearerPath;
use vista::time::HostTime;

/// Half a pixel of disparity: the integer matching step's half-width (subpixel
/// refinement should do better; the test asks no more of it than this).
const DISPARITY_ERR_PX: f64 = 0.5;

fn random_texture(w: usize, h: usize, seed: u64) -> Texture {
    let mut s = seed;
    let coverage = (0..w * h)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 56) as u8
        })
        .collect();
    Texture {
        width: w,
        height: h,
        coverage,
        ink: [0.05, 0.05, 0.05],
        paper: [0.95, 0.95, 0.95],
        lines: Vec::new(),
        cap_height_m: 0.0,
        rgb: Vec::new(),
    }
}

fn grey(p: &[u8]) -> GreyView<'_> {
    GreyView {
        width: 640,
        height: 480,
        pixels: p,
    }
}

/// `(points, within tolerance)` per surface hit through the point's pixel.
fn by_surface(checked: &[Checked]) -> BTreeMap<String, (usize, usize)> {
    let mut m = BTreeMap::new();
    for c in checked {
        let e = m.entry(format!("{:?}", c.surface)).or_insert((0, 0));
        e.0 += 1;
        e.1 += usize::from(c.ok);
    }
    m
}

/// The `pole_to_door` world and the SLAM pair its wearer sees at `t_s`.
struct PoleToDoor {
    scene: Scene,
    pose: nalgebra::Isometry3<f64>,
    left: Vec<u8>,
    right: Vec<u8>,
}

fn pole_to_door_at(cal: &vista::aria::calib::DeviceCalibration, t_s: f64) -> PoleToDoor {
    let (l, r) = slam(cal);
    let sc =
        Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/pole_to_door.json"))
            .unwrap();
    let path = WearerPath::new(&sc.wearer, sc.world.floor_z_m, cal.t_device_cpf());
    let scene = Scene::from_world(&sc.world);
    let pose = path.t_world_device(t_s);
    let (left, right) = render_pair(&scene, &l, &r, &pose);
    PoleToDoor {
        scene,
        pose,
        left,
        right,
    }
}

/// A 640×480 SLAM frame JPEG-encoded as the synthetic sessions store it, recorded at
/// `exposure_s` (gain 1).
fn jpeg(pixels: &[u8], exposure_s: f32) -> ImageFrame {
    ImageFrame {
        width: 640,
        height: 480,
        encoding: ImageEncoding::Jpeg,
        data: bytes::Bytes::from(encode_grey(pixels, 640, 480, 90).unwrap()),
        frame_number: 1,
        exposure_s,
        gain: 1.0,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A random-dot wall 3 m ahead (texels of 3 cm) and a person (a 0.25 m cylinder) 1.8 m
/// ahead, on the checkerboard floor, seen with the rectified axis horizontal at eye height.
#[test]
fn textured_wall_and_person_match_ray_cast_depth() {
    let cal = calib();
    let (l, r) = slam(&cal);
    let mut st = StereoDepth::from_cameras(&l, &r, StereoConfig::default()).unwrap();
    let g = st.rectification().geometry;
    let mut scene = Scene {
        floor_z_m: 0.0,
        floor_rgb: FLOOR_RGB,
        ..Default::default()
    };
    scene.quads.push(Quad {
        origin_m: [3.0, 3.0, 0.0],
        u_m: [0.0, -6.0, 0.0],
        v_m: [0.0, 0.0, 3.0],
        rgb: WALL_RGB,
        texture: Some(0),
    });
    scene.textures.push(random_texture(200, 100, 1));
    scene.cylinders.push(Cylinder {
        base_m: [1.8, 0.3, 0.0],
        radius_m: 0.25,
        height_m: 1.75,
        rgb: [0.6, 0.3, 0.3],
    });
    let pose = pose_looking(&g, [0.0, 0.0, 1.6], 0.0);
    let (li, ri) = render_pair(&scene, &l, &r, &pose);
    let f = st.process(7, grey(&li), grey(&ri)).unwrap();
    assert_eq!(f.capture_ns, 7);
    let checked = check_points(&f.points_device, &scene, &g, &pose, DISPARITY_ERR_PX);
    let surfaces = by_surface(&checked);
    let ok = checked.iter().filter(|c| c.ok).count();
    eprintln!("{:?}\n{surfaces:?}, {ok}/{} within", f.stats, checked.len());
    assert_eq!(checked.len(), f.points_device.len());
    // Nearly every point is right.
    assert!(ok * 100 >= checked.len() * 98, "{ok} of {}", checked.len());
    // The wall is dense: at stride 2, most of its overlap pixels give a point.
    let (wall, wall_ok) = surfaces["Quad(0)"];
    assert!(
        wall >= 3000 && wall_ok * 100 >= wall * 99,
        "{wall} {wall_ok}"
    );
    // The person is found at its depth.
    let (person, person_ok) = surfaces["Cylinder(0)"];
    assert!(
        person >= 50 && person_ok * 100 >= person * 95,
        "{person} {person_ok}"
    );
    let z: Vec<f64> = checked
        .iter()
        .filter(|c| c.surface == Surface::Cylinder(0))
        .map(|c| c.z_m - c.z_true_m)
        .collect();
    let tol = depth_tolerance_m(&g, 1.8, DISPARITY_ERR_PX);
    assert!(median(z).abs() < tol, "person median error");
}

/// The `pole_to_door` world seen by the wearer of the scenario 5.6 s in (after walking
/// 4 m toward the pole), frames JPEG-encoded as the synthetic sessions store them and
/// decoded by the stage.
#[test]
fn pole_to_door_pole_and_room_through_jpeg() {
    let cal = calib();
    let PoleToDoor {
        scene,
        pose,
        left: li,
        right: ri,
    } = pole_to_door_at(&cal, 5.6);
    let mut st = StereoDepth::new(&cal, StereoConfig::default()).unwrap();
    let g = st.rectification().geometry;
    let f = st
        .process_frames(5_600_000_000, &jpeg(&li, 0.004), &jpeg(&ri, 0.004))
        .unwrap();
    let checked = check_points(&f.points_device, &scene, &g, &pose, DISPARITY_ERR_PX);
    let surfaces = by_surface(&checked);
    let ok = checked.iter().filter(|c| c.ok).count();
    eprintln!("{:?}\n{surfaces:?}, {ok}/{} within", f.stats, checked.len());
    assert!(checked.len() >= 200, "{}", checked.len());
    assert!(ok * 100 >= checked.len() * 95, "{ok} of {}", checked.len());
    // The pole (the world's first obstacle: box 0), 2 m ahead and 8 cm wide, is seen at
    // its depth.
    let pole: Vec<&Checked> = checked
        .iter()
        .filter(|c| c.surface == Surface::Box(0))
        .collect();
    let pole_ok = pole.iter().filter(|c| c.ok).count();
    assert!(
        pole.len() >= 10 && pole_ok * 100 >= pole.len() * 90,
        "{pole_ok} of {}",
        pole.len()
    );
}

/// Each SLAM camera sets its own exposure: the right frame of the `pole_to_door` pair
/// recorded at 0.6 of the left's exposure (its levels 0.6 as high, with the exposure in the
/// frame's record) gives as many right points as an equally exposed pair once the stage
/// takes the recorded ratio out, and far more than when the ratio is ignored.
#[test]
fn a_differently_exposed_right_frame_is_matched_through_its_recorded_exposure() {
    let cal = calib();
    let PoleToDoor {
        scene,
        pose,
        left: li,
        right: ri,
    } = pole_to_door_at(&cal, 5.6);
    let dim: Vec<u8> = ri
        .iter()
        .map(|&p| {
            if p == 0 {
                0
            } else {
                ((f32::from(p) * 0.6).round() as u8).max(1)
            }
        })
        .collect();
    let run = |right: &ImageFrame| {
        let mut st = StereoDepth::new(&cal, StereoConfig::default()).unwrap();
        let g = st.rectification().geometry;
        let f = st
            .process_frames(5_600_000_000, &jpeg(&li, 0.004), right)
            .unwrap();
        let checked = check_points(&f.points_device, &scene, &g, &pose, DISPARITY_ERR_PX);
        let ok = checked.iter().filter(|c| c.ok).count();
        eprintln!("{:?}: {ok}/{} within", f.stats.matching, checked.len());
        (ok, checked.len())
    };
    let (same_ok, _) = run(&jpeg(&ri, 0.004));
    let (recorded_ok, recorded_n) = run(&jpeg(&dim, 0.0024));
    // The same dim frame with its exposure unknown (0): nothing to take out.
    let (ignored_ok, _) = run(&jpeg(&dim, 0.0));
    assert!(
        recorded_ok * 100 >= recorded_n * 95,
        "{recorded_ok} of {recorded_n}"
    );
    assert!(
        recorded_ok * 10 >= same_ok * 9,
        "{recorded_ok} vs {same_ok} equally exposed"
    );
    assert!(
        recorded_ok * 10 >= ignored_ok * 13,
        "{recorded_ok} vs {ignored_ok} ignored"
    );
}

/// The real Gen1 sample: pair its SLAM frames through the pairer and run the stage (no
/// ground truth: a sanity run that reports what it finds).
#[test]
fn real_gen1_sample_runs() {
    let cal = calib();
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let mut pairer: StereoPairer<ImageFrame> = StereoPairer::default();
    let mut st = StereoDepth::new(&cal, StereoConfig::default()).unwrap();
    let mut frames = 0;
    for (seq, s) in rec.samples().enumerate() {
        let (stream, capture, payload) = s.unwrap();
        let sample = Sample {
            stream,
            capture,
            arrival: HostTime(0),
            seq: seq as u64,
            payload,
        };
        let Some(pair) = pairer.push_sample(&sample) else {
            continue;
        };
        let f = st
            .process_frames(pair.capture_ns, &pair.left, &pair.right)
            .unwrap();
        let depths: Vec<f64> = f
            .points_device
            .iter()
            .map(|p| {
                f64::from(p[0])
                    .hypot(f64::from(p[1]))
                    .hypot(f64::from(p[2]))
            })
            .collect();
        eprintln!(
            "pair at {} ns (skew {} ns): {} points, median range {:.2} m; {:?}",
            pair.capture_ns,
            pair.skew_ns,
            f.points_device.len(),
            if depths.is_empty() {
                f64::NAN
            } else {
                median(depths.clone())
            },
            f.stats
        );
        assert!(pair.skew_ns.abs() < 1_000_000);
        assert!(depths.iter().all(|d| d.is_finite() && *d > 0.2 && *d < 9.0));
        frames += 1;
    }
    assert_eq!(frames, 4, "{:?}", pairer.stats());
    assert_eq!(pairer.stats().paired, 4);
}
