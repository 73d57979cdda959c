#!/usr/bin/env python3
"""Generate reference values for vista's MPS readers with Meta's projectaria_tools.

Run from the repository root with the reference venv:

    /root/.cache/vista/refvenv/bin/python scripts/ref_mps.py

Writes tests/data/reference/mps_sample.json. The Rust tests (tests/mps_*.rs) compare their
own reading of tests/data/gen1/mps_sample against these values, so CI needs no Python.
Timestamps come back from the bindings as datetime.timedelta (microsecond resolution): they
are stored as integer microseconds (UTC ones truncated from nanoseconds).
"""

import datetime
import json
import os
import sys

import numpy as np
from projectaria_tools.core import mps
from projectaria_tools.core.mps import hand_tracking as ht
from projectaria_tools.core.mps.utils import filter_points_from_confidence

SAMPLE = "tests/data/gen1/mps_sample"
OUT = "tests/data/reference/mps_sample.json"
GEN2_CSV = "tests/data/mps_synthetic/gen2_eye_gaze.csv"

# A small synthetic file in the Gen2 eye-gaze schema (no Gen2 sample is bundled): per-eye
# yaw/pitch chosen to cover converging rays, rays too parallel to converge and diverging rays.
GEN2_HEADER = (
    "tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,left_yaw_rads_cpf,right_yaw_rads_cpf,"
    "left_pitch_rads_cpf,right_pitch_rads_cpf,tx_left_eye_cpf,ty_left_eye_cpf,tz_left_eye_cpf,"
    "tx_right_eye_cpf,ty_right_eye_cpf,tz_right_eye_cpf"
)
GEN2_ROWS = [
    (1000, 0.05, -0.1, 0.01, 0.09, -0.1, -0.1),
    (2000, -0.2, 0.05, -0.25, -0.15, 0.06, 0.04),
    (3000, 0.0, 0.0, -0.004, 0.004, 0.0, 0.0),
    (4000, 0.1, 0.2, 0.2, 0.0, 0.2, 0.2),
    (5000, 0.3, -0.3, 0.26, 0.34, -0.31, -0.29),
]


OBS_CSV_GZ = "tests/data/mps_synthetic/semidense_observations.csv.gz"
# A small synthetic observations file (no sample is bundled); header as PointObservationReader.
OBS_ROWS = [
    (25, 149202610, "0072510f1b2100050300001812090001", 320.25, 241.5),
    (25, 149302610, "0072510f1b210405050000130a0f0001", 12.125, 400.75),
    (33, 149302610, "0072510f1b2100050300001812090001", 639.5, 0.5),
]


def write_observations() -> None:
    import gzip

    os.makedirs(os.path.dirname(OBS_CSV_GZ), exist_ok=True)
    text = "uid,frame_tracking_timestamp_us,camera_serial,u,v\n" + "".join(
        f"{uid},{t},{serial},{u},{v}\n" for uid, t, serial, u, v in OBS_ROWS
    )
    # mtime=0 keeps the committed file byte-identical across runs.
    with open(OBS_CSV_GZ, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
            f.write(text.encode())


def observations() -> dict:
    rows = mps.read_point_observations(OBS_CSV_GZ)
    return {
        "count": len(rows),
        "rows": [
            {
                "index": i,
                "uid": int(o.point_uid),
                "tracking_us": us(o.frame_capture_timestamp),
                "camera_serial": o.camera_serial,
                "uv": vec(o.uv),
            }
            for i, o in enumerate(rows)
        ],
    }


def write_gen2_csv() -> None:
    os.makedirs(os.path.dirname(GEN2_CSV), exist_ok=True)
    with open(GEN2_CSV, "w") as f:
        f.write(GEN2_HEADER + "\n")
        for t, yaw, pitch, ly, ry, lp, rp in GEN2_ROWS:
            f.write(f"{t},{yaw},{pitch},{ly},{ry},{lp},{rp},0.0325,0.0,0.0,-0.0325,0.0,0.0\n")


def gen2_eye_gaze() -> dict:
    rows = mps.read_eyegaze(GEN2_CSV)
    return {
        "count": len(rows),
        "rows": [
            {
                "index": i,
                "tracking_us": us(g.tracking_timestamp),
                "yaw": float(g.yaw),
                "pitch": float(g.pitch),
                "depth": float(g.depth),
                "spatial_gaze_point_valid": bool(g.spatial_gaze_point_valid),
                "spatial_gaze_point_in_cpf": vec(g.spatial_gaze_point_in_cpf),
            }
            for i, g in enumerate(rows)
        ],
    }


def us(td: datetime.timedelta) -> int:
    return (td.days * 86400 + td.seconds) * 1_000_000 + td.microseconds


def vec(v) -> list:
    return [float(x) for x in np.asarray(v).reshape(-1)]


def sample_indices(n: int) -> list:
    return sorted({i for i in (0, 1, n // 3, n // 2, n - 1) if 0 <= i < n})


def pose(se3) -> dict:
    q = se3.rotation().to_quat()  # w, x, y, z
    return {"t": vec(se3.translation()), "q_wxyz": vec(q)}


def trajectory(path: str, closed: bool) -> dict:
    rows = (
        mps.read_closed_loop_trajectory(path)
        if closed
        else mps.read_open_loop_trajectory(path)
    )
    out = {"count": len(rows), "rows": []}
    for i in sample_indices(len(rows)):
        r = rows[i]
        d = {
            "index": i,
            "tracking_us": us(r.tracking_timestamp),
            "utc_us": us(r.utc_timestamp),
            "angular_velocity_device": vec(r.angular_velocity_device),
            "quality_score": float(r.quality_score),
        }
        if closed:
            d["graph_uid"] = r.graph_uid
            d.update(pose(r.transform_world_device))
            d["linear_velocity"] = vec(r.device_linear_velocity_device)
            d["gravity"] = vec(r.gravity_world)
        else:
            d["graph_uid"] = r.session_uid
            d.update(pose(r.transform_odometry_device))
            d["linear_velocity"] = vec(r.device_linear_velocity_odometry)
            d["gravity"] = vec(r.gravity_odometry)
        out["rows"].append(d)
    return out


def eye_gaze(path: str) -> dict:
    rows = mps.read_eyegaze(path)
    out = {"count": len(rows), "rows": []}
    for i in sample_indices(len(rows)):
        g = rows[i]
        v = g.vergence
        out["rows"].append(
            {
                "index": i,
                "tracking_us": us(g.tracking_timestamp),
                "yaw": float(g.yaw),
                "pitch": float(g.pitch),
                "depth": float(g.depth),
                "yaw_low": float(g.yaw_low),
                "yaw_high": float(g.yaw_high),
                "pitch_low": float(g.pitch_low),
                "pitch_high": float(g.pitch_high),
                "session_uid": g.session_uid,
                "left_yaw": float(v.left_yaw),
                "right_yaw": float(v.right_yaw),
                "left_eye": [float(v.tx_left_eye), float(v.ty_left_eye), float(v.tz_left_eye)],
                "right_eye": [float(v.tx_right_eye), float(v.ty_right_eye), float(v.tz_right_eye)],
                "unit_vector_cpf": vec(mps.get_unit_vector_from_yaw_pitch(g.yaw, g.pitch)),
                "point_at_1_5m_cpf": vec(mps.get_eyegaze_point_at_depth(g.yaw, g.pitch, 1.5)),
            }
        )
    return out


def wrist_and_palm(path: str) -> dict:
    rows = ht.read_wrist_and_palm_poses(path)
    out = {"count": len(rows), "rows": []}
    for i, r in enumerate(rows):
        d = {"index": i, "tracking_us": us(r.tracking_timestamp)}
        for side, h in (("left", r.left_hand), ("right", r.right_hand)):
            if h is None:
                d[side] = None
                continue
            s = {
                "confidence": float(h.confidence),
                "wrist": vec(h.wrist_position_device),
                "palm": vec(h.palm_position_device),
                "wrist_normal": None,
                "palm_normal": None,
            }
            n = h.wrist_and_palm_normal_device
            if n is not None:
                s["wrist_normal"] = vec(n.wrist_normal_device)
                s["palm_normal"] = vec(n.palm_normal_device)
            d[side] = s
        out["rows"].append(d)
    return out


def hand_results(path: str) -> dict:
    rows = ht.read_hand_tracking_results(path)
    out = {"count": len(rows), "rows": []}
    for i, r in enumerate(rows):
        d = {"index": i, "tracking_us": us(r.tracking_timestamp)}
        for side, h in (("left", r.left_hand), ("right", r.right_hand)):
            if h is None:
                d[side] = None
                continue
            s = {
                "confidence": float(h.confidence),
                "landmarks": [vec(p) for p in h.landmark_positions_device],
                "t_device_wrist": pose(h.transform_device_wrist),
                "wrist_normal": None,
                "palm_normal": None,
            }
            n = h.wrist_and_palm_normal_device
            if n is not None:
                s["wrist_normal"] = vec(n.wrist_normal_device)
                s["palm_normal"] = vec(n.palm_normal_device)
            d[side] = s
        out["rows"].append(d)
    return out


def points(path: str) -> dict:
    pts = mps.read_global_point_cloud(path)
    out = {"count": len(pts), "rows": [], "filtered": []}
    for i in sample_indices(len(pts)):
        p = pts[i]
        out["rows"].append(
            {
                "index": i,
                "uid": int(p.uid),
                "graph_uid": p.graph_uid,
                "position_world": vec(p.position_world),
                "inv_dist_std": float(p.inverse_distance_std),
                "dist_std": float(p.distance_std),
            }
        )
    for inv, dist in ((0.005, 0.01), (0.001, 0.05)):
        kept = filter_points_from_confidence(pts, inv, dist)
        out["filtered"].append(
            {
                "max_inv_dist_std": inv,
                "max_dist_std": dist,
                "count": len(kept),
                "first_uid": int(kept[0].uid) if kept else None,
                "last_uid": int(kept[-1].uid) if kept else None,
            }
        )
    return out


def online_calibration(path: str) -> dict:
    rows = mps.read_online_calibration(path)
    out = {"count": len(rows), "rows": []}
    for i in sample_indices(len(rows)):
        c = rows[i]
        out["rows"].append(
            {
                "index": i,
                "tracking_us": us(c.tracking_timestamp),
                "utc_us": us(c.utc_timestamp),
                "camera_labels": [cam.get_label() for cam in c.camera_calibs],
                "imu_labels": [imu.get_label() for imu in c.imu_calibs],
                "camera0_projection_params": vec(c.camera_calibs[0].get_projection_params()),
            }
        )
    return out


def main() -> int:
    write_gen2_csv()
    write_observations()
    ref = {
        "generator": "scripts/ref_mps.py",
        "projectaria_tools": __import__("importlib.metadata").metadata.version("projectaria_tools"),
        "closed_loop": trajectory(f"{SAMPLE}/trajectory/closed_loop_trajectory.csv", True),
        "open_loop": trajectory(f"{SAMPLE}/trajectory/open_loop_trajectory.csv", False),
        "eye_gaze": {
            name: eye_gaze(f"{SAMPLE}/{name}")
            for name in (
                "eye_gaze/eyegaze.csv",
                "eye_gaze/generalized_eye_gaze.csv",
                "eye_gaze_vergence/generalized_gaze.csv",
            )
        },
        "eye_gaze_gen2_synthetic": gen2_eye_gaze(),
        "wrist_and_palm": {
            name: wrist_and_palm(f"{SAMPLE}/{name}")
            for name in ("hand_tracking/wrist_and_palm_poses.csv", "hand_tracking/wrist_and_palm_poses_v2.csv")
        },
        "hand_tracking_results": {
            name: hand_results(f"{SAMPLE}/{name}")
            for name in ("hand_tracking/hand_tracking_results_v1.csv", "hand_tracking/hand_tracking_results_v2.csv")
        },
        "semidense_observations_synthetic": observations(),
        "semidense_points": points(f"{SAMPLE}/trajectory/global_points.csv.gz"),
        "online_calibration": online_calibration(f"{SAMPLE}/trajectory/online_calibration.jsonl"),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
