//! Frames over a byte stream (TCP): read one length-prefixed frame at a time, checking the
//! length against [`Limits`] before allocating the body, and write frames.
//!
//! Errors name the peer and the byte offset of the frame in the connection, so a hostile
//! or damaged frame produces one clear log line.

use std::io::{self, Read, Write};

use bytes::Bytes;

use super::protocol::{
    check_frame_len, decode_frame, encode_frame, Frame, Limits, ProtocolError, LENGTH_PREFIX_BYTES,
};

/// Why a frame could not be read from (or written to) a connection.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The peer closed the connection between frames.
    #[error("{peer}: connection closed at byte {offset}")]
    Closed {
        /// The peer's address.
        peer: String,
        /// Bytes read on this connection so far.
        offset: u64,
    },
    /// Reading or writing failed (including a close in the middle of a frame, or a timeout).
    #[error("{peer}: I/O error at byte {offset}: {source}")]
    Io {
        /// The peer's address.
        peer: String,
        /// Offset in the connection of the frame being read.
        offset: u64,
        /// The error.
        source: io::Error,
    },
    /// The frame is malformed or too large.
    #[error("{peer}: bad frame at connection byte {offset}: {source}")]
    Protocol {
        /// The peer's address.
        peer: String,
        /// Offset in the connection of the frame's length prefix.
        offset: u64,
        /// What is wrong (offsets inside the frame body).
        source: ProtocolError,
    },
}

/// Reads frames from a stream, tracking the byte offset.
#[derive(Debug)]
pub struct FrameReader<R> {
    inner: R,
    peer: String,
    offset: u64,
    limits: Limits,
}

impl<R: Read> FrameReader<R> {
    /// A reader over `inner` (named `peer` in errors).
    pub fn new(inner: R, peer: impl Into<String>, limits: Limits) -> Self {
        Self {
            inner,
            peer: peer.into(),
            offset: 0,
            limits,
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The underlying stream.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Reads the next frame. A close exactly between frames is [`LinkError::Closed`].
    pub fn read_frame(&mut self) -> Result<Frame, LinkError> {
        let at = self.offset;
        let mut len = [0u8; LENGTH_PREFIX_BYTES];
        let mut got = 0;
        while got < len.len() {
            let Some(dst) = len.get_mut(got..) else {
                break;
            };
            match self.inner.read(dst) {
                Ok(0) if got == 0 => {
                    return Err(LinkError::Closed {
                        peer: self.peer.clone(),
                        offset: at,
                    })
                }
                Ok(0) => return Err(self.io(at, io::ErrorKind::UnexpectedEof.into())),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io(at, e)),
            }
        }
        let n = check_frame_len(u32::from_le_bytes(len), &self.limits).map_err(|source| {
            LinkError::Protocol {
                peer: self.peer.clone(),
                offset: at,
                source,
            }
        })?;
        // Allocated only after the length passed the limit check.
        let mut body = vec![0u8; n];
        self.inner
            .read_exact(&mut body)
            .map_err(|e| self.io(at, e))?;
        self.offset = at + (LENGTH_PREFIX_BYTES + n) as u64;
        decode_frame(&Bytes::from(body), &self.limits).map_err(|source| LinkError::Protocol {
            peer: self.peer.clone(),
            offset: at,
            source,
        })
    }

    fn io(&self, offset: u64, source: io::Error) -> LinkError {
        LinkError::Io {
            peer: self.peer.clone(),
            offset,
            source,
        }
    }
}

/// Encodes `frame` into `scratch` (cleared first) and writes it whole.
pub fn write_frame<W: Write>(
    w: &mut W,
    frame: &Frame,
    scratch: &mut Vec<u8>,
) -> Result<(), io::Error> {
    scratch.clear();
    encode_frame(frame, scratch).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    w.write_all(scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::DeviceTime;

    fn bytes_of(frames: &[Frame]) -> Vec<u8> {
        let mut out = Vec::new();
        for f in frames {
            encode_frame(f, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn reads_frames_then_closed_with_offsets() {
        let frames = [
            Frame::Heartbeat {
                device_now: DeviceTime(7),
            },
            Frame::Goodbye { reason: "x".into() },
        ];
        let data = bytes_of(&frames);
        let mut r = FrameReader::new(&data[..], "test", Limits::default());
        assert_eq!(r.read_frame().unwrap(), frames[0]);
        assert_eq!(r.offset(), 4 + 9);
        assert_eq!(r.read_frame().unwrap(), frames[1]);
        assert!(
            matches!(r.read_frame(), Err(LinkError::Closed { offset, .. }) if offset == data.len() as u64)
        );
    }

    #[test]
    fn truncated_and_oversized_frames_are_errors() {
        let data = bytes_of(&[Frame::Heartbeat {
            device_now: DeviceTime(7),
        }]);
        for cut in 1..data.len() {
            let mut r = FrameReader::new(&data[..cut], "t", Limits::default());
            assert!(matches!(
                r.read_frame(),
                Err(LinkError::Io { offset: 0, .. })
            ));
        }
        // A prefix claiming 4 GiB with nothing behind it: rejected by the limit, no allocation.
        let huge = u32::MAX.to_le_bytes();
        let mut r = FrameReader::new(&huge[..], "t", Limits::default());
        assert!(matches!(
            r.read_frame(),
            Err(LinkError::Protocol {
                source: ProtocolError::TooLarge { .. },
                ..
            })
        ));
    }
}
