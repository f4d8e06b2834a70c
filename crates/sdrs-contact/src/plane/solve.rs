//! The inner Newton solve for the separating plane.

use super::Side;
use crate::barrier::barrier;
use crate::error::{ContactError, Result};
use nalgebra::{Cholesky, Matrix3, Matrix4, U4, Vector3, Vector4};

/// Sums over the active vertices of one hull (those within the support of the plane), with
/// `r = R x` the vertex offset from the body origin in world axes.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Moments {
    /// `Σ P''`
    pub s0: f64,
    /// `Σ P'' r`
    pub s1: Vector3<f64>,
    /// `Σ P'' r rᵀ`
    pub s2: Matrix3<f64>,
    /// `Σ P'`
    pub t0: f64,
    /// `Σ P' r`
    pub t1: Vector3<f64>,
}

impl Moments {
    /// Adds a vertex at offset `r` whose term has derivatives `(d1, d2)`.
    pub fn add(&mut self, r: &Vector3<f64>, (d1, d2): (f64, f64)) {
        self.s0 += d2;
        self.s1 += r * d2;
        self.s2 += r * r.transpose() * d2;
        self.t0 += d1;
        self.t1 += r * d1;
    }
}

/// `U*` and its plane derivatives at one plane.
#[derive(Debug, Clone, Copy)]
pub(super) struct PlaneEval {
    pub value: f64,
    pub gradient: Vector4<f64>,
    pub hessian: Matrix4<f64>,
    /// `Σ |P'|·|x̄|` over all terms: the size of what cancels in the gradient at the optimum.
    pub scale: f64,
    /// Round-off in the gradient from evaluating each plane distance `q` (`Σ P''·δq·|x̄|`):
    /// no iterate can be judged more precisely, so this floors the convergence test. It matters
    /// when the gap is tiny compared with the coordinates (`q` is then a difference of nearly
    /// equal numbers).
    pub noise: f64,
    /// Round-off in the energy from the same source (`Σ |P'|·δq`): energy differences below it
    /// cannot judge a step.
    pub value_noise: f64,
    pub moments: [Moments; 2],
}

/// The converged plane, the evaluation there and the factor of its plane Hessian (which the
/// implicit-function derivatives solve with).
pub(super) struct Solution {
    pub plane: Vector4<f64>,
    pub eval: PlaneEval,
    pub factor: Cholesky<f64, U4>,
    pub iterations: usize,
}

impl PlaneEval {
    /// Whether every number in it is finite. Coordinates near `1e154` or gaps far below the
    /// hulls' size can overflow products (`t tᵀ P''`); the solve must then stop with an error
    /// rather than iterate on infinities.
    fn is_finite(&self) -> bool {
        [self.value, self.scale, self.noise, self.value_noise]
            .iter()
            .chain(self.gradient.iter())
            .chain(self.hessian.iter())
            .all(|x| x.is_finite())
    }
}

/// Evaluates `U*` with plane gradient and Hessian; `None` if the plane is infeasible (a vertex
/// on the wrong side or `|n| ≥ 1`).
pub(super) fn evaluate_plane(sides: &[Side; 2], p: &Vector4<f64>, s: f64) -> Option<PlaneEval> {
    let n = Vector3::new(p.x, p.y, p.z);
    let n_norm = n.norm();
    let (value_n, d1_n, d2_n) = barrier(1.0 - n_norm, s)?;
    let mut eval = PlaneEval {
        value: value_n,
        gradient: Vector4::zeros(),
        hessian: Matrix4::zeros(),
        scale: d1_n.abs(),
        noise: 0.0,
        value_noise: f64::EPSILON * value_n,
        moments: [Moments::default(); 2],
    };
    add_norm_terms(&n, (d1_n, d2_n), &mut eval.gradient, &mut eval.hessian);
    for (side, moments) in sides.iter().zip(&mut eval.moments) {
        let rotation = side.pose.rotation.to_rotation_matrix();
        let t = side.pose.translation.vector;
        let sign = side.sign;
        let offset_size = n_norm * t.norm() + p.w.abs();
        for (_, x, q) in side.distances(&n, p.w) {
            if q >= s {
                continue;
            }
            let (value, d1, d2) = barrier(q, s)?;
            let r = rotation * x.coords;
            eval.value += value;
            moments.s0 += d2;
            moments.s1 += r * d2;
            moments.s2 += r * r.transpose() * d2;
            moments.t0 += d1;
            moments.t1 += r * d1;
            let size = ((r + t).norm_squared() + 1.0).sqrt();
            eval.scale += d1.abs() * size;
            let dq = f64::EPSILON * (n_norm * x.coords.norm() + offset_size);
            eval.noise += d2 * dq * size;
            eval.value_noise += d1.abs() * dq + f64::EPSILON * value;
        }
        add_side_terms(moments, &t, sign, &mut eval.gradient, &mut eval.hessian);
    }
    Some(eval)
}

/// Adds the plane gradient and Hessian of the norm barrier `P_s(1 − |n|)`, whose derivatives
/// at `1 − |n|` are `(d1, d2)`.
pub(super) fn add_norm_terms(
    n: &Vector3<f64>,
    (d1, d2): (f64, f64),
    gradient: &mut Vector4<f64>,
    hessian: &mut Matrix4<f64>,
) {
    if d1 != 0.0 || d2 != 0.0 {
        let n_norm = n.norm();
        let unit = n / n_norm;
        let g = -d1 * unit;
        let h = unit * unit.transpose() * d2
            - (Matrix3::identity() - unit * unit.transpose()) * (d1 / n_norm);
        let mut top = gradient.fixed_rows_mut::<3>(0);
        top += g;
        let mut block = hessian.fixed_view_mut::<3, 3>(0, 0);
        block += h;
    }
}

/// Adds one hull's vertex terms to the plane gradient and Hessian from their moments `m`
/// (the hull at translation `t`, on side `sign`): `Σ σP' x̄` and `Σ P'' x̄x̄ᵀ` with
/// `x̄ = (r + t, 1)`.
pub(super) fn add_side_terms(
    m: &Moments,
    t: &Vector3<f64>,
    sign: f64,
    gradient: &mut Vector4<f64>,
    hessian: &mut Matrix4<f64>,
) {
    let first = m.t1 + t * m.t0;
    *gradient += Vector4::new(first.x, first.y, first.z, m.t0) * sign;
    let cross = m.s1 * t.transpose();
    let block = m.s2 + cross + cross.transpose() + t * t.transpose() * m.s0;
    let column = m.s1 + t * m.s0;
    let mut h = Matrix4::zeros();
    h.fixed_view_mut::<3, 3>(0, 0).copy_from(&block);
    h.fixed_view_mut::<3, 1>(0, 3).copy_from(&column);
    h.fixed_view_mut::<1, 3>(3, 0)
        .copy_from(&column.transpose());
    h[(3, 3)] = m.s0;
    *hessian += h;
}

/// The best scaling `λ ∈ (1 − s, 1)` of a unit plane `p̂`: the minimiser of
/// `P_s(1 − λ) + Σ P_s(λ d_m)` with `d_m` the signed unit distances of the vertices, found by
/// safeguarded Newton on the derivative (bracketed, bisecting `1 − λ` geometrically when Newton
/// leaves the bracket). Starting the 4-D solve from `λ p̂` spares it the many damped steps that
/// growing `|n|` from `1 − s` towards 1 takes at small gaps. `None` if a vertex is on the wrong
/// side of `p̂`.
pub(super) fn scale_unit_plane(sides: &[Side; 2], unit: &Vector4<f64>, s: f64) -> Option<f64> {
    let n = Vector3::new(unit.x, unit.y, unit.z);
    // A vertex is active when λd < s, and λ > 1 − s, so every vertex with d < s/(1 − s) can
    // take part. (Keeping only d < s missed every vertex when the mid-plane is more than s
    // from both hulls, i.e. at gaps in (2s, 2s/(1 − s)): λ then stayed at 1 − s, where the
    // norm barrier has no curvature and the plane Hessian is singular.)
    let reach = s / (1.0 - s);
    let mut distances = Vec::new();
    for side in sides {
        for (_, _, d) in side.all_distances(&n, unit.w) {
            if !(d > 0.0) {
                return None;
            }
            if d < reach {
                distances.push(d);
            }
        }
    }
    // f(λ) = dU/dλ is increasing; f(1 − s) ≤ 0 and f → +∞ as λ → 1.
    let derivatives = |lambda: f64| {
        let (_, d1, d2) = barrier(1.0 - lambda, s).unwrap_or((0.0, f64::INFINITY, f64::INFINITY));
        let (mut f, mut df) = (-d1, d2);
        for &d in &distances {
            if let Some((_, v1, v2)) = barrier(lambda * d, s) {
                f += d * v1;
                df += d * d * v2;
            }
        }
        (f, df)
    };
    let (mut lo, mut hi) = (s, 0.0_f64); // bracket on u = 1 − λ: f(1 − lo) ≤ 0 < f(1 − hi)
    let mut u = s;
    for _ in 0..100 {
        let (f, df) = derivatives(1.0 - u);
        if f.abs() <= 1e-6 * df.abs() * u || df == 0.0 && f == 0.0 {
            break;
        }
        if f < 0.0 {
            lo = u
        } else {
            hi = u
        }
        // Newton in λ is a step of −f/df in λ, i.e. +f/df in u.
        let newton = u + f / df;
        u = if newton < lo && newton > hi && newton.is_finite() {
            newton
        } else if hi > 0.0 {
            (lo * hi).sqrt()
        } else {
            lo * 1e-3
        };
        if (lo - hi) <= 1e-9 * lo {
            break;
        }
    }
    Some(1.0 - u)
}

/// Cholesky factor of the plane Hessian, with a growing diagonal shift when round-off makes it
/// numerically indefinite (it is positive definite in exact arithmetic at every plane with
/// `|n| > 1 − s` and `U > 0`, but at gaps far below the coordinates' size its condition number
/// exceeds `1/ε`). `None` only for a non-finite matrix: a shift of `1e16` times the trace makes
/// any finite symmetric 4x4 matrix positive definite, so the loop ends.
pub(super) fn factor(hessian: &Matrix4<f64>) -> Option<Cholesky<f64, U4>> {
    if !hessian.iter().all(|x| x.is_finite()) {
        return None;
    }
    let base = 1e-14 * hessian.trace().abs().max(f64::MIN_POSITIVE);
    (0..=30)
        .map(|k| {
            if k == 0 {
                0.0
            } else {
                base * 10f64.powi(k - 1)
            }
        })
        .find_map(|shift| (hessian + Matrix4::identity() * shift).cholesky())
}

/// Regularised Newton direction `−(H + |g| I)⁻¹ g` (Levenberg-Marquardt with the shift of Li,
/// Fukushima, Qi and Yamashita 2003, which keeps Newton's quadratic convergence: the shift
/// vanishes with the gradient).
///
/// `H` is singular wherever `|n| ≤ 1 − s` (the norm barrier has neither slope nor curvature
/// there) and fewer than four affinely independent vertices are active: it is then the Gram
/// matrix `Σ P'' x̄x̄ᵀ` of the active vertices. The exact gradient lies in its range, but the
/// gradient's round-off does not, and a plain Newton step divides that round-off by the
/// near-zero eigenvalues: a direction 1e14 long that no line search can use. The shift bounds
/// the step by `|g| / |g| = 1` in plane coordinates (the normal lives in the unit ball) and
/// takes the least-norm step in the flat directions.
fn newton_direction(eval: &PlaneEval) -> Result<Vector4<f64>> {
    let shift = Matrix4::identity() * eval.gradient.norm();
    Ok(-factor(&(eval.hessian + shift))
        .ok_or(overflow())?
        .solve(&eval.gradient))
}

fn overflow() -> ContactError {
    ContactError::Overflow {
        what: "the separating-plane Hessian",
    }
}

/// The solution at `p`, with the factor of its Hessian.
fn solution(p: Vector4<f64>, eval: PlaneEval, iterations: usize) -> Result<Solution> {
    Ok(Solution {
        plane: p,
        factor: factor(&eval.hessian).ok_or(overflow())?,
        eval,
        iterations,
    })
}

/// Newton steps shorter than this, relative to the plane's size, are at round-off: the
/// gradient cannot get smaller than `|H|` times the spacing of floating-point planes, which can
/// exceed any gradient tolerance when the barrier is stiff.
const STEP_TOLERANCE: f64 = 1e-11;

/// Minimises `U*` over the plane from a feasible start `p` whose evaluation is `eval`.
///
/// Converged when `|∇_p U*| ≤ tolerance · scale + 8 · noise` or when the Newton step is below
/// [`STEP_TOLERANCE`] (then the plane is exact to round-off, which is what the implicit
/// function theorem needs).
pub(super) fn minimise(
    sides: &mut [Side; 2],
    start: Vector4<f64>,
    mut eval: PlaneEval,
    s: f64,
    tolerance: f64,
    max_iterations: usize,
) -> Result<Solution> {
    let mut p = start;
    let mut taken = 0;
    for iterations in 0..max_iterations {
        taken = iterations + 1;
        sides.iter_mut().for_each(|side| side.keep_nearby(&p, s));
        if !eval.is_finite() {
            return Err(ContactError::Overflow {
                what: "the separating-plane energy or its derivatives",
            });
        }
        if eval.value == 0.0 {
            return solution(p, eval, iterations);
        }
        if eval.gradient.norm() <= tolerance * eval.scale + 8.0 * eval.noise {
            // Polish with one full Newton step: inside the tolerance the model is quadratic, so
            // this takes the plane to round-off, which the derivatives of weakly active
            // vertices need (their effect on the plane can sit below the tolerance).
            let trial = p + newton_direction(&eval)?;
            if let Some(e) = evaluate_plane(sides, &trial, s)
                && e.is_finite()
                && e.gradient.norm() <= eval.gradient.norm()
            {
                (p, eval) = (trial, e);
            }
            return solution(p, eval, iterations + 1);
        }
        // The plain Newton step first. Near a hull's edge or corner the plane can turn about
        // it at almost no cost: the Hessian then has an eigenvalue many orders below the
        // others (1e-11 against 10 at a vertex over the ground's edge, 0.0202 apart with
        // s = 0.01), and the regularised step below, whose shift |g| exceeds that eigenvalue
        // until the very end, only creeps along it (linear convergence with a rate near 1:
        // 100 iterations from a warm start 1e-4 rad off). Where that plain step is
        // feasible and decreases the energy it is taken; where round-off in the gradient
        // makes it absurdly long it is infeasible or increases the energy, and the
        // regularised step with a line search takes over.
        if let Some(plain) = factor(&eval.hessian).map(|f| -f.solve(&eval.gradient))
            && plain.iter().all(|x| x.is_finite())
        {
            let slope = eval.gradient.dot(&plain);
            let below_resolution = -slope <= 16.0 * eval.value_noise;
            let trial = p + plain;
            if slope < 0.0
                && let Some(e) = evaluate_plane(sides, &trial, s)
                && e.is_finite()
                && (e.value <= eval.value + 1e-4 * slope
                    || (below_resolution && e.gradient.norm() < eval.gradient.norm()))
            {
                let at_round_off = plain.norm() <= STEP_TOLERANCE * p.norm();
                (p, eval) = (trial, e);
                if at_round_off {
                    return solution(p, eval, iterations + 1);
                }
                continue;
            }
        }
        let direction = newton_direction(&eval)?;
        let at_round_off = direction.norm() <= STEP_TOLERANCE * p.norm();
        let slope = eval.gradient.dot(&direction);
        // Once the predicted decrease is below what the energy can resolve, the energy cannot
        // judge a step any more: accept the full step if it is feasible and shrinks the
        // gradient (the quadratic model is exact there).
        let below_resolution = -slope <= 16.0 * eval.value_noise;
        let mut step = 1.0;
        let mut accepted = false;
        for _ in 0..64 {
            let trial = p + direction * step;
            if let Some(e) = evaluate_plane(sides, &trial, s)
                && (e.value <= eval.value + 1e-4 * step * slope
                    || (below_resolution
                        && step == 1.0
                        && e.gradient.norm() < eval.gradient.norm()))
            {
                (p, eval) = (trial, e);
                accepted = true;
                break;
            }
            step *= 0.5;
        }
        if at_round_off {
            return solution(p, eval, iterations + 1);
        }
        if !accepted {
            break;
        }
    }
    // The last iteration's step is judged too (it used to be reported as a failure even when
    // it converged).
    if eval.is_finite()
        && (eval.value == 0.0 || eval.gradient.norm() <= tolerance * eval.scale + 8.0 * eval.noise)
    {
        return solution(p, eval, taken);
    }
    Err(ContactError::NotConverged {
        solve: "SDRS hull-pair",
        iterations: taken,
        gradient_norm: eval.gradient.norm(),
        scale: eval.scale,
        energy: eval.value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Isometry3, Point3, Quaternion, UnitQuaternion};
    use proptest::prelude::*;
    use sdrs_geometry::ConvexHull;
    use sdrs_geometry::testing::{hull, place_at_gap, pose, unit_vector};

    fn sides<'a>(
        a: &'a ConvexHull,
        pa: &'a Isometry3<f64>,
        b: &'a ConvexHull,
        pb: &'a Isometry3<f64>,
    ) -> [Side<'a>; 2] {
        [Side::new(a, pa, -1.0), Side::new(b, pb, 1.0)]
    }

    /// The unit plane with normal `n` halfway between the hulls' support planes.
    fn unit_mid_plane(sides: &[Side; 2], n: &Vector3<f64>) -> Vector4<f64> {
        let pa = sides[0].hull.support_point(sides[0].pose, n);
        let pb = sides[1].hull.support_point(sides[1].pose, &-n);
        Vector4::new(n.x, n.y, n.z, -n.dot(&(pa.coords + pb.coords)) * 0.5)
    }

    /// At `|n| = 1 − s` the norm barrier has neither slope nor curvature, so with fewer than
    /// four affinely independent active vertices the plane Hessian is singular. A plain Newton
    /// step from there (this pair of tetrahedra, 0.214 apart, was found by
    /// `converges_from_any_feasible_start` without the shift) was 1e14 long and rejected by
    /// the line search; the regularised step converges.
    #[test]
    fn converges_from_a_start_where_the_plane_hessian_is_singular() {
        let tetrahedron = |rows: [[f64; 3]; 4]| {
            ConvexHull::new(rows.iter().map(|r| Point3::from(*r)).collect()).unwrap()
        };
        let a = tetrahedron([
            [0.17565421091763234, 0.3685267705366949, 0.3037955367226107],
            [
                0.0608529499592948,
                -0.15132683956010964,
                -0.12181735689455758,
            ],
            [0.23105466198645053, 0.21225383830444416, 0.3108728163620851],
            [
                0.03492276390712157,
                -0.11098970238877945,
                -0.2286788773213582,
            ],
        ]);
        let b = tetrahedron([
            [
                -0.4504560060926496,
                0.2560403379053914,
                -0.35718095323185833,
            ],
            [-0.5082002881985228, 0.45609147271433303, 0.303539869620622],
            [
                -0.5322860680848257,
                0.21987460275330192,
                -0.2638170510063914,
            ],
            [
                -0.6592051772023594,
                0.08676118048649659,
                0.07768384597627034,
            ],
        ]);
        let pose = |q: [f64; 4], t: [f64; 3]| {
            let q = UnitQuaternion::from_quaternion(Quaternion::from(Vector4::from(q)));
            Isometry3::from_parts(t.into(), q)
        };
        let pa = pose(
            [
                0.03153726156114889,
                0.5469294657012238,
                -0.6482713991177188,
                -0.5287889501180534,
            ],
            [-0.23204720354255826, 0.9575092611743721, 0.5365457945861438],
        );
        let pb = pose(
            [
                0.24855206872370597,
                -0.8799185372400967,
                -0.02033822007351452,
                0.4044151255314965,
            ],
            [0.0, 0.0, -0.19773362800097208],
        );
        let n = Vector3::new(0.843369914565331, -0.4953765814599843, -0.20815674321790784);
        let s = 0.1;
        let pb = place_at_gap(
            &a,
            &pa,
            &b,
            &pb,
            &n,
            0.9625905201988113 * 2.0 * s / (1.0 - s),
        );
        let mut sides = sides(&a, &pa, &b, &pb);
        let start = unit_mid_plane(&sides, &n) * (1.0 - s);
        let eval = evaluate_plane(&sides, &start, s).unwrap();
        let eigenvalues = eval.hessian.symmetric_eigenvalues();
        assert!(eval.value > 0.0 && eigenvalues.min() < 1e-12 * eigenvalues.max());
        let solution = minimise(&mut sides, start, eval, s, 1e-8, 100).unwrap();
        assert!(solution.eval.value < eval.value);
        assert!(solution.plane.xyz().norm() > 1.0 - s);
    }

    proptest! {
        #![proptest_config(sdrs_geometry::testing::cases(200))]

        /// From any feasible start (the mid-plane of a random direction, scaled by any
        /// `λ ∈ [0.3, 1)`, often by `1 − s`, where the Hessian can be singular), the solve reaches the plane the 1-D scaled mid-plane start reaches.
        #[test]
        fn converges_from_any_feasible_start(
            a in hull(4, 30),
            b in hull(4, 30),
            pa in pose(1.0),
            pb in pose(1.0),
            n in unit_vector(),
            frac in 0.03..0.97f64,
            lambda in prop_oneof![Just(0.9), 0.3..1.0f64],
        ) {
            let s = 0.1;
            let pb = place_at_gap(&a, &pa, &b, &pb, &n, frac * 2.0 * s / (1.0 - s));
            let sides = sides(&a, &pa, &b, &pb);
            let unit = unit_mid_plane(&sides, &n);
            let solve = |start: Vector4<f64>| {
                let mut sides = [Side::new(&a, &pa, -1.0), Side::new(&b, &pb, 1.0)];
                let eval = evaluate_plane(&sides, &start, s).unwrap();
                minimise(&mut sides, start, eval, s, 1e-8, 100).unwrap()
            };
            let reference = solve(unit * scale_unit_plane(&sides, &unit, s).unwrap());
            let other = solve(unit * lambda);
            let u = reference.eval.value;
            prop_assert!((other.eval.value - u).abs() <= 1e-10 * u, "{} vs {}", other.eval.value, u);
            prop_assert!((other.plane - reference.plane).norm() <= 1e-6 * reference.plane.norm());
        }
    }

    #[test]
    fn plane_gradient_and_hessian_match_finite_differences() {
        let cube = ConvexHull::cuboid(Vector3::new(0.5, 0.4, 0.3)).unwrap();
        let pa = Isometry3::new(Vector3::new(0.1, -0.2, 0.3), Vector3::new(0.3, 0.1, -0.2));
        let pb = Isometry3::new(Vector3::new(1.6, 0.2, 0.1), Vector3::new(-0.1, 0.2, 0.4));
        let sides = [Side::new(&cube, &pa, -1.0), Side::new(&cube, &pb, 1.0)];
        let s = 0.3;
        let p = Vector4::new(0.8, 0.05, 0.0, -0.75);
        let e = evaluate_plane(&sides, &p, s).expect("feasible");
        let h = 1e-7;
        for k in 0..4 {
            let mut plus = p;
            plus[k] += h;
            let mut minus = p;
            minus[k] -= h;
            let ep = evaluate_plane(&sides, &plus, s).unwrap();
            let em = evaluate_plane(&sides, &minus, s).unwrap();
            let fd = (ep.value - em.value) / (2.0 * h);
            assert!(
                (fd - e.gradient[k]).abs() < 1e-5 * e.gradient.norm(),
                "g[{k}]: {fd} vs {}",
                e.gradient[k]
            );
            let fdh = (ep.gradient - em.gradient) / (2.0 * h);
            assert!(
                (fdh - e.hessian.column(k)).norm() < 1e-5 * e.hessian.norm(),
                "H col {k}: {fdh:?} vs {:?}",
                e.hessian.column(k)
            );
        }
    }
}
