//! Fixed tendons: a length that is a linear combination of joint coordinates,
//! `L = Σ cᵢ θᵢ` (MuJoCo's `<fixed>` tendons), with a spring, a damper and limits.
//!
//! A tendon adds to the step objective (SDRS eq. 2-5), with `L^t` its length at step t:
//!
//! ```text
//! ½ k (L − L₀)²  +  d/(2Δt) (L − L^t)²  +  κ_l P(L − L_lo) + κ_l P(L_hi − L)
//! ```
//!
//! the spring's potential, the damper as stable PD writes it (force `d (L − L^t)/Δt`, the
//! damping of the velocity at step t+1), and the joint-limit barrier `P` on the length
//! ([`crate::StepSettings::limit_stiffness`], [`crate::StepSettings::limit_support`]). Its
//! gradient is the scalar force along `c`, its Hessian a rank-one `(k + d/Δt + κ_l P″) c cᵀ`,
//! which couples the joints a tendon spans even on different branches of the tree.
//!
//! MJCF's equality constraints between joints and tendons (`<equality><joint>`,
//! `<equality><tendon>`) are linear in the coordinates and come in as stiff tendons
//! ([`crate::mjcf`]); MJCF actuators on a tendon push along `c`.

use crate::error::{DynamicsError, Result};
use crate::model::{JointKind, Link};
use nalgebra::DVector;

/// A fixed tendon over the revolute and prismatic joints of a model's links.
///
/// ```
/// use sdrs_dynamics::{Tendon, scenes::chain};
/// // Couple the two hinges of a double pendulum: θ₀ − θ₁ held near 0 by a stiff spring.
/// let scene = chain(2, 0.01)?;
/// let tendon = Tendon::new("coupling", vec![(0, 1.0), (1, -1.0)]).with_spring(500.0, 0.0);
/// let model = scene.model.with_tendons(vec![tendon])?;
/// let q = nalgebra::DVector::from_vec(vec![0.3, 0.1]);
/// assert!((model.tendon_length(0, &q) - 0.2).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Tendon {
    /// Name, for messages; unique among a model's tendons.
    pub name: String,
    /// `(link, coefficient)`: the coordinate of each link's revolute or prismatic joint and its
    /// weight in the length (dimensionless, so a length mixes radians and metres as the
    /// coefficients say).
    pub joints: Vec<(usize, f64)>,
    /// Spring stiffness `k` (force per unit length: N·m/rad on angles, N/m on slides); 0 by
    /// default.
    pub stiffness: f64,
    /// The length `L₀` at which the spring is relaxed.
    pub rest: f64,
    /// Damping `d` (force per unit length rate); 0 by default.
    pub damping: f64,
    /// Length limits `(lower, upper)`, enforced by the joint-limit barrier.
    pub limits: Option<(f64, f64)>,
}

impl Tendon {
    /// A tendon without spring, damper or limits over `joints` (`(link, coefficient)`).
    pub fn new(name: impl Into<String>, joints: Vec<(usize, f64)>) -> Self {
        Self {
            name: name.into(),
            joints,
            stiffness: 0.0,
            rest: 0.0,
            damping: 0.0,
            limits: None,
        }
    }

    /// The same tendon with a spring of stiffness `stiffness` relaxed at length `rest`.
    pub fn with_spring(mut self, stiffness: f64, rest: f64) -> Self {
        (self.stiffness, self.rest) = (stiffness, rest);
        self
    }

    /// The same tendon with damping `damping`.
    pub fn with_damping(mut self, damping: f64) -> Self {
        self.damping = damping;
        self
    }

    /// The same tendon with length limits.
    pub fn with_limits(mut self, lower: f64, upper: f64) -> Self {
        self.limits = Some((lower, upper));
        self
    }

    /// The tendon with its links moved by `offset` (its model's links placed after `offset`
    /// others) and its name prefixed, as a world adds a robot.
    pub fn placed(mut self, offset: usize, prefix: &str) -> Self {
        for (link, _) in &mut self.joints {
            *link += offset;
        }
        if !prefix.is_empty() {
            self.name = format!("{prefix}{}", self.name);
        }
        self
    }

    /// The tendon's `(DoF, coefficient)` terms in a model whose links are `links` with DoF
    /// offsets `offsets`, after checking it.
    pub(crate) fn resolve(&self, links: &[Link], offsets: &[usize]) -> Result<Vec<(usize, f64)>> {
        let bad = |message: String| DynamicsError::BadTendon {
            tendon: self.name.clone(),
            message,
        };
        if self.joints.is_empty() {
            return Err(bad("it spans no joint".into()));
        }
        let mut terms = Vec::with_capacity(self.joints.len());
        for &(link, coefficient) in &self.joints {
            let l = links.get(link).ok_or_else(|| {
                bad(format!(
                    "link index {link} is out of range (the model has {} links)",
                    links.len()
                ))
            })?;
            if !matches!(
                l.joint,
                JointKind::Revolute { .. } | JointKind::Prismatic { .. }
            ) {
                return Err(bad(format!(
                    "joint '{}' is not revolute or prismatic (a fixed tendon spans 1-DoF joints)",
                    l.joint_label()
                )));
            }
            if !coefficient.is_finite() {
                return Err(bad(format!(
                    "the coefficient of joint '{}' is {coefficient} (must be finite)",
                    l.joint_label()
                )));
            }
            terms.push((offsets[link], coefficient));
        }
        for (what, value) in [("stiffness", self.stiffness), ("damping", self.damping)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(bad(format!("{what} {value} must be finite and >= 0")));
            }
        }
        if !self.rest.is_finite() {
            return Err(bad(format!("rest length {} must be finite", self.rest)));
        }
        if let Some((lower, upper)) = self.limits
            && !(lower.is_finite() && upper.is_finite() && lower < upper)
        {
            return Err(bad(format!(
                "limits ({lower}, {upper}) must be finite with lower < upper"
            )));
        }
        Ok(terms)
    }
}

/// `L = Σ cᵢ qᵢ` of a tendon's `(DoF, coefficient)` terms.
pub(crate) fn length(terms: &[(usize, f64)], q: &DVector<f64>) -> f64 {
    terms.iter().map(|&(j, c)| c * q[j]).sum()
}
