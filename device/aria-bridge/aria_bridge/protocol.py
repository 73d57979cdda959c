"""Encoder of the vista live wire protocol, version 1 (see device/PROTOCOL.md).

Pure functions: each returns one complete frame (u32 LE length prefix + body) as bytes.
Mirrors src/source/live/protocol.rs; tests check the Rust decoder reads these bytes.
"""

import struct

PROTOCOL_VERSION = 1
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


def hello(device_serial: str, streaming_profile: str, calib_json: str) -> bytes:
    """The first frame of a connection."""
    body = (
        bytes([KIND_HELLO])
        + MAGIC
        + struct.pack("<H", PROTOCOL_VERSION)
        + _str16(device_serial)
        + _str16(streaming_profile)
        + _bytes32(calib_json.encode("utf-8"))
    )
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
