//! Doorways and corridor ends from hand-built point clouds: walls sampled every 5 cm like
//! a semi-dense map, with the expected opening worked out from the geometry that built
//! them (centre, width), and the things that must not be taken for an opening (a narrow
//! gap, a wide one, a low partition, a pillar beside a wall, a trolley in the gap, points
//! not yet seen).

use vista::perception::openings::{
    detect, OpeningConfig, OpeningDetector, OpeningKind, DOOR_ID_BASE,
};
use vista::perception::points::{MapPoint, PointMap};
use vista::state::ThingKind;
use vista::time::DeviceTime;

const STEP: f32 = 0.05;

fn span(a: f32, b: f32) -> impl Iterator<Item = f32> {
    let n = ((b - a) / STEP).round().max(0.0) as usize;
    (0..=n).map(move |i| a + i as f32 * STEP)
}

/// A vertical wall face from `(x0, y0)` to `(x1, y1)`, heights `z0..z1`.
fn wall(out: &mut Vec<MapPoint>, from: [f32; 2], to: [f32; 2], z: [f32; 2], seen_ns: i64) {
    let len = (to[0] - from[0]).hypot(to[1] - from[1]);
    for s in span(0.0, len) {
        let f = if len > 0.0 { s / len } else { 0.0 };
        let (x, y) = (
            from[0] + (to[0] - from[0]) * f,
            from[1] + (to[1] - from[1]) * f,
        );
        for zz in span(z[0], z[1]) {
            out.push(MapPoint {
                p: [x, y, zz],
                first_seen_ns: seen_ns,
            });
        }
    }
}

/// Floor points over a rectangle (every 20 cm).
fn floor(out: &mut Vec<MapPoint>, x: [f32; 2], y: [f32; 2]) {
    let mut xx = x[0];
    while xx <= x[1] {
        let mut yy = y[0];
        while yy <= y[1] {
            out.push(MapPoint {
                p: [xx, yy, 0.0],
                first_seen_ns: 0,
            });
            yy += 0.2;
        }
        xx += 0.2;
    }
}

/// A wall across the hall at x = 5 from y = −3 to 3, `height` tall, with a gap from
/// `gap_y.0` to `gap_y.1`, and a lintel over the gap from 2.1 m to the top when asked.
fn wall_with_gap(gap_y: (f32, f32), height: f32, lintel: bool) -> Vec<MapPoint> {
    let mut pts = Vec::new();
    floor(&mut pts, [-1.0, 8.0], [-3.0, 3.0]);
    wall(&mut pts, [5.0, -3.0], [5.0, gap_y.0], [0.0, height], 0);
    wall(&mut pts, [5.0, gap_y.1], [5.0, 3.0], [0.0, height], 0);
    if lintel {
        wall(&mut pts, [5.0, gap_y.0], [5.0, gap_y.1], [2.1, height], 0);
    }
    pts
}

fn run(pts: Vec<MapPoint>, now_ns: i64) -> Vec<vista::perception::openings::Opening> {
    let map = PointMap::new(pts, true);
    detect(
        &map,
        [0.0, 0.0],
        0.0,
        DeviceTime(now_ns),
        &OpeningConfig::default(),
    )
}

#[test]
fn a_door_with_a_lintel_is_found_where_the_gap_is() {
    // Gap from y = 0 to 1: centre (5, 0.5), 1 m wide.
    let found = run(wall_with_gap((0.0, 1.0), 2.8, true), 0);
    assert_eq!(found.len(), 1, "{found:?}");
    let o = &found[0];
    assert_eq!(o.kind, OpeningKind::Doorway);
    assert!(o.lintel && o.full_height_jambs, "{o:?}");
    // Tolerance: one 10 cm grid cell.
    assert!((o.center_m[0] - 5.0).abs() <= 0.1, "{o:?}");
    assert!((o.center_m[1] - 0.5).abs() <= 0.1, "{o:?}");
    assert!((o.width_m - 1.0).abs() <= 0.1, "{o:?}");
}

#[test]
fn full_height_jambs_without_a_lintel_make_a_door_too() {
    // Gap from y = −1.2 to 0.3: centre (5, −0.45), 1.5 m wide, no lintel.
    let found = run(wall_with_gap((-1.2, 0.3), 2.8, false), 0);
    assert_eq!(found.len(), 1, "{found:?}");
    let o = &found[0];
    assert!(!o.lintel && o.full_height_jambs, "{o:?}");
    assert!((o.center_m[1] + 0.45).abs() <= 0.1, "{o:?}");
    assert!((o.width_m - 1.5).abs() <= 0.1, "{o:?}");
}

#[test]
fn gaps_of_the_wrong_size_or_kind_are_not_doors() {
    // Too narrow (0.4 m) and too wide (3 m).
    assert!(run(wall_with_gap((0.0, 0.4), 2.8, true), 0).is_empty());
    assert!(run(wall_with_gap((-1.5, 1.5), 2.8, false), 0).is_empty());
    // A 1.5 m partition with a gap and no lintel: its jambs stop below door height.
    assert!(run(wall_with_gap((0.0, 1.0), 1.5, false), 0).is_empty());
    // A trolley (0.9 m tall box) standing in the gap blocks it.
    let mut pts = wall_with_gap((0.0, 1.0), 2.8, true);
    for x in [4.8f32, 5.0, 5.2] {
        wall(&mut pts, [x, 0.3], [x, 0.7], [0.0, 0.9], 0);
    }
    assert!(run(pts, 0).is_empty());
}

/// A gap in the map of a wall with nothing seen behind it (a patch of wall not looked at
/// yet, or without texture) is not a doorway; the same gap with the floor beyond it in the
/// map is. What lies beyond only above the wall (a building seen over it) does not count:
/// no line of sight through the gap reaches it.
#[test]
fn a_gap_is_a_door_only_when_seen_through() {
    let hall = |beyond: &dyn Fn(&mut Vec<MapPoint>)| {
        let mut pts = Vec::new();
        floor(&mut pts, [-1.0, 4.9], [-3.0, 3.0]);
        wall(&mut pts, [5.0, -3.0], [5.0, 0.0], [0.0, 2.8], 0);
        wall(&mut pts, [5.0, 1.0], [5.0, 3.0], [0.0, 2.8], 0);
        wall(&mut pts, [5.0, 0.0], [5.0, 1.0], [2.1, 2.8], 0);
        beyond(&mut pts);
        pts
    };
    assert!(run(hall(&|_| {}), 0).is_empty());
    // A tall facade 4 m behind the wall, seen only above it (from 3.5 m up).
    let over = run(
        hall(&|p: &mut Vec<MapPoint>| wall(p, [9.0, -3.0], [9.0, 3.0], [3.5, 4.0], 0)),
        0,
    );
    assert!(over.is_empty(), "{over:?}");
    // The floor of the room beyond.
    let found = run(
        hall(&|p: &mut Vec<MapPoint>| floor(p, [5.4, 8.0], [-1.0, 2.0])),
        0,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!((found[0].center_m[1] - 0.5).abs() <= 0.1, "{found:?}");
}

/// A doorway held from an earlier run whose gap the map later fills at body height (the
/// gap was one in the map only) is forgotten at the next run, not held for
/// [`OpeningConfig::forget_after_ns`].
#[test]
fn a_door_whose_gap_fills_is_forgotten() {
    let mut pts = wall_with_gap((0.0, 1.0), 2.8, true);
    // The rest of the wall, first seen at 2 s.
    wall(
        &mut pts,
        [5.0, 0.05],
        [5.0, 0.95],
        [0.0, 2.1],
        2_000_000_000,
    );
    let map = PointMap::new(pts, true);
    let mut det = OpeningDetector::default();
    assert_eq!(det.update(&map, [0.0, 0.5], 0.0, 0).len(), 1);
    assert_eq!(det.update(&map, [0.0, 0.5], 0.0, 1_000_000_000).len(), 1);
    let held = det.update(&map, [0.0, 0.5], 0.0, 2_000_000_000);
    assert!(held.is_empty(), "{held:?}");
}

#[test]
fn a_pillar_beside_a_wall_is_not_a_door() {
    // A 30 cm pillar, floor to ceiling, 0.8 m from a long wall at y = 2.
    let mut pts = Vec::new();
    floor(&mut pts, [-1.0, 10.0], [-2.0, 2.0]);
    wall(&mut pts, [-1.0, 2.0], [10.0, 2.0], [0.0, 2.8], 0);
    for (a, b) in [
        ([5.85, 0.9], [6.15, 0.9]),
        ([5.85, 1.2], [6.15, 1.2]),
        ([5.85, 0.9], [5.85, 1.2]),
        ([6.15, 0.9], [6.15, 1.2]),
    ] {
        wall(&mut pts, a, b, [0.0, 2.8], 0);
    }
    let found = run(pts, 0);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn the_open_end_of_a_corridor_is_an_opening() {
    // Two parallel walls at y = ±0.6 from x = 0 to 6 that stop: the opening is at (6, 0),
    // 1.2 m wide.
    let mut pts = Vec::new();
    floor(&mut pts, [-1.0, 9.0], [-0.6, 0.6]);
    wall(&mut pts, [0.0, -0.6], [6.0, -0.6], [0.0, 2.6], 0);
    wall(&mut pts, [0.0, 0.6], [6.0, 0.6], [0.0, 2.6], 0);
    let found = run(pts, 0);
    let ends: Vec<_> = found
        .iter()
        .filter(|o| (o.center_m[0] - 6.0).abs() <= 0.2)
        .collect();
    assert_eq!(ends.len(), 1, "{found:?}");
    let o = ends[0];
    assert_eq!(o.kind, OpeningKind::CorridorEnd);
    assert!(o.center_m[1].abs() <= 0.1, "{o:?}");
    assert!((o.width_m - 1.2).abs() <= 0.1, "{o:?}");
}

#[test]
fn points_not_yet_seen_do_not_count() {
    // The right-hand wall and the lintel are first seen at 5 s.
    let mut pts = Vec::new();
    floor(&mut pts, [-1.0, 8.0], [-3.0, 3.0]);
    wall(&mut pts, [5.0, -3.0], [5.0, 0.0], [0.0, 2.8], 0);
    wall(&mut pts, [5.0, 1.0], [5.0, 3.0], [0.0, 2.8], 5_000_000_000);
    wall(&mut pts, [5.0, 0.0], [5.0, 1.0], [2.1, 2.8], 5_000_000_000);
    assert!(run(pts.clone(), 4_999_999_999).is_empty());
    assert_eq!(run(pts, 5_000_000_000).len(), 1);
}

#[test]
fn a_door_keeps_its_id_and_is_said_in_the_wearer_frame() {
    let map = PointMap::new(wall_with_gap((0.0, 1.0), 2.8, true), true);
    let mut det = OpeningDetector::default();
    let mut ids = Vec::new();
    // Walking towards it along y = 0.5: detections every 0.5 s keep one id.
    for i in 0..8i64 {
        let x = i as f32 * 0.4;
        let tracks = det.update(&map, [x, 0.5], 0.0, i * 500_000_000);
        assert_eq!(tracks.len(), 1, "{tracks:?}");
        ids.push(tracks[0].id);
    }
    assert!(ids.iter().all(|&id| id == DOOR_ID_BASE), "{ids:?}");
    // From (1, 0.5) facing +x the door is straight ahead, 4 m (door centre at x = 5).
    let things = det.things([1.0, 0.5], 0.0, DeviceTime(4_000_000_000));
    let t = &things[0];
    assert_eq!(t.kind, ThingKind::Door);
    assert_eq!(t.clock.get(), 12);
    assert!((t.distance_m - 4.0).abs() <= 0.1, "{t:?}");
    assert!(!t.in_path);
    // From (5, −3) facing +y (yaw 90°) the door, 3.5 m on, is straight ahead too; facing
    // +x it is at 9 o'clock (to the left).
    let t = &det.things([5.0, -3.0], std::f64::consts::FRAC_PI_2, DeviceTime(0))[0];
    assert_eq!(t.clock.get(), 12);
    let t = &det.things([5.0, -3.0], 0.0, DeviceTime(0))[0];
    assert_eq!(t.clock.get(), 9);
    assert!((t.distance_m - 3.5).abs() <= 0.1, "{t:?}");
}

/// The `find_exit` session's doorway (scenario: centre (16, 0.8) at floor level, 1 m wide,
/// a lintel from 2.1 m) from the synthesised semi-dense points: found once the end wall
/// has been observed (the synthetic tracker keeps points within 8 m), not before. Seen
/// through: the floor beyond it is in the map. The session runs on to 30 s because the
/// map's point quality, like MPS's, comes from the closest look at each point: the floor
/// beyond the door, first seen from 5–8 m at 21–23 s, is placed well enough only by the
/// later, closer looks.
#[test]
fn the_find_exit_doorway_is_found_from_the_synthetic_points() {
    find_exit_doorway(false);
}

/// In `find_exit` a person stands against the side wall at (8.5, 2) until 12.5 s; the
/// map holds points of their head and shoulders (1.5–1.75 m) in front of the wall they
/// hide, over a gap in the wall's points. That gap is not a doorway: nothing is seen
/// through it. Checked on the session as the glasses and MPS would give it (MPS-like
/// point errors, the walker's drawn gait): no opening at 8 s, and the doorway found at
/// 23 s where it is (centre and width within 15 cm).
#[test]
fn no_phantom_doorway_where_a_person_stands_against_a_wall() {
    find_exit_doorway(true);
}

/// `realistic`: MPS-like point errors and a drawn gait (else exact points and the nominal
/// walker), with the stricter checks.
fn find_exit_doorway(realistic: bool) {
    use std::path::Path;
    use vista::aria::mps::read_trajectory;
    use vista::perception::PerceptionInputs;
    use vista::synth::{find_scenario, write_session, SynthOptions};

    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let sc = find_scenario(Path::new("scenarios"), "find_exit").unwrap();
    let mut opts = SynthOptions {
        seed: 3,
        duration_s: Some(30.0),
        rgb_fps: Some(0.0),
        ..SynthOptions::default()
    };
    if !realistic {
        opts.mps_error = None;
        opts.nominal_gait = true;
    }
    write_session(&sc, dir, &opts).unwrap();
    let map = PerceptionInputs::from_session(dir).unwrap().points.unwrap();
    let traj = read_trajectory(dir.join("mps/slam/closed_loop_trajectory.csv")).unwrap();
    let t0 = traj[0].tracking_time.ns();
    let at = |s: f64| {
        let ns = t0 + (s * 1e9) as i64;
        let p = traj
            .iter()
            .min_by_key(|p| (p.tracking_time.ns() - ns).abs())
            .unwrap();
        let v = p.t_world_device.translation.vector;
        (ns, [v.x as f32, v.y as f32])
    };
    let cfg = OpeningConfig::default();
    // At 8 s the wearer is near x = 3: the end wall (13 m on) is not mapped yet, so no
    // doorway there, and the person against the side wall makes none either.
    let (ns, xy) = at(8.0);
    let early = detect(&map, xy, 0.0, DeviceTime(ns), &cfg);
    assert!(
        early.iter().all(|o| (o.center_m[0] - 16.0).abs() > 1.0),
        "{early:?}"
    );
    assert!(early.is_empty(), "{early:?}");
    // At 23 s the wearer is near x = 11.7: the doorway, about 4.5 m on, is mapped.
    let (ns, xy) = at(23.0);
    let found = detect(&map, xy, 0.0, DeviceTime(ns), &cfg);
    assert_eq!(found.len(), 1, "{found:?}");
    let o = &found[0];
    assert_eq!(o.kind, OpeningKind::Doorway);
    assert!(o.lintel, "{o:?}");
    assert!((o.center_m[0] - 16.0).abs() <= 0.15, "{o:?}");
    // The opening found covers the true one (y 0.3 to 1.3).
    assert!(o.jambs_m[0][1].min(o.jambs_m[1][1]) <= 0.45, "{o:?}");
    assert!(o.jambs_m[0][1].max(o.jambs_m[1][1]) >= 1.15, "{o:?}");
    if realistic {
        assert!((o.center_m[1] - 0.8).abs() <= 0.15, "{o:?}");
        assert!((o.width_m - 1.0).abs() <= 0.15, "{o:?}");
    }
}
