//! The optimisation loop of SDRS sec. V: the projected step of eq. 15 on every parameter
//! block (e.g. control and design), either taken every time with fixed lengths, as the paper
//! does ([`StepRule::Fixed`]; [`StepRule::Plateau`] halves the lengths when no better point
//! comes for a while), or inside a trust region that grows after a step that lowers the loss
//! and shrinks after one that does not ([`StepRule::TrustRegion`]), with a progress callback
//! per iteration.

use crate::error::{DiffError, Result};
use crate::optim::projected_step;
use nalgebra::DVector;
use std::time::{Duration, Instant};

/// One block of parameters: its box and its trust-region radius.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Lower bounds.
    pub lower: DVector<f64>,
    /// Upper bounds.
    pub upper: DVector<f64>,
    /// Initial step-norm bound.
    pub radius: f64,
    /// Largest step-norm bound.
    pub max_radius: f64,
}

/// What the callback sees after each iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Iteration (from 1).
    pub iteration: usize,
    /// The best loss so far.
    pub loss: f64,
    /// The norm of the gradient at the best point (all blocks).
    pub gradient_norm: f64,
    /// The norm of the step tried (all blocks).
    pub step_norm: f64,
    /// Whether the step was taken.
    pub accepted: bool,
    /// The first block's radius after the update.
    pub radius: f64,
    /// Why the objective failed at the trial point, if it did (the step is then not taken).
    pub failure: Option<String>,
    /// Wall time since the start.
    pub elapsed: Duration,
}

impl Progress {
    /// `iteration 12: step not taken: …` when the objective failed at this iteration's trial,
    /// for a log line (a progress display shows only its latest message).
    pub fn failure_note(&self) -> Option<String> {
        let failure = self.failure.as_ref()?;
        Some(format!(
            "iteration {}: step not taken: {failure}",
            self.iteration
        ))
    }
}

/// `loss 1.234e-2  |g| 5.67e-1  step 2.0e-3`: the line a progress bar shows, followed by
/// `  failed: …` and the objective's error when the trial failed.
impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "loss {:.3e}  |g| {:.2e}  step {:.1e}",
            self.loss, self.gradient_norm, self.step_norm
        )?;
        match &self.failure {
            Some(message) => write!(f, "  failed: {message}"),
            None => Ok(()),
        }
    }
}

/// Where an optimisation ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimum<T> {
    /// The best parameters, per block.
    pub parameters: Vec<DVector<f64>>,
    /// The loss there.
    pub loss: f64,
    /// What the objective returned there.
    pub data: T,
    /// The best loss after each iteration (the first entry is the start's).
    pub history: Vec<f64>,
}

/// What an objective returns: loss, gradient per block, and anything else to keep.
pub type Evaluated<T> = (f64, Vec<DVector<f64>>, T);

/// How [`minimise_with`] treats a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepRule {
    /// Every step is taken, with each block's radius as its fixed length (SDRS eq. 15: the
    /// radii are the paper's learning rates `ᾱ_c`, `ᾱ_d`); the best point seen is returned.
    /// A step where the objective fails is not taken and the next is tried at half the
    /// length (again after each failure); once a step succeeds the lengths are the radii
    /// again, so rare failures (a rollout whose Newton solve gives up) do not shrink the rest
    /// of a long run.
    Fixed,
    /// [`StepRule::Fixed`] whose lengths halve, and whose iterate goes back to the best point
    /// so far, whenever `patience` iterations in a row have found no better point (ours, not
    /// the paper's: fixed lengths that suit the start can be too long to make progress near a
    /// minimum, and the iterate they carry away from it rarely comes back).
    Plateau {
        /// Iterations without a new best point before the lengths halve.
        patience: usize,
    },
    /// A step is taken only if it lowers the loss; the radii then grow by 1.5 (up to their
    /// maxima), else they halve.
    TrustRegion,
}

/// Minimises `objective` from `start` for `iterations` trust-region iterations. Each
/// iteration takes the eq. 15 step of every block ([`projected_step`]); a step that lowers
/// the loss is taken and the radii grow by 1.5 (up to their maxima), otherwise, or when the
/// objective fails there (e.g. a design the simulator rejects), they halve. The start must be
/// inside the boxes and the objective must succeed there.
///
/// ```
/// use sdrs_diff::{Block, minimise};
/// use nalgebra::DVector;
/// // min (x − 2)² over x ∈ [0, 1.5]: the optimum is the bound.
/// let block = Block {
///     lower: DVector::from_element(1, 0.0),
///     upper: DVector::from_element(1, 1.5),
///     radius: 0.1,
///     max_radius: 1.0,
/// };
/// let quadratic = |x: &[DVector<f64>]| -> Result<_, String> {
///     let d = x[0][0] - 2.0;
///     Ok((d * d, vec![DVector::from_element(1, 2.0 * d)], ()))
/// };
/// let best = minimise(vec![DVector::zeros(1)], vec![block], quadratic, 30, |_| {})?;
/// assert!((best.parameters[0][0] - 1.5).abs() < 1e-12);
/// # Ok::<(), sdrs_diff::DiffError>(())
/// ```
pub fn minimise<T: Clone, E: std::fmt::Display>(
    start: Vec<DVector<f64>>,
    blocks: Vec<Block>,
    objective: impl FnMut(&[DVector<f64>]) -> std::result::Result<Evaluated<T>, E>,
    iterations: usize,
    progress: impl FnMut(&Progress),
) -> Result<Optimum<T>> {
    minimise_with(
        start,
        blocks,
        objective,
        iterations,
        StepRule::TrustRegion,
        progress,
    )
}

/// [`minimise`] with the given [`StepRule`].
///
/// ```
/// use sdrs_diff::{Block, StepRule, minimise_with};
/// use nalgebra::DVector;
/// // Fixed steps of 0.25 towards the minimum of (x − 1)² from 0: 0.25, 0.5, 0.75, 1.0, then
/// // back and forth across it; the best point is kept.
/// let block = Block {
///     lower: DVector::from_element(1, -5.0),
///     upper: DVector::from_element(1, 5.0),
///     radius: 0.25,
///     max_radius: 0.25,
/// };
/// let quadratic = |x: &[DVector<f64>]| -> Result<_, String> {
///     let d = x[0][0] - 1.0;
///     Ok((d * d, vec![DVector::from_element(1, 2.0 * d)], ()))
/// };
/// let best = minimise_with(vec![DVector::zeros(1)], vec![block], quadratic, 6, StepRule::Fixed, |_| {})?;
/// assert!(best.loss < 1e-12);
/// assert_eq!(best.history.len(), 7);
/// # Ok::<(), sdrs_diff::DiffError>(())
/// ```
pub fn minimise_with<T: Clone, E: std::fmt::Display>(
    start: Vec<DVector<f64>>,
    mut blocks: Vec<Block>,
    mut objective: impl FnMut(&[DVector<f64>]) -> std::result::Result<Evaluated<T>, E>,
    iterations: usize,
    rule: StepRule,
    mut progress: impl FnMut(&Progress),
) -> Result<Optimum<T>> {
    if start.len() != blocks.len() {
        return Err(DiffError::LengthMismatch {
            what: "parameter blocks",
            actual: start.len(),
            expected: blocks.len(),
        });
    }
    for b in &blocks {
        if !(b.radius > 0.0 && b.radius <= b.max_radius && b.max_radius.is_finite()) {
            return Err(DiffError::InvalidSetting {
                name: "trust-region radius",
                value: b.radius,
                allowed: "positive, at most max_radius (finite)",
            });
        }
    }
    let mut lengths: Vec<f64> = blocks.iter().map(|b| b.radius).collect();
    // Iterations since the last new best point (for StepRule::Plateau).
    let mut since_best = 0;
    let clock = Instant::now();
    let (mut loss, mut gradient, mut data) =
        objective(&start).map_err(|e| DiffError::Objective {
            message: e.to_string(),
        })?;
    let mut x = start;
    let mut history = vec![loss];
    let mut best = (x.clone(), loss, gradient.clone(), data.clone());
    for iteration in 1..=iterations {
        let mut trial = Vec::with_capacity(x.len());
        let mut step_norm: f64 = 0.0;
        for ((xb, gb), b) in x.iter().zip(&gradient).zip(&blocks) {
            let step = projected_step(xb, gb, b.radius, &b.lower, &b.upper)?;
            step_norm = step_norm.hypot(step.norm());
            // x + (lower − x) can round below lower: the trial is kept inside its box.
            trial.push((xb + step).zip_zip_map(&b.lower, &b.upper, |v, lo, hi| v.clamp(lo, hi)));
        }
        let mut failure = None;
        let mut improved = false;
        let accepted = match objective(&trial) {
            Ok((l, g, d)) if l < loss || rule != StepRule::TrustRegion => {
                (x, loss, gradient, data) = (trial, l, g, d);
                if loss < best.1 {
                    best = (x.clone(), loss, gradient.clone(), data.clone());
                    improved = true;
                }
                true
            }
            Ok(_) => false,
            Err(e) => {
                failure = Some(e.to_string());
                false
            }
        };
        since_best = if improved { 0 } else { since_best + 1 };
        if let StepRule::Plateau { patience } = rule
            && since_best >= patience.max(1)
        {
            lengths.iter_mut().for_each(|l| *l *= 0.5);
            since_best = 0;
            (x, loss, gradient) = (best.0.clone(), best.1, best.2.clone());
        }
        for (b, length) in blocks.iter_mut().zip(&lengths) {
            b.radius = match (rule, accepted) {
                (StepRule::Fixed | StepRule::Plateau { .. }, true) => *length,
                (StepRule::TrustRegion, true) => (b.radius * 1.5).min(b.max_radius),
                (_, false) => b.radius * 0.5,
            };
        }
        history.push(best.1);
        progress(&Progress {
            iteration,
            loss: best.1,
            gradient_norm: gradient_norm(&best.2),
            step_norm,
            accepted,
            radius: blocks[0].radius,
            failure,
            elapsed: clock.elapsed(),
        });
    }
    let (parameters, loss, _, data) = best;
    Ok(Optimum {
        parameters,
        loss,
        data,
        history,
    })
}

/// The norm of a gradient over all blocks.
fn gradient_norm(gradient: &[DVector<f64>]) -> f64 {
    gradient.iter().fold(0.0, |a, g| a.hypot(g.norm()))
}
