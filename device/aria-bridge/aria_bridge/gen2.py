"""Aria Gen2: the Client SDK's typed callbacks -> pending frames.

Gen2's Client SDK is `projectaria-client-sdk` 2.x (PyPI; `aria.sdk_gen2` connects to the
glasses and starts streaming, `aria.stream_receiver.StreamReceiver` receives it and calls
typed callbacks with projectaria_tools data types, images already decoded). Besides the
sensors it delivers what the glasses compute themselves: VIO at ~800 Hz
(`OpenLoopTrajectoryPose`) and ~10 Hz (`FrontendOutput`), eye gaze (`EyeGaze`) and hand
tracking (`HandTrackingResult`). Each callback copies the fields it needs into a bounded
queue (full: the oldest entry is dropped and counted) and returns, as `BridgeObserver` does
for Gen1; encoding happens on the sender thread.
"""

import math

from . import protocol as p
from .observer import QUEUE_TYPES, BridgeObserver, encode_item

# StreamReceiver's Gen2 camera ids (a bit each) -> calibration label.
GEN2_CAMERA_LABELS = {
    1: "slam-front-left",
    2: "slam-front-right",
    4: "slam-side-left",
    8: "slam-side-right",
    16: "camera-et-left",
    32: "camera-et-right",
    64: "camera-rgb",
}

# Calibration label -> (queue type, wire stream). The front pair is sent as 1201-1/2; vista
# checks it against the calibration's stereo pair and routes by label either way.
GEN2_CAMERA_STREAMS = {
    "slam-front-left": ("slam", p.STREAM_SLAM_LEFT),
    "slam-front-right": ("slam", p.STREAM_SLAM_RIGHT),
    "slam-side-left": ("slam", p.STREAM_SLAM_SIDE_LEFT),
    "slam-side-right": ("slam", p.STREAM_SLAM_SIDE_RIGHT),
    "camera-et-left": ("et", p.STREAM_ET),
    "camera-et-right": ("et", p.STREAM_ET_RIGHT),
    "camera-rgb": ("rgb", p.STREAM_RGB),
}

GEN2_IMU_STREAMS = {"imu-right": p.STREAM_IMU_RIGHT, "imu-left": p.STREAM_IMU_LEFT}

GEN2_QUEUE_SIZES = {"pose": 256, "vio": 8, "gaze": 8, "hands": 8}
GEN2_QUEUE_TYPES = QUEUE_TYPES + tuple(GEN2_QUEUE_SIZES)

# The microphones' rate as Gen2 recordings store it (8 channels, Opus at 16 kHz); the SDK's
# audio callback does not say.
GEN2_AUDIO_RATE_HZ = 16000


def _ns(delta):
    """A `datetime.timedelta` (the SDK's tracking timestamps) in whole nanoseconds."""
    return ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000


def _vec3(v):
    return tuple(float(x) for x in list(v)[:3])


def _quat_translation(se3):
    """(w, x, y, z), (x, y, z) of a projectaria_tools SE3."""
    row = [float(x) for x in list(se3.to_quat_and_translation())[0]]
    return tuple(row[:4]), tuple(row[4:7])


def _finite_or_none(x):
    x = float(x)
    return x if math.isfinite(x) and x > 0.0 else None


class Gen2Observer(BridgeObserver):
    """Receives a StreamReceiver's typed callbacks (register each `on_*` method)."""

    def __init__(self, queue_sizes=None, audio_channels=8):
        sizes = dict(GEN2_QUEUE_SIZES)
        sizes.update(queue_sizes or {})
        super().__init__(queue_sizes=sizes, camera_streams={}, audio_channels=audio_channels,
                         queue_types=GEN2_QUEUE_TYPES)

    # --- StreamReceiver callbacks ---

    def on_image(self, image_data, image_record):
        label = GEN2_CAMERA_LABELS.get(int(image_record.camera_id))
        entry = GEN2_CAMERA_STREAMS.get(label)
        if entry is None:
            self.unknown += 1
            return
        qtype, stream = entry
        image = image_data.to_numpy_array() if hasattr(image_data, "to_numpy_array") else image_data
        self._push(qtype, ("image", stream, int(image_record.capture_timestamp_ns), image,
                           int(getattr(image_record, "frame_number", 0)),
                           float(getattr(image_record, "exposure_duration", 0.0)),
                           float(getattr(image_record, "gain", 0.0))))

    def on_imu(self, motion, label):
        self.on_imu_batch([motion], label)

    def on_imu_batch(self, motions, label):
        stream = GEN2_IMU_STREAMS.get(str(label))
        if stream is None:
            self.unknown += 1
            return
        batch = [
            (int(m.capture_timestamp_ns), _vec3(m.accel_msec2), _vec3(m.gyro_radsec),
             bool(getattr(m, "accel_valid", True)), bool(getattr(m, "gyro_valid", True)),
             float(getattr(m, "temperature", float("nan"))))
            for m in motions
        ]
        self._push("imu", ("imu", stream, batch))

    def on_magnetometer(self, motion, label=None):
        self.on_magneto_received(motion)

    def on_barometer(self, baro):
        self.on_baro_received(baro)

    def on_audio(self, audio_data, audio_record, num_channels):
        ts = [int(t) for t in audio_record.capture_timestamps_ns]
        self._push("audio", ("audio", ts, [int(x) for x in audio_data.data], int(num_channels)))

    def on_vio_high_frequency(self, pose):
        q, t = _quat_translation(pose.transform_odometry_device)
        self._push("pose", ("pose", p.STREAM_POSE, _ns(pose.tracking_timestamp), t, q,
                            _vec3(pose.device_linear_velocity_odometry),
                            _vec3(pose.angular_velocity_device),
                            min(1.0, max(0.0, float(pose.quality_score)))))

    def on_vio(self, out):
        import numpy as np  # the SDK brings numpy

        t_odo_dev = out.transform_odometry_bodyimu @ out.transform_bodyimu_device
        q, t = _quat_translation(t_odo_dev)
        r_bodyimu_device = np.asarray(out.transform_bodyimu_device.rotation().to_matrix())
        omega = r_bodyimu_device.reshape(3, 3).T @ np.asarray(_vec3(out.angular_velocity_in_bodyimu))
        status = getattr(out.status, "name", str(out.status))
        quality = getattr(out.pose_quality, "name", str(out.pose_quality))
        valid = status == "VALID" and quality == "GOOD"
        self._push("vio", ("pose", p.STREAM_VIO, int(out.capture_timestamp_ns), t, q,
                           _vec3(out.linear_velocity_in_odometry), _vec3(omega),
                           1.0 if valid else 0.0))

    def on_eye_gaze(self, gaze):
        self._push("gaze", ("gaze", _ns(gaze.tracking_timestamp), float(gaze.yaw),
                            float(gaze.pitch), _finite_or_none(gaze.depth)))

    def on_hand_pose(self, result):
        def side(h):
            if h is None:
                return None
            return (min(1.0, max(0.0, float(h.confidence))),
                    _vec3(h.get_wrist_position_device()), _vec3(h.get_palm_position_device()))

        self._push("hands", ("hands", _ns(result.tracking_timestamp), side(result.left_hand),
                             side(result.right_hand)))

    def encode(self, item):
        return encode_gen2_item(item, self.audio_channels)


def encode_gen2_item(item, audio_channels=8):
    """One queued item -> one frame (Gen2's own perception, or a sensor as for Gen1)."""
    kind = item[0]
    if kind == "pose":
        _, stream, capture, t, q, v, w, quality = item
        return p.pose(stream, capture, t, q, v, w, quality)
    if kind == "gaze":
        _, capture, yaw, pitch, depth = item
        return p.gaze(capture, yaw, pitch, depth)
    if kind == "hands":
        _, capture, left, right = item
        return p.hands(capture, left, right)
    if kind == "audio" and len(item) == 4:
        _, ts, pcm, channels = item
        return p.audio(ts, pcm, channels, sample_rate_hz=GEN2_AUDIO_RATE_HZ)
    return encode_item(item, audio_channels)
