#!/usr/bin/env bash
# Checks that a change changes no output: runs two builds of vista on every synthetic
# scenario in lock step (deterministic), live mode (`--recorded-only`) and offline, and
# compares what they said and decided byte for byte:
#
#   vista synth S --out DIR/S                                    (once, with OLD)
#   OLD|NEW replay DIR/S --asap -q --speak DIR/S-MODE-old|new [--recorded-only]
#   cmp transcript.jsonl, cmp decisions.jsonl
#
#   scripts/same_outputs.sh OLD_VISTA NEW_VISTA [SCENARIO...]   # default: every scenario
#
# Environment: DIR (default /tmp/same), MODES (default "live offline"), JOBS (runs at once,
# default 2), REPLAY_ARGS (extra `vista replay` options). Prints one line per scenario and
# mode and exits 1 when any output differs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_VISTA NEW_VISTA [SCENARIO...]" >&2
  exit 2
fi
old=$1 new=$2
shift 2
dir=${DIR:-/tmp/same}
jobs=${JOBS:-2}
read -r -a modes <<<"${MODES:-live offline}"
mkdir -p "$dir"
if [ $# -gt 0 ]; then
  scenarios=("$@")
else
  mapfile -t scenarios < <("$old" synth --list | awk '{print $1}')
fi

runs=()
for s in "${scenarios[@]}"; do
  if [ ! -f "$dir/$s/ground_truth.json" ]; then
    extra=()
    [ "$s" = mixed_walk ] && extra=(--duration 90)
    "$old" synth "$s" --out "$dir/$s" "${extra[@]}" >"$dir/$s-synth.log" 2>&1
  fi
  for m in "${modes[@]}"; do
    for b in old new; do
      runs+=("$s $m $b")
    done
  done
done

one() {
  local s=$1 m=$2 b=$3 bin args=()
  bin=$old
  [ "$b" = new ] && bin=$new
  [ "$m" = live ] && args=(--recorded-only)
  rm -rf "${dir:?}/$s-$m-$b"
  # shellcheck disable=SC2086
  "$bin" replay "$dir/$s" --asap -q --speak "$dir/$s-$m-$b" "${args[@]}" ${REPLAY_ARGS:-} \
    >"$dir/$s-$m-$b.log" 2>&1 || echo "run failed: $s $m $b (see $dir/$s-$m-$b.log)" >&2
}
export -f one
export old new dir REPLAY_ARGS
printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -L 1 bash -c 'one $0 $1 $2'

status=0
printf '%-22s %-8s %-12s %-12s\n' scenario mode transcript decisions
for s in "${scenarios[@]}"; do
  for m in "${modes[@]}"; do
    line=()
    for f in transcript.jsonl decisions.jsonl; do
      if cmp -s "$dir/$s-$m-old/$f" "$dir/$s-$m-new/$f"; then
        line+=(same)
      else
        line+=(DIFFERENT)
        status=1
      fi
    done
    printf '%-22s %-8s %-12s %-12s\n' "$s" "$m" "${line[0]}" "${line[1]}"
  done
done
exit $status
