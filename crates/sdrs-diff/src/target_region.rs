//! The long-range paper's task loss (appendix A.6.2): an object's centre of mass reaching a
//! target to within a tolerance, `ReLU(|x_COM − x*_COM|² − ε²)`, zero (with a zero gradient)
//! once the centre is within `ε` of the target. Several objects add through [`crate::Sum`].

use crate::adjoint::LossGradient;
use crate::error::{DiffError, Result};
use crate::loss::Loss;
use crate::losses::CentreOfMass;
use crate::trajectory::Trajectory;
use nalgebra::Vector3;
use sdrs_dynamics::Model;

/// `ReLU(|c(θ^H) − c*|² − ε²)` for the centre of mass `c` of some links at the end of the
/// trajectory: the long-range paper's loss per target object (appendix A.6.2). The task is a
/// success for that object when the loss is zero, i.e. its centre is within `ε` of `c*`.
///
/// At the kink `|c − c*| = ε` the loss takes the zero branch's gradient.
///
/// ```
/// use sdrs_diff::{Loss, Recording, TargetRegion, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// use nalgebra::Vector3;
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 2], Recording::States)?;
/// // The chain's centre hangs 5 cm below the origin: 3 cm of tolerance leave 0.05² − 0.03².
/// let loss = TargetRegion::links(&model, &["link0", "link1"], Vector3::zeros(), 0.03)?;
/// assert!((loss.evaluate(&model, &t)?.0 - (0.05f64.powi(2) - 0.03f64.powi(2))).abs() < 1e-9);
/// // With 6 cm the object has arrived: zero loss.
/// let loss = TargetRegion::links(&model, &["link0", "link1"], Vector3::zeros(), 0.06)?;
/// assert_eq!(loss.evaluate(&model, &t)?.0, 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TargetRegion {
    centre: CentreOfMass,
    epsilon: f64,
}

impl TargetRegion {
    /// The centre of mass of the links named `links` reaching `target` to within `epsilon`
    /// (m, finite and non-negative).
    pub fn links(
        model: &Model,
        links: &[&str],
        target: Vector3<f64>,
        epsilon: f64,
    ) -> Result<Self> {
        if !(epsilon.is_finite() && epsilon >= 0.0) {
            return Err(DiffError::InvalidSetting {
                name: "target tolerance epsilon",
                value: epsilon,
                allowed: "finite and non-negative (m)",
            });
        }
        Ok(Self {
            centre: CentreOfMass::links(model, links, target)?,
            epsilon,
        })
    }

    /// The tolerance `ε` (m).
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }
}

impl Loss for TargetRegion {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        let (squared, gradient) = self.centre.evaluate(model, trajectory)?;
        let excess = squared - self.epsilon * self.epsilon;
        if excess > 0.0 {
            Ok((excess, gradient))
        } else {
            Ok((0.0, LossGradient::zeros(model, trajectory.steps())))
        }
    }
}
