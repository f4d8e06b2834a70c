//! Continuous collision detection for IPC: how far two meshes can move along a step before
//! any vertex–face or edge–edge pair comes closer than a fraction of its current distance.
//!
//! A barrier with finite support only acts within `d̂`, so a step that carries a vertex across
//! a face in one go never sees it (IPC's line search is filtered by CCD for that reason). For
//! every candidate pair of the swept boxes, additive CCD (Li et al. 2021) advances along the
//! straight-line motion of the vertices: with `L` a bound on how fast the pair's distance can
//! shrink (the largest vertex displacement of each side, summed), the distance stays at least
//! `g` for another `(d − g)/L` of the step, so `t` grows by that until the pair has come to
//! within round-off of the gap `g = s·d₀` or the step is done.

use super::potential::{Candidate, Placed, candidates};
use crate::distance::{point_triangle, segment_segment};
use nalgebra::Point3;

/// The fraction of its current distance every pair keeps.
const KEEP: f64 = 0.1;

/// The largest fraction `t ∈ [0, 1]` of the straight-line move from placements `start` to
/// `end` over which every pair of primitives keeps `KEEP` of its distance at `start`, for
/// pairs whose swept boxes come within `reach` of each other.
pub(super) fn max_step(
    reach: f64,
    start: &[Placed; 2],
    end: &[Placed; 2],
) -> crate::error::Result<f64> {
    let mut t = 1.0f64;
    for candidate in candidates(reach, &[start, end])? {
        let x0 = candidate.points(start).map(|p| p.position);
        let x1 = candidate.points(end).map(|p| p.position);
        t = t.min(time_of_impact(&candidate, &x0, &x1));
        if t == 0.0 {
            break;
        }
    }
    Ok(t)
}

/// The distance of a candidate's four points.
fn distance(candidate: &Candidate, x: &[Point3<f64>; 4]) -> f64 {
    match candidate {
        Candidate::PointFace { .. } => point_triangle(&x[0], &[x[1], x[2], x[3]]).distance,
        Candidate::EdgeEdge { .. } => segment_segment(&[x[0], x[1]], &[x[2], x[3]]).distance,
    }
}

/// Additive CCD of one pair: the first side is point 0 (vertex–face) or points 0-1
/// (edge–edge), the second side the rest.
fn time_of_impact(candidate: &Candidate, x0: &[Point3<f64>; 4], x1: &[Point3<f64>; 4]) -> f64 {
    let split = match candidate {
        Candidate::PointFace { .. } => 1,
        Candidate::EdgeEdge { .. } => 2,
    };
    let moves: Vec<f64> = (0..4).map(|i| (x1[i] - x0[i]).norm()).collect();
    let speed = moves[..split].iter().fold(0.0f64, |m, &v| m.max(v))
        + moves[split..].iter().fold(0.0f64, |m, &v| m.max(v));
    let d0 = distance(candidate, x0);
    if !(d0 > 0.0) {
        return 0.0;
    }
    if speed <= 0.0 {
        return 1.0;
    }
    let gap = KEEP * d0;
    let mut t = 0.0;
    let mut d = d0;
    for _ in 0..1000 {
        let advance = (d - gap) / speed;
        if advance <= 1e-9 * (t + 1e-3) {
            return t;
        }
        t += advance;
        if t >= 1.0 {
            return 1.0;
        }
        let xt: [Point3<f64>; 4] = std::array::from_fn(|i| x0[i] + (x1[i] - x0[i]) * t);
        d = distance(candidate, &xt);
    }
    t
}
