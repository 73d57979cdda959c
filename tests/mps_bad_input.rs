//! Broken MPS files (written into a temporary folder) give typed errors naming the file,
//! the 1-based line and the column; everything before the damage is still delivered; no
//! input makes a reader panic.

use std::io::Write;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use vista::aria::mps::*;

const CLOSED_HEADER: &str = "graph_uid,tracking_timestamp_us,utc_timestamp_ns,tx_world_device,ty_world_device,tz_world_device,qx_world_device,qy_world_device,qz_world_device,qw_world_device,device_linear_velocity_x_device,device_linear_velocity_y_device,device_linear_velocity_z_device,angular_velocity_x_device,angular_velocity_y_device,angular_velocity_z_device,gravity_x_world,gravity_y_world,gravity_z_world,quality_score";

fn closed_row(t_us: i64, tx: &str) -> String {
    format!("g,{t_us},-1,{tx},0.2,0.3,0,0,0,1,0.1,0.2,0.3,0.01,0.02,0.03,0,0,-9.81,0.9")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn gz(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    std::fs::write(&p, e.finish().unwrap()).unwrap();
    p
}

#[test]
fn missing_required_column_names_column_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let header = CLOSED_HEADER.replace(",qw_world_device", "");
    let row = closed_row(1, "0.1").replacen(",1,0.1", ",0.1", 1);
    let p = write(
        dir.path(),
        "closed_loop_trajectory.csv",
        &format!("{header}\n{row}\n"),
    );
    let e = read_trajectory(&p).unwrap_err();
    assert!(matches!(e, MpsError::MissingColumn { .. }), "{e}");
    assert_eq!(e.column(), Some("qw_world_device"));
    assert_eq!(e.path(), p.as_path());
    assert_eq!(e.line(), Some(1));
    assert!(
        e.to_string().contains("closed_loop_trajectory.csv:1"),
        "{e}"
    );
}

#[test]
fn columns_are_found_by_name_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    // Reverse the column order of header and row alike.
    let header: Vec<&str> = CLOSED_HEADER.split(',').rev().collect();
    let row = closed_row(7, "0.5");
    let cells: Vec<&str> = row.split(',').rev().collect();
    let p = write(
        dir.path(),
        "t.csv",
        &format!("{}\n{}\n", header.join(","), cells.join(",")),
    );
    let poses = read_trajectory(&p).unwrap();
    assert_eq!(poses.len(), 1);
    assert_eq!(poses[0].tracking_time.ns(), 7_000);
    assert_eq!(poses[0].t_world_device.translation.vector.x, 0.5);
    assert_eq!(poses[0].gravity_world_mps2.z, -9.81);
    assert_eq!(poses[0].utc_ns, None, "-1 means unknown");
}

#[test]
fn truncated_last_line_keeps_earlier_rows() {
    let dir = tempfile::tempdir().unwrap();
    let full = closed_row(3, "0.1");
    let cut = &full[..full.len() / 2];
    let text = format!(
        "{CLOSED_HEADER}\n{}\n{}\n{cut}",
        closed_row(1, "0.1"),
        closed_row(2, "0.1")
    );
    let p = write(dir.path(), "closed_loop_trajectory.csv", &text);
    let partial = read_trajectory_partial(&p);
    assert_eq!(partial.items.len(), 2);
    let e = partial.error.unwrap();
    assert!(matches!(e, MpsError::FieldCount { line: 4, .. }), "{e}");
    assert!(read_trajectory(&p).is_err());
    // The streaming reader yields the two rows, then the error, then ends.
    let mut r = TrajectoryReader::open(&p).unwrap();
    assert!(r.next().unwrap().is_ok());
    assert!(r.next().unwrap().is_ok());
    assert!(r.next().unwrap().is_err());
    assert!(r.next().is_none());
}

#[test]
fn non_numeric_cell_names_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{CLOSED_HEADER}\n{}\n{}\n",
        closed_row(1, "0.1"),
        closed_row(2, "abc")
    );
    let p = write(dir.path(), "closed_loop_trajectory.csv", &text);
    let partial = read_trajectory_partial(&p);
    assert_eq!(partial.items.len(), 1);
    let e = partial.error.unwrap();
    assert!(matches!(e, MpsError::BadValue { line: 3, .. }), "{e}");
    assert_eq!(e.column(), Some("tx_world_device"));
    assert!(e.to_string().contains("\"abc\""), "{e}");
}

#[test]
fn nan_cells_are_kept_as_nan() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{CLOSED_HEADER}\n{}\n", closed_row(1, "NaN"));
    let p = write(dir.path(), "closed_loop_trajectory.csv", &text);
    let poses = read_trajectory(&p).unwrap();
    assert!(poses[0].t_world_device.translation.vector.x.is_nan());
    assert_eq!(poses[0].t_world_device.translation.vector.y, 0.2);

    let gaze = "tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,depth_m\n10,nan,0.1,\n";
    let g = read_eye_gaze(write(dir.path(), "g.csv", gaze)).unwrap();
    assert!(g[0].yaw_rad.is_nan());
    assert_eq!(g[0].depth_m, None, "empty depth cell is absent");
    assert!(g[0].unit_vector_cpf().x.is_nan());
}

#[test]
fn empty_and_header_only_files() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.csv", "");
    for e in [
        read_trajectory(&empty).unwrap_err(),
        read_eye_gaze(&empty).unwrap_err(),
        read_wrist_and_palm(&empty).unwrap_err(),
        read_hand_tracking_results(&empty).unwrap_err(),
        read_semidense_points(&empty, PointFilter::none()).unwrap_err(),
        read_online_calibrations(&empty).unwrap_err(),
    ] {
        assert!(matches!(e, MpsError::Empty { .. }), "{e}");
        assert_eq!(e.path(), empty.as_path());
    }
    let header_only = write(dir.path(), "h.csv", &format!("{CLOSED_HEADER}\n"));
    assert!(read_trajectory(&header_only).unwrap().is_empty());
    let missing = dir.path().join("nope.csv");
    assert!(matches!(
        read_trajectory(&missing).unwrap_err(),
        MpsError::Open { .. }
    ));
}

#[test]
fn unknown_schema_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "x.csv", "a,b\n1,2\n");
    assert!(matches!(
        read_trajectory(&p).unwrap_err(),
        MpsError::UnknownSchema { .. }
    ));
    assert!(matches!(
        read_eye_gaze(&p).unwrap_err(),
        MpsError::UnknownSchema { .. }
    ));
    assert!(matches!(
        read_wrist_and_palm(&p).unwrap_err(),
        MpsError::MissingColumn { .. }
    ));
}

const POINTS_HEADER: &str = "uid,graph_uid,px_world,py_world,pz_world,inv_dist_std,dist_std";

fn points_text(n: usize) -> String {
    let mut s = format!("{POINTS_HEADER}\n");
    for i in 0..n {
        s.push_str(&format!("{i},g,{i}.5,-1.25,2,0.00{},0.0{}\n", i % 9, i % 7));
    }
    s
}

#[test]
fn gzip_points_stream_and_corrupt_gzip_is_a_read_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = points_text(20_000);
    let ok = gz(dir.path(), "semidense_points.csv.gz", &text);
    let all = read_semidense_points(&ok, PointFilter::none()).unwrap();
    assert_eq!(all.len(), 20_000);
    assert_eq!(all[3].position_world_m.x, 3.5);
    // Same data uncompressed reads the same.
    let plain = write(dir.path(), "semidense_points.csv", &text);
    assert_eq!(
        read_semidense_points(&plain, PointFilter::none()).unwrap(),
        all
    );

    // Flip bytes in the middle of the deflate stream.
    let mut bytes = std::fs::read(&ok).unwrap();
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 16] {
        *b ^= 0xA5;
    }
    let bad = dir.path().join("corrupt.csv.gz");
    std::fs::write(&bad, &bytes).unwrap();
    let partial = read_semidense_points_partial(&bad, PointFilter::none());
    let e = partial.error.expect("corruption must be reported");
    assert_eq!(e.path(), bad.as_path());
    assert!(e.line().unwrap() >= 1, "{e}");
    assert!(partial.items.len() < 20_000);

    // A truncated gzip file.
    let bytes = std::fs::read(&ok).unwrap();
    let cut = dir.path().join("cut.csv.gz");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let partial = read_semidense_points_partial(&cut, PointFilter::none());
    assert!(partial.error.is_some());
    assert!(
        !partial.items.is_empty(),
        "rows before the cut are delivered"
    );

    // Not gzip at all.
    let fake = write(dir.path(), "fake.csv.gz", &text);
    let e = read_semidense_points(&fake, PointFilter::none()).unwrap_err();
    assert!(matches!(e, MpsError::Read { .. }), "{e}");
}

#[test]
fn point_filter_edges() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{POINTS_HEADER}\n1,g,0,0,0,0.005000,0.010000\n2,g,0,0,0,0.005001,0.001\n3,g,0,0,0,nan,0.001\n"
    );
    let p = write(dir.path(), "p.csv", &text);
    let kept: Vec<u64> = read_semidense_points(&p, PointFilter::default())
        .unwrap()
        .iter()
        .map(|x| x.uid)
        .collect();
    assert_eq!(kept, vec![1], "threshold values pass, NaN never does");
    assert_eq!(
        read_semidense_points(&p, PointFilter::none())
            .unwrap()
            .len(),
        3
    );
}

const WRIST_V1: &str = "tracking_timestamp_us,left_tracking_confidence,tx_left_wrist_device,ty_left_wrist_device,tz_left_wrist_device,tx_left_palm_device,ty_left_palm_device,tz_left_palm_device,right_tracking_confidence,tx_right_wrist_device,ty_right_wrist_device,tz_right_wrist_device,tx_right_palm_device,ty_right_palm_device,tz_right_palm_device";

#[test]
fn wrist_and_palm_partial_normals_and_missing_hands() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "w.csv",
        &format!("{WRIST_V1}\n5,-1,0,0,0,0,0,0,0.8,1,2,3,4,5,6\n"),
    );
    let w = read_wrist_and_palm(&p).unwrap();
    assert!(w[0].left.is_none());
    let r = w[0].right.unwrap();
    assert_eq!(r.palm_device_m.z, 6.0);
    assert_eq!(w[0].to_sample().right.unwrap().wrist_m, [1.0, 2.0, 3.0]);
    // One normal column alone is a broken v2 header.
    let p = write(
        dir.path(),
        "w2.csv",
        &format!("{WRIST_V1},nx_left_palm_device\n5,-1,0,0,0,0,0,0,-1,0,0,0,0,0,0,1\n"),
    );
    let e = read_wrist_and_palm(&p).unwrap_err();
    assert!(matches!(e, MpsError::MissingColumn { .. }), "{e}");
}

#[test]
fn online_calibration_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"tracking_timestamp_us":10,"utc_timestamp_ns":-1,"CameraCalibrations":[{"Label":"camera-slam-left"}],"ImuCalibrations":[],"ImageSizes":[[640,480]],"ReadoutTimesSec":[0.0123]}"#;
    let text = format!("{good}\n\n{good}\n{}", &good[..40]);
    let p = write(dir.path(), "online_calibration.jsonl", &text);
    let partial = read_online_calibrations_partial(&p);
    assert_eq!(partial.items.len(), 2);
    let c = &partial.items[0];
    assert_eq!(c.tracking_time.ns(), 10_000);
    assert_eq!(c.utc_ns, None);
    assert_eq!(c.image_sizes, Some(vec![[640, 480]]));
    assert_eq!(c.readout_times_s, Some(vec![0.0123]));
    assert_eq!(c.camera_calibrations[0]["Label"], "camera-slam-left");
    let e = partial.error.unwrap();
    assert!(matches!(e, MpsError::Json { line: 4, .. }), "{e}");

    let p = write(
        dir.path(),
        "o2.jsonl",
        "{\"CameraCalibrations\":[],\"ImuCalibrations\":[]}\n",
    );
    let e = read_online_calibrations(&p).unwrap_err();
    assert!(e.to_string().contains("tracking_timestamp_us"), "{e}");
    assert_eq!(e.line(), Some(1));
    let p = write(dir.path(), "o3.jsonl", "[1,2]\n");
    assert!(read_online_calibrations(&p).is_err());
}

#[test]
fn backward_timestamps_are_kept_in_file_order_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{CLOSED_HEADER}\n{}\n{}\n{}\n",
        closed_row(5, "0"),
        closed_row(3, "0"),
        closed_row(9, "0")
    );
    let slam = dir.path().join("slam");
    std::fs::create_dir(&slam).unwrap();
    let p = write(&slam, "closed_loop_trajectory.csv", &text);
    let poses = read_trajectory(&p).unwrap();
    let t: Vec<i64> = poses.iter().map(|x| x.tracking_time.ns()).collect();
    assert_eq!(t, vec![5_000, 3_000, 9_000]);
    assert_eq!(
        check_monotonic(poses.iter().map(|x| x.tracking_time)).backward_steps,
        1
    );
    let s = MpsFiles::discover(dir.path()).summaries();
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].backward_steps, 1);
    assert_eq!(s[0].rows, 3);
    assert_eq!(s[0].first_tracking_ns, Some(5_000));
    assert_eq!(s[0].last_tracking_ns, Some(9_000));
}

fn every_reader(p: &Path) {
    let _ = read_trajectory_partial(p);
    let _ = read_eye_gaze_partial(p);
    let _ = read_wrist_and_palm_partial(p);
    let _ = read_hand_tracking_results_partial(p);
    let _ = read_semidense_points_partial(p, PointFilter::default());
    let _ = read_online_calibrations_partial(p);
    let _ = read_service_summary(p);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Arbitrary bytes, and valid files with arbitrary damage, never panic any reader.
    #[test]
    fn no_input_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600),
                       cut in 0usize..2000, junk in "[0-9a-z,.\\-\"\n]{0,40}") {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.csv");
        std::fs::write(&p, &bytes).unwrap();
        every_reader(&p);
        let g = dir.path().join("f.csv.gz");
        std::fs::write(&g, &bytes).unwrap();
        every_reader(&g);
        let mut text = format!("{CLOSED_HEADER}\n{}\n{}\n", closed_row(1, "0.1"), closed_row(2, "0.2"));
        text.truncate(cut.min(text.len()));
        text.push_str(&junk);
        std::fs::write(&p, text.as_bytes()).unwrap();
        every_reader(&p);
    }
}

#[test]
fn degenerate_quaternion_and_crlf_do_not_break_reading() {
    let dir = tempfile::tempdir().unwrap();
    let zero_q = closed_row(1, "0.1").replace(",0,0,0,1,", ",0,0,0,0,");
    let text = format!(
        "{CLOSED_HEADER}\r\n{zero_q}\r\n{}\r\n",
        closed_row(2, "0.1")
    );
    let p = write(dir.path(), "closed_loop_trajectory.csv", &text);
    let poses = read_trajectory(&p).unwrap();
    assert_eq!(poses.len(), 2);
    assert!(poses[0].t_world_device.rotation.quaternion().w.is_nan());
    assert_eq!(poses[1].t_world_device.rotation.quaternion().w, 1.0);
    assert_eq!(poses[1].quality_score, 0.9);
}
