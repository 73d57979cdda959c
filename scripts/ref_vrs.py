#!/usr/bin/env python3
"""Generate reference values for the VRS reader tests with Meta's own readers.

Usage: ref_vrs.py VRS_FILE OUT_JSON

Reads VRS_FILE with pyvrs (PyPI `vrs`) and projectaria_tools' data provider and writes the
values the Rust tests compare against: the record index (stream, type, timestamp) in file
order, per-stream record counts, first/last data timestamps, decoded DataLayout values of the
first and last data record of every sensor stream, image sizes, JPEG decode statistics and
the time-domain mappings. The Rust tests never run Python; they read the committed JSON.
"""
import json
import math
import sys

import numpy as np
import pyvrs
from projectaria_tools.core import data_provider
from projectaria_tools.core.stream_id import StreamId


def clean(v):
    """JSON-safe values (NaN -> None, numpy -> python)."""
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
    rtype = {"configuration": "Configuration", "state": "State", "data": "Data", "tags": "Tags"}
    index = []
    for i in range(len(r)):
        rec = r[i]
        index.append([rec.stream_id, rtype[rec.record_type], rec.timestamp])
    streams = {}
    for sid in sorted(r.stream_ids):
        info = r.get_stream_info(sid)
        s = {
            "recordable_name": info["device_name"],
            "configuration_records": info["configuration_records_count"],
            "state_records": info["state_records_count"],
            "data_records": info["data_records_count"],
        }
        data = r.filtered_by_fields(stream_ids=sid, record_types="data")
        if len(data) > 0:
            s["first_data_timestamp_s"] = data[0].timestamp
            s["last_data_timestamp_s"] = data[len(data) - 1].timestamp
            s["first_data"] = dict(data[0].metadata_blocks[0])
            s["last_data"] = dict(data[len(data) - 1].metadata_blocks[0])
            s["data_capture_timestamps_ns"] = [
                int(rec.metadata_blocks[0]["capture_timestamp_ns"])
                for rec in data
                if "capture_timestamp_ns" in rec.metadata_blocks[0]
            ]
            if data[0].image_blocks:
                s["first_image_bytes"] = int(len(data[0].image_blocks[0]))
        conf = r.filtered_by_fields(stream_ids=sid, record_types="configuration")
        if len(conf) > 0:
            c = dict(conf[0].metadata_blocks[0])
            # Drop the long calibration strings; keep sizes and rates.
            s["config"] = {k: v for k, v in c.items() if not (isinstance(v, str) and len(v) > 200)}
        streams[sid] = s

    # projectaria_tools: decoded images and unit-converted motion data.
    p = data_provider.create_vrs_data_provider(path)
    images = {}
    for sid in ["214-1", "1201-1", "1201-2", "211-1"]:
        img, rec = p.get_image_data_by_index(StreamId(sid), 0)
        a = img.to_numpy_array()
        images[sid] = {
            "shape": list(a.shape),
            "mean": float(a.astype(np.float64).mean()),
            "capture_timestamp_ns": int(rec.capture_timestamp_ns),
            "frame_number": int(rec.frame_number),
        }
    mag = p.get_magnetometer_data_by_index(StreamId("1203-1"), 0)
    aria = {
        "images": images,
        "magnetometer_first_tesla": list(mag.mag_tesla),
        "nominal_rate_hz": {
            sid: float(p.get_nominal_rate_hz(StreamId(sid)))
            for sid in ["214-1", "1201-1", "211-1", "1202-1", "1202-2", "1203-1", "247-1"]
        },
    }
    doc = {
        "file": path.split("/")[-1],
        "generated_by": "scripts/ref_vrs.py (pyvrs + projectaria_tools)",
        "record_count": len(r),
        "file_tag_keys": sorted(r.file_tags.keys()),
        "calib_json_len": len(r.file_tags.get("calib_json", "")),
        "index": index,
        "streams": streams,
        "aria": aria,
    }
    with open(out, "w") as f:
        json.dump(clean(doc), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
