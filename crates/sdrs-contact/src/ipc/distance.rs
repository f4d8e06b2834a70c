//! Squared distances between mesh primitives by Voronoi-region type, with exact gradients and
//! Hessians in the 12 coordinates of the pair (IPC's distance functions).
//!
//! A point–triangle pair is closest at a triangle vertex (point–point), an edge (point–line)
//! or the face (point–plane); an edge–edge pair at two endpoints, an endpoint and the other
//! edge's interior, or both interiors (line–line). Within a region the squared distance is
//! the smooth function of that region; across region boundaries it is C¹ (not C²: the reason
//! the long-range paper's appendix A.4 gives for IPC's rugged second derivatives).
//!
//! The derivatives are hand-expanded (module `ipc::derivatives`); the tests hold them to
//! second-order dual numbers and finite differences.

use super::derivatives::{Local, norm_squared, point_line, triple_squared_over_cross};
use nalgebra::{Point3, SMatrix, SVector};

/// Gradient over the 12 coordinates of a primitive pair.
pub type Vector12 = SVector<f64, 12>;
/// Hessian over the 12 coordinates of a primitive pair.
pub type Matrix12 = SMatrix<f64, 12, 12>;

/// Where a point is closest to a triangle `(t0, t1, t2)`: the triangle's Voronoi region.
pub use crate::distance::TriangleRegion as PointTriangleType;

/// Where two edges `(a0, a1)`, `(b0, b1)` are closest: at an endpoint (`Some(k)`) or the
/// interior (`None`) of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeEdgeType {
    /// On edge A.
    pub a: Option<usize>,
    /// On edge B.
    pub b: Option<usize>,
}

/// A squared distance with its type and derivatives.
#[derive(Debug, Clone, PartialEq)]
pub struct Distance<K> {
    /// The region.
    pub kind: K,
    /// The squared distance.
    pub value: f64,
    /// Its gradient over the pair's 12 coordinates (point then triangle vertices, or
    /// `a0, a1, b0, b1`).
    pub gradient: Vector12,
    /// Its Hessian.
    pub hessian: Matrix12,
}

/// A local derivative with its value as a [`Distance`] (the pair's coordinates in order).
fn scattered<K, const L: usize>(kind: K, d: Local<L>, vars: [(usize, usize); L]) -> Distance<K> {
    let (gradient, hessian) = d.scatter(vars);
    Distance {
        kind,
        value: d.value,
        gradient,
        hessian,
    }
}

/// The region of `p` relative to triangle `t` (Voronoi regions of its vertices, edges, face).
pub fn point_triangle_type(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> PointTriangleType {
    crate::distance::triangle_region(p, t).0
}

/// The squared point–triangle distance with its type and derivatives (coordinates `p, t0,
/// t1, t2`).
pub fn point_triangle(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> Distance<PointTriangleType> {
    let kind = point_triangle_type(p, t);
    let (p, t) = (p.coords, t.map(|v| v.coords));
    // Coordinates: 0 = p, 1 + k = t_k.
    match kind {
        PointTriangleType::Vertex(k) => scattered(kind, norm_squared(&(p - t[k])), [(0, 1 + k)]),
        PointTriangleType::Edge(k) => {
            let l = (k + 1) % 3;
            scattered(kind, point_line(&p, &t[k], &t[l]), [(1 + k, 0), (1 + l, 0)])
        }
        PointTriangleType::Face => scattered(
            kind,
            triple_squared_over_cross(&(p - t[0]), &(t[1] - t[0]), &(t[2] - t[0])),
            [(0, 1), (2, 1), (3, 1)],
        ),
    }
}

/// The region of the closest points of edges `a` and `b` (segment parameters clamped to
/// their ends; parallel edges take their first endpoint on A).
pub fn edge_edge_type(a: &[Point3<f64>; 2], b: &[Point3<f64>; 2]) -> EdgeEdgeType {
    let (u, v, w) = (a[1] - a[0], b[1] - b[0], a[0] - b[0]);
    let (aa, ab, bb, aw, bw) = (u.dot(&u), u.dot(&v), v.dot(&v), u.dot(&w), v.dot(&w));
    let denom = aa * bb - ab * ab;
    // s on A, t on B: the unclamped minimiser is (ab·bw − bb·aw, aa·bw − ab·aw) / denom.
    let (s_num, mut t_num, mut t_den) = (ab * bw - bb * aw, aa * bw - ab * aw, denom);
    let mut kind = EdgeEdgeType { a: None, b: None };
    if s_num <= 0.0 || denom <= 1e-20 * aa * bb {
        t_num = bw;
        t_den = bb;
        kind.a = Some(0);
    } else if s_num >= denom {
        t_num = bw + ab;
        t_den = bb;
        kind.a = Some(1);
    }
    let on_a = |s_num: f64| {
        if s_num <= 0.0 {
            Some(0)
        } else if s_num >= aa {
            Some(1)
        } else {
            None
        }
    };
    if t_num <= 0.0 {
        kind = EdgeEdgeType {
            a: on_a(-aw),
            b: Some(0),
        };
    } else if t_num >= t_den {
        kind = EdgeEdgeType {
            a: on_a(-aw + ab),
            b: Some(1),
        };
    }
    kind
}

/// The squared edge–edge distance with its type and derivatives (coordinates `a0, a1, b0,
/// b1`).
pub fn edge_edge(a: &[Point3<f64>; 2], b: &[Point3<f64>; 2]) -> Distance<EdgeEdgeType> {
    let kind = edge_edge_type(a, b);
    let (a, b) = (a.map(|v| v.coords), b.map(|v| v.coords));
    // Coordinates: 0, 1 = a0, a1; 2, 3 = b0, b1.
    match (kind.a, kind.b) {
        (Some(i), Some(j)) => scattered(kind, norm_squared(&(a[i] - b[j])), [(i, 2 + j)]),
        (Some(i), None) => scattered(kind, point_line(&a[i], &b[0], &b[1]), [(2, i), (3, i)]),
        (None, Some(j)) => scattered(
            kind,
            point_line(&b[j], &a[0], &a[1]),
            [(0, 2 + j), (1, 2 + j)],
        ),
        (None, None) => scattered(
            kind,
            triple_squared_over_cross(&(b[0] - a[0]), &(a[1] - a[0]), &(b[1] - b[0])),
            [(2, 0), (1, 0), (3, 2)],
        ),
    }
}
