//! The long-range contact potential between triangle meshes (long-range paper, sec. 4-5).
//!
//! Each pair of triangles on two bodies interacts through a separating plane with globally
//! supported barrier terms ([`triangle`]: `P = min_p 12/(1−|n|)⁺ + Σ 1/(signed distance)⁺`),
//! so the potential is a barrier (infinite at contact), twice differentiable, pushes the
//! bodies apart and never vanishes, however far apart they are (Theorem 5.4). Far pairs are
//! replaced smoothly by the closed form `12 (1 + 1/√r)²` between bounding-sphere centres
//! ([`radial`]), hierarchically over each body's layered bounding-sphere tree
//! ([`hierarchy`], eq. 6-8), so the cost stays near-linear in the triangle count.
//!
//! ```
//! use sdrs_contact::long_range::{LongRange, MeshShape};
//! use sdrs_contact::{ContactModel, Order};
//! use sdrs_geometry::TriMesh;
//! use nalgebra::Isometry3;
//! let ball = MeshShape::new(TriMesh::icosphere(0.5, 1)?)?;
//! let model = LongRange::new(0.5)?;
//! let far = Isometry3::translation(100.0, 0.0, 0.0);
//! let out = model.evaluate(&ball, &Isometry3::identity(), &ball, &far, &mut Default::default(), Order::Gradient)?;
//! let c = out.contact().unwrap();
//! // 100 m apart the bodies still push each other apart (no vanishing gradient).
//! assert!(c.gradient[0] > 0.0 && c.gradient[6] < 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Friction (appendix A.3) is [`friction::LongRangeFriction`].
//!
//! Limitations: derivatives with respect to the mesh vertices (shape) are not provided yet
//! ([`Order::Design`] is refused with [`ContactError::Unsupported`]).

pub mod friction;
pub mod hierarchy;
pub mod radial;
mod sink;
pub mod triangle;

use crate::error::{ContactError, Result, positive};
use crate::model::{ContactModel, Order, PairContact, PairOutcome};
use hierarchy::{Census, PlacedBody, Recursion, Sum};
use sink::Sink;
use nalgebra::{Isometry3, Point3, Vector3, Vector4};
use sdrs_geometry::{SphereTree, TriMesh};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A body's triangle mesh (body frame) with its layered bounding-sphere hierarchy.
#[derive(Debug, Clone)]
pub struct MeshShape {
    mesh: TriMesh,
    tree: SphereTree,
}

impl MeshShape {
    /// Builds the hierarchy of `mesh`.
    pub fn new(mesh: TriMesh) -> Result<Self> {
        let tree = SphereTree::build(&mesh).map_err(|e| ContactError::Geometry {
            message: e.to_string(),
        })?;
        Ok(Self { mesh, tree })
    }

    /// The mesh.
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// The same shape with its vertices moved to `vertices` (same triangles), keeping the
    /// hierarchy's topology and radii: the shape [`LongRange::vertex_gradient`]
    /// differentiates. After large moves rebuild with [`MeshShape::new`].
    pub fn moved(&self, vertices: Vec<Point3<f64>>) -> Result<Self> {
        let geometry = |e: sdrs_geometry::GeometryError| ContactError::Geometry {
            message: e.to_string(),
        };
        let mesh = TriMesh::new(vertices, self.mesh.triangles().to_vec()).map_err(geometry)?;
        let mut tree = self.tree.clone();
        tree.recentre(mesh.vertices()).map_err(geometry)?;
        Ok(Self { mesh, tree })
    }

    /// The hierarchy.
    pub fn tree(&self) -> &SphereTree {
        &self.tree
    }
}

/// Warm-start data of one pair of bodies: the optimal plane of every exact triangle pair of
/// the last evaluation. After a 0.1 mm move at a 1 cm gap, exact pairs take ~4.8 Newton
/// iterations from their last plane instead of ~7.3 from the closest-point plane (and skip
/// the closest-point query).
#[derive(Debug, Clone, Default)]
pub struct LongRangeCache {
    planes: PlaneMap,
}

/// Optimal planes by triangle pair.
pub(crate) type PlaneMap = HashMap<(u32, u32), Vector4<f64>, BuildHasherDefault<PairHasher>>;

/// A multiplicative hash of a triangle pair (the standard library's keyed hash cost as much
/// as a third of an exact pair's bookkeeping; keys here are not adversarial).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl crate::model::FromMesh for MeshShape {
    fn from_mesh(mesh: TriMesh) -> Result<Self> {
        Self::new(mesh)
    }

    fn mesh(&self) -> &TriMesh {
        &self.mesh
    }
}

/// The hierarchical long-range potential with blending margin `ε` (eq. 6-8).
#[derive(Debug, Clone, PartialEq)]
pub struct LongRange {
    epsilon: f64,
    max_iterations: usize,
}

impl LongRange {
    /// The potential with margin `epsilon > 0`: a node pair is exact (or recursed into)
    /// until its centres are `(1 + ε)(R_I + R_J)` apart. Larger `ε` is more exact and slower.
    pub fn new(epsilon: f64) -> Result<Self> {
        Ok(Self {
            epsilon: positive("epsilon", epsilon)?,
            max_iterations: 100,
        })
    }

    /// The margin `ε`.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// [`ContactModel::evaluate`] with a count of what the evaluation did.
    pub fn evaluate_counted(
        &self,
        a: &MeshShape,
        pose_a: &Isometry3<f64>,
        b: &MeshShape,
        pose_b: &Isometry3<f64>,
        cache: &mut LongRangeCache,
        order: Order,
    ) -> Result<(PairOutcome, Census)> {
        check(pose_a, pose_b, order)?;
        let mut rec = self.recursion(a, pose_a, b, pose_b, order);
        rec.previous = std::mem::take(&mut cache.planes);
        rec.planes.reserve(rec.previous.len());
        let mut sum = Sum::default();
        let apart = rec.pair(a.tree.root(), b.tree.root(), 1.0, &mut sum)?;
        cache.planes = std::mem::take(&mut rec.planes);
        let outcome = outcome(apart.then_some(sum), rec.sink.take(), rec.census.iterations);
        Ok((outcome, rec.census))
    }

    fn recursion<'a>(
        &self,
        a: &'a MeshShape,
        pose_a: &Isometry3<f64>,
        b: &'a MeshShape,
        pose_b: &Isometry3<f64>,
        order: Order,
    ) -> Recursion<'a> {
        Recursion {
            a: PlacedBody::new(&a.mesh, &a.tree, pose_a),
            b: PlacedBody::new(&b.mesh, &b.tree, pose_b),
            epsilon: self.epsilon,
            sink: (order >= Order::Hessian).then(|| {
                let vertices = [a.mesh.vertices().len(), b.mesh.vertices().len()];
                Sink::new(
                    [a.tree.node_count(), b.tree.node_count()],
                    (order == Order::Design).then_some(vertices),
                )
            }),
            max_iterations: self.max_iterations,
            census: Census::default(),
            previous: PlaneMap::default(),
            planes: PlaneMap::default(),
        }
    }

    /// The gradient of the potential with respect to every vertex of both meshes (in their
    /// bodies' frames), or `None` when two triangles touch: the shape gradient of the energy.
    /// Node centres are their vertices' means, so the radial terms reach every vertex of a
    /// node; node radii are held fixed (they are the hierarchy's parameters: a radius is a
    /// maximum, not differentiable, and the potential is smooth in the vertices at fixed
    /// radii). The pose-vertex mixed blocks a trajectory adjoint would need are not provided
    /// ([`Order::Design`] is refused).
    ///
    /// ```
    /// use sdrs_contact::long_range::{LongRange, MeshShape};
    /// use sdrs_geometry::TriMesh;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = MeshShape::new(TriMesh::cuboid(Vector3::repeat(0.5))?)?;
    /// let above = Isometry3::translation(0.0, 0.0, 1.01);
    /// let [a, b] = LongRange::new(0.5)?
    ///     .vertex_gradient(&cube, &Isometry3::identity(), &cube, &above, &mut Default::default())?
    ///     .expect("apart");
    /// // Raising a top vertex of the lower cube (towards the upper one) raises the energy.
    /// let top = cube.mesh().vertices().iter().position(|v| v.z > 0.0).unwrap();
    /// assert!(a[top].z > 0.0 && b.len() == 8);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn vertex_gradient(
        &self,
        a: &MeshShape,
        pose_a: &Isometry3<f64>,
        b: &MeshShape,
        pose_b: &Isometry3<f64>,
        cache: &mut LongRangeCache,
    ) -> Result<Option<[Vec<Vector3<f64>>; 2]>> {
        crate::model::check_poses(pose_a, pose_b)?;
        let mut rec = self.recursion(a, pose_a, b, pose_b, Order::Design);
        rec.previous = std::mem::take(&mut cache.planes);
        let mut sum = Sum::default();
        let apart = rec.pair(a.tree.root(), b.tree.root(), 1.0, &mut sum)?;
        cache.planes = std::mem::take(&mut rec.planes);
        if !apart {
            return Ok(None);
        }
        let sink = rec.sink.expect("design order gathers a sink");
        let world = sink
            .vertex_gradients([&a.tree, &b.tree])
            .expect("design order gathers vertex gradients");
        let poses = [pose_a, pose_b];
        Ok(Some(std::array::from_fn(|k| {
            world[k]
                .iter()
                .map(|g| poses[k].rotation.inverse_transform_vector(g))
                .collect()
        })))
    }

    /// The unblended sum of exact triangle-pair potentials over all pairs (eq. 3): the
    /// reference the hierarchy approximates, O(T_A · T_B) inner solves.
    pub fn brute_force(
        &self,
        a: &MeshShape,
        pose_a: &Isometry3<f64>,
        b: &MeshShape,
        pose_b: &Isometry3<f64>,
        order: Order,
    ) -> Result<PairOutcome> {
        check(pose_a, pose_b, order)?;
        let mut rec = self.recursion(a, pose_a, b, pose_b, order);
        let mut sum = Sum::default();
        for ta in 0..a.mesh.triangles().len() as u32 {
            for tb in 0..b.mesh.triangles().len() as u32 {
                if !rec.exact(ta, tb, 1.0, &mut sum)? {
                    return Ok(PairOutcome::Penetrating);
                }
            }
        }
        Ok(outcome(Some(sum), rec.sink.take(), rec.census.iterations))
    }
}

fn check(pose_a: &Isometry3<f64>, pose_b: &Isometry3<f64>, order: Order) -> Result<()> {
    crate::model::check_poses(pose_a, pose_b)?;
    if order == Order::Design {
        return Err(ContactError::Unsupported {
            what: "pose-vertex mixed (design) blocks of the long-range potential (its vertex \
                   gradient is LongRange::vertex_gradient)",
        });
    }
    Ok(())
}

/// The pair's outcome from the recursion's sum (`None`: touching) and its Hessian sink
/// (present when the Hessian was asked for).
fn outcome(sum: Option<Sum>, sink: Option<Sink>, iterations: usize) -> PairOutcome {
    let Some(sum) = sum else {
        return PairOutcome::Penetrating;
    };
    let mut c = PairContact::zero();
    c.value = sum.value;
    c.iterations = iterations;
    c.gradient = sum.gradient;
    if let Some(sink) = sink {
        let h = sink.finish();
        c.hessian = (h + h.transpose()) * 0.5;
    }
    PairOutcome::Separated(c)
}

impl ContactModel for LongRange {
    type Shape = MeshShape;
    type Cache = LongRangeCache;

    /// Infinite: the potential has global support (every pair of bodies interacts).
    fn support_distance(&self) -> f64 {
        f64::INFINITY
    }

    fn evaluate(
        &self,
        a: &MeshShape,
        pose_a: &Isometry3<f64>,
        b: &MeshShape,
        pose_b: &Isometry3<f64>,
        cache: &mut LongRangeCache,
        order: Order,
    ) -> Result<PairOutcome> {
        self.evaluate_counted(a, pose_a, b, pose_b, cache, order)
            .map(|(outcome, _)| outcome)
    }
}
