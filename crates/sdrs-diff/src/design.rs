//! A low-dimensional design: `d = d₀ + B p` over the model's full design vector.

use crate::error::{DiffError, Result};
use nalgebra::{DMatrix, DVector, Vector3};
use sdrs_dynamics::Model;

/// The index of the link named `name`, as a [`DiffError::Name`] when it has none.
pub(crate) fn link_named(model: &Model, name: &str) -> Result<usize> {
    model
        .link_index(name)
        .map_err(|source| DiffError::Name { source })
}

/// Checks that link `link` has hull `hull` with every vertex of `vertices`.
pub(crate) fn check_vertices(
    model: &Model,
    link: usize,
    hull: usize,
    vertices: &[usize],
) -> Result<()> {
    let hulls = &model.links()[link].hulls;
    let Some(h) = hulls.get(hull) else {
        return Err(DiffError::OutOfRange {
            what: "hull index of the link",
            index: hull,
            len: hulls.len(),
        });
    };
    match vertices.iter().find(|&&v| v >= h.vertices().len()) {
        Some(&index) => Err(DiffError::OutOfRange {
            what: "vertex index of the hull",
            index,
            len: h.vertices().len(),
        }),
        None => Ok(()),
    }
}

/// An affine map from a few design parameters `p` to the model's design vector
/// (`Model::design`): `d(p) = d₀ + B p`. Gradients pull back as `Bᵀ dL/dd`. Use it to tie
/// coordinates together, e.g. a link's length that moves its child's attachment and its own
/// far vertices at once.
///
/// Build `B` by name with [`DesignMap::attachment`], [`DesignMap::hull_vertices`] and
/// [`DesignMap::link_length`] (each adds its weights to `B`, so they combine), or entry by
/// entry with [`DesignMap::set`].
///
/// ```
/// use sdrs_diff::DesignMap;
/// use sdrs_dynamics::scenes::chain;
/// use nalgebra::DVector;
/// let model = chain(2, 0.01)?.model;
/// // One parameter: the second link's attachment z.
/// let mut map = DesignMap::new(&model, 1);
/// map.attachment(&model, "link1", 2, 0, 1.0)?;
/// let longer = map.model(&model, &DVector::from_element(1, -0.05))?;
/// assert!((longer.links()[1].attachment.translation.z + 0.15).abs() < 1e-12);
/// // Unknown names are errors that say which names exist.
/// assert!(map.attachment(&model, "link9", 2, 0, 1.0).unwrap_err().to_string().contains("link1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DesignMap {
    base: DVector<f64>,
    basis: DMatrix<f64>,
}

impl DesignMap {
    /// The map around `model`'s current design with `parameters` parameters and `B = 0`.
    pub fn new(model: &Model, parameters: usize) -> Self {
        let base = model.design();
        let basis = DMatrix::zeros(base.len(), parameters);
        Self { base, basis }
    }

    /// Sets `B[(entry, parameter)]`: how far design entry `entry` moves per unit of
    /// `parameter`.
    pub fn set(&mut self, entry: usize, parameter: usize, weight: f64) -> Result<()> {
        for (what, index, len) in [
            ("design entry index", entry, self.basis.nrows()),
            ("design parameter index", parameter, self.basis.ncols()),
        ] {
            if index >= len {
                return Err(DiffError::OutOfRange { what, index, len });
            }
        }
        self.basis[(entry, parameter)] = weight;
        Ok(())
    }

    /// Adds `weight` to how far coordinate `axis` (0, 1, 2 for x, y, z, in the parent's
    /// frame) of link `link`'s attachment moves per unit of `parameter`.
    pub fn attachment(
        &mut self,
        model: &Model,
        link: &str,
        axis: usize,
        parameter: usize,
        weight: f64,
    ) -> Result<&mut Self> {
        let l = link_named(model, link)?;
        if axis >= 3 {
            return Err(DiffError::OutOfRange {
                what: "attachment axis",
                index: axis,
                len: 3,
            });
        }
        self.add(model.design_index(l, None) + axis, parameter, weight)?;
        Ok(self)
    }

    /// Moves vertices `vertices` of hull `hull` of link `link` by `direction` (in the link's
    /// frame) per unit of `parameter` (added to `B`).
    pub fn hull_vertices(
        &mut self,
        model: &Model,
        link: &str,
        hull: usize,
        vertices: &[usize],
        direction: &Vector3<f64>,
        parameter: usize,
    ) -> Result<&mut Self> {
        let l = link_named(model, link)?;
        check_vertices(model, l, hull, vertices)?;
        for &v in vertices {
            let at = model.design_index(l, Some((hull, v)));
            for (k, w) in direction.iter().enumerate() {
                self.add(at + k, parameter, *w)?;
            }
        }
        Ok(self)
    }

    /// Makes `parameter` the change of link `link`'s length (m): its children's attachments
    /// and its far vertices move along the link's axis by one metre per unit (added to `B`).
    ///
    /// The axis is the direction from the link's joint to its children's attachments (their
    /// mean), or, for a link without children, to the centroid of its hulls' vertices. The far
    /// vertices are those more than half the link's extent along the axis (its largest vertex
    /// projection) from the joint.
    ///
    /// ```
    /// use sdrs_diff::DesignMap;
    /// use sdrs_dynamics::scenes::chain;
    /// use nalgebra::DVector;
    /// let model = chain(3, 0.01)?.model;
    /// let mut map = DesignMap::new(&model, 1);
    /// map.link_length(&model, "link1", 0)?;
    /// // 10 cm → 12 cm: link2 hangs 2 cm lower.
    /// let longer = map.model(&model, &DVector::from_element(1, 0.02))?;
    /// assert!((longer.links()[2].attachment.translation.z + 0.12).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn link_length(
        &mut self,
        model: &Model,
        link: &str,
        parameter: usize,
    ) -> Result<&mut Self> {
        let l = link_named(model, link)?;
        let links = model.links();
        let children: Vec<usize> = (0..links.len())
            .filter(|&c| links[c].parent == Some(l))
            .collect();
        let vertices = || links[l].hulls.iter().flat_map(|h| h.vertices());
        let count = vertices().count();
        let towards = if children.is_empty() {
            vertices().map(|v| v.coords).sum::<Vector3<f64>>() / count.max(1) as f64
        } else {
            children
                .iter()
                .map(|&c| links[c].attachment.translation.vector)
                .sum::<Vector3<f64>>()
                / children.len() as f64
        };
        let Some(axis) = towards.try_normalize(1e-12) else {
            return Err(DiffError::InvalidInput {
                what: "link length",
                reason: format!(
                    "link '{link}' has no axis: its children's attachments (or, without children, its vertices' centroid) must be away from its joint"
                ),
            });
        };
        for c in children {
            for k in 0..3 {
                self.add(model.design_index(c, None) + k, parameter, axis[k])?;
            }
        }
        let extent = vertices().map(|v| v.coords.dot(&axis)).fold(0.0, f64::max);
        for (h, hull) in links[l].hulls.iter().enumerate() {
            for (v, x) in hull.vertices().iter().enumerate() {
                if x.coords.dot(&axis) > 0.5 * extent {
                    let at = model.design_index(l, Some((h, v)));
                    for k in 0..3 {
                        self.add(at + k, parameter, axis[k])?;
                    }
                }
            }
        }
        Ok(self)
    }

    /// `B[(entry, parameter)] += weight`.
    fn add(&mut self, entry: usize, parameter: usize, weight: f64) -> Result<()> {
        let before = self.basis.get((entry, parameter)).copied().unwrap_or(0.0);
        self.set(entry, parameter, before + weight)
    }

    /// The number of parameters.
    pub fn parameters(&self) -> usize {
        self.basis.ncols()
    }

    /// `d₀ + B p`.
    pub fn design(&self, p: &DVector<f64>) -> Result<DVector<f64>> {
        if p.len() != self.parameters() {
            return Err(DiffError::LengthMismatch {
                what: "design parameters",
                actual: p.len(),
                expected: self.parameters(),
            });
        }
        Ok(&self.base + &self.basis * p)
    }

    /// `model` with the design `d(p)`.
    pub fn model(&self, model: &Model, p: &DVector<f64>) -> Result<Model> {
        model
            .with_design(&self.design(p)?)
            .map_err(|source| DiffError::Design { source })
    }

    /// `Bᵀ g`: a gradient over the design vector pulled back to the parameters.
    pub fn pullback(&self, gradient: &DVector<f64>) -> DVector<f64> {
        self.basis.tr_mul(gradient)
    }
}
