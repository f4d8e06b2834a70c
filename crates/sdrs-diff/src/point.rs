//! Points on links for losses: a fixed offset in the link's frame plus the mean of some of its
//! hull vertices (so the point moves with the design), and the pullback of gradients with
//! respect to world positions to the coordinates and the design.

use crate::design::{check_vertices, link_named};
use crate::error::{DiffError, Result};
use crate::pose::adjoint_at;
use nalgebra::{DVector, Isometry3, Point3, Vector3};
use sdrs_dynamics::{Kinematics, Model, State};

/// A point on a link: `offset + mean(vertices)` in the link's frame. With vertices it moves
/// with them when the design changes (e.g. a chain's tip as the mean of its last link's lower
/// vertices, which a link-length parameter moves).
///
/// ```
/// use sdrs_diff::LinkPoint;
/// use sdrs_dynamics::{Kinematics, State, scenes::chain};
/// use nalgebra::Point3;
/// let model = chain(2, 0.01)?.model;
/// let kin = Kinematics::new(&model, &State::zero(&model));
/// let tip = LinkPoint::fixed(&model, "link1", Point3::new(0.0, 0.0, -0.1))?;
/// assert!((tip.world(&model, &kin).z + 0.2).abs() < 1e-12);
/// // The mean of the lower face of link1's box (vertices with z < 0).
/// let lower: Vec<usize> = (0..8).filter(|&v| model.links()[1].hulls[0].vertices()[v].z < 0.0).collect();
/// let face = LinkPoint::vertex_mean(&model, "link1", 0, &lower)?;
/// assert!((face.world(&model, &kin).z + 0.14).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LinkPoint {
    link: usize,
    offset: Vector3<f64>,
    /// `(hull, vertex)` pairs whose mean is added to the offset.
    vertices: Vec<(usize, usize)>,
}

impl LinkPoint {
    /// The point `point` fixed in the frame of the link named `link`.
    pub fn fixed(model: &Model, link: &str, point: Point3<f64>) -> Result<Self> {
        if let Some(index) = point.iter().position(|x| !x.is_finite()) {
            return Err(DiffError::NonFinite {
                what: "link point",
                index,
            });
        }
        Ok(Self {
            link: link_named(model, link)?,
            offset: point.coords,
            vertices: Vec::new(),
        })
    }

    /// The mean of vertices `vertices` (at least one) of hull `hull` of the link named `link`.
    pub fn vertex_mean(model: &Model, link: &str, hull: usize, vertices: &[usize]) -> Result<Self> {
        let l = link_named(model, link)?;
        if vertices.is_empty() {
            return Err(DiffError::InvalidInput {
                what: "vertex-mean point",
                reason: format!("no vertices of link '{link}' given: at least one is needed"),
            });
        }
        check_vertices(model, l, hull, vertices)?;
        Ok(Self {
            link: l,
            offset: Vector3::zeros(),
            vertices: vertices.iter().map(|&v| (hull, v)).collect(),
        })
    }

    /// The link's index.
    pub fn link(&self) -> usize {
        self.link
    }

    /// Checks that `model` has this point's link and vertices (a model with another design
    /// of the same robot does).
    pub fn check(&self, model: &Model) -> Result<()> {
        let links = model.links().len();
        if self.link >= links {
            return Err(DiffError::OutOfRange {
                what: "link point's link",
                index: self.link,
                len: links,
            });
        }
        for &(hull, vertex) in &self.vertices {
            check_vertices(model, self.link, hull, &[vertex])?;
        }
        Ok(())
    }

    /// The point in its link's frame, for `model`'s design.
    pub fn local(&self, model: &Model) -> Point3<f64> {
        let hulls = &model.links()[self.link].hulls;
        let sum: Vector3<f64> = self
            .vertices
            .iter()
            .map(|&(h, v)| hulls[h].vertices()[v].coords)
            .sum();
        Point3::from(self.offset + sum / self.vertices.len().max(1) as f64)
    }

    /// The point in the world at kinematics `kin` of `model`.
    pub fn world(&self, model: &Model, kin: &Kinematics) -> Point3<f64> {
        kin.poses()[self.link] * self.local(model)
    }
}

/// Accumulates the gradients of a loss with respect to world points and link poses of one
/// state, then maps them to the state's coordinates and the design.
pub(crate) struct Pullback<'a> {
    model: &'a Model,
    kin: Kinematics,
    /// `dL/dξ`, 6 per link.
    twist: DVector<f64>,
    /// `dL/dd` of the hull vertices (the attachments' part is added by `finish`).
    design: DVector<f64>,
}

impl<'a> Pullback<'a> {
    pub(crate) fn new(model: &'a Model, state: &State) -> Self {
        Self {
            model,
            kin: Kinematics::new(model, state),
            twist: DVector::zeros(6 * model.links().len()),
            design: DVector::zeros(model.design_len()),
        }
    }

    pub(crate) fn kinematics(&self) -> &Kinematics {
        &self.kin
    }

    pub(crate) fn pose(&self, link: usize) -> Isometry3<f64> {
        self.kin.poses()[link]
    }

    /// A material point at world position `world` on link `link` with `dL/dp = g`:
    /// `δp = v + ω × (p − t)`, so the twist gradient is `(g, (p − t) × g)`.
    pub(crate) fn material(&mut self, link: usize, world: &Point3<f64>, g: &Vector3<f64>) {
        let arm = world - Point3::from(self.pose(link).translation.vector);
        let mut rows = self.twist.fixed_rows_mut::<6>(6 * link);
        let mut v = rows.fixed_rows_mut::<3>(0);
        v += g;
        let mut w = rows.fixed_rows_mut::<3>(3);
        w += arm.cross(g);
    }

    /// A twist gradient `(dL/dv, dL/dω)` of link `link`'s pose.
    pub(crate) fn twist(&mut self, link: usize, v: &Vector3<f64>, w: &Vector3<f64>) {
        let mut rows = self.twist.fixed_rows_mut::<3>(6 * link);
        rows += v;
        let mut rows = self.twist.fixed_rows_mut::<3>(6 * link + 3);
        rows += w;
    }

    /// Vertices `vertices` of link `link`, each moving the loss by `g` per unit of its world
    /// position: `dL/dx = Rᵀ g` in the link's frame.
    pub(crate) fn vertices(
        &mut self,
        link: usize,
        vertices: impl Iterator<Item = (usize, usize)>,
        g: &Vector3<f64>,
    ) {
        let local = self.pose(link).rotation.inverse() * g;
        for (h, v) in vertices {
            let mut rows = self
                .design
                .fixed_rows_mut::<3>(self.model.design_index(link, Some((h, v))));
            rows += local;
        }
    }

    /// Point `point` with `dL/dp = g`: its link's pose and its vertices.
    pub(crate) fn point(&mut self, point: &LinkPoint, g: &Vector3<f64>) -> Point3<f64> {
        let world = point.world(self.model, &self.kin);
        self.material(point.link, &world, g);
        let share = g / point.vertices.len().max(1) as f64;
        self.vertices(point.link, point.vertices.iter().copied(), &share);
        world
    }

    /// `(dL/dθ, dL/dd)`.
    pub(crate) fn finish(mut self) -> (DVector<f64>, DVector<f64>) {
        let (coordinates, attachments) = adjoint_at(self.model, &self.kin, &self.twist);
        let mut d = self.design.rows_mut(0, attachments.len());
        d += attachments;
        (coordinates, self.design)
    }
}
