//! The one pair-evaluation path of every contact hook ([`super::SdrsContact`],
//! [`super::MeshContact`]): each pair is evaluated with its own warm-start data on rayon's
//! thread pool and the results come back in pair order, so sums over them are the same for
//! any number of threads, and the error reported is the first in pair order.
//!
//! Fewer pairs than a hook's [`PoolFrom`] are evaluated on the calling thread, in the same
//! order and with the same results: handing a few cheap pairs to the pool (waking workers and
//! waiting for them) costs more than evaluating them, so only where they are computed changes.

use crate::error::Result;
use rayon::prelude::*;
use sdrs_contact::pair_map::PairMap;
use std::hash::Hash;

/// The fewest pairs an evaluation hands to rayon's thread pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PoolFrom(pub(super) usize);

impl PoolFrom {
    /// Whether `pairs` pairs go to the pool.
    pub(super) fn pools(self, pairs: usize) -> bool {
        pairs >= self.0
    }
}

/// Hull pairs ([`super::SdrsContact`]): a warm-started plane and friction solve costs 1-5 µs,
/// and the robots' 4-20 pairs stepped faster on the calling thread than on two threads (2
/// cores, interleaved runs of the motion suite, issue 44: Solo-12's trot 645-656 µs per step
/// against 922-958 µs with the pool from 8 pairs, the humanoid lying 662-760 against 910-1044,
/// a stack of five boxes 15 against 32-45). The rotating chains' 120 pairs still go.
pub(super) const HULL_PAIRS: PoolFrom = PoolFrom(32);

/// Triangle-mesh body pairs ([`super::MeshContact`]), each a hierarchy traversal and many
/// triangle terms: measured on the `dynamics` suite's box stack and rotating chains, see
/// docs/architecture.md, "Step performance".
pub(super) const MESH_PAIRS: PoolFrom = PoolFrom(8);

/// `f` on every pair with its cache (`caches[k]` for `pairs[k]`), in parallel from
/// `pool` pairs on.
pub(super) fn each_pair<P, C, T>(
    pairs: &[P],
    caches: &mut [C],
    pool: PoolFrom,
    f: impl Fn(&P, &mut C) -> Result<T> + Sync,
) -> Result<Vec<T>>
where
    P: Sync,
    C: Send,
    T: Send,
{
    assert_eq!(pairs.len(), caches.len(), "one cache per pair");
    // Every pair is evaluated (and its cache updated) even after an error, either way.
    let results: Vec<Result<T>> = if !pool.pools(pairs.len()) {
        pairs
            .iter()
            .zip(caches.iter_mut())
            .map(|(pair, cache)| f(pair, cache))
            .collect()
    } else {
        pairs
            .par_iter()
            .zip(caches.par_iter_mut())
            .map(|(pair, cache)| f(pair, cache))
            .collect()
    };
    results.into_iter().collect()
}

/// [`each_pair`] with the caches of a changing pair set kept in `store` by pair: taken out
/// for the evaluation and put back after it (fresh for pairs seen for the first time).
pub(super) fn each_stored_pair<P, C, T>(
    pairs: &[P],
    store: &mut PairMap<P, C>,
    pool: PoolFrom,
    f: impl Fn(&P, &mut C) -> Result<T> + Sync,
) -> Result<Vec<T>>
where
    P: Sync + Copy + Eq + Hash,
    C: Send + Default,
    T: Send,
{
    let mut caches = take_caches(store, pairs);
    let results = each_pair(pairs, &mut caches, pool, f);
    store.extend(pairs.iter().copied().zip(caches));
    results
}

/// The caches of `keys` taken out of `store` (fresh for keys it does not hold); put them
/// back with `store.extend(keys.zip(caches))`.
pub(super) fn take_caches<P, C>(store: &mut PairMap<P, C>, keys: &[P]) -> Vec<C>
where
    P: Eq + Hash,
    C: Default,
{
    keys.iter()
        .map(|k| store.remove(k).unwrap_or_default())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DynamicsError;

    #[test]
    fn few_pairs_give_what_many_give() {
        // Below and above the parallel threshold: the same results, caches and first error.
        let pool = PoolFrom(8);
        for count in [1, pool.0 - 1, pool.0, 3 * pool.0] {
            let pairs: Vec<usize> = (0..count).collect();
            let mut caches = vec![1usize; count];
            let out = each_pair(&pairs, &mut caches, pool, |&p, c| {
                *c += p;
                if p % 4 == 2 {
                    Err(DynamicsError::LinkIndex { index: p, links: 0 })
                } else {
                    Ok(3 * p)
                }
            });
            assert_eq!(caches, (1..=count).collect::<Vec<_>>(), "{count} pairs");
            match out {
                Ok(values) => {
                    assert!(count < 3, "{count} pairs: no error");
                    assert_eq!(values, pairs.iter().map(|p| 3 * p).collect::<Vec<_>>());
                }
                Err(error) => assert!(
                    count >= 3 && matches!(error, DynamicsError::LinkIndex { index: 2, .. }),
                    "{count} pairs: {error:?}"
                ),
            }
        }
    }

    #[test]
    fn results_and_the_first_error_come_in_pair_order() {
        let pairs: Vec<usize> = (0..1000).collect();
        let mut caches = vec![0usize; 1000];
        let out = each_pair(&pairs, &mut caches, MESH_PAIRS, |&p, c| {
            *c += p;
            Ok(2 * p)
        })
        .unwrap();
        assert_eq!(out, pairs.iter().map(|p| 2 * p).collect::<Vec<_>>());
        assert_eq!(caches, pairs);
        let failing = each_pair(&pairs, &mut caches, HULL_PAIRS, |&p, _| {
            if p % 100 == 37 {
                Err(DynamicsError::LinkIndex { index: p, links: 0 })
            } else {
                Ok(p)
            }
        });
        assert!(matches!(
            failing,
            Err(DynamicsError::LinkIndex { index: 37, .. })
        ));
    }

    #[test]
    fn stored_caches_persist_by_pair() {
        let mut store: PairMap<(usize, usize), u32> = PairMap::default();
        let count = |store: &mut PairMap<(usize, usize), u32>, pairs: &[(usize, usize)]| {
            each_stored_pair(pairs, store, HULL_PAIRS, |_, c| {
                *c += 1;
                Ok(*c)
            })
            .unwrap()
        };
        assert_eq!(count(&mut store, &[(0, 1), (1, 2)]), [1, 1]);
        assert_eq!(count(&mut store, &[(1, 2), (2, 3)]), [2, 1]);
        assert_eq!(store[&(0, 1)], 1);
    }
}
