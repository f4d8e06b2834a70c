//! A batch of environments of one model stepped together on all cores: the engine under
//! `sdrs.torch.step` and the vector environments.
//!
//! Each environment has its own [`Simulator`], so its warm starts (separating planes, friction
//! solves) follow its own motion; [`StepBatch::reset`] makes an environment's next step
//! depend on its inputs alone. Environments run in parallel (rayon) and their results do not
//! depend on the number of threads.

use crate::coordinate_step::{CoordinateStep, step_coordinates};
use crate::error::{DiffError, Result};
use nalgebra::DVector;
use rayon::prelude::*;
use sdrs_dynamics::{Control, Model, Simulator};

/// `B` simulators of one model with the same settings.
///
/// ```
/// use sdrs_diff::StepBatch;
/// use sdrs_dynamics::scenes::chain;
/// use sdrs_dynamics::Simulator;
/// use nalgebra::DVector;
/// let mut scene = chain(2, 0.01)?;
/// scene.settings.backward = true;
/// let sim = Simulator::new(scene.model.clone(), scene.settings)?;
/// let mut batch = StepBatch::new(&sim, 3)?;
/// // Three pendulums released from rest at different angles.
/// let q: Vec<_> = (0..3).map(|b| DVector::from_vec(vec![0.1 * b as f64, 0.0])).collect();
/// let steps = batch.step(&q, &q, &vec![scene.control; 3])?;
/// assert!(steps[0].next[0].abs() < 1e-12 && steps[2].next[0] < 0.2); // the hanging one stays
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct StepBatch {
    simulators: Vec<Simulator>,
}

impl StepBatch {
    /// `size` copies of `sim` (its model, settings and contact), each without warm starts.
    pub fn new(sim: &Simulator, size: usize) -> Result<Self> {
        if size == 0 {
            return Err(DiffError::InvalidInput {
                what: "batch size",
                reason: "a batch needs at least one environment".into(),
            });
        }
        let mut first = sim.clone();
        first.reset();
        Ok(Self {
            simulators: vec![first; size],
        })
    }

    /// The number of environments.
    pub fn len(&self) -> usize {
        self.simulators.len()
    }

    /// Whether the batch is empty (never: [`StepBatch::new`] refuses that).
    pub fn is_empty(&self) -> bool {
        self.simulators.is_empty()
    }

    /// The model the environments simulate.
    pub fn model(&self) -> &Model {
        self.simulators[0].model()
    }

    /// The simulators' settings.
    pub fn settings(&self) -> &sdrs_dynamics::StepSettings {
        self.simulators[0].settings()
    }

    /// Forgets the warm starts of the environments `which` (every one for `None`).
    pub fn reset(&mut self, which: Option<&[usize]>) -> Result<()> {
        match which {
            None => self.simulators.iter_mut().for_each(Simulator::reset),
            Some(which) => {
                for &b in which {
                    let len = self.len();
                    self.simulators
                        .get_mut(b)
                        .ok_or(DiffError::OutOfRange {
                            what: "environment",
                            index: b,
                            len,
                        })?
                        .reset();
                }
            }
        }
        Ok(())
    }

    /// Rebuilds every environment for the model with design vector `design`
    /// ([`Model::with_design`]), with the same settings, and without warm starts.
    pub fn set_design(&mut self, design: &DVector<f64>) -> Result<()> {
        let model = self
            .model()
            .with_design(design)
            .map_err(|source| DiffError::Design { source })?;
        let sim = Simulator::new(model, self.settings().clone())
            .map_err(|source| DiffError::Design { source })?;
        *self = Self::new(&sim, self.len())?;
        Ok(())
    }

    /// One step of every environment `b` from the coordinate pair (`previous[b]`,
    /// `current[b]`) under `controls[b]` ([`step_coordinates`]), in parallel. The first
    /// environment that fails is reported with its index.
    pub fn step(
        &mut self,
        previous: &[DVector<f64>],
        current: &[DVector<f64>],
        controls: &[Control],
    ) -> Result<Vec<CoordinateStep>> {
        self.step_each(previous, current, controls)?
            .into_iter()
            .enumerate()
            .map(|(index, step)| {
                step.map_err(|e| DiffError::Environment {
                    index,
                    source: Box::new(e),
                })
            })
            .collect()
    }

    /// As [`StepBatch::step`], with each environment's own result: a failed step (a Newton
    /// solve that does not converge, say) leaves the others' results standing. The outer
    /// error is for inputs that do not fit the batch.
    pub fn step_each(
        &mut self,
        previous: &[DVector<f64>],
        current: &[DVector<f64>],
        controls: &[Control],
    ) -> Result<Vec<Result<CoordinateStep>>> {
        let size = self.len();
        for (what, len) in [
            (
                "previous coordinates (one vector per environment)",
                previous.len(),
            ),
            (
                "current coordinates (one vector per environment)",
                current.len(),
            ),
            ("controls (one per environment)", controls.len()),
        ] {
            if len != size {
                return Err(DiffError::LengthMismatch {
                    what,
                    actual: len,
                    expected: size,
                });
            }
        }
        Ok(self
            .simulators
            .par_iter_mut()
            .enumerate()
            .map(|(b, sim)| step_coordinates(sim, &previous[b], &current[b], &controls[b]))
            .collect())
    }
}
