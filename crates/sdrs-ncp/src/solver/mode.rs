//! [`ContactMode`]: breaking, sticking or sliding, read from a solution (the three cases of the
//! paper's implicit differentiation, eq. 8-11).

use super::admm::NcpSolution;
use super::problem::{NcpProblem, block};
use nalgebra::Vector3;

/// The mode of one contact at a solution of eq. 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContactMode {
    /// No impulse: `λ = 0`, the contact opens or stays open (`σ_N ≥ 0`).
    Breaking,
    /// The impulse holds the contact still: `σ = 0`, `λ` anywhere in the cone.
    Sticking,
    /// The contact slips: `σ_N = 0`, `σ_T ≠ 0`, `λ` on the cone's boundary opposing `σ_T`.
    Sliding,
}

impl ContactMode {
    /// The mode of a contact with impulse `impulse` and velocity `velocity` (tangent 1,
    /// tangent 2, normal), with the absolute `tolerance` on both: breaking when
    /// `‖λ‖ ≤ tolerance`, else sticking when the slip `‖σ_T‖ ≤ tolerance`, else sliding.
    ///
    /// Solutions are accurate to the solver's tolerance, so `tolerance` should be some orders
    /// above it (e.g. 1e-6 for the default 1e-9) and below the impulses and slips that matter.
    ///
    /// ```
    /// use sdrs_ncp::ContactMode;
    /// use nalgebra::Vector3;
    /// let mode = ContactMode::classify(&Vector3::new(0.1, 0.0, 1.0), &Vector3::zeros(), 1e-6);
    /// assert_eq!(mode, ContactMode::Sticking);
    /// ```
    pub fn classify(impulse: &Vector3<f64>, velocity: &Vector3<f64>, tolerance: f64) -> Self {
        if impulse.norm() <= tolerance {
            Self::Breaking
        } else if velocity.xy().norm() <= tolerance {
            Self::Sticking
        } else {
            Self::Sliding
        }
    }
}

impl NcpSolution {
    /// Every contact's mode ([`ContactMode::classify`] with `tolerance`); `problem` is the one
    /// this solves (it gives the number of contacts).
    pub fn modes(&self, problem: &NcpProblem, tolerance: f64) -> Vec<ContactMode> {
        (0..problem.contacts())
            .map(|i| {
                ContactMode::classify(
                    &block(&self.impulses, i),
                    &block(&self.velocities, i),
                    tolerance,
                )
            })
            .collect()
    }
}
