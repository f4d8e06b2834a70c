//! The exact potential between two triangles (long-range paper, sec. 4):
//! `P = min_p L(p, x)`, `L = 12/(1 − |n|)⁺ + Σ_{k∈A} 1/(x_k·n + d)⁺ + Σ_{k∈B} 1/(−x_k·n − d)⁺`
//! over the plane `p = (n, d) ∈ R⁴`.
//!
//! `L` is strictly convex on its domain (`|n| < 1`, every vertex strictly on its side), so
//! Newton's method with a feasibility-preserving backtracking search finds the unique
//! minimiser from the mid-plane of the closest points. With homogeneous vertices
//! `a_k = (x_k, 1)` and signs `σ_k = ±1` (A, B), `s_k = σ_k a_k·p`:
//! `∇_p L = (12 n̂/(1−|n|)², 0) − Σ σ_k a_k/s_k²`,
//! `∇²_p L = [24 n̂n̂ᵀ/(1−|n|)³ + 12 (I − n̂n̂ᵀ)/((1−|n|)²|n|)] ⊕ 0 + Σ 2 a_k a_kᵀ/s_k³`,
//! and in the vertices `∂L/∂x_k = −σ_k n/s_k²`, `∂²L/∂x_k² = 2 n nᵀ/s_k³`,
//! `∂²L/∂x_k∂p = −σ_k [I 0]/s_k² + 2 n a_kᵀ/s_k³`. By the implicit function theorem
//! `∇_x P = ∂L/∂x` and `∇²_x P = L_xx − L_xp L_pp⁻¹ L_px`.

use crate::distance::triangle_triangle;
use crate::error::{ContactError, Result};
use nalgebra::{Matrix3, Matrix4, Point3, SMatrix, SVector, Vector3, Vector4};

/// The Cholesky factor `L` (`A = L Lᵀ`) of a symmetric positive definite 4x4 matrix, written
/// out for this size: the inner solve factorises one per Newton iteration, and the generic
/// factorisation cost as much as the rest of an iteration.
#[derive(Debug, Clone, Copy)]
pub struct PlaneFactor {
    l: [[f64; 4]; 4],
}

impl PlaneFactor {
    /// The factor of `a` (its lower triangle is read); `None` unless positive definite.
    pub fn new(a: &Matrix4<f64>) -> Option<Self> {
        let mut l = [[0.0; 4]; 4];
        for j in 0..4 {
            let mut d = a[(j, j)];
            for k in 0..j {
                d -= l[j][k] * l[j][k];
            }
            if !(d > 0.0) {
                return None;
            }
            let d = d.sqrt();
            l[j][j] = d;
            for i in j + 1..4 {
                let mut v = a[(i, j)];
                for k in 0..j {
                    v -= l[i][k] * l[j][k];
                }
                l[i][j] = v / d;
            }
        }
        Some(Self { l })
    }

    /// `L⁻¹ b`.
    pub fn forward(&self, b: &Vector4<f64>) -> Vector4<f64> {
        let l = &self.l;
        let mut y = Vector4::zeros();
        for i in 0..4 {
            let mut v = b[i];
            for k in 0..i {
                v -= l[i][k] * y[k];
            }
            y[i] = v / l[i][i];
        }
        y
    }

    /// `L⁻¹ B`, column by column.
    pub fn forward_columns<const C: usize>(&self, b: &SMatrix<f64, 4, C>) -> SMatrix<f64, 4, C> {
        let mut x = SMatrix::<f64, 4, C>::zeros();
        for c in 0..C {
            x.set_column(c, &self.forward(&b.column(c).into_owned()));
        }
        x
    }

    /// `A⁻¹ b`.
    pub fn solve(&self, b: &Vector4<f64>) -> Vector4<f64> {
        let l = &self.l;
        let y = self.forward(b);
        let mut x = Vector4::zeros();
        for i in (0..4).rev() {
            let mut v = y[i];
            for k in i + 1..4 {
                v -= l[k][i] * x[k];
            }
            x[i] = v / l[i][i];
        }
        x
    }

    /// `A⁻¹ B`, column by column.
    pub fn solve_columns<const C: usize>(&self, b: &SMatrix<f64, 4, C>) -> SMatrix<f64, 4, C> {
        let mut x = SMatrix::<f64, 4, C>::zeros();
        for c in 0..C {
            x.set_column(c, &self.solve(&b.column(c).into_owned()));
        }
        x
    }
}

/// Gradient with respect to the six vertices of a triangle pair (A's three, then B's).
pub type Vector18 = SVector<f64, 18>;
/// Hessian with respect to the six vertices of a triangle pair.
pub type Matrix18 = SMatrix<f64, 18, 18>;

/// The potential of one triangle pair with its derivatives in the six world vertices.
///
/// The Hessian `∂²P/∂x² = L_xx − L_xp L_pp⁻¹ L_px` is kept in factored form: `L_xx` is block
/// diagonal with blocks `c_k n nᵀ` ([`TrianglePotential::curvature`]), `L_xp` is 18x4
/// ([`TrianglePotential::mixed`]) and `L_pp` 4x4 ([`TrianglePotential::plane_hessian`]); maps
/// to other coordinates (body twists) are cheaper through the factors than through the full
/// 18x18 matrix, which [`TrianglePotential::hessian`] assembles.
#[derive(Debug, Clone, PartialEq)]
pub struct TrianglePotential {
    /// `P`.
    pub value: f64,
    /// `∂P/∂x` (A's vertices, then B's).
    pub gradient: Vector18,
    /// The optimal plane `(n, d)`: A on its positive side.
    pub plane: Vector4<f64>,
    /// `c_k = 2/s_k³`: `∂²L/∂x_k² = c_k n nᵀ`.
    pub curvature: [f64; 6],
    /// `∂²L/∂x∂p` (18x4).
    pub mixed: SMatrix<f64, 18, 4>,
    /// `∂²L/∂p²` at the optimum (positive definite).
    pub plane_hessian: Matrix4<f64>,
    /// Newton iterations.
    pub iterations: usize,
}

impl TrianglePotential {
    /// The factor of the plane Hessian `L_pp` (positive definite at the optimum).
    ///
    /// # Panics
    /// If `plane_hessian` was replaced by a matrix that is not positive definite: a potential
    /// from [`triangle_potential`] always holds one, since its solve only stops at a plane whose
    /// Hessian it has just factored.
    pub fn factor(&self) -> PlaneFactor {
        PlaneFactor::new(&self.plane_hessian)
            .expect("the plane Hessian is positive definite at the optimum")
    }

    /// `∂²P/∂x²` (18x18).
    pub fn hessian(&self) -> Matrix18 {
        let n = self.plane.xyz();
        let mut lxx = Matrix18::zeros();
        for k in 0..6 {
            lxx.fixed_view_mut::<3, 3>(3 * k, 3 * k)
                .copy_from(&(n * n.transpose() * self.curvature[k]));
        }
        lxx - self.mixed * self.factor().solve_columns(&self.mixed.transpose())
    }
}

/// The six homogeneous vertices with their signs.
struct Vertices {
    a: [Vector4<f64>; 6],
    sign: [f64; 6],
}

/// `L` and its plane derivatives at `p`; `None` outside the domain.
struct Objective {
    value: f64,
    gradient: Vector4<f64>,
    hessian: Matrix4<f64>,
}

impl Vertices {
    fn new(a: &[Point3<f64>; 3], b: &[Point3<f64>; 3]) -> Self {
        let h = |x: &Point3<f64>| Vector4::new(x.x, x.y, x.z, 1.0);
        Self {
            a: [h(&a[0]), h(&a[1]), h(&a[2]), h(&b[0]), h(&b[1]), h(&b[2])],
            sign: [1.0, 1.0, 1.0, -1.0, -1.0, -1.0],
        }
    }

    /// The slacks `s_k`, or `None` when `p` is infeasible.
    fn slacks(&self, p: &Vector4<f64>) -> Option<[f64; 6]> {
        let s: [f64; 6] = std::array::from_fn(|k| self.sign[k] * self.a[k].dot(p));
        let m = p.xyz().norm();
        (m < 1.0 && s.iter().all(|&s| s > 0.0)).then_some(s)
    }

    fn objective(&self, p: &Vector4<f64>) -> Option<Objective> {
        let s = self.slacks(p)?;
        let n = p.xyz();
        let m = n.norm();
        let q = 1.0 - m;
        let mut value = 12.0 / q;
        let mut gradient = Vector4::zeros();
        let mut hessian = Matrix4::zeros();
        if m > 0.0 {
            let u = n / m;
            gradient
                .fixed_rows_mut::<3>(0)
                .copy_from(&(u * (12.0 / (q * q))));
            let radial = u * u.transpose();
            let block = radial * (24.0 / (q * q * q))
                + (Matrix3::identity() - radial) * (12.0 / (q * q * m));
            hessian.fixed_view_mut::<3, 3>(0, 0).copy_from(&block);
        } else {
            // At n = 0 the term is 12 + 12|n| + ...: its Hessian is singular in direction but
            // the slack terms keep the total positive definite; use the radial curvature.
            hessian
                .fixed_view_mut::<3, 3>(0, 0)
                .copy_from(&(Matrix3::identity() * 24.0));
        }
        for k in 0..6 {
            let inv = 1.0 / s[k];
            value += inv;
            gradient -= self.a[k] * (self.sign[k] * inv * inv);
            hessian += self.a[k] * self.a[k].transpose() * (2.0 * inv * inv * inv);
        }
        Some(Objective {
            value,
            gradient,
            hessian,
        })
    }
}

/// A separating plane normal to `dir` (unit, pointing from B to A) half-way between the two
/// triangles' extents along it, scaled to the optimum of the centred problem
/// (`|n| = 1/(1 + √gap)`), with that gap; `None` when their extents along `dir` overlap.
fn plane_along(
    a: &[Point3<f64>; 3],
    b: &[Point3<f64>; 3],
    dir: &Vector3<f64>,
) -> Option<(Vector4<f64>, f64)> {
    let low_a = a
        .iter()
        .map(|p| p.coords.dot(dir))
        .fold(f64::INFINITY, f64::min);
    let high_b = b
        .iter()
        .map(|p| p.coords.dot(dir))
        .fold(f64::NEG_INFINITY, f64::max);
    let gap = low_a - high_b;
    if !(gap > 0.0) {
        return None;
    }
    let scale = 1.0 + gap.sqrt();
    let n = dir / scale;
    let plane = Vector4::new(n.x, n.y, n.z, -0.5 * (low_a + high_b) / scale);
    Some((plane, gap))
}

/// The cold start: the plane across the centroids' direction when it separates the two
/// triangles by at least half the centroids' distance (six dot products), else across the
/// closest points' direction (which separates unless they touch); `None` when they touch.
///
/// The centroids' distance bounds the triangles' distance from above, so the first plane's gap
/// is at least half the best one's. A plane that separates by less can sit a round-off away from
/// a corner: two parallel faces 6.8 cm apart but overlapping across the centroids' direction
/// gave a gap of 1e-9, where `L` is 8.5e8 and its plane Hessian does not factor.
fn initial_plane(a: &[Point3<f64>; 3], b: &[Point3<f64>; 3]) -> Option<Vector4<f64>> {
    let centroid = |t: &[Point3<f64>; 3]| (t[0].coords + t[1].coords + t[2].coords) / 3.0;
    let across = centroid(a) - centroid(b);
    let far = 0.5 * across.norm();
    if let Some((p, _)) = across
        .try_normalize(0.0)
        .and_then(|u| plane_along(a, b, &u))
        .filter(|&(_, gap)| gap >= far)
    {
        return Some(p);
    }
    let c = triangle_triangle(a, b);
    if !(c.distance > 0.0) {
        return None;
    }
    plane_along(a, b, &((c.a - c.b) / c.distance)).map(|(p, _)| p)
}

/// Newton decrement `∇Lᵀ(∇²L)⁻¹∇L` below which a warm start is used without trying the cold
/// start. Where every slack is below 0.89 (and `1 − |n|` always is), `L` is self-concordant
/// with the standard constant (`1/s` has `|f'''| / f''^{3/2} = 2.12√s`), so from a decrement
/// of 0.1 full Newton steps converge quadratically (`λ⁺ ≤ (λ/(1 − λ))²`).
const WARM_DECREMENT: f64 = 0.1;

/// The potential of triangles `a` and `b` (world vertices); `None` when they touch or
/// intersect (the potential is infinite). `start` is a plane to warm-start from: used when
/// feasible and nearly optimal (Newton decrement at most 0.1), else when `L` is lower there
/// than at the closest-point plane. Errors: a non-finite corner
/// ([`ContactError::NonFiniteVertex`], body 0 for `a`), an inner solve that does not converge
/// within `max_iterations`.
///
/// ```
/// use sdrs_contact::long_range::triangle::triangle_potential;
/// use nalgebra::{Point3, Vector3};
/// let a = [Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)];
/// let b = a.map(|p| p + Vector3::new(0.0, 0.0, 0.1));
/// let t = triangle_potential(&a, &b, None, 100)?.unwrap();
/// // B above A pushes A down and B up.
/// assert!(t.gradient[2] > 0.0 && t.gradient[11] < 0.0);
/// # Ok::<(), sdrs_contact::ContactError>(())
/// ```
pub fn triangle_potential(
    a: &[Point3<f64>; 3],
    b: &[Point3<f64>; 3],
    start: Option<Vector4<f64>>,
    max_iterations: usize,
) -> Result<Option<TrianglePotential>> {
    for (body, corners) in [a, b].into_iter().enumerate() {
        if let Some(vertex) = corners
            .iter()
            .position(|c| !c.coords.iter().all(|x| x.is_finite()))
        {
            let c = corners[vertex];
            return Err(ContactError::NonFiniteVertex {
                body,
                vertex,
                value: [c.x, c.y, c.z],
            });
        }
    }
    let v = Vertices::new(a, b);
    // A feasible warm start is taken as it is when it is nearly optimal (Newton decrement at
    // most `WARM_DECREMENT`, the usual case: the last plane of a pair that moved a little).
    // Otherwise the cold start is tried too and the one with the lower `L` is taken: a plane
    // kept from an evaluation elsewhere (a line-search trial, the step before) can still be
    // feasible but with a corner almost on it, where `L` is huge and its plane Hessian, a
    // rank-one term 1e24 times the rest, does not even factor in double precision.
    let warm = start.and_then(|p| v.objective(&p).map(|o| (p, o)));
    let warm_factor = warm.as_ref().and_then(|(_, o)| {
        PlaneFactor::new(&o.hessian)
            .filter(|f| o.gradient.dot(&f.solve(&o.gradient)) <= WARM_DECREMENT)
    });
    let (mut p, mut at, mut factor) = match (warm, warm_factor) {
        (Some((p, o)), Some(f)) => (p, o, Some(f)),
        (warm, _) => {
            // The closest-point plane separates strictly (`None` when the triangles touch);
            // only round-off at touching distances can make it infeasible.
            let cold = initial_plane(a, b).and_then(|p| v.objective(&p).map(|o| (p, o)));
            // The lower `L`, the warm start on a tie (`min_by` keeps the first).
            let lower = [warm, cold]
                .into_iter()
                .flatten()
                .min_by(|x, y| x.1.value.total_cmp(&y.1.value));
            let Some((p, o)) = lower else {
                return Ok(None);
            };
            (p, o, None)
        }
    };
    let mut iterations = 0;
    loop {
        let Some(chol) = factor.take().or_else(|| PlaneFactor::new(&at.hessian)) else {
            return Err(not_converged(iterations, &at));
        };
        let step = -chol.solve(&at.gradient);
        // Newton's decrement λ² ≈ 2(L − L*).
        let decrement = -at.gradient.dot(&step);
        if !(decrement > 0.0) {
            break;
        }
        if iterations == max_iterations {
            return Err(not_converged(iterations, &at));
        }
        iterations += 1;
        let resolvable = 64.0 * f64::EPSILON * at.value;
        let next = if decrement > resolvable {
            // Damped Newton: halve until feasible with an Armijo decrease, but not below
            // steps whose promised decrease the value cannot resolve.
            let mut t = 1.0;
            loop {
                let trial = p + step * t;
                if let Some(o) = v.objective(&trial)
                    && o.value <= at.value - 0.25 * t * decrement
                {
                    break Some((trial, o));
                }
                t *= 0.5;
                if t * decrement < resolvable {
                    break None;
                }
            }
        } else {
            None
        };
        // At round-off of L the gradient judges: full Newton steps while they shrink it (the
        // quadratic model is exact there), so the plane is accurate to the last digits the
        // IFT derivatives need.
        let next = next.or_else(|| {
            let trial = p + step;
            v.objective(&trial)
                .filter(|o| o.gradient.norm() < at.gradient.norm())
                .map(|o| (trial, o))
        });
        let Some((next, there)) = next else { break };
        (p, at) = (next, there);
    }
    Ok(Some(derivatives(&v, &p, &at, iterations)))
}

fn not_converged(iterations: usize, at: &Objective) -> ContactError {
    ContactError::NotConverged {
        solve: "long-range triangle-pair",
        iterations,
        gradient_norm: at.gradient.norm(),
        scale: at.value,
        energy: at.value,
    }
}

/// `P`, `∇_x P` and the factors of `∇²_x P` at the optimal plane.
fn derivatives(
    v: &Vertices,
    p: &Vector4<f64>,
    at: &Objective,
    iterations: usize,
) -> TrianglePotential {
    // `p` is an iterate of the solve, all of which have a finite objective, so feasible slacks.
    let s = v.slacks(p).expect("the optimum is feasible");
    let n = p.xyz();
    let mut gradient = Vector18::zeros();
    let mut mixed = SMatrix::<f64, 18, 4>::zeros();
    let mut curvature = [0.0; 6];
    for k in 0..6 {
        let inv = 1.0 / s[k];
        gradient
            .fixed_rows_mut::<3>(3 * k)
            .copy_from(&(-n * (v.sign[k] * inv * inv)));
        curvature[k] = 2.0 * inv * inv * inv;
        let mut block = n * v.a[k].transpose() * curvature[k];
        for c in 0..3 {
            block[(c, c)] -= v.sign[k] * inv * inv;
        }
        mixed.fixed_view_mut::<3, 4>(3 * k, 0).copy_from(&block);
    }
    TrianglePotential {
        value: at.value,
        gradient,
        plane: *p,
        curvature,
        mixed,
        plane_hessian: at.hessian,
        iterations,
    }
}
