//! The hand-expanded derivatives of IPC's squared distances and mollifier against the
//! second-order dual-number versions they replaced (kept here as the reference) and against
//! finite differences, on random primitive pairs of every distance type.

use nalgebra::{Point3, SVector};
use num_dual::{Dual2SVec64, DualNum, hessian};
use proptest::prelude::*;
use sdrs_contact::ipc::distance::{
    EdgeEdgeType, Matrix12, PointTriangleType, Vector12, edge_edge, point_triangle,
};
use sdrs_contact::ipc::mollifier::mollifier;
use sdrs_geometry::testing::{central_differences, relative_error};
use std::cell::Cell;

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

fn point_point<T: DualNum + Copy>(p: &[T; 3], q: &[T; 3]) -> T {
    let d = sub(p, q);
    dot(&d, &d)
}

fn point_line<T: DualNum + Copy>(p: &[T; 3], e0: &[T; 3], e1: &[T; 3]) -> T {
    let c = cross(&sub(e0, p), &sub(e1, p));
    let e = sub(e1, e0);
    dot(&c, &c) / dot(&e, &e)
}

fn triple_squared<T: DualNum + Copy>(u: &[T; 3], v: &[T; 3], w: &[T; 3]) -> T {
    let n = cross(v, w);
    let s = dot(u, &n);
    s * s / dot(&n, &n)
}

/// `f` of the four points with its dual-number gradient and Hessian.
fn dual(x: &[f64; 12], f: impl Fn([[D2; 3]; 4]) -> D2) -> (f64, Vector12, Matrix12) {
    hessian(
        |x: SVector<D2, 12>| {
            f(std::array::from_fn(|k| {
                [x[3 * k], x[3 * k + 1], x[3 * k + 2]]
            }))
        },
        &SVector::from(*x),
    )
}

fn points(x: &[f64; 12]) -> [Point3<f64>; 4] {
    std::array::from_fn(|k| Point3::new(x[3 * k], x[3 * k + 1], x[3 * k + 2]))
}

fn dual_point_triangle(x: &[f64; 12], kind: PointTriangleType) -> (f64, Vector12, Matrix12) {
    dual(x, |[p, t0, t1, t2]| {
        let t = [t0, t1, t2];
        match kind {
            PointTriangleType::Vertex(k) => point_point(&p, &t[k]),
            PointTriangleType::Edge(k) => point_line(&p, &t[k], &t[(k + 1) % 3]),
            PointTriangleType::Face => {
                triple_squared(&sub(&p, &t0), &sub(&t1, &t0), &sub(&t2, &t0))
            }
        }
    })
}

fn dual_edge_edge(x: &[f64; 12], kind: EdgeEdgeType) -> (f64, Vector12, Matrix12) {
    dual(x, |[a0, a1, b0, b1]| {
        let (a, b) = ([a0, a1], [b0, b1]);
        match (kind.a, kind.b) {
            (Some(i), Some(j)) => point_point(&a[i], &b[j]),
            (Some(i), None) => point_line(&a[i], &b0, &b1),
            (None, Some(j)) => point_line(&b[j], &a0, &a1),
            (None, None) => triple_squared(&sub(&b0, &a0), &sub(&a1, &a0), &sub(&b1, &b0)),
        }
    })
}

fn dual_mollifier(x: &[f64; 12], eps: f64) -> (f64, Vector12, Matrix12) {
    dual(x, |[a0, a1, b0, b1]| {
        let n = cross(&sub(&a1, &a0), &sub(&b1, &b0));
        let r = dot(&n, &n) / eps;
        r * (-r + 2.0)
    })
}

/// The hand-expanded value, gradient and Hessian agree with the dual numbers' to round-off.
fn agree(
    what: &str,
    (v, g, h): (f64, &Vector12, &Matrix12),
    (dv, dg, dh): &(f64, Vector12, Matrix12),
) -> Result<(), TestCaseError> {
    prop_assert!(
        (v - dv).abs() <= 1e-14 * dv.abs(),
        "{}: value {} vs {}",
        what,
        v,
        dv
    );
    let eg = relative_error(g.as_slice(), dg.as_slice(), 1e-12);
    let eh = relative_error(h.as_slice(), dh.as_slice(), 1e-12);
    prop_assert!(
        eg < 1e-11 && eh < 1e-10,
        "{}: gradient {:e}, Hessian {:e}",
        what,
        eg,
        eh
    );
    Ok(())
}

/// The gradient and Hessian agree with central differences of the value and the gradient,
/// unless a difference step leaves the distance type (`same_type`), where the Hessian jumps.
fn match_differences(
    what: &str,
    x: &[f64; 12],
    f: impl Fn(&[f64; 12]) -> (f64, Vector12, bool),
    (g, h): (&Vector12, &Matrix12),
) -> Result<(), TestCaseError> {
    let crossed = Cell::new(false);
    let step = 1e-5;
    let value = central_differences(
        |y| {
            let (v, _, same) = f(y);
            crossed.set(crossed.get() || !same);
            v
        },
        x,
        step,
    );
    let gradient: Vec<f64> = central_differences(|y| f(y).1, x, step)
        .iter()
        .flat_map(|c| c.iter().copied().collect::<Vec<_>>())
        .collect();
    if crossed.get() {
        return Ok(());
    }
    let scale = g.norm().max(1e-3);
    let eg = relative_error(g.as_slice(), &value, scale);
    let eh = relative_error(h.as_slice(), &gradient, h.norm().max(1e-3));
    prop_assert!(
        eg < 1e-7 && eh < 1e-5,
        "{}: gradient {:e}, Hessian {:e}",
        what,
        eg,
        eh
    );
    Ok(())
}

fn coordinates() -> impl Strategy<Value = [f64; 12]> {
    proptest::array::uniform12(-1.0..1.0f64)
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(2000))]

    #[test]
    fn point_triangle_derivatives_match_dual_numbers_and_differences(x in coordinates()) {
        let [p, t0, t1, t2] = points(&x);
        let d = point_triangle(&p, &[t0, t1, t2]);
        agree(&format!("{:?}", d.kind), (d.value, &d.gradient, &d.hessian), &dual_point_triangle(&x, d.kind))?;
        match_differences(&format!("{:?}", d.kind), &x, |y| {
            let [p, t0, t1, t2] = points(y);
            let e = point_triangle(&p, &[t0, t1, t2]);
            (e.value, e.gradient, e.kind == d.kind)
        }, (&d.gradient, &d.hessian))?;
    }

    #[test]
    fn edge_edge_derivatives_match_dual_numbers_and_differences(x in coordinates()) {
        let [a0, a1, b0, b1] = points(&x);
        let d = edge_edge(&[a0, a1], &[b0, b1]);
        agree(&format!("{:?}", d.kind), (d.value, &d.gradient, &d.hessian), &dual_edge_edge(&x, d.kind))?;
        match_differences(&format!("{:?}", d.kind), &x, |y| {
            let [a0, a1, b0, b1] = points(y);
            let e = edge_edge(&[a0, a1], &[b0, b1]);
            (e.value, e.gradient, e.kind == d.kind)
        }, (&d.gradient, &d.hessian))?;
    }

    /// Within its threshold (here twice the pair's `|(a1 − a0) × (b1 − b0)|²`, so `m = 3/4`).
    #[test]
    fn mollifier_derivatives_match_dual_numbers_and_differences(x in coordinates()) {
        let [a0, a1, b0, b1] = points(&x);
        let eps = 2.0 * (a1 - a0).cross(&(b1 - b0)).norm_squared();
        let (m, g, h) = mollifier(&[a0, a1], &[b0, b1], eps);
        prop_assert!((m - 0.75).abs() < 1e-12);
        agree("mollifier", (m, &g, &h), &dual_mollifier(&x, eps))?;
        match_differences("mollifier", &x, |y| {
            let [a0, a1, b0, b1] = points(y);
            let (m, g, _) = mollifier(&[a0, a1], &[b0, b1], eps);
            (m, g, m < 1.0)
        }, (&g, &h))?;
    }
}

/// Every distance type is compared, whatever the random pairs above meet: one pair per type
/// (the configurations of `ipctk_reference.py`) against the dual numbers.
#[test]
fn every_distance_type_is_compared() {
    let pt = |p: [f64; 3]| {
        let mut x = [0.0; 12];
        x[..3].copy_from_slice(&p);
        x[3..].copy_from_slice(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        x
    };
    let mut kinds = Vec::new();
    for p in [
        [0.2, 0.3, 0.7],
        [-0.4, -0.3, 0.2],
        [1.5, -0.2, 0.3],
        [-0.1, 1.6, -0.4],
        [0.5, -0.5, 0.25],
        [0.8, 0.8, -0.3],
        [-0.6, 0.4, 0.1],
    ] {
        let x = pt(p);
        let [p, t0, t1, t2] = points(&x);
        let d = point_triangle(&p, &[t0, t1, t2]);
        let r = dual_point_triangle(&x, d.kind);
        assert!(relative_error(d.hessian.as_slice(), r.2.as_slice(), 1e-12) < 1e-10);
        kinds.push(format!("{:?}", d.kind));
    }
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), 7, "{kinds:?}");
    let mut kinds = Vec::new();
    let a = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    for b in [
        [0.5, -0.5, 0.3, 0.5, 0.5, 0.3],
        [-0.5, -0.5, 0.3, -0.5, 0.5, 0.3],
        [0.5, 0.2, 0.3, 0.5, 1.2, 0.3],
        [-0.5, 0.2, 0.3, -0.5, 1.2, 0.3],
    ] {
        let mut x = [0.0; 12];
        x[..6].copy_from_slice(&a);
        x[6..].copy_from_slice(&b);
        let [a0, a1, b0, b1] = points(&x);
        let d = edge_edge(&[a0, a1], &[b0, b1]);
        let r = dual_edge_edge(&x, d.kind);
        assert!(relative_error(d.hessian.as_slice(), r.2.as_slice(), 1e-12) < 1e-10);
        kinds.push(format!("{:?}", d.kind));
    }
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), 4, "{kinds:?}");
}

#[test]
fn dual_reference_is_the_textbook_formula() {
    // The reference itself: a point 0.5 above the unit triangle's plane.
    let x = [0.2, 0.2, 0.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let (v, g, _) = dual_point_triangle(&x, PointTriangleType::Face);
    assert!((v - 0.25).abs() < 1e-15);
    assert!((g[2] - 1.0).abs() < 1e-15);
}
