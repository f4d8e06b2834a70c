//! Shared proptest strategies for geometry-based tests (feature `testing`).
//!
//! Every crate of the workspace draws its random hulls, poses and meshes from here, so that a
//! fix to a generator helps every test.

use crate::{ConvexHull, TriMesh};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3, Vector4};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::f64::consts::TAU;

/// Proptest settings running `cases` cases unless `PROPTEST_CASES` is set.
/// `ProptestConfig::with_cases` ignores that variable, so a long randomised run
/// (`PROPTEST_CASES=4000 cargo test`) would silently run each test's default count instead.
/// Every other setting (`PROPTEST_RNG_SEED`, regression files) is proptest's default, except
/// the reject budget, which grows with the case count.
pub fn cases(cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = cases;
    }
    // proptest's reject budget (65,536) is per test, not per case; keep the default's 256
    // rejects per case so that filtered strategies survive long runs.
    config.max_local_rejects = config.max_local_rejects.max(256 * config.cases);
    config
}

/// A unit vector, uniform on the sphere (Archimedes: uniform height and azimuth).
pub fn unit_vector() -> impl Strategy<Value = Vector3<f64>> {
    (-1.0..=1.0f64, 0.0..TAU).prop_map(|(z, phi)| {
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vector3::new(r * phi.cos(), r * phi.sin(), z)
    })
}

/// A uniformly distributed rotation (Shoemake's subgroup algorithm).
pub fn rotation() -> impl Strategy<Value = UnitQuaternion<f64>> {
    (0.0..=1.0f64, 0.0..TAU, 0.0..TAU).prop_map(|(u, a, b)| {
        let (s, t) = ((1.0 - u).sqrt(), u.sqrt());
        let q = Vector4::new(s * a.sin(), s * a.cos(), t * b.sin(), t * b.cos());
        UnitQuaternion::from_quaternion(nalgebra::Quaternion::from(q))
    })
}

/// A rigid pose with translation in `[-extent, extent]^3`.
pub fn pose(extent: f64) -> impl Strategy<Value = Isometry3<f64>> {
    (
        rotation(),
        -extent..=extent,
        -extent..=extent,
        -extent..=extent,
    )
        .prop_map(|(r, x, y, z)| Isometry3::from_parts(Translation3::new(x, y, z), r))
}

/// A hull with exactly `m` vertices, all extreme: points on a random ellipsoid (semi-axes in
/// `[0.2, 1]`), rotated and offset by up to 0.2 in its local frame.
pub fn hull_with(m: usize) -> impl Strategy<Value = ConvexHull> {
    (
        proptest::collection::vec(unit_vector(), m),
        (0.2..1.0f64, 0.2..1.0f64, 0.2..1.0f64),
        pose(0.2),
    )
        .prop_filter_map("valid hull", |(dirs, (a, b, c), local)| {
            let points = dirs
                .iter()
                .map(|d| local * Point3::new(a * d.x, b * d.y, c * d.z))
                .collect();
            ConvexHull::new(points).ok()
        })
}

/// A hull with between `min` and `max` vertices.
pub fn hull(min: usize, max: usize) -> impl Strategy<Value = ConvexHull> {
    (min..=max).prop_flat_map(hull_with)
}

/// An icosphere of the given level with every vertex pushed radially by up to ±30 %: a closed,
/// star-shaped, generally non-convex mesh.
pub fn bumpy_sphere(level: u32) -> impl Strategy<Value = TriMesh> {
    let base = TriMesh::icosphere(1.0, level).expect("valid icosphere");
    let n = base.vertices().len();
    proptest::collection::vec(0.7..1.3f64, n).prop_map(move |scales| {
        let vertices = base
            .vertices()
            .iter()
            .zip(&scales)
            .map(|(v, s)| Point3::from(v.coords * *s))
            .collect();
        TriMesh::new(vertices, base.triangles().to_vec()).expect("radial scaling keeps triangles")
    })
}

/// Moves `pose_b` so that hull `b` lies exactly `gap` from hull `a` along the unit direction
/// `n`: the support point of A in `n` and that of B in `−n` end up `gap · n` apart, and the two
/// support planes separate the hulls, so their distance is `gap` (negative values push B into
/// A's support plane).
pub fn place_at_gap(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
    n: &Vector3<f64>,
    gap: f64,
) -> Isometry3<f64> {
    let pa = a.support_point(pose_a, n);
    let pb = b.support_point(pose_b, &-n);
    Translation3::from(pa - pb + n * gap) * pose_b
}

/// One deterministic draw from a strategy (benchmarks and examples use the same generators
/// as the tests).
pub fn sample<S: Strategy>(strategy: S, runner: &mut TestRunner) -> S::Value {
    strategy
        .new_tree(runner)
        .expect("strategies here do not reject globally")
        .current()
}

/// A deterministic stream of numbers uniform in `[0, 1)` (xorshift64 from `seed`, not zero),
/// for tests that sweep many reproducible random cases in a plain loop.
///
/// ```
/// let mut uniform = sdrs_geometry::testing::uniform_stream(7);
/// let x: Vec<f64> = (0..1000).map(|_| uniform()).collect();
/// assert!(x.iter().all(|v| (0.0..1.0).contains(v)));
/// assert_eq!(x[0], sdrs_geometry::testing::uniform_stream(7)());
/// ```
pub fn uniform_stream(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed.max(1);
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Central-difference derivative of `f` along every coordinate of `x` with Richardson
/// extrapolation (steps `h` and `h/2`, truncation error O(h⁴), so `h` can be large enough to
/// keep round-off small): for a scalar `f` a gradient, for a vector `f` the columns of its
/// Jacobian. Every derivative test of the workspace goes through this and [`relative_error`].
pub fn central_differences<const N: usize, V>(
    f: impl Fn(&[f64; N]) -> V,
    x: &[f64; N],
    h: f64,
) -> Vec<V>
where
    V: std::ops::Sub<Output = V> + std::ops::Mul<f64, Output = V>,
{
    let central = |k: usize, h: f64| {
        let (mut plus, mut minus) = (*x, *x);
        plus[k] += h;
        minus[k] -= h;
        (f(&plus), f(&minus), 0.5 / h)
    };
    (0..N)
        .map(|k| {
            // (4·D(h/2) − D(h)) / 3 with D(h) = (f(x+h) − f(x−h)) / 2h.
            let (p1, m1, s1) = central(k, h);
            let (p2, m2, s2) = central(k, 0.5 * h);
            (p2 - m2) * (4.0 * s2 / 3.0) - (p1 - m1) * (s1 / 3.0)
        })
        .collect()
}

/// `|analytic − numeric| / max(|numeric|, floor)` over whole vectors (Euclidean norms): the
/// error measure of finite-difference checks, insensitive to tiny entries.
pub fn relative_error(analytic: &[f64], numeric: &[f64], floor: f64) -> f64 {
    let diff: f64 = analytic
        .iter()
        .zip(numeric)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        .sqrt();
    let size: f64 = numeric.iter().map(|b| b * b).sum::<f64>().sqrt();
    diff / size.max(floor)
}
