//! The bipedal locomotion benchmark of the SDRS paper (sec. V-D, Figs. 12-13): a 7-link
//! biped with 12 DoF walks on flat ground under PD control (k_p = 1e3, k_d = 1e2 in the paper's form: [`GAINS`]) whose
//! targets are 4 sine waves per actuated DoF (the quadruped's controller, [`crate::walker`]),
//! for H = 400 steps, scored by the centre of mass against the goal (0, 3, 0) (it starts at
//! the origin): the task built here minimises `|COM(θ^H) − (0, 3, 0)|²`, the example minimises
//! the paper's loss as written, `R = −|COM(θ^H) − (0, 3, 0)|²` ([`crate::walker::Walker::as_written`];
//! [`crate::quadruped`] says why). Its feet start "relatively short
//! in length" with "smooth contact surfaces": capsules of 96 vertices in 3 convex hulls each
//! ([`crate::walker::capsule_pieces`]); co-design moves every foot vertex together with the
//! controller.
//!
//! Axes: the paper states for this benchmark that −z is the gravitational direction, as in
//! sdrs (z up), so its goal (0, 3, 0) is 3 m along the horizontal y axis and is used as
//! given: the biped walks along +y, its hinges turn about x (the sagittal plane is y-z).
//!
//! The robot (the paper gives only its link and DoF counts; these are ours): a 1 kg pelvis
//! box of half-extents 0.1 x 0.05 x 0.04 m on a free joint (6 DoF), and per leg a thigh
//! (capsule r 2.5 cm, half-height 10 cm, 0.3 kg) on a hip hinge within ±1 rad, a shin
//! (r 2 cm, half-height 10 cm, 0.2 kg) on a knee hinge within [−1.5, 0.1] rad (negative
//! bends the knee backwards) and a foot (r 2 cm, half-height 3 cm, 10 cm long along y,
//! 0.1 kg) on an ankle hinge within ±0.8 rad: 7 links, 6 + 6 = 12 DoF. The foot's axis lies
//! 2.5 cm below the ankle, above its middle. Its sole is a line of 6 cm under a
//! rounded cylinder, short for a 0.5 m tall robot: standing still it stays up, but under the
//! starting controller (waves of 0.01-0.04 rad) it rocks and falls backwards at step 169
//! (pelvis tilted 23° and 3 cm down at step 150, flat at 200; `--iterations 0 --stages 1`).
//!
//! The authors' C++ code (github.com/XiaohanYE99/fastSDRS, `ArticulatedLoader::createBipedal`;
//! read for its structure only) builds its biped with 3-DoF hips, knee hinges and feet fixed
//! to the shins, 14 DoF with a free root. A probe with that structure at the paper's 12 DoF
//! (2-DoF hips, `JointKind::Universal` pitch then roll, without limits; knee hinges; fixed
//! feet; not kept, 2026-11-28 on commit 031c3da, the example's default command) came out as
//! ours does: control only fell at step 398 (−0.235 m), the co-design stood (−0.075 m) and its
//! controller fell on the starting feet at step 374. The replay export refuses such a robot
//! (it drives one-DoF joints only).
//!
//! **The loss as written** (the example's default since 2026-11-28; the paper's biped moves
//! −7.666 m, away from its goal). It rewards moving along −y, so a fall backwards (−0.47 m,
//! paper's loss about −12) pays as a fall forwards does under `--towards` (below). Measured
//! (`cargo run --release -p sdrs-examples --example biped`, 400 iterations per run in 4 stages,
//! 2 cores shared with other jobs, before commit 96c9537 (the ten draws below give the current
//! numbers); distance along y, fall, paper's loss, wall time):
//!
//! | options | control only | co-design | co-design's controller, starting feet |
//! |---|---|---|---|
//! | (defaults) | 0.376 m, falls forwards at step 352 (pelvis 92° and 52.5 cm down at step 400), −7.04, 34 s | −0.091 m, no fall (14° and 1.1 cm at step 400), −9.55, 44 s | 0.475 m, step 216 |
//! | `--progress 1` | −0.106 m, no fall, −9.65, 26 s | −0.059 m, no fall, −9.36, 38 s | −0.479 m, step 229 |
//! | `--progress 1 --gait 0.2 --gait-offset 0` | −0.081 m, no fall, −9.50, 27 s | −0.096 m, no fall, −9.59, 38 s | −0.449 m, step 197 |
//! | `--hertz` | −0.268 m, falls at step 360 (87° and 49.8 cm at step 400), −10.89, 40 s | 0.102 m, no fall, −8.40, 50 s | 0.129 m, step 292 |
//!
//! So as written the paper's qualitative claim holds in the default run and under `--hertz`:
//! control only falls, co-design stays up, and the co-designed controller falls on the
//! starting feet. But nothing walks: the co-designs end within 11 cm of the start, against the
//! paper's −7.666 m. Every trajectory is collision-free (smallest gaps 1.8-1.9 cm).
//!
//! **Ten starting controllers** (`biped -- --draw K`, K = 0-9, the defaults otherwise; at
//! commit 18cf25a, 2026-11-28, one thread each, 20-25 s control only and 31-33 s co-design
//! per draw):
//!
//! | draw | control only: distance, fall | co-design: distance, fall | co-design's controller, starting feet |
//! |---|---|---|---|
//! | 0 | 0.193 m, step 398 | −0.060 m, no | 0.474 m, step 209 |
//! | 1 | −0.056 m, no | −0.066 m, no | 0.478 m, step 149 |
//! | 2 | −0.071 m, no | −0.035 m, no | −0.470 m, step 199 |
//! | 3 | −0.465 m, step 376 | −0.038 m, no | 0.473 m, step 217 |
//! | 4 | −0.037 m, no | 0.033 m, no | −0.472 m, step 145 |
//! | 5 | −0.029 m, no | −0.058 m, no | 0.468 m, step 218 |
//! | 6 | −0.078 m, no | −0.104 m, no | 0.471 m, step 241 |
//! | 7 | −0.035 m, no | −0.093 m, no | 0.475 m, step 201 |
//! | 8 | 0.473 m, step 354 | −0.044 m, no | 0.468 m, step 119 |
//! | 9 | −0.481 m, step 340 | −0.484 m, step 371 | 0.479 m, step 179 |
//!
//! The co-design stays up in 9 of 10 draws, control only in 6 of 10, and the co-designed
//! controller falls on the starting feet in all 10 (steps 119-241): the feet's change is what
//! keeps that controller up, in every draw, as the paper says; "control only cannot balance"
//! holds in 4 draws of 10. The same ten draws one commit earlier (66a2707, before the friction
//! solve's 3x3 inverse was written out, which changes its round-off and these chaotic runs
//! with it; the default run then gave 0.376 m, fallen at step 352, and −0.091 m) came out the
//! same way in number: 9 co-designs up, 4 control-only falls, 10 falls on the starting feet.
//! Nothing walks: the runs that stay up end within 10.4 cm of the start, and those that fall
//! lie 0.19-0.48 m away. Every trajectory is collision-free (smallest gaps 1.78-1.92 cm).
//! Measured at 66a2707, one option changed:
//!
//! - a stepping start with the legs in phase and the progress term (`--progress 1 --gait 0.2
//!   --gait-offset 0 --draw K`, K = 0-4): all ten runs stand (control only −0.081 to
//!   −0.101 m, co-design −0.008 to −0.096 m), and the co-designed controller falls on the
//!   starting feet in all five draws (steps 148-342);
//! - `--reach 0.05` (draw 0): the default run to the digit (no foot vertex moves 2 cm);
//! - `--iterations 1200` (draw 0; 72 s and 111 s): control only falls at step 373 (0.482 m),
//!   the co-design stands (−0.006 m), its controller falls on the starting feet at step 249.
//!
//! In MuJoCo (`benches/reference/mujoco_replay.py` on the default run's exports, which
//! reports a fall by the same 45° / 15 cm test) both robots fall: control only at step 21,
//! co-design at step 54; with every wave's amplitude set to 0 (standing still under PD) the
//! co-designed feet fall at step 139 and the starting feet at step 328. That is MuJoCo's step:
//! at the paper's Δt = 10 ms its PD (stiffness taken explicitly) is not stable for k_p = 1e3
//! on 0.1 kg feet. At 1 ms (`--substeps 10`) both stand still, but under their controllers
//! control only falls at step 60 and the co-design at step 103 (backwards, −0.52 m), where
//! in sdrs it stays up. The paper's biped keeps its balance in MuJoCo (Fig. 22); ours does
//! not: the open-loop gait that balances in sdrs does not carry over. In sdrs the starting
//! biped stands still under the authors' contact and under the calibrated one alike (drifting
//! 0.17 mm and 1.4 µm in 400 steps; a probe, not kept).
//!
//! The rest of these docs was measured under `--towards`.
//!
//! Why it falls. The paper's loss does not see a fall: falling forward leaves the centre of
//! mass about 0.5 m along y (loss ≈ 6.5, against 9 for standing still), a local minimum the
//! optimiser finds within 8 iterations. Measured with the paper's loss alone (`--upright 0
//! --stages 1 --iterations 40`, 7 s per run): control only falls forward at step 167 (pelvis
//! tilted 24° and 4 cm down at step 150, flat at 200: 0.472 m, paper's loss 6.52), co-design
//! at step 107 (31° and 9.5 cm down at step 100: 0.487 m, 6.45). The starting controller
//! itself topples (see above), so the optimiser starts falling and turning the fall forward
//! pays. Three things make it stand:
//!
//! - a level-pelvis term ([`crate::walker::WalkLoss`], weight [`UPRIGHT`]): the mean squared
//!   height change of the pelvis's 8 corners over the steps and at the end, zero for a pelvis
//!   that stays level at its height whatever it does horizontally. The paper's loss is still
//!   what is reported beside it. With the mean over the steps alone, or weight 100, the
//!   optimiser found falls in the last steps (or kept a falling start) that still paid;
//! - the horizon grows in [`STAGES`] parts (100, 200, 300, 400 steps, each starting where the
//!   last ended): over 400 steps the gradient of a rocking, toppling robot is huge and its
//!   direction useless to a fixed-length step (the best iterate's |g| was 1e3-1e5 at 300-400
//!   steps when it fell, 20-70 at 100 steps);
//! - no foot vertex may move below its foot's lowest starting vertex (`Walker::floor`): the
//!   sole starts 1.02 cm up (the support plus [`CLEARANCE`]), so a 2 cm reach let the design
//!   put a vertex into the ground, the start was rejected and every later step halved.
//!
//! Measured (`cargo run --release -p sdrs-examples --example biped`: 400 iterations per run in
//! 4 stages of 100, 2 shared cores, 2026-11-27, 24 s control only, 37 s co-design): both stay
//! up over the whole horizon. Co-design ends 4.7 cm along y (paper's loss 8.72, loss 8.83, the
//! pelvis 8.9° tilted and 0.4 cm down at the end); control only ends 0.262 m along y (paper's
//! loss 7.50, loss 20.74) but only because it is toppling forward in the last steps (its
//! pelvis 41° tilted and 10.8 cm down at step 400, 2.3° and 0.3 cm at step 350): it passes
//! the fall test by 4°. The co-designed controller on the starting feet falls at step 219
//! (−0.471 m): the feet's change is what keeps that controller up, as the paper claims. It
//! stands rather than walks: 4.7 cm in 4 s, far from the goal 3 m away. With the wave
//! frequencies read as Hz (`biped -- --hertz`, as the quadruped's `--hertz` reads them, 86 s)
//! both still stand: control only −0.041 m, co-design 0.105 m, neither falls.
//!
//! The outcome is chaotic in the settings and in the simulator's tolerance-level details. The
//! same command on 2026-11-26, before that day's solver changes on main (the extrapolated
//! Newton start, the plane and friction caches; the starting controller's rollout is the same
//! as then: it falls backwards at step 169, `--iterations 0 --stages 1`), gave co-design
//! 7.7 cm without a fall and control only a fall backwards at step 297 (−0.461 m). The other
//! runs of that day, one option changed (control only / co-design; distance, fall):
//!
//! | option (2026-11-26) | control only | co-design | co-design's controller, starting feet |
//! |---|---|---|---|
//! | (defaults) | −0.461 m, step 297 | 0.077 m, no fall | step 252 |
//! | `--iterations 200` | 0.035 m, no fall | 0.095 m, no fall | not measured |
//! | `--iterations 800` | 0.084 m, no fall | 0.075 m, no fall | step 228 |
//! | `--upright 300` | −0.110 m, no fall | 0.054 m, no fall | step 202 |
//! | `--upright 100` | 0.051 m, no fall | 0.245 m, step 179 | not measured |
//! | `--stages 8` | −0.253 m, no fall | 0.316 m, step 396 | step 150 |
//!
//! So in every run that measured it the co-design's controller falls sooner on the starting
//! feet than on its own (or only there), but control only can stand as well: the paper's
//! "control only cannot balance" holds for some runs only. A reach of 4 cm instead of 2
//! changed nothing (no vertex reached 2 cm).
//!
//! Walking (issue 17: co-design must walk, not just stand). Two additions, both ours and both
//! off by default because neither made the biped walk without falling: a progress term
//! ([`crate::walker::Walker::progress`], weight `--progress`, default [`PROGRESS`] = 0): the
//! paper's term at every step, averaged over the horizon, which rewards getting ahead early
//! rather than only where the last state is; and a stepping start ([`gait_start`],
//! `--gait A`): the first wave of each hip replaced by amplitude A at `--gait-omega` (5 rad/s),
//! the right hip `--gait-offset` behind the left (π: alternating legs; 0: in phase). Measured
//! with the example's command and these options (2026-11-27, 2 cores shared with another
//! job; distance along y, fall, paper's loss, wall time):
//!
//! | options | control only | co-design | co-design's controller, starting feet |
//! |---|---|---|---|
//! | (defaults; the same after the stepper's damped round) | 0.262 m, no fall, 7.50, 24 s | 0.047 m, no fall, 8.72, 37 s | −0.471 m, step 219 |
//! | `--progress 1` | 0.025 m, no fall, 8.85, 27 s | −0.008 m, no fall, 9.05, 51 s | −0.477 m, step 158 |
//! | `--progress 1 --gait 0.2 --gait-offset 0` | 0.027 m, no fall, 8.84, 38 s | 0.506 m, step 335, 6.34, 78 s | −0.475 m, step 151 |
//! | `--progress 1 --gait 0.1 --gait-offset 0` | 0.061 m, no fall, 8.64, 56 s | 0.499 m, step 329, 6.38, 67 s | −0.465 m, step 156 |
//! | `--progress 1 --gait 0.2` (alternating) | −0.273 m, step 297, 11.01, 75 s | −0.368 m, step 284, 11.49, 82 s | −0.344 m, step 161 |
//! | `--progress 1 --gait 0.2 --gait-offset 0 --stages 8` | 0.462 m, step 220, 6.57, 28 s | 0.028 m, no fall, 8.83, 36 s | −0.426 m, step 83 |
//! | `--progress 1 --gait 0.2 --gait-offset 0 --iterations 800` | 0.051 m, no fall, 8.70, 52 s | 0.044 m, no fall, 8.74, 82 s | −0.469 m, step 161 |
//! | `--progress 10 --gait 0.2 --gait-offset 0` | −0.133 m, no fall, 9.82, 27 s | 0.014 m, no fall, 8.92, 57 s | −0.462 m, step 171 |
//! | `--progress 1 --gait 0.2 --gait-offset 0 --upright 3000` | 0.034 m, no fall, 8.80, 30 s | 0.006 m, no fall, 8.97, 38 s | −0.454 m, step 208 |
//! | `--plateau 20` (halving only) | −0.469 m, step 331, 12.16, 23 s | 0.079 m, no fall, 8.54, 34 s | 0.098 m, no fall |
//! | `--plateau 10` (halving only) | −0.032 m, no fall, 9.19, 23 s | 0.308 m, "no fall" but toppling (44.6° and 13.3 cm down at step 400, 2.8° at 350), 7.25, 34 s | −0.471 m, step 194 |
//! | `--plateau 20` (halving and going back to the best point; 2026-11-27, after the stepper's damped round) | 0.081 m, no fall, 8.52, 24 s | −0.141 m, no fall, 9.87, 35 s | −0.471 m, step 138 |
//! | `--plateau 10` (the same) | 0.082 m, no fall, 8.51, 23 s | −0.468 m, step 336, 12.15, 34 s | −0.473 m, step 226 |
//!
//! A shorter, wider robot (thighs and shins of half-height 4 cm instead of 10, hips at ±10 cm
//! instead of ±7, a 0.5 kg pelvis; not kept) under `--progress 1`: control only 0.053 m,
//! co-design 0.039 m, neither fell.
//!
//! It does not walk, and why, in numbers:
//!
//! - every run ended in one of two states: standing (at most 6.1 cm forward; 13.3 cm back
//!   once, lurching at the end) or fallen (forward 0.46-0.51 m, the biped lying along y on
//!   the ground, paper's loss 6.3-6.6 against 8.6-9.8 standing; backwards −0.27 to −0.37 m
//!   with the legs alternating). The one exception, the defaults' control only at 0.262 m, is
//!   a fall under way at the last step. Nothing between: no run moved its centre of mass
//!   forward by stepping. A forward fall moves the centre of mass as far as 0.5 m of walking
//!   would, which the paper's loss cannot tell apart, and the level term (weight 1000)
//!   charges a fall 320-400, so the best iterates stand unless the last stage never saw a
//!   controller that stays up (the co-design falls at steps 329 and 335 above: losses 334 and
//!   328 were the best of their last stage);
//! - stepping tips it over before the optimiser can shape it: forward rollouts of stepping
//!   starts (a probe, not kept, with `StepSettings::backward` off; single rollouts are only
//!   indicative, as the start falls forward at step 218 there and backwards at 169 in
//!   the example's steps with derivatives) with the legs alternating (hip waves 0.2 or 0.4
//!   rad at 3, 5 or 7 rad/s, knee waves 0 or 0.3 rad, ankle waves 0 or 0.2 rad, 48
//!   combinations, the other waves off) all fell, at steps 55-178 (median 102); with the legs
//!   in phase 16 of 96 stayed up, none more than 4 cm along y. Alternating knee waves (0.3 or
//!   0.6 rad, with the random waves) fell in all 288 combinations on three shorter,
//!   wider robots (legs of half-height 4-6 cm, hips at ±10-12 cm), 260 of them pitching over.
//!   Every hinge turns about x: nothing can shift the weight sideways onto the stance foot or
//!   hold the pelvis level while a knee bends (the pelvis follows the thigh unless the hip's
//!   sines happen to cancel it);
//!   turning the ankles to roll (about y) does not help (a probe, not kept, 2026-11-28, on
//!   commit 031c3da): with both feet flat the legs and pelvis form a closed chain whose only
//!   roll hinges are the two ankles, which cannot sway (both ankles rolling 0.2 rad moved the
//!   pelvis 9 mm sideways), and every gait of alternating knee lifts (0.2 or 0.4 rad) with
//!   ankle roll waves (−0.2 to 0.2 rad, in phase with the lifts) and hip swings (0 to 0.2 rad)
//!   at 3, 5 or 7 rad/s fell (108 of 108 forward rollouts; the 36 with hip swings alone fell
//!   too). A sideways sway in double support needs roll hinges at both the hips and the
//!   ankles, which leaves one pitch hinge per leg of the three that 12 DoF on 7 links give;
//! - the paper's fixed step ᾱ_c = 1e-2 moves the 72 controller parameters by at most 4 (in
//!   norm) in 400 iterations: from a standing start that found standing or falling, never a
//!   gait.
//!
//! Where the paper is silent: Δt = 10 ms, friction μ = 0.8, the authors' contact (support
//! 1 cm, stiffness 1, as the quadruped, [`crate::quadruped`]), wave amplitudes within
//! ±0.6 rad, foot vertices within ±2 cm of where they start, the robot starts at rest with
//! its feet 0.2 mm beyond the barrier's support distance. The paper's trust radii are
//! ᾱ_c = 1e-2 and ᾱ_d = 4e-3 ([`PAPER_RADII`]). Walking distance: how far the centre of mass
//! moved along y; the biped fell if its pelvis tipped more than 45° or sank more than 15 cm
//! ([`crate::walker::first_fall`]).

use crate::walker::{Walker, build_world, capsule_pieces};
use sdrs::prelude::*;

/// Steps of the horizon (the paper's H).
pub const STEPS: usize = 400;
/// Time step (s).
pub const DT: f64 = 0.01;
/// Sines per actuated DoF.
pub const WAVES: usize = 4;
/// The paper's trust-region radii ᾱ_c and ᾱ_d.
pub const PAPER_RADII: (f64, f64) = (1e-2, 4e-3);
/// The paper's goal for the centre of mass (m): 3 m along y (its −z is gravity, as ours).
pub const GOAL: [f64; 3] = [0.0, 3.0, 0.0];
/// PD stiffness (N·m/rad) and damping (N·m·s/rad) of every actuated hinge: the paper's
/// `k_p = 1e3`, `k_d = 1e2` at Δt = 10 ms (`k = 2 k_p`, `c = 2 k_d/Δt`).
pub const GAINS: (f64, f64) = (2e3, 2e4);
/// Friction coefficient (the paper is silent).
pub const MU: f64 = 0.8;
/// Bound of the wave amplitudes (rad).
pub const AMPLITUDE: f64 = 0.6;
/// How far a foot vertex may move along each axis (m).
pub const REACH: f64 = 0.02;
/// How far beyond the contact's support distance the lowest foot vertex starts (m).
pub const CLEARANCE: f64 = 2e-4;
/// The foot capsule's half-height and radius (m).
pub const FOOT: (f64, f64) = (0.03, 0.02);
/// Weight of the level-pelvis term added to the paper's loss ([`crate::walker::WalkLoss`]).
pub const UPRIGHT: f64 = 1000.0;
/// Weight of the progress term added to the paper's loss ([`crate::walker::WalkLoss`]): off,
/// as it did not make the biped walk (see the module docs).
pub const PROGRESS: f64 = 0.0;
/// Stages of the optimisation: the horizon grows from `STEPS / STAGES` to [`STEPS`].
pub const STAGES: usize = 4;
/// The fall test: the pelvis tipped more than this (rad) ...
pub const FALL_TILT: f64 = std::f64::consts::FRAC_PI_4;
/// ... or sank more than this below where it started (m).
pub const FALL_DROP: f64 = 0.15;

/// The biped's links (pelvis first, on a free joint), with `segments` points per ring of its
/// capsule pieces (8: the paper's 96 vertices per foot).
pub fn biped_links(segments: usize) -> Result<Vec<Link>, Box<dyn std::error::Error>> {
    let pelvis = Link::new(
        "pelvis",
        None,
        Isometry3::identity(),
        JointKind::Free,
        vec![ConvexHull::cuboid(Vector3::new(0.1, 0.05, 0.04))?],
        MassModel::Lumped { mass: 1.0 },
    );
    let hinge = JointKind::Revolute { axis: Vector3::x() };
    // The foot: a capsule along y, shifted so that the ankle sits above it, above its middle.
    let foot_offset = Vector3::new(0.0, -(FOOT.0 + FOOT.1), -0.025);
    let foot: Vec<ConvexHull> = capsule_pieces(FOOT.1, FOOT.0, Vector3::y(), segments)?
        .into_iter()
        .map(|h| ConvexHull::new(h.vertices().iter().map(|v| v + foot_offset).collect()))
        .collect::<Result<_, _>>()?;
    let mut links = vec![pelvis];
    for (side, x) in [("left", -0.07), ("right", 0.07)] {
        let thigh = links.len();
        links.push(
            Link::new(
                format!("{side}_thigh"),
                Some(0),
                Isometry3::translation(x, 0.0, -0.04),
                hinge.clone(),
                capsule_pieces(0.025, 0.1, -Vector3::z(), segments)?,
                MassModel::Lumped { mass: 0.3 },
            )
            .with_limits(-1.0, 1.0),
        );
        links.push(
            Link::new(
                format!("{side}_shin"),
                Some(thigh),
                Isometry3::translation(0.0, 0.0, -0.25),
                hinge.clone(),
                capsule_pieces(0.02, 0.1, -Vector3::z(), segments)?,
                MassModel::Lumped { mass: 0.2 },
            )
            .with_limits(-1.5, 0.1),
        );
        links.push(
            Link::new(
                format!("{side}_foot"),
                Some(thigh + 1),
                Isometry3::translation(0.0, 0.0, -0.24),
                hinge.clone(),
                foot.clone(),
                MassModel::Lumped { mass: 0.1 },
            )
            .with_limits(-0.8, 0.8),
        );
    }
    Ok(links)
}

/// The controller's start with a stepping rhythm: draw `draw` of the waves
/// ([`Walker::initial_drawn`]; 0 is [`Walker::initial`]) with
/// the first wave of each hip replaced by one of amplitude `amplitude` (rad) at `omega`
/// (rad/s), the right hip's phase `offset` (rad) behind the left's (π: the legs alternate;
/// 0: they swing together). The wave must lie in the controller's box (|amplitude| within
/// [`AMPLITUDE`], ω in [1.2, 7] rad/s, `offset` in [0, 2π]), else an error.
pub fn gait_start(
    walker: &Walker,
    draw: usize,
    amplitude: f64,
    omega: f64,
    offset: f64,
) -> Result<DVector<f64>, Box<dyn std::error::Error>> {
    if !(amplitude.abs() <= AMPLITUDE
        && (1.2..=7.0).contains(&omega)
        && (0.0..=2.0 * std::f64::consts::PI).contains(&offset))
    {
        return Err(format!(
            "gait start (amplitude {amplitude}, omega {omega}, offset {offset}): needs |amplitude| <= {AMPLITUDE}, omega in [1.2, 7], offset in [0, 2 pi]"
        )
        .into());
    }
    if walker.dofs.len() != 6 {
        return Err(format!(
            "gait start: the biped has 6 actuated DoFs, not {}",
            walker.dofs.len()
        )
        .into());
    }
    let mut c = walker.initial_drawn(draw);
    let per_dof = 3 * walker.waves;
    // The hips are the first DoF of each leg (hip, knee, ankle).
    for (hip, phase) in [(0, 0.0), (3, -offset)] {
        c[hip * per_dof] = amplitude;
        c[hip * per_dof + 1] = omega;
        c[hip * per_dof + 2] = phase;
    }
    Ok(c)
}

/// The authors' contact (support 1 cm, stiffness 1) with friction [`MU`].
pub fn contact() -> Result<ContactSettings, Box<dyn std::error::Error>> {
    Ok(sdrs::dynamics::scenes::sdrs_contact(Some(MU))?)
}

/// The biped task over `steps` steps, control only (call [`Walker::codesign`] for the feet):
/// flat ground, the authors' contact ([`contact`]), PD gains [`GAINS`] on the 6 hinges.
pub fn biped(steps: usize) -> Result<Walker, Box<dyn std::error::Error>> {
    biped_with(steps, Some(contact()?))
}

/// [`biped`] with the given hull contact (`None`: sdrs's calibrated default of `World`;
/// friction [`MU`] is added when the contact has none).
pub fn biped_with(
    steps: usize,
    contact: Option<ContactSettings>,
) -> Result<Walker, Box<dyn std::error::Error>> {
    let world = build_world(biped_links(8)?, 0.0, CLEARANCE, MU, DT, contact)?;
    let goal = Vector3::from(GOAL);
    let mut walker = Walker::new(world, "pelvis", GAINS, goal, goal.normalize(), steps, WAVES)?;
    walker.floor = Some(0.0);
    Ok(walker)
}
