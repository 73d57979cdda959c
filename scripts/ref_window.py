#!/usr/bin/env python3
"""Reference sensor windows for vista's window module, from Meta's own readers.

Run from the repository root with the reference venv:

    /root/.cache/vista/refvenv/bin/python scripts/ref_window.py

Samples come from projectaria_tools (VRS data provider for IMU / magnetometer / barometer,
MPS readers for eye gaze, wrist and palm, closed-loop trajectory); the 64-bin grid is
recomputed here with numpy from the definitions in docs/window-channels.md (bins aligned to
multiples of the bin width on the device clock, the newest bin holds t_end; mean / last per
slot; relative features against the newest valid bin). Writes
tests/data/reference/window_gen1.json; tests/window_reference.rs compares vista's windows
with it (CI needs no Python). Masked bins and unobserved channels are null.
"""

import json
import math

import numpy as np
from projectaria_tools.core import data_provider, mps
from projectaria_tools.core.mps import hand_tracking as ht
from projectaria_tools.core.stream_id import StreamId

VRS = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
MPS = "tests/data/gen1/mps_sample"
OUT = "tests/data/reference/window_gen1.json"
BINS = 64


def td_ns(td) -> int:
    return ((td.days * 86400 + td.seconds) * 1_000_000 + td.microseconds) * 1000


def grid(samples, t_end, bin_ns, nslots):
    """samples: list of (t_ns, [values or None]); returns per bin a list of per-slot value
    lists (in order)."""
    k_end = t_end // bin_ns
    k0 = k_end - BINS + 1
    bins = [[[] for _ in range(nslots)] for _ in range(BINS)]
    for t, vals in samples:
        if t > t_end:
            continue
        k = t // bin_ns - k0
        if 0 <= k < BINS:
            for s, v in enumerate(vals):
                if v is not None and math.isfinite(v):
                    bins[k][s].append(v)
    return bins


def mean(xs):
    return float(np.mean(xs)) if xs else None


def last(xs):
    return float(xs[-1]) if xs else None


def wrap(a):
    return (a + math.pi) % (2 * math.pi) - math.pi


def vrs_moment(t_end, bin_ns, rectified=False):
    """IMU and magnetometer/barometer grids; rectified with projectaria_tools' device
    calibration (raw_to_rectified_*) when `rectified`."""
    p = data_provider.create_vrs_data_provider(VRS)
    dev = p.get_device_calibration()
    imu = []
    for sid, off, label in (("1202-1", 0, "imu-right"), ("1202-2", 6, "imu-left")):
        s = StreamId(sid)
        cal = dev.get_imu_calib(label)
        for i in range(p.get_num_data(s)):
            d = p.get_imu_data_by_index(s, i)
            a, g = np.array(d.accel_msec2), np.array(d.gyro_radsec)
            if rectified:
                a, g = cal.raw_to_rectified_accel(a), cal.raw_to_rectified_gyro(g)
            vals = [None] * 12
            vals[off : off + 3] = [float(x) for x in a]
            vals[off + 3 : off + 6] = [float(x) for x in g]
            imu.append((d.capture_timestamp_ns, vals))
    imu.sort(key=lambda x: x[0])
    b = grid(imu, t_end, bin_ns, 12)
    imu_vals, imu_mask = [], []
    for k in range(BINS):
        row = [mean(b[k][s]) for s in range(12)]
        ok = all(v is not None for v in row)
        imu_mask.append(ok)
        imu_vals.append(row if ok else None)

    mb = []
    s = StreamId("1203-1")
    for i in range(p.get_num_data(s)):
        d = p.get_magnetometer_data_by_index(s, i)
        f = np.array(d.mag_tesla)
        if rectified:
            f = dev.get_magnetometer_calib("mag0").raw_to_rectified(f)
        mb.append((d.capture_timestamp_ns, [float(x) for x in f] + [None]))
    s = StreamId("247-1")
    for i in range(p.get_num_data(s)):
        d = p.get_barometer_data_by_index(s, i)
        pr = d.pressure
        if rectified:
            pr = dev.get_barometer_calib("baro0").raw_to_rectified(pr)
        mb.append((d.capture_timestamp_ns, [None, None, None, float(pr)]))
    mb.sort(key=lambda x: x[0])
    b = grid(mb, t_end, bin_ns, 4)
    raw = []
    for k in range(BINS):
        f = [last(b[k][s]) for s in range(3)]
        pr = mean(b[k][3])
        ok = all(v is not None for v in f) and pr is not None and np.linalg.norm(f) > 0
        raw.append((f, pr) if ok else None)
    mb_vals = [None] * BINS
    valid = [k for k in range(BINS) if raw[k] is not None]
    if valid:
        fa, pa = raw[valid[-1]]
        ha = math.atan2(fa[1], fa[0])
        for k in valid:
            f, pr = raw[k]
            d = np.asarray(f) / np.linalg.norm(f)
            mb_vals[k] = [*map(float, d), wrap(math.atan2(f[1], f[0]) - ha), pr - pa]
    return {
        "imu": {"values": imu_vals, "mask": imu_mask},
        "mag_baro": {"values": mb_vals, "mask": [v is not None for v in mb_vals]},
    }


def mps_moment(t_end, bin_ns):
    out = {}
    gaze = []
    for g in mps.read_eyegaze(f"{MPS}/eye_gaze_vergence/generalized_gaze.csv"):
        u = list(mps.get_unit_vector_from_yaw_pitch(g.yaw, g.pitch))
        depth = g.depth if (math.isfinite(g.depth) and g.depth > 0) else None
        gaze.append((td_ns(g.tracking_timestamp), u + [depth]))
    b = grid(gaze, t_end, bin_ns, 4)
    vals = []
    for k in range(BINS):
        if not b[k][0]:
            vals.append(None)
            continue
        d = np.array([mean(b[k][s]) for s in range(3)])
        d = d / np.linalg.norm(d)
        vals.append([*map(float, d), mean(b[k][3]), len(b[k][3]) / len(b[k][0])])
    out["eye_gaze"] = {"values": vals, "mask": [v is not None for v in vals]}

    hands = []
    for r in ht.read_wrist_and_palm_poses(f"{MPS}/hand_tracking/wrist_and_palm_poses_v2.csv"):
        vals = []
        for h in (r.left_hand, r.right_hand):
            if h is not None and h.confidence > 0:
                vals += [float(h.confidence), *h.wrist_position_device, *h.palm_position_device]
            else:
                vals += [0.0] + [None] * 6
        hands.append((td_ns(r.tracking_timestamp), vals))
    b = grid(hands, t_end, bin_ns, 14)
    vals = []
    for k in range(BINS):
        if not b[k][0]:
            vals.append(None)
            continue
        vals.append([mean(b[k][s]) for s in range(14)])
    out["hands"] = {"values": vals, "mask": [v is not None for v in vals]}

    poses = []
    for r in mps.read_closed_loop_trajectory(f"{MPS}/trajectory/closed_loop_trajectory.csv"):
        poses.append((td_ns(r.tracking_timestamp), r))
    k_end = t_end // bin_ns
    k0 = k_end - BINS + 1
    lastpose = [None] * BINS
    for t, r in poses:
        if t <= t_end and 0 <= t // bin_ns - k0 < BINS:
            lastpose[t // bin_ns - k0] = r
    valid = [k for k in range(BINS) if lastpose[k] is not None]
    vals = [None] * BINS
    if valid:
        t_end_inv = lastpose[valid[-1]].transform_world_device.inverse()
        for k in valid:
            r = lastpose[k]
            rel = t_end_inv @ r.transform_world_device
            vals[k] = [
                *map(float, np.asarray(rel.translation()).reshape(-1)),
                *map(float, np.asarray(rel.rotation().log()).reshape(-1)),
                *map(float, r.device_linear_velocity_device),
                *map(float, r.angular_velocity_device),
                float(r.quality_score),
            ]
    out["trajectory"] = {"values": vals, "mask": [v is not None for v in vals]}
    return out


def imu_resampled(t_end, rate_hz, points, max_gap_ns):
    """Right IMU linearly interpolated (np.interp) onto t_end - (points-1-i)/rate; points
    not bracketed by samples at most max_gap_ns apart are null."""
    p = data_provider.create_vrs_data_provider(VRS)
    s = StreamId("1202-1")
    ts, vs = [], []
    for i in range(p.get_num_data(s)):
        d = p.get_imu_data_by_index(s, i)
        ts.append(d.capture_timestamp_ns)
        vs.append(list(d.accel_msec2) + list(d.gyro_radsec))
    # Causal: only samples captured by t_end.
    keep = [i for i, t in enumerate(ts) if t <= t_end]
    ts = np.array([ts[i] for i in keep], dtype=np.int64)
    vs = np.array([vs[i] for i in keep])
    step = 1e9 / rate_hz
    grid_t = np.array([t_end - (points - 1 - i) * step for i in range(points)])
    rows = []
    for t in grid_t:
        k = int(np.searchsorted(ts, t, side="left"))
        if k < len(ts) and ts[k] == t:
            ok = True
        elif 0 < k < len(ts) and ts[k] - ts[k - 1] <= max_gap_ns:
            ok = True
        else:
            ok = False
        rows.append([float(np.interp(t, ts, vs[:, c])) for c in range(6)] if ok else None)
    return {"t_end_ns": t_end, "rate_hz": rate_hz, "points": points,
            "max_gap_ns": max_gap_ns, "values": rows}


def pattern(w, h, c):
    """The synthetic test image tests/window_frames.rs rebuilds: value = (x*37 + y*91 +
    k*53 + (x*y) % 17 * 11) % 256 at column x, row y, channel k."""
    a = np.zeros((h, w, c), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            for k in range(c):
                a[y, x, k] = (x * 37 + y * 91 + k * 53 + (x * y) % 17 * 11) % 256
    return a


def resize_refs():
    """PIL BILINEAR resizes (the backbones' preprocessing) of synthetic images and of the
    first RGB frame decoded by projectaria_tools."""
    from PIL import Image

    out = []
    for (w, h, c), (dw, dh) in [
        ((37, 23, 3), (11, 7)),
        ((37, 23, 3), (50, 31)),
        ((64, 48, 1), (20, 15)),
        ((40, 40, 3), (40, 40)),
    ]:
        a = pattern(w, h, c)
        img = Image.fromarray(a[:, :, 0] if c == 1 else a, "L" if c == 1 else "RGB")
        r = np.asarray(img.convert("RGB").resize((dw, dh), Image.BILINEAR) if c == 1
                       else img.resize((dw, dh), Image.BILINEAR))
        out.append({"src": [w, h, c], "dst": [dw, dh], "rgb": r.reshape(-1).tolist()})
    p = data_provider.create_vrs_data_provider(VRS)
    frame = p.get_image_data_by_index(StreamId("214-1"), 0)[0].to_numpy_array()
    r = np.asarray(Image.fromarray(frame, "RGB").resize((448, 448), Image.BILINEAR))
    rgb448 = {
        "mean": float(r.astype(np.float64).mean()),
        "samples": [[y, x, [int(v) for v in r[y, x]]] for y in range(0, 448, 37) for x in range(0, 448, 41)],
    }
    return {"synthetic": out, "rgb_frame_448": rgb448}


def main():
    moments = [
        # The VRS (0.15 s): 2.5 ms bins so the recording spans the grid.
        {"name": "vrs_end", "t_end_ns": 280_716_067_812, "bin_ns": 2_500_000},
        {"name": "vrs_mid", "t_end_ns": 280_650_000_000, "bin_ns": 2_500_000},
        # 20 ms bins: two bins hold both a magnetometer and a barometer sample.
        {"name": "vrs_magbaro", "t_end_ns": 280_716_067_812, "bin_ns": 20_000_000},
        # Rectified with the device calibration (vista's default for recorded sessions).
        {"name": "vrs_end", "t_end_ns": 280_716_067_812, "bin_ns": 2_500_000, "rectified": True},
        {"name": "vrs_magbaro", "t_end_ns": 280_716_067_812, "bin_ns": 20_000_000, "rectified": True},
        # The MPS sample (12 s): default 100 ms bins, hands visible near 159.4-160 s.
        {"name": "mps_hands", "t_end_ns": 159_987_654_321, "bin_ns": 100_000_000},
        {"name": "mps_start", "t_end_ns": 151_000_000_000, "bin_ns": 100_000_000},
    ]
    for m in moments:
        if m["name"].startswith("vrs"):
            m["streams"] = vrs_moment(m["t_end_ns"], m["bin_ns"], m.get("rectified", False))
        else:
            m["streams"] = mps_moment(m["t_end_ns"], m["bin_ns"])
        m.setdefault("rectified", False)
    with open(OUT, "w") as fh:
        imu = imu_resampled(280_710_000_000, 200.0, 40, 10_000_000)
        json.dump(
            {
                "source": "scripts/ref_window.py (projectaria_tools)",
                "moments": moments,
                "imu_resampled": imu,
                "resize": resize_refs(),
            },
            fh,
        )
        fh.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
