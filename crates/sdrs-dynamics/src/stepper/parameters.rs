//! Physical parameters a step is differentiated with respect to (issue 46): gravity, the
//! contact stiffness and friction coefficient, the PD gains of a DoF and the mass of a link.
//!
//! Each enters the step's objective `O` (SDRS eq. 14) as a factor of terms the step already
//! differentiates, so its mixed derivative `∂²O/∂θ^{t+1}∂p` (a column of
//! [`super::StepDerivatives::parameters`]) is a gradient the step knows how to compute, taken
//! with the parameter's coefficient; only the contact stiffness's share in friction needs the
//! friction's derivative with respect to its normal forces:
//!
//! - **gravity** `g` (m/s², along −z): `g Σ_b (m_b z_b + (R_b s_b)_z)`, whose derivative is
//!   the bodies' weight per unit of `g`;
//! - **contact stiffness** `κ`: the barrier sum is `κ Σ U_c`, whose derivative is the barrier's
//!   gradient over `κ`; plane friction's normal forces (lagged from step t) carry `κ` as a
//!   factor too, but its weights `μΔt(√(f² + ε_f) − √ε_f)` are not linear in the forces, so
//!   friction's share is `Σ_m f_m ∂G/∂f_m` over `κ`
//!   (`sdrs_contact::friction::LaggedContact::force_scale_mixed`, [`super::PairTerm::friction`]);
//! - **friction coefficient** `μ`: every friction weight carries `μ`, and scaling all of them
//!   leaves the inner solve's optimum where it is, so friction is linear in `μ`;
//! - **PD stiffness** `k_j` (N·m/rad or N/m) and **damping** `c_j` (N·m·s/rad or N·s/m) of DoF
//!   `j`: the stable-PD term `(k_j/2) p² + (c_j Δt/2) v²` (`p`, `v` the position and velocity
//!   errors) gives `−p` and `−v` in row `j`. A rollout's gradient is for the same change of
//!   the gain in every step's control (a control or policy that changes its gains from step to
//!   step gets the sum over its steps);
//! - **mass** `m_l` (kg) of link `l`, with its centre of mass and its inertia per unit mass
//!   fixed: its second moment `S_l` scales with `m_l`, and inertia and gravity are linear in
//!   the body's merged second moment, so the derivative is the body's inertial gradient with
//!   `S_l / m_l` in place of the body's moment.
//!
//! A rollout's gradient with respect to the parameters is then the adjoint's sum
//! `Σ_t (∂²O_t/∂θ^{t+1}∂p)ᵀ μ_t` (`sdrs_diff::adjoint`), as for the PD targets.

use super::{StepSettings, evaluation::StepData};
use crate::energy::link_energy;
use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use nalgebra::{DMatrix, Matrix4, Vector3};
use sdrs_geometry::twist::{Twist, Vector12};

/// A physical parameter whose derivative [`super::StepDerivatives::parameters`] gives
/// ([`StepSettings::parameters`] lists them, one column each, in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhysicalParameter {
    /// [`StepSettings::gravity`] (m/s², along −z).
    Gravity,
    /// The contact stiffness `κ` ([`super::ContactSettings::stiffness`]).
    ContactStiffness,
    /// The friction coefficient `μ` ([`super::FrictionSettings::mu`]).
    FrictionCoefficient,
    /// The PD stiffness of a DoF ([`super::Control::kp`], N·m/rad or N/m).
    PdStiffness {
        /// The DoF.
        dof: usize,
    },
    /// The PD damping of a DoF ([`super::Control::kd`], N·m·s/rad or N·s/m).
    PdDamping {
        /// The DoF.
        dof: usize,
    },
    /// The mass of a link (kg), its centre of mass and its inertia per unit mass held
    /// ([`crate::MassModel::scaled`] makes a model with another mass).
    LinkMass {
        /// The link.
        link: usize,
    },
}

impl std::fmt::Display for PhysicalParameter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gravity => write!(f, "gravity"),
            Self::ContactStiffness => write!(f, "contact stiffness"),
            Self::FrictionCoefficient => write!(f, "friction coefficient"),
            Self::PdStiffness { dof } => write!(f, "PD stiffness of DoF {dof}"),
            Self::PdDamping { dof } => write!(f, "PD damping of DoF {dof}"),
            Self::LinkMass { link } => write!(f, "mass of link {link}"),
        }
    }
}

/// Checks that every parameter of `settings` exists in `model` and `settings`: DoFs and
/// links in range, contact for the stiffness, friction for its coefficient, a positive mass
/// for a link's mass.
pub(super) fn check_parameters(model: &Model, settings: &StepSettings) -> Result<()> {
    for &parameter in &settings.parameters {
        let bad = |reason: String| {
            Err(DynamicsError::BadParameter {
                parameter: parameter.to_string(),
                reason,
            })
        };
        match parameter {
            PhysicalParameter::Gravity => {}
            PhysicalParameter::ContactStiffness if settings.contact.is_none() => {
                return bad(
                    "the step's settings have no contact model (a hook given to \
                     Simulator::with_contact keeps its own stiffness and friction)"
                        .into(),
                );
            }
            PhysicalParameter::FrictionCoefficient if settings.contact.is_none() => {
                return bad("the step's settings have no contact model".into());
            }
            PhysicalParameter::FrictionCoefficient
                if settings
                    .contact
                    .as_ref()
                    .is_some_and(|c| c.friction.is_none()) =>
            {
                return bad("the step's contact has no friction (set FrictionSettings)".into());
            }
            PhysicalParameter::ContactStiffness | PhysicalParameter::FrictionCoefficient => {}
            PhysicalParameter::PdStiffness { dof } | PhysicalParameter::PdDamping { dof }
                if dof >= model.dof() =>
            {
                return bad(format!("the model has {} DoFs", model.dof()));
            }
            PhysicalParameter::PdStiffness { .. } | PhysicalParameter::PdDamping { .. } => {}
            PhysicalParameter::LinkMass { link } if link >= model.links().len() => {
                return bad(format!("the model has {} links", model.links().len()));
            }
            PhysicalParameter::LinkMass { link } => {
                let mass = model.second_moment(link)[(3, 3)];
                if !(mass > 0.0) {
                    return bad(format!(
                        "link '{}' has mass {mass}: a mass to scale must be positive",
                        model.links()[link].name
                    ));
                }
            }
        }
    }
    Ok(())
}

/// What the parameter blocks are computed from, at a step's solution.
pub(super) struct AtSolution<'a> {
    pub(super) model: &'a Model,
    pub(super) settings: &'a StepSettings,
    pub(super) next: &'a State,
    pub(super) kin: &'a Kinematics,
    pub(super) data: &'a StepData<'a>,
    /// The inertial predictions `2T^t − T^{t−1}` per body (rows).
    pub(super) predicted: &'a [nalgebra::SMatrix<f64, 3, 4>],
    /// The contact terms at the solution: links, twist gradient (as in the objective), and
    /// for friction its force-scale block ([`super::PairTerm::friction`]).
    pub(super) contact: &'a [([usize; 2], Vector12, Option<Vector12>)],
}

/// `∂²O/∂θ^{t+1}∂p` for every parameter of the settings, one column each.
pub(super) fn parameter_blocks(at: &AtSolution) -> DMatrix<f64> {
    let (model, settings) = (at.model, at.settings);
    let mut out = DMatrix::zeros(model.dof(), settings.parameters.len());
    for (column, parameter) in settings.parameters.iter().enumerate() {
        let mut block = out.column_mut(column);
        match *parameter {
            PhysicalParameter::Gravity => {
                for &b in model.bodies().roots() {
                    // link_energy's gravity part per unit of g: the weight `m ẑ` and its moment
                    // `(R s) × ẑ` about the body's origin.
                    let s = model.body_second_moment(b);
                    let first: Vector3<f64> =
                        at.kin.poses()[b].rotation * Vector3::new(s[(0, 3)], s[(1, 3)], s[(2, 3)]);
                    let moment = first.cross(&Vector3::z());
                    let weight = Twist::new(0.0, 0.0, s[(3, 3)], moment.x, moment.y, moment.z);
                    add_twist(at.kin, b, &weight, &mut block);
                }
            }
            PhysicalParameter::LinkMass { link } => {
                let body = model.body(link);
                let h = model.body_offset(link).to_homogeneous();
                let moment: Matrix4<f64> = h * model.second_moment(link) * h.transpose()
                    / model.second_moment(link)[(3, 3)];
                let (_, gradient, _) = link_energy(
                    &moment,
                    &at.kin.poses()[body],
                    &at.predicted[model.bodies().number(body)],
                    settings.dt,
                    settings.gravity,
                );
                add_twist(at.kin, body, &gradient, &mut block);
            }
            PhysicalParameter::PdStiffness { dof } => {
                block[dof] = -(at.data.control.position[dof] - at.next.q[dof]);
            }
            PhysicalParameter::PdDamping { dof } => {
                let moved = (at.next.q[dof] - at.data.q_t[dof]) / settings.dt;
                block[dof] = -(at.data.control.velocity[dof] - moved);
            }
            PhysicalParameter::ContactStiffness => {
                // The barrier's terms carry κ as a factor; friction's through its forces.
                let kappa = contact_stiffness(settings);
                for (links, gradient, friction) in at.contact {
                    let change = friction.as_ref().unwrap_or(gradient) / kappa;
                    add_pair(at.kin, links, &change, &mut block);
                }
            }
            PhysicalParameter::FrictionCoefficient => {
                let mu = friction_coefficient(settings);
                for (links, gradient, _) in at.contact.iter().filter(|c| c.2.is_some()) {
                    add_pair(at.kin, links, &(gradient / mu), &mut block);
                }
            }
        }
    }
    out
}

/// `block += Jᵀ g` for a pair term's twist gradient `g` (6 per link).
fn add_pair(
    kin: &Kinematics,
    links: &[usize; 2],
    gradient: &Vector12,
    block: &mut nalgebra::DVectorViewMut<f64>,
) {
    for (side, &link) in links.iter().enumerate() {
        let twist: Twist = gradient.fixed_rows::<6>(6 * side).into_owned();
        add_twist(kin, link, &twist, block);
    }
}

/// `block += Jᵀ g` for a twist gradient `g` of link `link` (at its origin, as the objective's
/// terms give them).
fn add_twist(
    kin: &Kinematics,
    link: usize,
    gradient: &Twist,
    block: &mut nalgebra::DVectorViewMut<f64>,
) {
    for (k, column) in kin.jacobian(link) {
        block[k] += column.dot(gradient);
    }
}

fn contact_stiffness(settings: &StepSettings) -> f64 {
    settings.contact.as_ref().map_or(1.0, |c| c.stiffness)
}

fn friction_coefficient(settings: &StepSettings) -> f64 {
    settings
        .contact
        .as_ref()
        .and_then(|c| c.friction.as_ref())
        .map_or(1.0, |f| f.mu)
}
