//! The names of the CPU stages ([`super::cpu`]): one table, so a stage is named the same
//! wherever its work runs (OCR read around the gaze runs on the OCR thread and, inline, in
//! perception), and the budget, the report and the picture find it by the same name. A
//! runtime consumer's thread is accounted under the consumer's own name.

/// Reading recordings and the live stream into the rings.
pub const INGEST: &str = "ingest";
/// Reading ahead of ingest (decoding frames before they are due).
pub const PREFETCH: &str = "prefetch";
/// Stereo depth from the SLAM pair.
pub const STEREO: &str = "stereo";
/// Moving things from frame-to-frame motion (vehicles from motion).
pub const MOVERS: &str = "movers";
/// Text reads around the gaze (periodic).
pub const OCR: &str = "ocr";
/// Whole-frame text reads asked for by a request.
pub const OCR_WHOLE: &str = "ocr-whole";
/// The object detector on the RGB camera.
pub const DETECTOR: &str = "detector";
/// The language model's prompt prefilled ahead of requests.
pub const LM_PREFILL: &str = "lm-prefill";
/// Answers: templates and the language model's generation.
pub const ANSWERS: &str = "answers";
/// Requests read from a file, standard input or a socket, and the live request pump.
pub const REQUESTS: &str = "requests";
/// The speaker thread (scheduling, mixing, the sink).
pub const SPEECH: &str = "speech";
/// Text to speech (the eSpeak NG worker's thread and process, the Piper voice).
pub const SPEECH_SYNTHESIS: &str = "speech-synthesis";
/// The CPU budget's governor.
pub const CPU_BUDGET: &str = "cpu-budget";
