//! Helpers shared by the component tests.

use nalgebra::Vector3;
use sdrs_contact::{Order, PairContact, VertexDerivatives};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::testing::{central_differences, relative_error};

/// `hull` with vertex `vertex` moved by `x` (the order of the vertices is kept).
pub fn with_vertex_moved(hull: &ConvexHull, vertex: usize, x: &[f64; 3]) -> ConvexHull {
    let mut vs = hull.vertices().to_vec();
    vs[vertex] += Vector3::new(x[0], x[1], x[2]);
    ConvexHull::new(vs).unwrap()
}

/// Analytic shape derivatives of several vertices next to central differences, compared as
/// whole Jacobians (a weakly active vertex can move the result by less than round-off
/// resolves, so single columns are not meaningful alone).
#[derive(Default)]
pub struct VertexJacobians {
    analytic: Vec<f64>,
    numeric: Vec<f64>,
    analytic_mixed: Vec<f64>,
    numeric_mixed: Vec<f64>,
}

impl VertexJacobians {
    /// Adds `listed`'s gradient and mixed block and their differences (step `h`) of `at`, the
    /// pair evaluated with the vertex moved by its argument.
    pub fn add(
        &mut self,
        listed: &VertexDerivatives,
        h: f64,
        at: impl Fn(&[f64; 3], Order) -> PairContact,
    ) {
        self.analytic.extend(listed.gradient.iter());
        self.numeric.extend(central_differences(
            |x| at(x, Order::Value).value,
            &[0.0; 3],
            h,
        ));
        self.analytic_mixed.extend(listed.mixed.iter());
        for col in central_differences(|x| at(x, Order::Gradient).gradient, &[0.0; 3], h) {
            self.numeric_mixed.extend(col.iter());
        }
    }

    /// Whether no vertex was added.
    pub fn is_empty(&self) -> bool {
        self.analytic.is_empty()
    }

    /// Relative errors of the gradients and of the mixed blocks.
    pub fn errors(&self) -> (f64, f64) {
        (
            relative_error(&self.analytic, &self.numeric, 1e-12),
            relative_error(&self.analytic_mixed, &self.numeric_mixed, 1e-12),
        )
    }
}

/// Relative errors `(gradient, Hessian)` of a pair's pose derivatives `c` against central
/// differences (step `h`) of `at`, the pair evaluated with its poses perturbed by a 12-vector
/// of twists (A's, then B's). Differencing the gradient field adds an antisymmetric term from
/// the non-commuting rotations (see `sdrs_geometry::twist`); the Hessian is compared with its
/// symmetric part.
pub fn pose_derivative_errors(
    c: &PairContact,
    h: f64,
    at: impl Fn(&[f64; 12], Order) -> PairContact,
) -> (f64, f64) {
    let fd = central_differences(|x| at(x, Order::Value).value, &[0.0; 12], h);
    let gradient = relative_error(c.gradient.as_slice(), &fd, 1e-15);
    let columns = central_differences(|x| at(x, Order::Gradient).gradient, &[0.0; 12], h);
    let raw = nalgebra::DMatrix::from_fn(12, 12, |i, j| columns[j][i]);
    let sym = (&raw + raw.transpose()) * 0.5;
    (
        gradient,
        relative_error(c.hessian.as_slice(), sym.as_slice(), 1e-15),
    )
}
