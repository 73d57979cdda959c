//! The renderer draws 3D points where the calibration projects them: a square panel seen by
//! the real SLAM-left Fisheye624 camera (on axis and 45° off axis, where the fisheye
//! distortion is strong) covers pixels just inside its projected corners and not those just
//! outside, and the panel's centre pixel is the panel.

use nalgebra::{Isometry3, Point2, Vector3};
use vista::aria::calib::DeviceCalibration;
use vista::synth::render::{render_grey, Quad, RayTable, Scene, BACKGROUND_GREY};

const CALIB: &str = "calibration/aria_gen1_1WM09380041283_factory.json";

#[test]
fn panel_corners_land_where_the_calibration_projects_them() {
    let cal = DeviceCalibration::from_json_file(CALIB).unwrap();
    let cam = cal.camera("camera-slam-left").unwrap();
    let rays = RayTable::new(cam);
    let (w, h) = (rays.width as usize, rays.height as usize);
    assert_eq!((w, h), (640, 480));
    // Camera at the world origin looking along +z; the floor is out of sight.
    let pose = Isometry3::identity();
    for center in [Vector3::new(0.05, -0.03, 2.0), Vector3::new(1.2, 0.3, 1.3)] {
        let half = 0.15;
        let scene = Scene {
            floor_z_m: -1.0e4,
            quads: vec![Quad {
                origin_m: [center.x - half, center.y - half, center.z],
                u_m: [2.0 * half, 0.0, 0.0],
                v_m: [0.0, 2.0 * half, 0.0],
                rgb: [1.0; 3],
                texture: None,
            }],
            ..Scene::default()
        };
        let img = render_grey(&scene, &rays, &pose);
        let at = |uv: &Point2<f64>| img[uv.y.round() as usize * w + uv.x.round() as usize];
        let background = BACKGROUND_GREY;
        let c = cam.project(&center).unwrap();
        assert_ne!(at(&c), background, "centre {c}");
        let mut checked = 0;
        for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let corner = Vector3::new(center.x + sx * half, center.y + sy * half, center.z);
            let uv = cam.project(&corner).unwrap();
            let toward = (c - uv).normalize();
            let inside = uv + toward * 2.0;
            let outside = uv - toward * 2.0;
            assert_ne!(at(&inside), background, "inside corner {uv}");
            assert_eq!(at(&outside), background, "outside corner {uv}");
            checked += 1;
        }
        assert_eq!(checked, 4);
    }
}

#[test]
fn nearest_surface_wins_and_boxes_shade_by_face() {
    use vista::synth::render::{Aabb, Surface};
    let scene = Scene {
        floor_z_m: 0.0,
        boxes: vec![Aabb {
            min_m: [2.0, -0.5, 0.0],
            max_m: [3.0, 0.5, 1.0],
            rgb: [1.0; 3],
        }],
        ..Scene::default()
    };
    let o = Vector3::new(0.0, 0.0, 0.5);
    // Straight at the box: its -x face at 2 m.
    let h = scene.hit(&o, &Vector3::x()).unwrap();
    assert!((h.t_m - 2.0).abs() < 1e-12);
    assert_eq!(h.normal, -Vector3::x());
    assert_eq!(h.surface, Surface::Box(0));
    // Down: the floor at 0.5 m, not the box.
    let h = scene.hit(&o, &-Vector3::z()).unwrap();
    assert!((h.t_m - 0.5).abs() < 1e-12);
    assert_eq!(h.normal, Vector3::z());
    assert_eq!(h.surface, Surface::Floor);
    // Over the box and beyond the far limit: nothing.
    assert!(scene
        .hit(&Vector3::new(0.0, 0.0, 5.0), &Vector3::x())
        .is_none());
}

#[test]
fn cylinders_and_floor_holes_hit_where_geometry_says() {
    use vista::synth::render::{Cylinder, Surface};
    let scene = Scene {
        floor_z_m: 0.0,
        cylinders: vec![Cylinder {
            base_m: [3.0, 0.0, 0.0],
            radius_m: 0.25,
            height_m: 1.75,
            rgb: [1.0; 3],
        }],
        holes: vec![[-1.0, -3.0, 1.0, -1.0]],
        ..Scene::default()
    };
    let o = Vector3::new(0.0, 0.0, 1.0);
    // Through the axis: the near side at 3 − 0.25 m, normal back toward us.
    let h = scene.hit(&o, &Vector3::x()).unwrap();
    assert!((h.t_m - 2.75).abs() < 1e-12, "{}", h.t_m);
    assert!((h.normal + Vector3::x()).norm() < 1e-12);
    assert_eq!(h.surface, Surface::Cylinder(0));
    // A grazing ray offset by 0.2 m: chord geometry, t = 3 − sqrt(0.25² − 0.2²).
    let h = scene
        .hit(&Vector3::new(0.0, 0.2, 1.0), &Vector3::x())
        .unwrap();
    assert!((h.t_m - (3.0 - (0.0625f64 - 0.04).sqrt())).abs() < 1e-12);
    // Over its top (z 1.75): from above, the flat top.
    let d = Vector3::new(3.0, 0.0, -1.0).normalize();
    let h = scene.hit(&Vector3::new(0.0, 0.0, 2.75), &d).unwrap();
    assert_eq!(h.normal, Vector3::z());
    // It reaches z = 1.75 after sqrt(10) m, right over the axis (the side is at z 1.83).
    assert!((h.t_m - 10f64.sqrt()).abs() < 1e-9, "{}", h.t_m);
    // Down into the hole: no floor there; beside it the floor at 1 m.
    assert!(scene
        .hit(&Vector3::new(0.0, -2.0, 1.0), &-Vector3::z())
        .is_none());
    let h = scene
        .hit(&Vector3::new(0.0, 0.5, 1.0), &-Vector3::z())
        .unwrap();
    assert!((h.t_m - 1.0).abs() < 1e-12);
}
