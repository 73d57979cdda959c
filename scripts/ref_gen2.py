#!/usr/bin/env python3
"""Generate reference values for the Aria Gen2 reader tests with Meta's own readers.

Usage: ref_gen2.py VRS_FILE OUT_JSON

    python3 -m venv /tmp/pat-venv
    /tmp/pat-venv/bin/pip install projectaria-tools==2.3.0 vrs numpy
    /tmp/pat-venv/bin/python scripts/ref_gen2.py \\
        tests/data/gen2/aria_gen2_unit_test_sequence_with_bluetooth.vrs \\
        tests/data/reference/gen2_sample.json

Reads VRS_FILE (a real Aria Gen2 recording) with pyvrs (PyPI `vrs`) and projectaria_tools'
data provider and writes the values the Rust tests compare against:

* pyvrs: record counts, stream flavors, every data record's index timestamp, the first/last
  data record's metadata and the configuration record of every stream (strings over 200
  characters dropped), the image block specs of every camera record;
* projectaria_tools: stream labels, sensor data types and capture timestamps; every VIO,
  high-frequency VIO, eye gaze and hand tracking record as decoded by the provider; first and
  last records of IMU, magnetometer, barometer, audio, temperature, PPG and Bluetooth; decoded
  image statistics and pixel blocks; the factory calibration (camera projections, IMU, mag,
  baro, CPF).

Conventions: every pose is {"quaternion_wxyz": [w, x, y, z], "translation_m": [x, y, z]}
(projectaria_tools' SE3.to_quat_and_translation order; pyvrs' raw metadata stores qxyzw).
Timestamps named *_ns are integer nanoseconds, *_us integer microseconds, *_s float seconds.
Audio is decoded sequentially from block 0 with one provider (its Opus decoder is stateful).
Fields the installed projectaria_tools does not expose are listed in "not_available".
The Rust tests never run Python; they read the committed JSON.
"""
import json
import math
import sys
from importlib.metadata import version

import numpy as np
import pyvrs
from projectaria_tools.core import calibration as C
from projectaria_tools.core import data_provider
from projectaria_tools.core.sensor_data import TimeDomain
from projectaria_tools.core.stream_id import StreamId

CAMERAS = ["1201-1", "1201-2", "1201-3", "1201-4", "211-1", "211-2", "214-1"]
RAYS = [(0.0, 0.0, 1.0), (0.2, 0.0, 1.0), (0.0, -0.2, 1.0), (0.3, 0.3, 1.0), (-0.5, 0.1, 1.0),
        (0.6, -0.4, 1.0)]
# vrs::PixelFormat values (vrs/ForwardDefinitions.h)
PIXEL_FORMATS = {0: "UNDEFINED", 1: "GREY8", 2: "BGR8", 3: "DEPTH32F", 4: "RGB8",
                 5: "YUV_I420_SPLIT", 6: "RGBA8", 7: "RGB10", 8: "RGB12", 9: "GREY10",
                 10: "GREY12", 11: "GREY16", 12: "RGB32F", 13: "SCALAR64F", 14: "YUY2",
                 15: "RGB_IR_RAW_4X4", 16: "RGBA32F", 17: "BAYER8_RGGB", 18: "RAW10",
                 19: "RAW10_BAYER_RGGB", 20: "RAW10_BAYER_BGGR", 21: "YUV_420_NV21",
                 22: "YUV_420_NV12"}

NOT_AVAILABLE = []


def clean(v):
    """JSON-safe values (NaN/inf -> None, numpy -> python)."""
    if isinstance(v, dict):
        return {str(k): clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if isinstance(v, np.ndarray):
        return clean(v.tolist())
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if (math.isnan(f) or math.isinf(f)) else f
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, bytes):
        return v.hex()
    return v


def short(d):
    """A metadata dict without strings over 200 characters."""
    return {k: v for k, v in dict(d).items() if not (isinstance(v, str) and len(v) > 200)}


def missing(item, reason):
    NOT_AVAILABLE.append(f"{item}: {reason}")


def vec(v):
    return [float(x) for x in np.asarray(v, dtype=np.float64).reshape(-1)]


def se3(t):
    """SE3 / SE3f -> quaternion (w, x, y, z) and translation, float64 of the stored values."""
    qt = np.asarray(t.to_quat_and_translation(), dtype=np.float64).reshape(-1)
    return {"quaternion_wxyz": [float(x) for x in qt[:4]],
            "translation_m": [float(x) for x in qt[4:7]]}


def td_us(td):
    """datetime.timedelta -> integer microseconds (exact)."""
    return (td.days * 86400 + td.seconds) * 1_000_000 + td.microseconds


def enum_name(e):
    name = getattr(e, "name", None)
    return name if name and name != "???" else f"value:{int(e.value) if hasattr(e, 'value') else int(e)}"


# ---------------------------------------------------------------------------------------------
# pyvrs


def pyvrs_part(path):
    r = pyvrs.SyncVRSReader(path)
    streams = {}
    for sid in sorted(r.stream_ids):
        info = r.get_stream_info(sid)
        s = {
            "recordable_name": info["device_name"],
            "flavor": info.get("flavor", ""),
            "configuration_records": info["configuration_records_count"],
            "state_records": info["state_records_count"],
            "data_records": info["data_records_count"],
        }
        data = r.filtered_by_fields(stream_ids=sid, record_types="data")
        s["data_timestamps_s"] = [rec.timestamp for rec in data]
        if len(data) > 0:
            for key, rec in (("first_data", data[0]), ("last_data", data[len(data) - 1])):
                s[key] = short(rec.metadata_blocks[0]) if rec.n_metadata_blocks > 0 else {}
                blocks = {
                    "metadata": int(rec.n_metadata_blocks),
                    "image_specs": [str(x) for x in rec.image_specs],
                    "image_bytes": [int(len(x)) for x in rec.image_blocks],
                    "custom_specs": [str(x) for x in rec.custom_block_specs],
                    "custom_bytes": [int(len(x)) for x in rec.custom_blocks],
                    "audio_specs": [str(x) for x in rec.audio_specs],
                }
                # empty block lists left out
                s[key + "_blocks"] = {k: v for k, v in blocks.items() if v != []}
            if sid in CAMERAS:
                s["image_blocks"] = [
                    {"spec": str(rec.image_specs[0]), "bytes": int(len(rec.image_blocks[0]))}
                    for rec in data]
        conf = r.filtered_by_fields(stream_ids=sid, record_types="configuration")
        if len(conf) > 0:
            s["config"] = short(conf[0].metadata_blocks[0])
        streams[sid] = s
    tags = r.file_tags
    return {
        "record_count": len(r),
        "file_tag_keys": sorted(tags.keys()),
        "file_tags_short": {k: v for k, v in tags.items() if len(v) <= 200},
        "streams": streams,
    }


# ---------------------------------------------------------------------------------------------
# projectaria_tools: streams


def streams_part(p):
    labels, types, type_values, num, caps, recs, rates = {}, {}, {}, {}, {}, {}, {}
    for s in sorted(p.get_all_streams(), key=lambda x: tuple(int(v) for v in str(x).split("-"))):
        sid = str(s)
        labels[sid] = p.get_label_from_stream_id(s)
        t = p.get_sensor_data_type(s)
        types[sid] = enum_name(t)
        type_values[sid] = int(t.value)
        num[sid] = int(p.get_num_data(s))
        try:
            rates[sid] = float(p.get_nominal_rate_hz(s))
        except Exception as e:  # noqa: BLE001
            rates[sid] = None
            missing(f"nominal_rate_hz {sid}", str(e))
        if num[sid] > 0:
            dev = [int(x) for x in p.get_timestamps_ns(s, TimeDomain.DEVICE_TIME)]
            rec = [int(x) for x in p.get_timestamps_ns(s, TimeDomain.RECORD_TIME)]
            caps[sid] = dev
            if rec != dev:
                recs[sid] = rec
    if any(v.startswith("value:") for v in types.values()):
        missing("sensor_data_type names",
                "SensorDataType has no Python name for " + ", ".join(
                    f"{k} ({v})" for k, v in types.items() if v.startswith("value:"))
                + " (the C++ Temperature enumerator is not bound); recorded as value:N")
    return {
        "labels": labels,
        "sensor_data_type": types,
        "sensor_data_type_value": type_values,
        "num_data": num,
        "nominal_rate_hz": rates,
        "capture_timestamps_ns": caps,
        "record_timestamps_ns_where_different": recs,
    }


# ---------------------------------------------------------------------------------------------
# projectaria_tools: on-device perception


def online_calib(oc):
    cams = []
    for c in oc.cam_parameters:
        d = {}
        for a in ("type", "intrinsics", "max_radius_squared", "readout_time_sec"):
            d[a] = getattr(c, a)
        cams.append(d)
    imus = []
    for m in oc.imu_model_parameters:
        imus.append({
            "accel_bias_m_sec2": vec(m.accel_bias_m_sec2),
            "accel_nonorth": np.asarray(m.accel_nonorth, dtype=np.float64).tolist(),
            "accel_scale_vec": vec(m.accel_scale_vec),
            "accel_saturation_threshold_m_sec2": float(m.accel_saturation_threshold_m_sec2),
            "gyro_bias_rad_sec": vec(m.gyro_bias_rad_sec),
            "gyro_nonorth": np.asarray(m.gyro_nonorth, dtype=np.float64).tolist(),
            "gyro_scale_vec": vec(m.gyro_scale_vec),
            "gyro_g_sensitivity_rad_sec_per_m_sec2":
                np.asarray(m.gyro_g_sensitivity_rad_sec_per_m_sec2, dtype=np.float64).tolist(),
            "gyro_saturation_threshold_rad_sec": float(m.gyro_saturation_threshold_rad_sec),
            "dt_reference_accel_sec": float(m.dt_reference_accel_sec),
            "dt_reference_gyro_sec": float(m.dt_reference_gyro_sec),
            "nominal_sampling_period_sec": float(m.nominal_sampling_period_sec),
            "T_Imu_BodyImu": se3(m.t_imu_body_imu),
        })
    return {
        "num_cameras": int(oc.num_cameras()),
        "cam_parameters": cams,
        "T_Cam_BodyImu": [se3(t) for t in oc.t_cam_body_imu],
        "dt_ref_cam": [int(x) for x in oc.dt_ref_cam],
        "imu_model_parameters": imus,
    }


def vio_part(p):
    s = StreamId("371-2")
    out = []
    for i in range(p.get_num_data(s)):
        v = p.get_vio_data_by_index(s, i)
        out.append({
            "capture_timestamp_ns": int(v.capture_timestamp_ns),
            "frame_id": int(v.frame_id),
            "frontend_session_uid": str(v.frontend_session_uid),
            "status": enum_name(v.status),
            "pose_quality": enum_name(v.pose_quality),
            "visual_tracking_quality": enum_name(v.visual_tracking_quality),
            "T_Odometry_BodyImu": se3(v.transform_odometry_bodyimu),
            "T_BodyImu_Device": se3(v.transform_bodyimu_device),
            "gravity_in_odometry": vec(v.gravity_in_odometry),
            "linear_velocity_in_odometry": vec(v.linear_velocity_in_odometry),
            "angular_velocity_in_bodyimu": vec(v.angular_velocity_in_bodyimu),
            "camera_serials": list(v.camera_serials),
            "online_calib": online_calib(v.online_calib),
        })
    missing("vio.unix_timestamp_ns",
            "FrontendOutput.unix_timestamp_ns is never set by VioPlayer (uninitialised memory, "
            "differs between runs); omitted")
    return out


def vio_high_freq_part(p):
    """Struct of arrays (index = record index) to keep the 800 Hz stream compact."""
    s = StreamId("371-3")
    cols = {k: [] for k in ("tracking_timestamp_us", "session_uid",
                            "T_Odometry_Device_quaternion_wxyz", "T_Odometry_Device_translation_m",
                            "device_linear_velocity_odometry", "angular_velocity_device",
                            "gravity_odometry", "quality_score")}
    for i in range(p.get_num_data(s)):
        h = p.get_vio_high_freq_data_by_index(s, i)
        pose = se3(h.transform_odometry_device)
        cols["tracking_timestamp_us"].append(td_us(h.tracking_timestamp))
        cols["session_uid"].append(str(h.session_uid))
        cols["T_Odometry_Device_quaternion_wxyz"].append(pose["quaternion_wxyz"])
        cols["T_Odometry_Device_translation_m"].append(pose["translation_m"])
        cols["device_linear_velocity_odometry"].append(vec(h.device_linear_velocity_odometry))
        cols["angular_velocity_device"].append(vec(h.angular_velocity_device))
        cols["gravity_odometry"].append(vec(h.gravity_odometry))
        cols["quality_score"].append(float(h.quality_score))
    n = len(cols["tracking_timestamp_us"])
    for k in ("session_uid", "gravity_odometry", "quality_score"):
        if n > 0 and all(v == cols[k][0] for v in cols[k]):
            cols[k + "_all_records"] = cols.pop(k)[0]
    cols["count"] = n
    cols["layout"] = ("struct of arrays: element i of every list belongs to record i; a column "
                      "named *_all_records holds the value shared by every record")
    missing("vio_high_frequency.utc_timestamp",
            "OpenLoopTrajectoryPose.utc_timestamp is not filled by VioHighFrequencyPlayer "
            "(stale value, ~81277 days); omitted")
    return cols


def eye_gaze_part(p):
    s = StreamId("373-1")
    out = []
    verg_fields = ["left_yaw", "right_yaw", "left_pitch", "right_pitch", "left_yaw_low",
                   "left_yaw_high", "right_yaw_low", "right_yaw_high", "tx_left_eye",
                   "ty_left_eye", "tz_left_eye", "tx_right_eye", "ty_right_eye", "tz_right_eye",
                   "left_blink", "right_blink", "left_gaze_valid", "right_gaze_valid",
                   "left_blink_valid", "right_blink_valid"]
    for i in range(p.get_num_data(s)):
        g = p.get_eye_gaze_data_by_index(s, i)
        v = g.vergence
        out.append({
            "tracking_timestamp_us": td_us(g.tracking_timestamp),
            "session_uid": str(g.session_uid),
            "yaw": float(g.yaw), "pitch": float(g.pitch), "depth": float(g.depth),
            "yaw_low": float(g.yaw_low), "yaw_high": float(g.yaw_high),
            "pitch_low": float(g.pitch_low), "pitch_high": float(g.pitch_high),
            "combined_gaze_valid": bool(g.combined_gaze_valid),
            "combined_gaze_origin_in_cpf": vec(g.combined_gaze_origin_in_cpf),
            "spatial_gaze_point_valid": bool(g.spatial_gaze_point_valid),
            "spatial_gaze_point_in_cpf": vec(g.spatial_gaze_point_in_cpf),
            "vergence": {f: getattr(v, f) for f in verg_fields},
        })
    absent = [f for f in ("left_pupil_diameter_meter", "right_pupil_diameter_meter",
                          "left_entrance_pupil_position_meter",
                          "right_entrance_pupil_position_meter")
              if not hasattr(g.vergence, f)]
    if absent:
        missing("eye_gaze.vergence." + "/".join(absent),
                "in the C++ EyeGazeVergence struct but not bound in Python (pyvrs first/last "
                "metadata has the raw device-frame values)")
    return out


def hand_part(p):
    s = StreamId("371-1")
    out = []
    for i in range(p.get_num_data(s)):
        h = p.get_hand_pose_data_by_index(s, i)
        rec = {"tracking_timestamp_us": td_us(h.tracking_timestamp)}
        for side, one in (("left", h.left_hand), ("right", h.right_hand)):
            if one is None:
                rec[side] = None
                continue
            n = one.wrist_and_palm_normal_device
            rec[side] = {
                "confidence": float(one.confidence),
                "T_Device_Wrist": se3(one.transform_device_wrist),
                "landmark_positions_device": [vec(x) for x in one.landmark_positions_device],
                "wrist_normal_device": None if n is None else vec(n.wrist_normal_device),
                "palm_normal_device": None if n is None else vec(n.palm_normal_device),
            }
        for one in (h.left_hand, h.right_hand):
            # get_wrist/palm_position_device() are landmarks 5 and 20: checked, not stored
            if one is not None:
                lm = one.landmark_positions_device
                assert vec(one.get_wrist_position_device()) == vec(lm[5])
                assert vec(one.get_palm_position_device()) == vec(lm[20])
        out.append(rec)
    missing("hand_tracking joint_angles_radian / finger_confidences",
            "not exposed by HandTrackingResult in projectaria_tools (raw pyvrs metadata only)")
    return out


# ---------------------------------------------------------------------------------------------
# projectaria_tools: other sensors (first and last record)


def motion(d):
    return {
        "capture_timestamp_ns": int(d.capture_timestamp_ns),
        "arrival_timestamp_ns": int(d.arrival_timestamp_ns),
        "accel_valid": bool(d.accel_valid), "gyro_valid": bool(d.gyro_valid),
        "mag_valid": bool(d.mag_valid),
        "accel_msec2": vec(d.accel_msec2), "gyro_radsec": vec(d.gyro_radsec),
        "mag_tesla": vec(d.mag_tesla), "temperature_c": float(d.temperature),
    }


def first_last(p, sid, fn):
    s = StreamId(sid)
    n = p.get_num_data(s)
    if n == 0:
        return None
    return {"first": fn(s, 0), "last": fn(s, n - 1), "count": int(n)}


def audio_part(p):
    s = StreamId("231-1")
    n = p.get_num_data(s)
    conf = p.get_audio_configuration(s)
    nch = int(conf.num_channels)
    blocks = []
    for i in range(n):  # sequential: the provider's Opus decoder keeps state between blocks
        a, rec = p.get_audio_data_by_index(s, i)
        data = np.asarray(a.data, dtype=np.int64).reshape(-1, nch)
        ts = [int(x) for x in rec.capture_timestamps_ns]
        blocks.append({
            "index": i,
            "num_samples": int(data.shape[0]),
            "num_timestamps": len(ts),
            "first_sample_timestamp_ns": ts[0] if ts else None,
            "last_sample_timestamp_ns": ts[-1] if ts else None,
            "audio_muted": int(rec.audio_muted),
            "max_amplitude": float(a.max_amplitude),
            "sum_ch0": int(data[:, 0].sum()),
            "sum_abs_all": int(np.abs(data).sum()),
            "_data": data, "_ts": ts,
        })
    out = {
        "num_channels": nch,
        "sample_rate": int(conf.sample_rate),
        "sample_format": int(conf.sample_format),
        "num_blocks": int(n),
        "sample_layout": "interleaved: data[sample * num_channels + channel]",
        "decode_order": "sequential 0..num_blocks-1 with one provider (Opus decoder state)",
    }
    for key, b in (("first_block", blocks[0]), ("last_block", blocks[-1])):
        d = b["_data"]
        out[key] = {
            "num_samples": b["num_samples"],
            "ch0_first16": [int(x) for x in d[:16, 0]],
            "ch7_first16": [int(x) for x in d[:16, min(7, nch - 1)]],
            "capture_timestamps_ns_first4": b["_ts"][:4],
            "ch0_sum": b["sum_ch0"],
            "abs_sum_all_channels": b["sum_abs_all"],
        }
    out["blocks"] = [{k: v for k, v in b.items() if not k.startswith("_")} for b in blocks]
    return out


def sensors_part(p):
    imu = lambda s, i: motion(p.get_imu_data_by_index(s, i))  # noqa: E731
    mag = lambda s, i: motion(p.get_magnetometer_data_by_index(s, i))  # noqa: E731

    def baro(s, i):
        d = p.get_barometer_data_by_index(s, i)
        return {"capture_timestamp_ns": int(d.capture_timestamp_ns),
                "pressure_pa": float(d.pressure), "temperature_c": float(d.temperature)}

    def temp(s, i):
        d = p.get_temperature_data_by_index(s, i)
        return {"capture_timestamp_ns": int(d.capture_timestamp_ns),
                "sensor_name": str(d.sensor_name),
                "temperature_celsius": float(d.temperature_celsius)}

    def ppg(s, i):
        d = p.get_ppg_data_by_index(s, i)
        return {"capture_timestamp_ns": int(d.capture_timestamp_ns), "value": int(d.value),
                "led_current_ma": float(d.led_current_ma),
                "integration_time_us": float(d.integration_time_us)}

    def bt(s, i):
        d = p.get_bluetooth_data_by_index(s, i)
        return {"system_timestamp_ns": int(d.system_timestamp_ns),
                "board_timestamp_ns": int(d.board_timestamp_ns),
                "board_scan_request_start_timestamp_ns":
                    int(d.board_scan_request_start_timestamp_ns),
                "board_scan_request_complete_timestamp_ns":
                    int(d.board_scan_request_complete_timestamp_ns),
                "unique_id": str(d.unique_id), "tx_power": float(d.tx_power),
                "rssi": float(d.rssi), "freq_mhz": float(d.freq_mhz)}

    out = {
        "audio_231-1": audio_part(p),
        "imu_1202-1": first_last(p, "1202-1", imu),
        "imu_1202-2": first_last(p, "1202-2", imu),
        "magnetometer_1203-1": first_last(p, "1203-1", mag),
        "barometer_247-1": first_last(p, "247-1", baro),
        "temperature_246-1": first_last(p, "246-1", temp),
        "ppg_248-1": first_last(p, "248-1", ppg),
        "bluetooth_283-1": first_last(p, "283-1", bt),
    }
    s = StreamId("246-1")
    out["temperature_246-1"]["all"] = [temp(s, i) for i in range(p.get_num_data(s))]
    missing("bluetooth mac_address", "BluetoothBeaconData has no mac_address field (pyvrs "
            "metadata has it)")
    for sid in ("281-1", "281-2", "282-1", "500-1"):
        if p.get_num_data(StreamId(sid)) == 0:
            missing(f"sensor {sid}", "stream has no data records in this file")
    return out


# ---------------------------------------------------------------------------------------------
# projectaria_tools: images


def block(a, r0, c0):
    return a[r0:r0 + 8, c0:c0 + 8].tolist()


def images_part(p):
    out = {}
    for sid in CAMERAS:
        s = StreamId(sid)
        n = p.get_num_data(s)
        frames, picked = [], {}
        for i in range(n):  # sequential decode of every frame
            img, rec = p.get_image_data_by_index(s, i)
            ok = bool(img.is_valid())
            a = img.to_numpy_array() if ok else None
            frames.append({
                "valid": ok,
                "capture_timestamp_ns": int(rec.capture_timestamp_ns),
                "frame_number": int(rec.frame_number),
                "shape": list(a.shape) if ok else None,
                "mean": float(a.astype(np.float64).mean()) if ok else None,
            })
            if i in (0, n - 1):
                h, w = a.shape[0], a.shape[1]
                picked["first" if i == 0 else "last"] = {
                    "index": i,
                    "shape": list(a.shape),
                    "dtype": str(a.dtype),
                    "pixel_format": PIXEL_FORMATS.get(int(img.get_pixel_format()),
                                                      str(img.get_pixel_format())),
                    "mean": float(a.astype(np.float64).mean()),
                    "center_block_origin_rc": [h // 2 - 4, w // 2 - 4],
                    "center_block_8x8": block(a, h // 2 - 4, w // 2 - 4),
                    "top_left_block_8x8": block(a, 0, 0),
                    "capture_timestamp_ns": int(rec.capture_timestamp_ns),
                    "arrival_timestamp_ns": int(rec.arrival_timestamp_ns),
                    "frame_number": int(rec.frame_number),
                    "camera_id": int(rec.camera_id),
                    "group_id": int(rec.group_id),
                    "group_mask": int(rec.group_mask),
                    "exposure_duration_s": float(rec.exposure_duration),
                    "gain": float(rec.gain),
                    "temperature_c": float(rec.temperature),
                }
        conf = p.get_image_configuration(s)
        out[sid] = {
            "num_frames": int(n),
            "all_frames_decode": all(f["valid"] for f in frames),
            "frames": frames,
            "first": picked.get("first"),
            "last": picked.get("last"),
            "config": {"image_width": int(conf.image_width), "image_height": int(conf.image_height),
                       "image_stride": int(conf.image_stride),
                       "pixel_format": PIXEL_FORMATS.get(int(conf.pixel_format),
                                                         str(conf.pixel_format)),
                       "nominal_rate_hz": float(conf.nominal_rate_hz),
                       "camera_id": int(conf.camera_id), "sensor_model": str(conf.sensor_model)},
        }
    return out


# ---------------------------------------------------------------------------------------------
# projectaria_tools: calibration


def camera_calib(cam):
    w, h = [int(v) for v in cam.get_image_size()]
    projections = []
    for r in RAYS:
        d = np.array(r, dtype=np.float64)
        d = d / np.linalg.norm(d)
        uv = cam.project(d)
        raw = cam.project_no_checks(d)
        projections.append({
            "ray": list(r),
            "ray_unit": [float(x) for x in d],
            "uv_px": None if uv is None else vec(uv),
            "uv_no_checks_px": None if raw is None else vec(raw),
        })
    center = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    ray = cam.unproject(center)
    ray_nc = cam.unproject_no_checks(center)
    rr = cam.get_valid_radius()
    ro = cam.get_readout_time_sec()
    return {
        "model": cam.get_model_name().name,
        "projection_params": vec(cam.get_projection_params()),
        "image_size_wh": [w, h],
        "focal_lengths": vec(cam.get_focal_lengths()),
        "principal_point": vec(cam.get_principal_point()),
        "valid_radius_px": None if rr is None else float(rr),
        "max_solid_angle_rad": float(cam.get_max_solid_angle()),
        "readout_time_s": None if ro is None else float(ro),
        "time_offset_s_device_camera": float(cam.get_time_offset_sec_device_camera()),
        "serial_number": cam.get_serial_number(),
        "T_Device_Camera": se3(cam.get_transform_device_camera()),
        "projections": projections,
        "unproject_image_center": {
            "uv_px": [float(x) for x in center],
            "ray": None if ray is None else vec(ray),
            "ray_unit": None if ray is None else vec(np.asarray(ray) / np.linalg.norm(ray)),
            "ray_no_checks": None if ray_nc is None else vec(ray_nc),
        },
    }


def linear_model(m):
    return {"rectification": np.asarray(m.get_rectification(), dtype=np.float64).tolist(),
            "bias": vec(m.get_bias())}


def calibration_part(p):
    c = p.get_device_calibration()
    out = {
        "all_labels": sorted(c.get_all_labels()),
        "camera_labels": sorted(c.get_camera_labels()),
        "imu_labels": sorted(c.get_imu_labels()),
        "magnetometer_labels": sorted(c.get_magnetometer_labels()),
        "barometer_labels": sorted(c.get_barometer_labels()),
        "microphone_labels": sorted(c.get_microphone_labels()),
        "speaker_labels": sorted(c.get_speaker_labels()),
        "origin_label": c.get_origin_label(),
        "device_subtype": c.get_device_subtype(),
        "device_version": enum_name(c.get_device_version()),
    }
    cpf = {}
    for name in ("Default", "CadBased", "SvdBased"):
        try:
            cpf[name] = se3(c.get_transform_device_cpf(getattr(C.CpfType, name)))
        except Exception as e:  # noqa: BLE001
            cpf[name] = None
            missing(f"T_Device_CPF({name})", str(e))
    out["T_Device_CPF"] = cpf
    out["cameras"] = {l: camera_calib(c.get_camera_calib(l)) for l in sorted(c.get_camera_labels())}
    imus = {}
    for l in sorted(c.get_imu_labels()):
        ic = c.get_imu_calib(l)
        imus[l] = {
            "T_Device_Imu": se3(ic.get_transform_device_imu()),
            "accel": linear_model(ic.get_accel_model()),
            "gyro": linear_model(ic.get_gyro_model()),
            "time_offset_s_device_accel": float(ic.get_time_offset_sec_device_accel()),
            "time_offset_s_device_gyro": float(ic.get_time_offset_sec_device_gyro()),
            "raw_to_rectified_accel_(0.1,-9.7,0.3)":
                vec(ic.raw_to_rectified_accel(np.array([0.1, -9.7, 0.3]))),
            "raw_to_rectified_gyro_(0.01,-0.02,0.03)":
                vec(ic.raw_to_rectified_gyro(np.array([0.01, -0.02, 0.03]))),
        }
    out["imus"] = imus
    mags = {}
    for l in sorted(c.get_magnetometer_labels()):
        m = c.get_magnetometer_calib(l)
        mags[l] = {"model": linear_model(m.get_model()),
                   "raw_to_rectified_(2e-5,-3e-5,4.5e-5)":
                       vec(m.raw_to_rectified(np.array([2.0e-5, -3.0e-5, 4.5e-5])))}
    out["magnetometers"] = mags
    baros = {}
    for l in sorted(c.get_barometer_labels()):
        b = c.get_barometer_calib(l)
        baros[l] = {"slope": float(b.get_slope()), "offset_pa": float(b.get_offset_pa()),
                    "raw_to_rectified_101325": float(b.raw_to_rectified(101325.0))}
    out["barometers"] = baros
    out["microphones"] = {l: {"d_sensitivity_1k_dbv":
                              float(c.get_microphone_calib(l).get_d_sensitivity_1k_dbv())}
                          for l in sorted(c.get_microphone_labels())}
    # Cameras and IMUs carry their extrinsics above; the other sensors' here.
    covered = set(c.get_camera_labels()) | set(c.get_imu_labels())
    tds = {}
    for l in sorted(c.get_all_labels()):
        if l in covered:
            continue
        t = c.get_transform_device_sensor(l, False)
        tds[l] = None if t is None else se3(t)
    out["T_Device_Sensor_other"] = tds
    return out


# ---------------------------------------------------------------------------------------------


def main(path, out):
    pv = pyvrs_part(path)
    p = data_provider.create_vrs_data_provider(path)
    # Audio first, sequentially, so the stateful Opus decoder sees blocks 0..N-1 in order.
    sensors = sensors_part(p)
    doc = {
        "file": path.split("/")[-1],
        "generated_by": f"scripts/ref_gen2.py (pyvrs + projectaria_tools {version('projectaria-tools')})",
        "record_count": pv["record_count"],
        "file_tag_keys": pv["file_tag_keys"],
        "file_tags_short": pv["file_tags_short"],
        "streams": pv["streams"],
        "conventions": {
            "pose": "quaternion_wxyz = [w, x, y, z] (Hamilton, unit), translation_m = [x, y, z]; "
                    "T_A_B maps points from frame B to frame A",
            "pyvrs_raw_quaternions": "pyvrs metadata keys q*xyzw are [x, y, z, w]",
            "timestamps": "*_ns integer ns, *_us integer us (projectaria_tools truncates the "
                          "record's ns to us), *_s float seconds (VRS index time)",
            "hand_landmarks": "landmark_positions_device[5] is the wrist (== "
                              "get_wrist_position_device()), [20] the palm centre (== "
                              "get_palm_position_device())",
            "image_blocks": "rows h//2-4..h//2+4 and cols w//2-4..w//2+4 (center), rows/cols "
                            "0..8 (top-left); RGB blocks are [row][col][r,g,b]",
        },
        "aria": {
            "device_version": enum_name(p.get_device_version()),
            **streams_part(p),
            "vio_371-2": vio_part(p),
            "vio_high_frequency_371-3": vio_high_freq_part(p),
            "eye_gaze_373-1": eye_gaze_part(p),
            "hand_tracking_371-1": hand_part(p),
            "sensors": sensors,
            "images": images_part(p),
            "calibration": calibration_part(p),
        },
    }
    doc["not_available"] = sorted(set(NOT_AVAILABLE))
    with open(out, "w") as f:
        json.dump(clean(doc), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
