//! Native VRS (facebookresearch/vrs) reader and writer.
//!
//! * Reading ([`VrsReader`]): file header (VRS1 and VRS2 layouts), description record
//!   (streams, tags, record formats, data layouts), classic and split index records — or a
//!   linear scan of record headers when the index is missing, cut short or wrong
//!   ([`RecoveryReport`]). Records are read by positional reads (thread-safe, `&self`),
//!   decompressed (zstd, LZ4 frame) into reusable buffers, split into content blocks
//!   ([`RecordFormat`]) and decoded by name and type ([`DataLayout`]).
//! * Writing ([`VrsWriter`]): VRS1 layout (header, description, records, index at the end).
//!
//! The byte-level reference is `aria-formats.md` §1. Pure parsers live in their own files
//! and never touch the file system; [`reader`] and [`writer`] do the I/O.

pub mod cursor;
pub mod data_layout;
pub mod data_layout_encode;
pub mod decompress;
pub mod description;
pub mod error;
pub mod file_io;
pub mod header;
pub mod index;
pub mod reader;
pub mod record_format;
pub mod record_header;
pub mod scan;
pub mod types;
pub mod writer;

pub use data_layout::{ArrayAt, DataLayout, DlScalar, Elem, Piece, PieceKind, Scalar, ValueAt};
pub use data_layout_encode::{DataLayoutBuilder, DataLayoutEncoder};
pub use description::VrsStream;
pub use error::{ParseError, VrsError};
pub use header::FileHeader;
pub use index::IndexEntry;
pub use reader::{IndexSource, Record, RecoveryReport, VrsReader};
pub use record_format::{ContentBlockSpec, ImageCodec, RecordFormat};
pub use record_header::RecordHeader;
pub use types::{Compression, RecordType, VrsStreamId};
pub use writer::{StreamSpec, VrsWriter, WriteSummary};

/// Fuzzing entry point: opens `data` as an in-memory VRS file and reads, splits and decodes
/// every record. Must never panic, whatever the bytes.
pub fn fuzz_entry(data: &[u8]) {
    let Ok(r) = VrsReader::from_bytes("fuzz.vrs", bytes::Bytes::copy_from_slice(data)) else {
        return;
    };
    let mut buf = Vec::new();
    for e in r.index() {
        let Ok(h) = r.read_record_into(e, &mut buf) else {
            continue;
        };
        let Ok(blocks) = r.split_record(e.offset, &h, &buf) else {
            continue;
        };
        if let (Some(first), Ok(dl)) = (
            blocks.first(),
            r.data_layout(h.stream, h.record_type, h.format_version, 0),
        ) {
            let bytes = buf.get(first.clone()).unwrap_or_default();
            for p in dl.pieces() {
                let _ = dl.value::<i64>(bytes, &p.name);
                let _ = dl.string(bytes, &p.name);
                let _ = dl.vector::<i64>(bytes, &p.name);
                let _ = dl.strings(bytes, &p.name);
            }
            let _ = dl.total_size(bytes);
        }
    }
}
