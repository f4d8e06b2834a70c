//! Task files for `sdrs optimise` (TOML): a scene, a policy on named joints, optional design
//! parameters on named links, a weighted sum of built-in losses, an optimiser and its
//! iterations. Unknown keys are refused. The optimisation starts at rest in the scene's
//! start configuration (start velocities of objects are not used) and keeps the scene's PD
//! gains; the policy replaces the targets of the joints it drives.
//!
//! ```toml
//! scene = "chain_reach_scene.toml" # relative to the task file
//! steps = 60                       # horizon (default: the scene's `steps`)
//! iterations = 20
//!
//! [policy]
//! kind = "cubic_spline"            # or "sine_waves" (`waves` per joint)
//! joints = ["carriage_slide"]
//! points = 4
//! lower = -0.3                     # one value for every parameter, or one per parameter
//! upper = 0.3
//!
//! [[design]]                       # optional: link-length changes (m)
//! link_length = "left_link0"
//! lower = -0.04
//! upper = 0.08
//!
//! [[loss]]
//! kind = "point_target"            # or "com_target", "effort"
//! link = "left_link2"
//! point = [0.0, 0.0, -0.1]
//! target = [0.3, 0.0, 0.75]
//!
//! [optimiser]
//! method = "trust_region"          # or "adam" (`learning_rate`, optional `decay_to`)
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::CliError;

/// A whole task file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// The scene file, relative to the task file.
    pub scene: PathBuf,
    /// The horizon in steps; the scene's `steps` when absent.
    pub steps: Option<usize>,
    /// Optimiser iterations.
    pub iterations: usize,
    /// Output folder name under `target/sdrs-out/` (the task file's stem when absent).
    pub name: Option<String>,
    /// The control policy and the bounds of its parameters.
    pub policy: PolicyTask,
    /// Design parameters (link-length changes).
    #[serde(default)]
    pub design: Vec<DesignTask>,
    /// The loss: a weighted sum of these terms.
    pub loss: Vec<LossTask>,
    /// The optimiser.
    #[serde(default)]
    pub optimiser: OptimiserTask,
}

/// A scalar for every parameter, or one value per parameter.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Values {
    /// The same value for each.
    One(f64),
    /// One value per parameter.
    Each(Vec<f64>),
}

impl Values {
    /// The values for `n` parameters; `what` names them in errors.
    pub fn expand(&self, n: usize, what: &str) -> Result<Vec<f64>, String> {
        let values = match self {
            Values::One(v) => vec![*v; n],
            Values::Each(v) if v.len() == n => v.clone(),
            Values::Each(v) => {
                return Err(format!(
                    "{what} has {} values; give one number or {n} (one per parameter)",
                    v.len()
                ));
            }
        };
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(format!("{what}[{i}] must be finite"));
        }
        Ok(values)
    }
}

/// How the policy's targets move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    /// The joints' PD targets follow a cubic B-spline with `points` control values per joint
    /// over the horizon (absolute positions, rad or m).
    CubicSpline,
    /// `waves` sines per joint added to the scene's targets, parameters `(a, ω, φ)` each.
    SineWaves,
}

/// `[policy]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyTask {
    /// Spline or sines.
    pub kind: PolicyKind,
    /// The driven 1-DoF joints, by name.
    pub joints: Vec<String>,
    /// Spline values per joint (at least 4).
    #[serde(default)]
    pub points: Option<usize>,
    /// Sines per joint.
    #[serde(default)]
    pub waves: Option<usize>,
    /// Lower bounds of the parameters.
    pub lower: Values,
    /// Upper bounds of the parameters.
    pub upper: Values,
    /// Start values of the parameters (zero when absent; must lie within the bounds).
    #[serde(default)]
    pub start: Option<Values>,
}

/// One `[[design]]` parameter: a link's length change (m) within bounds, starting at 0.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DesignTask {
    /// The link whose length changes.
    pub link_length: String,
    /// Lower bound (m, at most 0).
    pub lower: f64,
    /// Upper bound (m, at least 0).
    pub upper: f64,
}

/// One `[[loss]]` term.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossTask {
    /// A point fixed in a link reaching a world target: `|p − target|²` at the end, or summed
    /// over every step with `every_step = true`.
    PointTarget {
        /// The link.
        link: String,
        /// The point in the link's frame (m).
        #[serde(default)]
        point: [f64; 3],
        /// The target in the world (m).
        target: [f64; 3],
        /// Sum over every step instead of the final state alone.
        #[serde(default)]
        every_step: bool,
        /// The term's weight.
        #[serde(default = "one")]
        weight: f64,
    },
    /// The centre of mass of some links (all when `links` is absent) reaching a target, at the
    /// end or (`every_step = true`) summed over every step.
    ComTarget {
        /// The links; the whole model when absent.
        #[serde(default)]
        links: Option<Vec<String>>,
        /// The target in the world (m).
        target: [f64; 3],
        /// Sum over every step instead of the final state alone.
        #[serde(default)]
        every_step: bool,
        /// The term's weight.
        #[serde(default = "one")]
        weight: f64,
    },
    /// Control effort: `torque · Σ|τ|² + target_change · Σ|Δθ*|²`.
    Effort {
        /// Weight of the squared generalized forces.
        #[serde(default)]
        torque: f64,
        /// Weight of the squared changes of the PD targets between steps.
        #[serde(default)]
        target_change: f64,
    },
}

fn one() -> f64 {
    1.0
}

/// `[optimiser]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum OptimiserTask {
    /// The trust-region projected step of SDRS eq. 15 (`sdrs::diff::minimise`): radii per
    /// block (policy, design) that grow by 1.5 on success and halve otherwise.
    TrustRegion {
        /// Initial step-norm bound of the policy parameters.
        #[serde(default = "policy_radius")]
        radius: f64,
        /// Largest step-norm bound of the policy parameters.
        #[serde(default = "policy_max_radius")]
        max_radius: f64,
        /// Initial step-norm bound of the design parameters (m).
        #[serde(default = "design_radius")]
        design_radius: f64,
        /// Largest step-norm bound of the design parameters (m).
        #[serde(default = "design_max_radius")]
        design_max_radius: f64,
    },
    /// Adam on all parameters together, each iterate clamped into the bounds.
    Adam {
        /// Step size.
        learning_rate: f64,
        /// If given, the step size decays geometrically to `learning_rate · decay_to` over
        /// the iterations (`sdrs::diff::Adam::with_decay`), in (0, 1].
        #[serde(default)]
        decay_to: Option<f64>,
    },
}

fn policy_radius() -> f64 {
    0.05
}
fn policy_max_radius() -> f64 {
    0.2
}
fn design_radius() -> f64 {
    0.02
}
fn design_max_radius() -> f64 {
    0.05
}

impl Default for OptimiserTask {
    /// The trust region with radius 0.05 (max 0.2) for the policy and 0.02 m (max 0.05 m) for
    /// the design.
    fn default() -> Self {
        OptimiserTask::TrustRegion {
            radius: policy_radius(),
            max_radius: policy_max_radius(),
            design_radius: design_radius(),
            design_max_radius: design_max_radius(),
        }
    }
}

impl Task {
    /// Reads and checks the task file at `path`; the scene path becomes relative to the
    /// current folder.
    pub fn from_file(path: &Path) -> Result<Self, CliError> {
        crate::error::existing(path)?;
        let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
            path: path.to_owned(),
            source,
        })?;
        let mut task: Task = toml::from_str(&text).map_err(|e| CliError::Task {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        task.scene = path.parent().unwrap_or(Path::new(".")).join(&task.scene);
        task.check().map_err(|message| CliError::Task {
            path: path.to_owned(),
            message,
        })?;
        Ok(task)
    }

    fn check(&self) -> Result<(), String> {
        if self.iterations == 0 {
            return Err("iterations must be at least 1".into());
        }
        if self.steps == Some(0) {
            return Err("steps must be at least 1".into());
        }
        if self.policy.joints.is_empty() {
            return Err("policy.joints must name at least one joint".into());
        }
        match self.policy.kind {
            PolicyKind::CubicSpline if self.policy.points.is_none() => {
                return Err("policy.points is required for kind = \"cubic_spline\"".into());
            }
            PolicyKind::SineWaves if self.policy.waves.is_none_or(|w| w == 0) => {
                return Err(
                    "policy.waves (at least 1) is required for kind = \"sine_waves\"".into(),
                );
            }
            _ => {}
        }
        if self.loss.is_empty() {
            return Err("at least one [[loss]] term is required".into());
        }
        for (i, d) in self.design.iter().enumerate() {
            if !(d.lower <= 0.0 && d.upper >= 0.0 && d.lower.is_finite() && d.upper.is_finite()) {
                return Err(format!(
                    "design[{i}] bounds [{}, {}] must be finite and contain 0 (the current length)",
                    d.lower, d.upper
                ));
            }
        }
        let positive = |v: f64| v.is_finite() && v > 0.0;
        match self.optimiser {
            OptimiserTask::TrustRegion {
                radius,
                max_radius,
                design_radius,
                design_max_radius,
            } => {
                if ![radius, max_radius, design_radius, design_max_radius]
                    .into_iter()
                    .all(positive)
                {
                    return Err("optimiser radii must be positive and finite".into());
                }
            }
            OptimiserTask::Adam { learning_rate, .. } if !positive(learning_rate) => {
                return Err("optimiser.learning_rate must be positive and finite".into());
            }
            OptimiserTask::Adam {
                decay_to: Some(to), ..
            } if !(to > 0.0 && to <= 1.0) => {
                return Err(format!(
                    "optimiser.decay_to is {to}: give the final fraction of the learning rate, \
                     in (0, 1]"
                ));
            }
            OptimiserTask::Adam { .. } => {}
        }
        Ok(())
    }
}
