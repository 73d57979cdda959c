#!/usr/bin/env bash
# Hazard accuracy on every synthetic scenario (issue 8): for each scenario of
# `vista synth --list` it writes the session, runs the assistant on it in lock step and
# scores the run against the session's ground truth:
#
#   vista synth S --out DIR/S                     (mixed_walk: --duration 90)
#   vista replay DIR/S --asap --speak DIR/S-out --no-ocr --no-lm
#   vista score DIR/S DIR/S-out --json > DIR/S-score.json
#
# and prints one Markdown table: hazard recall (caught / relevant), false alerts per
# minute (count) and alert lead time (median / least) per scenario. Lock-step replay is
# deterministic, so the table does not depend on the machine's load.
#
#   scripts/score_all.sh [SCENARIO...]     # default: every scenario
#
# Environment: VISTA (binary, default target/release/vista), DIR (default /tmp/acc),
# REUSE=1 (keep sessions already written in DIR: only replay and score), DETAIL=1 (also
# list every hazard not caught and every false alert), SYNTH_ARGS (extra `vista synth`
# options, e.g. "--rgb-fps 0": the run uses no OCR, so RGB frames change nothing scored
# here but the time to write them), REPLAY_ARGS (extra `vista replay` options, e.g.
# "--no-depth" for the table without stereo depth), TAG (suffix of the run's files,
# DIR/S-outTAG, DIR/S-scoreTAG.json, …: runs with different REPLAY_ARGS side by side).
set -euo pipefail
cd "$(dirname "$0")/.."

vista=${VISTA:-target/release/vista}
dir=${DIR:-/tmp/acc}
tag=${TAG:-}
mkdir -p "$dir"
if [ ! -x "$vista" ]; then
  echo "score_all: no binary at $vista (set VISTA=...)" >&2
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
    # shellcheck disable=SC2086
    "$vista" synth "$s" --out "$dir/$s" "${extra[@]}" ${SYNTH_ARGS:-} >"$dir/$s-synth.log" 2>&1
  fi
  rm -rf "${dir:?}/$s-out$tag"
  # shellcheck disable=SC2086
  RUST_LOG=${RUST_LOG:-warn} "$vista" replay "$dir/$s" --asap --speak "$dir/$s-out$tag" --no-ocr --no-lm \
    ${REPLAY_ARGS:-} -q >"$dir/$s-replay$tag.log" 2>&1
  "$vista" score "$dir/$s" "$dir/$s-out$tag" --json >"$dir/$s-score$tag.json" 2>"$dir/$s-score$tag.log"
  rows+=("$(jq -r --arg s "$s" '
    def pct: if . == null then "n/a" else ((. * 100 | round | tostring) + " %") end;
    def sec: if . == null then "–" else ((. / 100 | round) / 10 | tostring) + " s" end;
    .score.summary as $m
    | "| \($s) | \($m.recall | pct) (\($m.hazards_caught)/\($m.hazards_relevant)) | \(($m.false_alerts_per_min // 0) * 10 | round / 10) (\($m.false_alerts)) | \($m.lead_time_p50_ms | sec) / \($m.lead_time_min_ms | sec) |"
  ' "$dir/$s-score$tag.json")")
  if [ "${DETAIL:-0}" = 1 ]; then
    t0=$(jq '.t0_ns' "$dir/$s/ground_truth.json")
    detail+=("$(jq -r --arg s "$s" --argjson t0 "$t0" '
      def t: if . == null then "–" else (((. - $t0) / 1e7 | round) / 100 | tostring) + " s" end;
      (.score.hazards[] | select(.outcome != "caught" and .outcome != "not_relevant")
        | "\($s): \(.outcome) \(.kind) \"\(.label)\", window \(.relevant_from_ns | t) – \(.latest_alert_ns | t), first audio \(.first_audio_ns | t)"),
      (.score.alerts[] | select(.false_alert) | "\($s): false alert \"\(.text)\" at \(.first_audio_ns | t)")
    ' "$dir/$s-score$tag.json")")
  fi
done

echo "| scenario | hazard recall | false alerts / min | alert lead time p50 / min |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if [ "${DETAIL:-0}" = 1 ]; then
  echo
  printf '%s\n' "${detail[@]}" | sed '/^$/d'
fi
