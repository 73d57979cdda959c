"""Bridge serialisation without hardware: the SDK's own data types (projectaria_tools) when
installed, faithful stand-ins otherwise."""

import os
import struct
import sys
import unittest
from datetime import timedelta
from types import SimpleNamespace

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from aria_bridge import protocol as p  # noqa: E402
from aria_bridge.__main__ import check_listen, parse_args, plan  # noqa: E402
from aria_bridge.gen2 import Gen2Observer  # noqa: E402
from aria_bridge.observer import BridgeObserver  # noqa: E402

try:
    from projectaria_tools.core.sensor_data import BarometerData, ImageDataRecord, MotionData
except ImportError:  # stand-ins with the same attribute names
    def MotionData():
        return SimpleNamespace(accel_msec2=[0.0] * 3, gyro_radsec=[0.0] * 3, mag_tesla=[0.0] * 3,
                               accel_valid=False, gyro_valid=False, temperature=0.0,
                               capture_timestamp_ns=0)

    def BarometerData():
        return SimpleNamespace(capture_timestamp_ns=0, pressure=0.0, temperature=0.0)

    def ImageDataRecord():
        return SimpleNamespace(camera_id=0, capture_timestamp_ns=0, frame_number=0,
                               exposure_duration=0.0, gain=0.0)


def body(frame):
    (n,) = struct.unpack_from("<I", frame)
    assert n == len(frame) - 4
    return frame[4:]


def motion(t, accel, gyro, temp=25.0):
    m = MotionData()
    m.capture_timestamp_ns = t
    m.accel_msec2 = list(accel)
    m.gyro_radsec = list(gyro)
    m.accel_valid = True
    m.gyro_valid = True
    m.temperature = temp
    return m


class ProtocolTest(unittest.TestCase):
    def test_hello_layout(self):
        b = body(p.hello("1WM09380041283", "profile18", "{}"))
        self.assertEqual(b[0], p.KIND_HELLO)
        self.assertEqual(b[1:5], b"VSTA")
        self.assertEqual(struct.unpack_from("<H", b, 5)[0], 2)
        self.assertEqual(struct.unpack_from("<H", b, 7)[0], 14)
        self.assertEqual(b[9:23], b"1WM09380041283")
        # Then profile, calibration, and the streams: Gen1's nine by default.
        at = 23 + 2 + 9 + 4 + 2 + 2  # profile, calibration "{}", stream count
        self.assertEqual(struct.unpack_from("<H", b, at - 2)[0], 9)
        self.assertEqual(struct.unpack_from("<iHH", b, at), (211, 1, 9))
        self.assertEqual(b[at + 8:at + 17], b"camera-et")

    def test_gen2_hello_announces_its_streams(self):
        b = body(p.hello("S", "profile9", "", p.GEN2_STREAMS))
        at = 1 + 4 + 2 + 3 + 10 + 4
        self.assertEqual(struct.unpack_from("<H", b, at)[0], 16)
        ids = set()
        pos = at + 2
        for _ in range(16):
            t, i, n = struct.unpack_from("<iHH", b, pos)
            ids.add((t, i))
            pos += 8 + n
        self.assertEqual(pos, len(b))
        self.assertIn(p.STREAM_POSE, ids)
        self.assertIn(p.STREAM_SLAM_SIDE_RIGHT, ids)

    def test_imu_batch_size(self):
        s = (5, (1.0, 2.0, 3.0), (0.1, 0.2, 0.3), True, False, 30.0)
        b = body(p.imu_batch(p.STREAM_IMU_LEFT, [s, s, s]))
        self.assertEqual(len(b), 1 + 6 + 4 + 3 * 37)
        self.assertEqual(struct.unpack_from("<iH", b, 1), (1202, 2))
        self.assertEqual(b[11 + 8 + 24], 1)  # flags: accel valid only

    def test_audio_checks_counts(self):
        with self.assertRaises(ValueError):
            p.audio([1, 2], [0, 0, 0], channels=2)
        b = body(p.audio([10, 20], [1, -1, 2, -2], channels=2))
        self.assertEqual(len(b), 1 + 6 + 8 + 1 + 1 + 4 + 4 + 16 + 4 + 16)


class ObserverTest(unittest.TestCase):
    def test_callbacks_queue_and_encode(self):
        o = BridgeObserver()
        o.on_imu_received([motion(1, (1, 2, 3), (4, 5, 6)), motion(2, (7, 8, 9), (1, 2, 3))], 0)
        bar = BarometerData()
        bar.capture_timestamp_ns = 3
        bar.pressure = 101325.0
        bar.temperature = 20.5
        o.on_baro_received(bar)
        mag = motion(4, (0, 0, 0), (0, 0, 0))
        mag.mag_tesla = [1e-5, 2e-5, 3e-5]
        o.on_magneto_received(mag)
        self.assertTrue(o.ready.is_set())
        frames = o.take_frames()
        self.assertFalse(o.ready.is_set())
        kinds = [(body(f)[0], struct.unpack_from("<iH", body(f), 1)) for f in frames]
        self.assertEqual(kinds, [(3, (1202, 1)), (2, (1203, 1)), (2, (247, 1))])
        b = body(frames[0])
        self.assertEqual(struct.unpack_from("<I", b, 7)[0], 2)
        self.assertEqual(struct.unpack_from("<q3f", b, 11), (1, 1.0, 2.0, 3.0))

    def test_full_queue_drops_oldest_and_counts(self):
        o = BridgeObserver(queue_sizes={"baro": 2})
        for t in range(5):
            bar = BarometerData()
            bar.capture_timestamp_ns = t
            o.on_baro_received(bar)
        self.assertEqual(o.dropped["baro"], 3)
        frames = o.take_frames()
        self.assertEqual([struct.unpack_from("<q", body(f), 7)[0] for f in frames], [3, 4])

    def test_raw_image(self):
        try:
            import numpy as np
        except ImportError:
            self.skipTest("numpy not installed")
        o = BridgeObserver(camera_streams={7: ("rgb", p.STREAM_RGB)})
        rec = ImageDataRecord()
        rec.camera_id = 7
        rec.capture_timestamp_ns = 99
        img = np.arange(6, dtype=np.uint8).reshape(2, 3)
        o.on_image_received(img, rec)
        rec2 = ImageDataRecord()
        rec2.camera_id = 42  # unknown camera: counted, not sent
        o.on_image_received(img, rec2)
        self.assertEqual(o.unknown, 1)
        (f,) = o.take_frames()
        b = body(f)
        self.assertEqual(struct.unpack_from("<IIBII", b, 16), (3, 2, p.ENC_RAW, p.PIXEL_GREY8, 3))
        self.assertEqual(b[-6:], bytes(range(6)))


def se3(quat_wxyz, t):
    """A stand-in for projectaria_tools' SE3 with the one method the bridge uses."""
    return SimpleNamespace(to_quat_and_translation=lambda: [list(quat_wxyz) + list(t)])


class Gen2ObserverTest(unittest.TestCase):
    def test_the_glasses_perception_becomes_frames(self):
        o = Gen2Observer()
        pose = SimpleNamespace(
            tracking_timestamp=timedelta(seconds=7385, microseconds=790342),
            transform_odometry_device=se3((1.0, 0.0, 0.0, 0.0), (1.5, -0.25, 0.125)),
            device_linear_velocity_odometry=[0.5, 0.0, -0.25],
            angular_velocity_device=[0.0, 0.125, 0.0], quality_score=1.5)
        o.on_vio_high_frequency(pose)
        o.on_eye_gaze(SimpleNamespace(tracking_timestamp=timedelta(microseconds=2),
                                      yaw=-0.125, pitch=0.0625, depth=float("nan")))
        hand = SimpleNamespace(confidence=0.75,
                               get_wrist_position_device=lambda: [0.125, -0.25, 0.25],
                               get_palm_position_device=lambda: [0.125, -0.2, 0.3])
        o.on_hand_pose(SimpleNamespace(tracking_timestamp=timedelta(microseconds=3),
                                       left_hand=None, right_hand=hand))
        frames = {struct.unpack_from("<iH", body(f), 1): body(f) for f in o.take_frames()}
        b = frames[p.STREAM_POSE]
        self.assertEqual(struct.unpack_from("<q", b, 7)[0], 7_385_790_342_000)
        self.assertEqual(b[15], p.PAYLOAD_POSE)
        self.assertEqual(struct.unpack_from("<3d4d", b, 16),
                         (1.5, -0.25, 0.125, 1.0, 0.0, 0.0, 0.0))
        self.assertEqual(struct.unpack_from("<f", b, len(b) - 4)[0], 1.0)  # clamped
        b = frames[p.STREAM_GAZE]
        self.assertEqual(struct.unpack_from("<q", b, 7)[0], 2000)
        self.assertEqual(b[16 + 8], 0, "an unknown depth is sent as none")
        b = frames[p.STREAM_HANDS]
        self.assertEqual(b[16], 2, "right hand only")
        self.assertEqual(struct.unpack_from("<7f", b, 17)[0], 0.75)

    def test_cameras_by_label_and_unknown_ones_counted(self):
        o = Gen2Observer()
        img = SimpleNamespace(to_numpy_array=lambda: b"\xff\xd8jpeg")
        rec = SimpleNamespace(camera_id=4, capture_timestamp_ns=5, frame_number=1,
                              exposure_duration=0.001, gain=1.0)
        o.on_image(img, rec)
        o.on_image(img, SimpleNamespace(camera_id=128, capture_timestamp_ns=6))
        o.on_imu_batch([motion(7, (0, 0, 9.8), (0, 0, 0))], "imu-left")
        o.on_imu_batch([motion(8, (0, 0, 9.8), (0, 0, 0))], "imu-elsewhere")
        self.assertEqual(o.unknown, 2)
        ids = [struct.unpack_from("<iH", body(f), 1) for f in o.take_frames()]
        # Queue by queue: cameras first.
        self.assertEqual(ids, [p.STREAM_SLAM_SIDE_LEFT, p.STREAM_IMU_LEFT])


class CliTest(unittest.TestCase):
    def test_loopback_only_by_default(self):
        self.assertEqual(check_listen(parse_args([])), ("127.0.0.1", 7878))
        with self.assertRaises(SystemExit):
            check_listen(parse_args(["--listen", "0.0.0.0:7878"]))
        with self.assertRaises(SystemExit):
            check_listen(parse_args(["--listen", "0.0.0.0:7878", "--allow-remote"]))
        check_listen(parse_args(["--listen", "0.0.0.0:7878", "--allow-remote", "--token", "t"]))

    def test_dry_run_plan_lists_every_subscription(self):
        lines = plan(parse_args(["--queue-rgb", "3"]))
        self.assertEqual(len(lines), 8)
        self.assertIn("subscribe Rgb       queue 3", lines)

    def test_gen2_plan_lists_every_callback(self):
        args = parse_args(["--gen2", "--queue-pose", "512"])
        self.assertEqual(args.profile, "profile9")
        lines = plan(args)
        self.assertTrue(lines[0].startswith("Gen2 glasses"))
        self.assertIn("callback vio_high_frequency queue 512", lines)
        self.assertEqual(len([x for x in lines if x.startswith("callback")]), 11)


if __name__ == "__main__":
    unittest.main()


class ServeTest(unittest.TestCase):
    """The bridge's server over a real loopback socket, with and without a token."""

    def _run(self, token, client_token):
        import socket
        import threading

        from aria_bridge.__main__ import serve

        o = BridgeObserver()
        bar = BarometerData()
        bar.capture_timestamp_ns = 42
        o.on_baro_received(bar)
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        stopping = []
        hello = p.hello("SER", "profile18", "{}")
        t = threading.Thread(target=serve, args=(listener, o, hello, token),
                             kwargs={"stop": lambda: bool(stopping)})
        t.start()
        c = socket.create_connection(("127.0.0.1", port))
        c.settimeout(5)
        if client_token is not None:
            tok = client_token.encode()
            c.sendall(struct.pack("<IBH", 3 + len(tok), p.KIND_AUTH, len(tok)) + tok)

        def frame():
            head = c.recv(4, socket.MSG_WAITALL)
            if len(head) < 4:
                return None
            (n,) = struct.unpack("<I", head)
            return c.recv(n, socket.MSG_WAITALL)

        frames = [frame()]
        if frames[0] is not None:
            frames.append(frame())
        stopping.append(True)
        while frames[-1] is not None and frames[-1][0] != p.KIND_GOODBYE:
            frames.append(frame())
        t.join(5)
        c.close()
        listener.close()
        return frames

    def test_hello_samples_heartbeat_goodbye(self):
        frames = self._run(None, None)
        self.assertEqual(frames[0], body(p.hello("SER", "profile18", "{}")))
        self.assertEqual(frames[1][0], p.KIND_SAMPLE)
        self.assertEqual(struct.unpack_from("<iHq", frames[1], 1), (247, 1, 42))
        self.assertEqual(frames[-1][0], p.KIND_GOODBYE)

    def test_wrong_token_is_refused(self):
        frames = self._run("s3cret", "guess")
        self.assertEqual(frames, [None])

    def test_right_token_is_served(self):
        frames = self._run("s3cret", "s3cret")
        self.assertEqual(frames[0][0], p.KIND_HELLO)
