"""aria-bridge: stream Aria glasses (Gen1, or Gen2 with --gen2) into vista over the live
wire protocol.

    aria-bridge [--gen2] [--interface usb|wifi] [--profile NAME] [--listen 127.0.0.1:7878]
                [--allow-remote --token T] [--queue-rgb N ...] [--dry-run]
"""

import argparse
import ipaddress
import logging
import signal
import socket
import struct
import sys

from . import protocol as p
from .gen2 import GEN2_QUEUE_SIZES, Gen2Observer
from .observer import DEFAULT_QUEUE_SIZES, QUEUE_TYPES, BridgeObserver, default_camera_streams

log = logging.getLogger("aria-bridge")

SUBSCRIPTIONS = ("Rgb", "Slam", "EyeTrack", "Imu", "Magneto", "Baro", "Audio")
QUEUE_OF = {"Rgb": "rgb", "Slam": "slam", "EyeTrack": "et", "Imu": "imu",
            "Magneto": "magneto", "Baro": "baro", "Audio": "audio"}

# Gen2: StreamReceiver callback -> (Gen2Observer method, queue).
GEN2_CALLBACKS = (
    ("rgb", "on_image", "rgb"), ("slam", "on_image", "slam"), ("et", "on_image", "et"),
    ("imu_batch", "on_imu_batch", "imu"), ("magnetometer", "on_magnetometer", "magneto"),
    ("barometer", "on_barometer", "baro"), ("audio", "on_audio", "audio"),
    ("vio_high_frequency", "on_vio_high_frequency", "pose"), ("vio", "on_vio", "vio"),
    ("eye_gaze", "on_eye_gaze", "gaze"), ("hand_pose", "on_hand_pose", "hands"),
)
# Seconds to wait for the Gen2 glasses' calibration before serving without one.
GEN2_CALIB_WAIT_S = 10.0


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="aria-bridge", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interface", choices=("usb", "wifi"), default="usb")
    ap.add_argument("--device-ip", help="glasses' IP address (Wi-Fi)")
    ap.add_argument("--gen2", action="store_true",
                    help="Aria Gen2 glasses (Client SDK 2.x: aria.sdk_gen2, StreamReceiver)")
    ap.add_argument("--profile", help="streaming profile name (default: profile18 on Gen1, "
                                      "profile9 on Gen2)")
    ap.add_argument("--receiver", default="0.0.0.0:6768",
                    help="Gen2: where the SDK's StreamReceiver listens for the glasses' push")
    ap.add_argument("--listen", default="127.0.0.1:7878")
    ap.add_argument("--allow-remote", action="store_true")
    ap.add_argument("--token")
    for t in QUEUE_TYPES:
        ap.add_argument(f"--queue-{t}", type=int, default=DEFAULT_QUEUE_SIZES[t],
                        help=f"{t} queue size (full: oldest dropped)")
    for t, n in GEN2_QUEUE_SIZES.items():
        ap.add_argument(f"--queue-{t}", type=int, default=n,
                        help=f"Gen2 {t} queue size (full: oldest dropped)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print what would be subscribed to and exit")
    args = ap.parse_args(argv)
    if args.profile is None:
        args.profile = "profile9" if args.gen2 else "profile18"
    return args


def check_listen(args):
    """(host, port); refuses non-loopback without --allow-remote and --token."""
    host, _, port = args.listen.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not (args.allow_remote and args.token):
        raise SystemExit(f"--listen {args.listen} is not loopback; "
                         "pass --allow-remote --token TOKEN to expose the glasses")
    return host, int(port)


def plan(args):
    """What the bridge subscribes to, with queue sizes (printed by --dry-run)."""
    lines = [f"{'Gen2' if args.gen2 else 'Gen1'} glasses, interface {args.interface}, "
             f"streaming profile {args.profile}, listening on {args.listen}"
             + (" (token required)" if args.token else "")]
    if args.gen2:
        lines.append(f"receiver on {args.receiver}")
        for cb, _, q in GEN2_CALLBACKS:
            lines.append(f"callback {cb:<18} queue {getattr(args, 'queue_' + q)}")
        return lines
    for s in SUBSCRIPTIONS:
        q = QUEUE_OF[s]
        lines.append(f"subscribe {s:<9} queue {getattr(args, 'queue_' + q)}")
    return lines


def start_device(args, observer):
    """Connects to the glasses with the Client SDK and subscribes; returns (aria, cleanup, hello)."""
    try:
        import aria.sdk as aria
    except ImportError as e:
        raise SystemExit("aria.sdk not found: install the Client SDK with "
                         "`pip install -e 'device/aria-bridge[device]'`") from e
    try:
        client = aria.DeviceClient()
        cfg = aria.DeviceClientConfig()
        if args.device_ip:
            cfg.ip_v4_address = args.device_ip
        client.set_client_config(cfg)
        device = client.connect()
        manager = device.streaming_manager
        scfg = aria.StreamingConfig()
        scfg.profile_name = args.profile
        scfg.streaming_interface = (aria.StreamingInterface.Usb if args.interface == "usb"
                                    else aria.StreamingInterface.WifiStation)
        scfg.security_options.use_ephemeral_certs = True
        manager.streaming_config = scfg
        manager.start_streaming()
        calib_json = manager.sensors_calibration()
        sclient = manager.streaming_client
        sub = sclient.subscription_config
        types = 0
        for s in SUBSCRIPTIONS:
            dt = getattr(aria.StreamingDataType, s)
            types |= dt
            sub.message_queue_size[dt] = getattr(args, "queue_" + QUEUE_OF[s])
        sub.subscriber_data_type = types
        opts = aria.StreamingSecurityOptions()
        opts.use_ephemeral_certs = True
        sub.security_options = opts
        sclient.subscription_config = sub
        observer.camera_streams = default_camera_streams(aria)
        sclient.set_streaming_client_observer(observer)
        sclient.subscribe()
    except SystemExit:
        raise
    except Exception as e:  # the SDK raises RuntimeError with its own message
        raise SystemExit(f"Aria Client SDK: {e} (are the glasses connected, paired and "
                         "authorised with `aria auth pair`?)") from e
    serial = getattr(getattr(device, "info", None), "serial", "") or ""

    def cleanup():
        try:
            sclient.unsubscribe()
            manager.stop_streaming()
            client.disconnect(device)
        except Exception as e:  # best effort at shutdown
            log.warning("stopping the stream: %s", e)

    return cleanup, p.hello(serial, args.profile, calib_json or "")


def start_gen2(args, observer):
    """Connects to Gen2 glasses with Client SDK 2.x, starts streaming to a StreamReceiver
    wired to `observer`; returns (cleanup, hello)."""
    try:
        import aria.sdk_gen2 as sdk_gen2
        import aria.stream_receiver as receiver
        from projectaria_tools.core.calibration import device_calibration_to_json_string
    except ImportError as e:
        raise SystemExit("aria.sdk_gen2 not found: install the Gen2 Client SDK with "
                         "`pip install -e 'device/aria-bridge[device]'` "
                         "(projectaria-client-sdk 2.x)") from e
    import threading

    calib = {}
    got_calib = threading.Event()

    def on_calib(c):
        if not got_calib.is_set():
            calib["json"] = device_calibration_to_json_string(c)
            got_calib.set()

    try:
        client = sdk_gen2.DeviceClient()
        client.set_client_config(sdk_gen2.DeviceClientConfig())
        target = sdk_gen2.DeviceTarget(ip=args.device_ip) if args.device_ip else None
        device = client.connect(target) if target is not None else client.connect()
        scfg = sdk_gen2.HttpStreamingConfig()
        scfg.profile_name = args.profile
        scfg.streaming_interface = (sdk_gen2.StreamingInterface.USB_NCM if args.interface == "usb"
                                    else sdk_gen2.StreamingInterface.WIFI_STA)
        device.set_streaming_config(scfg)
        device.start_streaming()
        host, _, port = args.receiver.rpartition(":")
        server = sdk_gen2.HttpServerConfig()
        server.address = host or "0.0.0.0"
        server.port = int(port)
        rec = receiver.StreamReceiver(enable_image_decoding=True)
        rec.set_server_config(server)
        rec.register_device_calib_callback(on_calib)
        for cb, method, _ in GEN2_CALLBACKS:
            getattr(rec, f"register_{cb}_callback")(getattr(observer, method))
        rec.start_server()
    except SystemExit:
        raise
    except Exception as e:  # the SDK raises RuntimeError with its own message
        raise SystemExit(f"Aria Gen2 Client SDK: {e} (are the glasses connected and "
                         "authorised?)") from e
    if not got_calib.wait(GEN2_CALIB_WAIT_S):
        log.warning("no calibration from the glasses after %.0f s: serving without one",
                    GEN2_CALIB_WAIT_S)
    serial = device.serial() or ""

    def cleanup():
        try:
            device.stop_streaming()
            rec.stop_server()
            client.disconnect(device)
        except Exception as e:  # best effort at shutdown
            log.warning("stopping the stream: %s", e)

    return cleanup, p.hello(serial, args.profile, calib.get("json", ""), p.GEN2_STREAMS)


def read_token(conn):
    """The token of the client's first frame, or None (bad frame, silence for 5 s, close)."""
    try:
        conn.settimeout(5.0)
        head = conn.recv(4, socket.MSG_WAITALL)
        if len(head) != 4:
            return None
        (n,) = struct.unpack("<I", head)
        if n > 1024:  # checked before reading: an auth frame is tiny
            return None
        body = conn.recv(n, socket.MSG_WAITALL)
        conn.settimeout(None)
        return p.read_auth(body)
    except OSError:
        return None


def serve(listener, observer, hello_frame, token=None, stop=lambda: False, last_capture=None):
    """Serves clients one at a time until `stop()`; sends a goodbye to the last one."""
    while not stop():
        listener.settimeout(0.5)
        try:
            conn, peer = listener.accept()
        except socket.timeout:
            continue
        with conn:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if token is not None and read_token(conn) != token:
                log.warning("refused %s: missing or wrong token", peer)
                continue
            log.info("vista connected from %s", peer)
            try:
                conn.sendall(hello_frame)
                while not stop():
                    if observer.ready.wait(0.5):
                        for f in observer.take_frames():
                            conn.sendall(f)
                    else:
                        conn.sendall(p.heartbeat(last_capture() if last_capture else 0))
                conn.sendall(p.goodbye("bridge stopped"))
                return
            except OSError as e:
                log.warning("link to %s lost: %s", peer, e)


def main(argv=None):
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    args = parse_args(argv)
    host, port = check_listen(args)
    if args.dry_run:
        print("\n".join(plan(args)))
        return 0
    sizes = {t: getattr(args, "queue_" + t) for t in QUEUE_TYPES + tuple(GEN2_QUEUE_SIZES)}
    if args.gen2:
        observer = Gen2Observer(queue_sizes=sizes)
        cleanup, hello_frame = start_gen2(args, observer)
    else:
        observer = BridgeObserver(queue_sizes=sizes)
        cleanup, hello_frame = start_device(args, observer)
    listener = socket.create_server((host, port))
    log.info("serving on %s:%d", host, port)
    stopping = []
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    try:
        serve(listener, observer, hello_frame, args.token, stop=lambda: bool(stopping))
    finally:
        cleanup()
        log.info("dropped per queue: %s; failures: %s", observer.dropped, observer.failures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
