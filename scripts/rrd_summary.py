#!/usr/bin/env python3
"""What a Rerun recording holds, read with Rerun's own reader (PyPI `rerun-sdk`).

    python scripts/rrd_summary.py RUN.rrd [--texts]

Prints one JSON object: per entity path, the rows logged, the archetype columns, and the
`device` and `processing` timeline values of each row (ns); with `--texts`, the text of
each row of a text log. The tests read a run's recording back through it.
"""

import json
import sys

import pyarrow as pa
import pyarrow.compute as pc
from rerun.experimental import RrdReader


def ns_values(column):
    """A timeline column's values as integer nanoseconds (nulls as None)."""
    return pc.cast(column, pa.int64()).to_pylist()


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path, texts = argv[1], "--texts" in argv[2:]
    out = {}
    for chunk in RrdReader(path).stream():
        batch = chunk.to_record_batch()
        entry = out.setdefault(
            chunk.entity_path,
            {"rows": 0, "static": False, "columns": [], "device_ns": [], "processing_ns": []},
        )
        entry["rows"] += chunk.num_rows
        entry["static"] = entry["static"] or chunk.is_static
        for name in batch.schema.names:
            if ":" in name and name not in entry["columns"]:
                entry["columns"].append(name)
        for timeline in ("device", "processing"):
            if timeline in batch.schema.names:
                entry[timeline + "_ns"].extend(ns_values(batch.column(timeline)))
        if texts and "TextLog:text" in batch.schema.names:
            for row in batch.column("TextLog:text").to_pylist():
                entry.setdefault("texts", []).extend(row or [])
    for entry in out.values():
        entry["columns"].sort()
    json.dump(out, sys.stdout, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
