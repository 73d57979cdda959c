"""Writes tests/fixtures/bridge_frames.bin (frames produced by the bridge from the SDK's own
data types, projectaria_tools.core.sensor_data) and bridge_frames.json (the input values),
for the Rust test tests/live_bridge_bytes.rs: the Rust decoder must read these bytes back
to the inputs, and the Rust encoder must reproduce them byte for byte.

    /root/.cache/vista/refvenv/bin/python device/aria-bridge/scripts/gen_frames_fixture.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402
from projectaria_tools.core.sensor_data import (  # noqa: E402
    BarometerData, ImageDataRecord, MotionData)

from aria_bridge import protocol as p  # noqa: E402
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


if __name__ == "__main__":
    main()
