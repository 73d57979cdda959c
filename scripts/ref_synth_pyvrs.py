#!/usr/bin/env python3
"""Reference values for a synthetic session's recording, read with Meta's own readers.

Usage:
  vista synth pole_to_door --seed 1 --duration 6 --rgb-fps 2 --out /tmp/synth_ref
  ref_synth_pyvrs.py /tmp/synth_ref/recording.vrs tests/data/reference/synth_pole_to_door_seed1_6s.json

Reads the recording with pyvrs (PyPI `vrs`) and projectaria_tools' data provider and writes,
per stream: record counts by type, the decoded size and mean of the first SLAM and RGB frames, the first/last DATA timestamps, every DATA capture
timestamp (mag, baro) or their count/first/last/sum (IMU), and the decoded values of the
first three DATA records. tests/synth_pyvrs.rs regenerates the same session and compares;
it never runs Python.
"""
import json
import math
import sys

import numpy as np
import pyvrs
from projectaria_tools.core import data_provider
from projectaria_tools.core.stream_id import StreamId


def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if math.isnan(f) else f
    if isinstance(v, np.integer):
        return int(v)
    return v


def main(path, out):
    r = pyvrs.SyncVRSReader(path)
    streams = {}
    for sid in sorted(r.stream_ids):
        info = r.get_stream_info(sid)
        data = r.filtered_by_fields(stream_ids=sid, record_types="data")
        ts = [int(rec.metadata_blocks[0]["capture_timestamp_ns"]) for rec in data]
        s = {
            "recordable_name": info["device_name"],
            "configuration_records": info["configuration_records_count"],
            "data_records": info["data_records_count"],
            "first_data_timestamp_s": data[0].timestamp,
            "last_data_timestamp_s": data[len(data) - 1].timestamp,
            "capture_ns_first": ts[0],
            "capture_ns_last": ts[-1],
            "capture_ns_sum": sum(ts),
            "first_data": [clean(dict(data[i].metadata_blocks[0])) for i in range(3)],
        }
        if len(ts) <= 1000:
            s["capture_ns"] = ts
        streams[sid] = s
    provider = data_provider.create_vrs_data_provider(path)
    pat = {
        sid: provider.get_num_data(StreamId(sid)) for sid in sorted(r.stream_ids)
    }
    calib = provider.get_device_calibration()
    images = {}
    for sid in sorted(r.stream_ids):
        if sid.startswith("1201-") or sid.startswith("214-"):
            img = provider.get_image_data_by_index(StreamId(sid), 0)[0].to_numpy_array()
            images[sid] = {"shape": list(img.shape), "mean": float(img.mean())}
    json.dump(
        {
            "records": len(r),
            "streams": streams,
            "projectaria_tools_num_data": pat,
            "projectaria_tools_imu_labels": sorted(calib.get_imu_labels()),
            "projectaria_tools_first_images": images,
        },
        open(out, "w"),
        indent=1,
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
