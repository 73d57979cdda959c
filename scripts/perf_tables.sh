#!/usr/bin/env bash
# Writes docs/performance.md: every figure in it comes from this script's own run of the
# repo's benches and commands, with the command that produced it, the commit and the date.
#
#   scripts/perf_tables.sh [SECTION...]      # default: every section below, ~15 min
#
# Sections:
#   benches    criterion benches (benches/*.rs), median per measure: `cargo bench --bench B`
#   ring       ring buffer by CPU time (2^26 samples) and instructions per sample (callgrind)
#   replay     `vista replay` of the real Gen1 sample: --asap speed, real-time pacing and
#              ingest CPU, and the machine's own cost of a timed wake-up (benches/wake_floor.c)
#   lm         `vista bench lm`: SmolLM2 prompt / generation speed, first token; image encode
#   assistant  `vista synth find_exit` + `vista profile`: the README's first command, scored
#   synth      `vista synth mixed_walk --duration 60`: time to write a 60 s session
#
# Environment: VISTA (binary, default $CARGO_TARGET_DIR/release/vista, built if missing),
# OUT_MD (default docs/performance.md; "-" prints to standard output), WORK (scratch folder,
# default /tmp/vista-perf), BENCHES (which criterion benches; default every one but `lm`, which
# the lm section measures through `vista bench lm`), MEASURE_S (criterion measurement time per
# measure, default 2).
#
# The machine's core count and load average at the start and the end go into the file's
# header: wall-clock figures (criterion medians, pacing, the assistant's latency) grow with
# load; instruction counts, CPU times and ratios from one run depend on it much less. The
# callgrind build uses a separate target folder ($CARGO_TARGET_DIR/callgrind) compiled for
# x86-64-v3 without the language model, since valgrind cannot decode AVX-512; the first run
# builds it (several minutes), as it builds the benches.
set -euo pipefail
cd "$(dirname "$0")/.."

all_sections=(benches ring replay lm assistant synth)
if [ $# -gt 0 ]; then sections=("$@"); else sections=("${all_sections[@]}"); fi
for s in "${sections[@]}"; do
  case " ${all_sections[*]} " in
    *" $s "*) ;;
    *) echo "perf_tables: unknown section $s (sections: ${all_sections[*]})" >&2; exit 2 ;;
  esac
done

tgt=${CARGO_TARGET_DIR:-target}
export CARGO_TARGET_DIR=$tgt
work=${WORK:-/tmp/vista-perf}
out_md=${OUT_MD:-docs/performance.md}
measure_s=${MEASURE_S:-2}
rm -rf "$work"
mkdir -p "$work/sections"
vista=${VISTA:-$tgt/release/vista}
if [ ! -x "$vista" ]; then
  cargo build --release --bin vista
fi
sample=tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs

commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src benches Cargo.toml Cargo.lock || commit="$commit (with local changes)"
date_utc=$(date -u +%Y-%m-%d)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
cores=$(nproc)
t_start=$(date +%s)

log() { echo "perf_tables: $*" >&2; }

# CPU seconds (user + sys) and wall seconds of a command, into $work/time.txt: "user sys wall".
timed() { /usr/bin/time -f '%U %S %e' -o "$work/time.txt" "$@"; }

# --- criterion benches -------------------------------------------------------------------
section_benches() {
  local benches
  read -r -a benches <<<"${BENCHES:-vrs_scan mps_read projection ring_buffer window protocol speech perception stereo movers assistant trace ocr fusion synth}"
  log "building the benches"
  cargo bench --no-run --benches >"$work/bench-build.log" 2>&1
  for b in "${benches[@]}"; do
    log "cargo bench --bench $b"
    local filter=()
    # ring_buffer: the designs for one and three consumers (K = 1, 3), not every K.
    [ "$b" = ring_buffer ] && filter=('(/1$|/3$|spsc_raw|window)')
    # synth: its parts; the whole session is the synth section's (session_10s takes minutes here).
    [ "$b" = synth ] && filter=('synth/(imu|rgb|slam|semidense)')
    CRITERION_HOME="$work/criterion/$b" cargo bench --bench "$b" -- \
      --warm-up-time 1 --measurement-time "$measure_s" "${filter[@]}" \
      >"$work/bench-$b.log" 2>&1 || log "bench $b failed (see $work/bench-$b.log)"
  done
  python3 - "$work" "$measure_s" "${benches[@]}" >"$work/sections/benches.md" <<'PY'
import glob, json, os, re, sys
work, measure_s, benches = sys.argv[1], sys.argv[2], sys.argv[3:]
# Targets, as the benches' own docs state them (the measure's id starts with the key).
targets = {
    "vrs/scan_all_records": "≥ 1 GB/s",
    "project/fisheye624_calibration_batch": "≥ 20 M/s",
    "window/update_10hz": "≤ 0.5 ms",
    "speech/text_to_first_sample": "≤ 5 ms",
    "speech/alert_to_sink": "≤ 10 ms",
    "perception/tick": "≪ 1 ms",
    "frame_pair_decode_compare": "≤ 10 ms",
    "pair_decode_rectify_match_triangulate": "≪ 50 ms",
    "lm/first_token_prefix_reused": "≤ 150 ms",
}
def fmt_t(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"
def fmt_rate(per_s, unit):
    if unit == "B":
        return f"{per_s / 1e9:.3g} GB/s"
    for prefix, scale in (("M", 1e6), ("k", 1e3)):
        if per_s >= scale:
            return f"{per_s / scale:.3g} {prefix}/s"
    return f"{per_s:.3g} /s"
print("## Criterion benches\n")
print("Median time per iteration, and throughput where the bench declares one; what each measure does is")
print(f"in the doc comment at the top of `benches/BENCH.rs`. Each bench ran as:\n")
print("```sh")
print(f"cargo bench --bench BENCH -- --warm-up-time 1 --measurement-time {measure_s}")
print("```\n")
print("| bench | measure | median | throughput | target |")
print("|---|---|---|---|---|")
skipped = []
for b in benches:
    rows = []
    for bj in sorted(glob.glob(f"{work}/criterion/{b}/**/new/benchmark.json", recursive=True)):
        meta = json.load(open(bj))
        est = json.load(open(os.path.join(os.path.dirname(bj), "estimates.json")))
        med = est["median"]["point_estimate"]
        tp = meta.get("throughput") or {}
        rate = ""
        if "Bytes" in tp:
            rate = fmt_rate(tp["Bytes"] / (med / 1e9), "B")
        elif tp.get("Elements", 1) > 1:
            rate = fmt_rate(tp["Elements"] / (med / 1e9), "E")
        fid = meta["full_id"]
        target = next((v for k, v in targets.items() if fid.startswith(k)), "")
        rows.append(f"| {b} | `{fid}` | {fmt_t(med)} | {rate} | {target} |")
    if rows:
        print("\n".join(rows))
    else:
        skipped.append(b)
log = {b: open(f"{work}/bench-{b}.log", errors="replace").read() for b in benches}
lat = re.findall(r"^loopback_latency/(\S+): p50 ([\d.]+) µs, p99 ([\d.]+) µs, max ([\d.]+) µs over (\d+) frames",
                 log.get("protocol", ""), re.M)
if lat:
    print("\nOne frame at a time through loopback TCP, write → decoded frame (`cargo bench --bench protocol`):\n")
    print("| frame | p50 | p99 | max | frames | target p99 |")
    print("|---|---|---|---|---|---|")
    tgt = {"image_500kB": "≤ 1 ms", "imu_batch_20": "≤ 100 µs"}
    for name, p50, p99, mx, n in lat:
        print(f"| {name} | {p50} µs | {p99} µs | {mx} µs | {n} | {tgt.get(name, '')} |")
if skipped:
    why = []
    for b in skipped:
        m = re.search(r"(skipped[^\n]*|error[^\n]*)", log.get(b, ""))
        why.append(f"`{b}`" + (f" ({m.group(1).strip()[:80]})" if m else ""))
    print("\nNo result: " + ", ".join(why) + ".")
PY
}

# --- ring buffer: CPU time and instruction counts ----------------------------------------
section_ring() {
  log "ring buffer by CPU time"
  local exe variants=(shared_batch/1 shared_batch/3 shared_cursors/1 shared_cursors/3)
  exe=$(cargo bench --bench ring_buffer --no-run --message-format=json 2>/dev/null |
    jq -r 'select(.reason == "compiler-artifact" and .target.name == "ring_buffer") | .executable // empty' | tail -1)
  local n_cpu=$((1 << 26)) n_cg=$((1 << 20))
  : >"$work/ring.tsv"
  for v in "${variants[@]}"; do
    VISTA_RING_COUNT=$v VISTA_RING_N=$n_cpu timed "$exe" >/dev/null
    echo "$v cpu $(cat "$work/time.txt")" >>"$work/ring.tsv"
  done
  local cg_note=""
  if command -v valgrind >/dev/null; then
    log "ring buffer under callgrind (x86-64-v3 build)"
    local cg_tgt="$tgt/callgrind" cg_exe
    cg_exe=$(CARGO_TARGET_DIR=$cg_tgt RUSTFLAGS='-C target-cpu=x86-64-v3' \
      cargo bench --no-default-features --bench ring_buffer --no-run --message-format=json 2>"$work/cg-build.log" |
      jq -r 'select(.reason == "compiler-artifact" and .target.name == "ring_buffer") | .executable // empty' | tail -1)
    [ -n "$cg_exe" ] || cg_note="The x86-64-v3 build failed (see $work/cg-build.log): no instruction counts."
    for v in "${variants[@]}"; do
      [ -n "$cg_exe" ] || break
      VISTA_RING_COUNT=$v VISTA_RING_N=$n_cg valgrind --tool=callgrind --toggle-collect='*counted_run*' \
        --callgrind-out-file="$work/cg.out" "$cg_exe" >/dev/null 2>"$work/cg.log"
      echo "$v ir $(sed -n 's/^summary: //p' "$work/cg.out")" >>"$work/ring.tsv"
    done
  else
    cg_note="valgrind is not installed: no instruction counts."
  fi
  python3 - "$work/ring.tsv" "$n_cpu" "$n_cg" "$cg_note" >"$work/sections/ring.md" <<'PY'
import sys
path, n_cpu, n_cg, note = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cpu, ir = {}, {}
for line in open(path):
    v, kind, *vals = line.split()
    if kind == "cpu":
        cpu[v] = float(vals[0]) + float(vals[1])
    elif vals:
        ir[v] = int(vals[0])
print("## Ring buffer: CPU time and instructions\n")
print("Push and read of IMU samples through vista's `BufferSet` on one core, the bench's own making of")
print("each sample included. `shared_batch` pushes 64 samples under one lock, `shared_cursors` one sample")
print("per lock (as real-time ingest pushes); `/K` is the number of readers. Throughput is samples over")
print(f"the process's CPU time (user + sys) for {n_cpu:,} samples; instructions per sample are callgrind's")
print(f"count inside `counted_run` over {n_cg:,} samples, in a build for x86-64-v3 (valgrind cannot decode")
print("AVX-512). Target: ≥ 50 M samples/s.\n")
print("```sh")
print("VISTA_RING_COUNT=VARIANT/K VISTA_RING_N=67108864 /usr/bin/time -f '%U %S' RING_BUFFER_BENCH")
print("VISTA_RING_COUNT=VARIANT/K valgrind --tool=callgrind --toggle-collect='*counted_run*' RING_BUFFER_BENCH")
print("```\n")
print("| variant | M samples/s (CPU time) | instructions / sample |")
print("|---|---|---|")
for v in cpu:
    i = f"{ir[v] / n_cg:.0f}" if v in ir else "–"
    print(f"| `{v}` | {n_cpu / cpu[v] / 1e6:.1f} | {i} |")
if note:
    print(f"\n{note}")
PY
}

# --- replay: lock-step speed, real-time pacing, ingest CPU --------------------------------
section_replay() {
  log "replay --asap"
  local loops_asap=300 loops_rt=66
  timed "$vista" replay "$sample" --asap --loops "$loops_asap" -q --profile "$work/asap.json" >/dev/null 2>&1
  cp "$work/time.txt" "$work/asap.time"
  log "replay in real time (about 10 s)"
  timed "$vista" replay "$sample" --loops "$loops_rt" -q --profile "$work/rt.json" >/dev/null 2>&1
  cp "$work/time.txt" "$work/rt.time"
  log "wake-up floor"
  cc -O2 -o "$work/wake_floor" benches/wake_floor.c
  "$work/wake_floor" 1000000 5 >"$work/wake.txt"
  python3 - "$work" "$sample" "$loops_asap" "$loops_rt" >"$work/sections/replay.md" <<'PY'
import json, re, sys
work, sample, la, lr = sys.argv[1:5]
def cpu_wall(name):
    u, s, w = (float(x) for x in open(f"{work}/{name}.time").read().split())
    return u + s, w
asap, rt = json.load(open(f"{work}/asap.json")), json.load(open(f"{work}/rt.json"))
a_cpu, _ = cpu_wall("asap")
r_cpu, _ = cpu_wall("rt")
print("## Replay: speed, pacing and ingest CPU\n")
print("The real Aria Gen1 sample (every stream, images not decoded), replayed as fast as possible and")
print("in real time. The `--asap` speed by CPU time is device time over the process's CPU time (user +")
print("sys, `/usr/bin/time`); pacing error is delivered-at minus due-at.\n")
print("```sh")
print(f"vista replay {sample} --asap --loops {la} -q --profile P")
print(f"vista replay {sample} --loops {lr} -q --profile P")
print("cc -O2 -o wake_floor benches/wake_floor.c && ./wake_floor 1000000 5")
print("```\n")
print("| measure | value | target |")
print("|---|---|---|")
print(f"| `--asap`, device time over wall time | {asap['speed_factor']:.0f}× ({asap['device_time_s']:.1f} s in "
      f"{asap['wall_time_s']:.2f} s) | ≥ 100× |")
print(f"| `--asap`, device time over process CPU | {asap['device_time_s'] / a_cpu:.0f}× ({a_cpu:.2f} s CPU) | |")
for name in ("imu-right", "imu-left"):
    st = rt["streams"].get(name)
    if st:
        p = st["pacing_us"]
        print(f"| real time, {name} pacing p50 / p99 / max | {p['p50']:.0f} µs / {p['p99']:.0f} µs / "
              f"{p['max'] / 1e3:.1f} ms | p99 ≤ 1 ms, max ≤ 5 ms |")
wall = rt["wall_time_s"]
print(f"| real time, ingest thread CPU | {100 * rt['ingest_cpu_s'] / wall:.2f} % of a core "
      f"({rt['ingest_sleeps'] / wall:.0f} sleeps/s) | ≤ 2 % |")
print(f"| real time, whole process CPU | {100 * r_cpu / wall:.2f} % of a core | |")
m = re.search(r"CPU ([\d.]+) s = ([\d.]+) % of a core, ([\d.]+) us per wake-up; late mean (\d+) us, max (\d+) us",
              open(f"{work}/wake.txt").read())
if m:
    print(f"| `wake_floor`: 1,000 timed sleeps/s, nothing else | {m.group(2)} % of a core; late by {m.group(4)} µs "
          f"mean, {int(m.group(5)) / 1e3:.1f} ms max | |")
PY
}

# --- the language model --------------------------------------------------------------------
section_lm() {
  for t in 1 2; do
    log "vista bench lm --threads $t"
    "$vista" bench lm --threads "$t" --repeats 3 --json >"$work/lm-$t.json" 2>"$work/lm-$t.log" || log "bench lm failed"
  done
  log "vista bench lm --bundle models/vlm-tiny --image-only"
  "$vista" bench lm --bundle models/vlm-tiny --image-only --threads 1 --repeats 3 --json >"$work/vlm.json" 2>"$work/vlm.log" ||
    log "image bench failed"
  python3 - "$work" >"$work/sections/lm.md" <<'PY'
import json, os, sys
work = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(work, name)))
    except (OSError, ValueError):
        return None
reports = {t: ((load(f"lm-{t}.json") or {}).get("reports") or [None])[0] for t in (1, 2)}
model = next((os.path.basename(r["model"]) for r in reports.values() if r), "the default model")
print("## The language model\n")
print(f"`{model}` through llama.cpp, flash attention off as the assistant runs it,")
print("in the assistant's context window; medians over the repeats. The first token \"system turn reused\"")
print("is a question after a system turn already in the KV cache, as the assistant's prefill leaves it.\n")
print("```sh")
print("vista bench lm --threads T --repeats 3 --json")
print("vista bench lm --bundle models/vlm-tiny --image-only --threads 1 --repeats 3 --json")
print("```\n")
print("| threads | prompt | generation | first token, cold | first token, system turn reused | target (reused) |")
print("|---|---|---|---|---|---|")
missing = []
for t, r in reports.items():
    if not r:
        missing.append(f"{t} thread(s)")
        continue
    print(f"| {t} | {r['prompt_tok_per_s']:.0f} tokens/s ({r['prompt_tokens']}) | {r['gen_tok_per_s']:.1f} tokens/s "
          f"({r['gen_tokens']}) | {r['ttft_cold_ms']:.0f} ms ({r['system_tokens']} + {r['question_tokens']} tokens) | "
          f"{r['ttft_prefix_ms']:.1f} ms ({r['question_tokens']} tokens) | ≤ 150 ms |")
print("\nTwo threads need two free cores: on a loaded machine they wait for each other (see the load")
print("average in the header).")
im = (load("vlm.json") or {}).get("image")
if im:
    w, h = im["frame"]
    print("\nImages through `models/vlm-tiny` (a tiny random projector: the cost of the plumbing and of")
    print("mtmd's preprocessing, not of a real vision encoder):\n")
    print("| frame | encode, new frame | cache hit | first token over one image, cold | system turn reused |")
    print("|---|---|---|---|---|")
    print(f"| {w}×{h} | {im['encode_ms']:.1f} ms | {im['cached_us']:.0f} µs | {im['ttft_cold_ms']:.0f} ms | "
          f"{im['ttft_ms']:.0f} ms ({im['prompt_positions']} positions) |")
else:
    missing.append("images")
if missing:
    print("\nNo result for: " + ", ".join(missing) + " (no model in the cache? run `models/fetch`).")
PY
}

# --- the assistant on the README's session -------------------------------------------------
section_assistant() {
  log "vista synth find_exit + vista profile (real time, ~35 s)"
  "$vista" synth find_exit --out "$work/find_exit" >"$work/synth-find_exit.log" 2>&1
  "$vista" profile "$work/find_exit" --out "$work/run" >"$work/profile.log" 2>&1 || true
  python3 - "$work/run/profile.json" >"$work/sections/assistant.md" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
u, cpu, sc = p["utterances"], p["cpu"], p.get("score", {})
def ms(us):
    return f"{us / 1e3:.1f} ms" if us < 1e6 else f"{us / 1e6:.2f} s"
def dist(h):
    return f"{ms(h['p50'])} / {ms(h['p99'])} / {ms(h['max'])} ({h['count']})"
print("## The assistant on a synthetic session\n")
print("The README's first command: the 34 s `find_exit` session, the whole assistant in real time (templates")
print("and SmolLM2, PP-OCR, stereo depth, vehicle motion, speech into a WAV file), offline mode (with MPS).")
print("Latencies are host wall time from the evidence's capture on the glasses' clock.\n")
print("```sh")
print("vista synth find_exit --out DIR && vista profile DIR --out RUN")
print("```\n")
print("| measure | p50 / p99 / max (count) | target |")
print("|---|---|---|")
print(f"| hazard evidence → first alert audio | {dist(u['hazard_alert_from_evidence_us'])} | p99 ≤ 150 ms |")
print(f"| hazard in range → first alert audio | {dist(u['hazard_alert_from_in_range_us'])} | |")
for kind, k in sorted(u["kinds"].items()):
    st = k["stages_us"].get("capture_to_first_audio")
    if st:
        print(f"| {kind}: state captured → first audio | {dist(st)} | |")
tr = p["assistant"].get("text_reads") or {}
if tr.get("read_us"):
    print(f"| text read around the gaze (PP-OCRv4) | {dist(tr['read_us'])} | |")
if tr.get("whole_read_us") and tr["whole_read_us"]["count"]:
    print(f"| text read of the whole frame | {dist(tr['whole_read_us'])} | |")
reqs = sc.get("requests") or []
if reqs:
    print("\n| request | at (session time) | → first audio (target p50 ≤ 400 ms) |")
    print("|---|---|---|")
    for r in reqs:
        resp = f"{r['response_ms']:.0f} ms" if r.get("response_ms") is not None else "not answered"
        t0 = (sc.get("clock") or {}).get("origin_device_ns", 0)
        print(f"| \"{r['text']}\" | {(r['t_ns'] - t0) / 1e9:.1f} s | {resp} |")
print("\nCPU per stage (thread CPU time over the run's wall time):\n")
print("| stage | CPU | share of a core |")
print("|---|---|---|")
for st in cpu["stages"]:
    print(f"| {st['stage']} | {st['cpu_s']:.2f} s | {st['share_of_core']:.3f} |")
print(f"| whole process | {cpu['process_cpu_s']:.2f} s over {cpu['wall_s']:.1f} s | {cpu['cores_used']:.3f} |")
print(f"\nPeak resident memory: {cpu['peak_rss_mib']:.0f} MiB.")
s = sc.get("summary")
if s:
    print(f"This run's score: {s['hazards_caught']} of {s['hazards_relevant']} hazards caught, "
          f"{s['false_alerts']} false alert(s),")
    print(f"{s['facts_present']} of {s['facts_required']} required facts; accuracy on every scenario, in lock step,")
    print("is in [accuracy.md](accuracy.md).")
PY
}

# --- synthetic session generation ----------------------------------------------------------
section_synth() {
  log "vista synth mixed_walk --duration 60 --threads 2"
  timed "$vista" synth mixed_walk --duration 60 --threads 2 --out "$work/t60" >"$work/synth60.log" 2>&1
  cp "$work/time.txt" "$work/synth60.time"
  python3 - "$work" "$cores" >"$work/sections/synth.md" <<'PY'
import sys
work, cores = sys.argv[1], sys.argv[2]
u, s, w = (float(x) for x in open(f"{work}/synth60.time").read().split())
print("## Writing a synthetic session\n")
print("A 60 s `mixed_walk` session (every stream, RGB at the scenario's rate), two worker threads:\n")
print("```sh")
print("/usr/bin/time vista synth mixed_walk --duration 60 --threads 2 --out DIR")
print("```\n")
print("| wall | CPU (user + sys) | target |")
print("|---|---|---|")
print(f"| {w:.1f} s | {u + s:.1f} s | < 60 s wall |")
PY
}

for s in "${sections[@]}"; do "section_$s"; done

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
minutes=$((($(date +%s) - t_start + 59) / 60))
{
  echo "# Performance"
  echo
  echo "Generated by \`$(echo "scripts/perf_tables.sh $*" | sed 's/ *$//')\` on $date_utc at commit \`$commit\`, in $minutes min."
  echo "Every figure below comes from that run; each table names the command that measured it."
  echo
  echo "| machine | |"
  echo "|---|---|"
  echo "| CPU | $cpu, $cores cores (\`nproc\`) |"
  echo "| load average at the start (1, 5, 15 min) | $load_start |"
  echo "| load average at the end | $load_end |"
  echo
  echo "Wall-clock figures grow with the load; CPU times, instruction counts and ratios measured in one"
  echo "run depend on it much less. Accuracy is in [accuracy.md](accuracy.md)."
  for s in "${sections[@]}"; do
    if [ -s "$work/sections/$s.md" ]; then
      echo
      cat "$work/sections/$s.md"
    fi
  done
  echo
  echo "## Other measurements"
  echo
  echo "Longer checks that this script does not run:"
  echo
  echo '- `benches/llama_bench.sh`: vista against llama.cpp'"'"'s own `llama-bench` on the same GGUF (it builds'
  echo '  `llama-bench` first).'
  echo '- `scripts/soak.sh [SECONDS]`: the assistant for five minutes in real time; fails if memory grows or a'
  echo '  buffer goes over its capacity.'
  echo '- `VISTA_FUSION_BENCH_DIR=DIR cargo bench --bench fusion`: the paper-size fusion network, exported with'
  echo '  `models/export/export.py --preset paper` (needs PyTorch).'
  echo '- `OUT_MD=docs/accuracy.md scripts/score_all.sh`: accuracy on every scenario.'
} >"$work/performance.md"
if [ "$out_md" = - ]; then cat "$work/performance.md"; else cp "$work/performance.md" "$out_md"; log "wrote $out_md"; fi
