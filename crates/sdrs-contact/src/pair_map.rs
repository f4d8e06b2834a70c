//! Hash maps keyed by pairs of small indices (hull pairs, triangle pairs, tree nodes): the
//! standard library's keyed SipHash cost as much as a third of a long-range pair's bookkeeping
//! and a tenth of a rotating-chain step's; the keys are not adversarial, so a multiplicative
//! hash serves.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`PairHasher`].
///
/// ```
/// use sdrs_contact::pair_map::PairMap;
/// let mut caches: PairMap<(usize, usize), f64> = PairMap::default();
/// caches.insert((2, 5), 1.5);
/// assert_eq!(caches.get(&(2, 5)), Some(&1.5));
/// assert_eq!(caches.get(&(5, 2)), None);
/// ```
pub type PairMap<K, V> = HashMap<K, V, BuildHasherDefault<PairHasher>>;

/// A multiplicative hash of integer keys: each word rotates the state, is xored in and
/// multiplied by an odd constant.
#[derive(Debug, Default, Clone, Copy)]
pub struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

#[cfg(test)]
mod tests {
    use super::PairHasher;
    use std::hash::{Hash, Hasher};

    fn hash(key: impl Hash) -> u64 {
        let mut h = PairHasher::default();
        key.hash(&mut h);
        h.finish()
    }

    #[test]
    fn pairs_in_either_order_and_neighbours_hash_apart() {
        let mut seen = std::collections::HashSet::new();
        for a in 0..64usize {
            for b in 0..64usize {
                assert!(seen.insert(hash((a, b))), "({a}, {b}) collides");
            }
        }
        assert_ne!(hash((1u32, 2u32)), hash((2u32, 1u32)));
    }
}
