//! Evaluating many body pairs at once, in parallel (feature `parallel`) or not, with results
//! that are bit-identical for any number of threads: each pair is evaluated independently and
//! results come back in pair order, so any reduction the caller makes is in a fixed order.

use crate::error::{ContactError, Result};
use crate::model::{ContactModel, Order, PairOutcome};
use nalgebra::Isometry3;

/// Evaluates `model` on every pair `(i, j)` of `pairs` (indices into `shapes` and `poses`),
/// with `caches[k]` the warm-start data of pair `k`. The first failure, in pair order, is
/// returned with the pair named.
///
/// ```
/// use sdrs_contact::{Order, PlaneBarrier, batch::evaluate_pairs};
/// use sdrs_geometry::ConvexHull;
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
/// let shapes = vec![cube.clone(), cube.clone(), cube];
/// let poses = [0.0, 1.05, 2.1].map(|x| Isometry3::translation(x, 0.0, 0.0));
/// let pairs = [(0, 1), (1, 2), (0, 2)];
/// let mut caches = vec![Default::default(); 3];
/// let model = PlaneBarrier::new(0.1).unwrap();
/// let out = evaluate_pairs(&model, &shapes, &poses, &pairs, &mut caches, Order::Hessian).unwrap();
/// assert!(out[0].value() > 0.0 && out[2].value() == 0.0);
/// ```
pub fn evaluate_pairs<M: ContactModel>(
    model: &M,
    shapes: &[M::Shape],
    poses: &[Isometry3<f64>],
    pairs: &[(usize, usize)],
    caches: &mut [M::Cache],
    order: Order,
) -> Result<Vec<PairOutcome>> {
    if poses.len() != shapes.len() {
        return Err(ContactError::LengthMismatch {
            what: "poses",
            expected: shapes.len(),
            got: poses.len(),
        });
    }
    if caches.len() != pairs.len() {
        return Err(ContactError::LengthMismatch {
            what: "caches",
            expected: pairs.len(),
            got: caches.len(),
        });
    }
    for (pair, &(i, j)) in pairs.iter().enumerate() {
        if let Some(&index) = [i, j].iter().find(|&&k| k >= shapes.len()) {
            return Err(ContactError::BodyOutOfRange {
                pair,
                index,
                len: shapes.len(),
            });
        }
    }
    let one = |(k, (&(i, j), cache)): (usize, (&(usize, usize), &mut M::Cache))| {
        model
            .evaluate(&shapes[i], &poses[i], &shapes[j], &poses[j], cache, order)
            .map_err(|e| ContactError::Pair {
                pair: k,
                first: i,
                second: j,
                source: Box::new(e),
            })
    };
    #[cfg(feature = "parallel")]
    let results: Vec<Result<PairOutcome>> = {
        use rayon::prelude::*;
        pairs
            .par_iter()
            .zip(caches.par_iter_mut())
            .enumerate()
            .map(one)
            .collect()
    };
    #[cfg(not(feature = "parallel"))]
    let results: Vec<Result<PairOutcome>> = pairs
        .iter()
        .zip(caches.iter_mut())
        .enumerate()
        .map(one)
        .collect();
    results.into_iter().collect()
}
