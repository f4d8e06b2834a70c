//! The book stack (Hall 2005) of both papers' accuracy experiments: 20 planks (2.0 x 0.4 x
//! 0.2 m, 0.16 kg each) on the ground, the k-th from the top overhanging the one below by the
//! harmonic maximum `L / (2k)` plus `offset · L` (`offset = −0.001`: 0.1% inward, which must
//! stand).
//!
//! - SDRS paper sec. V-J (Fig. 24, bottom): the stack stands for 60 s under the plane barrier
//!   and friction, and the force each plank carries agrees with the statics solution.
//! - Long-range paper sec. 6, Table 2: under the long-range potential (globally supported,
//!   so every plank pushes on every other) the margin between planks and the error of the
//!   top plank's contact force depend on the potential coefficient `μ`; the paper reports
//!   that the stack stands for `μ ≤ 1e-6` (ours does not: the `book_stack` example's docs).
//!
//! The statics solution ([`Interface`]): the interface under plank `i` (0 at the bottom)
//! carries the weight of planks `i..N`, `(N − i) m g`, through a centre of pressure under
//! their centre of mass; in the harmonic stack that point is (up to the offset) the right
//! edge of the plank below. A locally supported barrier reaches it exactly at rest; the
//! long-range potential moves a part of each load, of order `μ`, onto non-adjacent pairs.
//!
//! Each plank is placed at the gap where its interface's contact force balances the weight
//! it carries ([`resting_gap`]), then the stack is settled at rest into its nearest static
//! equilibrium, so a stack that stands starts at rest and the run tests its stability.

use sdrs::prelude::*;

/// Number of planks.
pub const PLANKS: usize = 20;
/// Plank length `L` (m), along x.
pub const LENGTH: f64 = 2.0;
/// Plank width (m), along y.
pub const WIDTH: f64 = 0.4;
/// Plank thickness (m), along z.
pub const HEIGHT: f64 = 0.2;
/// Plank mass (kg).
pub const MASS: f64 = 0.16;
/// Gravity (m/s², the simulator's default).
const GRAVITY: f64 = 9.81;
/// The paper's inward shift of every overhang (fraction of `L`).
pub const PAPER_OFFSET: f64 = -0.001;

/// A book stack ready to step: the model (ground, then the planks bottom first), its
/// simulator, the planks' links and their start.
pub struct Stack {
    /// Ground (link 0) and planks (links `1..=PLANKS`, bottom first).
    pub model: Model,
    /// The simulator, with the contact settings the stack was built with.
    pub sim: Simulator,
    /// Link index of each plank, bottom first.
    pub planks: Vec<usize>,
    /// Start: every plank at rest in the static equilibrium nearest its placement.
    pub start: Motion,
    /// Where each plank's centre was placed (bottom first), before settling: displacements
    /// are measured from here, so a stack that slides while it settles has moved.
    pub placed: Vec<Vector3<f64>>,
    /// The largest distance a plank's centre moved while settling (m): beyond [`FELL`], the
    /// stack has no equilibrium near its placement and collapsed before its first step.
    pub settling: f64,
}

/// The horizontal position of each plank's centre, bottom first: the k-th from the top
/// overhangs the one below by `L / (2k) + offset · L`.
pub fn plank_x(offset: f64) -> Vec<f64> {
    let mut x = 0.0;
    (0..PLANKS)
        .map(|i| {
            if i > 0 {
                let k = (PLANKS - i) as f64;
                x += LENGTH / (2.0 * k) + offset * LENGTH;
            }
            x
        })
        .collect()
}

fn plank_hull() -> Result<ConvexHull, Box<dyn std::error::Error>> {
    Ok(ConvexHull::cuboid(Vector3::new(
        0.5 * LENGTH,
        0.5 * WIDTH,
        0.5 * HEIGHT,
    ))?)
}

/// The vertical contact force (N) on link `upper` from link `lower` in `contacts`.
fn vertical_force(contacts: &[ActiveContact], lower: usize, upper: usize) -> f64 {
    between(contacts, lower, upper).map(vertical).sum()
}

/// The contacts of `contacts` between links `lower` and `upper`.
fn between(
    contacts: &[ActiveContact],
    lower: usize,
    upper: usize,
) -> impl Iterator<Item = &ActiveContact> {
    contacts.iter().filter(move |c| c.links == [lower, upper])
}

/// The vertical force (N) a contact puts on its second link: normal and friction.
fn vertical(c: &ActiveContact) -> f64 {
    c.normal_force * c.normal.z + c.friction_force.map_or(0.0, |f| f.z)
}

/// The gap (m) at which a plank on the ground (`overhang` `None`) or on another plank,
/// shifted `overhang` m along x, receives the vertical contact force `weight` (N) under
/// `contact`: the bisection of the force (decreasing in the gap) over 1e-9 to 0.5 m, on a
/// world of those two bodies.
pub fn resting_gap(
    contact: &ContactSettings,
    overhang: Option<f64>,
    weight: f64,
) -> Result<f64, Box<dyn std::error::Error>> {
    let plank = plank_hull()?;
    let mut world = World::new(0.01)?;
    world = match overhang {
        None => world.with_ground(),
        Some(_) => {
            world.add_object("lower", plank.clone(), MASS, Isometry3::identity());
            world
        }
    };
    let upper = world.add_object(
        "upper",
        plank,
        MASS,
        Isometry3::translation(overhang.unwrap_or(0.0), 0.0, 0.5 * HEIGHT),
    );
    world.set_contact(Some(contact.clone()));
    let (model, mut sim) = world.build()?;
    let lower_link = 0;
    let lowest = match overhang {
        None => 0.0,
        Some(_) => 0.5 * HEIGHT,
    };
    let mut force_at = |gap: f64| -> Result<f64, Box<dyn std::error::Error>> {
        let mut state = State::zero(&model);
        state.q[upper.dofs().start + 2] = lowest + gap;
        let contacts = sim.contacts(&Motion::at_rest(&model, state))?;
        Ok(vertical_force(&contacts, lower_link, upper.link().index()))
    };
    let (mut lo, mut hi) = (1e-9f64.ln(), 0.5f64.ln());
    if force_at(hi.exp())? > weight {
        return Err(format!(
            "the contact force at a 0.5 m gap exceeds the load {weight} N: the potential is too \
             stiff for a stack"
        )
        .into());
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if force_at(mid.exp())? > weight {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok((0.5 * (lo + hi)).exp())
}

/// Time step (s) of the settling steps: long enough that the inertia term is negligible.
const SETTLE_DT: f64 = 0.1;
/// Settling stops when a step moves no coordinate more than this (m or rad).
const SETTLED: f64 = 1e-10;

/// The equilibrium nearest `state` at rest: backward-Euler steps of [`SETTLE_DT`] from rest
/// (each a minimisation of gravity and contact energy with a negligible inertia term, so a
/// local minimum of the potential energy; an unstable stack slides towards its collapse),
/// at most 50, until a step moves nothing more than [`SETTLED`].
fn settle(
    model: &Model,
    settings: &StepSettings,
    state: State,
) -> Result<Motion, Box<dyn std::error::Error>> {
    let mut settings = settings.clone();
    settings.dt = SETTLE_DT;
    let mut sim = Simulator::new(model.clone(), settings)?;
    let control = Control::passive(model);
    let mut motion = Motion::at_rest(model, state);
    for _ in 0..50 {
        let before = motion.state.q.clone();
        sim.advance(&mut motion, &control)?;
        let moved = (&motion.state.q - before).amax();
        motion = Motion::at_rest(model, motion.state);
        if moved <= SETTLED {
            break;
        }
    }
    Ok(motion)
}

/// The stack with overhang shift `offset` (fraction of `L`) under `contact` (the ground's and
/// the planks' hulls and meshes both exist, so any contact model applies), every plank placed
/// at its [`resting_gap`], then settled at rest into the nearest static equilibrium
/// (0.1 s backward-Euler steps from rest, each nearly a minimisation of the potential energy:
/// the planks tilt until each load passes through the edge below).
pub fn stack(contact: &ContactSettings, offset: f64) -> Result<Stack, Box<dyn std::error::Error>> {
    let xs = plank_x(offset);
    let mut world = World::new(0.01)?.with_ground();
    let plank = plank_hull()?;
    let mut handles = Vec::with_capacity(PLANKS);
    let mut placed = Vec::with_capacity(PLANKS);
    let mut bottom = 0.0;
    for (i, &x) in xs.iter().enumerate() {
        let carried = (PLANKS - i) as f64 * MASS * GRAVITY;
        let overhang = (i > 0).then(|| x - xs[i - 1]);
        bottom += resting_gap(contact, overhang, carried)?;
        placed.push(Vector3::new(x, 0.0, bottom + 0.5 * HEIGHT));
        handles.push(world.add_object(
            &format!("plank{i}"),
            plank.clone(),
            MASS,
            Isometry3::translation(x, 0.0, bottom + 0.5 * HEIGHT),
        ));
        bottom += HEIGHT;
    }
    world.set_contact(Some(contact.clone()));
    let (model, sim) = world.build()?;
    let start = settle(&model, sim.settings(), State::zero(&model))?;
    let planks: Vec<usize> = handles.iter().map(|h| h.link().index()).collect();
    let poses = Kinematics::new(&model, &start.state).poses().to_vec();
    let settling = planks
        .iter()
        .zip(&placed)
        .map(|(&l, p)| (poses[l].translation.vector - p).norm())
        .fold(0.0, f64::max);
    Ok(Stack {
        planks,
        model,
        sim,
        start,
        placed,
        settling,
    })
}

/// What one interface of the stack (the contact under a plank) carries, measured beside the
/// statics solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Interface {
    /// The distance between the plank and what it rests on (m; infinite when the contact
    /// model reports no contact between them).
    pub gap: f64,
    /// The vertical contact force from below (N).
    pub force: f64,
    /// The statics solution: the weight of this plank and those above it (N).
    pub statics: f64,
    /// Where the force acts along x (m): the force-weighted centre of pressure (NaN without
    /// contact).
    pub pressure_x: f64,
    /// The statics solution's point: the centre of mass of this plank and those above (m).
    pub mass_centre_x: f64,
    /// The right edge of what the plank rests on (m; the ground has none: NaN).
    pub edge_x: f64,
}

impl Interface {
    /// The columns of a table of interfaces: gap (m), force (N), statics (N), the force's
    /// relative error, centre of pressure x (m), statics x (m), the edge below (m).
    pub fn row(&self) -> [f64; 7] {
        [
            self.gap,
            self.force,
            self.statics,
            (self.force - self.statics) / self.statics,
            self.pressure_x,
            self.mass_centre_x,
            self.edge_x,
        ]
    }
}

/// Every interface of `stack` at `motion`, bottom (plank on the ground) first.
pub fn interfaces(
    stack: &mut Stack,
    motion: &Motion,
) -> Result<Vec<Interface>, Box<dyn std::error::Error>> {
    let contacts = stack.sim.contacts(motion)?;
    let poses = Kinematics::new(&stack.model, &motion.state)
        .poses()
        .to_vec();
    let x = |link: usize| poses[link].translation.vector.x;
    let planks = &stack.planks;
    Ok((0..PLANKS)
        .map(|i| {
            let upper = planks[i];
            let lower = if i == 0 { 0 } else { planks[i - 1] };
            let pair: Vec<&ActiveContact> = between(&contacts, lower, upper).collect();
            // The centre of pressure weighs each contact's point by its normal force's share.
            let normal = |c: &&ActiveContact| c.normal_force * c.normal.z;
            let total: f64 = pair.iter().map(normal).sum();
            let above = &planks[i..];
            Interface {
                gap: pair.iter().map(|c| c.gap).fold(f64::INFINITY, f64::min),
                force: pair.iter().map(|c| vertical(c)).sum(),
                statics: above.len() as f64 * MASS * GRAVITY,
                pressure_x: pair.iter().map(|c| c.point.x * normal(c)).sum::<f64>() / total,
                mass_centre_x: above.iter().map(|&l| x(l)).sum::<f64>() / above.len() as f64,
                edge_x: if i == 0 {
                    f64::NAN
                } else {
                    x(lower) + 0.5 * LENGTH
                },
            }
        })
        .collect())
}

/// A plank whose centre moved less than this (m) stood.
pub const STOOD: f64 = 0.01;
/// A plank whose centre moved more than this (m) fell.
pub const FELL: f64 = 0.05;

/// How a stack ended (displacements from where the planks were placed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No plank's centre was ever more than [`FELL`] from its place, and none is more than
    /// [`STOOD`] from it at the end.
    Stood,
    /// A plank's centre moved more than [`FELL`]: the run stopped there.
    Fell,
    /// Neither.
    Undecided,
}

/// A passive run of a stack.
#[derive(Debug, Clone)]
pub struct Run {
    /// How it ended.
    pub verdict: Verdict,
    /// Steps taken.
    pub steps: usize,
    /// The largest displacement of a plank's centre from where it was placed, at the end (m).
    pub moved: f64,
    /// The largest displacement during the run (m).
    pub largest: f64,
    /// The top plank's displacement at the end and one simulated second before (m; the
    /// start when the run was shorter).
    pub top: [Vector3<f64>; 2],
    /// Newton iterations: total and largest in one step.
    pub iterations: (usize, usize),
    /// Wall time of each step (ms).
    pub step_ms: Vec<f64>,
    /// The end.
    pub end: Motion,
}

impl Run {
    /// Wall time of all the steps (s).
    pub fn seconds(&self) -> f64 {
        self.step_ms.iter().sum::<f64>() * 1e-3
    }
}

/// Steps `stack` from its start for `seconds` of simulated time under no control, stopping
/// when a plank falls; `observe` sees each step's index, motion and the planks' displacements
/// from where they were placed (bottom first).
pub fn run(
    stack: &mut Stack,
    seconds: f64,
    mut observe: impl FnMut(usize, &Motion, &[Vector3<f64>]),
) -> Result<Run, Box<dyn std::error::Error>> {
    let dt = stack.sim.settings().dt;
    let steps = (seconds / dt).round() as usize;
    let per_second = (1.0 / dt).round() as usize;
    let control = Control::passive(&stack.model);
    let mut motion = stack.start.clone();
    let mut top = Vec::with_capacity(steps);
    // Displacements count from the placement, so settling already moved the planks.
    let (mut moved, mut largest) = (stack.settling, stack.settling);
    let (mut iterations, mut most) = (0, 0);
    let mut step_ms = Vec::with_capacity(steps);
    let mut taken = 0;
    for step in 0..steps {
        let clock = std::time::Instant::now();
        let report = stack.sim.advance(&mut motion, &control)?;
        step_ms.push(clock.elapsed().as_secs_f64() * 1e3);
        iterations += report.iterations;
        most = most.max(report.iterations);
        taken += 1;
        let poses = Kinematics::new(&stack.model, &motion.state)
            .poses()
            .to_vec();
        let displacement: Vec<Vector3<f64>> = stack
            .planks
            .iter()
            .zip(&stack.placed)
            .map(|(&l, p)| poses[l].translation.vector - p)
            .collect();
        moved = displacement.iter().map(|d| d.norm()).fold(0.0, f64::max);
        largest = largest.max(moved);
        top.push(displacement[PLANKS - 1]);
        observe(step, &motion, &displacement);
        if moved > FELL {
            break;
        }
    }
    let verdict = if largest > FELL {
        Verdict::Fell
    } else if moved < STOOD {
        Verdict::Stood
    } else {
        Verdict::Undecided
    };
    let last = top.last().copied().unwrap_or_else(Vector3::zeros);
    let before = top
        .len()
        .checked_sub(1 + per_second)
        .map_or(Vector3::zeros(), |k| top[k]);
    Ok(Run {
        verdict,
        steps: taken,
        moved,
        largest,
        top: [last, before],
        iterations: (iterations, most),
        step_ms,
        end: motion,
    })
}
