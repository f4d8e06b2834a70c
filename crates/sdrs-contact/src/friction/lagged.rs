//! Friction derivatives through the lagged step-t frame and the local vertices: what the
//! adjoint of a time step needs besides the step-(t+1) Hessian.
//!
//! `U_f` depends on the step-t state through every input of eq. 8-13: the pressed points'
//! positions `y^t`, the plane `p* = (n, o)` (which moves with both step-t poses and with every
//! pressed local vertex, [`crate::plane::PlaneSensitivity`]), and through `p*` the normal
//! forces, the unit normal and the tangent basis. With `G = ∂U*/∂ξ^{t+1}` and `Z = ∂U*/∂z` at
//! the optimal plane velocity `z = (u, ω)`, a parameter `θ` changes the step-(t+1) gradient by
//! `dG/dθ = ∂G/∂θ − ∂G/∂z [∂Z/∂z]⁻¹ ∂Z/∂θ` (implicit function theorem) and the energy by
//! `∂U*/∂θ` (envelope theorem).
//!
//! Two free choices are held fixed while differentiating, because `U_f` does not depend on
//! them: the centre the plane rotates about (Lemma VIII.2) and the in-plane rotation of the
//! tangent basis. The basis is moved with the normal by parallel transport,
//! `δB = −n̂ (δn̂ᵀ B)`, which keeps it orthonormal and orthogonal to `n̂`.

use super::frame::Forces;
use super::solve::scaled_inverse;
use super::{FrictionCache, FrictionFrame, Lagged, PlaneFriction};
use crate::barrier::barrier;
use crate::error::Result;
use crate::model::{Order, PairContact, VertexDerivatives};
use nalgebra::{Isometry3, Matrix2, Matrix3, Matrix4, SMatrix, SVector, Vector2, Vector3};
use sdrs_geometry::twist::{Matrix12, Vector12};

/// Rows of a sensitivity: the step-(t+1) gradient `G` (12), `Z = ∂U*/∂z` (3) and `U*` (1).
type Outputs = SVector<f64, 16>;
const Z_ROWS: usize = 12;
const VALUE_ROW: usize = 15;

/// Plane friction with every derivative the adjoint of a time step needs.
#[derive(Debug, Clone, PartialEq)]
pub struct LaggedContact {
    /// Energy, step-(t+1) gradient and Hessian, and for every pressed local vertex `∂U_f/∂x`
    /// and `∂²U_f/∂ξ^{t+1}∂x` (through both the step-(t+1) point and the lagged frame).
    pub contact: PairContact,
    /// `∂U_f/∂ξ^t`: the gradient with respect to the two step-t twists.
    pub step_gradient: Vector12,
    /// `∂²U_f/∂ξ^{t+1}∂ξ^t`: entry `(i, j)` is the change of step-(t+1) gradient component `i`
    /// with step-t twist component `j`.
    pub step_mixed: Matrix12,
    /// `Σ_m f_m ∂G/∂f_m`: the change of the step-(t+1) gradient when every normal force `f_m`
    /// of the frame is scaled by `1 + s`, per unit `s`. The forces carry the contact stiffness
    /// `κ` as a factor, so this over `κ` is the gradient's derivative with respect to `κ`
    /// (not `G/κ`: the weights `μΔt A_ε(f)` are not linear in the forces).
    pub force_scale_mixed: Vector12,
}

/// `N` changes of one point's lagged inputs, one per column.
struct Variations<const N: usize> {
    /// Of its step-t world position `y^t`.
    position_t: SMatrix<f64, 3, N>,
    /// Of its step-(t+1) world position (and so of its arm from the body origin).
    position: SMatrix<f64, 3, N>,
    /// Of the step-t plane `(n, o)`.
    plane: SMatrix<f64, 4, N>,
    /// Of its normal force, besides what a plane barrier's force does with the plane and the
    /// position (triangle-pair frames, whose forces depend on all six corners).
    force: SMatrix<f64, 1, N>,
}

impl<const N: usize> Variations<N> {
    fn none() -> Self {
        Self {
            position_t: SMatrix::zeros(),
            position: SMatrix::zeros(),
            plane: SMatrix::zeros(),
            force: SMatrix::zeros(),
        }
    }
}

impl Variations<3> {
    /// Of each coordinate of the step-t position.
    fn of_position_t() -> Self {
        Self {
            position_t: Matrix3::identity(),
            ..Self::none()
        }
    }

    /// Of a local vertex along each axis: its step-t and step-(t+1) world positions move by
    /// the columns of the two rotations.
    fn of_local(rotation_t: Matrix3<f64>, rotation: Matrix3<f64>) -> Self {
        Self {
            position_t: rotation_t,
            position: rotation,
            ..Self::none()
        }
    }
}

impl Variations<4> {
    /// Of each coordinate of the plane.
    fn of_plane() -> Self {
        Self {
            plane: Matrix4::identity(),
            ..Self::none()
        }
    }
}

impl Variations<1> {
    /// Of the normal force.
    fn of_force() -> Self {
        Self {
            force: SMatrix::<f64, 1, 1>::new(1.0),
            ..Self::none()
        }
    }
}

/// One pressed point, as far as its step-(t+1) terms are concerned.
struct PointState<'a> {
    lagged: &'a Lagged,
    sign: f64,
    /// `P'_s(q)`, `P''_s(q)` at its step-t plane distance (zero when the forces do not come
    /// from a plane barrier).
    d1: f64,
    d2: f64,
    normal_force: f64,
    /// `y − y^t` (step-(t+1) minus step-t world position).
    displacement: Vector3<f64>,
    /// Offset of the step-(t+1) position from its body origin.
    arm: Vector3<f64>,
    /// The relative slip `w = d − u − ω spin` at the optimum.
    w: Vector2<f64>,
    /// The optimal plane rotation rate `ω`.
    omega: f64,
    /// `ρ = √(|w|² + ε_v)`, the damping direction `φ = a w/ρ`, its derivative
    /// `C = ∂φ/∂w` and the force `B φ/Δt` on the point (constant over the variations).
    rho: f64,
    phi: Vector2<f64>,
    curvature: Matrix2<f64>,
    force: Vector3<f64>,
}

impl PlaneFriction {
    /// The friction energy with its step-(t+1) derivatives ([`Order::Design`]), its gradient
    /// with respect to the step-t twists and the mixed block `∂²U_f/∂ξ^{t+1}∂ξ^t`.
    ///
    /// ```
    /// use sdrs_contact::{PlaneBarrier, PlaneCache, friction::{FrictionCache, FrictionFrame, PlaneFriction}};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let ground = ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap();
    /// let block = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    /// let below = Isometry3::translation(0.0, 0.0, -0.5);
    /// let at_t = Isometry3::translation(0.0, 0.0, 0.105);
    /// let frame = FrictionFrame::new(&PlaneBarrier::new(0.01).unwrap(), 1.0, &ground, &below, &block, &at_t, &mut PlaneCache::default())
    ///     .unwrap().expect("in contact");
    /// let next = Isometry3::translation(0.01, 0.0, 0.105);
    /// let all = PlaneFriction::new(0.5, 0.01).unwrap()
    ///     .evaluate_lagged(&frame, &below, &next, &mut FrictionCache::default()).unwrap();
    /// // Slip is measured from the step-t position: moving the block at t along +x lowers it.
    /// assert!(all.step_gradient[6] < 0.0);
    /// // Every pressed vertex gets its shape derivatives.
    /// assert_eq!(all.contact.vertices.len(), frame.points().len());
    /// ```
    pub fn evaluate_lagged(
        &self,
        frame: &FrictionFrame,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
        cache: &mut FrictionCache,
    ) -> Result<LaggedContact> {
        crate::model::check_poses(pose_a, pose_b)?;
        let poses = [pose_a, pose_b];
        let solved = self.solve(frame, poses, cache, Order::Hessian)?;
        let (mut contact, g_z) = self.pose_derivatives(frame, poses, &solved, Order::Hessian);
        // dG/dθ = ∂G/∂θ − ∂G/∂z H⁻¹ ∂Z/∂θ, applied to the rows of a sensitivity.
        let k: SMatrix<f64, 12, 3> = g_z * scaled_inverse(&solved.h, &solved.prepared.dm);
        let total = |s: &Outputs| -> (Vector12, f64) {
            let z_rows = s.fixed_rows::<3>(Z_ROWS).into_owned();
            (
                s.fixed_rows::<12>(0).into_owned() - k * z_rows,
                s[VALUE_ROW],
            )
        };
        let states: Vec<PointState> = solved
            .prepared
            .lagged
            .iter()
            .zip(&solved.slip)
            .zip(frame.points())
            .map(|((l, d), p)| {
                let (_, d1, d2) = frame
                    .support()
                    .and_then(|s| barrier(p.distance, s))
                    .unwrap_or_default();
                let y = poses[p.body] * p.local;
                let term = self.term(l, d, &solved.z);
                PointState {
                    lagged: l,
                    sign: [-1.0, 1.0][p.body],
                    d1,
                    d2,
                    normal_force: p.normal_force,
                    displacement: y.coords - p.position,
                    arm: y.coords - poses[p.body].translation.vector,
                    w: d - l.spin * solved.z.z - solved.z.xy(),
                    omega: solved.z.z,
                    rho: term.rho,
                    phi: term.gradient,
                    curvature: term.curvature,
                    force: frame.basis() * term.gradient / self.dt,
                }
            })
            .collect();
        // Every point responds to the plane: sum those responses once.
        let mut plane = SMatrix::<f64, 16, 4>::zeros();
        for (state, p) in states.iter().zip(frame.points()) {
            plane += self.variations(frame, state, p.position, &Variations::of_plane());
        }
        // Triangle-pair forces move with every corner: the response to each point's force,
        // and `through_forces(m, δy)`, the response to moving point m's step-t position by δy.
        let by_force: Vec<Outputs> = states
            .iter()
            .zip(frame.points())
            .map(|(state, p)| self.variations(frame, state, p.position, &Variations::of_force()))
            .collect();
        let through_forces = |m: usize, dy: &Vector3<f64>| -> Outputs {
            match frame.forces() {
                Forces::Barrier { .. } => Outputs::zeros(),
                Forces::Triangles { derivative } => {
                    let df = derivative.fixed_view::<6, 3>(0, 3 * m) * dy;
                    by_force.iter().zip(df.iter()).map(|(r, d)| r * *d).sum()
                }
            }
        };
        // Step-t twists: through the plane, and through each point's y^t (δy^t = δv + δω × r^t).
        let mut step: SMatrix<f64, 16, 12> = plane * frame.plane_pose_derivative();
        for (m, (state, p)) in states.iter().zip(frame.points()).enumerate() {
            let r_t = p.position - frame.poses()[p.body].translation.vector;
            let mut by_position =
                self.variations(frame, state, p.position, &Variations::of_position_t());
            for k in 0..3 {
                let mut column = by_position.column_mut(k);
                column += through_forces(m, &Vector3::ith(k, 1.0));
            }
            let mut cols = step.fixed_view_mut::<16, 6>(0, 6 * p.body);
            let mut v = cols.fixed_view_mut::<16, 3>(0, 0);
            v += by_position;
            let mut w = cols.fixed_view_mut::<16, 3>(0, 3);
            w -= by_position * r_t.cross_matrix();
        }
        let mut step_gradient = Vector12::zeros();
        let mut step_mixed = Matrix12::zeros();
        for j in 0..12 {
            let (g, v) = total(&step.column(j).into_owned());
            step_mixed.set_column(j, &g);
            step_gradient[j] = v;
        }
        // Local vertices: y^t = R^t x + t^t, y = R x + t, and the plane. Hull vertices only:
        // a triangle pair's margin also moves with its corners' spread (not modelled).
        let hull_points = match frame.forces() {
            Forces::Barrier { .. } => frame.points(),
            Forces::Triangles { .. } => &[],
        };
        for (state, p) in states.iter().zip(hull_points) {
            let rotation_t: Matrix3<f64> = frame.poses()[p.body].rotation.into();
            let rotation: Matrix3<f64> = poses[p.body].rotation.into();
            let own = Variations::of_local(rotation_t, rotation);
            let s = self.variations(frame, state, p.position, &own) + plane * p.plane_derivative;
            let mut gradient = Vector3::zeros();
            let mut mixed = SMatrix::<f64, 12, 3>::zeros();
            for k in 0..3 {
                let (g, v) = total(&s.column(k).into_owned());
                mixed.set_column(k, &g);
                gradient[k] = v;
            }
            contact.vertices.push(VertexDerivatives {
                body: p.body,
                vertex: p.vertex,
                gradient,
                mixed,
            });
        }
        let force_scale_mixed = by_force
            .iter()
            .zip(frame.points())
            .map(|(response, p)| total(response).0 * p.normal_force)
            .sum();
        Ok(LaggedContact {
            contact,
            step_gradient,
            step_mixed,
            force_scale_mixed,
        })
    }

    /// The first-order changes of one point's contribution to `(G, Z, U*)` under the columns
    /// of `delta`, at fixed plane velocity (the change is linear in `delta`: all columns are
    /// taken in one pass). `position_t` is the point's step-t world position.
    fn variations<const N: usize>(
        &self,
        frame: &FrictionFrame,
        state: &PointState,
        position_t: Vector3<f64>,
        delta: &Variations<N>,
    ) -> SMatrix<f64, 16, N> {
        let plane = frame.plane();
        let n = plane.xyz();
        let n_norm = n.norm();
        let unit = frame.normal();
        let basis = frame.basis();
        let dn = delta.plane.fixed_rows::<3>(0);
        let l = state.lagged;
        // Normal force f = −κ P'(q) |n| with q = σ (n·y^t + o) for a plane barrier (plus any
        // explicit change), and the weight a = μΔt A_ε(f).
        let dq = (position_t.transpose() * dn
            + delta.plane.fixed_rows::<1>(3)
            + n.transpose() * delta.position_t)
            * state.sign;
        let d_force = delta.force
            - (dq * (state.d2 * n_norm) + unit.transpose() * dn * state.d1) * frame.stiffness();
        let f = state.normal_force;
        let d_weight = d_force * (self.mu * self.dt * f / (f * f + self.force_epsilon).sqrt());
        // Unit normal and parallel-transported basis, δB = −n̂ (δn̂ᵀ B): per column
        // δBᵀ v = −(Bᵀ δn̂)(n̂·v) and δB φ = −n̂ (δn̂·Bφ).
        let d_unit = (dn - unit * (unit.transpose() * dn)) / n_norm;
        let bt_d_unit = basis.transpose() * d_unit;
        // Slip d = Bᵀ(y − y^t)/Δt and spin = Bᵀ(n̂ × (y^t − c)).
        let d_slip = (-bt_d_unit * unit.dot(&state.displacement)
            + basis.transpose() * (delta.position - delta.position_t))
            / self.dt;
        let d_spin = -bt_d_unit * unit.dot(&unit.cross(&l.lever))
            + basis.transpose()
                * (-l.lever.cross_matrix() * d_unit + unit.cross_matrix() * delta.position_t);
        // w = d − u − ω spin at fixed (u, ω); φ = a w/ρ, ∂φ/∂w = C.
        let (rho, phi) = (state.rho, state.phi);
        let dw = d_slip - d_spin * state.omega;
        let d_phi = state.w / rho * d_weight + state.curvature * dw;
        // G_b = [F; r × F] with F = B φ / Δt; Z = −[φ; spin·φ]; U* = a ρ.
        let d_force_vec = (-unit * ((basis * phi).transpose() * d_unit) + basis * d_phi) / self.dt;
        let mut out = SMatrix::<f64, 16, N>::zeros();
        let row = 6 * l.body;
        out.fixed_rows_mut::<3>(row).copy_from(&d_force_vec);
        out.fixed_rows_mut::<3>(row + 3).copy_from(
            &(state.arm.cross_matrix() * d_force_vec - state.force.cross_matrix() * delta.position),
        );
        out.fixed_rows_mut::<2>(Z_ROWS).copy_from(&-d_phi);
        out.fixed_rows_mut::<1>(Z_ROWS + 2)
            .copy_from(&-(phi.transpose() * d_spin + l.spin.transpose() * d_phi));
        out.fixed_rows_mut::<1>(VALUE_ROW)
            .copy_from(&(d_weight * rho + phi.transpose() * dw));
        out
    }
}
