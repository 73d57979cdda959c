//! RecordFormat (`vrs/RecordFormat.h`): the `RF:` tag string, e.g.
//! `data_layout/size=84+image/jpg`, parsed into content block specs, and the split of a
//! decompressed payload into those blocks.

use std::ops::Range;

use super::data_layout::DataLayout;

/// Image codec of an image block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageCodec {
    /// Uncompressed pixels.
    Raw,
    /// JPEG.
    Jpg,
    /// PNG.
    Png,
    /// Video codec frames (H.265 …; not decoded here).
    Video,
    /// JPEG XL.
    Jxl,
    /// Any other codec name.
    Other(String),
}

/// One content block of a record, as the format string describes it.
#[derive(Clone, Debug, PartialEq)]
pub enum ContentBlockSpec {
    /// `empty`: no bytes.
    Empty,
    /// `data_layout[/size=N]`: a DataLayout, fixed size `N` or variable (`None`).
    DataLayout {
        /// Declared size for fixed layouts.
        size: Option<usize>,
    },
    /// `image/<codec>[/WxH][/pixel=fmt][/stride=N]`.
    Image {
        /// The codec.
        codec: ImageCodec,
        /// Declared width, when the spec carries it.
        width: Option<u32>,
        /// Declared height.
        height: Option<u32>,
        /// Declared pixel format name (`grey8`, `rgb8`, …).
        pixel_format: Option<String>,
        /// Declared row stride in bytes.
        stride: Option<u32>,
    },
    /// `audio/<fmt>/<sampleformat>/channels=N/rate=R[/samples=N]`.
    Audio {
        /// `pcm`, `opus`, …
        format: String,
        /// `int32le`, `int16le`, …
        sample_format: Option<String>,
        /// Channels per frame.
        channels: Option<u32>,
        /// Frames per second.
        rate: Option<u32>,
        /// Frames in the block, when declared.
        samples: Option<u32>,
    },
    /// `custom[/size=N]`: an opaque blob.
    Custom {
        /// Declared size.
        size: Option<usize>,
    },
}

/// Bytes per pixel of the simple raw pixel formats (`None` for planar or packed ones).
fn bytes_per_pixel(name: &str) -> Option<u32> {
    Some(match name {
        "grey8" | "bayer8_rggb" => 1,
        "grey10" | "grey12" | "grey16" => 2,
        "bgr8" | "rgb8" => 3,
        "depth32f" | "rgba8" | "scalar32f" => 4,
        "scalar64f" => 8,
        "rgb32F" => 12,
        "rgba32F" => 16,
        _ => return None,
    })
}

/// Bytes per sample of an audio sample format name.
fn audio_sample_bytes(name: &str) -> Option<u32> {
    Some(match name {
        "int8" | "uint8" | "mulaw" | "alaw" => 1,
        "int16le" | "uint16le" | "int16be" | "uint16be" => 2,
        "int24le" | "uint24le" | "int24be" | "uint24be" => 3,
        "int32le" | "uint32le" | "int32be" | "uint32be" | "float32le" | "float32be" => 4,
        "float64le" | "float64be" => 8,
        _ => return None,
    })
}

impl ContentBlockSpec {
    /// Parses one block (the text between `+`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = text.split('/');
        let head = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        let kv = |key: &str| -> Result<Option<u64>, String> {
            for p in &rest {
                if let Some(v) = p.strip_prefix(key).and_then(|v| v.strip_prefix('=')) {
                    return v
                        .parse()
                        .map(Some)
                        .map_err(|_| format!("bad {key} in {text:?}"));
                }
            }
            Ok(None)
        };
        let small = |v: Option<u64>| v.and_then(|v| u32::try_from(v).ok());
        match head {
            "empty" => Ok(Self::Empty),
            "data_layout" => Ok(Self::DataLayout {
                size: kv("size")?.map(|v| v as usize),
            }),
            "custom" => Ok(Self::Custom {
                size: kv("size")?.map(|v| v as usize),
            }),
            "image" => {
                let codec = match rest.first().copied() {
                    Some("raw") => ImageCodec::Raw,
                    Some("jpg") => ImageCodec::Jpg,
                    Some("png") => ImageCodec::Png,
                    Some("video") => ImageCodec::Video,
                    Some("jxl") => ImageCodec::Jxl,
                    Some(other) => ImageCodec::Other(other.to_string()),
                    None => return Err(format!("image block without codec: {text:?}")),
                };
                let mut width = None;
                let mut height = None;
                let mut pixel_format = None;
                for p in rest.iter().skip(1) {
                    if let Some(v) = p.strip_prefix("pixel=") {
                        pixel_format = Some(v.to_string());
                    } else if let Some((w, h)) = p.split_once('x') {
                        if let (Ok(w), Ok(h)) = (w.parse(), h.parse()) {
                            width = Some(w);
                            height = Some(h);
                        }
                    }
                }
                Ok(Self::Image {
                    codec,
                    width,
                    height,
                    pixel_format,
                    stride: small(kv("stride")?),
                })
            }
            "audio" => Ok(Self::Audio {
                format: rest.first().copied().unwrap_or_default().to_string(),
                sample_format: rest
                    .get(1)
                    .filter(|s| !s.contains('='))
                    .map(|s| s.to_string()),
                channels: small(kv("channels")?),
                rate: small(kv("rate")?),
                samples: small(kv("samples")?),
            }),
            other => Err(format!("unknown content block type {other:?} in {text:?}")),
        }
    }

    /// Size in bytes when the spec alone determines it.
    fn declared_size(&self) -> Option<usize> {
        match self {
            Self::Empty => Some(0),
            Self::DataLayout { size } | Self::Custom { size } => *size,
            Self::Image {
                codec: ImageCodec::Raw,
                width: Some(w),
                height: Some(h),
                pixel_format,
                stride,
            } => {
                let row = match stride {
                    Some(s) => *s,
                    None => w.checked_mul(bytes_per_pixel(pixel_format.as_deref()?)?)?,
                };
                (row as usize).checked_mul(*h as usize)
            }
            // Compressed audio (Opus) has no size of its own: the block runs to the end.
            Self::Audio {
                format,
                sample_format: Some(f),
                channels: Some(c),
                samples: Some(n),
                ..
            } if format.is_empty() || format == "pcm" => (audio_sample_bytes(f)? as usize)
                .checked_mul(*c as usize)?
                .checked_mul(*n as usize),
            _ => None,
        }
    }
}

/// A parsed record format: its content blocks in order.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordFormat {
    text: String,
    blocks: Vec<ContentBlockSpec>,
}

impl RecordFormat {
    /// Parses an `RF:` tag value.
    pub fn parse(text: &str) -> Result<Self, String> {
        let blocks = text
            .split('+')
            .map(ContentBlockSpec::parse)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            text: text.to_string(),
            blocks,
        })
    }
    /// The original format string.
    pub fn as_str(&self) -> &str {
        &self.text
    }
    /// The content blocks.
    pub fn blocks(&self) -> &[ContentBlockSpec] {
        &self.blocks
    }

    /// Splits a decompressed payload into one byte range per block. A variable-size
    /// DataLayout block is sized with `layout(block_index)`; the last block takes the rest of
    /// the payload. Errors say which block could not be placed.
    pub fn split<'l>(
        &self,
        payload: &[u8],
        layout: impl Fn(usize) -> Option<&'l DataLayout>,
    ) -> Result<Vec<Range<usize>>, String> {
        let mut out = Vec::with_capacity(self.blocks.len());
        self.split_into(payload, layout, &mut out)?;
        Ok(out)
    }

    /// Like [`Self::split`], into a reused vector (cleared first).
    pub fn split_into<'l>(
        &self,
        payload: &[u8],
        layout: impl Fn(usize) -> Option<&'l DataLayout>,
        out: &mut Vec<Range<usize>>,
    ) -> Result<(), String> {
        out.clear();
        let mut pos = 0usize;
        let last = self.blocks.len().saturating_sub(1);
        for (i, spec) in self.blocks.iter().enumerate() {
            let rest = payload.get(pos..).unwrap_or_default();
            let size = match spec.declared_size() {
                Some(s) => s,
                None => match spec {
                    ContentBlockSpec::DataLayout { size: None } => layout(i)
                        .ok_or_else(|| format!("block {i}: no DataLayout to size it"))?
                        .total_size(rest)
                        .ok_or_else(|| {
                            format!("block {i}: var-size DataLayout runs past the record")
                        })?,
                    _ if i == last => rest.len(),
                    _ => return Err(format!("block {i} ({spec:?}): size unknown")),
                },
            };
            let end = pos
                .checked_add(size)
                .filter(|&e| e <= payload.len())
                .ok_or_else(|| {
                    format!(
                        "block {i} needs {size} bytes at {pos}, payload has {}",
                        payload.len()
                    )
                })?;
            out.push(pos..end);
            pos = end;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_aria_formats() {
        let rf = RecordFormat::parse("data_layout/size=84+image/jpg").unwrap();
        assert_eq!(rf.blocks().len(), 2);
        assert_eq!(
            rf.blocks()[0],
            ContentBlockSpec::DataLayout { size: Some(84) }
        );
        assert!(matches!(
            rf.blocks()[1],
            ContentBlockSpec::Image {
                codec: ImageCodec::Jpg,
                ..
            }
        ));
        let payload = vec![0u8; 100];
        assert_eq!(rf.split(&payload, |_| None).unwrap(), vec![0..84, 84..100]);
        assert!(rf.split(&payload[..50], |_| None).is_err());

        let audio =
            RecordFormat::parse("data_layout+audio/pcm/int32le/channels=7/rate=48000").unwrap();
        match &audio.blocks()[1] {
            ContentBlockSpec::Audio {
                format,
                sample_format,
                channels,
                rate,
                ..
            } => {
                assert_eq!(format, "pcm");
                assert_eq!(sample_format.as_deref(), Some("int32le"));
                assert_eq!((*channels, *rate), (Some(7), Some(48000)));
            }
            other => panic!("{other:?}"),
        }
        // A var layout block cannot be split without its layout.
        assert!(audio.split(&payload, |_| None).is_err());
    }

    #[test]
    fn raw_image_size_and_errors() {
        let rf = RecordFormat::parse("image/raw/4x2/pixel=grey8+custom").unwrap();
        assert_eq!(rf.split(&[0u8; 10], |_| None).unwrap(), vec![0..8, 8..10]);
        assert!(RecordFormat::parse("pictures/jpg").is_err());
        assert!(RecordFormat::parse("data_layout/size=x").is_err());
    }
}
