//! The TTS worker's wire format: what vista sends its eSpeak NG worker process on the
//! worker's standard input ([`Command`]) and what comes back on its standard output
//! ([`Reply`]), as length-prefixed binary frames (a tag byte, the payload's length as a
//! little-endian `u32`, the payload).
//!
//! Every length read is bounded before anything is allocated: a frame's payload by
//! [`MAX_FRAME_BYTES`], a text by [`MAX_TEXT_BYTES`], a block of samples by
//! [`MAX_CHUNK_SAMPLES`], a phoneme answer by [`MAX_CLAUSES`]. A frame that breaks a bound
//! or its own layout is a typed [`WireError`]: the side that reads it ends the link (the
//! parent kills and restarts the worker; the worker exits).

use std::io::{self, Read, Write};

use crate::speech::espeak_ffi::EspeakError;

/// The longest text one request may carry, in bytes.
pub const MAX_TEXT_BYTES: usize = 256 * 1024;
/// The most samples in one [`Reply::Chunk`] (eSpeak NG hands out 20 ms blocks: 441).
pub const MAX_CHUNK_SAMPLES: usize = 64 * 1024;
/// The most clauses in one phoneme answer.
pub const MAX_CLAUSES: usize = 64 * 1024;
/// The largest payload of any frame.
pub const MAX_FRAME_BYTES: usize = 2 * MAX_TEXT_BYTES + 4096;
/// The longest voice name, in bytes.
pub const MAX_VOICE_BYTES: usize = 256;

/// What vista asks its worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Speak `text`; the worker answers with [`Reply::Chunk`]s (each acknowledged by an
    /// [`Command::Ack`]) and one [`Reply::SynthDone`].
    Synth {
        /// eSpeak NG voice name.
        voice: String,
        /// Words per minute.
        rate_wpm: u32,
        /// 0–100.
        pitch: u32,
        /// 0–200.
        volume: u32,
        /// A sentence pause at the end.
        end_pause: bool,
        /// The text (UTF-8).
        text: String,
    },
    /// The IPA phonemes of `text` in `voice`; answered by one [`Reply::PhonemesDone`].
    Phonemes {
        /// eSpeak NG voice name.
        voice: String,
        /// The text (UTF-8).
        text: String,
    },
    /// One [`Reply::Chunk`] received: go on (`true`) or stop the utterance (`false`).
    Ack {
        /// Whether to keep synthesising.
        go_on: bool,
    },
}

/// What the worker answers.
#[derive(Debug)]
pub enum Reply {
    /// The engine is initialised (sent once, first).
    Ready {
        /// Output sample rate (mono, signed 16-bit).
        sample_rate_hz: u32,
    },
    /// The engine could not be initialised (sent instead of `Ready`; the worker exits).
    InitFailed {
        /// What `espeak_Initialize` returned.
        code: i32,
    },
    /// A block of samples of the utterance being synthesised.
    Chunk(Vec<i16>),
    /// The utterance is over (spoken whole, stopped, or failed).
    SynthDone {
        /// What eSpeak NG reported.
        result: Result<(), EspeakError>,
        /// The worker's CPU time so far.
        cpu: WorkerCpu,
    },
    /// The phonemes asked for.
    PhonemesDone {
        /// One string per clause, or what eSpeak NG reported.
        result: Result<Vec<String>, EspeakError>,
        /// The worker's CPU time so far.
        cpu: WorkerCpu,
    },
}

/// A worker process's CPU time since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerCpu {
    /// User time, ns.
    pub user_ns: i64,
    /// System time, ns.
    pub system_ns: i64,
}

/// A frame that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The other side closed the link between frames.
    #[error("the link is closed")]
    Closed,
    /// Reading or writing failed (including a link closed inside a frame).
    #[error("TTS worker link: {0}")]
    Io(#[from] io::Error),
    /// A tag this side does not know.
    #[error("TTS worker link: unknown frame tag {tag}")]
    UnknownTag {
        /// The tag byte.
        tag: u8,
    },
    /// A length beyond its bound.
    #[error("TTS worker link: {what} of {len} exceeds {max}")]
    TooLong {
        /// What was too long.
        what: &'static str,
        /// The length announced.
        len: usize,
        /// Its bound.
        max: usize,
    },
    /// A payload that does not match its frame's layout.
    #[error("TTS worker link: malformed {what}")]
    Malformed {
        /// Which field.
        what: &'static str,
    },
}

const T_SYNTH: u8 = 1;
const T_PHONEMES: u8 = 2;
const T_ACK: u8 = 3;
const T_READY: u8 = 0x10;
const T_INIT_FAILED: u8 = 0x11;
const T_CHUNK: u8 = 0x20;
const T_SYNTH_DONE: u8 = 0x21;
const T_PHONEMES_DONE: u8 = 0x22;

/// Writes one command and flushes it.
pub fn write_command(out: &mut impl Write, cmd: &Command) -> Result<(), WireError> {
    let mut p = Vec::new();
    let tag = match cmd {
        Command::Synth {
            voice,
            rate_wpm,
            pitch,
            volume,
            end_pause,
            text,
        } => {
            put_str(&mut p, voice, "voice", MAX_VOICE_BYTES)?;
            put_u32(&mut p, *rate_wpm);
            put_u32(&mut p, *pitch);
            put_u32(&mut p, *volume);
            p.push(u8::from(*end_pause));
            put_str(&mut p, text, "text", MAX_TEXT_BYTES)?;
            T_SYNTH
        }
        Command::Phonemes { voice, text } => {
            put_str(&mut p, voice, "voice", MAX_VOICE_BYTES)?;
            put_str(&mut p, text, "text", MAX_TEXT_BYTES)?;
            T_PHONEMES
        }
        Command::Ack { go_on } => {
            p.push(u8::from(*go_on));
            T_ACK
        }
    };
    write_frame(out, tag, &p)
}

/// Reads one command ([`WireError::Closed`] at a clean end of the link).
pub fn read_command(input: &mut impl Read) -> Result<Command, WireError> {
    let (tag, payload) = read_frame(input)?;
    let mut r = Cursor::new(&payload);
    let cmd = match tag {
        T_SYNTH => Command::Synth {
            voice: r.string("voice", MAX_VOICE_BYTES)?,
            rate_wpm: r.u32("rate")?,
            pitch: r.u32("pitch")?,
            volume: r.u32("volume")?,
            end_pause: r.flag("end pause")?,
            text: r.string("text", MAX_TEXT_BYTES)?,
        },
        T_PHONEMES => Command::Phonemes {
            voice: r.string("voice", MAX_VOICE_BYTES)?,
            text: r.string("text", MAX_TEXT_BYTES)?,
        },
        T_ACK => Command::Ack {
            go_on: r.flag("acknowledgement")?,
        },
        tag => return Err(WireError::UnknownTag { tag }),
    };
    r.end("command")?;
    Ok(cmd)
}

/// Writes one reply and flushes it.
pub fn write_reply(out: &mut impl Write, reply: &Reply) -> Result<(), WireError> {
    let mut p = Vec::new();
    let tag = match reply {
        Reply::Ready { sample_rate_hz } => {
            put_u32(&mut p, *sample_rate_hz);
            T_READY
        }
        Reply::InitFailed { code } => {
            put_i32(&mut p, *code);
            T_INIT_FAILED
        }
        Reply::Chunk(samples) => {
            if samples.len() > MAX_CHUNK_SAMPLES {
                return Err(WireError::TooLong {
                    what: "block of samples",
                    len: samples.len(),
                    max: MAX_CHUNK_SAMPLES,
                });
            }
            put_u32(&mut p, samples.len() as u32);
            p.reserve(samples.len() * 2);
            for s in samples {
                p.extend_from_slice(&s.to_le_bytes());
            }
            T_CHUNK
        }
        Reply::SynthDone { result, cpu } => {
            put_cpu(&mut p, cpu);
            match result {
                Ok(()) => p.push(0),
                Err(e) => {
                    p.push(1);
                    put_error(&mut p, e)?;
                }
            }
            T_SYNTH_DONE
        }
        Reply::PhonemesDone { result, cpu } => {
            put_cpu(&mut p, cpu);
            match result {
                Ok(clauses) => {
                    p.push(0);
                    if clauses.len() > MAX_CLAUSES {
                        return Err(WireError::TooLong {
                            what: "phoneme clauses",
                            len: clauses.len(),
                            max: MAX_CLAUSES,
                        });
                    }
                    put_u32(&mut p, clauses.len() as u32);
                    for c in clauses {
                        put_str(&mut p, c, "phonemes", MAX_TEXT_BYTES)?;
                    }
                }
                Err(e) => {
                    p.push(1);
                    put_error(&mut p, e)?;
                }
            }
            T_PHONEMES_DONE
        }
    };
    write_frame(out, tag, &p)
}

/// Reads one reply ([`WireError::Closed`] at a clean end of the link).
pub fn read_reply(input: &mut impl Read) -> Result<Reply, WireError> {
    let (tag, payload) = read_frame(input)?;
    let mut r = Cursor::new(&payload);
    let reply = match tag {
        T_READY => Reply::Ready {
            sample_rate_hz: r.u32("sample rate")?,
        },
        T_INIT_FAILED => Reply::InitFailed {
            code: r.i32("init code")?,
        },
        T_CHUNK => {
            let n = r.u32("sample count")? as usize;
            if n > MAX_CHUNK_SAMPLES {
                return Err(WireError::TooLong {
                    what: "block of samples",
                    len: n,
                    max: MAX_CHUNK_SAMPLES,
                });
            }
            let bytes = r.take(n * 2, "samples")?;
            Reply::Chunk(
                bytes
                    .chunks_exact(2)
                    .map(|b| i16::from_le_bytes([b[0], b[1]]))
                    .collect(),
            )
        }
        T_SYNTH_DONE => {
            let cpu = r.cpu()?;
            let result = if r.flag("result")? {
                Err(r.error()?)
            } else {
                Ok(())
            };
            Reply::SynthDone { result, cpu }
        }
        T_PHONEMES_DONE => {
            let cpu = r.cpu()?;
            let result = if r.flag("result")? {
                Err(r.error()?)
            } else {
                let n = r.u32("clause count")? as usize;
                if n > MAX_CLAUSES {
                    return Err(WireError::TooLong {
                        what: "phoneme clauses",
                        len: n,
                        max: MAX_CLAUSES,
                    });
                }
                let mut clauses = Vec::with_capacity(n.min(64));
                for _ in 0..n {
                    clauses.push(r.string("phonemes", MAX_TEXT_BYTES)?);
                }
                Ok(clauses)
            };
            Reply::PhonemesDone { result, cpu }
        }
        tag => return Err(WireError::UnknownTag { tag }),
    };
    r.end("reply")?;
    Ok(reply)
}

fn write_frame(out: &mut impl Write, tag: u8, payload: &[u8]) -> Result<(), WireError> {
    if payload.len() > MAX_FRAME_BYTES {
        return Err(WireError::TooLong {
            what: "frame",
            len: payload.len(),
            max: MAX_FRAME_BYTES,
        });
    }
    let mut head = [0u8; 5];
    head[0] = tag;
    head[1..].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    out.write_all(&head)?;
    out.write_all(payload)?;
    out.flush()?;
    Ok(())
}

/// Reads frames with `read` from `input` and sends each result to `tx` until the first
/// error (sent too: the link's end or its damage) or until nobody listens: the body of both
/// sides' reader threads.
pub fn pump<R: Read, T>(
    mut input: R,
    read: impl Fn(&mut R) -> Result<T, WireError>,
    tx: &crossbeam_channel::Sender<Result<T, WireError>>,
) {
    loop {
        let frame = read(&mut input);
        let end = frame.is_err();
        if tx.send(frame).is_err() || end {
            return;
        }
    }
}

fn read_frame(input: &mut impl Read) -> Result<(u8, Vec<u8>), WireError> {
    let mut tag = [0u8; 1];
    loop {
        match input.read(&mut tag) {
            Ok(0) => return Err(WireError::Closed),
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        }
    }
    let mut len = [0u8; 4];
    input.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME_BYTES {
        return Err(WireError::TooLong {
            what: "frame",
            len,
            max: MAX_FRAME_BYTES,
        });
    }
    let mut payload = vec![0u8; len];
    input.read_exact(&mut payload)?;
    Ok((tag[0], payload))
}

fn put_u32(p: &mut Vec<u8>, v: u32) {
    p.extend_from_slice(&v.to_le_bytes());
}

fn put_i32(p: &mut Vec<u8>, v: i32) {
    p.extend_from_slice(&v.to_le_bytes());
}

fn put_i64(p: &mut Vec<u8>, v: i64) {
    p.extend_from_slice(&v.to_le_bytes());
}

fn put_cpu(p: &mut Vec<u8>, cpu: &WorkerCpu) {
    put_i64(p, cpu.user_ns);
    put_i64(p, cpu.system_ns);
}

fn put_str(p: &mut Vec<u8>, s: &str, what: &'static str, max: usize) -> Result<(), WireError> {
    if s.len() > max {
        return Err(WireError::TooLong {
            what,
            len: s.len(),
            max,
        });
    }
    put_u32(p, s.len() as u32);
    p.extend_from_slice(s.as_bytes());
    Ok(())
}

/// eSpeak NG's parameter names as sent ([`EspeakError::Parameter`] holds a `&'static str`).
const PARAMETERS: [&str; 4] = ["rate", "pitch", "volume", "parameter"];

fn put_error(p: &mut Vec<u8>, e: &EspeakError) -> Result<(), WireError> {
    match e {
        EspeakError::Init { code } => {
            p.push(0);
            put_i32(p, *code);
        }
        EspeakError::AlreadyInitialised => p.push(1),
        EspeakError::Voice { voice, code } => {
            p.push(2);
            put_str(p, voice, "voice", MAX_VOICE_BYTES)?;
            put_i32(p, *code);
        }
        EspeakError::Parameter {
            parameter,
            value,
            code,
        } => {
            p.push(3);
            let which = PARAMETERS
                .iter()
                .position(|n| n == parameter)
                .unwrap_or(PARAMETERS.len() - 1);
            p.push(which as u8);
            put_i32(p, *value);
            put_i32(p, *code);
        }
        EspeakError::Phonemes { len_bytes } => {
            p.push(4);
            put_u32(p, (*len_bytes).min(u32::MAX as usize) as u32);
        }
        EspeakError::Synth { len_bytes, code } => {
            p.push(5);
            put_u32(p, (*len_bytes).min(u32::MAX as usize) as u32);
            put_i32(p, *code);
        }
    }
    Ok(())
}

/// Reads a payload field by field.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], WireError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(WireError::Malformed { what })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], WireError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn i32(&mut self, what: &'static str) -> Result<i32, WireError> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }

    fn i64(&mut self, what: &'static str) -> Result<i64, WireError> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    fn cpu(&mut self) -> Result<WorkerCpu, WireError> {
        Ok(WorkerCpu {
            user_ns: self.i64("user time")?,
            system_ns: self.i64("system time")?,
        })
    }

    fn flag(&mut self, what: &'static str) -> Result<bool, WireError> {
        match self.array::<1>(what)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(WireError::Malformed { what }),
        }
    }

    fn string(&mut self, what: &'static str, max: usize) -> Result<String, WireError> {
        let len = self.u32(what)? as usize;
        if len > max {
            return Err(WireError::TooLong { what, len, max });
        }
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| WireError::Malformed { what })
    }

    fn error(&mut self) -> Result<EspeakError, WireError> {
        let kind = self.array::<1>("error kind")?[0];
        Ok(match kind {
            0 => EspeakError::Init {
                code: self.i32("error code")?,
            },
            1 => EspeakError::AlreadyInitialised,
            2 => EspeakError::Voice {
                voice: self.string("voice", MAX_VOICE_BYTES)?,
                code: self.i32("error code")?,
            },
            3 => {
                let which = self.array::<1>("parameter")?[0] as usize;
                EspeakError::Parameter {
                    parameter: PARAMETERS
                        .get(which)
                        .copied()
                        .ok_or(WireError::Malformed { what: "parameter" })?,
                    value: self.i32("parameter value")?,
                    code: self.i32("error code")?,
                }
            }
            4 => EspeakError::Phonemes {
                len_bytes: self.u32("text length")? as usize,
            },
            5 => EspeakError::Synth {
                len_bytes: self.u32("text length")? as usize,
                code: self.i32("error code")?,
            },
            _ => return Err(WireError::Malformed { what: "error kind" }),
        })
    }

    fn end(&self, what: &'static str) -> Result<(), WireError> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(WireError::Malformed { what })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command_round_trip(cmd: Command) {
        let mut buf = Vec::new();
        write_command(&mut buf, &cmd).unwrap();
        let back = read_command(&mut buf.as_slice()).unwrap();
        assert_eq!(back, cmd);
    }

    #[test]
    fn commands_come_back_as_sent() {
        command_round_trip(Command::Synth {
            voice: "en-us".into(),
            rate_wpm: 450,
            pitch: 50,
            volume: 200,
            end_pause: true,
            text: "Stop, person. 東京 \u{1F600}".into(),
        });
        command_round_trip(Command::Phonemes {
            voice: "de".into(),
            text: String::new(),
        });
        command_round_trip(Command::Ack { go_on: false });
        command_round_trip(Command::Ack { go_on: true });
    }

    #[test]
    fn replies_come_back_as_sent() {
        let mut buf = Vec::new();
        let samples: Vec<i16> = vec![i16::MIN, -1, 0, 1, i16::MAX];
        write_reply(
            &mut buf,
            &Reply::Ready {
                sample_rate_hz: 22_050,
            },
        )
        .unwrap();
        write_reply(&mut buf, &Reply::Chunk(samples.clone())).unwrap();
        write_reply(
            &mut buf,
            &Reply::SynthDone {
                result: Err(EspeakError::Parameter {
                    parameter: "pitch",
                    value: 101,
                    code: 2,
                }),
                cpu: WorkerCpu {
                    user_ns: 7,
                    system_ns: 1,
                },
            },
        )
        .unwrap();
        write_reply(
            &mut buf,
            &Reply::PhonemesDone {
                result: Ok(vec!["stˈɑːp".into(), "pˈɜːsən".into()]),
                cpu: WorkerCpu::default(),
            },
        )
        .unwrap();
        let mut r = buf.as_slice();
        assert!(matches!(
            read_reply(&mut r),
            Ok(Reply::Ready {
                sample_rate_hz: 22_050
            })
        ));
        assert!(matches!(read_reply(&mut r), Ok(Reply::Chunk(s)) if s == samples));
        assert!(matches!(
            read_reply(&mut r),
            Ok(Reply::SynthDone {
                result: Err(EspeakError::Parameter {
                    parameter: "pitch",
                    value: 101,
                    code: 2
                }),
                cpu: WorkerCpu {
                    user_ns: 7,
                    system_ns: 1
                }
            })
        ));
        assert!(matches!(
            read_reply(&mut r),
            Ok(Reply::PhonemesDone { result: Ok(c), .. }) if c.len() == 2 && c[1] == "pˈɜːsən"
        ));
        assert!(matches!(read_reply(&mut r), Err(WireError::Closed)));
    }

    #[test]
    fn a_huge_announced_length_is_refused_before_allocating() {
        let mut frame = vec![T_CHUNK];
        frame.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            read_reply(&mut frame.as_slice()),
            Err(WireError::TooLong { what: "frame", .. })
        ));
        // Inside a frame of a plausible size, a sample count beyond the bound.
        let mut p = Vec::new();
        put_u32(&mut p, (MAX_CHUNK_SAMPLES + 1) as u32);
        let mut buf = Vec::new();
        write_frame(&mut buf, T_CHUNK, &p).unwrap();
        assert!(matches!(
            read_reply(&mut buf.as_slice()),
            Err(WireError::TooLong {
                what: "block of samples",
                ..
            })
        ));
    }

    #[test]
    fn cut_or_garbled_frames_are_typed_errors() {
        let mut buf = Vec::new();
        write_command(
            &mut buf,
            &Command::Phonemes {
                voice: "en".into(),
                text: "hello".into(),
            },
        )
        .unwrap();
        // Cut inside the payload: an I/O error (unexpected end), not a clean close.
        let cut = &buf[..buf.len() - 2];
        assert!(matches!(read_command(&mut &cut[..]), Err(WireError::Io(_))));
        // An unknown tag.
        let mut bad = buf.clone();
        bad[0] = 0x7f;
        assert!(matches!(
            read_command(&mut bad.as_slice()),
            Err(WireError::UnknownTag { tag: 0x7f })
        ));
        // A string length within its bound but pointing past the payload; one beyond it.
        let mut p = Vec::new();
        put_u32(&mut p, 100);
        p.extend_from_slice(b"en");
        let mut frame = Vec::new();
        write_frame(&mut frame, T_PHONEMES, &p).unwrap();
        assert!(matches!(
            read_command(&mut frame.as_slice()),
            Err(WireError::Malformed { what: "voice" })
        ));
        let mut p = Vec::new();
        put_u32(&mut p, (MAX_VOICE_BYTES + 1) as u32);
        let mut frame = Vec::new();
        write_frame(&mut frame, T_PHONEMES, &p).unwrap();
        assert!(matches!(
            read_command(&mut frame.as_slice()),
            Err(WireError::TooLong { what: "voice", .. })
        ));
        // Invalid UTF-8 in a text, and a flag that is neither 0 nor 1.
        let mut p = Vec::new();
        put_u32(&mut p, 2);
        p.extend_from_slice(b"en");
        put_u32(&mut p, 2);
        p.extend_from_slice(&[0xff, 0xfe]);
        let mut frame = Vec::new();
        write_frame(&mut frame, T_PHONEMES, &p).unwrap();
        assert!(matches!(
            read_command(&mut frame.as_slice()),
            Err(WireError::Malformed { what: "text" })
        ));
        let mut frame = Vec::new();
        write_frame(&mut frame, T_ACK, &[2]).unwrap();
        assert!(matches!(
            read_command(&mut frame.as_slice()),
            Err(WireError::Malformed { .. })
        ));
        // Bytes left over after the fields.
        let mut frame = Vec::new();
        write_frame(&mut frame, T_ACK, &[1, 0]).unwrap();
        assert!(matches!(
            read_command(&mut frame.as_slice()),
            Err(WireError::Malformed { what: "command" })
        ));
    }

    #[test]
    fn a_text_beyond_the_bound_is_not_sent() {
        let cmd = Command::Phonemes {
            voice: "en".into(),
            text: "a".repeat(MAX_TEXT_BYTES + 1),
        };
        let mut buf = Vec::new();
        assert!(matches!(
            write_command(&mut buf, &cmd),
            Err(WireError::TooLong { what: "text", .. })
        ));
        assert!(buf.is_empty());
    }
}
