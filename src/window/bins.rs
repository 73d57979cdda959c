//! Per-bin accumulators and the ring of the last [`BINS`] bins of one source stream.
//!
//! Bins are aligned to absolute device time (bin `k` covers `[k·w, (k+1)·w)` for bin width
//! `w`), so a window ending at any moment reuses every complete bin: adding a sample costs
//! O(1) and reading a window costs O(BINS), whatever the sample rates. Storage is fixed at
//! construction; nothing allocates afterwards.

use crate::window::extract::{RawSample, MAX_SOURCE_SLOTS};
use crate::window::spec::{Aggregation, BINS};

/// The aggregate of one source stream's samples within one bin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinAcc {
    /// The absolute bin number this accumulator holds (`i64::MIN`: none yet).
    pub bin: i64,
    /// Samples added (including those whose values were all NaN).
    pub samples: u32,
    /// Per slot: running sum ([`Aggregation::Mean`]) or newest value ([`Aggregation::Last`]).
    pub acc: [f64; MAX_SOURCE_SLOTS],
    /// Per slot: finite values aggregated.
    pub n: [u32; MAX_SOURCE_SLOTS],
}

impl BinAcc {
    /// An accumulator holding no bin.
    pub const EMPTY: BinAcc = BinAcc {
        bin: i64::MIN,
        samples: 0,
        acc: [0.0; MAX_SOURCE_SLOTS],
        n: [0; MAX_SOURCE_SLOTS],
    };

    fn reset(&mut self, bin: i64) {
        *self = BinAcc { bin, ..Self::EMPTY };
    }

    /// Adds one sample's slots under `rules` (slot `i` uses `rules[i]`). Returns how many
    /// observed values were not finite (skipped).
    pub fn add(&mut self, raw: &RawSample, rules: &[Aggregation]) -> u32 {
        self.samples = self.samples.saturating_add(1);
        let mut skipped = 0;
        for (i, rule) in rules.iter().enumerate().take(MAX_SOURCE_SLOTS) {
            if raw.present & (1 << i) == 0 {
                continue;
            }
            let (Some(&v), Some(acc), Some(n)) =
                (raw.vals.get(i), self.acc.get_mut(i), self.n.get_mut(i))
            else {
                continue;
            };
            if !v.is_finite() {
                skipped += 1;
                continue;
            }
            match rule {
                Aggregation::Mean => *acc += v,
                Aggregation::Last => *acc = v,
            }
            *n = n.saturating_add(1);
        }
        skipped
    }

    /// The aggregated value of `slot`, if any finite value was added.
    pub fn value(&self, slot: usize, rule: Aggregation) -> Option<f64> {
        let n = *self.n.get(slot)?;
        let acc = *self.acc.get(slot)?;
        match (n, rule) {
            (0, _) => None,
            (_, Aggregation::Last) => Some(acc),
            (n, Aggregation::Mean) => Some(acc / f64::from(n)),
        }
    }
}

/// What happened to a sample offered to a [`BinRing`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddOutcome {
    /// Aggregated into its bin; `nan` observed values were skipped.
    Added {
        /// Observed values that were NaN or infinite.
        nan: u32,
    },
    /// Its bin is older than the ring's span (an out-of-order sample too late to use).
    TooLate,
}

/// The newest [`BINS`] bins of one source stream, indexed by absolute bin number modulo
/// [`BINS`].
#[derive(Clone, Debug)]
pub struct BinRing {
    slots: Box<[BinAcc; BINS]>,
}

impl Default for BinRing {
    fn default() -> Self {
        Self::new()
    }
}

impl BinRing {
    /// An empty ring (the only allocation).
    pub fn new() -> Self {
        Self {
            slots: Box::new([BinAcc::EMPTY; BINS]),
        }
    }

    fn slot_of(bin: i64) -> usize {
        // rem_euclid of a positive modulus is in 0..BINS.
        bin.rem_euclid(BINS as i64) as usize
    }

    /// Adds a sample to absolute bin `bin`.
    pub fn add(&mut self, bin: i64, raw: &RawSample, rules: &[Aggregation]) -> AddOutcome {
        let Some(acc) = self.slots.get_mut(Self::slot_of(bin)) else {
            return AddOutcome::TooLate;
        };
        if acc.bin < bin {
            acc.reset(bin);
        } else if acc.bin > bin {
            return AddOutcome::TooLate;
        }
        AddOutcome::Added {
            nan: acc.add(raw, rules),
        }
    }

    /// The accumulator of absolute bin `bin`, if the ring holds it.
    pub fn get(&self, bin: i64) -> Option<&BinAcc> {
        self.slots
            .get(Self::slot_of(bin))
            .filter(|acc| acc.bin == bin)
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        for s in self.slots.iter_mut() {
            *s = BinAcc::EMPTY;
        }
    }
}
