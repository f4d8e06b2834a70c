//! Squared distances between mesh primitives by Voronoi-region type, with exact gradients and
//! Hessians in the 12 coordinates of the pair (IPC's distance functions).
//!
//! A point–triangle pair is closest at a triangle vertex (point–point), an edge (point–line)
//! or the face (point–plane); an edge–edge pair at two endpoints, an endpoint and the other
//! edge's interior, or both interiors (line–line). Within a region the squared distance is
//! the smooth function of that region; across region boundaries it is C¹ (not C²: the reason
//! the long-range paper's appendix A.4 gives for IPC's rugged second derivatives).

use nalgebra::{Point3, SMatrix, SVector};
use num_dual::{Dual2SVec64, DualNum, hessian};

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

type D2 = Dual2SVec64<12>;

fn sub<T: DualNum + Copy>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot<T: DualNum + Copy>(a: &[T; 3], b: &[T; 3]) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross<T: DualNum + Copy>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `|p − q|²`.
fn point_point<T: DualNum + Copy>(p: &[T; 3], q: &[T; 3]) -> T {
    let d = sub(p, q);
    dot(&d, &d)
}

/// Squared distance of `p` to the line through `e0`, `e1`: `|(e0 − p) × (e1 − p)|² / |e1 − e0|²`.
fn point_line<T: DualNum + Copy>(p: &[T; 3], e0: &[T; 3], e1: &[T; 3]) -> T {
    let c = cross(&sub(e0, p), &sub(e1, p));
    let e = sub(e1, e0);
    dot(&c, &c) / dot(&e, &e)
}

/// Squared distance of `p` to the plane of `t`: `((p − t0)·n)² / |n|²`.
fn point_plane<T: DualNum + Copy>(p: &[T; 3], t0: &[T; 3], t1: &[T; 3], t2: &[T; 3]) -> T {
    let n = cross(&sub(t1, t0), &sub(t2, t0));
    let s = dot(&sub(p, t0), &n);
    s * s / dot(&n, &n)
}

/// Squared distance of the lines through the two edges: `((b0 − a0)·n)² / |n|²`.
fn line_line<T: DualNum + Copy>(a0: &[T; 3], a1: &[T; 3], b0: &[T; 3], b1: &[T; 3]) -> T {
    let n = cross(&sub(a1, a0), &sub(b1, b0));
    let s = dot(&sub(b0, a0), &n);
    s * s / dot(&n, &n)
}

fn coords(points: [&Point3<f64>; 4]) -> SVector<f64, 12> {
    SVector::from_fn(|i, _| points[i / 3][i % 3])
}

fn split(x: &SVector<D2, 12>) -> [[D2; 3]; 4] {
    std::array::from_fn(|k| [x[3 * k], x[3 * k + 1], x[3 * k + 2]])
}

/// The region of `p` relative to triangle `t` (Voronoi regions of its vertices, edges, face).
pub fn point_triangle_type(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> PointTriangleType {
    crate::distance::triangle_region(p, t).0
}

/// The squared point–triangle distance with its type and derivatives (coordinates `p, t0,
/// t1, t2`).
pub fn point_triangle(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> Distance<PointTriangleType> {
    let kind = point_triangle_type(p, t);
    let x = coords([p, &t[0], &t[1], &t[2]]);
    let (value, gradient, hessian) = hessian(
        |x: SVector<D2, 12>| {
            let [p, t0, t1, t2] = split(&x);
            let v = [t0, t1, t2];
            match kind {
                PointTriangleType::Vertex(k) => point_point(&p, &v[k]),
                PointTriangleType::Edge(k) => point_line(&p, &v[k], &v[(k + 1) % 3]),
                PointTriangleType::Face => point_plane(&p, &t0, &t1, &t2),
            }
        },
        &x,
    );
    Distance {
        kind,
        value,
        gradient,
        hessian,
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
    let x = coords([&a[0], &a[1], &b[0], &b[1]]);
    let (value, gradient, hessian) = hessian(
        |x: SVector<D2, 12>| {
            let [a0, a1, b0, b1] = split(&x);
            let (ea, eb) = ([a0, a1], [b0, b1]);
            match (kind.a, kind.b) {
                (Some(i), Some(j)) => point_point(&ea[i], &eb[j]),
                (Some(i), None) => point_line(&ea[i], &b0, &b1),
                (None, Some(j)) => point_line(&eb[j], &a0, &a1),
                (None, None) => line_line(&a0, &a1, &b0, &b1),
            }
        },
        &x,
    );
    Distance {
        kind,
        value,
        gradient,
        hessian,
    }
}

/// `|(a1 − a0) × (b1 − b0)|²`, the edge-edge mollifier's argument, generic for dual numbers.
pub(super) fn cross_squared<T: DualNum + Copy>(
    a0: &[T; 3],
    a1: &[T; 3],
    b0: &[T; 3],
    b1: &[T; 3],
) -> T {
    let n = cross(&sub(a1, a0), &sub(b1, b0));
    dot(&n, &n)
}

pub(super) fn pair_coords(a: &[Point3<f64>; 2], b: &[Point3<f64>; 2]) -> SVector<f64, 12> {
    coords([&a[0], &a[1], &b[0], &b[1]])
}

pub(super) fn split_pair(x: &SVector<D2, 12>) -> [[D2; 3]; 4] {
    split(x)
}
