//! A fast hasher for grid-cell keys `(i32, i32)` (pure): the map and the clustering look
//! up thousands of cells per tick, where the standard SipHash costs more than the work.
//! Not for untrusted keys (no flooding resistance); cell keys come from our own rounding.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hasher (FxHash's scheme).
#[derive(Clone, Copy, Debug, Default)]
pub struct CellHasher(u64);

const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn write_i32(&mut self, i: i32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i as u32)).wrapping_mul(K);
    }
}

/// A map keyed by grid cells.
pub type CellMap<V> = HashMap<(i32, i32), V, BuildHasherDefault<CellHasher>>;
/// A set of grid cells.
pub type CellSet = HashSet<(i32, i32), BuildHasherDefault<CellHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_neighbours_hash_apart() {
        let mut m: CellMap<u32> = CellMap::default();
        for x in -50..50 {
            for y in -50..50 {
                m.insert((x, y), (x * 1000 + y) as u32);
            }
        }
        assert_eq!(m.len(), 10_000);
        assert_eq!(m.get(&(-3, 7)), Some(&((-3 * 1000 + 7) as u32)));
    }
}
