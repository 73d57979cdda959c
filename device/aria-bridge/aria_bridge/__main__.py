"""aria-bridge: stream Aria Gen1 glasses into vista over the live wire protocol.

    aria-bridge [--interface usb|wifi] [--profile profile18] [--listen 127.0.0.1:7878]
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
from .observer import DEFAULT_QUEUE_SIZES, QUEUE_TYPES, BridgeObserver, default_camera_streams

log = logging.getLogger("aria-bridge")

SUBSCRIPTIONS = ("Rgb", "Slam", "EyeTrack", "Imu", "Magneto", "Baro", "Audio")
QUEUE_OF = {"Rgb": "rgb", "Slam": "slam", "EyeTrack": "et", "Imu": "imu",
            "Magneto": "magneto", "Baro": "baro", "Audio": "audio"}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="aria-bridge", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--interface", choices=("usb", "wifi"), default="usb")
    ap.add_argument("--device-ip", help="glasses' IP address (Wi-Fi)")
    ap.add_argument("--profile", default="profile18", help="streaming profile name")
    ap.add_argument("--listen", default="127.0.0.1:7878")
    ap.add_argument("--allow-remote", action="store_true")
    ap.add_argument("--token")
    for t in QUEUE_TYPES:
        ap.add_argument(f"--queue-{t}", type=int, default=DEFAULT_QUEUE_SIZES[t],
                        help=f"{t} queue size (full: oldest dropped)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print what would be subscribed to and exit")
    return ap.parse_args(argv)


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
    lines = [f"interface {args.interface}, streaming profile {args.profile}, "
             f"listening on {args.listen}" + (" (token required)" if args.token else "")]
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
    sizes = {t: getattr(args, "queue_" + t) for t in QUEUE_TYPES}
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
