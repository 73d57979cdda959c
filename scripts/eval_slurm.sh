#!/usr/bin/env bash
# `vista eval` on a Slurm cluster: one array task per shard, then a merge that waits for them.
#
#   scripts/eval_slurm.sh SUITE OUT SHARDS [vista eval options...] [-- replay options]
#
# e.g. scripts/eval_slurm.sh suites/all.txt /shared/eval 8 --seeds 10 -- --no-lm
#
# Task I of `sbatch --array=1-SHARDS` runs `vista eval SUITE --shard I/SHARDS --out
# OUT/shard-I` (one session at a time: give each task the cores a replay wants with
# SBATCH_CPUS, default 2); a second job, held until every task has ended (afterany: a failed
# shard still leaves its finished cells), runs `vista eval --merge OUT/shard-* --out
# OUT/merged`, which refuses a set of shards that does not cover the suite. Resubmitting
# after a failure redoes only what is not finished. OUT must be on a filesystem every node
# sees, and every node needs the same clone, models (models/fetch) and binary.
#
# Environment: VISTA (binary, default target/release/vista), SBATCH_CPUS (default 2),
# SBATCH_TIME (per task, default 04:00:00), SBATCH_EXTRA (more sbatch options, e.g. a
# partition).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
suite=$1 out=$2 shards=$3
shift 3
case "$shards" in '' | *[!0-9]* | 0) echo "eval_slurm: SHARDS must be a positive number" >&2; exit 2 ;; esac
vista=$(realpath "${VISTA:-target/release/vista}")
[ -x "$vista" ] || { echo "eval_slurm: no binary at $vista (set VISTA=...)" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "eval_slurm: sbatch not found (Debian: slurm-client)" >&2; exit 2; }
mkdir -p "$out/slurm"
out=$(realpath "$out")
suite=$(realpath "$suite")
# Quote every option for the job scripts.
opts=$(printf ' %q' "$@")
# shellcheck disable=SC2086
array=$(sbatch --parsable --job-name=vista-eval --array="1-$shards" \
  --cpus-per-task="${SBATCH_CPUS:-2}" --time="${SBATCH_TIME:-04:00:00}" ${SBATCH_EXTRA:-} \
  --output="$out/slurm/shard-%a.log" --chdir="$PWD" \
  --wrap="exec $(printf '%q' "$vista") eval $(printf '%q' "$suite") --jobs 1 --shard \${SLURM_ARRAY_TASK_ID}/$shards --out $(printf '%q' "$out")/shard-\${SLURM_ARRAY_TASK_ID}$opts")
# shellcheck disable=SC2086
merge=$(sbatch --parsable --job-name=vista-eval-merge --dependency="afterany:$array" \
  --time=00:30:00 ${SBATCH_EXTRA:-} --output="$out/slurm/merge.log" --chdir="$PWD" \
  --wrap="exec $(printf '%q' "$vista") eval --merge $(printf '%q' "$out")/shard-* --out $(printf '%q' "$out")/merged")
echo "submitted shards as job $array (array 1-$shards) and the merge as job $merge"
echo "report, once merged: $out/merged/report.md"
