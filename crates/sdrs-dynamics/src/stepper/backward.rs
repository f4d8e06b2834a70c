//! The mixed blocks of a step's objective that the backward pass needs (implicit function
//! theorem): with respect to the step-t coordinates, the previous poses, the PD targets and
//! the design (hull vertices and attachment points).

use super::assembly::CrossComposites;
use super::{Simulator, StepData};
use crate::energy::{link_energy, link_energy_cross};
use crate::error::Result;
use crate::kinematics::Kinematics;
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Isometry3, Matrix3, SMatrix};
use sdrs_geometry::twist::{Matrix12, Vector12};

/// Mixed second derivatives of the objective `O` at the solution `θ^{t+1}` of a step: with the
/// Hessian `H = ∂²O/∂θ^{t+1}²`, the implicit function theorem gives
/// `∂θ^{t+1}/∂y = −H⁻¹ ∂²O/∂θ^{t+1}∂y` for each input `y` of the step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepDerivatives {
    /// `∂²O/∂θ^{t+1}∂θ^t` (n x n): inertia (through `T^t`), PD damping and friction's lagged
    /// frame.
    pub current: DMatrix<f64>,
    /// `∂²O/∂θ^{t+1}∂ξ^{t−1}` (n x 6·links): with respect to the twists of the previous link
    /// poses (compose with their Jacobians for `θ^{t−1}`).
    pub previous: DMatrix<f64>,
    /// `∂²O/∂θ^{t+1}_j ∂θ*_j = −2 k_p` (the block is diagonal).
    pub target_position: DVector<f64>,
    /// `∂²O/∂θ^{t+1}_j ∂θ̇*_j = −2 k_d / Δt` (diagonal).
    pub target_velocity: DVector<f64>,
    /// `∂²O/∂θ^{t+1}∂x` for the hull-vertex part of the design vector (n x 3·vertices; column
    /// `model.design_index(link, Some((hull, vertex))) − 3·links` is the vertex's first
    /// coordinate): vertex-lumped inertia and gravity, the barrier's and friction's shape
    /// derivatives. `None` when a link with hulls has a solid mass model, whose derivative in
    /// the vertices is not provided, or when `StepSettings::design_derivatives` is off.
    pub vertices: Option<DMatrix<f64>>,
    /// `∂²O/∂θ^{t+1}∂t^d` for the attachment part of the design vector (n x 3·links, column
    /// `model.design_index(link, None)`), with `θ^t` and the previous poses held fixed (so
    /// `T^t = T(d, θ^t)` moves with the design, `T^{t−1}` does not). `None` when user energies
    /// are present (they are not differentiated with respect to the design) or when
    /// `StepSettings::design_derivatives` is off.
    pub attachments: Option<DMatrix<f64>>,
}

/// One pose-dependent term of the objective at a step's solution (a link's inertia and
/// gravity, or a hull pair's barrier or friction), with its derivatives with respect to the
/// twists of its one or two links (6 per link; a link term uses the first 6 rows and columns,
/// the rest stay zero).
struct Term {
    links: [usize; 2],
    count: usize,
    gradient: Vector12,
    hessian: Matrix12,
    /// `∂g/∂ξ^t` with respect to the same links' step-t twists.
    step_t: Matrix12,
    /// `∂g/∂ξ^{t−1}` of a link term.
    step_prev: Option<SMatrix<f64, 6, 6>>,
    /// `(link, hull, vertex, ∂g/∂x)` for the local hull vertices it depends on.
    vertices: Vec<(usize, usize, usize, SMatrix<f64, 12, 3>)>,
}

impl Term {
    fn links(&self) -> &[usize] {
        &self.links[..self.count]
    }
}

/// `∂²O/∂θ^{t+1}∂x` over all hull vertices (columns as in [`StepDerivatives::vertices`]).
fn vertex_block(model: &Model, kin: &Kinematics, terms: &[Term]) -> DMatrix<f64> {
    let offset = 3 * model.links().len();
    let mut block = DMatrix::zeros(model.dof(), model.design_len() - offset);
    for term in terms {
        for (link, hull, vertex, m) in &term.vertices {
            let col = model.design_index(*link, Some((*hull, *vertex))) - offset;
            for (b, &l) in term.links().iter().enumerate() {
                let rows = m.fixed_view::<6, 3>(6 * b, 0);
                for (k, jac) in kin.jacobian(l) {
                    let row = jac.transpose() * rows;
                    for c in 0..3 {
                        block[(*k, col + c)] += row[c];
                    }
                }
            }
        }
    }
    block
}

/// `∂²O/∂θ^{t+1}∂t^d` (columns as in [`StepDerivatives::attachments`]).
///
/// Moving link `i`'s attachment by `δ` (parent frame) translates its subtree `S` by
/// `Δ = R_parent δ` at step t+1 and by `R^t_parent δ` at step t. Each term's twist gradient
/// changes by its Hessian's and step-t block's translation columns for the bodies in `S`,
/// and the Jacobian column of an outside DoF `k` for a link `l ∈ S` by `(ω_k × Δ, 0)`, which
/// adds `(g_v,l × ω_k) · Δ`.
fn attachment_block(
    model: &Model,
    kin: &Kinematics,
    now: &Kinematics,
    terms: &[Term],
) -> DMatrix<f64> {
    let links = model.links().len();
    // inside[i * links + l]: link l is in the subtree of link i.
    let mut inside = vec![false; links * links];
    for l in 0..links {
        let mut at = Some(l);
        while let Some(j) = at {
            inside[j * links + l] = true;
            at = model.links()[j].parent;
        }
    }
    let mut block = DMatrix::zeros(model.dof(), 3 * links);
    for i in 0..links {
        let inside = &inside[i * links..(i + 1) * links];
        let parent = |k: &Kinematics| -> Matrix3<f64> {
            model.links()[i]
                .parent
                .map(|p| k.poses()[p].rotation.into())
                .unwrap_or_else(Matrix3::identity)
        };
        let (turn, turn_t) = (parent(kin), parent(now));
        let first_inside = model.dof_offset(i);
        for term in terms
            .iter()
            .filter(|t| t.links().iter().any(|&l| inside[l]))
        {
            // ∂g/∂δ of the whole term: translation columns of the moved bodies.
            let mut dg = SMatrix::<f64, 12, 3>::zeros();
            for (c, _) in term.links().iter().enumerate().filter(|(_, l)| inside[**l]) {
                dg += term.hessian.fixed_view::<12, 3>(0, 6 * c) * turn
                    + term.step_t.fixed_view::<12, 3>(0, 6 * c) * turn_t;
            }
            for (b, &l) in term.links().iter().enumerate() {
                let rows = dg.fixed_view::<6, 3>(6 * b, 0);
                for (k, jac) in kin.jacobian(l) {
                    let row = jac.transpose() * rows;
                    for c in 0..3 {
                        block[(*k, 3 * i + c)] += row[c];
                    }
                }
                if !inside[l] {
                    continue;
                }
                let gv = term.gradient.fixed_rows::<3>(6 * b).into_owned();
                for &k in model.path(l).iter().filter(|&&k| k < first_inside) {
                    let row = gv.cross(&kin.screw(k).0).transpose() * turn;
                    for c in 0..3 {
                        block[(k, 3 * i + c)] += row[c];
                    }
                }
            }
        }
    }
    block
}

impl Simulator {
    /// The mixed blocks of [`StepDerivatives`] at the solution whose kinematics are `kin`.
    pub(super) fn step_derivatives(
        &mut self,
        kin: &Kinematics,
        now: &Kinematics,
        previous: &[Isometry3<f64>],
        data: &StepData,
    ) -> Result<StepDerivatives> {
        let (n, links, dt) = (self.model.dof(), self.model.links().len(), self.settings.dt);
        let terms = self.terms(kin, now, previous)?;
        let model = &self.model;
        let mut current = DMatrix::zeros(n, n);
        let mut before = DMatrix::zeros(n, 6 * links);
        let mut inertia = CrossComposites::default();
        inertia.clear(links);
        for term in &terms {
            if term.count == 1 {
                // A link's inertia: through the composites below.
                let i = term.links[0];
                inertia.add_link(
                    i,
                    &kin.poses()[i].translation.vector,
                    &now.poses()[i].translation.vector,
                    &term.step_t.fixed_view::<6, 6>(0, 0).into_owned(),
                );
            } else {
                kin.add_cross(now, term.links(), &term.step_t, &mut current);
            }
            if let Some(at_prev) = &term.step_prev {
                let i = term.links[0];
                for (k, col) in kin.jacobian(i) {
                    let row = col.transpose() * at_prev;
                    for c in 0..6 {
                        before[(*k, 6 * i + c)] += row[c];
                    }
                }
            }
        }
        inertia.accumulate(model);
        inertia.add_to(model, kin, now, &mut current);
        let c = data.control;
        for j in 0..n {
            current[(j, j)] -= 2.0 * c.kd[j] / (dt * dt);
        }
        let solid = model.links().iter().any(|l| {
            !l.hulls.is_empty() && matches!(l.mass, crate::model::MassModel::Solid { .. })
        });
        let design = self.settings.design_derivatives;
        let vertices = (design && !solid).then(|| vertex_block(model, kin, &terms));
        let attachments = (design && self.settings.external.is_empty())
            .then(|| attachment_block(model, kin, now, &terms));
        Ok(StepDerivatives {
            current,
            previous: before,
            target_position: -c.kp.clone() * 2.0,
            target_velocity: -c.kd.clone() * (2.0 / dt),
            vertices,
            attachments,
        })
    }

    /// Every pose-dependent term of the objective at the solution, with its twist derivatives
    /// and the mixed blocks the backward pass needs.
    fn terms(
        &mut self,
        kin: &Kinematics,
        now: &Kinematics,
        previous: &[Isometry3<f64>],
    ) -> Result<Vec<Term>> {
        let model = &self.model;
        let dt = self.settings.dt;
        let design = self.settings.design_derivatives;
        let mut terms = Vec::new();
        for (i, link) in model.links().iter().enumerate() {
            let pose = &kin.poses()[i];
            // A link term's own gradient and Hessian only enter the design blocks.
            let (g, h) = if design {
                let (_, g, h) = link_energy(
                    model.second_moment(i),
                    pose,
                    &self.workspace.predicted[i],
                    dt,
                    self.settings.gravity,
                );
                (g, h)
            } else {
                Default::default()
            };
            let (at_t, at_prev) = link_energy_cross(
                model.second_moment(i),
                pose,
                &now.poses()[i],
                &previous[i],
                dt,
            );
            let mut vertices = Vec::new();
            if let crate::model::MassModel::Lumped { mass } = link.mass
                && design
            {
                let count: usize = link.hulls.iter().map(|h| h.vertices().len()).sum();
                for (h, hull) in link.hulls.iter().enumerate() {
                    for (v, x) in hull.vertices().iter().enumerate() {
                        let m = crate::energy::link_energy_vertex(
                            mass / count as f64,
                            &x.coords,
                            pose,
                            &self.workspace.predicted[i],
                            dt,
                            self.settings.gravity,
                        );
                        let mut mixed = SMatrix::<f64, 12, 3>::zeros();
                        mixed.fixed_view_mut::<6, 3>(0, 0).copy_from(&m);
                        vertices.push((i, h, v, mixed));
                    }
                }
            }
            let mut term = Term {
                links: [i, i],
                count: 1,
                gradient: Vector12::zeros(),
                hessian: Matrix12::zeros(),
                step_t: Matrix12::zeros(),
                step_prev: Some(at_prev),
                vertices,
            };
            term.gradient.fixed_rows_mut::<6>(0).copy_from(&g);
            term.hessian.fixed_view_mut::<6, 6>(0, 0).copy_from(&h);
            term.step_t.fixed_view_mut::<6, 6>(0, 0).copy_from(&at_t);
            terms.push(term);
        }
        if let Some(hook) = self.contact.as_mut() {
            for pair in hook.pair_terms(model, kin)? {
                terms.push(Term {
                    links: pair.links,
                    count: 2,
                    gradient: pair.gradient,
                    hessian: pair.hessian,
                    step_t: pair.step_t,
                    step_prev: None,
                    vertices: pair
                        .vertices
                        .iter()
                        .map(|v| (v.link, v.hull, v.vertex, v.mixed))
                        .collect(),
                });
            }
        }
        Ok(terms)
    }
}
