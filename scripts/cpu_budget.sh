#!/usr/bin/env bash
# CPU budget check of one run (issue 27): reads the `cpu` object of RUN_DIR/profile.json
# (written by `vista profile` and `vista replay --speak`), prints the CPU per stage and
# says whether the whole process stayed within MAX_CORES (process CPU time over its wall
# time; default 0.5 of a core).
#
#   scripts/cpu_budget.sh RUN_DIR [MAX_CORES]
#
# Exit status: 0 within the budget, 1 over it, 2 on bad input (no profile.json, no cpu
# object, MAX_CORES not a positive number). Needs jq.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 RUN_DIR [MAX_CORES]" >&2
  exit 2
fi
run=$1
max=${2:-0.5}
profile="$run/profile.json"
if [ ! -f "$profile" ]; then
  echo "$0: $profile: no such file" >&2
  exit 2
fi
if ! jq -e -n --arg m "$max" '($m | tonumber) > 0' >/dev/null 2>&1; then
  echo "$0: MAX_CORES must be a positive number (got '$max')" >&2
  exit 2
fi
if ! jq -e '.cpu.process_cpu_s | numbers' "$profile" >/dev/null; then
  echo "$0: $profile: no cpu object (a run from before CPU accounting?)" >&2
  exit 2
fi

jq -r '
  .cpu as $c
  | "CPU per stage over \($c.wall_s * 1000 | round / 1000) s of wall time",
    ( ["stage", "cpu_s", "cores", "threads"] | @tsv ),
    ( $c.stages[] | [.stage, (.cpu_s * 1000 | round / 1000),
                     (.share_of_core * 1000 | round / 1000), .threads] | @tsv ),
    ( ["unattributed", ($c.unattributed_cpu_s * 1000 | round / 1000),
       (if $c.wall_s > 0 then $c.unattributed_cpu_s / $c.wall_s * 1000 | round / 1000
        else 0 end), ""] | @tsv ),
    ( ["process", ($c.process_cpu_s * 1000 | round / 1000),
       ($c.cores_used * 1000 | round / 1000), ""] | @tsv ),
    "peak RSS \($c.peak_rss_mib | round) MiB"
' "$profile" | awk -F'\t' 'NF < 2 { print; next } { printf "  %-20s %10s %8s %8s\n", $1, $2, $3, $4 }'

if jq -e --argjson m "$max" '.cpu.cores_used <= $m' "$profile" >/dev/null; then
  echo "within budget: $(jq '.cpu.cores_used * 1000 | round / 1000' "$profile") <= $max cores"
  exit 0
else
  echo "over budget: $(jq '.cpu.cores_used * 1000 | round / 1000' "$profile") > $max cores"
  exit 1
fi
