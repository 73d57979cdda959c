"""Writes tests/fixtures/bridge_frames.bin (frames produced by the bridge from the SDK's own
data types, projectaria_tools.core.sensor_data) and bridge_frames.json (the input values),
and the same for Gen2 (bridge_gen2_frames.*: the glasses' own VIO, eye gaze and hand
tracking as projectaria_tools.core.mps types), for the Rust test tests/live_bridge_bytes.rs:
the Rust decoder must read these bytes back to the inputs, and the Rust encoder must
reproduce them byte for byte.

    python -m venv /tmp/pat && /tmp/pat/bin/pip install projectaria-tools==2.3.0
    /tmp/pat/bin/python device/aria-bridge/scripts/gen_frames_fixture.py
"""

import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402
from projectaria_tools.core.sensor_data import (  # noqa: E402
    BarometerData, ImageDataRecord, MotionData)

from projectaria_tools.core.mps import (  # noqa: E402
    EyeGaze, OpenLoopTrajectoryPose, hand_tracking)
from projectaria_tools.core.sophus import SE3  # noqa: E402

from aria_bridge import protocol as p  # noqa: E402
from aria_bridge.gen2 import Gen2Observer  # noqa: E402
from aria_bridge.observer import BridgeObserver  # noqa: E402

# Values exactly representable in f32, so the JSON comparison is exact.
IMU = [
    (1_000_000, [-9.8125, 0.5, 0.25], [0.125, -0.0625, 0.03125], 31.5),
    (2_000_000, [-9.75, 0.625, 0.375], [0.25, -0.125, 0.0625], 31.75),
]
MAG = (3_000_000, [1.52587890625e-05, -3.0517578125e-05, 6.103515625e-05])
BARO = (4_000_000, 101325.25, 22.5)
AUDIO_TS = [5_000_000, 5_020_833]
AUDIO_PCM = [1, -2, 3, -4, 2147483647, -2147483648]
IMAGE = (6_000_000, 17, 0.00425, 2.5)  # capture, frame number, exposure s, gain


def main():
    o = BridgeObserver(camera_streams={2: ("rgb", p.STREAM_RGB)})
    samples = []
    for t, a, g, temp in IMU:
        m = MotionData()
        m.capture_timestamp_ns, m.accel_msec2, m.gyro_radsec = t, a, g
        m.accel_valid, m.gyro_valid, m.temperature = True, True, temp
        samples.append(m)
    o.on_imu_received(samples, 1)
    m = MotionData()
    m.capture_timestamp_ns, m.mag_tesla = MAG
    o.on_magneto_received(m)
    b = BarometerData()
    b.capture_timestamp_ns, b.pressure, b.temperature = BARO
    o.on_baro_received(b)
    audio = type("AudioAndRecord", (), {})()
    audio.capture_timestamps_ns, audio.data = AUDIO_TS, AUDIO_PCM
    o.on_audio_received(audio)
    rec = ImageDataRecord()
    rec.camera_id = 2
    rec.capture_timestamp_ns, rec.frame_number, rec.exposure_duration, rec.gain = IMAGE
    img = (np.arange(4 * 3 * 3) % 251).astype(np.uint8).reshape(4, 3, 3)
    o.on_image_received(img, rec)

    frames = [p.hello("1WM09380041283", "profile18", '{"Serial":"1WM09380041283"}')]
    frames += o.take_frames()
    frames += [p.heartbeat(7_000_000), p.goodbye("bridge stopped")]
    out = os.path.join(HERE, "..", "tests", "fixtures")
    with open(os.path.join(out, "bridge_frames.bin"), "wb") as f:
        f.write(b"".join(frames))
    expected = {
        "frames": len(frames),
        "hello": {"serial": "1WM09380041283", "profile": "profile18",
                  "calib_json": '{"Serial":"1WM09380041283"}'},
        "imu_left": [{"capture_ns": t, "accel": a, "gyro": g, "temperature_c": temp}
                     for t, a, g, temp in IMU],
        "magnetometer": {"capture_ns": MAG[0], "field_t": MAG[1]},
        "barometer": {"capture_ns": BARO[0], "pressure_pa": BARO[1], "temperature_c": BARO[2]},
        "audio": {"timestamps_ns": AUDIO_TS, "pcm": AUDIO_PCM, "channels": 3},
        "image": {"capture_ns": IMAGE[0], "frame_number": IMAGE[1], "width": 3, "height": 4,
                  "pixel_format": 4, "stride": 9, "pixels": img.flatten().tolist()},
        "heartbeat_ns": 7_000_000,
        "goodbye": "bridge stopped",
    }
    with open(os.path.join(out, "bridge_frames.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


# Gen2's own perception; values exactly representable in f32 where they travel as f32.
POSE = (7_385_790_342_000, [1.5, -0.25, 0.125], [0.5, 0.0, -0.25], [0.0, 0.125, 0.0], 1.0)
GAZE = (7_385_798_652_000, -0.125, 0.0625, 1.25)
HAND = (7_385_791_599_000, 0.75, [0.125, -0.25, 0.25], [0.125, -0.2, 0.3125])


def gen2():
    o = Gen2Observer()
    pose = OpenLoopTrajectoryPose()
    t, trans, v, w, q = POSE
    pose.tracking_timestamp = datetime.timedelta(microseconds=t // 1000)
    # A quarter turn about z: the quaternion (w, x, y, z) = (√½, 0, 0, √½).
    m = np.array([[0.0, -1.0, 0.0, trans[0]], [1.0, 0.0, 0.0, trans[1]],
                  [0.0, 0.0, 1.0, trans[2]], [0.0, 0.0, 0.0, 1.0]])
    pose.transform_odometry_device = SE3.from_matrix(m)
    pose.device_linear_velocity_odometry = np.array(v)
    pose.angular_velocity_device = np.array(w)
    pose.quality_score = q
    o.on_vio_high_frequency(pose)
    g = EyeGaze()
    g.tracking_timestamp = datetime.timedelta(microseconds=GAZE[0] // 1000)
    g.yaw, g.pitch, g.depth = GAZE[1], GAZE[2], GAZE[3]
    o.on_eye_gaze(g)
    one_side = hand_tracking.__dict__["HandTrackingResult.OneSide"]()
    one_side.confidence = HAND[1]
    landmarks = [np.zeros(3) for _ in range(21)]
    landmarks[5], landmarks[20] = np.array(HAND[2]), np.array(HAND[3])  # WRIST, PALM_CENTER
    one_side.landmark_positions_device = landmarks
    hands = hand_tracking.HandTrackingResult()
    hands.tracking_timestamp = datetime.timedelta(microseconds=HAND[0] // 1000)
    hands.right_hand = one_side
    o.on_hand_pose(hands)

    calib = '{"DeviceClassInfo":{"BuildVersion":"Oatmeal"}}'
    frames = [p.hello("1M0YCN3G8V0062", "profile9", calib, p.GEN2_STREAMS)]
    frames += o.take_frames()
    out = os.path.join(HERE, "..", "tests", "fixtures")
    with open(os.path.join(out, "bridge_gen2_frames.bin"), "wb") as f:
        f.write(b"".join(frames))
    quat = [float(x) for x in pose.transform_odometry_device.to_quat_and_translation()[0][:4]]
    expected = {
        "frames": len(frames),
        "streams": [[t, i, label] for (t, i), label in p.GEN2_STREAMS],
        "pose": {"capture_ns": POSE[0], "translation_m": trans, "quaternion_wxyz": quat,
                 "linear_velocity_mps": v, "angular_velocity_radps": w, "quality": q},
        "gaze": {"capture_ns": GAZE[0], "yaw_rad": GAZE[1], "pitch_rad": GAZE[2],
                 "depth_m": GAZE[3]},
        "right_hand": {"capture_ns": HAND[0], "confidence": HAND[1], "wrist_m": HAND[2],
                       "palm_m": HAND[3]},
    }
    with open(os.path.join(out, "bridge_gen2_frames.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
    gen2()
