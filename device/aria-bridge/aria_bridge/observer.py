"""SDK callbacks -> pending frames, never blocking the SDK's threads.

The Client SDK calls `on_image_received`, `on_imu_received`, `on_magneto_received`,
`on_baro_received` and `on_audio_received` on its own threads with projectaria_tools data
types (ImageDataRecord, MotionData, BarometerData, AudioDataRecord-like objects). Each
callback copies the few fields it needs into a per-data-type bounded queue (a full queue
drops its oldest entry and counts it) and returns; encoding happens on the sender thread
(`take_frames`).
"""

import threading
from collections import deque

from . import protocol as p

QUEUE_TYPES = ("rgb", "slam", "et", "imu", "magneto", "baro", "audio")

DEFAULT_QUEUE_SIZES = {
    "rgb": 2, "slam": 4, "et": 2, "imu": 64, "magneto": 16, "baro": 32, "audio": 32,
}


def default_camera_streams(aria=None):
    """Camera id -> (queue type, VRS stream). Uses the SDK's `aria.CameraId` when given."""
    if aria is not None:
        c = aria.CameraId
        return {
            c.Rgb: ("rgb", p.STREAM_RGB),
            c.Slam1: ("slam", p.STREAM_SLAM_LEFT),
            c.Slam2: ("slam", p.STREAM_SLAM_RIGHT),
            c.EyeTrack: ("et", p.STREAM_ET),
        }
    # projectaria_tools' CameraId order (Slam1, Slam2, Rgb, EyeTrack) when no SDK is loaded.
    return {
        0: ("slam", p.STREAM_SLAM_LEFT),
        1: ("slam", p.STREAM_SLAM_RIGHT),
        2: ("rgb", p.STREAM_RGB),
        3: ("et", p.STREAM_ET),
    }


IMU_STREAMS = {0: p.STREAM_IMU_RIGHT, 1: p.STREAM_IMU_LEFT}


class BridgeObserver:
    """A StreamingClientObserver that queues what the SDK delivers."""

    def __init__(self, queue_sizes=None, camera_streams=None, audio_channels=7,
                 queue_types=QUEUE_TYPES):
        sizes = dict(DEFAULT_QUEUE_SIZES)
        sizes.update(queue_sizes or {})
        self._queues = {t: deque() for t in queue_types}
        self._sizes = sizes
        self._lock = threading.Lock()
        self.ready = threading.Event()
        self.dropped = {t: 0 for t in queue_types}
        self.unknown = 0
        self.failures = []
        self.camera_streams = camera_streams or default_camera_streams()
        self.audio_channels = audio_channels

    def _push(self, qtype, item):
        with self._lock:
            q = self._queues[qtype]
            if len(q) >= max(1, self._sizes.get(qtype, 1)):
                q.popleft()
                self.dropped[qtype] += 1
            q.append(item)
        self.ready.set()

    # --- SDK callbacks (run on SDK threads: copy fields, queue, return) ---

    def on_image_received(self, image, record):
        entry = self.camera_streams.get(record.camera_id)
        if entry is None:
            self.unknown += 1
            return
        qtype, stream = entry
        self._push(qtype, ("image", stream, int(record.capture_timestamp_ns), image,
                           int(record.frame_number), float(record.exposure_duration),
                           float(record.gain)))

    def on_imu_received(self, samples, imu_idx):
        stream = IMU_STREAMS.get(int(imu_idx))
        if stream is None:
            self.unknown += 1
            return
        batch = [
            (int(s.capture_timestamp_ns), tuple(s.accel_msec2), tuple(s.gyro_radsec),
             bool(getattr(s, "accel_valid", True)), bool(getattr(s, "gyro_valid", True)),
             float(getattr(s, "temperature", float("nan"))))
            for s in samples
        ]
        self._push("imu", ("imu", stream, batch))

    def on_magneto_received(self, sample):
        self._push("magneto", ("mag", int(sample.capture_timestamp_ns), tuple(sample.mag_tesla)))

    def on_baro_received(self, sample):
        self._push("baro", ("baro", int(sample.capture_timestamp_ns), float(sample.pressure),
                            float(sample.temperature)))

    def on_audio_received(self, audio_and_record, *args):
        ts = [int(t) for t in audio_and_record.capture_timestamps_ns]
        self._push("audio", ("audio", ts, list(audio_and_record.data)))

    def on_streaming_client_failure(self, reason, message):
        self.failures.append(f"{reason}: {message}")

    # --- sender side ---

    def take_frames(self):
        """Encodes and returns every queued item as frames (bytes), queue by queue."""
        with self._lock:
            items = []
            for q in self._queues.values():
                items.extend(q)
                q.clear()
            self.ready.clear()
        return [self.encode(it) for it in items]

    def encode(self, item):
        """One queued item -> one frame."""
        return encode_item(item, self.audio_channels)


def encode_item(item, audio_channels=7):
    """One queued item -> one frame."""
    kind = item[0]
    if kind == "image":
        _, stream, capture, image, frame_number, exposure, gain = item
        if isinstance(image, (bytes, bytearray)):  # JPEG bytes, when an SDK gives them
            return p.image(stream, capture, 0, 0, bytes(image), frame_number, exposure, gain)
        h, w = image.shape[0], image.shape[1]
        channels = image.shape[2] if len(image.shape) == 3 else 1
        fmt = p.PIXEL_RGB8 if channels == 3 else p.PIXEL_GREY8
        data = image.astype("uint8").tobytes(order="C")
        return p.image(stream, capture, w, h, data, frame_number, exposure, gain,
                       jpeg=False, raw_pixel_format=fmt, raw_stride=w * channels)
    if kind == "imu":
        _, stream, batch = item
        return p.imu_batch(stream, batch)
    if kind == "mag":
        return p.magnetometer(item[1], item[2])
    if kind == "baro":
        return p.barometer(item[1], item[2], item[3])
    if kind == "audio":
        _, ts, pcm = item
        channels = len(pcm) // len(ts) if ts else audio_channels
        return p.audio(ts, pcm, channels)
    raise ValueError(f"unknown item {kind}")
