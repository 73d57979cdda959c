#!/usr/bin/env bash
# Accuracy on every synthetic scenario, live mode first: for each scenario of
# `vista synth --list` it writes the session once, runs the assistant on it in lock step in
# both modes and scores each run with the strict scorer (docs/truth.md):
#
#   vista synth S --out DIR/S                                  (mixed_walk: --duration 90)
#   vista replay DIR/S --asap --speak DIR/S-live --recorded-only   (live: no MPS)
#   vista replay DIR/S --asap --speak DIR/S-offline                (offline: with MPS)
#   vista score DIR/S DIR/S-MODE --json > DIR/S-MODE.json
#
# and prints one Markdown table per mode (live first): hazard recall (caught / relevant),
# false alerts per minute (count), alerts of the wrong kind, alert lead time (median /
# least), required facts present, requests passed, unsafe speech (utterances judged by
# meaning + the truth's unsafe phrases), then one table per mode of what the wearer heard
# (`vista score`'s listening metrics: speech duty cycle over the session and while walking,
# the longest silence while walking, clauses cut / heard + dropped, words lost, answers heard
# whole, the answer span's median, alerts repeated about one thing, alerts cut by another and
# how long an alert heard whole lasts). Lock-step replay is deterministic, so the tables do
# not depend on the machine's load.
#
#   scripts/score_all.sh [SCENARIO...]     # default: every scenario
#
# Environment: VISTA (binary, default target/release/vista), DIR (default /tmp/acc),
# MODES (default "live offline"), REUSE=1 (keep sessions already written in DIR: only
# replay and score), RESCORE=1 (keep the runs too: only score them again, e.g. after a
# change to the scorer), SCORER (binary that scores, default VISTA), DETAIL=1 (also list every hazard not caught, every false or wrong-kind
# alert, every unsafe utterance and every missing fact), SYNTH_ARGS (extra `vista synth`
# options), REPLAY_ARGS (extra `vista replay` options, e.g. "--no-lm" for hazards alone),
# TAG (suffix of the run folders: runs with different REPLAY_ARGS side by side),
# OUT_MD (also write the tables, with the command, commit and date, to this file, e.g.
# docs/accuracy.md), TITLE (its heading), REV (the commit the binary was built from, default
# HEAD). Aria Gen2 sessions: SYNTH_ARGS="--device gen2" (docs/accuracy-gen2.md).
set -euo pipefail
cd "$(dirname "$0")/.."

vista=${VISTA:-target/release/vista}
scorer=${SCORER:-$vista}
dir=${DIR:-/tmp/acc}
tag=${TAG:-}
read -r -a modes <<<"${MODES:-live offline}"
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

declare -A rows heard
detail=()
for s in "${scenarios[@]}"; do
  extra=()
  [ "$s" = mixed_walk ] && extra=(--duration 90)
  if [ "${RESCORE:-0}" != 1 ] && { [ "${REUSE:-0}" != 1 ] || [ ! -f "$dir/$s/ground_truth.json" ]; }; then
    rm -rf "${dir:?}/$s"
    # shellcheck disable=SC2086
    "$vista" synth "$s" --out "$dir/$s" "${extra[@]}" ${SYNTH_ARGS:-} >"$dir/$s-synth.log" 2>&1
  fi
  for m in "${modes[@]}"; do
    case "$m" in
      live) mode_args=(--recorded-only) ;;
      offline) mode_args=() ;;
      *) echo "score_all: unknown mode $m (live, offline)" >&2; exit 2 ;;
    esac
    out="$dir/$s-$m$tag"
    if [ "${RESCORE:-0}" != 1 ]; then
      rm -rf "${out:?}"
      # shellcheck disable=SC2086
      RUST_LOG=${RUST_LOG:-warn} "$vista" replay "$dir/$s" --asap --speak "$out" "${mode_args[@]}" \
        ${REPLAY_ARGS:-} -q >"$out.replay.log" 2>&1
    fi
    "$scorer" score "$dir/$s" "$out" --json >"$out.json" 2>"$out.score.log"
    rows[$m]+="$(jq -r --arg s "$s" '
      def pct: if . == null then "n/a" else ((. * 100 | round | tostring) + " %") end;
      def sec: if . == null then "–" else ((. / 100 | round) / 10 | tostring) + " s" end;
      .score.summary as $m
      | "| \($s) | \($m.recall | pct) (\($m.hazards_caught)/\($m.hazards_relevant)) | \(($m.false_alerts_per_min // 0) * 10 | round / 10) (\($m.false_alerts)) | \($m.wrong_kind_alerts) | \($m.lead_time_p50_ms | sec) / \($m.lead_time_min_ms | sec) | \($m.facts_present)/\($m.facts_required) | \($m.requests_passed)/\($m.requests) | \($m.unsafe_utterances) + \($m.unsafe_spoken) |"
    ' "$out.json")"$'\n'
    heard[$m]+="$(jq -r --arg s "$s" '
      def pct: if . == null then "–" else ((. * 100 | round | tostring) + " %") end;
      def sec: if . == null then "–" else ((. * 10 | round) / 10 | tostring) + " s" end;
      def ms: if . == null then "–" else ((. / 100 | round) / 10 | tostring) + " s" end;
      .score.listening as $l
      | "| \($s) | \($l.duty_cycle | pct) / \($l.duty_cycle_walking | pct) | \($l.longest_silence_walking_s | sec) | \($l.clauses_cut)/\($l.clauses_heard) + \($l.clauses_dropped) | \($l.words_lost) | \($l.answers_whole)/\($l.answers) | \($l.answer_span_p50_ms | ms) | \($l.alert_repeats) | \($l.alerts_cut)/\($l.alerts_heard) | \($l.alert_audio_p50_ms | ms) / \($l.alert_audio_max_ms | ms) |"
    ' "$out.json")"$'\n'
    if [ "${DETAIL:-0}" = 1 ]; then
      t0=$(jq '.t0_ns' "$dir/$s/ground_truth.json")
      detail+=("$(jq -r --arg s "$s $m" --argjson t0 "$t0" '
        def t: if . == null then "–" else (((. - $t0) / 1e7 | round) / 100 | tostring) + " s" end;
        (.score.hazards[] | select(.outcome != "caught" and .outcome != "not_relevant")
          | "\($s): \(.outcome) \(.kind) \"\(.label)\", window \(.relevant_from_ns | t) – \(.latest_alert_ns | t), first audio \(.first_audio_ns | t)"),
        (.score.alerts[] | select(.false_alert) | "\($s): false alert \"\(.text)\" at \(.first_audio_ns | t)"),
        (.score.alerts[] | select(.wrong_kind) | "\($s): wrong-kind alert \"\(.text)\" at \(.first_audio_ns | t)"),
        (.score.unsafe_utterances[] | "\($s): UNSAFE \"\(.sentence)\" (\(.claim)) at \(.at_ns | t) with \(.hazard_kind) \"\(.hazard_label)\""),
        (.score.requests[] as $r | $r.facts[] | select(.present | not)
          | "\($s) #\($r.index) \"\($r.text)\": missing \"\(.fact)\"; heard: \"\($r.answer)\"")
      ' "$out.json")")
    fi
  done
done

tables() {
  for m in "${modes[@]}"; do
    case "$m" in
      live) echo "### Live mode (what the glasses stream, no MPS)" ;;
      offline) echo "### Offline mode (with MPS)" ;;
    esac
    echo
    echo "| scenario | hazard recall | false alerts / min | wrong kind | lead time p50 / min | facts | passed | unsafe |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s' "${rows[$m]}"
    echo
  done
  for m in "${modes[@]}"; do
    case "$m" in
      live) echo "### What the wearer heard, live mode" ;;
      offline) echo "### What the wearer heard, offline mode" ;;
    esac
    echo
    echo "| scenario | speech duty (session / walking) | longest walking silence | clauses cut / heard + dropped | words lost | answers whole | answer span p50 | alert repeats | alerts cut / heard | alert length p50 / max |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s' "${heard[$m]}"
    echo
  done
}

tables
if [ "${DETAIL:-0}" = 1 ]; then
  printf '%s\n' "${detail[@]}" | sed '/^$/d'
fi
if [ -n "${OUT_MD:-}" ]; then
  {
    echo "# ${TITLE:-Accuracy on the synthetic scenarios}"
    echo
    echo "Generated by \`scripts/score_all.sh\` on $(date -u +%Y-%m-%d) at commit"
    echo "\`$(git rev-parse --short "${REV:-HEAD}" 2>/dev/null || echo unknown)\`, lock step (deterministic), with the"
    echo "strict scorer of [truth.md](truth.md). Replay options: \`${REPLAY_ARGS:-(none)}\`."
    [ -n "${SYNTH_ARGS:-}" ] && echo "Sessions written with \`vista synth ... ${SYNTH_ARGS}\`."
    echo "\"unsafe\" is utterances judged by meaning + the ground truth's unsafe phrases."
    echo
    echo '```sh'
    env_words=()
    [ -n "${MODES:-}" ] && env_words+=("MODES=\"${MODES}\"")
    [ -n "${SYNTH_ARGS:-}" ] && env_words+=("SYNTH_ARGS=\"${SYNTH_ARGS}\"")
    [ -n "${REPLAY_ARGS:-}" ] && env_words+=("REPLAY_ARGS=\"${REPLAY_ARGS}\"")
    [ -n "${TITLE:-}" ] && env_words+=("TITLE=\"${TITLE}\"")
    echo "${env_words[*]:+${env_words[*]} }OUT_MD=${OUT_MD} scripts/score_all.sh"
    echo '```'
    echo
    tables
  } >"$OUT_MD"
  echo "score_all: wrote $OUT_MD"
fi
