#!/usr/bin/env bash
# Required facts in answers on every synthetic scenario with requests (issue 8): for each
# scenario of `vista synth --list` it writes the session, runs the default assistant on it
# in lock step (templates, grounded composer and SmolLM2; OCR on) and scores the run:
#
#   vista synth S --out DIR/S                     (mixed_walk: --duration 90)
#   vista replay DIR/S --asap --speak DIR/S-out
#   vista score DIR/S DIR/S-out --json > DIR/S-score.json
#
# and prints one Markdown table: facts present / required, requests answered and passed,
# unsafe instructions spoken; with DETAIL=1 also every missing fact with the answer that
# was heard (an answer cut by an alert is scored on what was heard of it).
#
#   scripts/facts_all.sh [SCENARIO...]     # default: every scenario
#
# Environment: VISTA (binary, default target/release/vista), DIR (default /tmp/facts),
# REUSE=1 (keep sessions already written in DIR), TAG (suffix of the run's files),
# REPLAY_ARGS (extra `vista replay` options, e.g. "--no-lm").
set -euo pipefail
cd "$(dirname "$0")/.."

vista=${VISTA:-target/release/vista}
dir=${DIR:-/tmp/facts}
tag=${TAG:-}
mkdir -p "$dir"
if [ ! -x "$vista" ]; then
  echo "facts_all: no binary at $vista (set VISTA=...)" >&2
  exit 2
fi

if [ $# -gt 0 ]; then
  scenarios=("$@")
else
  mapfile -t scenarios < <("$vista" synth --list | awk '{print $1}')
fi

rows=()
detail=()
for s in "${scenarios[@]}"; do
  extra=()
  [ "$s" = mixed_walk ] && extra=(--duration 90)
  if [ "${REUSE:-0}" != 1 ] || [ ! -f "$dir/$s/ground_truth.json" ]; then
    rm -rf "${dir:?}/$s"
    "$vista" synth "$s" --out "$dir/$s" "${extra[@]}" >"$dir/$s-synth.log" 2>&1
  fi
  rm -rf "${dir:?}/$s-out$tag"
  # shellcheck disable=SC2086
  RUST_LOG=${RUST_LOG:-warn} "$vista" replay "$dir/$s" --asap --speak "$dir/$s-out$tag" \
    ${REPLAY_ARGS:-} -q >"$dir/$s-replay$tag.log" 2>&1
  "$vista" score "$dir/$s" "$dir/$s-out$tag" --json >"$dir/$s-score$tag.json" 2>"$dir/$s-score$tag.log"
  rows+=("$(jq -r --arg s "$s" '
    .score.summary as $m
    | "| \($s) | \($m.facts_present)/\($m.facts_required) | \($m.requests_answered)/\($m.requests) | \($m.requests_passed) | \($m.unsafe_spoken) |"
  ' "$dir/$s-score$tag.json")")
  if [ "${DETAIL:-0}" = 1 ]; then
    detail+=("$(jq -r --arg s "$s" '
      .score.requests[] as $r
      | $r.facts[] | select(.present | not)
      | "\($s) #\($r.index) \"\($r.text)\": missing \"\(.fact)\"; heard: \"\($r.answer)\""
    ' "$dir/$s-score$tag.json")")
  fi
done

echo "| scenario | facts present | answered | passed | unsafe spoken |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if [ "${DETAIL:-0}" = 1 ]; then
  echo
  printf '%s\n' "${detail[@]}" | sed '/^$/d'
fi
