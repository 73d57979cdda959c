#!/usr/bin/env bash
# Soak test (issue 8): runs the whole assistant on a synthetic session in real time for
# SECONDS (default 300) and checks that memory stays flat and every queue stays bounded.
#
#   scripts/soak.sh [SECONDS]          # VISTA=path/to/vista (default target/release/vista)
#
# It writes a short synthetic session (mixed_walk, 30 s, RGB at 2 fps so OCR runs), replays
# it with `--loops` until SECONDS have passed (`vista replay SESSION --loops N --speak OUT`),
# samples the process's VmRSS and thread count from /proc every 5 s into rss.tsv, and at the
# end prints RSS at 1 min and at the end, the buffers' high-water marks and the per-consumer
# drop counts from profile.json. Exit status 1 if RSS grew by more than 10 % (plus 4 MiB)
# between the first minute and the end, or if any buffer went over its capacity.
# Not run in CI: it occupies a core for the whole duration.
set -euo pipefail

secs=${1:-300}
vista=${VISTA:-target/release/vista}
out=${OUT:-$(mktemp -d /tmp/vista-soak.XXXXXX)}
session_s=30
mkdir -p "$out"

echo "soak: ${secs} s, binary ${vista}, output in ${out}"
"$vista" synth mixed_walk --duration "$session_s" --rgb-fps 2 --out "$out/session" >"$out/synth.log" 2>&1
loops=$(( (secs + session_s - 1) / session_s - 1 ))

RUST_LOG=${RUST_LOG:-warn} "$vista" replay "$out/session" --loops "$loops" --speak "$out/run" \
    --profile "$out/profile.json" -q >"$out/replay.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' INT TERM

printf 't_s\trss_kib\tthreads\n' >"$out/rss.tsv"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    thr=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && printf '%s\t%s\t%s\n' "$(( $(date +%s) - start ))" "$rss" "$thr" >>"$out/rss.tsv"
    sleep 5
done
status=0
wait "$pid" || status=$?
if [ "$status" -ne 0 ]; then
    echo "soak: replay failed with status $status (see $out/replay.log)"
    exit 1
fi

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
rows = [l.split('\t') for l in open(f"{out}/rss.tsv").read().split('\n')[1:] if l]
rows = [(int(t), int(r), int(n)) for t, r, n in rows]
if not rows:
    sys.exit("soak: no RSS samples")
def at(t):
    return min(rows, key=lambda r: abs(r[0] - t))
first_min = at(60)
last = rows[-1]
peak = max(r[1] for r in rows)
print(f"RSS at {first_min[0]} s: {first_min[1] / 1024:.1f} MiB; at {last[0]} s: {last[1] / 1024:.1f} MiB; "
      f"peak {peak / 1024:.1f} MiB; threads {first_min[2]} -> {last[2]}")
p = json.load(open(f"{out}/profile.json"))
bad = False
for name, s in sorted(p.get("buffers", {}).get("streams", {}).items()):
    print(f"  buffer {name:18} produced {s['produced']:8} high-water {s['high_water']:6} / {s['capacity']}")
    bad |= s["high_water"] > s["capacity"]
for c, streams in sorted(p.get("buffers", {}).get("consumers", {}).items()):
    lost = {n: s["dropped"] for n, s in streams.items() if s["dropped"]}
    lag = max((s["max_lag"] for s in streams.values()), default=0)
    print(f"  consumer {c:16} streams {len(streams):2}  max lag {lag:6}  dropped {lost or 0}")
print(f"  wall {p['wall_time_s']:.1f} s, device {p['device_time_s']:.1f} s, ingest CPU {p.get('ingest_cpu_s')} s")
grew = last[1] > first_min[1] * 1.10 + 4096
if grew:
    print("soak: RSS grew between the first minute and the end")
sys.exit(1 if grew or bad else 0)
PY
