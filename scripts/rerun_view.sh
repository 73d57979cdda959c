#!/usr/bin/env bash
# A run as a Rerun recording, measured, and the README's picture of it: the main job
# (find_exit) written, then run by `vista profile` in real time twice, without and with
# `--rerun`, and the table of what the recording costs (its size, items logged and dropped,
# hazard evidence → first alert audio, perception's latency, the pace of real-time replay,
# CPU and memory) written to docs/rerun.md; the recording is then opened in the viewer of the
# `rerun-sdk` wheel, captured (`rerun --screenshot-to`) and scaled to docs/rerun-find_exit.jpg.
#
#   scripts/rerun_view.sh
#
# Needs a binary built with `--features rerun` (VISTA, default target/release/vista),
# `scripts/setup.sh --rerun` (the viewer, in the venv) and a display (Xvfb through `xvfb-run`
# when there is none: Debian `xvfb`; the viewer renders on the CPU through Mesa's Vulkan
# driver, `mesa-vulkan-drivers`). DIR (default /tmp/rerun-view) holds the runs; BUILT_WITH
# says how the binary was built, for the page.
set -euo pipefail
cd "$(dirname "$0")/.."
vista="${VISTA:-target/release/vista}"
dir="${DIR:-/tmp/rerun-view}"
venv="${VISTA_CACHE:-$HOME/.cache/vista}/venv"
mkdir -p "$dir"
[ -d "$dir/find_exit" ] || "$vista" synth find_exit --out "$dir/find_exit" >/dev/null
for m in off on; do
  view=()
  [ "$m" = on ] && view=(--rerun "$dir/find_exit.rrd")
  "$vista" profile "$dir/find_exit" -q --out "$dir/run-$m" "${view[@]}" >"$dir/run-$m.txt" 2>&1
done
python3 - "$dir" "$vista" "${BUILT_WITH:-}" >docs/rerun.md <<'PY'
import json, os, subprocess, sys
d, vista, built = sys.argv[1], sys.argv[2], sys.argv[3]
def load(m):
    return json.load(open(f"{d}/run-{m}/profile.json"))
def hazard_p(m, q):
    for line in open(f"{d}/run-{m}.txt"):
        f = line.split()
        if f[:2] == ["hazard", "evidence_to_first_audio"]:
            return float(f[{"p50": 3, "p99": 5}[q]])
    return float("nan")
rows = []
for m in ("off", "on"):
    p = load(m)
    per = p["replay"]["runtime"]["stages"]["perception"]["latency_us"]
    rgb = p["replay"]["streams"]["camera-rgb"]["pacing_us"]
    rows.append((m, hazard_p(m, "p50"), hazard_p(m, "p99"), per["p50"] / 1e3, per["p99"] / 1e3,
                 rgb["p99"] / 1e3, p["replay"]["speed_factor"], p["cpu"]["cores_used"],
                 p["cpu"]["peak_rss_mib"], p["replay"].get("rerun")))
commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
print("# A run as a Rerun recording\n")
print("What `--rerun FILE.rrd` costs a run: the README's main job (`find_exit`, 34 s) run by `vista profile` in")
print("real time without and with a recording, on one machine one after the other. Hazard evidence → first")
print("alert audio and perception's latency (capture to the end of its tick) are the runtime's; RGB pace p99")
print("is how late the RGB frames were delivered against their capture times.\n")
print("```sh\nscripts/rerun_view.sh\n```\n")
print(f"Commit {commit}, {os.cpu_count()} cores, binary `{vista}`{' (' + built + ')' if built else ''}.\n")
print("| recording | hazard → alert audio p50 / p99 (ms) | perception p50 / p99 (ms) | RGB pace p99 (ms) | replay speed | cores used | peak RSS (MiB) |")
print("|---|---:|---:|---:|---:|---:|---:|")
for m, h50, h99, p50, p99, pace, speed, cores, rss, _ in rows:
    print(f"| {m} | {h50:.1f} / {h99:.1f} | {p50:.2f} / {p99:.2f} | {pace:.2f} | {speed:.2f}× | {cores:.2f} | {rss:.0f} |")
r = rows[1][-1] or {}
size = os.path.getsize(f"{d}/find_exit.rrd") / 1e6
print(f"\nThe recording: {size:.1f} MB, {r.get('logged', 0)} items logged, {r.get('dropped', 0)} dropped behind, {r.get('failed', 0)} refused.")
print("\nThe slow tail of hazard → alert audio (an alert decided on evidence seconds old) is the run's own,")
print("with or without a recording.")
PY
shot="$dir/find_exit.png"
run_viewer=("$venv/bin/rerun" "$dir/find_exit.rrd" --screenshot-to "$shot" --window-size 1600x1000)
rm -f "$shot"
# The viewer may exit with an error as it quits after the screenshot: the picture decides.
if [ -n "${DISPLAY:-}" ]; then "${run_viewer[@]}" >"$dir/viewer.log" 2>&1 || true
else xvfb-run -a -s "-screen 0 1600x1000x24" "${run_viewer[@]}" >"$dir/viewer.log" 2>&1 || true; fi
[ -s "$shot" ] || { echo "rerun_view.sh: the viewer made no picture (see $dir/viewer.log)" >&2; exit 1; }
convert "$shot" -resize 1600x1000 -quality 82 docs/rerun-find_exit.jpg
echo "wrote docs/rerun.md and docs/rerun-find_exit.jpg"
