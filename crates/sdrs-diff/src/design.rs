//! A low-dimensional design: `d = d₀ + B p` over the model's full design vector.

use crate::error::{DiffError, Result};
use nalgebra::{DMatrix, DVector};
use sdrs_dynamics::Model;

/// An affine map from a few design parameters `p` to the model's design vector
/// (`Model::design`): `d(p) = d₀ + B p`. Gradients pull back as `Bᵀ dL/dd`. Use it to tie
/// coordinates together, e.g. a link's length that moves its child's attachment and its own
/// far vertices at once.
///
/// ```
/// use sdrs_diff::DesignMap;
/// use sdrs_dynamics::scenes::chain;
/// use nalgebra::DVector;
/// let model = chain(2, 0.01)?.model;
/// // One parameter: the second link's attachment z.
/// let mut map = DesignMap::new(&model, 1);
/// map.set(model.design_index(1, None) + 2, 0, 1.0)?;
/// let longer = map.model(&model, &DVector::from_element(1, -0.05))?;
/// assert!((longer.links()[1].attachment.translation.z + 0.15).abs() < 1e-12);
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
