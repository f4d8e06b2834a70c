//! Suite `diff`: the cost of derivatives (SDRS sec. IV-D).
//!
//! - `step_jacobian`: one step's Jacobians `∂θ^{t+1}/∂(θ^t, ξ^{t−1}, θ*, θ̇*, d)` by the
//!   implicit function theorem — the linearisation at the solution (Hessian and mixed blocks,
//!   `Simulator::linearize`) plus one factorisation and the solves (`step_jacobian`) — without
//!   contact, for a 6-DoF arm, an 18-DoF floating quadruped and a 36-DoF floating humanoid,
//!   all loaded from URDF. Pinocchio's ABA derivatives on UR5 / Go1 / Talos take 3.7 / 11 /
//!   64 µs on this machine (the numbers).
//! - `step_jacobian_robots`: the full step Jacobian (`jacobian`, ids `step_jacobian_robots/
//!   jacobian/{ur5,solo12,talos}`: `Simulator::linearize` with its one factorisation of `H`,
//!   then `step_jacobian`), in the state and the controls (no design blocks), of a no-contact
//!   step for the robots of
//!   `sdrs-robot-data` (UR5 fixed, Solo-12 and TALOS reduced on floating bases), beside the
//!   `step_jacobian` alone (`solves`: with the factor the linearisation carries). The ids are the
//!   robots' `sdrs_robot_data` names, to join with Pinocchio's `computeABADerivatives` timings
//!   (4.55 / 13.3 / 48.3 µs, issue 14's target is at most twice those).
//! - `factor_step`: one step of the scenes of many bodies whose Hessian the factorisation
//!   handles (`factor_step/billiards/16`, 16 balls under long-range contact, 30 steps in;
//!   `factor_step/rotating_chains/4`, four chains of 4 links, 100 steps in), to compare
//!   before/after a change of the factorisation.
//! - `step_jacobian_contact`: the same on the rotating chains after 100 steps, with contact
//!   and friction, against the number of active hull pairs. (The contact pairs' vertex
//!   derivatives are computed either way; only the link terms' and the assembly of the design
//!   blocks are skipped without design.)
//! - `chain_reach`: one rollout of H = 250 steps and one adjoint pass over it, for the
//!   chain-reach co-design scene (25 DoF), with every step's blocks recorded and with states
//!   only (blocks recomputed in the backward pass).
//! - `step_batch`: a batch of 16 ants of the motion suite (`ant_trot`, 0.25 s into standing)
//!   stepped as coordinate pairs on all cores (`StepBatch::step`, cold: warm starts reset),
//!   and the vector-Jacobian products of the 16 steps (`vjp`): the engine under
//!   `sdrs.torch.step` and the vector environments.
//! - `gather_window`: one evaluation (rollout and adjoint) of the first receding-horizon
//!   window of the long-range paper's Gather at its scale (10 cubes, the rod and the ground
//!   under long-range contact and friction with the counted far field), 8 frames of the
//!   trivial plan: the unit of work of `long_range_tabletop gather --full`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::DVector;
use sdrs_benches::motion::ant_trot;
use sdrs_benches::{JacobianScene, jacobian, jacobian_scene, one_step, report_section, robots};
use sdrs_diff::{
    LossGradient, Recording, StepBatch, adjoint, identity_chart, rollout_policy, step_jacobian,
};
use sdrs_dynamics::scenes::{billiards, rotating_chains};
use sdrs_dynamics::{Control, Motion, Simulator, State, StepSettings};
use sdrs_examples::chain_reach::{STEPS, chain_reach};
use sdrs_examples::long_range::gather::gather;
use sdrs_examples::long_range::tabletop::{Contact, counted_far_field};

fn bench_jacobian(c: &mut Criterion) {
    let mut group = c.benchmark_group("step_jacobian");
    let robots = [
        ("arm6", robots::arm6().expect("arm"), false),
        ("quadruped", robots::quadruped().expect("quadruped"), true),
        ("humanoid", robots::humanoid().expect("humanoid"), true),
    ];
    for (name, model, floating) in robots {
        let n = model.dof();
        let actuated = if floating { 6 } else { 0 };
        let mut control = Control::passive(&model);
        for j in actuated..n {
            control.kp[j] = 200.0; // N·m/rad
            control.kd[j] = 100.0; // N·m·s/rad
            control.position[j] = 0.3 * (j as f64).sin();
        }
        let start = State::new(
            &model,
            DVector::from_fn(n, |j, _| {
                if j < actuated {
                    0.0
                } else {
                    0.2 * (1.3 * j as f64).cos()
                }
            }),
        )
        .expect("a valid state");
        for design in [false, true] {
            let mut settings = StepSettings::new(0.01).expect("dt");
            settings.design_derivatives = design;
            let (mut sim, before, after, control) =
                one_step(&model, settings, control.clone(), start.clone());
            let what = if design {
                "jacobian with design"
            } else {
                "jacobian"
            };
            group.bench_function(BenchmarkId::new(what, format!("{name} ({n} DoF)")), |b| {
                b.iter(|| jacobian(&mut sim, &before, &after, &control))
            });
        }
        let (mut sim, before, _, control) =
            one_step(&model, StepSettings::new(0.01).expect("dt"), control, start);
        group.bench_function(
            BenchmarkId::new("forward step", format!("{name} ({n} DoF)")),
            |b| {
                b.iter(|| {
                    sim.step(&before.state, &before.previous, &control)
                        .expect("the step converges")
                        .1
                        .iterations
                })
            },
        );
    }
    group.finish();
}

fn bench_jacobian_robots(c: &mut Criterion) {
    let mut group = c.benchmark_group("step_jacobian_robots");
    for name in ["ur5", "solo12", "talos"] {
        let JacobianScene {
            mut sim,
            before,
            after,
            control,
        } = jacobian_scene(name);
        group.bench_function(BenchmarkId::new("jacobian", name), |b| {
            b.iter(|| jacobian(&mut sim, &before, &after, &control))
        });
        let lin = sim
            .linearize(&after.state, &before.state, &before.previous, &control)
            .expect("linearise");
        let model = sim.model().clone();
        group.bench_function(BenchmarkId::new("solves", name), |b| {
            b.iter(|| step_jacobian(&model, &lin, 0).expect("solves").current[(0, 0)])
        });
    }
    group.finish();
}

fn bench_factor_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("factor_step");
    group.sample_size(10);
    let scene = billiards(16, 2.0, 0.01).expect("scene");
    let control = scene.scene.control.clone();
    let mut sim = Simulator::with_contact(
        scene.scene.model.clone(),
        scene.scene.settings.clone(),
        Box::new(scene.contact),
    )
    .expect("valid settings");
    let mut motion = scene.start.clone();
    for _ in 0..30 {
        sim.advance(&mut motion, &control).expect("steps converge");
    }
    group.bench_function(BenchmarkId::new("billiards", 16), |b| {
        b.iter(|| {
            sim.step(&motion.state, &motion.previous, &control)
                .expect("steps converge")
                .1
                .iterations
        })
    });
    let scene = rotating_chains(4, 0.01).expect("scene");
    let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone()).expect("scene");
    let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    for _ in 0..100 {
        sim.advance(&mut motion, &scene.control)
            .expect("scene steps converge");
    }
    group.bench_function(BenchmarkId::new("rotating_chains", 4), |b| {
        b.iter(|| {
            sim.step(&motion.state, &motion.previous, &scene.control)
                .expect("steps converge")
                .1
                .iterations
        })
    });
    group.finish();
}

fn bench_jacobian_contact(c: &mut Criterion) {
    let mut group = c.benchmark_group("step_jacobian_contact");
    let mut md = String::from(
        "## step_jacobian_contact inputs\n\n| N (links per chain) | DoF | active hull pairs |\n|---|---|---|\n",
    );
    for links in [2, 4, 8] {
        let scene = rotating_chains(links, 0.01).expect("scene");
        let model = scene.model.clone();
        let mut sim = Simulator::new(model.clone(), scene.settings.clone()).expect("scene");
        let mut before = Motion::at_rest(&model, State::zero(&model));
        for _ in 0..100 {
            sim.advance(&mut before, &scene.control)
                .expect("scene steps converge");
        }
        let mut after = before.clone();
        let report = sim.advance(&mut after, &scene.control).expect("step");
        md.push_str(&format!(
            "| {links} | {} | {} |\n",
            model.dof(),
            report.active_pairs
        ));
        for design in [false, true] {
            let mut settings = scene.settings.clone();
            settings.design_derivatives = design;
            let mut sim = Simulator::new(model.clone(), settings).expect("scene");
            let what = if design {
                "jacobian with design"
            } else {
                "jacobian"
            };
            let input = format!("N={links}, {} pairs", report.active_pairs);
            group.bench_function(BenchmarkId::new(what, input), |b| {
                b.iter(|| jacobian(&mut sim, &before, &after, &scene.control))
            });
        }
    }
    md.push('\n');
    report_section(&md);
    group.finish();
}

fn bench_chain_reach(c: &mut Criterion) {
    let mut group = c.benchmark_group("chain_reach");
    group.sample_size(10);
    let scene = chain_reach().expect("scene");
    let model = scene.model.clone();
    let spline = DVector::from_vec(vec![0.1, 0.2, 0.2, 0.3]);
    let start = Motion::at_rest(&model, State::zero(&model));
    let record = |sim: &mut Simulator, recording| {
        rollout_policy(sim, &start, &scene.policy, &spline, STEPS, recording).expect("rollout")
    };
    let loss = LossGradient::final_state(&model, STEPS, DVector::from_element(model.dof(), 1.0));
    // Blocks kept (the default) and states only (blocks recomputed in the backward pass, on a
    // simulator without the forward pass's blocks).
    for (recording, what) in [
        (Recording::Blocks, "blocks"),
        (Recording::States, "states only"),
    ] {
        let mut settings = scene.settings.clone();
        settings.backward = recording == Recording::Blocks;
        let mut sim = Simulator::new(model.clone(), settings).expect("scene");
        group.bench_function(BenchmarkId::new(format!("rollout, {what}"), STEPS), |b| {
            b.iter(|| record(&mut sim, recording).steps())
        });
        let trajectory = record(&mut sim, recording);
        group.bench_function(BenchmarkId::new(format!("adjoint, {what}"), STEPS), |b| {
            b.iter(|| {
                adjoint(&mut sim, &trajectory, &loss)
                    .expect("adjoint")
                    .parameters[0]
            })
        });
    }
    group.finish();
}

fn bench_gather_window(c: &mut Criterion) {
    let mut group = c.benchmark_group("gather_window");
    group.sample_size(10);
    let frames = 8;
    let mut task = gather(10, frames, Contact::LongRange).expect("task");
    let contact = task.settings.contact.take().expect("long-range contact");
    task.settings.contact = Some(counted_far_field(contact).expect("long-range settings"));
    let plan = task.policy.initial();
    let design = DVector::zeros(0);
    group.bench_function(BenchmarkId::new("evaluate", frames), |b| {
        b.iter(|| {
            task.evaluate(&plan, &design)
                .expect("the window evaluates")
                .loss
        })
    });
    group.finish();
}

fn bench_step_batch(c: &mut Criterion) {
    const ANTS: usize = 16;
    let mut group = c.benchmark_group("step_batch");
    group.sample_size(20);
    let ant = ant_trot().expect("the ant");
    let mut settings = ant.sim.settings().clone();
    settings.backward = true;
    let mut sim = Simulator::new(ant.model.clone(), settings).expect("the simulator");
    let mut motion = ant.start.clone();
    let mut control = Control::passive(&ant.model);
    (ant.schedule)(0, &mut control);
    for _ in 0..50 {
        sim.advance(&mut motion, &control).expect("standing");
    }
    let previous = ant
        .model
        .state_from_poses(&motion.previous, &motion.state)
        .expect("the previous state");
    // Identity-chart coordinates (the torso's XYZ angles), as `step_coordinates` takes them.
    let q =
        identity_chart(&ant.model, &motion.state, &motion.state.q).expect("clear of gimbal lock");
    let q_prev = identity_chart(&ant.model, &previous, &q).expect("clear of gimbal lock");
    let mut batch = StepBatch::new(&sim, ANTS).expect("the batch");
    let pairs = (vec![q_prev; ANTS], vec![q; ANTS], vec![control; ANTS]);
    group.bench_function(BenchmarkId::new("step", ANTS), |b| {
        b.iter(|| {
            batch.reset(None).expect("all");
            batch
                .step(&pairs.0, &pairs.1, &pairs.2)
                .expect("16 ants step")
        })
    });
    let steps = batch
        .step(&pairs.0, &pairs.1, &pairs.2)
        .expect("16 ants step");
    let gradient = DVector::from_element(ant.model.dof(), 1.0);
    group.bench_function(BenchmarkId::new("vjp", ANTS), |b| {
        b.iter(|| {
            steps
                .iter()
                .map(|s| s.vjp(&ant.model, &gradient).expect("vjp").current[0])
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_step_batch,
    bench_jacobian,
    bench_jacobian_robots,
    bench_factor_step,
    bench_jacobian_contact,
    bench_chain_reach,
    bench_gather_window
);
criterion_main!(benches);
