//! The speaker end to end with real eSpeak NG speech: the WAV file lines up with the
//! transcript (speech where it says, exact silence elsewhere), durations follow text and
//! rate, priorities order and preempt, a real-time sink is paced and interrupted mid-way,
//! and `say` never blocks.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use vista::speech::sink::{AudioSink, NullSink, Pacing, SinkError, WavSink};
use vista::speech::transcript::{read_transcript, TranscriptEntry};
use vista::speech::{Pan, Priority, SayError, Speaker, SpeakerConfig, SpeakerReport, Utterance};
use vista::time::{DeviceTime, HostTime, VirtualClock, WallClock};

const RATE: u32 = 22_050;
const MS: i64 = 1_000_000;

fn utt(priority: Priority, request_id: u64, text: &str, decided_ms: i64) -> Utterance {
    Utterance {
        text: text.into(),
        priority,
        request_id,
        capture: DeviceTime(decided_ms * MS - 40 * MS),
        decided: HostTime(decided_ms * MS),
        earcon: None,
        cue: None,
        pan: Pan::CENTRE,
        urgent: priority == Priority::Alert,
    }
}

fn idx(ns: i64) -> usize {
    (ns as i128 * RATE as i128 / 1_000_000_000) as usize
}

/// Speaks `utts` into a WAV on a virtual clock; returns the report and the samples (the
/// louder ear's, per frame: the mono voice where it is heard from the centre).
fn speak_to_wav(dir: &Path, utts: &[Utterance], end_ms: i64) -> (SpeakerReport, Vec<i16>) {
    let (report, frames) = speak_to_stereo_wav(dir, utts, end_ms);
    let louder = frames
        .iter()
        .map(|&[l, r]| {
            if l.unsigned_abs() >= r.unsigned_abs() {
                l
            } else {
                r
            }
        })
        .collect();
    (report, louder)
}

/// [`speak_to_wav`], with the file's (left, right) frames.
fn speak_to_stereo_wav(
    dir: &Path,
    utts: &[Utterance],
    end_ms: i64,
) -> (SpeakerReport, Vec<[i16; 2]>) {
    let wav = dir.join("speech.wav");
    let config = SpeakerConfig {
        transcript: Some(dir.join("transcript.jsonl")),
        ..SpeakerConfig::default()
    };
    let clock = Arc::new(VirtualClock::new(DeviceTime(0)));
    let speaker = Speaker::start(
        config,
        Box::new(WavSink::create(&wav, RATE).unwrap()),
        clock,
    )
    .unwrap();
    for u in utts {
        speaker.say(u.clone()).unwrap();
    }
    let report = speaker.finish(Some(HostTime(end_ms * MS))).unwrap();
    let mut reader = hound::WavReader::open(&wav).unwrap();
    assert_eq!(reader.spec().sample_rate, RATE);
    assert_eq!(reader.spec().channels, 2);
    let samples: Vec<i16> = reader.samples::<i16>().map(|s| s.unwrap()).collect();
    let frames = samples.chunks_exact(2).map(|f| [f[0], f[1]]).collect();
    (report, frames)
}

fn spoken(e: &TranscriptEntry) -> Option<(usize, usize)> {
    e.first_audio_ns.map(|a| (idx(a), idx(e.end_ns)))
}

#[test]
fn wav_has_speech_where_the_transcript_says_and_silence_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let utts = [
        utt(
            Priority::Answer,
            1,
            "The door is ahead of you, about three metres.",
            500,
        ),
        utt(Priority::Ambient, 0, "Two people on your right.", 4_000),
        utt(
            Priority::Answer,
            2,
            "The bus stop sign is on the pole to your left, at head height.",
            5_500,
        ),
        utt(Priority::Alert, 0, "Stop. Bicycle.", 6_000),
    ];
    let (report, wav) = speak_to_wav(dir.path(), &utts, 14_000);
    assert_eq!(wav.len(), idx(14_000 * MS), "the file spans the session");
    assert_eq!(
        report.transcript,
        read_transcript(&dir.path().join("transcript.jsonl")).unwrap()
    );
    let t = &report.transcript;
    assert_eq!(t.len(), 5);
    // Speech starts at each decision time (the timeline is otherwise free).
    for (e, u) in t.iter().zip(&utts) {
        assert_eq!(e.text, u.text);
        assert_eq!(e.capture_ns, u.capture.ns());
        let (start, _) = spoken(e).unwrap();
        assert_eq!(start, idx(u.decided.ns()), "{}", e.text);
    }
    // The second answer is cut exactly when the alert is decided, and said again after it;
    // the others finish.
    assert!(t[2].interrupted && !t[0].interrupted && !t[1].interrupted && !t[3].interrupted);
    assert_eq!(idx(t[2].end_ns), idx(6_000 * MS));
    assert_eq!(t[4].text, t[2].text);
    assert!(!t[4].interrupted);
    assert_eq!(t[4].first_audio_ns, Some(t[3].end_ns));
    let mut covered = vec![false; wav.len()];
    for e in t {
        let (a, b) = spoken(e).unwrap();
        covered[a..b].iter_mut().for_each(|c| *c = true);
        let loud = |s: &i16| s.unsigned_abs() > 200;
        let seg = &wav[a..b];
        // Voice right after the stated start (eSpeak NG opens with up to ~50 ms of
        // silence, e.g. a plosive's closure), and real energy.
        let first = seg.iter().position(loud).unwrap();
        assert!(
            first < idx(80 * MS),
            "{}: first voiced sample {first}",
            e.text
        );
        let last = seg.iter().rposition(loud).unwrap();
        assert!(
            seg.len() - last < idx(80 * MS),
            "{}: trailing silence",
            e.text
        );
        assert!(seg.iter().filter(|s| loud(s)).count() > seg.len() / 4);
    }
    // Exact silence wherever the transcript says nothing is spoken.
    for (i, s) in wav.iter().enumerate() {
        if !covered[i] {
            assert_eq!(*s, 0, "sample {i} outside any utterance");
        }
    }
}

#[test]
fn durations_are_plausible_for_text_and_rate() {
    let text = "Walk forward about ten steps, then turn right at the corner and wait.";
    let words = text.split_whitespace().count() as f64;
    for rate_wpm in [175u32, 350] {
        let dir = tempfile::tempdir().unwrap();
        let config = SpeakerConfig {
            voice: vista::speech::VoiceParams {
                rate_wpm,
                ..Default::default()
            },
            ..SpeakerConfig::default()
        };
        let wav = dir.path().join("s.wav");
        let speaker = Speaker::start(
            config,
            Box::new(WavSink::create(&wav, RATE).unwrap()),
            Arc::new(VirtualClock::new(DeviceTime(0))),
        )
        .unwrap();
        speaker.say(utt(Priority::Answer, 1, text, 0)).unwrap();
        let report = speaker.finish(None).unwrap();
        let e = &report.transcript[0];
        let secs = (e.end_ns - e.first_audio_ns.unwrap()) as f64 * 1e-9;
        let nominal = words / rate_wpm as f64 * 60.0;
        assert!(
            secs > 0.6 * nominal && secs < 1.6 * nominal,
            "{rate_wpm} wpm: {secs:.2} s for {words} words (nominal {nominal:.2} s)"
        );
    }
}

/// Writes the session of `timeline_output_is_deterministic` into `$VISTA_SPEECH_OUT`. Run
/// only as a child process of that test (eSpeak NG carries waveform state from one
/// utterance to the next, so determinism holds per process: the same utterances in a fresh
/// process give the same bytes).
#[test]
#[ignore = "child process of timeline_output_is_deterministic"]
fn deterministic_session_child() {
    let Some(dir) = std::env::var_os("VISTA_SPEECH_OUT") else {
        return;
    };
    let utts = [
        utt(Priority::Answer, 1, "First clause of the answer,", 100),
        utt(Priority::Answer, 1, "and the second clause.", 120),
        utt(Priority::Ambient, 0, "Quiet room.", 150),
        utt(Priority::Alert, 0, "Step down.", 900),
        utt(Priority::Answer, 2, "The exit is behind you.", 1_500),
    ];
    speak_to_wav(Path::new(&dir), &utts, 5_000);
}

#[test]
fn timeline_output_is_deterministic() {
    let run = || {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "deterministic_session_child",
                "--ignored",
                "--quiet",
            ])
            .env("VISTA_SPEECH_OUT", dir.path())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let wav = std::fs::read(dir.path().join("speech.wav")).unwrap();
        let transcript = std::fs::read(dir.path().join("transcript.jsonl")).unwrap();
        (wav, transcript)
    };
    let (wav_a, tr_a) = run();
    let (wav_b, tr_b) = run();
    // A 44-byte header, then a stereo frame of two 16-bit samples per timeline sample.
    assert_eq!(wav_a.len(), 44 + 4 * idx(5_000 * MS));
    assert!(wav_a == wav_b, "speech.wav differs between runs");
    assert_eq!(
        String::from_utf8(tr_a).unwrap(),
        String::from_utf8(tr_b).unwrap()
    );
}

#[test]
fn priorities_order_and_barge_in() {
    let dir = tempfile::tempdir().unwrap();
    let utts = [
        // An alert plays; meanwhile everything else arrives.
        utt(Priority::Alert, 0, "Car approaching from the left.", 0),
        utt(Priority::Ambient, 0, "Shop entrance on the right.", 10),
        utt(Priority::Answer, 1, "It is a red door,", 20),
        utt(Priority::Answer, 1, "with a brass handle.", 21),
        utt(Priority::Alert, 0, "Curb.", 30),
        // A new question barges in on answer 1 once it is playing.
        utt(Priority::Answer, 1, "The handle is round.", 2_500),
        utt(Priority::Answer, 2, "Yes, it is open.", 3_000),
        utt(Priority::Answer, 1, "Late clause of the old answer.", 3_100),
    ];
    let (report, _) = speak_to_wav(dir.path(), &utts, 8_000);
    let order: Vec<(&str, bool, Option<i64>)> = report
        .transcript
        .iter()
        .map(|e| (e.text.as_str(), e.interrupted, e.first_audio_ns))
        .collect();
    let texts: Vec<&str> = order.iter().map(|o| o.0).collect();
    // The second alert cleared the queued answer clauses and ambient update.
    assert_eq!(
        &texts[..3],
        [
            "It is a red door,",
            "with a brass handle.",
            "Shop entrance on the right."
        ]
    );
    assert!(order[..3].iter().all(|o| o.1 && o.2.is_none()));
    assert_eq!(texts[3..5], ["Car approaching from the left.", "Curb."]);
    assert!(!order[3].1 && !order[4].1);
    // "The handle is round." (request 1) is cut by request 2, whose answer plays; the late
    // clause of request 1 is dropped.
    let round = report
        .transcript
        .iter()
        .find(|e| e.text == "The handle is round.")
        .unwrap();
    assert!(round.interrupted && round.first_audio_ns.is_some());
    assert_eq!(idx(round.end_ns), idx(3_000 * MS));
    let yes = report
        .transcript
        .iter()
        .find(|e| e.text == "Yes, it is open.")
        .unwrap();
    assert_eq!(yes.first_audio_ns, Some(round.end_ns));
    assert!(!yes.interrupted);
    let late = report
        .transcript
        .iter()
        .find(|e| e.text.starts_with("Late"))
        .unwrap();
    assert!(late.dropped.is_some());
    assert_eq!(report.spoken, 3);
}

/// A real-time sink that records when audio arrives.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<(Instant, u64, usize)>>>);

impl AudioSink for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn pacing(&self) -> Pacing {
        Pacing::RealTime
    }
    fn write(&mut self, start_index: u64, samples: &[i16], _pan: Pan) -> Result<(), SinkError> {
        self.0
            .lock()
            .unwrap()
            .push((Instant::now(), start_index, samples.len()));
        Ok(())
    }
    fn finish(&mut self, _end_index: Option<u64>) -> Result<(), SinkError> {
        Ok(())
    }
}

fn now_ms(clock: &WallClock) -> i64 {
    use vista::time::Clock;
    clock.now().ns() / MS
}

#[test]
fn real_time_alert_cuts_the_answer_mid_utterance() {
    let rec = Recorder::default();
    let clock = Arc::new(WallClock);
    let (events_tx, events) = crossbeam_channel::unbounded();
    let config = SpeakerConfig {
        first_audio_events: Some(events_tx),
        ..SpeakerConfig::default()
    };
    let speaker = Speaker::start(config, Box::new(rec.clone()), clock.clone()).unwrap();
    let long = "This is a long answer that would take several seconds to speak in full, \
                describing the room, the table, the chairs and the window.";
    speaker
        .say(utt(Priority::Answer, 1, long, now_ms(&clock)))
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    speaker
        .say(utt(Priority::Alert, 0, "Stop.", now_ms(&clock)))
        .unwrap();
    let report = speaker.finish(None).unwrap();
    let t = &report.transcript;
    assert_eq!(t[0].text, long);
    assert!(t[0].interrupted);
    let played_ms = (t[0].end_ns - t[0].first_audio_ns.unwrap()) / MS;
    // About 400 ms were heard (plus the sink's 30 ms lookahead), not the seconds of text.
    assert!((300..700).contains(&played_ms), "{played_ms} ms");
    assert_eq!(t[1].text, "Stop.");
    assert!(!t[1].interrupted);
    // The answer, begun, is said again after the alert.
    assert_eq!(t[2].text, long);
    assert!(!t[2].interrupted);
    // One first-audio event per spoken utterance, in order, after its decision.
    let ev: Vec<_> = events.try_iter().collect();
    assert_eq!(ev.len(), 3);
    assert_eq!(
        (ev[0].priority, ev[1].priority, ev[2].priority),
        (Priority::Answer, Priority::Alert, Priority::Answer)
    );
    assert!(ev.iter().all(|e| e.in_sink >= e.decided));
    // Audio reached the sink paced, not all at once: the answer's samples were handed over
    // over ~400 ms.
    let writes = rec.0.lock().unwrap();
    let span = writes.last().unwrap().0 - writes.first().unwrap().0;
    assert!(span > Duration::from_millis(300), "{span:?}");
    let answer_samples: usize = t[0]
        .first_audio_ns
        .map(|_| idx(t[0].end_ns) - idx(t[0].first_audio_ns.unwrap()))
        .unwrap();
    let total: usize = writes.iter().map(|w| w.2).sum();
    assert_eq!(total as u64, report.speech_samples);
    assert!(answer_samples < total);
}

#[test]
fn null_sink_is_paced_in_real_time() {
    let speaker = Speaker::start(
        SpeakerConfig::default(),
        Box::new(NullSink::new()),
        Arc::new(WallClock),
    )
    .unwrap();
    let started = Instant::now();
    speaker
        .say(utt(
            Priority::Answer,
            1,
            "One moment please.",
            now_ms(&WallClock),
        ))
        .unwrap();
    let report = speaker.finish(None).unwrap();
    let elapsed = started.elapsed();
    let e = &report.transcript[0];
    let audio = Duration::from_nanos((e.end_ns - e.first_audio_ns.unwrap()) as u64);
    assert!(audio > Duration::from_millis(500), "{audio:?}");
    assert!(
        elapsed >= audio,
        "finished after {elapsed:?}, audio {audio:?}"
    );
}

/// A real-time sink whose writes wait until the test opens the gate: the speaker thread
/// is stuck inside the sink, as it would be behind a stalled audio device.
struct GatedSink(crossbeam_channel::Receiver<()>);

impl AudioSink for GatedSink {
    fn name(&self) -> &str {
        "gated"
    }
    fn pacing(&self) -> Pacing {
        Pacing::RealTime
    }
    fn write(&mut self, _start_index: u64, _samples: &[i16], _pan: Pan) -> Result<(), SinkError> {
        // Ok(()) or the gate dropped: either way the sink goes on.
        let _ = self.0.recv();
        Ok(())
    }
    fn finish(&mut self, _end_index: Option<u64>) -> Result<(), SinkError> {
        Ok(())
    }
}

#[test]
fn say_never_blocks_and_alerts_always_get_through() {
    // The sink never returns while these calls are made, so a `say` that waited for the
    // speaker thread would never return. Behaviour, not timing: the calls run on their own
    // thread and must all come back while the sink is still stuck (the 60 s limit only
    // turns a hang into a failure).
    let (gate, gate_rx) = crossbeam_channel::unbounded::<()>();
    let speaker = Speaker::start(
        SpeakerConfig {
            capacity: 3,
            ..SpeakerConfig::default()
        },
        Box::new(GatedSink(gate_rx)),
        Arc::new(WallClock),
    )
    .unwrap();
    let (done_tx, done) = crossbeam_channel::bounded(1);
    let caller = std::thread::spawn(move || {
        let mut full = 0;
        for i in 0..200 {
            match speaker.say(utt(Priority::Ambient, 0, &format!("update {i}"), 0)) {
                Ok(()) => {}
                Err(SayError::Full) => full += 1,
                Err(e) => panic!("{e}"),
            }
        }
        let mut alerts_refused = 0;
        for _ in 0..50 {
            if speaker.say(utt(Priority::Alert, 0, "Stop.", 0)).is_err() {
                alerts_refused += 1;
            }
        }
        let _ = done_tx.send((full, alerts_refused));
        speaker
    });
    let got = done.recv_timeout(Duration::from_secs(60));
    drop(gate); // opens the sink for good, whatever happened
    let (full, alerts_refused) = got.expect("`say` blocked behind a stuck sink");
    assert!(full > 0, "a capacity of 3 must refuse some of 200 updates");
    assert_eq!(alerts_refused, 0, "alerts are never refused");
    drop(caller.join().unwrap());
}

#[test]
fn streamed_answer_starts_speaking_before_it_is_complete() {
    use vista::speech::chunker::ChunkerConfig;
    use vista::speech::AnswerStream;
    let dir = tempfile::tempdir().unwrap();
    let speaker = Speaker::start(
        SpeakerConfig::default(),
        Box::new(WavSink::create(&dir.path().join("s.wav"), RATE).unwrap()),
        Arc::new(VirtualClock::new(DeviceTime(0))),
    )
    .unwrap();
    // A model producing one token every 50 ms of session time.
    let answer = "The red door is straight ahead, about four metres away. \
                  Its handle is on the right side, at waist height.";
    let tokens: Vec<String> = answer.split_inclusive(' ').map(String::from).collect();
    let mut stream = AnswerStream::new(&speaker, ChunkerConfig::default(), 7, DeviceTime(123));
    let mut t_ms = 1_000;
    for tok in &tokens {
        stream.push(tok, HostTime(t_ms * MS));
        t_ms += 50;
    }
    let last_token_ms = t_ms - 50;
    let (said, refused) = stream.finish(HostTime(last_token_ms * MS));
    assert_eq!(refused, 0);
    let report = speaker.finish(None).unwrap();
    let t = &report.transcript;
    assert_eq!(t.len(), said);
    assert_eq!(
        t.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(),
        [
            "The red door is straight ahead,",
            "about four metres away.",
            "Its handle is on the right side,",
            "at waist height."
        ]
    );
    assert!(t.iter().all(|e| e.request_id == 7 && e.capture_ns == 123));
    // The first clause is heard as soon as its comma arrives (token 6), long before the last
    // token.
    let first_ms = t[0].first_audio_ns.unwrap() / MS;
    assert_eq!(first_ms, 1_000 + 5 * 50);
    assert!(first_ms + 500 < last_token_ms);
}

#[test]
fn real_time_sink_refuses_a_virtual_clock() {
    let r = Speaker::start(
        SpeakerConfig::default(),
        Box::new(NullSink::new()),
        Arc::new(VirtualClock::new(DeviceTime(0))),
    );
    assert!(matches!(
        r,
        Err(vista::speech::speaker::SpeakerError::Config(_))
    ));
}

#[test]
fn session_speech_records_what_plays_in_real_time() {
    use vista::speech::run_speech::start_session_speech;
    use vista::speech::sink::AudioChoice;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let s = start_session_speech(
        &out,
        AudioChoice::Null,
        SpeakerConfig::default(),
        Arc::new(WallClock),
    )
    .unwrap();
    assert_eq!(s.sink, "null+wav");
    s.speaker
        .say(utt(
            Priority::Answer,
            1,
            "Recorded while it plays.",
            now_ms(&WallClock),
        ))
        .unwrap();
    let tl = s.speaker.timeline();
    let report = s.speaker.finish(None).unwrap();
    let t = read_transcript(&s.transcript).unwrap();
    assert_eq!(t, report.transcript);
    // Heard from the centre: both ears alike; one ear's samples.
    let stereo: Vec<i16> = hound::WavReader::open(&s.wav)
        .unwrap()
        .samples::<i16>()
        .map(|x| x.unwrap())
        .collect();
    assert!(stereo.chunks_exact(2).all(|f| f[0] == f[1]));
    let wav: Vec<i16> = stereo.iter().step_by(2).copied().collect();
    // The recording ends where the utterance ends on the session timeline.
    assert_eq!(wav.len() as u64, report.timeline_samples);
    let a = tl.index_of(HostTime(t[0].first_audio_ns.unwrap())) as usize;
    let b = tl.index_of(HostTime(t[0].end_ns)) as usize;
    assert_eq!(b, wav.len());
    assert!(wav[..a].iter().all(|&x| x == 0));
    assert!(wav[a..b].iter().filter(|x| x.unsigned_abs() > 200).count() > (b - a) / 4);
}

#[test]
fn session_speech_in_virtual_time_goes_to_the_timeline_wav() {
    use vista::speech::run_speech::start_session_speech;
    use vista::speech::sink::AudioChoice;
    let dir = tempfile::tempdir().unwrap();
    let s = start_session_speech(
        dir.path(),
        AudioChoice::Device,
        SpeakerConfig::default(),
        Arc::new(VirtualClock::new(DeviceTime(0))),
    )
    .unwrap();
    assert_eq!(s.sink, "wav");
    assert!(s.fallback_reason.unwrap().contains("virtual clock"));
    s.speaker
        .say(utt(Priority::Ambient, 0, "Hallway.", 250))
        .unwrap();
    let report = s.speaker.finish(Some(HostTime(2_000 * MS))).unwrap();
    // Speech starts on the first sample at or after its decision.
    let first = report.transcript[0].first_audio_ns.unwrap();
    assert!(first >= 250 * MS && first < 250 * MS + 1_000_000_000 / RATE as i64);
    let reader = hound::WavReader::open(&s.wav).unwrap();
    assert_eq!(reader.duration() as usize, idx(2_000 * MS));
}

/// An alert about a thing at 3 o'clock is heard from the right (the left ear at a fifth of
/// the level, never silent), an answer from the centre; the transcript says where.
#[test]
fn an_alert_is_heard_from_its_side_and_an_answer_from_the_centre() {
    let dir = tempfile::tempdir().unwrap();
    let mut alert = utt(Priority::Alert, 0, "Obstacle at 3 o'clock, 1 metre.", 200);
    alert.pan = Pan::of_clock_hour(3);
    let answer = utt(Priority::Answer, 1, "The door is ahead.", 3_000);
    let (report, frames) = speak_to_stereo_wav(dir.path(), &[alert, answer], 6_000);
    let t = &report.transcript;
    assert_eq!(t[0].pan, Pan::of_clock_hour(3));
    assert_eq!(t[1].pan, Pan::CENTRE);
    let energy = |e: &TranscriptEntry| -> (f64, f64) {
        let (a, b) = spoken(e).unwrap();
        frames[a..b].iter().fold((0.0, 0.0), |(l, r), f| {
            (l + f64::from(f[0]).powi(2), r + f64::from(f[1]).powi(2))
        })
    };
    let (l, r) = energy(&t[0]);
    // Amplitude 0.2 on the left: energy 0.04 of the right's.
    assert!(l > 0.0 && (l / r - 0.04).abs() < 0.005, "{l} {r}");
    let (l, r) = energy(&t[1]);
    assert!(l > 0.0 && l == r, "{l} {r}");
    // And the transcript on disk says so: the alert's pan, none for the centre.
    let text = std::fs::read_to_string(dir.path().join("transcript.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("\"pan\":80"), "{}", lines[0]);
    assert!(!lines[1].contains("pan"), "{}", lines[1]);
}

#[test]
fn earcons_play_alone_or_before_the_words() {
    use vista::speech::Earcon;
    let dir = tempfile::tempdir().unwrap();
    let mut beep = utt(Priority::Ambient, 0, "", 300);
    beep.earcon = Some(Earcon::Double);
    let mut rising = utt(Priority::Alert, 0, "Step.", 1_000);
    rising.earcon = Some(Earcon::Rising);
    let (report, wav) = speak_to_wav(dir.path(), &[beep, rising], 3_000);
    let t = &report.transcript;
    assert_eq!(t[0].earcon, Some(Earcon::Double));
    let (a, b) = spoken(&t[0]).unwrap();
    assert_eq!(b - a, Earcon::Double.render(RATE).len());
    // Two 35 ms beeps at 880 Hz: 61.6 cycles (±1 per beep at the soft edges).
    let cycles = wav[a..b]
        .windows(2)
        .filter(|w| w[0] < 0 && w[1] >= 0)
        .count();
    assert!((59..=64).contains(&cycles), "{cycles}");
    // The alert's sweep comes first, then the words.
    let (a, b) = spoken(&t[1]).unwrap();
    assert!(b - a > idx(80 * MS) + idx(200 * MS));
    let sweep = &wav[a..a + idx(80 * MS)];
    let (x, y) = sweep.split_at(sweep.len() / 2);
    let up = |s: &[i16]| s.windows(2).filter(|w| w[0] < 0 && w[1] >= 0).count();
    assert!(up(y) > up(x));
}

/// A heads-up that waits for the answer clause being said is heard at once as its cue: its
/// kind's tone over the clause, from its side, under the alert's id; the words follow the
/// clause, with no tone of their own; the clause itself is neither cut nor moved.
#[test]
fn a_heads_up_is_heard_at_once_over_the_clause_it_waits_for() {
    use vista::speech::Earcon;
    let clause = "The exit door is at one o'clock, about seven metres away.";
    let answer = utt(Priority::Answer, 1, clause, 0);
    let dir = tempfile::tempdir().unwrap();
    let (alone, _) = speak_to_stereo_wav(dir.path(), std::slice::from_ref(&answer), 8_000);
    let a = alone.transcript[0].clone();
    let (start, end) = (a.first_audio_ns.unwrap(), a.end_ns);
    // Decided with 600 ms of the clause left (a heads-up waits for up to 1 s).
    let at_ms = (end - 600 * MS) / MS;
    let mut heads_up = utt(Priority::Alert, 2, "Obstacle 3 o'clock.", at_ms);
    heads_up.urgent = false;
    heads_up.cue = Some(Earcon::Double);
    heads_up.pan = Pan::of_clock_hour(3);
    let dir = tempfile::tempdir().unwrap();
    let (report, frames) = speak_to_stereo_wav(dir.path(), &[answer, heads_up], 8_000);
    let t = &report.transcript;
    let said: Vec<(u64, &str, bool)> = t
        .iter()
        .map(|e| (e.request_id, e.text.as_str(), e.interrupted))
        .collect();
    assert_eq!(
        said,
        [
            (2, "", false),
            (1, clause, false),
            (2, "Obstacle 3 o'clock.", false),
        ]
    );
    // The cue at the alert's decision (its first whole sample), the clause whole from its
    // start, the words right after it.
    let sample_ns = 1e9 / f64::from(RATE);
    let cue_at = t[0].first_audio_ns.unwrap() - at_ms * MS;
    assert!((0.0..sample_ns).contains(&(cue_at as f64)), "{t:?}");
    assert_eq!(t[1].first_audio_ns, Some(start), "{t:?}");
    assert!(t[0].end_ns < t[1].end_ns, "{t:?}");
    assert_eq!(t[2].first_audio_ns, Some(t[1].end_ns), "{t:?}");
    assert_eq!(t[0].earcon, Some(Earcon::Double));
    assert_eq!(t[2].earcon, None);
    // Over the clause (centre), the cue leans right: the right ear gets more there than the
    // left, which it does not where the clause is heard alone.
    let (a, b) = spoken(&t[0]).unwrap();
    let lean = |s: &[[i16; 2]]| -> f64 {
        s.iter()
            .map(|f| f64::from(f[1]).powi(2) - f64::from(f[0]).powi(2))
            .sum()
    };
    assert!(lean(&frames[a..b]) > 0.0);
    let before = spoken(&t[1]).unwrap().0;
    assert_eq!(lean(&frames[before..before + (b - a)]), 0.0);
}
