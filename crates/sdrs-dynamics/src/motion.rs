//! A running simulation's state between steps: the configuration and the link poses one step
//! earlier, which carry its velocity.

use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use nalgebra::Isometry3;

/// A running simulation: the configuration θ^t and the link poses one step earlier, which the
/// inertial term of the next step needs ([`crate::Simulator::advance`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// θ^t.
    pub state: State,
    /// Link poses at t−1.
    pub previous: Vec<Isometry3<f64>>,
}

impl Motion {
    /// `state` at rest: the poses one step earlier are its own.
    pub fn at_rest(model: &Model, state: State) -> Self {
        let previous = Kinematics::new(model, &state).poses().to_vec();
        Self { state, previous }
    }
}
