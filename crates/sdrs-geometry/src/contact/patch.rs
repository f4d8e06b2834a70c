//! Reduction of a set of candidate contact points to a patch of at most
//! [`super::MAX_PATCH_POINTS`]: the deepest point first, then the points that make the patch's
//! area (projected on the contact plane) largest, the choice that best resists tipping.

use super::{ContactPoint, MAX_PATCH_POINTS};
use nalgebra::Vector3;

/// Picks at most [`MAX_PATCH_POINTS`] of `candidates`, which share one normal: the deepest
/// (smallest separation; ties to the first), the one farthest from it in the contact plane,
/// the one forming the largest triangle with those two, and the one adding the most area to
/// that triangle. Points adding no area (collinear or coincident to round-off) are left out.
pub(crate) fn select_patch(candidates: &[ContactPoint], length_scale: f64) -> Vec<ContactPoint> {
    let Some(first) = candidates
        .iter()
        .enumerate()
        .fold(None, |best, (i, c)| match best {
            Some((_, s)) if s <= c.separation => best,
            _ => Some((i, c.separation)),
        })
    else {
        return Vec::new();
    };
    let n = candidates[first.0].normal.into_inner();
    let planar = |i: usize| {
        let p = candidates[i].position.coords;
        p - n * p.dot(&n)
    };
    // Lengths and areas below these are round-off.
    let tiny_length = 1e-9 * length_scale;
    let tiny_area = tiny_length * length_scale;
    let mut picked = vec![first.0];
    let best_by = |score: &dyn Fn(usize) -> f64, picked: &[usize]| {
        (0..candidates.len())
            .filter(|i| !picked.contains(i))
            .map(|i| (i, score(i)))
            .fold(None, |best: Option<(usize, f64)>, (i, s)| match best {
                Some((_, b)) if b >= s => best,
                _ => Some((i, s)),
            })
    };
    let p0 = planar(first.0);
    if let Some((i, d)) = best_by(&|i| (planar(i) - p0).norm(), &picked)
        && d > tiny_length
    {
        picked.push(i);
    }
    if picked.len() == 2 {
        let p1 = planar(picked[1]);
        let area = |i: usize| 0.5 * (p1 - p0).cross(&(planar(i) - p0)).norm();
        if let Some((i, a)) = best_by(&area, &picked)
            && a > tiny_area
        {
            picked.push(i);
        }
    }
    if picked.len() == 3 {
        let tri = [p0, planar(picked[1]), planar(picked[2])];
        // Orient the triangle's normal along n so that "outside an edge" has one sign.
        let up = (tri[1] - tri[0]).cross(&(tri[2] - tri[0]));
        let up = if up.dot(&n) >= 0.0 { n } else { -n };
        let added = |i: usize| added_area(&tri, &up, &planar(i));
        if let Some((i, a)) = best_by(&added, &picked)
            && a > tiny_area
            && picked.len() < MAX_PATCH_POINTS
        {
            picked.push(i);
        }
    }
    picked.into_iter().map(|i| candidates[i]).collect()
}

/// Area that point `p` adds to the triangle `tri` (counter-clockwise about `up`): the sum of
/// the triangles it forms with the edges it lies outside of (0 inside the triangle).
fn added_area(tri: &[Vector3<f64>; 3], up: &Vector3<f64>, p: &Vector3<f64>) -> f64 {
    (0..3)
        .map(|k| {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            // Positive when p lies to the right of a→b, i.e. outside the triangle.
            0.5 * (p - a).cross(&(b - a)).dot(up)
        })
        .filter(|&a| a > 0.0)
        .sum()
}
