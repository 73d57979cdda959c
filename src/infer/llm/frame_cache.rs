//! A bounded cache of per-frame results (image embeddings), keyed by the frame's capture
//! time: the vision encoder embeds each sampled frame once, and every request that refers
//! to that frame reuses the result. It keeps the `capacity` newest frames (by capture time);
//! hits, misses and evictions are counted. A frame's pixels are fingerprinted too, so a
//! different image under a capture time already cached is re-encoded, not confused with it.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// What the cache has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that found nothing (the caller encodes).
    pub misses: u64,
    /// Entries dropped to stay within capacity.
    pub evictions: u64,
    /// Entries replaced because the same capture time came with other pixels.
    pub replaced: u64,
}

/// Bytes of a frame hashed by [`fingerprint`] at most (about 0.1 ms).
pub const FINGERPRINT_BYTES: usize = 1 << 16;

/// The fingerprint of a frame's size and pixels: every byte of small frames; of larger ones
/// the first and last 4 KiB and an even sample of about [`FINGERPRINT_BYTES`] between, so a
/// cache hit on a 1408 x 1408 frame costs a fraction of a millisecond rather than hashing
/// 6 MB. It guards against another image under a capture time already cached (the key);
/// it is not a content hash.
pub fn fingerprint(width: u32, height: u32, pixels: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    width.hash(&mut h);
    height.hash(&mut h);
    pixels.len().hash(&mut h);
    if pixels.len() <= FINGERPRINT_BYTES {
        pixels.hash(&mut h);
    } else {
        let edge = 4096;
        pixels[..edge].hash(&mut h);
        pixels[pixels.len() - edge..].hash(&mut h);
        let step = pixels.len() / FINGERPRINT_BYTES;
        let sample: Vec<u8> = pixels.iter().step_by(step.max(1)).copied().collect();
        sample.hash(&mut h);
    }
    h.finish()
}

/// The cache (not thread-safe; the encoder that owns it is used from one thread).
#[derive(Debug)]
pub struct FrameCache<V> {
    capacity: usize,
    /// Sorted by capture time, oldest first.
    entries: Vec<(i64, u64, Arc<V>)>,
    stats: CacheStats,
}

impl<V> FrameCache<V> {
    /// A cache holding up to `capacity` frames (0 caches nothing).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Vec::with_capacity(capacity.min(1024)),
            stats: CacheStats::default(),
        }
    }

    /// Most frames held.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Frames held now.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The counters.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Capture times held, oldest first.
    pub fn captures(&self) -> Vec<i64> {
        self.entries.iter().map(|e| e.0).collect()
    }

    /// The entry for `capture` with pixels `print`, counting a hit or a miss.
    pub fn get(&mut self, capture: i64, print: u64) -> Option<Arc<V>> {
        let found = self
            .entries
            .binary_search_by_key(&capture, |e| e.0)
            .ok()
            .map(|i| &self.entries[i])
            .filter(|e| e.1 == print)
            .map(|e| Arc::clone(&e.2));
        if found.is_some() {
            self.stats.hits += 1;
        } else {
            self.stats.misses += 1;
        }
        found
    }

    /// Stores `value` for `capture`, dropping the oldest frames beyond capacity (possibly
    /// this one, when it is older than every frame held). Returns the shared value.
    pub fn insert(&mut self, capture: i64, print: u64, value: V) -> Arc<V> {
        let value = Arc::new(value);
        if self.capacity == 0 {
            return value;
        }
        match self.entries.binary_search_by_key(&capture, |e| e.0) {
            Ok(i) => {
                self.entries[i] = (capture, print, Arc::clone(&value));
                self.stats.replaced += 1;
            }
            Err(i) => self.entries.insert(i, (capture, print, Arc::clone(&value))),
        }
        while self.entries.len() > self.capacity {
            self.entries.remove(0);
            self.stats.evictions += 1;
        }
        value
    }

    /// Drops everything (the counters stay).
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_miss_and_eviction_counts() {
        let mut c = FrameCache::new(2);
        assert!(c.get(10, 1).is_none());
        c.insert(10, 1, "a");
        assert_eq!(*c.get(10, 1).unwrap(), "a");
        c.insert(20, 2, "b");
        c.insert(30, 3, "c");
        assert_eq!(c.captures(), vec![20, 30]);
        assert!(c.get(10, 1).is_none());
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.evictions, s.replaced), (1, 2, 1, 0));
    }

    #[test]
    fn older_than_all_is_not_kept_and_other_pixels_replace() {
        let mut c = FrameCache::new(2);
        c.insert(20, 2, 2);
        c.insert(30, 3, 3);
        assert_eq!(*c.insert(5, 9, 5), 5);
        assert_eq!(c.captures(), vec![20, 30]);
        assert!(c.get(30, 4).is_none(), "other pixels under the same time");
        c.insert(30, 4, 33);
        assert_eq!(*c.get(30, 4).unwrap(), 33);
        assert_eq!(c.stats().replaced, 1);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let mut c = FrameCache::new(0);
        c.insert(1, 1, ());
        assert!(c.is_empty());
        assert!(c.get(1, 1).is_none());
    }

    #[test]
    fn fingerprints_differ_by_pixels_and_size() {
        let a = fingerprint(2, 1, &[0, 0, 0, 0, 0, 0]);
        assert_ne!(a, fingerprint(1, 2, &[0, 0, 0, 0, 0, 0]));
        assert_ne!(a, fingerprint(2, 1, &[0, 0, 0, 0, 0, 1]));
        assert_eq!(a, fingerprint(2, 1, &[0; 6]));
        // Large frames: sampled, still sensitive to the sampled bytes and the edges.
        let big = vec![7u8; 1408 * 1408 * 3];
        let mut other = big.clone();
        other[0] = 8;
        assert_ne!(
            fingerprint(1408, 1408, &big),
            fingerprint(1408, 1408, &other)
        );
        let mut other = big.clone();
        other[big.len() / 2 - (big.len() / 2) % (big.len() / FINGERPRINT_BYTES)] = 9;
        assert_ne!(
            fingerprint(1408, 1408, &big),
            fingerprint(1408, 1408, &other)
        );
    }
}
