//! The RGB camera of a synthetic session: 1408×1408 colour JPEG frames in stream 214-1 at
//! the scenario's rate, decoded by our reader, showing the world where geometry says it is:
//! a sign's centre — projected independently through the recording's own (rescaled) RGB
//! calibration and the MPS trajectory file — lands on light sign paper with dark ink
//! around it, and the wall beside it has the wall's blue-grey colour. Sign textures carry
//! the text in separate letters (connected ink components counted per word).

use std::path::Path;

use nalgebra::Point3;
use vista::aria::mps::read_trajectory;
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::sample::{Payload, StreamId};
use vista::synth::text::{sign_texture, SignFont};
use vista::synth::{find_scenario, write_session, SynthOptions};

#[test]
fn rgb_frames_show_the_sign_where_the_calibration_projects_it() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let sc = find_scenario(Path::new("scenarios"), "read_sign").unwrap();
    assert_eq!(sc.rgb_fps, 10.0, "the default rate");
    let opts = SynthOptions {
        seed: 2,
        duration_s: Some(3.0),
        slam_fps: None,
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts).unwrap();
    let rec = AriaRecording::open(dir.join("recording.vrs")).unwrap();
    let cal = recording_calibration(&rec).unwrap().unwrap();
    let cam = cal.camera("camera-rgb").unwrap();
    assert_eq!((cam.image_width, cam.image_height), (1408, 1408));
    let traj = read_trajectory(dir.join("mps/slam/closed_loop_trajectory.csv")).unwrap();

    // "Platform 3": centre at (3.95, 0.3, 2.2), facing −x, 1.2 × 0.35 m.
    let sign = Point3::new(3.95, 0.3, 2.2);
    let wall = Point3::new(3.99, -0.5, 2.6);
    let (mut frames, mut checked) = (0, 0);
    for s in rec.samples() {
        let (stream, t, payload) = s.unwrap();
        let Payload::Image(f) = payload else { continue };
        if stream != StreamId::CameraRgb {
            continue;
        }
        frames += 1;
        let img = decode_image(&f).unwrap();
        assert_eq!((img.width, img.height, img.channels), (1408, 1408, 3));
        if frames % 5 != 1 {
            continue;
        }
        let i = traj.partition_point(|p| p.tracking_time.ns() < t.ns());
        assert_eq!(
            traj[i].tracking_time.ns(),
            t.ns(),
            "a pose at each frame time"
        );
        let t_cam_world = (traj[i].t_world_device * cam.t_device_camera).inverse();
        let px = |p: &Point3<f64>| {
            let uv = cam.project(&(t_cam_world * p).coords)?;
            let (x, y) = (uv.x.round() as usize, uv.y.round() as usize);
            let k = 3 * (y * 1408 + x);
            Some([img.pixels[k], img.pixels[k + 1], img.pixels[k + 2]])
        };
        let Some(c) = px(&sign) else { continue };
        // Ink or paper at the centre: either way, a neutral grey, not the blue-grey wall.
        let spread = c.iter().max().unwrap() - c.iter().min().unwrap();
        assert!(spread < 25, "sign centre {c:?}");
        // Paper: the sign's corners area (inside the margin) is light and neutral.
        let paper = Point3::new(3.94, 0.3 + 0.55, 2.2 + 0.15);
        let p = px(&paper).unwrap();
        assert!(p.iter().all(|&v| v > 110), "paper {p:?}");
        // Ink: somewhere along the text line across the sign, dark pixels.
        let dark = (0..40)
            .filter_map(|k| px(&Point3::new(3.94, 0.3 - 0.4 + 0.02 * k as f64, 2.2)))
            .filter(|p| p.iter().all(|&v| v < 60))
            .count();
        assert!(dark >= 3, "only {dark} ink samples across the text line");
        // The wall beside the sign is blue-grey (blue above red).
        let w = px(&wall).unwrap();
        assert!(w[2] > w[0] + 10, "wall {w:?}");
        checked += 1;
    }
    assert_eq!(frames, 30, "3 s at 10 fps");
    assert!(checked >= 4, "{checked} frames saw the sign");
}

/// Ink components (8-connected, coverage ≥ 50 %) of a texture.
fn components(tex: &vista::synth::text::Texture) -> usize {
    let (w, h) = (tex.width, tex.height);
    let ink: Vec<bool> = tex.coverage.iter().map(|&c| c >= 128).collect();
    let mut seen = vec![false; w * h];
    let mut n = 0;
    for start in 0..w * h {
        if !ink[start] || seen[start] {
            continue;
        }
        n += 1;
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(i) = stack.pop() {
            let (x, y) = ((i % w) as i64, (i / w) as i64);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if ink[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
    }
    n
}

#[test]
fn sign_textures_carry_separate_letters_large_enough_to_read() {
    let font = SignFont::load_default().unwrap();
    // One connected blob of ink per glyph ("i" and ":" would be two; none here).
    for (text, size, glyphs) in [
        ("EXIT", [0.6, 0.25], 4),
        ("Platform 3", [1.2, 0.35], 9),
        ("CAFE OPEN", [0.8, 0.3], 8),
    ] {
        let tex = sign_texture(&font, text, size);
        assert_eq!(components(&tex), glyphs, "{text}: {:?}", tex.lines);
        assert_eq!(tex.lines.join(" "), text);
        // Letters at least 8 cm tall: ≥ 16 px in the RGB image at 3 m (610 px/rad).
        assert!(tex.cap_height_m > 0.08, "{text}: {} m", tex.cap_height_m);
    }
    // A long text wraps rather than shrinking to a thin line.
    let tex = sign_texture(&font, "Trains to Central every 10 min", [0.9, 0.3]);
    assert!(tex.lines.len() >= 2, "{:?}", tex.lines);
    assert!(tex.cap_height_m > 0.035, "{} m", tex.cap_height_m);
}
