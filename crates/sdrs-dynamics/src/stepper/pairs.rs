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
/// `pool` pairs on; the results in pair order.
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
    let mut results = Vec::with_capacity(pairs.len());
    for_each_pair(pairs, caches, pool, f, |t| results.push(t))?;
    Ok(results)
}

/// `f` on every pair with its cache (`caches[k]` for `pairs[k]`), in parallel from `pool`
/// pairs on, each result handed to `sink` in pair order: on the calling thread as it is
/// computed, from the pool once all are. Every pair is evaluated (and its cache updated) even
/// after an error, either way; the first error in pair order is returned, and no result
/// after it reaches `sink`.
pub(super) fn for_each_pair<P, C, T>(
    pairs: &[P],
    caches: &mut [C],
    pool: PoolFrom,
    f: impl Fn(&P, &mut C) -> Result<T> + Sync,
    mut sink: impl FnMut(T),
) -> Result<()>
where
    P: Sync,
    C: Send,
    T: Send,
{
    assert_eq!(pairs.len(), caches.len(), "one cache per pair");
    if !pool.pools(pairs.len()) {
        let mut first = Ok(());
        for (pair, cache) in pairs.iter().zip(caches.iter_mut()) {
            let result = f(pair, cache);
            sink_first(&mut first, result, &mut sink);
        }
        return first;
    }
    let results: Vec<Result<T>> = pairs
        .par_iter()
        .zip(caches.par_iter_mut())
        .map(|(pair, cache)| f(pair, cache))
        .collect();
    results
        .into_iter()
        .try_for_each(|result| result.map(&mut sink))
}

/// Hands `result` to `sink` while no error came before it (`first`), else keeps the first
/// error.
fn sink_first<T>(first: &mut Result<()>, result: Result<T>, sink: &mut impl FnMut(T)) {
    if first.is_ok() {
        match result {
            Ok(t) => sink(t),
            Err(error) => *first = Err(error),
        }
    }
}

/// [`for_each_pair`] with the caches kept in `store` under each item's `key` (fresh for keys
/// seen for the first time): used in place on the calling thread, taken out of `store` for
/// the pool and put back after it.
pub(super) fn for_each_stored_pair<P, K, C, T>(
    items: &[P],
    key: impl Fn(&P) -> K,
    store: &mut PairMap<K, C>,
    pool: PoolFrom,
    f: impl Fn(&P, &mut C) -> Result<T> + Sync,
    mut sink: impl FnMut(T),
) -> Result<()>
where
    P: Sync,
    K: Eq + Hash,
    C: Send + Default,
    T: Send,
{
    if !pool.pools(items.len()) {
        let mut first = Ok(());
        for item in items {
            let result = f(item, store.entry(key(item)).or_default());
            sink_first(&mut first, result, &mut sink);
        }
        return first;
    }
    let keys: Vec<K> = items.iter().map(key).collect();
    let mut caches = take_caches(store, &keys);
    let result = for_each_pair(items, &mut caches, pool, f, sink);
    store.extend(keys.into_iter().zip(caches));
    result
}

/// The caches of `keys` taken out of `store` (fresh for keys it does not hold); put them
/// back with `store.extend(keys.zip(caches))`.
fn take_caches<P, C>(store: &mut PairMap<P, C>, keys: &[P]) -> Vec<C>
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
    fn stored_caches_persist_by_pair_on_either_path() {
        // On the calling thread (caches used in place) and on the pool (taken out and put
        // back): the same results, caches and first error.
        for pool in [PoolFrom(100), PoolFrom(1)] {
            let mut store: PairMap<(usize, usize), u32> = PairMap::default();
            let count = |store: &mut PairMap<(usize, usize), u32>, pairs: &[(usize, usize)]| {
                let mut out = Vec::new();
                let result = for_each_stored_pair(
                    pairs,
                    |p| *p,
                    store,
                    pool,
                    |&(a, _), c| {
                        *c += 1;
                        if a == 9 {
                            Err(DynamicsError::LinkIndex { index: a, links: 0 })
                        } else {
                            Ok(*c)
                        }
                    },
                    |c| out.push(c),
                );
                result.map(|()| out)
            };
            assert_eq!(count(&mut store, &[(0, 1), (1, 2)]).unwrap(), [1, 1]);
            assert_eq!(count(&mut store, &[(1, 2), (2, 3)]).unwrap(), [2, 1]);
            assert_eq!(store[&(0, 1)], 1);
            let failed = count(&mut store, &[(1, 2), (9, 9), (2, 3)]);
            assert!(matches!(
                failed,
                Err(DynamicsError::LinkIndex { index: 9, .. })
            ));
            assert_eq!(
                (store[&(1, 2)], store[&(9, 9)], store[&(2, 3)]),
                (3, 1, 2),
                "every pair evaluated, after the error too"
            );
        }
    }
}
