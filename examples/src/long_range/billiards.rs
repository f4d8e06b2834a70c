//! The long-range paper's Billiards benchmark (sec. 6, Fig. 5; appendix A.6.2, Table 3):
//! control the red (cue) ball's initial horizontal position and velocity (4 parameters) so
//! that two balls chosen at random (seeded) end within `ε` of random targets; loss
//! `Σ ReLU(|x_COM − x*|² − ε²)` ([`TargetRegion`]), H = 100 frames of Δt = 0.04 s, Adam at
//! α = 3e-2 with (β₁, β₂) = (0.3, 0.5), potential coefficient μ = 1e-7.
//!
//! **Table.** The paper's balls roll on a frictionless table. Without friction the table only
//! carries the weight, so the motion in the plane is that of balls floating without gravity;
//! we simulate that (no ground, `gravity = 0`), which removes the ball-ground triangle pairs,
//! the bulk of the contact cost (the `billiards` example with the ground takes about 8 s a
//! step at 16 balls on this machine).
//!
//! **Gradients of the initial velocity.** The velocity enters through the poses one step
//! before the start, `T^{−1} = T(θ^0 − v Δt)`: the adjoint gives `dL/dθ^0` (those poses held)
//! and `dL/dξ^{−1}` (their twists), which [`pose_adjoint`] maps to coordinates `g`, so
//! `dL/dx = dL/dθ^0_x + g_x` and `dL/dv_x = −Δt g_x`.
//!
//! **The rack.** The potential has a global support, so racked balls push each other apart by
//! themselves: 1 cm apart (4 balls, 80-triangle meshes, 100 frames of 0.04 s) a ball drifts
//! 1.17 m, 10 cm apart 0.20 m, 15 cm apart 5.7 cm. The rack is therefore spread, [`GAP`] =
//! 20 cm between neighbours, where the drift is 1.5 mm with steps solved to 1e-12 (at the
//! default Newton tolerance the push is below the solve's stop and the rack does not move).
//!
//! **Targets.** The paper draws the two balls and their targets at random; one shot may not
//! reach them, so no method can bring the loss to 0. [`Billiards::reachable`] draws targets a
//! shot does reach (under the long-range model), so that success is possible
//! (`long_range_billiards --targets reachable`).
//!
//! **Measured at the paper's scale** (16 balls of 320 triangles, 100 frames of 0.04 s, 400
//! iterations, every method from the same guesses (the same controls, so the same start loss from
//! the trivial start; a random guess's shot hits differently under each contact model) with the
//! same bounded Adam, its step decaying to α/10; 7.5 min for all eight runs on 2 cores beside
//! builds and tests, 0.16-0.23 s per long-range iteration of 100 frames forward and back, i.e.
//! 1.6-2.3 ms per frame for 5120 triangles in all, against the paper's 0.6 s per frame for 512
//! triangles and 3.18 s for 6208 (its appendix, "average time per frame" of the full optimisation);
//! `long_range_billiards --targets reachable`):
//!
//! | start | long-range | IPC | SDRS hulls | gradient bundle |
//! |---|---|---|---|---|
//! | trivial | 0.4209 → **0, both balls within ε (iteration 214)** | 0.4209, gradient 0 | 0.4209, gradient 0 | 0.4209, gradient 0 |
//! | random | 2.081 → **0 (210)** | 1.301 → 0.4209 (6; then misses, gradient 0) | 0.822 → 0.4157 (3; then misses) | 0.822 → best 0.089 (43) |
//!
//! With the paper's random targets (`long_range_billiards`, the same settings, 7.6 min):
//!
//! | start | long-range | IPC | SDRS hulls | gradient bundle |
//! |---|---|---|---|---|
//! | trivial | 0.0717 → best 0.0153 (105) | 0.0717, gradient 0 | 0.0717, gradient 0 | 0.0717 → best 0.0239 (183) |
//! | random | 0.0504 → best 0.0376 (315) | 0.928 → 0.0717 (20; then misses) | 0.708 → 0.0717 (6; then misses) | 0.708 → best 0.0275 (193) |
//!
//! Here some of the bundle's samples (σ = 0.05 m/s) give a non-zero gradient from the trivial
//! start, where with the reachable targets none did. Under the constant step the long-range
//! rows were 0.0156 (176) and 0.0162 (109): these targets may be out of any shot's reach, and
//! no run of any method gets both balls within ε.
//!
//! As in the paper's Fig. 5, the long-range model makes progress from the trivial start where
//! IPC and the SDRS hulls cannot, and with reachable targets it is the only method that
//! succeeds, from both starts.
//!
//! **Adam's step decays** ([`DECAY_TO`], ours; `--decay-to 1` is the paper's constant step).
//! Adam divides by the gradient's running size, so with the paper's (β₁, β₂) = (0.3, 0.5)
//! every step has about the length α however close the shot is: at α = 3e-2 (3 cm and
//! 3 cm/s) the cue's parameters circle near-solutions and the loss jumps between hits and
//! misses to the end. Decaying the step geometrically to α/10 over the run lets it settle
//! ([`sdrs::diff::Adam::with_decay`]). Long-range model only, reachable targets, 16 balls,
//! 400 iterations, best loss (iteration of the first 0), measured with a scratch loop:
//!
//! | seed, start | constant α | to α/10 | to α/30 | to α/100 |
//! |---|---|---|---|---|
//! | 0, trivial | 9.3e-5 | **0 (214)** | 0 (288) | 0 (97) |
//! | 0, random | 2.2e-3 | **0 (210)** | 0.417 | 0.416 |
//! | 1, trivial | 1.2e-3 | **0 (221)** | 2.7e-3 | 3.6e-3 |
//! | 1, random | 1.3e-3 | 8.3e-4 | 4.8e-3 | 5.9e-3 |
//! | 2, trivial | 1.2e-3 | 1.6e-3 | 1.2e-3 | 7.9e-4 |
//! | 2, random | 1.1e-3 | 8.8e-4 | 9.7e-4 | 5.7e-4 |
//! | 3, trivial | **0 (300)** | 2.3e-3 | – | – |
//! | 3, random | 7.1e-4 | 3.2e-3 | – | – |
//! | 4, trivial | **0 (11)** | **0 (15)** | – | – |
//! | 4, random | **0 (162)** | **0 (158)** | – | – |
//!
//! Both balls within ε in 5 of 10 runs with α/10 against 3 of 10 with the constant step,
//! which also succeeds where the decay does not (seed 3, trivial); the failures end in near
//! misses (a loss of 1e-3 is one ball 4.4 cm from its target). Decaying faster freezes the
//! shot before it has found the hit. At 4 balls (80 triangles) seed 0 needs the decay (the
//! test `decaying_adam_brings_both_balls_within_reach_from_the_trivial_start`).
//!
//! **Newton starts at θ^t** ([`NewtonStart::Current`], not the default extrapolated start).
//! A step in which the cue ball meets a ball can have more than one minimum, and the
//! extrapolated start picks between its guess and θ^t by their objective, a choice that flips
//! under tiny changes: with it, moving the cue's start by 2e-6 m moved the impact step's
//! solution by 1 mm in one case out of two (4 balls; both are minima: the gradient 1e-14 at one
//! with a positive definite Hessian, the other with a lower objective), the loss jumped by 2e-4,
//! and central differences of the loss over 100 frames were off by 20x at h = 1e-5 (−6974
//! against the adjoint's −381.77). From θ^t the loss is smooth: differences converge to the
//! adjoint as h² (relative error 1.4e-2, 1.6e-4, 1.6e-6 at h = 1e-5, 1e-6, 1e-7). A
//! trajectory takes more Newton iterations (349 against 201) but one evaluation of the start
//! per step instead of two: 0.053 s against 0.064 s, measured once on shared cores.
//!
//! **IPC's stiffness.** IPC's log barrier acts on squared distances, so near contact it
//! pushes with about `2κd̂⁴/d` at a distance `d`. Stopping the fastest cue ball ([`MASS`] at
//! `√2 ·` [`CUE_SPEED`] within one step of 0.04 s: 14 N) at `d̂/10` takes `κ ≈ 7e8` with
//! `d̂` = 1 mm; [`IPC_STIFFNESS`] is 1e9. With the `κ` = 100 used before, the barrier reaches
//! 4 N (the random guess's 0.8 m/s) only at 5e-11 m, below what squared distances between
//! 5 cm meshes resolve: Newton crept to the other ball in CCD-limited steps of 10% of the gap
//! and stalled there (|∇O|∞ 1e3, steps of 5e-8), and IPC's row read "fails at the impact".
//! With 1e9 (and 1e8) every one of the random guesses of seeds 0-7 runs through its impacts
//! at 16 balls; with 1e7 seed 0 still stalls, with 1e6 at 4 balls seed 0 runs and at 16 it
//! stalls. (The paper's IPC baseline takes a few gradient descent steps per time step instead
//! of solving it.)
//!
//! **Choices where the paper is silent.** The rack is a triangle as in `scenes::billiards`,
//! spread as above; `ε` = 3 cm; random targets 10-25 cm from their ball's start, away from
//! the cue; the controls bounded ([`Billiards::control_bounds`]); IPC with `d̂` = [`IPC_DHAT`] and
//! `κ` = [`IPC_STIFFNESS`] (above); SDRS hulls with the production defaults for 10 cm bodies.

use sdrs::contact::{ipc::potential::Ipc, long_range::LongRange};
use sdrs::diff::{GradientSource, Loss, Sum, TargetRegion, pose_adjoint};
use sdrs::dynamics::NewtonStart;
use sdrs::prelude::*;
use sdrs::{diff::DiffError, geometry::TriMesh};

/// Ball radius (m).
pub const RADIUS: f64 = 0.05;
/// Ball mass (kg).
pub const MASS: f64 = 0.2;
/// Target tolerance `ε` (m).
pub const EPSILON: f64 = 0.03;
/// The paper's time step (s).
pub const DT: f64 = 0.04;
/// The paper's horizon.
pub const FRAMES: usize = 100;
/// The paper's learning rate.
pub const LEARNING_RATE: f64 = 3e-2;
/// The fraction of [`LEARNING_RATE`] Adam's step size decays to over a run (ours: the
/// paper's constant step circles near-solutions without settling; module docs).
pub const DECAY_TO: f64 = 0.1;
/// Gap between neighbouring racked balls (m; the paper is silent).
pub const GAP: f64 = 0.2;
/// How far (m) the optimiser may move the cue ball's start ([`Billiards::control_bounds`]).
pub const CUE_REACH: f64 = 0.15;
/// The cue ball's largest initial speed (m/s) along each axis ([`Billiards::control_bounds`]).
pub const CUE_SPEED: f64 = 2.0;
/// How far (m) a shot must move two racked balls for [`Billiards::reachable`] to take them.
pub const REACHABLE_MOVE: f64 = 0.1;
/// Shots [`Billiards::reachable`] tries.
const REACHABLE_SHOTS: u64 = 64;
/// The paper's long-range potential coefficient.
pub const MU: f64 = 1e-7;
/// IPC's activation distance `d̂` (m; the paper is silent).
pub const IPC_DHAT: f64 = 1e-3;
/// IPC's barrier stiffness `κ`: the barrier stops the fastest cue ball at about `d̂/10`
/// (module docs, "IPC's stiffness").
pub const IPC_STIFFNESS: f64 = 1e9;

/// The scale of a billiards run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    /// Balls, the cue ball included (16 in the paper).
    pub balls: usize,
    /// Icosphere subdivision level of the collision meshes (80 · 4^(level−1) triangles).
    pub level: u32,
    /// Frames `H`.
    pub frames: usize,
    /// Time step Δt (s; the paper's is [`DT`]).
    pub dt: f64,
    /// Gap between neighbouring racked balls (m).
    pub gap: f64,
}

impl Size {
    /// The paper's scale: 16 balls of 320 triangles, 100 frames.
    pub const PAPER: Self = Self {
        balls: 16,
        level: 2,
        frames: FRAMES,
        dt: DT,
        gap: GAP,
    };
}

/// A billiards task: the model (the cue ball last), its contact settings, the two target
/// balls with their targets, and the frames.
#[derive(Debug, Clone)]
pub struct Billiards {
    /// The balls.
    pub model: Model,
    /// Step settings without contact (each method sets its own).
    pub settings: StepSettings,
    /// The two target balls' link names and targets.
    pub targets: Vec<(String, Vector3<f64>)>,
    /// Frames `H`.
    pub frames: usize,
}

/// A small deterministic generator (SplitMix64) for the task's random choices, so that the
/// same seed gives the same task on every platform.
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

impl Billiards {
    /// The task at `size`, its target balls and targets drawn with `seed`.
    pub fn new(size: Size, seed: u64) -> anyhow::Result<Self> {
        anyhow::ensure!(
            size.balls >= 3,
            "billiards needs at least 3 balls (the cue and two targets), got {}",
            size.balls
        );
        anyhow::ensure!(
            (1..=3).contains(&size.level),
            "icosphere level must be 1, 2 or 3, got {}",
            size.level
        );
        anyhow::ensure!(size.frames > 0, "billiards needs at least one frame");
        let mesh = TriMesh::icosphere(RADIUS, size.level)?;
        let hull = ConvexHull::new(TriMesh::icosphere(RADIUS, 1)?.vertices().to_vec())?;
        let ball = |name: String, x: f64, y: f64| {
            Link::new(
                name,
                None,
                Isometry3::translation(x, y, 0.0),
                JointKind::Free,
                vec![hull.clone()],
                MassModel::Lumped { mass: MASS },
            )
            .with_mesh(mesh.clone())
        };
        anyhow::ensure!(
            size.gap.is_finite() && size.gap > 0.0,
            "the gap between racked balls must be positive (m), got {}",
            size.gap
        );
        let spacing = 2.0 * RADIUS + size.gap;
        let mut links = Vec::new();
        let mut row = 0;
        while links.len() + 1 < size.balls {
            for k in 0..=row {
                if links.len() + 1 == size.balls {
                    break;
                }
                let x = 0.2 + row as f64 * spacing * 0.866;
                let y = (k as f64 - 0.5 * row as f64) * spacing;
                links.push(ball(format!("ball{}", links.len()), x, y));
            }
            row += 1;
        }
        links.push(ball("cue".into(), -0.3, 0.0));
        let model = Model::new(links)?;
        let mut settings = StepSettings::new(size.dt)?;
        settings.gravity = 0.0;
        // Newton from θ^t: the extrapolated start makes the loss jump at impacts (module docs).
        settings.start = NewtonStart::Current;
        // Two distinct rack balls and targets 10-25 cm ahead of them, within ±60° of +x.
        let mut rng = seed ^ 0x5DEE_CE66_D1CE_5EED;
        let racked = size.balls - 1;
        let first = (uniform(&mut rng) * racked as f64) as usize % racked;
        let second = (first + 1 + (uniform(&mut rng) * (racked - 1) as f64) as usize) % racked;
        let mut targets = Vec::new();
        for index in [first, second] {
            let name = format!("ball{index}");
            let start = model.links()[model.link_index(&name)?]
                .attachment
                .translation
                .vector;
            let angle = (uniform(&mut rng) - 0.5) * 2.0 * std::f64::consts::FRAC_PI_3;
            let reach = 0.1 + 0.15 * uniform(&mut rng);
            targets.push((
                name,
                start + reach * Vector3::new(angle.cos(), angle.sin(), 0.0),
            ));
        }
        Ok(Self {
            model,
            settings,
            targets,
            frames: size.frames,
        })
    }

    /// The contact settings of each model (long-range with the paper's μ, IPC, SDRS hulls).
    pub fn contact_models(&self) -> anyhow::Result<sdrs::diff::ContactModels> {
        Ok(sdrs::diff::ContactModels {
            long_range: ContactSettings::new(ContactKind::LongRange(LongRange::new(0.1)?), MU)?,
            ipc: ContactSettings::new(ContactKind::Ipc(Ipc::new(IPC_DHAT)?), IPC_STIFFNESS)?,
            hulls: ContactSettings::default_for(2.0 * RADIUS)?,
        })
    }

    /// The cue ball's first coordinate (its free joint's x translation).
    fn cue(&self) -> usize {
        self.model.dof() - 6
    }

    /// The trivial initial guess: the cue ball where it is (30 cm behind the rack, far from
    /// every ball), at rest.
    pub fn trivial(&self) -> DVector<f64> {
        DVector::from_vec(vec![0.0, 0.0, 0.0, 0.0])
    }

    /// A random initial guess (seeded): the cue ball within ±5 cm of its place, moving
    /// towards the rack at 0.3-0.8 m/s within ±0.3 m/s sideways, so that it reaches contact.
    pub fn random_guess(&self, seed: u64) -> DVector<f64> {
        let mut rng = seed ^ 0xA076_1D64_78BD_642F;
        let mut u = |lo: f64, hi: f64| lo + (hi - lo) * uniform(&mut rng);
        DVector::from_vec(vec![
            u(-0.05, 0.05),
            u(-0.05, 0.05),
            u(0.3, 0.8),
            u(-0.3, 0.3),
        ])
    }

    /// Bounds on the controls `(Δx, Δy, v_x, v_y)` for the optimiser: the cue ball moves at
    /// most [`CUE_REACH`] from its place (so it starts at least 25 cm from the rack, never
    /// inside a ball) and at most [`CUE_SPEED`] in each direction. The paper does not bound
    /// them; unbounded, Adam's noisy steps put the cue ball into the rack (the long-range run
    /// at the paper's scale did at iteration 38, which ends the run).
    pub fn control_bounds(&self) -> (DVector<f64>, DVector<f64>) {
        let upper = DVector::from_vec(vec![CUE_REACH, CUE_REACH, CUE_SPEED, CUE_SPEED]);
        (-upper.clone(), upper)
    }

    /// The target balls' links and their targets (centres of mass, world frame).
    pub fn pieces(&self) -> Vec<(usize, Vector3<f64>)> {
        self.targets
            .iter()
            .map(|(name, target)| {
                let link = self.model.link_index(name);
                (
                    link.expect("the target balls are links of the model"),
                    *target,
                )
            })
            .collect()
    }

    /// The loss: the two target balls' [`TargetRegion`]s.
    pub fn loss(&self) -> anyhow::Result<Sum> {
        let mut sum = Sum::new();
        for (name, target) in &self.targets {
            sum = sum.with(
                1.0,
                TargetRegion::links(&self.model, &[name], *target, EPSILON)?,
            );
        }
        Ok(sum)
    }

    /// The start for controls `c = (Δx, Δy, v_x, v_y)`: the cue ball moved by `(Δx, Δy)`
    /// and the poses one step earlier set back by `v Δt`.
    pub fn start(&self, c: &DVector<f64>) -> (State, State, Motion) {
        let cue = self.cue();
        let mut state = State::zero(&self.model);
        state.q[cue] += c[0];
        state.q[cue + 1] += c[1];
        let mut before = state.clone();
        let dt = self.settings.dt;
        before.q[cue] -= c[2] * dt;
        before.q[cue + 1] -= c[3] * dt;
        let motion = Motion {
            previous: Kinematics::new(&self.model, &before).poses().to_vec(),
            state: state.clone(),
        };
        (state, before, motion)
    }

    /// How far the racked balls drift by themselves: the largest distance (m) a racked ball
    /// travels over the frames, simulated with `contact`, while the cue ball rests where it
    /// is (the trivial guess). A globally supported potential pushes every pair apart, so
    /// a tight rack does not stay at rest.
    pub fn rack_drift(&self, contact: &ContactSettings) -> sdrs::diff::Result<f64> {
        let trajectory = self.simulate(contact, &self.trivial())?.2;
        Ok(self
            .racked_motion(&trajectory)
            .iter()
            .map(|(start, end)| (end - start).norm())
            .fold(0.0, f64::max))
    }

    /// The task with targets a shot reaches: shots drawn with `seed` as
    /// [`Billiards::random_guess`] draws them are simulated under the long-range model until
    /// one moves two racked balls by at least [`REACHABLE_MOVE`]; the two it moved most become
    /// the target balls and where they ended their targets. Returns the task and that shot
    /// (its long-range loss is 0). The other models collide the balls differently, so the
    /// same shot sends the balls elsewhere under them (4 balls of 80 triangles, seeds 0-2: the
    /// SDRS hull model's loss there is 0.44, 0.82, 0.36; IPC's Newton solve does not converge
    /// at the cue's impact). The paper draws its targets at random, which a single shot may
    /// not reach.
    pub fn reachable(size: Size, seed: u64) -> anyhow::Result<(Self, DVector<f64>)> {
        let mut task = Self::new(size, seed)?;
        let long_range = task.contact_models()?.long_range;
        for attempt in 0..REACHABLE_SHOTS {
            // A stream of its own, so that no random initial guess is a reaching shot.
            let stream = seed.wrapping_mul(REACHABLE_SHOTS).wrapping_add(attempt);
            let shot = task.random_guess(stream ^ 0xD1B5_4A32_D192_ED03);
            let trajectory = task.simulate(&long_range, &shot)?.2;
            let mut moved: Vec<(usize, f64, Vector3<f64>)> = task
                .racked_motion(&trajectory)
                .into_iter()
                .enumerate()
                .map(|(ball, (start, end))| (ball, (end - start).norm(), end))
                .collect();
            moved.sort_by(|x, y| y.1.total_cmp(&x.1));
            if moved.len() >= 2 && moved[1].1 >= REACHABLE_MOVE {
                task.targets = moved[..2]
                    .iter()
                    .map(|&(ball, _, end)| (task.model.links()[ball].name.clone(), end))
                    .collect();
                return Ok((task, shot));
            }
        }
        anyhow::bail!(
            "none of {REACHABLE_SHOTS} shots drawn with seed {seed} moved two racked balls by \
             {REACHABLE_MOVE} m; try another seed"
        )
    }

    /// The loss, its gradient with respect to `c` and the trajectory, simulated with
    /// `contact`.
    pub fn evaluate(
        &self,
        contact: &ContactSettings,
        c: &DVector<f64>,
    ) -> sdrs::diff::Result<(f64, DVector<f64>, Trajectory)> {
        let (mut sim, before, trajectory) = self.simulate(contact, c)?;
        let loss = self.loss().map_err(|e| DiffError::InvalidInput {
            what: "billiards loss",
            reason: e.to_string(),
        })?;
        let (value, partials) = loss.evaluate(&self.model, &trajectory)?;
        let g = adjoint(&mut sim, &trajectory, &partials)?;
        let (previous, _) = pose_adjoint(&self.model, &before, &g.initial_previous);
        let cue = self.cue();
        let gradient = DVector::from_vec(vec![
            g.initial[cue] + previous[cue],
            g.initial[cue + 1] + previous[cue + 1],
            -self.settings.dt * previous[cue],
            -self.settings.dt * previous[cue + 1],
        ]);
        Ok((value, gradient, trajectory))
    }

    /// The trajectory under controls `c` simulated with `contact`, the simulator that ran it
    /// and the state one step before the start.
    fn simulate(
        &self,
        contact: &ContactSettings,
        c: &DVector<f64>,
    ) -> sdrs::diff::Result<(Simulator, State, Trajectory)> {
        if c.len() != 4 || c.iter().any(|v| !v.is_finite()) {
            return Err(DiffError::InvalidInput {
                what: "billiards controls",
                reason: format!("need 4 finite values (Δx, Δy, v_x, v_y), got {c:?}"),
            });
        }
        let mut settings = self.settings.clone();
        settings.contact = Some(contact.clone());
        let setup = |source| DiffError::Setup {
            what: "the billiards simulator",
            source,
        };
        let mut sim = Simulator::new(self.model.clone(), settings).map_err(setup)?;
        let (_, before, motion) = self.start(c);
        let controls = vec![Control::passive(&self.model); self.frames];
        let trajectory = rollout(&mut sim, &motion, &controls, Recording::States)?;
        Ok((sim, before, trajectory))
    }

    /// Where every racked ball starts and ends (centres, world frame) in `trajectory`.
    fn racked_motion(&self, trajectory: &Trajectory) -> Vec<(Vector3<f64>, Vector3<f64>)> {
        let centres = |state: &State| {
            Kinematics::new(&self.model, state)
                .poses()
                .iter()
                .map(|pose| pose.translation.vector)
                .collect::<Vec<_>>()
        };
        let (first, last) = (
            centres(&trajectory.states[0]),
            centres(&trajectory.states[self.frames]),
        );
        // The cue ball is the last link.
        first
            .into_iter()
            .zip(last)
            .take(self.model.links().len() - 1)
            .collect()
    }

    /// The task as a [`GradientSource`] simulated with `contact`.
    pub fn source<'a>(&'a self, contact: &ContactSettings) -> impl GradientSource + use<'a> {
        let contact = contact.clone();
        move |c: &DVector<f64>| {
            self.evaluate(&contact, c)
                .map(|(value, gradient, _)| (value, gradient))
        }
    }
}
