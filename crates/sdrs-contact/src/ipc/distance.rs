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

use super::derivatives::{
    Local, norm_squared, point_line, point_line_value, triple_squared_over_cross,
    triple_squared_over_cross_value,
};
use nalgebra::Vector3;
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

/// The formula of a distance type over the pair's four points `x`.
#[derive(Debug, Clone, Copy)]
enum Formula {
    /// `|x_i − x_j|²`.
    PointPoint(usize, usize),
    /// Point `x_p` to the line through `x_e0`, `x_e1`: `(p, e0, e1)`.
    PointLine(usize, usize, usize),
    /// `(u · (v × w))² / |v × w|²` with `u = x_u0 − x_u1`, and so on.
    Triple([(usize, usize); 3]),
}

impl Formula {
    fn value(self, x: &[Vector3<f64>; 4]) -> f64 {
        let d = |(i, j): (usize, usize)| x[i] - x[j];
        match self {
            Formula::PointPoint(i, j) => {
                let r = d((i, j));
                r.dot(&r)
            }
            Formula::PointLine(p, e0, e1) => point_line_value(&x[p], &x[e0], &x[e1]),
            Formula::Triple([u, v, w]) => triple_squared_over_cross_value(&d(u), &d(v), &d(w)),
        }
    }

    fn distance<K>(self, kind: K, x: &[Vector3<f64>; 4]) -> Distance<K> {
        let d = |(i, j): (usize, usize)| x[i] - x[j];
        let (value, (gradient, hessian)) = match self {
            Formula::PointPoint(i, j) => {
                let l = norm_squared(&d((i, j)));
                (l.value, l.scatter([(i, j)]))
            }
            Formula::PointLine(p, e0, e1) => {
                let l = point_line(&x[p], &x[e0], &x[e1]);
                (l.value, l.scatter([(e0, p), (e1, p)]))
            }
            Formula::Triple([u, v, w]) => {
                let l: Local<3> = triple_squared_over_cross(&d(u), &d(v), &d(w));
                (l.value, l.scatter([u, v, w]))
            }
        };
        Distance {
            kind,
            value,
            gradient,
            hessian,
        }
    }
}

/// The points `p, t0, t1, t2` and the formula of a point–triangle type.
fn point_triangle_formula(
    p: &Point3<f64>,
    t: &[Point3<f64>; 3],
) -> (PointTriangleType, Formula, [Vector3<f64>; 4]) {
    let kind = point_triangle_type(p, t);
    // Coordinates: 0 = p, 1 + k = t_k.
    let formula = match kind {
        PointTriangleType::Vertex(k) => Formula::PointPoint(0, 1 + k),
        PointTriangleType::Edge(k) => Formula::PointLine(0, 1 + k, 1 + (k + 1) % 3),
        PointTriangleType::Face => Formula::Triple([(0, 1), (2, 1), (3, 1)]),
    };
    (
        kind,
        formula,
        [p.coords, t[0].coords, t[1].coords, t[2].coords],
    )
}

/// The points `a0, a1, b0, b1` and the formula of an edge–edge type.
fn edge_edge_formula(
    a: &[Point3<f64>; 2],
    b: &[Point3<f64>; 2],
) -> (EdgeEdgeType, Formula, [Vector3<f64>; 4]) {
    let kind = edge_edge_type(a, b);
    // Coordinates: 0, 1 = a0, a1; 2, 3 = b0, b1.
    let formula = match (kind.a, kind.b) {
        (Some(i), Some(j)) => Formula::PointPoint(i, 2 + j),
        (Some(i), None) => Formula::PointLine(i, 2, 3),
        (None, Some(j)) => Formula::PointLine(2 + j, 0, 1),
        (None, None) => Formula::Triple([(2, 0), (1, 0), (3, 2)]),
    };
    (
        kind,
        formula,
        [a[0].coords, a[1].coords, b[0].coords, b[1].coords],
    )
}

/// The region of `p` relative to triangle `t` (Voronoi regions of its vertices, edges, face).
pub fn point_triangle_type(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> PointTriangleType {
    crate::distance::triangle_region(p, t).0
}

/// The squared point–triangle distance with its type and derivatives (coordinates `p, t0,
/// t1, t2`).
pub fn point_triangle(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> Distance<PointTriangleType> {
    let (kind, formula, x) = point_triangle_formula(p, t);
    formula.distance(kind, &x)
}

/// The squared point–triangle distance and its type, without derivatives (the value of
/// [`point_triangle`], to the bit).
///
/// ```
/// use sdrs_contact::ipc::distance::{point_triangle, point_triangle_squared};
/// use nalgebra::Point3;
/// let t = [Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)];
/// let p = Point3::new(1.2, 0.7, 0.3);
/// assert_eq!(point_triangle_squared(&p, &t), (point_triangle(&p, &t).kind, point_triangle(&p, &t).value));
/// ```
pub fn point_triangle_squared(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> (PointTriangleType, f64) {
    let (kind, formula, x) = point_triangle_formula(p, t);
    (kind, formula.value(&x))
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
    let (kind, formula, x) = edge_edge_formula(a, b);
    formula.distance(kind, &x)
}

/// The squared edge–edge distance and its type, without derivatives (the value of
/// [`edge_edge`], to the bit).
///
/// ```
/// use sdrs_contact::ipc::distance::{edge_edge, edge_edge_squared};
/// use nalgebra::Point3;
/// let a = [Point3::origin(), Point3::new(1.0, 0.0, 0.0)];
/// let b = [Point3::new(0.5, -0.5, 0.3), Point3::new(0.5, 0.5, 0.3)];
/// assert_eq!(edge_edge_squared(&a, &b), (edge_edge(&a, &b).kind, edge_edge(&a, &b).value));
/// ```
pub fn edge_edge_squared(a: &[Point3<f64>; 2], b: &[Point3<f64>; 2]) -> (EdgeEdgeType, f64) {
    let (kind, formula, x) = edge_edge_formula(a, b);
    (kind, formula.value(&x))
}
