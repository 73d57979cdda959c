//! A digest of the delivered sample sequence: FNV-1a over everything a consumer observes of
//! each sample, in delivery order (identical for identical runs).

use std::hash::Hasher;
use std::sync::{Arc, Mutex};

use crate::buffer::Reader;
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::{Payload, Sample};
use crate::time::HostTime;

/// An FNV-1a-style hash over everything a consumer observes of each sample, in delivery order.
#[derive(Debug)]
pub(crate) struct SequenceDigest {
    hasher: Fnv1a,
    samples: u64,
}

impl Default for SequenceDigest {
    fn default() -> Self {
        Self {
            hasher: Fnv1a(0xcbf2_9ce4_8422_2325),
            samples: 0,
        }
    }
}

impl SequenceDigest {
    fn add(&mut self, s: &Sample) {
        let h = &mut self.hasher;
        h.write_u8(s.stream as u8);
        h.write_i64(s.capture.ns());
        h.write_u64(s.seq);
        match &s.payload {
            Payload::Image(f) => {
                h.write_u32(f.width);
                h.write_u32(f.height);
                h.write(&f.data);
            }
            Payload::Audio(a) => h.write(&a.data),
            other => h.write(format!("{other:?}").as_bytes()),
        }
        self.samples += 1;
    }

    pub(crate) fn hex(&self) -> String {
        format!("{:016x} ({} samples)", self.hasher.finish(), self.samples)
    }
}

#[derive(Debug)]
struct Fnv1a(u64);

impl Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // FNV-1a over 64-bit words (8× fewer multiplies than per byte), then the tail bytes.
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut x = [0u8; 8];
            x.copy_from_slice(w);
            self.0 ^= u64::from_le_bytes(x);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        for b in words.remainder() {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Feeds every delivered sample, in order, into the digest.
pub(crate) struct DigestConsumer(pub(crate) Arc<Mutex<SequenceDigest>>);

impl Consumer for DigestConsumer {
    fn name(&self) -> &str {
        "sequence-digest"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let mut d = self.0.lock().map_err(|_| "digest lock poisoned")?;
        reader.drain_all_new(|s| d.add(s));
        Ok(())
    }
}
