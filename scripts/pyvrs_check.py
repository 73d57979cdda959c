#!/usr/bin/env python3
"""Check that Meta's reader (pyvrs) reads a VRS file the way we expect.

Usage: pyvrs_check.py FILE EXPECTED.json

EXPECTED.json:
  {"file_tags": {name: value, ...},                      # subset that must match
   "streams": {"214-1": {"configuration": 1, "state": 0, "data": 2,
                         "data_timestamps_s": [...],      # DATA record timestamps, in order
                         "data_values": [{field: value}], # per DATA record, subset of fields
                         "image_bytes": [n, ...]}}}       # optional: first image block sizes

Prints one line per problem and exits 1 if any, else prints a summary and exits 0.
"""
import json
import math
import sys

import pyvrs


def same(a, b):
    if isinstance(b, list):
        return isinstance(a, (list, tuple)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(b, float) or isinstance(a, float):
        if b is None:
            return isinstance(a, float) and math.isnan(a)
        return float(a) == float(b)
    return a == b


def main(path, expected_path):
    with open(expected_path) as f:
        want = json.load(f)
    problems = []
    r = pyvrs.SyncVRSReader(path)
    got_streams = set(r.stream_ids)
    want_streams = set(want["streams"].keys())
    if got_streams != want_streams:
        problems.append(f"streams: pyvrs {sorted(got_streams)} expected {sorted(want_streams)}")
    for k, v in want.get("file_tags", {}).items():
        if r.file_tags.get(k) != v:
            problems.append(f"file tag {k}: pyvrs {r.file_tags.get(k)!r} expected {v!r}")
    records = 0
    for sid, w in sorted(want["streams"].items()):
        if sid not in got_streams:
            continue
        info = r.get_stream_info(sid)
        for kind in ("configuration", "state", "data"):
            n = info[f"{kind}_records_count"]
            if n != w.get(kind, 0):
                problems.append(f"{sid}: {n} {kind} records, expected {w.get(kind, 0)}")
        data = r.filtered_by_fields(stream_ids=sid, record_types="data")
        ts = [data[i].timestamp for i in range(len(data))]
        if "data_timestamps_s" in w and not same(ts, w["data_timestamps_s"]):
            problems.append(f"{sid}: data timestamps {ts} expected {w['data_timestamps_s']}")
        for i, values in enumerate(w.get("data_values", [])):
            if i >= len(data):
                break
            meta = data[i].metadata_blocks[0]
            for k, v in values.items():
                if k not in meta or not same(meta[k], v):
                    problems.append(f"{sid} data {i}: {k} = {meta.get(k)!r}, expected {v!r}")
        for i, n in enumerate(w.get("image_bytes", [])):
            blocks = data[i].image_blocks if i < len(data) else []
            got = len(blocks[0]) if blocks else None
            if got != n:
                problems.append(f"{sid} data {i}: image block {got} bytes, expected {n}")
        records += len(data)
    for p in problems:
        print("pyvrs_check: MISMATCH:", p)
    if problems:
        return 1
    print(f"pyvrs_check: OK: {len(got_streams)} streams, {len(r)} records ({records} data) read by pyvrs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
