//! The eSpeak NG C library, declared by hand (the dozen functions vista uses) with a small
//! safe wrapper: synthesis, and text to IPA phonemes (for the Piper voice,
//! [`crate::speech::piper`]).
//!
//! eSpeak NG keeps global state and is not thread-safe, so [`Engine`] is a process-wide
//! singleton: [`Engine::init`] succeeds once per process, and the value is `!Send`, so every
//! call happens on the thread that created it (vista's TTS thread, see
//! [`crate::speech::tts`]). Synthesis runs in `AUDIO_OUTPUT_SYNCHRONOUS` mode: the library
//! calls its synth callback with 16-bit mono samples from inside `espeak_Synth`, and a
//! non-zero return from the callback stops the utterance.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_short, c_uint, c_void, CString};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

/// `espeak_AUDIO_OUTPUT::AUDIO_OUTPUT_SYNCHRONOUS`.
const AUDIO_OUTPUT_SYNCHRONOUS: c_int = 2;
/// `espeakINITIALIZE_DONT_EXIT`: return an error instead of calling `exit()`.
const INITIALIZE_DONT_EXIT: c_int = 0x8000;
/// `espeak_POSITION_TYPE::POS_CHARACTER`.
const POS_CHARACTER: c_int = 1;
/// `espeakCHARS_UTF8`.
const CHARS_UTF8: c_uint = 1;
/// `espeakENDPAUSE`: a sentence pause at the end of the text.
const ENDPAUSE: c_uint = 0x1000;
/// `espeak_PARAMETER` values.
const PARAM_RATE: c_int = 1;
const PARAM_VOLUME: c_int = 2;
const PARAM_PITCH: c_int = 3;
/// `espeak_ERROR::EE_OK`.
const EE_OK: c_int = 0;
/// `espeak_TextToPhonemes` phoneme mode: bit 1 set, phonemes as IPA (UTF-8), no separator.
const PHONEMES_IPA: c_int = 0x02;

type SynthCallback = unsafe extern "C" fn(*mut c_short, c_int, *mut c_void) -> c_int;

#[link(name = "espeak-ng")]
extern "C" {
    fn espeak_Initialize(
        output: c_int,
        buflength: c_int,
        path: *const c_char,
        options: c_int,
    ) -> c_int;
    fn espeak_SetSynthCallback(cb: SynthCallback);
    fn espeak_SetVoiceByName(name: *const c_char) -> c_int;
    fn espeak_SetParameter(parameter: c_int, value: c_int, relative: c_int) -> c_int;
    fn espeak_Synth(
        text: *const c_void,
        size: usize,
        position: c_uint,
        position_type: c_int,
        end_position: c_uint,
        flags: c_uint,
        unique_identifier: *mut c_uint,
        user_data: *mut c_void,
    ) -> c_int;
    fn espeak_TextToPhonemes(
        textptr: *mut *const c_void,
        textmode: c_int,
        phonememode: c_int,
    ) -> *const c_char;
}

/// Set once the library has been initialised in this process.
static INITIALISED: AtomicBool = AtomicBool::new(false);

/// What the per-utterance sample handler returns: `true` to go on, `false` to stop.
type Handler = Box<dyn FnMut(&[i16]) -> bool>;

thread_local! {
    /// The handler of the utterance being synthesised on this thread (only during
    /// [`Engine::synth`]).
    static HANDLER: RefCell<Option<Handler>> = const { RefCell::new(None) };
}

/// Called by eSpeak NG from inside `espeak_Synth`, on the engine's thread.
unsafe extern "C" fn synth_callback(wav: *mut c_short, n: c_int, _events: *mut c_void) -> c_int {
    let samples: &[i16] = if wav.is_null() || n <= 0 {
        &[]
    } else {
        // SAFETY: eSpeak NG hands us `n` valid samples at `wav` for the duration of the call.
        unsafe { std::slice::from_raw_parts(wav as *const i16, n as usize) }
    };
    if samples.is_empty() {
        return 0;
    }
    let go_on = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        HANDLER.with(|h| match h.try_borrow_mut() {
            Ok(mut slot) => match slot.as_mut() {
                Some(handler) => handler(samples),
                None => true,
            },
            Err(_) => false,
        })
    }))
    .unwrap_or(false);
    if go_on {
        0
    } else {
        1
    }
}

/// A failure reported by the eSpeak NG library.
#[derive(Debug, thiserror::Error)]
pub enum EspeakError {
    /// `espeak_Initialize` failed (e.g. no `espeak-ng-data`).
    #[error("eSpeak NG: initialisation failed (code {code})")]
    Init {
        /// The value `espeak_Initialize` returned.
        code: i32,
    },
    /// The library was already initialised by another [`Engine`] in this process.
    #[error("eSpeak NG: already initialised in this process (it is not thread-safe)")]
    AlreadyInitialised,
    /// The voice name is unknown to eSpeak NG.
    #[error("eSpeak NG: voice {voice:?} not found (code {code})")]
    Voice {
        /// The requested voice.
        voice: String,
        /// The library's error code.
        code: i32,
    },
    /// A parameter was rejected.
    #[error("eSpeak NG: parameter {parameter} = {value} rejected (code {code})")]
    Parameter {
        /// Which parameter (`rate`, `pitch`, `volume`).
        parameter: &'static str,
        /// The value.
        value: i32,
        /// The library's error code.
        code: i32,
    },
    /// `espeak_TextToPhonemes` gave no phonemes for a text it had not finished.
    #[error("eSpeak NG: phonemisation of a {len_bytes}-byte text failed")]
    Phonemes {
        /// Text length in bytes.
        len_bytes: usize,
    },
    /// `espeak_Synth` failed.
    #[error("eSpeak NG: synthesis of a {len_bytes}-byte text failed (code {code})")]
    Synth {
        /// Text length in bytes.
        len_bytes: usize,
        /// The library's error code.
        code: i32,
    },
}

/// The initialised library, bound to the thread that created it.
#[derive(Debug)]
pub struct Engine {
    sample_rate_hz: u32,
    /// `*const ()` makes the engine `!Send` and `!Sync`.
    _not_send: PhantomData<*const ()>,
}

impl Engine {
    /// Initialises eSpeak NG in synchronous mode with callback buffers of `buffer_ms`
    /// milliseconds. Succeeds at most once per process.
    pub fn init(buffer_ms: u32) -> Result<Self, EspeakError> {
        if INITIALISED.swap(true, Ordering::AcqRel) {
            return Err(EspeakError::AlreadyInitialised);
        }
        let buffer_ms = buffer_ms.clamp(1, 1000) as c_int;
        // SAFETY: plain FFI call; a null path selects the default data directory.
        let rate = unsafe {
            espeak_Initialize(
                AUDIO_OUTPUT_SYNCHRONOUS,
                buffer_ms,
                std::ptr::null(),
                INITIALIZE_DONT_EXIT,
            )
        };
        if rate <= 0 {
            return Err(EspeakError::Init { code: rate });
        }
        // SAFETY: `synth_callback` matches `t_espeak_callback` and lives for the program.
        unsafe { espeak_SetSynthCallback(synth_callback) };
        Ok(Self {
            sample_rate_hz: rate as u32,
            _not_send: PhantomData,
        })
    }

    /// The output sample rate (22 050 Hz for eSpeak NG 1.51), mono, signed 16-bit.
    pub fn sample_rate_hz(&self) -> u32 {
        self.sample_rate_hz
    }

    /// Selects a voice by name (e.g. `en-us`, `en`, `de`).
    pub fn set_voice(&mut self, voice: &str) -> Result<(), EspeakError> {
        let name = CString::new(voice.replace('\0', "")).map_err(|_| EspeakError::Voice {
            voice: voice.to_string(),
            code: -1,
        })?;
        // SAFETY: `name` is a valid NUL-terminated string for the duration of the call.
        let code = unsafe { espeak_SetVoiceByName(name.as_ptr()) };
        if code == EE_OK {
            Ok(())
        } else {
            Err(EspeakError::Voice {
                voice: voice.to_string(),
                code,
            })
        }
    }

    fn set_parameter(
        &mut self,
        parameter: &'static str,
        id: c_int,
        value: i32,
    ) -> Result<(), EspeakError> {
        // SAFETY: plain FFI call with integer arguments.
        let code = unsafe { espeak_SetParameter(id, value, 0) };
        if code == EE_OK {
            Ok(())
        } else {
            Err(EspeakError::Parameter {
                parameter,
                value,
                code,
            })
        }
    }

    /// Speaking rate in words per minute (eSpeak NG accepts 80–450 and more).
    pub fn set_rate_wpm(&mut self, wpm: i32) -> Result<(), EspeakError> {
        self.set_parameter("rate", PARAM_RATE, wpm)
    }

    /// Base pitch, 0–100 (50 is normal).
    pub fn set_pitch(&mut self, pitch: i32) -> Result<(), EspeakError> {
        self.set_parameter("pitch", PARAM_PITCH, pitch)
    }

    /// Volume, 0–200 (100 is normal).
    pub fn set_volume(&mut self, volume: i32) -> Result<(), EspeakError> {
        self.set_parameter("volume", PARAM_VOLUME, volume)
    }

    /// Synthesises `text` (UTF-8, plain text, not SSML), calling `on_samples` with each block
    /// of samples as it is produced; returning `false` stops the utterance early. Interior NUL
    /// characters are replaced by spaces. `end_pause` adds eSpeak NG's sentence pause at the
    /// end (as the `espeak-ng` command-line tool does).
    pub fn synth(
        &mut self,
        text: &str,
        end_pause: bool,
        on_samples: impl FnMut(&[i16]) -> bool + 'static,
    ) -> Result<(), EspeakError> {
        let c_text = CString::new(text.replace('\0', " ")).map_err(|_| EspeakError::Synth {
            len_bytes: text.len(),
            code: -1,
        })?;
        let size = c_text.as_bytes_with_nul().len();
        HANDLER.with(|h| {
            if let Ok(mut slot) = h.try_borrow_mut() {
                *slot = Some(Box::new(on_samples));
            }
        });
        let flags = if end_pause {
            CHARS_UTF8 | ENDPAUSE
        } else {
            CHARS_UTF8
        };
        let mut id: c_uint = 0;
        // SAFETY: `c_text` is NUL-terminated and outlives the call; in synchronous mode the
        // call returns only after the last callback; `id` is a valid out-pointer.
        let code = unsafe {
            espeak_Synth(
                c_text.as_ptr() as *const c_void,
                size,
                0,
                POS_CHARACTER,
                0,
                flags,
                &mut id,
                std::ptr::null_mut(),
            )
        };
        HANDLER.with(|h| {
            if let Ok(mut slot) = h.try_borrow_mut() {
                *slot = None;
            }
        });
        if code == EE_OK {
            Ok(())
        } else {
            Err(EspeakError::Synth {
                len_bytes: text.len(),
                code,
            })
        }
    }

    /// The IPA phonemes of `text` (UTF-8, plain text) in the current voice, one string per
    /// clause as eSpeak NG splits it (at punctuation), words separated by spaces, with
    /// stress marks and without the clauses' punctuation. Interior NUL characters are
    /// replaced by spaces. Synthesis settings are not touched.
    pub fn text_to_phonemes(&mut self, text: &str) -> Result<Vec<String>, EspeakError> {
        let c_text = CString::new(text.replace('\0', " ")).map_err(|_| EspeakError::Phonemes {
            len_bytes: text.len(),
        })?;
        let mut clauses = Vec::new();
        let mut cursor: *const c_void = c_text.as_ptr() as *const c_void;
        // Each call consumes at least one character, so a text of n bytes takes at most
        // n + 1 calls; the bound only guards against a library that stops advancing.
        for _ in 0..=c_text.as_bytes().len() {
            if cursor.is_null() {
                return Ok(clauses);
            }
            // SAFETY: `cursor` points into `c_text` (NUL-terminated, alive for the whole
            // loop): at its start, or where the library left it after the previous clause.
            // The library reads one clause, moves `cursor` past it (null at the end of the
            // text) and returns a pointer to its own NUL-terminated buffer, valid until the
            // next call on this thread (this engine is `!Send`, so no other thread calls).
            let phonemes =
                unsafe { espeak_TextToPhonemes(&mut cursor, CHARS_UTF8 as c_int, PHONEMES_IPA) };
            if phonemes.is_null() {
                return Err(EspeakError::Phonemes {
                    len_bytes: text.len(),
                });
            }
            // SAFETY: non-null, NUL-terminated (see above); copied out before the next call.
            let clause = unsafe { std::ffi::CStr::from_ptr(phonemes) }
                .to_string_lossy()
                .trim()
                .to_string();
            if !clause.is_empty() {
                clauses.push(clause);
            }
        }
        if cursor.is_null() {
            Ok(clauses)
        } else {
            Err(EspeakError::Phonemes {
                len_bytes: text.len(),
            })
        }
    }
}
