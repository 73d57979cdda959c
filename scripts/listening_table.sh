#!/usr/bin/env bash
# Writes docs/listening.md: how well vista hears spoken requests. Each request of
# tests/data/spoken/requests.tsv is said by the Piper voice (clean, and in room noise 20 dB and
# 10 dB below the speech) and by eSpeak NG, heard through the voice detector and the
# recogniser as a stream, and scored as word error rate; said after the wake phrase and
# without it (taken as requests, false wakes); plus the real speech clip of the
# moonshine-cpp package; and whole runs in real time (four synthetic sessions whose wearer
# speaks, profiled with --voice-requests): end of speech to the answer's first audio. The
# command, commit and date are written with the tables.
#
#   scripts/listening_table.sh
#
# Environment: VISTA (binary, default $CARGO_TARGET_DIR/release/vista, built if missing),
# OUT_MD (default docs/listening.md; "-" prints to standard output).
set -euo pipefail
cd "$(dirname "$0")/.."
tgt=${CARGO_TARGET_DIR:-target}
export CARGO_TARGET_DIR=$tgt
vista=${VISTA:-$tgt/release/vista}
if [ ! -x "$vista" ]; then
  cargo build --release --bin vista
fi
out_md=${OUT_MD:-docs/listening.md}
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- src Cargo.toml Cargo.lock || commit="$commit (with local changes)"
req=tests/data/spoken/requests.tsv
clip=$("$vista" listen "$(models/fetch --print-dir)/moonshine/beckett.wav" 2>/dev/null)
piper=$("$vista" listen --spoken $req 2>/dev/null)
piper20=$("$vista" listen --spoken $req --snr-db 20 2>/dev/null)
piper10=$("$vista" listen --spoken $req --snr-db 10 2>/dev/null)
espeak=$("$vista" listen --spoken $req --voice espeak 2>/dev/null)
wake=$("$vista" listen --spoken $req --wake "hey vista" 2>/dev/null)
wake20=$("$vista" listen --spoken $req --wake "hey vista" --snr-db 20 2>/dev/null)
# Whole runs in real time: synthetic sessions whose wearer says the scenario's requests aloud,
# profiled with the assistant hearing them (templates answer: --no-lm).
runs_dir=$(mktemp -d)
trap 'rm -rf "$runs_dir"' EXIT
runs=""
for s in motion_understanding social_cues distance_estimation read_sign; do
  "$vista" synth "$s" --out "$runs_dir/$s" --spoken-requests >/dev/null 2>&1
  "$vista" profile "$runs_dir/$s" --out "$runs_dir/$s-out" --voice-requests --no-lm \
    >"$runs_dir/$s.log" 2>&1
  runs+="$s:"$'\n'"$(grep -A5 '^spoken requests: stage' "$runs_dir/$s.log")"$'\n\n'
done
body=$(cat <<MD
# Hearing spoken requests

What vista hears: Silero VAD finds each utterance in a stream of 16 kHz audio, Moonshine base-en
recognises it while it is spoken and finishes it after the 384 ms of silence that end a turn,
and text the model was not sure of is "not caught" rather than acted on. Word error rate counts
word edits per word said, after lower-casing and dropping punctuation only ("Where's" against
"Where is" is two edits). "Split or missed": requests heard as more than one utterance, as
none, or not caught. "End of voice to text" is the silence waited for plus the last
recognition's compute, at one thread (the partial results while the wearer speaks keep up at
real time). The requests file has a \`held\` split kept out of all tuning; the not-caught bar
(−0.6) was set on the real clip and on noise before the requests were first spoken.

Commit $commit, $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg).

## Real speech: the moonshine-cpp package's own clip

\`\`\`sh
vista listen ~/.cache/vista/models/moonshine/beckett.wav
\`\`\`

\`\`\`text
$clip
\`\`\`

## Spoken requests, Piper voice (\`en_US-joe-medium\`), no noise

\`\`\`sh
vista listen --spoken $req
\`\`\`

$piper

## The same in room noise 20 dB below the speech

\`\`\`sh
vista listen --spoken $req --snr-db 20
\`\`\`

$piper20

## The same in room noise 10 dB below the speech

\`\`\`sh
vista listen --spoken $req --snr-db 10
\`\`\`

$piper10

## The same requests said by eSpeak NG (en-us, 175 words per minute), no noise

eSpeak NG's formant voice is far from the human speech the recogniser learnt from; it is here as
a harder case, not as what a wearer sounds like.

\`\`\`sh
vista listen --spoken $req --voice espeak
\`\`\`

$espeak

## Said to the assistant: the wake phrase

A request is one when it is said to the assistant: after its wake phrase ("Hey Vista, …"; the
greeting may be left out or be another, one letter of the name may be heard as another), or within
8 s of the end of one that was. Each request is said once after "Hey Vista" (taken as a request?
its words after the phrase are what is scored) and once without it, as by someone near the wearer
(taken as said to the assistant: a false wake). The phrase is matched on the recognised words. The
matching was written before these requests were first said with it, but for one change made after
that first measurement: a greeting heard as "A" ("A Vista, …") counts as the greeting (in room noise
20 dB below, 37 of 52 were taken as requests before it, 52 after; no false wake before or after).

\`\`\`sh
vista listen --spoken $req --wake "hey vista"
\`\`\`

$wake

In room noise 20 dB below the speech:

\`\`\`sh
vista listen --spoken $req --wake "hey vista" --snr-db 20
\`\`\`

$wake20

## In a whole run: end of speech to the answer's first audio

Four synthetic sessions whose wearer says the scenario's requests aloud after "Hey Vista" (Piper
voice at the wearer's mouth, in room noise), each run in real time with everything else running (perception,
stereo depth, text reading, the object detector, speech) and the assistant hearing the requests;
templates answer (\`--no-lm\`). Per request: the end of the voice → its text (the 384 ms of
silence that end a turn, and the last recognition), text → the decision, decision → the first
audio of the answer, and the whole. A request that needs text waits up to 2 s for a whole-frame
read (the long text → decision times).

\`\`\`sh
vista synth SCENARIO --out S --spoken-requests
vista profile S --out OUT --voice-requests --no-lm
\`\`\`

\`\`\`text
$runs
\`\`\`
MD
)
if [ "$out_md" = "-" ]; then echo "$body"; else echo "$body" > "$out_md"; echo "wrote $out_md"; fi
