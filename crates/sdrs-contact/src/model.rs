//! The contact trait every potential implements and the dynamics consumes.

use crate::error::Result;
use nalgebra::{Isometry3, SMatrix, Vector3};
use sdrs_geometry::twist::{Matrix12, Vector12};

/// How many derivatives to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Order {
    /// Energy only.
    Value,
    /// Energy and pose gradient.
    Gradient,
    /// Energy, pose gradient and pose Hessian.
    Hessian,
    /// All of the above plus the derivatives with respect to the local vertices (design).
    Design,
}

/// Derivatives with respect to one local vertex of one body of the pair.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexDerivatives {
    /// 0 for the first body of the pair, 1 for the second.
    pub body: usize,
    /// Index of the vertex in that body's shape.
    pub vertex: usize,
    /// `∂U/∂x` with respect to the local vertex position.
    pub gradient: Vector3<f64>,
    /// `∂²U/∂ξ∂x` (12x3): how the pose gradient changes with the local vertex.
    pub mixed: SMatrix<f64, 12, 3>,
}

/// Energy and derivatives of one pair of bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct PairContact {
    /// The energy.
    pub value: f64,
    /// Gradient with respect to the two twists (zero unless requested).
    pub gradient: Vector12,
    /// Hessian with respect to the two twists (zero unless requested).
    pub hessian: Matrix12,
    /// Derivatives with respect to local vertices: only vertices with a non-zero contribution
    /// are listed (empty unless [`Order::Design`] was requested).
    pub vertices: Vec<VertexDerivatives>,
    /// Inner Newton iterations spent (0 when the pair was outside the support distance).
    pub iterations: usize,
}

impl PairContact {
    /// The zero contribution of a pair beyond the support distance.
    pub fn zero() -> Self {
        Self {
            value: 0.0,
            gradient: Vector12::zeros(),
            hessian: Matrix12::zeros(),
            vertices: Vec::new(),
            iterations: 0,
        }
    }
}

/// The result of evaluating a pair.
// Returned by value once per pair; boxing the 12x12 Hessian would allocate on the hot path.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum PairOutcome {
    /// The bodies are apart; the energy is finite.
    Separated(PairContact),
    /// The bodies touch or overlap: the energy is `+∞`. A line search must reject this state.
    Penetrating,
}

impl PairOutcome {
    /// The energy (`+∞` when penetrating).
    pub fn value(&self) -> f64 {
        match self {
            PairOutcome::Separated(c) => c.value,
            PairOutcome::Penetrating => f64::INFINITY,
        }
    }

    /// The contact data, if separated.
    pub fn contact(&self) -> Option<&PairContact> {
        match self {
            PairOutcome::Separated(c) => Some(c),
            PairOutcome::Penetrating => None,
        }
    }
}

/// A contact potential between two rigid bodies, differentiated with respect to their poses
/// (see [`sdrs_geometry::twist`] for the convention) and their local shape.
///
/// Implementations keep per-pair warm-start data in `Cache`; pass the same cache for the same
/// pair from one evaluation to the next.
pub trait ContactModel: Sync {
    /// The shape of one body (a convex hull, a triangle mesh...).
    type Shape: Sync;
    /// Warm-start data of one pair.
    type Cache: Default + Clone + Send;

    /// Distance beyond which the potential and all its derivatives are exactly zero; the
    /// broad phase inflates boxes by it.
    fn support_distance(&self) -> f64;

    /// Evaluates the potential between `a` at `pose_a` and `b` at `pose_b`.
    fn evaluate(
        &self,
        a: &Self::Shape,
        pose_a: &Isometry3<f64>,
        b: &Self::Shape,
        pose_b: &Isometry3<f64>,
        cache: &mut Self::Cache,
        order: Order,
    ) -> Result<PairOutcome>;

    /// Continuous collision detection: the largest fraction `t ∈ [0, 1]` of a move of the two
    /// shapes from poses `(from_a, from_b)` to `(to_a, to_b)` that a time stepper's line
    /// search may take without stepping across the potential's barrier. 1 (no restriction)
    /// for models whose barrier cannot be stepped across unseen.
    fn max_step(
        &self,
        a: &Self::Shape,
        b: &Self::Shape,
        from: [&Isometry3<f64>; 2],
        to: [&Isometry3<f64>; 2],
    ) -> Result<f64> {
        let _ = (a, b, from, to);
        Ok(1.0)
    }
}

/// Friction lagged by one step between two shapes: data gathered at the step-t poses
/// ([`LaggedFriction::frames`], e.g. contact planes and normal forces) and an energy of the
/// step-(t+1) poses, as the time stepper of a mesh model uses it.
pub trait LaggedFriction: Sync {
    /// The shapes it acts between (those of the normal-contact model it goes with).
    type Shape;
    /// The lagged data of one pair of bodies.
    type Frames: Send + std::fmt::Debug;

    /// The lagged data of bodies `a` and `b` at their step-t poses, with normal forces scaled
    /// by the contact `stiffness`.
    fn frames(
        &self,
        stiffness: f64,
        a: &Self::Shape,
        pose_a: &Isometry3<f64>,
        b: &Self::Shape,
        pose_b: &Isometry3<f64>,
    ) -> Result<Self::Frames>;

    /// The friction energy at the step-(t+1) poses with its derivatives up to `order`.
    fn evaluate(
        &self,
        frames: &mut Self::Frames,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
        order: Order,
    ) -> Result<PairContact>;

    /// The energy with its step-(t+1) gradient and Hessian and its step-t derivatives, for the
    /// adjoint of a time step.
    fn evaluate_lagged(
        &self,
        frames: &mut Self::Frames,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
    ) -> Result<crate::friction::LaggedContact>;
}

/// A body shape built from a triangle mesh (the mesh-based models: long-range, IPC), so that
/// a scene can hand its links' meshes to any of them.
pub trait FromMesh: Sized {
    /// The shape of `mesh` (body frame).
    fn from_mesh(mesh: sdrs_geometry::TriMesh) -> Result<Self>;

    /// The mesh.
    fn mesh(&self) -> &sdrs_geometry::TriMesh;
}

/// Both poses of a pair must be finite with unit rotations.
pub(crate) fn check_poses(pose_a: &Isometry3<f64>, pose_b: &Isometry3<f64>) -> Result<()> {
    for (body, pose) in [pose_a, pose_b].into_iter().enumerate() {
        let finite = pose.translation.vector.iter().all(|c| c.is_finite())
            && pose.rotation.coords.iter().all(|c| c.is_finite());
        if !finite {
            return Err(crate::error::ContactError::NonFinitePose { body });
        }
        // Composed unit quaternions drift from norm 1 by round-off (~1e-16 per product); 1e-6
        // only rejects quaternions that were never unit.
        let norm = pose.rotation.coords.norm();
        if !((norm - 1.0).abs() <= 1e-6) {
            return Err(crate::error::ContactError::NonUnitRotation { body, norm });
        }
    }
    Ok(())
}
