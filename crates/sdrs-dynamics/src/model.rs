//! The articulated model: links in a kinematic tree, their joints, hulls and mass.

use crate::bodies::Bodies;
use crate::error::{DynamicsError, Result, check_vector};
use crate::filter::LinkContact;
use crate::handles::unknown_name;
use crate::tendon::Tendon;
use crate::weld::Weld;
use nalgebra::{DVector, Isometry3, Matrix4, Point3, Vector3};
use sdrs_geometry::{ConvexHull, TriMesh, lumped_second_moment};

/// How a link moves relative to its parent (or the world, for a root link).
#[derive(Debug, Clone, PartialEq)]
pub enum JointKind {
    /// Rigidly attached: no degree of freedom.
    Fixed,
    /// Rotation about an axis of the joint frame (1 DoF, radians).
    Revolute {
        /// Rotation axis in the joint frame.
        axis: Vector3<f64>,
    },
    /// Translation along an axis of the joint frame (1 DoF, metres).
    Prismatic {
        /// Translation axis in the joint frame.
        axis: Vector3<f64>,
    },
    /// Rotation about `first`, then about `second` carried by the first (2 DoF): the paper's
    /// "ball joint with two degrees of freedom".
    Universal {
        /// First axis, in the joint frame.
        first: Vector3<f64>,
        /// Second axis, in the frame rotated by the first.
        second: Vector3<f64>,
    },
    /// Free rotation (3 DoF): rotations about x, y, z after a reference rotation that the
    /// stepper re-centres after every step, so the coordinates stay near zero and never reach
    /// the parameterisation's singularity.
    Spherical,
    /// Free body (6 DoF): translation along x, y, z of the joint frame, then a spherical joint.
    Free,
}

/// One elementary degree of freedom of a joint, in the frame it acts in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Elementary {
    Rotation(Vector3<f64>),
    Translation(Vector3<f64>),
}

impl JointKind {
    /// Number of degrees of freedom.
    pub fn dof(&self) -> usize {
        match self {
            JointKind::Fixed => 0,
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => 1,
            JointKind::Universal { .. } => 2,
            JointKind::Spherical => 3,
            JointKind::Free => 6,
        }
    }

    /// The kind's name, for messages: `fixed`, `revolute`, `prismatic`, `universal`,
    /// `spherical` or `free`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            JointKind::Fixed => "fixed",
            JointKind::Revolute { .. } => "revolute",
            JointKind::Prismatic { .. } => "prismatic",
            JointKind::Universal { .. } => "universal",
            JointKind::Spherical => "spherical",
            JointKind::Free => "free",
        }
    }

    /// Whether the joint carries a re-centred reference rotation.
    pub fn has_reference(&self) -> bool {
        matches!(self, JointKind::Spherical | JointKind::Free)
    }

    /// The elementary motions, in product order; the reference rotation of spherical and free
    /// joints sits right before the first rotation.
    pub(crate) fn elementary(&self) -> Vec<Elementary> {
        let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
        match self {
            JointKind::Fixed => vec![],
            JointKind::Revolute { axis } => vec![Elementary::Rotation(*axis)],
            JointKind::Prismatic { axis } => vec![Elementary::Translation(*axis)],
            JointKind::Universal { first, second } => {
                vec![Elementary::Rotation(*first), Elementary::Rotation(*second)]
            }
            JointKind::Spherical => vec![
                Elementary::Rotation(x),
                Elementary::Rotation(y),
                Elementary::Rotation(z),
            ],
            JointKind::Free => vec![
                Elementary::Translation(x),
                Elementary::Translation(y),
                Elementary::Translation(z),
                Elementary::Rotation(x),
                Elementary::Rotation(y),
                Elementary::Rotation(z),
            ],
        }
    }

    fn validated(self, link: &str) -> Result<Self> {
        let unit = |a: Vector3<f64>| -> Result<Vector3<f64>> {
            let n = a.norm();
            if n.is_finite() && n > 0.0 {
                Ok(a / n)
            } else {
                Err(DynamicsError::BadAxis {
                    link: link.to_string(),
                    axis: [a.x, a.y, a.z],
                })
            }
        };
        Ok(match self {
            JointKind::Revolute { axis } => JointKind::Revolute { axis: unit(axis)? },
            JointKind::Prismatic { axis } => JointKind::Prismatic { axis: unit(axis)? },
            JointKind::Universal { first, second } => JointKind::Universal {
                first: unit(first)?,
                second: unit(second)?,
            },
            other => other,
        })
    }
}

/// Where a link's mass comes from. Every model reduces to the link's 4x4 second moment
/// `Σ m x̄ x̄ᵀ` (`x̄ = (x, 1)` in the link frame), so inertia and gravity cost O(1) per link.
#[derive(Debug, Clone, PartialEq)]
pub enum MassModel {
    /// The mass spread evenly over the vertices of the link's hulls (SDRS eq. 4):
    /// differentiable in the vertices.
    Lumped {
        /// Total mass of the link (kg).
        mass: f64,
    },
    /// Solid hulls of uniform density (kg/m³): the exact rigid-body inertia.
    Solid {
        /// Density (kg/m³).
        density: f64,
    },
    /// A given second moment `Σ m x̄ x̄ᵀ` (for links without hulls, or from a URDF inertial);
    /// its mass may be zero (a massless frame).
    SecondMoment(Matrix4<f64>),
}

impl MassModel {
    /// The same distribution with `factor` times the mass (centre of mass and inertia per
    /// unit mass kept): the model a link's mass parameter moves
    /// ([`crate::stepper::PhysicalParameter::LinkMass`]). `factor` must be positive and
    /// finite.
    ///
    /// ```
    /// use sdrs_dynamics::MassModel;
    /// let heavier = MassModel::Lumped { mass: 2.0 }.scaled(1.5)?;
    /// assert_eq!(heavier, MassModel::Lumped { mass: 3.0 });
    /// assert!(MassModel::Solid { density: 1000.0 }.scaled(0.0).is_err());
    /// # Ok::<(), sdrs_dynamics::DynamicsError>(())
    /// ```
    pub fn scaled(&self, factor: f64) -> Result<Self> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "mass factor",
                value: factor,
                allowed: "positive and finite",
            });
        }
        Ok(match self {
            Self::Lumped { mass } => Self::Lumped {
                mass: mass * factor,
            },
            Self::Solid { density } => Self::Solid {
                density: density * factor,
            },
            Self::SecondMoment(moment) => Self::SecondMoment(moment * factor),
        })
    }
}

/// One link: its joint to the parent, its collision hulls and its mass.
#[derive(Debug, Clone)]
pub struct Link {
    /// Name, for messages and lookup ([`Model::link`]); unique in a model.
    pub name: String,
    /// Name of the joint to the parent (a URDF or MJCF joint name), for messages and lookup
    /// ([`Model::joint`]); `None` names it after the link (`LINK joint`). Joint names are
    /// unique in a model.
    pub joint_name: Option<String>,
    /// Index of the parent link (an earlier link), or `None` for a root attached to the world.
    pub parent: Option<usize>,
    /// The joint frame in the parent's frame (world for a root): the design-dependent
    /// attachment `(R^d, t^d)` of eq. 1.
    pub attachment: Isometry3<f64>,
    /// The joint.
    pub joint: JointKind,
    /// Collision hulls in the link frame (the SDRS contact model's shapes).
    pub hulls: Vec<ConvexHull>,
    /// Collision triangle mesh in the link frame, for mesh-based contact models (long-range,
    /// IPC) behind a [`crate::stepper::ContactHook`]; the SDRS model ignores it.
    pub mesh: Option<TriMesh>,
    /// Mass model.
    pub mass: MassModel,
    /// Position limits `(lower, upper)` of a 1-DoF joint, enforced by a barrier energy (see
    /// [`crate::stepper::StepSettings::limit_support`]).
    pub limits: Option<(f64, f64)>,
    /// Collision group, mask and excluded links ([`crate::filter`]).
    pub contact: LinkContact,
    /// Dry friction of its joint, per DoF (N·m on a rotation, N on a translation): a force of
    /// this magnitude opposing the joint's motion (MuJoCo's `frictionloss`), smoothed below
    /// [`crate::StepSettings::joint_friction_velocity`] ([`crate::energy::joint_friction`]).
    /// 0 by default.
    pub friction: f64,
    /// Rotor inertia of a revolute or prismatic joint (kg·m² or kg, MuJoCo's `armature`): the
    /// kinetic energy `½ a θ̇²` of a motor geared to the joint, which MuJoCo adds to the mass
    /// matrix's diagonal. 0 by default.
    pub armature: f64,
}

impl Link {
    /// A link with the given joint, attachment and hulls, and lumped vertex mass `mass`.
    pub fn new(
        name: impl Into<String>,
        parent: Option<usize>,
        attachment: Isometry3<f64>,
        joint: JointKind,
        hulls: Vec<ConvexHull>,
        mass: MassModel,
    ) -> Self {
        Self {
            name: name.into(),
            joint_name: None,
            parent,
            attachment,
            joint,
            hulls,
            mass,
            limits: None,
            mesh: None,
            contact: LinkContact::default(),
            friction: 0.0,
            armature: 0.0,
        }
    }

    /// A joint frame: a link without shape or mass, to chain 1-DoF joints into a
    /// mechanism (a base that translates along x, y, z and turns about z; a hip's yaw before
    /// its pitch). Every chain of frames must end in a link with mass.
    ///
    /// ```
    /// use sdrs_dynamics::{JointKind, Link, MassModel, Model};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let slide = |axis| JointKind::Prismatic { axis };
    /// let model = Model::new(vec![
    ///     Link::frame("x", None, Isometry3::identity(), slide(Vector3::x())),
    ///     Link::frame("y", Some(0), Isometry3::identity(), slide(Vector3::y())),
    ///     Link::new(
    ///         "puck",
    ///         Some(1),
    ///         Isometry3::identity(),
    ///         JointKind::Revolute { axis: Vector3::z() },
    ///         vec![ConvexHull::cuboid(Vector3::repeat(0.1))?],
    ///         MassModel::Lumped { mass: 1.0 },
    ///     ),
    /// ])?;
    /// assert_eq!((model.dof(), model.mass(0), model.mass(2)), (3, 0.0, 1.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn frame(
        name: impl Into<String>,
        parent: Option<usize>,
        attachment: Isometry3<f64>,
        joint: JointKind,
    ) -> Self {
        Self::new(
            name,
            parent,
            attachment,
            joint,
            Vec::new(),
            MassModel::SecondMoment(Matrix4::zeros()),
        )
    }

    /// The same link with a collision triangle mesh (link frame) for mesh-based contact.
    pub fn with_mesh(mut self, mesh: TriMesh) -> Self {
        self.mesh = Some(mesh);
        self
    }

    /// The same link with its joint named `name`.
    pub fn with_joint_name(mut self, name: impl Into<String>) -> Self {
        self.joint_name = Some(name.into());
        self
    }

    /// The joint's name: [`Link::joint_name`], or `LINK joint` when it has none.
    pub fn joint_label(&self) -> String {
        match &self.joint_name {
            Some(name) => name.clone(),
            None => format!("{} joint", self.name),
        }
    }

    /// The same link with position limits on its (1-DoF) joint.
    pub fn with_limits(mut self, lower: f64, upper: f64) -> Self {
        self.limits = Some((lower, upper));
        self
    }

    /// The same link with dry friction `friction` on each DoF of its joint ([`Link::friction`]).
    pub fn with_friction(mut self, friction: f64) -> Self {
        self.friction = friction;
        self
    }

    /// The same link with rotor inertia `armature` on its revolute or prismatic joint
    /// ([`Link::armature`]).
    pub fn with_armature(mut self, armature: f64) -> Self {
        self.armature = armature;
        self
    }
}

/// A kinematic tree of links (listed parents first) with its degrees of freedom numbered in
/// that order, so every DoF comes after the DoFs of its ancestors.
#[derive(Debug, Clone)]
pub struct Model {
    links: Vec<Link>,
    second_moments: Vec<Matrix4<f64>>,
    dof_offsets: Vec<usize>,
    dof: usize,
    /// Per link, the DoFs on its path from the root, ascending.
    paths: Vec<Vec<usize>>,
    /// `(DoF, dry friction)` of every DoF whose joint has friction ([`Link::friction`]).
    friction: Vec<(usize, f64)>,
    /// `(link, DoF, rotor inertia)` of every joint with armature ([`Link::armature`]).
    armature: Vec<(usize, usize, f64)>,
    /// Fixed tendons ([`Model::with_tendons`]).
    tendons: Vec<Tendon>,
    /// Per tendon, its `(DoF, coefficient)` terms.
    tendon_terms: Vec<Vec<(usize, f64)>>,
    /// Welds and connections ([`Model::with_welds`]).
    welds: Vec<Weld>,
    /// Every DoF's elementary motion, in DoF order.
    motions: Vec<Elementary>,
    /// Rigid bodies of links joined by fixed joints ([`crate::bodies`]).
    bodies: Bodies,
}

impl Model {
    /// Validates the links and precomputes their second moments and DoF numbering.
    pub fn new(links: Vec<Link>) -> Result<Self> {
        if links.is_empty() {
            return Err(DynamicsError::EmptyModel);
        }
        let mut checked = Vec::with_capacity(links.len());
        let mut second_moments = Vec::with_capacity(links.len());
        let mut dof_offsets = Vec::with_capacity(links.len());
        let mut paths: Vec<Vec<usize>> = Vec::with_capacity(links.len());
        let mut dof = 0;
        let count = links.len();
        for (i, mut link) in links.into_iter().enumerate() {
            if let Some(&bad) = link.contact.excluded.iter().find(|&&j| j >= count) {
                return Err(DynamicsError::LinkIndex {
                    index: bad,
                    links: count,
                });
            }
            if let Some(p) = link.parent
                && p >= i
            {
                return Err(DynamicsError::BadParent {
                    link: i,
                    name: link.name,
                    parent: p,
                });
            }
            link.joint = link.joint.validated(&link.name)?;
            if let Some((lower, upper)) = link.limits
                && !(lower.is_finite()
                    && upper.is_finite()
                    && lower < upper
                    && link.joint.dof() == 1)
            {
                return Err(DynamicsError::BadLimits {
                    link: link.name,
                    lower,
                    upper,
                });
            }
            if !(link.friction.is_finite() && link.friction >= 0.0) {
                return Err(DynamicsError::BadFriction {
                    link: link.name,
                    friction: link.friction,
                });
            }
            let one_dof = matches!(
                link.joint,
                JointKind::Revolute { .. } | JointKind::Prismatic { .. }
            );
            if !(link.armature.is_finite() && link.armature >= 0.0)
                || (link.armature > 0.0 && !one_dof)
            {
                return Err(DynamicsError::BadArmature {
                    link: link.name,
                    armature: link.armature,
                });
            }
            second_moments.push(second_moment(&link)?);
            let own = link.joint.dof();
            let mut path = link.parent.map(|p| paths[p].clone()).unwrap_or_default();
            path.extend(dof..dof + own);
            paths.push(path);
            dof_offsets.push(dof);
            dof += own;
            checked.push(link);
        }
        check_unique("link", checked.iter().map(|l| l.name.clone()))?;
        check_unique("joint", checked.iter().map(Link::joint_label))?;
        let bodies = Bodies::new(&checked, &second_moments);
        let motions = checked.iter().flat_map(|l| l.joint.elementary()).collect();
        let friction = checked
            .iter()
            .zip(&dof_offsets)
            .filter(|(l, _)| l.friction > 0.0)
            .flat_map(|(l, &offset)| (offset..offset + l.joint.dof()).map(|j| (j, l.friction)))
            .collect();
        let armature = checked
            .iter()
            .enumerate()
            .filter(|(_, l)| l.armature > 0.0)
            .map(|(i, l)| (i, dof_offsets[i], l.armature))
            .collect();
        Ok(Self {
            links: checked,
            second_moments,
            dof_offsets,
            dof,
            paths,
            friction,
            armature,
            tendons: Vec::new(),
            tendon_terms: Vec::new(),
            welds: Vec::new(),
            motions,
            bodies,
        })
    }

    /// The same model with fixed tendons over its joints (replacing any it had), each checked:
    /// revolute or prismatic joints, finite coefficients, non-negative stiffness and damping,
    /// finite limits with lower < upper, unique names. See [`crate::tendon`] for the energy.
    pub fn with_tendons(mut self, tendons: Vec<Tendon>) -> Result<Self> {
        self.tendon_terms = tendons
            .iter()
            .map(|t| t.resolve(&self.links, &self.dof_offsets))
            .collect::<Result<_>>()?;
        check_unique("tendon", tendons.iter().map(|t| t.name.clone()))?;
        self.tendons = tendons;
        Ok(self)
    }

    /// The same model with welds and connections between its links (replacing any it had),
    /// each checked: links in range and distinct, finite frames, non-negative stiffnesses,
    /// unique names. See [`crate::weld`] for the energy.
    pub fn with_welds(mut self, welds: Vec<Weld>) -> Result<Self> {
        for weld in &welds {
            weld.check(self.links.len())?;
        }
        check_unique("weld", welds.iter().map(|w| w.name.clone()))?;
        self.welds = welds;
        Ok(self)
    }

    /// The welds and connections ([`Model::with_welds`]).
    pub fn welds(&self) -> &[Weld] {
        &self.welds
    }

    /// The fixed tendons ([`Model::with_tendons`]).
    pub fn tendons(&self) -> &[Tendon] {
        &self.tendons
    }

    /// The length `Σ cᵢ qᵢ` of tendon `i` at coordinates `q`.
    pub fn tendon_length(&self, i: usize, q: &DVector<f64>) -> f64 {
        crate::tendon::length(&self.tendon_terms[i], q)
    }

    /// Every tendon with its `(DoF, coefficient)` terms.
    pub(crate) fn tendon_terms(&self) -> impl Iterator<Item = (&Tendon, &[(usize, f64)])> {
        self.tendons
            .iter()
            .zip(self.tendon_terms.iter().map(Vec::as_slice))
    }

    /// `(DoF, dry friction)` of every DoF whose joint has friction ([`Link::friction`]), in
    /// DoF order.
    pub fn joint_friction(&self) -> &[(usize, f64)] {
        &self.friction
    }

    /// `(link, DoF, rotor inertia)` of every joint with armature ([`Link::armature`]), in
    /// link order.
    pub fn joint_armature(&self) -> &[(usize, usize, f64)] {
        &self.armature
    }

    pub(crate) fn bodies(&self) -> &Bodies {
        &self.bodies
    }

    /// The links, for edits that keep the tree, masses and DoFs (collision filtering).
    pub(crate) fn links_mut(&mut self) -> &mut [Link] {
        &mut self.links
    }

    /// Every DoF's elementary motion, in DoF order.
    pub(crate) fn elementary_motions(&self) -> &[Elementary] {
        &self.motions
    }

    /// The links.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Number of generalized coordinates.
    pub fn dof(&self) -> usize {
        self.dof
    }

    /// First DoF index of link `i`'s joint.
    pub fn dof_offset(&self, i: usize) -> usize {
        self.dof_offsets[i]
    }

    /// The second moment `Σ m x̄ x̄ᵀ` of link `i` in its frame.
    pub fn second_moment(&self, i: usize) -> &Matrix4<f64> {
        &self.second_moments[i]
    }

    /// The DoFs that move link `i`, ascending (root first).
    pub fn path(&self, i: usize) -> &[usize] {
        &self.paths[i]
    }

    /// The index of the link named `name` ([`Model::link`] gives a typed handle); an unknown
    /// name lists the model's closest names.
    pub fn link_index(&self, name: &str) -> Result<usize> {
        self.links
            .iter()
            .position(|l| l.name == name)
            .ok_or_else(|| unknown_name("link", name, self.links.iter().map(|l| l.name.as_str())))
    }

    /// The index of the link whose joint (to its parent) is named `name`
    /// ([`Link::joint_label`]; [`Model::joint`] gives a typed handle); an unknown name lists
    /// the model's closest joint names.
    pub fn joint_link(&self, name: &str) -> Result<usize> {
        let labels: Vec<String> = self.links.iter().map(Link::joint_label).collect();
        labels
            .iter()
            .position(|l| l == name)
            .ok_or_else(|| unknown_name("joint", name, labels.iter().map(String::as_str)))
    }

    /// The link whose joint moves DoF `dof`, and the DoF's index within that joint.
    pub fn dof_owner(&self, dof: usize) -> Option<(usize, usize)> {
        if dof >= self.dof {
            return None;
        }
        // The last link whose offset is at most `dof` and that has DoFs.
        let link = self
            .dof_offsets
            .iter()
            .enumerate()
            .rposition(|(i, &o)| o <= dof && self.links[i].joint.dof() > 0)?;
        Some((link, dof - self.dof_offsets[link]))
    }

    /// A readable name of DoF `dof`: the joint's name for a 1-DoF joint, `JOINT[k]` for the
    /// k-th coordinate of a multi-DoF joint (`root_joint[2]` is a free base's height).
    pub fn dof_name(&self, dof: usize) -> String {
        match self.dof_owner(dof) {
            Some((link, k)) => {
                let l = &self.links[link];
                if l.joint.dof() == 1 {
                    l.joint_label()
                } else {
                    format!("{}[{k}]", l.joint_label())
                }
            }
            None => format!("DoF {dof} (the model has {})", self.dof),
        }
    }

    /// Checks that every limited DoF of `state` is strictly inside its limits (the limit
    /// barrier is infinite at a limit), naming the joint when one is not.
    pub fn check_limits(&self, state: &crate::State) -> Result<()> {
        for (i, link) in self.links.iter().enumerate() {
            if let Some((lower, upper)) = link.limits {
                let value = state.q[self.dof_offsets[i]];
                if !(value > lower && value < upper) {
                    return Err(DynamicsError::OutsideLimits {
                        joint: link.joint_label(),
                        value,
                        lower,
                        upper,
                    });
                }
            }
        }
        for (tendon, terms) in self.tendon_terms() {
            if let Some((lower, upper)) = tendon.limits {
                let value = crate::tendon::length(terms, &state.q);
                if !(value > lower && value < upper) {
                    return Err(DynamicsError::OutsideLimits {
                        joint: format!("tendon {}", tendon.name),
                        value,
                        lower,
                        upper,
                    });
                }
            }
        }
        Ok(())
    }

    /// Moves every limited DoF of `state` at least `margin` inside its limits (a fraction
    /// `margin / (upper − lower)` of at most a quarter of the range, so narrow ranges stay
    /// valid), leaving the others alone; returns the names of the joints it moved. Use the
    /// step's limit support (`StepSettings::limit_support`) as the margin so the limit barrier
    /// is zero at the start.
    pub fn clamp_inside_limits(&self, state: &mut crate::State, margin: f64) -> Vec<String> {
        let mut moved = Vec::new();
        for (i, link) in self.links.iter().enumerate() {
            if let Some((lower, upper)) = link.limits {
                let j = self.dof_offsets[i];
                let inset = margin.max(0.0).min(0.25 * (upper - lower));
                let clamped = state.q[j].clamp(lower + inset, upper - inset);
                if clamped != state.q[j] {
                    state.q[j] = clamped;
                    moved.push(link.joint_label());
                }
            }
        }
        moved
    }

    /// The neutral configuration: every coordinate zero (free and spherical joints at their
    /// attachment's pose), except limited joints whose zero is not at least `margin` inside
    /// their limits, which move to the nearest such value ([`Model::clamp_inside_limits`]).
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// let mut link = chain(1, 0.01)?.model.links()[0].clone();
    /// link = link.with_limits(0.2, 1.0); // zero is outside
    /// let model = sdrs_dynamics::Model::new(vec![link])?;
    /// let q = model.neutral(0.01);
    /// assert!((q.q[0] - 0.21).abs() < 1e-12);
    /// model.check_limits(&q)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn neutral(&self, margin: f64) -> crate::State {
        let mut state = crate::State::zero(self);
        self.clamp_inside_limits(&mut state, margin);
        state
    }

    /// Total mass of link `i`.
    pub fn mass(&self, i: usize) -> f64 {
        self.second_moments[i][(3, 3)]
    }

    /// The design vector `d` (SDRS eq. 1): every link's attachment translation `t^d` in its
    /// parent's frame (3 per link, links in order), then every hull vertex in its link's frame
    /// (3 per vertex; links, hulls and vertices in order). [`Model::design_index`] locates
    /// entries; [`Model::with_design`] is the inverse mapping.
    ///
    /// ```
    /// use sdrs_dynamics::{JointKind, Link, MassModel, Model};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    /// let link = Link::new("l", None, Isometry3::translation(0.0, 0.0, 1.0), JointKind::Fixed, vec![cube], MassModel::Lumped { mass: 1.0 });
    /// let model = Model::new(vec![link]).unwrap();
    /// let mut d = model.design();
    /// assert_eq!(d.len(), 3 + 8 * 3);
    /// d[2] = 2.0; // raise the attachment
    /// assert_eq!(model.with_design(&d).unwrap().links()[0].attachment.translation.vector.z, 2.0);
    /// ```
    pub fn design(&self) -> DVector<f64> {
        let mut d = Vec::with_capacity(self.design_len());
        for link in &self.links {
            d.extend(link.attachment.translation.vector.iter());
        }
        for link in &self.links {
            for hull in &link.hulls {
                for v in hull.vertices() {
                    d.extend(v.coords.iter());
                }
            }
        }
        DVector::from_vec(d)
    }

    /// Length of the design vector.
    pub fn design_len(&self) -> usize {
        3 * self.links.len()
            + 3 * self
                .links
                .iter()
                .flat_map(|l| &l.hulls)
                .map(|h| h.vertices().len())
                .sum::<usize>()
    }

    /// Index in the design vector of a link's attachment translation (`None` for the
    /// vertex), or of vertex `vertex` of hull `hull` of link `link`.
    pub fn design_index(&self, link: usize, vertex: Option<(usize, usize)>) -> usize {
        let Some((hull, vertex)) = vertex else {
            return 3 * link;
        };
        let before: usize = self.links[..link]
            .iter()
            .flat_map(|l| &l.hulls)
            .chain(&self.links[link].hulls[..hull])
            .map(|h| h.vertices().len())
            .sum();
        3 * self.links.len() + 3 * (before + vertex)
    }

    /// The same model with design `d` (see [`Model::design`]): attachments moved, hulls
    /// rebuilt from the new vertices (keeping their order) and vertex-based masses recomputed.
    pub fn with_design(&self, d: &DVector<f64>) -> Result<Model> {
        check_vector("design vector", d, self.design_len())?;
        let mut links = self.links.clone();
        let mut at = 3 * links.len();
        for (i, link) in links.iter_mut().enumerate() {
            link.attachment.translation.vector = Vector3::new(d[3 * i], d[3 * i + 1], d[3 * i + 2]);
            for (h, hull) in link.hulls.iter_mut().enumerate() {
                let vertices = (0..hull.vertices().len())
                    .map(|k| Point3::new(d[at + 3 * k], d[at + 3 * k + 1], d[at + 3 * k + 2]))
                    .collect();
                at += 3 * hull.vertices().len();
                *hull = ConvexHull::new(vertices).map_err(|e| DynamicsError::BadDesign {
                    link: link.name.clone(),
                    hull: h,
                    message: e.to_string(),
                })?;
            }
        }
        self.rebuilt(links)
    }

    /// The same model with link `link`'s mass `mass` (kg, positive and finite), its centre of
    /// mass and its inertia per unit mass kept ([`MassModel::scaled`]): the model a link's
    /// mass parameter ([`crate::stepper::PhysicalParameter::LinkMass`]) moves. An error for a
    /// link without mass, whose distribution there is nothing to scale.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// let model = chain(3, 0.01)?.model;
    /// let heavier = model.with_link_mass(1, 2.5)?;
    /// assert!((heavier.second_moment(1)[(3, 3)] - 2.5).abs() < 1e-12);
    /// # Ok::<(), sdrs_dynamics::DynamicsError>(())
    /// ```
    pub fn with_link_mass(&self, link: usize, mass: f64) -> Result<Model> {
        if link >= self.links.len() {
            return Err(DynamicsError::LinkIndex {
                index: link,
                links: self.links.len(),
            });
        }
        if !(mass.is_finite() && mass > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "mass",
                value: mass,
                allowed: "positive and finite (kg)",
            });
        }
        let now = self.second_moments[link][(3, 3)];
        if !(now > 0.0) {
            return Err(DynamicsError::BadParameter {
                parameter: format!("mass of link {link}"),
                reason: format!(
                    "link '{}' has mass {now}: there is no distribution to scale",
                    self.links[link].name
                ),
            });
        }
        let mut links = self.links.clone();
        links[link].mass = links[link].mass.scaled(mass / now)?;
        self.rebuilt(links)
    }

    /// A model of `links` with this model's tendons and welds.
    fn rebuilt(&self, links: Vec<Link>) -> Result<Model> {
        Model::new(links)?
            .with_tendons(self.tendons.clone())?
            .with_welds(self.welds.clone())
    }
}

/// An error naming the first name `names` repeats.
fn check_unique(kind: &'static str, names: impl Iterator<Item = String>) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    for (second, name) in names.enumerate() {
        if let Some(&first) = seen.get(&name) {
            return Err(DynamicsError::DuplicateName {
                kind,
                name,
                first,
                second,
            });
        }
        seen.insert(name, second);
    }
    Ok(())
}

fn second_moment(link: &Link) -> Result<Matrix4<f64>> {
    let positive = |what: &'static str, value: f64| {
        if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(DynamicsError::BadMass {
                link: link.name.clone(),
                what,
                value,
            })
        }
    };
    let need_hulls = |model: &'static str| {
        if link.hulls.is_empty() {
            Err(DynamicsError::MassWithoutHulls {
                link: link.name.clone(),
                model,
            })
        } else {
            Ok(())
        }
    };
    match &link.mass {
        MassModel::Lumped { mass } => {
            let mass = positive("mass", *mass)?;
            need_hulls("lumped")?;
            let count: usize = link.hulls.iter().map(|h| h.vertices().len()).sum();
            let per_vertex = mass / count as f64;
            Ok(link
                .hulls
                .iter()
                .map(|h| lumped_second_moment(h.vertices(), per_vertex))
                .sum())
        }
        MassModel::Solid { density } => {
            let density = positive("density", *density)?;
            need_hulls("solid")?;
            let mut total = Matrix4::zeros();
            for h in &link.hulls {
                let props =
                    h.solid_mass_properties(density)
                        .map_err(|_| DynamicsError::BadMass {
                            link: link.name.clone(),
                            what: "hull volume",
                            value: h.volume(),
                        })?;
                total += props.second_moment;
            }
            Ok(total)
        }
        MassModel::SecondMoment(m) => {
            // Massless links (pure frames) are allowed here.
            if !(m[(3, 3)] >= 0.0) || m.iter().any(|v| !v.is_finite()) {
                return Err(DynamicsError::BadMass {
                    link: link.name.clone(),
                    what: "second moment entry",
                    value: f64::NAN,
                });
            }
            Ok(*m)
        }
    }
}
