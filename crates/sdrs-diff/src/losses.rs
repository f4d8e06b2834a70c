//! Built-in losses: a link point or a centre of mass reaching a target, the distance between
//! two link points, a point's position in another link's frame (each at the final state or
//! summed over every step, [`When`]), and control effort.

use crate::adjoint::LossGradient;
use crate::design::link_named;
use crate::error::{DiffError, Result};
use crate::loss::Loss;
use crate::point::{LinkPoint, Pullback};
use crate::trajectory::Trajectory;
use nalgebra::{Point3, Vector3};
use sdrs_dynamics::{MassModel, Model};

/// Which states a state loss measures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum When {
    /// The final state `θ^H` alone.
    #[default]
    Final,
    /// Every state the steps produce, summed: `Σ_{t=1…H} l(θ^t)` (a running cost).
    EveryStep,
}

/// A loss of states: `value(pullback)` returns one state's term and feeds the pullback the
/// gradients of the points and poses it reads; the terms of the states `when` asks for add.
fn state_loss(
    model: &Model,
    trajectory: &Trajectory,
    when: When,
    value: impl Fn(&mut Pullback) -> f64,
) -> (f64, LossGradient) {
    let steps = trajectory.steps();
    let first = match when {
        When::Final => steps,
        When::EveryStep => 1,
    };
    let mut gradient = LossGradient::zeros(model, steps);
    let mut total = 0.0;
    for t in first..=steps {
        let mut pullback = Pullback::new(model, &trajectory.states[t]);
        total += value(&mut pullback);
        let (coordinates, design) = pullback.finish();
        gradient.states[t] = coordinates;
        gradient.design += design;
    }
    (total, gradient)
}

/// Checks that a target vector is finite.
fn check_target(what: &'static str, target: &Vector3<f64>) -> Result<()> {
    match target.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(DiffError::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// `|p(θ^H, d) − target|²`: a link point reaching a world target at the end (or, with
/// [`PointTarget::every_step`], tracking it: `Σ_t |p(θ^t, d) − target|²`; with
/// [`PointTarget::weighted`], each axis's squared miss weighted: `Σ_i w_i (p_i − target_i)²`).
///
/// ```
/// use sdrs_diff::{Loss, PointTarget, Recording, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// use nalgebra::{Point3, Vector3};
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 2], Recording::States)?;
/// // The tip hangs at z = −0.2 and stays there: 10 cm from a target at z = −0.1.
/// let loss = PointTarget::new(&model, "link1", Point3::new(0.0, 0.0, -0.1), Vector3::new(0.0, 0.0, -0.1))?;
/// assert!((loss.evaluate(&model, &t)?.0 - 0.01).abs() < 1e-9);
/// // Over both steps: twice that.
/// let both = loss.clone().every_step();
/// assert!((both.evaluate(&model, &t)?.0 - 0.02).abs() < 1e-9);
/// // The height alone (a miss along z only), weighted 3: 3 · (10 cm)².
/// let height = loss.weighted(Vector3::new(0.0, 0.0, 3.0))?;
/// assert!((height.evaluate(&model, &t)?.0 - 0.03).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PointTarget {
    point: LinkPoint,
    target: Vector3<f64>,
    weights: Vector3<f64>,
    when: When,
}

impl PointTarget {
    /// Summed over every step instead of at the final state alone ([`When::EveryStep`]).
    pub fn every_step(mut self) -> Self {
        self.when = When::EveryStep;
        self
    }

    /// Each axis's squared miss weighted by `weights` (world axes; 1, 1, 1 unless set), e.g.
    /// `(0, 0, 1)` for a height alone. Weights must be finite and non-negative.
    pub fn weighted(mut self, weights: Vector3<f64>) -> Result<Self> {
        check_target("point target weights", &weights)?;
        if let Some(index) = weights.iter().position(|&w| w < 0.0) {
            return Err(DiffError::InvalidInput {
                what: "point target weights",
                reason: format!(
                    "weight {index} is {}: weights must be non-negative",
                    weights[index]
                ),
            });
        }
        self.weights = weights;
        Ok(self)
    }

    /// `point` fixed in the frame of the link named `link`, reaching `target`.
    pub fn new(
        model: &Model,
        link: &str,
        point: Point3<f64>,
        target: Vector3<f64>,
    ) -> Result<Self> {
        Self::at(LinkPoint::fixed(model, link, point)?, target)
    }

    /// Any [`LinkPoint`] (e.g. a vertex mean that moves with the design) reaching `target`.
    pub fn at(point: LinkPoint, target: Vector3<f64>) -> Result<Self> {
        check_target("point target", &target)?;
        Ok(Self {
            point,
            target,
            weights: Vector3::repeat(1.0),
            when: When::Final,
        })
    }
}

impl Loss for PointTarget {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        self.point.check(model)?;
        Ok(state_loss(model, trajectory, self.when, |pull| {
            let miss = self.point.world(model, pull.kinematics()).coords - self.target;
            let weighted = self.weights.component_mul(&miss);
            pull.point(&self.point, &(2.0 * weighted));
            weighted.dot(&miss)
        }))
    }
}

/// `|c(θ^H, d) − target|²` for the centre of mass `c` of some links (one body, a set, or the
/// whole robot) at the end.
///
/// A lumped link's centre moves with its vertices (the mean of them all), which is a design
/// partial; a solid or given-moment link's centre is held in its frame (the steps provide no
/// vertex derivatives for solid masses either, so the design gradient is `None` then).
///
/// ```
/// use sdrs_diff::{CentreOfMass, Loss, Recording, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// use nalgebra::Vector3;
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 2], Recording::States)?;
/// // Two equal boxes centred on their joints, 0 and 10 cm down: the centre is 5 cm down.
/// let loss = CentreOfMass::robot(&model, Vector3::zeros())?;
/// assert!((loss.evaluate(&model, &t)?.0 - 0.05f64.powi(2)).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CentreOfMass {
    links: Vec<usize>,
    target: Vector3<f64>,
    when: When,
}

impl CentreOfMass {
    /// Summed over every step instead of at the final state alone ([`When::EveryStep`]).
    pub fn every_step(mut self) -> Self {
        self.when = When::EveryStep;
        self
    }

    /// The links named `links` together.
    pub fn links(model: &Model, links: &[&str], target: Vector3<f64>) -> Result<Self> {
        let links = links
            .iter()
            .map(|name| link_named(model, name))
            .collect::<Result<Vec<_>>>()?;
        Self::new(model, links, target)
    }

    /// The whole robot (every link with mass).
    pub fn robot(model: &Model, target: Vector3<f64>) -> Result<Self> {
        Self::new(model, (0..model.links().len()).collect(), target)
    }

    fn new(model: &Model, links: Vec<usize>, target: Vector3<f64>) -> Result<Self> {
        check_target("centre-of-mass target", &target)?;
        let mass: f64 = links.iter().map(|&l| model.mass(l)).sum();
        if !(mass > 0.0) {
            return Err(DiffError::InvalidInput {
                what: "centre of mass",
                reason: format!("the links {links:?} have no mass: at least one must have some"),
            });
        }
        Ok(Self {
            links,
            target,
            when: When::Final,
        })
    }
}

impl Loss for CentreOfMass {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        if let Some(&index) = self.links.iter().find(|&&l| l >= model.links().len()) {
            return Err(DiffError::OutOfRange {
                what: "centre-of-mass link",
                index,
                len: model.links().len(),
            });
        }
        let masses: Vec<f64> = self.links.iter().map(|&l| model.mass(l)).collect();
        let total: f64 = masses.iter().sum();
        Ok(state_loss(model, trajectory, self.when, |pull| {
            // Each link's centre in the world: T (first moment / mass).
            let centres: Vec<Point3<f64>> = self
                .links
                .iter()
                .zip(&masses)
                .map(|(&l, &m)| {
                    let first = model.second_moment(l).fixed_view::<3, 1>(0, 3).into_owned();
                    let local = if m > 0.0 { first / m } else { Vector3::zeros() };
                    pull.pose(l) * Point3::from(local)
                })
                .collect();
            let centre: Vector3<f64> = centres
                .iter()
                .zip(&masses)
                .map(|(c, m)| c.coords * (m / total))
                .sum();
            let miss = centre - self.target;
            for ((&l, &m), c) in self.links.iter().zip(&masses).zip(&centres) {
                let g = 2.0 * miss * (m / total);
                pull.material(l, c, &g);
                if let MassModel::Lumped { .. } = model.links()[l].mass {
                    let hulls = &model.links()[l].hulls;
                    let count: usize = hulls.iter().map(|h| h.vertices().len()).sum();
                    let all = hulls
                        .iter()
                        .enumerate()
                        .flat_map(|(h, hull)| (0..hull.vertices().len()).map(move |v| (h, v)));
                    pull.vertices(l, all, &(g / count as f64));
                }
            }
            miss.norm_squared()
        }))
    }
}

/// `(|p_a − p_b| − distance)²`: relative motion of two link points, their distance reaching
/// `distance` at the end (the gradient of `|p_a − p_b|` is taken as zero where the points
/// coincide).
///
/// ```
/// use sdrs_diff::{Distance, LinkPoint, Loss, Recording, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// use nalgebra::Point3;
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 2], Recording::States)?;
/// let a = LinkPoint::fixed(&model, "link0", Point3::origin())?;
/// let b = LinkPoint::fixed(&model, "link1", Point3::origin())?;
/// // The joints are 10 cm apart.
/// assert!(Distance::new(a, b, 0.1)?.evaluate(&model, &t)?.0 < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Distance {
    a: LinkPoint,
    b: LinkPoint,
    distance: f64,
    when: When,
}

impl Distance {
    /// Summed over every step instead of at the final state alone ([`When::EveryStep`]).
    pub fn every_step(mut self) -> Self {
        self.when = When::EveryStep;
        self
    }

    /// Points `a` and `b` reaching distance `distance ≥ 0` (m).
    pub fn new(a: LinkPoint, b: LinkPoint, distance: f64) -> Result<Self> {
        if !(distance.is_finite() && distance >= 0.0) {
            return Err(DiffError::InvalidSetting {
                name: "target distance",
                value: distance,
                allowed: "finite and at least 0",
            });
        }
        Ok(Self {
            a,
            b,
            distance,
            when: When::Final,
        })
    }
}

impl Loss for Distance {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        self.a.check(model)?;
        self.b.check(model)?;
        Ok(state_loss(model, trajectory, self.when, |pull| {
            let kin = pull.kinematics();
            let gap = self.a.world(model, kin) - self.b.world(model, kin);
            let r = gap.norm();
            let unit = gap.try_normalize(0.0).unwrap_or_else(Vector3::zeros);
            let g = 2.0 * (r - self.distance) * unit;
            pull.point(&self.a, &g);
            pull.point(&self.b, &-g);
            (r - self.distance).powi(2)
        }))
    }
}

/// `|R_fᵀ (p − t_f) − target|²`: a link point's position in another link's frame `f`
/// reaching `target` (in that frame) at the end — one link's pose relative to another.
///
/// ```
/// use sdrs_diff::{LinkPoint, Loss, Recording, RelativePosition, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// use nalgebra::{Point3, Vector3};
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 2], Recording::States)?;
/// let joint = LinkPoint::fixed(&model, "link1", Point3::origin())?;
/// // link1's joint is 10 cm below link0's, whatever link0's angle.
/// let loss = RelativePosition::new(&model, joint, "link0", Vector3::new(0.0, 0.0, -0.1))?;
/// assert!(loss.evaluate(&model, &t)?.0 < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RelativePosition {
    point: LinkPoint,
    frame: usize,
    target: Vector3<f64>,
    when: When,
}

impl RelativePosition {
    /// Summed over every step instead of at the final state alone ([`When::EveryStep`]).
    pub fn every_step(mut self) -> Self {
        self.when = When::EveryStep;
        self
    }

    /// `point` seen from the link named `frame`, reaching `target` in that link's frame.
    pub fn new(model: &Model, point: LinkPoint, frame: &str, target: Vector3<f64>) -> Result<Self> {
        check_target("relative-position target", &target)?;
        Ok(Self {
            point,
            frame: link_named(model, frame)?,
            target,
            when: When::Final,
        })
    }
}

impl Loss for RelativePosition {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        self.point.check(model)?;
        if self.frame >= model.links().len() {
            return Err(DiffError::OutOfRange {
                what: "relative-position frame link",
                index: self.frame,
                len: model.links().len(),
            });
        }
        Ok(state_loss(model, trajectory, self.when, |pull| {
            let frame = pull.pose(self.frame);
            let p = self.point.world(model, pull.kinematics());
            let arm = p.coords - frame.translation.vector;
            let miss = frame.rotation.inverse() * arm - self.target;
            // With G = dL/d(local) and g = R G: dL = g·δp − g·v − ω·(arm × g).
            let g = frame.rotation * (2.0 * miss);
            pull.point(&self.point, &g);
            pull.twist(self.frame, &-g, &-arm.cross(&g));
            miss.norm_squared()
        }))
    }
}

/// Control effort: `w_τ Σ_t |τ^t|² + w_u Σ_{t≥1} |θ*^t − θ*^{t−1}|²`, the generalized
/// forces' squares and the PD position targets' changes between steps.
///
/// ```
/// use sdrs_diff::{Effort, Loss, Recording, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// let scene = chain(1, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let (mut a, mut b) = (scene.control.clone(), scene.control.clone());
/// (a.position[0], b.position[0]) = (0.0, 0.3);
/// let t = rollout(&mut sim, &start, &[a, b], Recording::States)?;
/// let (value, g) = Effort::new(0.0, 2.0).evaluate(&model, &t)?;
/// assert!((value - 2.0 * 0.09).abs() < 1e-12);
/// assert!((g.target_position[0][0] + 1.2).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Effort {
    torque: f64,
    target_change: f64,
}

impl Effort {
    /// Weights `torque` on `Σ|τ|²` and `target_change` on `Σ|Δθ*|²`.
    pub fn new(torque: f64, target_change: f64) -> Self {
        Self {
            torque,
            target_change,
        }
    }

    /// `weight · Σ_t |τ^t|²` alone.
    pub fn torque(weight: f64) -> Self {
        Self::new(weight, 0.0)
    }
}

impl Loss for Effort {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        for (index, w) in [self.torque, self.target_change].into_iter().enumerate() {
            if !w.is_finite() {
                return Err(DiffError::NonFinite {
                    what: "effort weights (torque, target change)",
                    index,
                });
            }
        }
        let mut gradient = LossGradient::zeros(model, trajectory.steps());
        let mut value = 0.0;
        for (t, u) in trajectory.controls.iter().enumerate() {
            value += self.torque * u.force.norm_squared();
            gradient.force[t] = 2.0 * self.torque * &u.force;
            if let Some(before) = t.checked_sub(1) {
                let change = &u.position - &trajectory.controls[before].position;
                value += self.target_change * change.norm_squared();
                gradient.target_position[t] += 2.0 * self.target_change * &change;
                gradient.target_position[before] -= 2.0 * self.target_change * &change;
            }
        }
        Ok((value, gradient))
    }
}
