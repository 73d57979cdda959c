#!/usr/bin/env python3
"""Generate reference values for vista's calibration tests with Meta's projectaria_tools.

Run with the reference venv (projectaria_tools 2.x installed):

    /root/.cache/vista/refvenv/bin/python scripts/ref_calib.py

Reads calibration/aria_gen1_1WM09380041283_factory.json and writes
tests/data/reference/calib_projection.json and tests/data/reference/calib_sensors.json.
The Rust tests compare against these committed files; CI does not need Python.
"""

import json
import math
import pathlib

import numpy as np
from projectaria_tools.core import calibration as C
from projectaria_tools.core.sophus import SE3

ROOT = pathlib.Path(__file__).resolve().parent.parent
CALIB = ROOT / "calibration" / "aria_gen1_1WM09380041283_factory.json"
OUT = ROOT / "tests" / "data" / "reference"

RNG = np.random.default_rng(20261130)
N_POINTS = 80
N_PIXELS = 60


def points_for(cam):
    """3D points in the camera frame: directions up to ~1.15x the max solid angle (so some are
    outside the valid cone / image), random depths, plus a few behind the camera."""
    max_angle = min(cam.get_max_solid_angle(), math.pi / 2 - 0.05) * 1.15
    pts = []
    for _ in range(N_POINTS):
        theta = math.sqrt(RNG.uniform(0.0, 1.0)) * max_angle
        phi = RNG.uniform(-math.pi, math.pi)
        depth = RNG.uniform(0.2, 8.0)
        d = np.array([math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)])
        pts.append(d * depth)
    # on-axis and behind-the-camera points
    pts.append(np.array([0.0, 0.0, 2.0]))
    pts.append(np.array([1e-12, -1e-12, 1.0]))
    if cam.get_model_name() != C.CameraModelType.LINEAR:
        # projectaria_tools' Linear model projects points behind the camera (z<0) when the
        # max solid angle is pi; vista refuses them, so they are not compared for Linear.
        pts.append(np.array([0.1, 0.2, -1.0]))
    if cam.get_model_name() not in (C.CameraModelType.SPHERICAL, C.CameraModelType.LINEAR):
        # projectaria_tools' Spherical model maps the point straight behind the camera to the
        # principal point (near-axis linearisation); vista refuses it, so it is not compared.
        pts.append(np.array([0.0, 0.0, -1.0]))
    return pts


def pixels_for(cam):
    """Pixels across (and a little beyond) the image."""
    w, h = [int(v) for v in cam.get_image_size()]
    c = cam.get_principal_point()
    f = cam.get_focal_lengths()
    px = []
    while len(px) < N_PIXELS:
        uv = np.array([RNG.uniform(-0.1 * w, 1.1 * w), RNG.uniform(-0.1 * h, 1.1 * h)])
        if cam.get_model_name() == C.CameraModelType.SPHERICAL:
            # projectaria_tools' Spherical unprojection uses tan(rho), which flips the ray
            # beyond rho = pi/2; vista returns the true direction, so only rho < pi/2 is compared.
            if np.linalg.norm((uv - c) / f) >= 0.98 * math.pi / 2:
                continue
        px.append(uv)
    px.append(np.array([c[0], c[1]]))
    px.append(np.array([c[0] + 1e-9, c[1]]))
    return px


def camera_record(name, cam):
    projections = []
    for p in points_for(cam):
        uv = cam.project(p)
        raw = None
        if p[2] > 0:
            raw_uv = cam.project_no_checks(p)
            raw = [float(raw_uv[0]), float(raw_uv[1])]
        projections.append({
            "p_cam_m": [float(v) for v in p],
            "uv_px": None if uv is None else [float(uv[0]), float(uv[1])],
            "uv_no_checks_px": raw,
        })
    unprojections = []
    for uv in pixels_for(cam):
        ray = cam.unproject(uv)
        unprojections.append({
            "uv_px": [float(v) for v in uv],
            "ray": None if ray is None else [float(v) for v in ray / np.linalg.norm(ray)],
        })
    r = cam.get_valid_radius()
    return {
        "name": name,
        "label": cam.get_label(),
        "model": cam.get_model_name().name,
        "params": [float(v) for v in cam.get_projection_params()],
        "image_size": [int(v) for v in cam.get_image_size()],
        "valid_radius_px": None if r is None else float(r),
        "max_solid_angle_rad": float(cam.get_max_solid_angle()),
        "projections": projections,
        "unprojections": unprojections,
    }


def se3_record(t):
    m = t.to_matrix()
    return {"matrix": [[float(v) for v in row] for row in m]}


def main():
    text = CALIB.read_text()
    dev = C.device_calibration_from_json_string(text)
    cams = []
    for label in sorted(dev.get_camera_labels()):
        cam = dev.get_camera_calib(label)
        cams.append(camera_record(label, cam))
        cams[-1]["t_device_camera"] = se3_record(cam.get_transform_device_camera())
    rgb = dev.get_camera_calib("camera-rgb")
    cams.append(camera_record("camera-rgb@1408", rgb.rescale(np.array([1408, 1408]), 0.5, np.array([32.0, 32.0]))))
    cams.append(camera_record("camera-rgb@704", rgb.rescale(np.array([704, 704]), 0.25, np.array([32.0, 32.0]))))
    for label in ["camera-slam-left", "camera-slam-right", "camera-et-left", "camera-et-right"]:
        cam = dev.get_camera_calib(label)
        cams.append(camera_record(label + "@320x240", cam.rescale(np.array([320, 240]), 0.5, np.array([0.0, 0.0]))))
    cams.append(camera_record("linear", C.get_linear_camera_calibration(512, 384, 300.0, "linear", SE3())))
    cams.append(camera_record("spherical", C.get_spherical_camera_calibration(512, 512, 150.0, "spherical", SE3())))
    (OUT / "calib_projection.json").write_text(json.dumps({"generator": "scripts/ref_calib.py", "cameras": cams}, separators=(",", ":")) + "\n")

    raw_imu = [[0.1, -9.7, 0.3], [1.5, 2.5, -3.5], [0.0, 0.0, 0.0]]
    raw_gyro = [[0.01, -0.02, 0.03], [1.0, -2.0, 0.5]]
    imus = []
    for label in sorted(dev.get_imu_labels()):
        imu = dev.get_imu_calib(label)
        imus.append({
            "label": label,
            "t_device_imu": se3_record(imu.get_transform_device_imu()),
            "accel": [{"raw": r, "rectified": [float(v) for v in imu.raw_to_rectified_accel(np.array(r))]} for r in raw_imu],
            "gyro": [{"raw": r, "rectified": [float(v) for v in imu.raw_to_rectified_gyro(np.array(r))]} for r in raw_gyro],
            "time_offset_accel_s": float(imu.get_time_offset_sec_device_accel()),
            "time_offset_gyro_s": float(imu.get_time_offset_sec_device_gyro()),
        })
    raw_mag_t = [[2.0e-5, -3.0e-5, 4.5e-5], [0.0, 0.0, 0.0], [-1.0e-4, 5.0e-5, 1.0e-5]]
    mags = []
    for label in sorted(dev.get_magnetometer_labels()):
        mag = dev.get_magnetometer_calib(label)
        mags.append({"label": label, "rectify": [{"raw_t": r, "rectified_t": [float(v) for v in mag.raw_to_rectified(np.array(r))]} for r in raw_mag_t]})
    baros = []
    for label in sorted(dev.get_barometer_labels()):
        b = dev.get_barometer_calib(label)
        baros.append({"label": label, "rectify": [{"raw_pa": r, "rectified_pa": float(b.raw_to_rectified(r))} for r in [101325.0, 95000.5, 0.0]]})
    cad = {}
    for subtype in ["DVT-S", "DVT-L"]:
        doc = json.loads(text)
        doc["DeviceClassInfo"]["BuildVersion"] = subtype
        d = C.device_calibration_from_json_string(json.dumps(doc))
        labels = sorted(d.get_camera_labels() + d.get_imu_labels() + d.get_magnetometer_labels()
                        + d.get_barometer_labels() + d.get_microphone_labels())
        cad[subtype] = {
            "t_device_cpf": se3_record(d.get_transform_device_cpf()),
            "t_device_sensor_cad": {l: se3_record(d.get_transform_device_sensor(l, True)) for l in labels},
        }
    sensors = {
        "generator": "scripts/ref_calib.py",
        "serial": "1WM09380041283",
        "device_subtype": dev.get_device_subtype(),
        "t_device_cpf": se3_record(dev.get_transform_device_cpf()),
        "cad": cad,
        "imus": imus,
        "magnetometers": mags,
        "barometers": baros,
        "microphones": [{"label": l, "d_sensitivity_1k_dbv": float(dev.get_microphone_calib(l).get_d_sensitivity_1k_dbv())} for l in sorted(dev.get_microphone_labels())],
    }
    (OUT / "calib_sensors.json").write_text(json.dumps(sensors, indent=1) + "\n")


if __name__ == "__main__":
    main()
