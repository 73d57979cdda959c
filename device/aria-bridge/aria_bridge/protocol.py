"""Encoder of the vista live wire protocol, version 2 (see device/PROTOCOL.md).

Pure functions: each returns one complete frame (u32 LE length prefix + body) as bytes.
Mirrors src/source/live/protocol.rs; tests check the Rust decoder reads these bytes.
"""

import struct

PROTOCOL_VERSION = 2
MAGIC = b"VSTA"

KIND_HELLO = 1
KIND_SAMPLE = 2
KIND_IMU_BATCH = 3
KIND_HEARTBEAT = 4
KIND_GOODBYE = 5
KIND_AUTH = 6

PAYLOAD_IMAGE = 1
PAYLOAD_IMU = 2
PAYLOAD_MAG = 3
PAYLOAD_BARO = 4
PAYLOAD_AUDIO = 5
PAYLOAD_POSE = 6
PAYLOAD_GAZE = 7
PAYLOAD_HANDS = 8

ENC_JPEG = 0
ENC_PNG = 1
ENC_RAW = 2

# VRS stream ids (recordable type id, instance) of Aria Gen1.
STREAM_RGB = (214, 1)
STREAM_SLAM_LEFT = (1201, 1)
STREAM_SLAM_RIGHT = (1201, 2)
STREAM_ET = (211, 1)
STREAM_IMU_RIGHT = (1202, 1)
STREAM_IMU_LEFT = (1202, 2)
STREAM_MAG = (1203, 1)
STREAM_BARO = (247, 1)
STREAM_AUDIO = (231, 1)
# What Aria Gen2 adds (fixed wire ids, see PROTOCOL.md).
STREAM_SLAM_SIDE_LEFT = (1201, 3)
STREAM_SLAM_SIDE_RIGHT = (1201, 4)
STREAM_ET_RIGHT = (211, 2)
STREAM_HANDS = (371, 1)
STREAM_VIO = (371, 2)
STREAM_POSE = (371, 3)
STREAM_GAZE = (373, 1)

# Gen1's nine streams under vista's names: what a hello announces by default.
GEN1_STREAMS = [
    (STREAM_ET, "camera-et"),
    (STREAM_RGB, "camera-rgb"),
    (STREAM_SLAM_LEFT, "camera-slam-left"),
    (STREAM_SLAM_RIGHT, "camera-slam-right"),
    (STREAM_IMU_RIGHT, "imu-right"),
    (STREAM_IMU_LEFT, "imu-left"),
    (STREAM_MAG, "magnetometer"),
    (STREAM_BARO, "barometer"),
    (STREAM_AUDIO, "audio"),
]

# Gen2's streams as the Client SDK delivers them; cameras under their calibration labels.
GEN2_STREAMS = [
    (STREAM_ET, "camera-et-left"),
    (STREAM_ET_RIGHT, "camera-et-right"),
    (STREAM_RGB, "camera-rgb"),
    (STREAM_SLAM_LEFT, "slam-front-left"),
    (STREAM_SLAM_RIGHT, "slam-front-right"),
    (STREAM_SLAM_SIDE_LEFT, "slam-side-left"),
    (STREAM_SLAM_SIDE_RIGHT, "slam-side-right"),
    (STREAM_IMU_RIGHT, "imu-right"),
    (STREAM_IMU_LEFT, "imu-left"),
    (STREAM_MAG, "magnetometer"),
    (STREAM_BARO, "barometer"),
    (STREAM_AUDIO, "audio"),
    (STREAM_HANDS, "hand-tracking"),
    (STREAM_VIO, "device-vio"),
    (STREAM_POSE, "device-pose"),
    (STREAM_GAZE, "eye-gaze"),
]

# VRS pixel formats used for raw images.
PIXEL_GREY8 = 1
PIXEL_RGB8 = 4


def _frame(body: bytes) -> bytes:
    return struct.pack("<I", len(body)) + body


def _str16(s: str) -> bytes:
    b = s.encode("utf-8")
    if len(b) > 0xFFFF:
        raise ValueError(f"string of {len(b)} bytes does not fit a u16 length")
    return struct.pack("<H", len(b)) + b


def _bytes32(b: bytes) -> bytes:
    return struct.pack("<I", len(b)) + bytes(b)


def _stream(stream) -> bytes:
    type_id, instance = stream
    return struct.pack("<iH", type_id, instance)


def hello(device_serial: str, streaming_profile: str, calib_json: str, streams=None) -> bytes:
    """The first frame of a connection: who the device is, its calibration, and the streams
    it sends as ((type id, instance), name) pairs (default: Gen1's nine)."""
    streams = GEN1_STREAMS if streams is None else streams
    body = (
        bytes([KIND_HELLO])
        + MAGIC
        + struct.pack("<H", PROTOCOL_VERSION)
        + _str16(device_serial)
        + _str16(streaming_profile)
        + _bytes32(calib_json.encode("utf-8"))
        + struct.pack("<H", len(streams))
    )
    for stream, label in streams:
        body += _stream(stream) + _str16(label)
    return _frame(body)


def _sample_head(stream, capture_ns: int) -> bytes:
    return bytes([KIND_SAMPLE]) + _stream(stream) + struct.pack("<q", capture_ns)


def image(stream, capture_ns, width, height, data, frame_number=0, exposure_s=0.0,
          gain=0.0, jpeg=True, raw_pixel_format=None, raw_stride=None) -> bytes:
    """One camera frame: JPEG bytes, or raw pixels with format and stride."""
    if jpeg:
        enc = bytes([ENC_JPEG])
    else:
        enc = bytes([ENC_RAW]) + struct.pack("<II", raw_pixel_format, raw_stride)
    body = (
        _sample_head(stream, capture_ns)
        + bytes([PAYLOAD_IMAGE])
        + struct.pack("<II", width, height)
        + enc
        + struct.pack("<Qff", frame_number, exposure_s, gain)
        + _bytes32(data)
    )
    return _frame(body)


def _imu_fields(accel, gyro, accel_valid, gyro_valid, temperature_c) -> bytes:
    flags = (1 if accel_valid else 0) | (2 if gyro_valid else 0)
    return struct.pack("<6fBf", *accel, *gyro, flags, temperature_c)


def imu_batch(stream, samples) -> bytes:
    """IMU samples of one stream: (capture_ns, accel, gyro, accel_valid, gyro_valid, temp_c)."""
    body = bytes([KIND_IMU_BATCH]) + _stream(stream) + struct.pack("<I", len(samples))
    for capture_ns, accel, gyro, av, gv, temp in samples:
        body += struct.pack("<q", capture_ns) + _imu_fields(accel, gyro, av, gv, temp)
    return _frame(body)


def magnetometer(capture_ns: int, field_t) -> bytes:
    """One magnetometer sample, tesla."""
    body = _sample_head(STREAM_MAG, capture_ns) + bytes([PAYLOAD_MAG]) + struct.pack("<3f", *field_t)
    return _frame(body)


def barometer(capture_ns: int, pressure_pa: float, temperature_c: float) -> bytes:
    """One barometer sample."""
    body = (
        _sample_head(STREAM_BARO, capture_ns)
        + bytes([PAYLOAD_BARO])
        + struct.pack("<df", pressure_pa, temperature_c)
    )
    return _frame(body)


def audio(timestamps_ns, pcm_i32, channels: int, sample_rate_hz: int = 48000) -> bytes:
    """One audio block: per-frame timestamps and interleaved int32 samples."""
    n = len(timestamps_ns)
    if len(pcm_i32) != n * channels:
        raise ValueError(f"{len(pcm_i32)} samples for {n} frames x {channels} channels")
    capture = timestamps_ns[0] if n else 0
    body = (
        _sample_head(STREAM_AUDIO, capture)
        + bytes([PAYLOAD_AUDIO, channels])
        + struct.pack("<II", sample_rate_hz, n)
        + struct.pack(f"<{n}q", *timestamps_ns)
        + _bytes32(struct.pack(f"<{len(pcm_i32)}i", *pcm_i32))
    )
    return _frame(body)


def pose(stream, capture_ns: int, translation_m, quaternion_wxyz, linear_velocity_mps,
         angular_velocity_radps, quality: float) -> bytes:
    """A pose the glasses computed (Gen2 VIO): T_odometry_device as translation and unit
    quaternion (w, x, y, z), velocities, and tracking quality in [0, 1] (0: lost)."""
    body = (
        _sample_head(stream, capture_ns)
        + bytes([PAYLOAD_POSE])
        + struct.pack("<3d", *translation_m)
        + struct.pack("<4d", *quaternion_wxyz)
        + struct.pack("<3f", *linear_velocity_mps)
        + struct.pack("<3f", *angular_velocity_radps)
        + struct.pack("<f", quality)
    )
    return _frame(body)


def gaze(capture_ns: int, yaw_rad: float, pitch_rad: float, depth_m=None) -> bytes:
    """An eye gaze the glasses computed: yaw and pitch in the central pupil frame, and the
    vergence depth when known."""
    body = (
        _sample_head(STREAM_GAZE, capture_ns)
        + bytes([PAYLOAD_GAZE])
        + struct.pack("<ff", yaw_rad, pitch_rad)
        + bytes([0 if depth_m is None else 1])
        + struct.pack("<f", 0.0 if depth_m is None else depth_m)
    )
    return _frame(body)


def hands(capture_ns: int, left=None, right=None) -> bytes:
    """Hand tracking the glasses computed: each hand None or (confidence, wrist xyz, palm
    xyz), metres in the device frame."""
    present = (1 if left is not None else 0) | (2 if right is not None else 0)
    body = _sample_head(STREAM_HANDS, capture_ns) + bytes([PAYLOAD_HANDS, present])
    for hand in (left, right):
        if hand is not None:
            confidence, wrist, palm = hand
            body += struct.pack("<7f", confidence, *wrist, *palm)
    return _frame(body)


def heartbeat(device_now_ns: int) -> bytes:
    """Keep-alive with the device clock."""
    return _frame(bytes([KIND_HEARTBEAT]) + struct.pack("<q", device_now_ns))


def goodbye(reason: str) -> bytes:
    """Clean end of the stream."""
    return _frame(bytes([KIND_GOODBYE]) + _str16(reason))


def read_auth(body: bytes):
    """The token of an auth frame body (kind byte first), or None when it is not one."""
    if len(body) < 3 or body[0] != KIND_AUTH:
        return None
    (n,) = struct.unpack_from("<H", body, 1)
    if len(body) != 3 + n:
        return None
    try:
        return body[3:].decode("utf-8")
    except UnicodeDecodeError:
        return None
