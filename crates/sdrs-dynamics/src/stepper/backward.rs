//! The mixed blocks of a step's objective that the backward pass needs (implicit function
//! theorem): with respect to the step-t coordinates, the previous poses, the PD targets and
//! the design (hull vertices and attachment points).

use super::Simulator;
use super::assembly::CrossComposites;
use super::evaluation::{StepData, add_outer};
use super::parameters::{AtSolution, parameter_blocks};
use crate::energy::{joint_friction, link_energy, link_energy_cross};
use crate::error::Result;
use crate::kinematics::{Kinematics, State};
use crate::model::{JointKind, Model};
use nalgebra::{DMatrix, DVector, DVectorView, Isometry3, Matrix3, SMatrix, Vector3};
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
    /// poses (compose with their Jacobians for `θ^{t−1}`). The step reads the previous pose
    /// of each rigid body's first link only ([`crate::bodies`]), so the columns of links hung
    /// on their body by fixed joints are zero.
    pub previous: DMatrix<f64>,
    /// `∂²O/∂θ^{t+1}_j ∂θ*_j = −2 k_p`, minus the stiffness [`crate::Control::kp`] (the block is
    /// diagonal; `k_p`, `k_d` are the paper's gains of [`crate::Control`]).
    pub target_position: DVector<f64>,
    /// `∂²O/∂θ^{t+1}_j ∂θ̇*_j = −2 k_d / Δt`, minus the damping [`crate::Control::kd`] (diagonal).
    pub target_velocity: DVector<f64>,
    /// `∂²O/∂θ^{t+1}∂x` for the hull-vertex part of the design vector (design entries
    /// `3·links ..`; entry `model.design_index(link, Some((hull, vertex)))` is the vertex's
    /// first coordinate), one block per link: vertex-lumped inertia and gravity, the
    /// barrier's and friction's shape derivatives. `None` when a link with hulls has a solid
    /// mass model, whose derivative in the vertices is not provided, or when
    /// `StepSettings::design_derivatives` is off.
    pub vertices: Option<DesignBlocks>,
    /// `∂²O/∂θ^{t+1}∂t^d` for the attachment part of the design vector (design entries
    /// `0 .. 3·links`, entry `model.design_index(link, None)`), one block per link, with `θ^t`
    /// and the previous poses held fixed (so `T^t = T(d, θ^t)` moves with the design,
    /// `T^{t−1}` does not). `None` when user energies are present (they are not
    /// differentiated with respect to the design) or when `StepSettings::design_derivatives`
    /// is off.
    pub attachments: Option<DesignBlocks>,
    /// `∂²O/∂θ^{t+1}∂p` (n x P) for the physical parameters of
    /// [`crate::StepSettings::parameters`], one column each in that order
    /// ([`crate::stepper::PhysicalParameter`]).
    pub parameters: DMatrix<f64>,
}

/// One link's part of a [`DesignBlocks`]: the mixed derivatives of the step gradient's
/// entries `rows` with respect to the design entries `start .. start + values.ncols()`.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignBlock {
    /// The first design entry (an index into `Model::design`).
    pub start: usize,
    /// The gradient entries (DoFs, increasing) with a non-zero derivative.
    pub rows: Vec<usize>,
    /// `rows.len()` x the link's design entries.
    pub values: DMatrix<f64>,
}

/// A design block `∂²O/∂θ^{t+1}∂d` over a range of the design vector, kept as per-link
/// blocks: a link's design entries only move the DoFs on the root paths of the terms that
/// involve it, so memory is `Σ_links |rows| · |entries|` instead of `n · |range|`.
///
/// ```
/// use sdrs_dynamics::scenes::chain;
/// use sdrs_dynamics::{Motion, Simulator, State};
/// let mut scene = chain(3, 0.01)?;
/// scene.settings.backward = true;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let mut motion = Motion::at_rest(&model, State::zero(&model));
/// let report = sim.advance(&mut motion, &scene.control)?;
/// let blocks = report.linearization.expect("backward blocks").derivatives;
/// let attachments = blocks.attachments.expect("no user energies");
/// // The attachments are design entries 0 .. 3·links; the dense form has one column each.
/// assert_eq!(attachments.range(), 0..9);
/// assert_eq!(attachments.dense().shape(), (3, 9));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DesignBlocks {
    dof: usize,
    start: usize,
    len: usize,
    blocks: Vec<DesignBlock>,
}

impl DesignBlocks {
    /// The design entries covered.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.len
    }

    /// The per-link blocks (links whose entries move nothing are left out).
    pub fn blocks(&self) -> &[DesignBlock] {
        &self.blocks
    }

    /// The number of stored values.
    pub fn stored(&self) -> usize {
        self.blocks.iter().map(|b| b.values.len()).sum()
    }

    /// The dense block: `dof x range().len()`, column `c` for design entry
    /// `range().start + c`.
    pub fn dense(&self) -> DMatrix<f64> {
        let mut out = DMatrix::zeros(self.dof, self.len);
        for b in &self.blocks {
            for (r, &k) in b.rows.iter().enumerate() {
                let mut row = out.view_mut((k, b.start - self.start), (1, b.values.ncols()));
                row += b.values.row(r);
            }
        }
        out
    }

    /// `design += Bᵀ μ` for a gradient `design` over the whole design vector (`μ`: `dof`
    /// entries).
    pub fn add_transpose_product(&self, mu: &DVector<f64>, design: &mut DVector<f64>) {
        let mut gathered = Vec::new();
        for b in &self.blocks {
            gathered.clear();
            gathered.extend(b.rows.iter().map(|&k| mu[k]));
            let mu_rows = DVectorView::from_slice(&gathered, gathered.len());
            design
                .rows_mut(b.start, b.values.ncols())
                .gemv_tr(1.0, &b.values, &mu_rows, 1.0);
        }
    }

    /// `out += B D` for design directions `D` over the whole design vector (`|d| x k`;
    /// `out`: `dof x k`).
    pub fn add_product(&self, directions: &DMatrix<f64>, out: &mut DMatrix<f64>) {
        for b in &self.blocks {
            let d = directions.rows(b.start, b.values.ncols());
            for (r, &k) in b.rows.iter().enumerate() {
                let mut row = out.row_mut(k);
                row += b.values.row(r) * d;
            }
        }
    }
}

/// One link's [`DesignBlock`] while it is summed: its rows fixed in advance (the DoFs the
/// terms can reach), each DoF's row in `slot`.
struct LinkBlock {
    slot: Vec<usize>,
    block: DesignBlock,
}

impl LinkBlock {
    /// A zero block over the DoFs marked in `touched` (`None` when there are none).
    fn new(start: usize, touched: &[bool], width: usize) -> Option<Self> {
        let rows: Vec<usize> = (0..touched.len()).filter(|&k| touched[k]).collect();
        if rows.is_empty() {
            return None;
        }
        let mut slot = vec![usize::MAX; touched.len()];
        for (r, &k) in rows.iter().enumerate() {
            slot[k] = r;
        }
        let values = DMatrix::zeros(rows.len(), width);
        Some(Self {
            slot,
            block: DesignBlock {
                start,
                rows,
                values,
            },
        })
    }

    /// Adds `row` to DoF `k`'s entries `column .. column + 3`.
    fn add(&mut self, k: usize, column: usize, row: &nalgebra::RowVector3<f64>) {
        let r = self.slot[k];
        for c in 0..3 {
            self.block.values[(r, column + c)] += row[c];
        }
    }
}

/// Marks in `touched` the DoFs that move any of `links` (their root paths).
fn mark(model: &Model, links: &[usize], touched: &mut [bool]) {
    for &l in links {
        for &k in model.path(l) {
            touched[k] = true;
        }
    }
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
    /// For a contact pair's term: `Some(None)` for its normal contact, `Some(Some(f))` for its
    /// friction with force-scale block `f` ([`super::PairTerm::friction`]); `None` for link
    /// and weld terms.
    contact: Option<Option<Vector12>>,
}

impl Term {
    fn links(&self) -> &[usize] {
        &self.links[..self.count]
    }
}

/// `∂²O/∂θ^{t+1}∂x` over all hull vertices, per link (as in [`StepDerivatives::vertices`]).
fn vertex_block(model: &Model, kin: &Kinematics, terms: &[Term]) -> DesignBlocks {
    let (n, links) = (model.dof(), model.links());
    let offset = 3 * links.len();
    // Each link's first vertex entry; a link's vertices touch the DoFs that move the links of
    // the terms they enter.
    let mut first = Vec::with_capacity(links.len() + 1);
    let mut at = offset;
    for link in links {
        first.push(at);
        at += 3 * link.hulls.iter().map(|h| h.vertices().len()).sum::<usize>();
    }
    first.push(at);
    let mut touched = vec![false; links.len() * n];
    for term in terms {
        for (link, ..) in &term.vertices {
            mark(model, term.links(), &mut touched[link * n..(link + 1) * n]);
        }
    }
    let mut blocks: Vec<Option<LinkBlock>> = (0..links.len())
        .map(|l| {
            LinkBlock::new(
                first[l],
                &touched[l * n..(l + 1) * n],
                first[l + 1] - first[l],
            )
        })
        .collect();
    for term in terms {
        for (link, hull, vertex, m) in &term.vertices {
            let before: usize = links[*link].hulls[..*hull]
                .iter()
                .map(|h| h.vertices().len())
                .sum();
            let col = 3 * (before + vertex);
            // No block: none of the links of the terms this vertex enters moves.
            let Some(block) = blocks[*link].as_mut() else {
                continue;
            };
            for (b, &l) in term.links().iter().enumerate() {
                let rows = m.fixed_view::<6, 3>(6 * b, 0);
                for (k, jac) in kin.jacobian(l) {
                    block.add(k, col, &(jac.transpose() * rows));
                }
            }
        }
    }
    DesignBlocks {
        dof: n,
        start: offset,
        len: at - offset,
        blocks: blocks.into_iter().flatten().map(|b| b.block).collect(),
    }
}

/// `∂²O/∂θ^{t+1}∂t^d`, per link (as in [`StepDerivatives::attachments`]).
///
/// Moving link `i`'s attachment by `δ` (parent frame) translates its subtree `S` by
/// `Δ = R_parent δ` at step t+1 and by `R^t_parent δ` at step t. Each term's twist gradient
/// changes by its Hessian's and step-t block's translation columns for the bodies in `S`,
/// and the Jacobian column of an outside DoF `k` for a link `l ∈ S` by `(ω_k × Δ, 0)`, which
/// adds `(g_v,l × ω_k) · Δ`. The previous poses are held, but the step reads them per rigid
/// body (a link of a body sits at `T_r^{t−1} O_l`): when `i` hangs on its body by a fixed
/// joint, its attachment is part of the offsets `O_l` of the links of `S` in its body, which
/// move by `R^{t−1}_parent δ` at step t−1 too (the previous-pose block's translation columns).
fn attachment_block(
    model: &Model,
    kin: &Kinematics,
    now: &Kinematics,
    previous: &[Isometry3<f64>],
    terms: &[Term],
) -> DesignBlocks {
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
    let n = model.dof();
    let mut blocks = Vec::with_capacity(links);
    let mut touched = vec![false; n];
    for i in 0..links {
        let inside = &inside[i * links..(i + 1) * links];
        let involved = || {
            terms
                .iter()
                .filter(|t| t.links().iter().any(|&l| inside[l]))
        };
        touched.fill(false);
        for term in involved() {
            mark(model, term.links(), &mut touched);
        }
        let Some(mut block) = LinkBlock::new(3 * i, &touched, 3) else {
            continue;
        };
        let parent = |k: &Kinematics| -> Matrix3<f64> {
            model.links()[i]
                .parent
                .map(|p| k.poses()[p].rotation.into())
                .unwrap_or_else(Matrix3::identity)
        };
        let (turn, turn_t) = (parent(kin), parent(now));
        // Where `i`'s attachment moves the previous poses the step reads: the links of its
        // body below it, when it hangs on that body by a fixed joint.
        let body = model.body(i);
        let turn_prev = model.links()[i]
            .parent
            .filter(|_| body != i)
            .map(|p| Matrix3::from(previous[body].rotation * model.body_offset(p).rotation));
        let first_inside = model.dof_offset(i);
        for term in involved() {
            // ∂g/∂δ of the whole term: translation columns of the moved bodies.
            let mut dg = SMatrix::<f64, 12, 3>::zeros();
            for (c, _) in term.links().iter().enumerate().filter(|(_, l)| inside[**l]) {
                dg += term.hessian.fixed_view::<12, 3>(0, 6 * c) * turn
                    + term.step_t.fixed_view::<12, 3>(0, 6 * c) * turn_t;
            }
            if let (Some(turn_prev), Some(at_prev)) = (turn_prev, &term.step_prev)
                && model.body(term.links[0]) == body
                && inside[term.links[0]]
            {
                let mut moved = dg.fixed_view_mut::<6, 3>(0, 0);
                moved += at_prev.fixed_view::<6, 3>(0, 0) * turn_prev;
            }
            for (b, &l) in term.links().iter().enumerate() {
                let rows = dg.fixed_view::<6, 3>(6 * b, 0);
                for (k, jac) in kin.jacobian(l) {
                    block.add(k, 0, &(jac.transpose() * rows));
                }
                if !inside[l] {
                    continue;
                }
                let gv = term.gradient.fixed_rows::<3>(6 * b).into_owned();
                for &k in model.path(l).iter().filter(|&&k| k < first_inside) {
                    block.add(k, 0, &(gv.cross(&kin.screw(k).0).transpose() * turn));
                }
            }
        }
        blocks.push(block.block);
    }
    DesignBlocks {
        dof: n,
        start: 0,
        len: 3 * links,
        blocks,
    }
}

/// The armature terms `a/(2Δt²) (θ − 2θ^t + θ^{t−1})²` in the mixed blocks: `−2a/Δt²` with
/// θ^t, and `a/Δt²` times how θ^{t−1}, recovered from the previous poses, moves with their
/// twists (world rotation `ω`, origin velocity `v`): for a revolute joint of world axis `â`,
/// `δθ = â·(ω_link − ω_parent)`; for a prismatic one, `δθ = â·(v_link − v_parent) +
/// ω_parent·(â × (o_link − o_parent))`.
fn add_armature_blocks(
    model: &Model,
    previous: &[Isometry3<f64>],
    dt: f64,
    (current, before): (&mut DMatrix<f64>, &mut DMatrix<f64>),
) {
    for &(link, j, a) in model.joint_armature() {
        let scale = a / (dt * dt);
        current[(j, j)] -= 2.0 * scale;
        let l = &model.links()[link];
        let parent = l.parent.map(|p| (p, previous[p]));
        let frame = model.joint_frame(previous, link);
        let mut add = |body: usize, offset: usize, v: Vector3<f64>| {
            for k in 0..3 {
                before[(j, 6 * body + offset + k)] += scale * v[k];
            }
        };
        match &l.joint {
            JointKind::Revolute { axis } => {
                let axis = frame.rotation * axis;
                add(link, 3, axis);
                if let Some((p, _)) = parent {
                    add(p, 3, -axis);
                }
            }
            JointKind::Prismatic { axis } => {
                let axis = frame.rotation * axis;
                add(link, 0, axis);
                if let Some((p, pose)) = parent {
                    add(p, 0, -axis);
                    let arm = previous[link].translation.vector - pose.translation.vector;
                    add(p, 3, axis.cross(&arm));
                }
            }
            _ => {}
        }
    }
}

impl Simulator {
    /// The mixed blocks of [`StepDerivatives`] at the solution `next` whose kinematics are
    /// `kin`.
    pub(super) fn step_derivatives(
        &mut self,
        (next, kin): (&State, &Kinematics),
        now: &Kinematics,
        previous: &[Isometry3<f64>],
        data: &StepData,
    ) -> Result<StepDerivatives> {
        let (n, links, dt) = (self.model.dof(), self.model.links().len(), self.settings.dt);
        let terms = self.terms(kin, now, previous)?;
        let parameters = self.parameter_blocks((next, kin), data, &terms);
        let model = &self.model;
        let mut current = DMatrix::zeros(n, n);
        let mut before = DMatrix::zeros(n, 6 * links);
        let mut inertia = CrossComposites::default();
        inertia.clear(links);
        // Inertia and gravity per rigid body (its links' merged second moment, exact: see
        // `crate::bodies`), as the forward step assembles them; the link terms of `terms`
        // (design only) feed the design blocks.
        for &b in model.bodies().roots() {
            let (at_t, at_prev) = link_energy_cross(
                model.body_second_moment(b),
                &kin.poses()[b],
                &now.poses()[b],
                &previous[b],
                dt,
            );
            inertia.add_link(
                b,
                &kin.poses()[b].translation.vector,
                &now.poses()[b].translation.vector,
                &at_t,
            );
            for (k, col) in kin.jacobian(b) {
                let row = col.transpose() * at_prev;
                for c in 0..6 {
                    before[(k, 6 * b + c)] += row[c];
                }
            }
        }
        for term in terms.iter().filter(|t| t.count == 2) {
            kin.add_cross(now, term.links(), &term.step_t, &mut current);
        }
        inertia.accumulate(model);
        inertia.add_to(model, kin, now, &mut current);
        let c = data.control;
        for j in 0..n {
            let (_, k_d) = c.paper_gains(j, dt);
            current[(j, j)] -= 2.0 * k_d / (dt * dt);
        }
        add_armature_blocks(model, previous, dt, (&mut current, &mut before));
        // A tendon's damper `d/(2Δt) (L − L^t)²`: `−d/Δt c cᵀ`.
        for (tendon, terms) in model.tendon_terms() {
            add_outer(terms, -tendon.damping / dt, &mut current);
        }
        // Joint friction is a function of θ^{t+1} − θ^t.
        let velocity = self.settings.joint_friction_velocity;
        for &(j, friction) in model.joint_friction() {
            let dq = next.q[j] - data.q_t[j];
            current[(j, j)] -= joint_friction(friction, dq, dt, velocity).2;
        }
        let solid = model.links().iter().any(|l| {
            !l.hulls.is_empty() && matches!(l.mass, crate::model::MassModel::Solid { .. })
        });
        let design = self.settings.design_derivatives;
        let vertices = (design && !solid).then(|| vertex_block(model, kin, &terms));
        // The previous coordinates of joints with armature are recovered through the
        // attachments, a dependence the attachment blocks leave out: none then.
        let attachments =
            (design && self.settings.external.is_empty() && model.joint_armature().is_empty())
                .then(|| attachment_block(model, kin, now, previous, &terms));
        Ok(StepDerivatives {
            current,
            previous: before,
            target_position: DVector::from_fn(n, |j, _| -2.0 * c.paper_gains(j, dt).0),
            target_velocity: DVector::from_fn(n, |j, _| -2.0 * c.paper_gains(j, dt).1 / dt),
            vertices,
            attachments,
            parameters,
        })
    }

    /// `∂²O/∂θ^{t+1}∂p` of the settings' physical parameters at the solution `next` (no
    /// columns without them), the contact terms taken from `terms`.
    fn parameter_blocks(
        &self,
        (next, kin): (&State, &Kinematics),
        data: &StepData,
        terms: &[Term],
    ) -> DMatrix<f64> {
        // The list was checked against the model when it was set (`Simulator::new`,
        // `Simulator::set_parameters`), and neither changes after.
        if self.settings.parameters.is_empty() {
            return DMatrix::zeros(self.model.dof(), 0);
        }
        let contact: Vec<_> = terms
            .iter()
            .filter_map(|t| t.contact.map(|friction| (t.links, t.gradient, friction)))
            .collect();
        parameter_blocks(&AtSolution {
            model: &self.model,
            settings: &self.settings,
            next,
            kin,
            data,
            predicted: &self.workspace.predicted,
            contact: &contact,
        })
    }

    /// The pose-dependent terms of the objective at the solution the backward pass needs term
    /// by term, with their twist derivatives and mixed blocks: every hull pair's barrier and
    /// friction, and, for the design blocks only, every link's inertia and gravity and every
    /// weld.
    fn terms(
        &mut self,
        kin: &Kinematics,
        now: &Kinematics,
        previous: &[Isometry3<f64>],
    ) -> Result<Vec<Term>> {
        let model = &self.model;
        let dt = self.settings.dt;
        let design = self.settings.design_derivatives;
        // A term is 2.7 kB: growing the vector by doubling copied them (a quarter of a UR5
        // step Jacobian's instructions).
        let mut terms = Vec::with_capacity(if design { model.links().len() } else { 0 });
        let link_terms = model.links().iter().enumerate().filter(|_| design);
        for (i, link) in link_terms {
            let pose = &kin.poses()[i];
            // The forward step predicts bodies from their first links' poses; a link's share is
            // its body's prediction moved by its offset (exact: the energy is linear in `S`).
            let offset = model.body_offset(i);
            let predicted =
                self.workspace.predicted[model.bodies().number(i)] * offset.to_homogeneous();
            let earlier = previous[model.body(i)] * offset;
            let (_, g, h) = link_energy(
                model.second_moment(i),
                pose,
                &predicted,
                dt,
                self.settings.gravity,
            );
            let (at_t, at_prev) =
                link_energy_cross(model.second_moment(i), pose, &now.poses()[i], &earlier, dt);
            let mut vertices = Vec::new();
            if let crate::model::MassModel::Lumped { mass } = link.mass {
                let count: usize = link.hulls.iter().map(|h| h.vertices().len()).sum();
                for (h, hull) in link.hulls.iter().enumerate() {
                    for (v, x) in hull.vertices().iter().enumerate() {
                        let m = crate::energy::link_energy_vertex(
                            mass / count as f64,
                            &x.coords,
                            pose,
                            &predicted,
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
                contact: None,
            };
            term.gradient.fixed_rows_mut::<6>(0).copy_from(&g);
            term.hessian.fixed_view_mut::<6, 6>(0, 0).copy_from(&h);
            term.step_t.fixed_view_mut::<6, 6>(0, 0).copy_from(&at_t);
            terms.push(term);
        }
        // Welds depend on the poses alone: for the design blocks, through the attachments.
        for weld in model.welds().iter().filter(|_| design) {
            let poses = kin.poses();
            let (_, gradient, hessian) =
                weld.energy(&poses[weld.link], weld.other.map(|b| &poses[b]));
            terms.push(Term {
                links: [weld.link, weld.other.unwrap_or(weld.link)],
                count: if weld.other.is_some() { 2 } else { 1 },
                gradient,
                hessian,
                step_t: Matrix12::zeros(),
                step_prev: None,
                vertices: Vec::new(),
                contact: None,
            });
        }
        if let Some(hook) = self.contact.as_mut() {
            let pairs = hook.pair_terms(model, kin)?;
            terms.reserve_exact(pairs.len());
            for pair in pairs {
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
                    contact: Some(pair.friction),
                });
            }
        }
        Ok(terms)
    }
}
