//! The quadruped benchmark at a reduced scale: 60 steps instead of 550, 4 iterations with trust radii (0.05, 1e-3) instead of the
//! paper's (0.3, 4e-3), whose first steps are too long for so short a horizon. The loss of
//! control only and of co-design falls, the gradients (controller and foot vertices, with
//! friction) match central differences, and every state of the trajectory is collision-free;
//! over the paper's 550 steps the travel barely depends on the feet's resolution (sec. V-I).

use sdrs::diff::StepRule;
use sdrs::prelude::DVector;
use sdrs_examples::quadruped::{
    AMPLITUDE, BaseTurn, REACH, authors_contact, quadruped, quadruped_of, spider_turning,
};
use sdrs_examples::walker::{Run, Walker, centre_of_mass, initial_waves, initial_waves_drawn};

const STEPS: usize = 60;

/// `iterations` fixed steps of the reduced scale's lengths (0.05, 1e-3) from `c`.
fn optimise(walker: &Walker, c: DVector<f64>, iterations: usize) -> Run {
    walker
        .optimise(
            c,
            None,
            iterations,
            AMPLITUDE,
            0.05,
            1e-3,
            REACH,
            StepRule::Fixed,
            |_| {},
        )
        .unwrap()
}

#[test]
fn quadruped_gradients_match_differences() {
    let mut walker = quadruped(STEPS, 8).unwrap().codesign().unwrap();
    walker.objective.settings.tolerance = 1e-5;
    let c = walker.initial();
    let p = DVector::zeros(walker.objective.design.parameters());
    let at = walker.objective.evaluate(&c, &p).unwrap();
    let h = 1e-5;
    // Entries of the waves of a hip yaw (DoF 0), a hip pitch (DoF 1) and a knee (DoF 2),
    // 3 · 4 parameters each.
    let controls = [0, 1, 2, 3 * 4 + 1, 3 * 4 * 2 + 2];
    let lowest = (0..96)
        .min_by(|&a, &b| {
            let model = &walker.objective.model;
            let foot = model.link_index(&walker.feet[0]).unwrap();
            let z = |v: usize| {
                let (hull, k) = (v / 32, v % 32);
                model.links()[foot].hulls[hull].vertices()[k].z
            };
            z(a).total_cmp(&z(b))
        })
        .unwrap();
    for &k in &controls {
        let mut e = DVector::zeros(c.len());
        e[k] = h;
        let plus = walker.objective.evaluate(&(&c + &e), &p).unwrap().loss;
        let minus = walker.objective.evaluate(&(&c - &e), &p).unwrap().loss;
        let fd = (plus - minus) / (2.0 * h);
        let scale = at.parameters.amax();
        assert!(
            (at.parameters[k] - fd).abs() < 1e-4 * scale,
            "dL/dc[{k}]: adjoint {}, differences {fd}",
            at.parameters[k]
        );
    }
    // The design gradient with friction, at a tighter Newton tolerance. The loss is rough in
    // the z of vertices that carry contact (the barrier's force law bends sharply near its
    // support), so each entry is differenced with a step it is smooth over, as measured: the x
    // of foot 0's lowest vertex (adjoint 1.639924e-2; differences at 1e-5: 1.639926e-2), its z
    // (-1.820973; at 1e-4: +0.969, 1e-5: -1.788, 1e-6: -1.82064, 1e-7: -1.820969), the
    // largest entry, the z of a foot's tip (96.02408; at 1e-4: 147.4, 1e-5: 96.40, 1e-7:
    // 96.02413), and the z of a vertex high up, smooth but small, where Newton's tolerance
    // dominates short steps (-2.230228e-4; at 1e-3: -2.2302268e-4, 1e-4: -2.230248e-4, 1e-5:
    // -2.229989e-4, 1e-6: -2.229044e-4).
    walker.objective.settings.tolerance = 3e-8;
    let at = walker.objective.evaluate(&c, &p).unwrap();
    let design = at.design.clone().unwrap();
    let largest = design.iamax();
    let checks = [
        (3 * lowest, 1e-5),
        (3 * lowest + 2, 1e-7),
        (largest, 1e-7),
        (3 * 5 + 2, 1e-3),
    ];
    for (k, h) in checks {
        let mut e = DVector::zeros(p.len());
        e[k] = h;
        let plus = walker.objective.evaluate(&c, &(&p + &e)).unwrap().loss;
        let minus = walker.objective.evaluate(&c, &(&p - &e)).unwrap().loss;
        let fd = (plus - minus) / (2.0 * h);
        assert!(
            (design[k] - fd).abs() < 1e-4 * design[k].abs(),
            "dL/dp[{k}] (h = {h:e}): adjoint {}, differences {fd}",
            design[k]
        );
    }
}

#[test]
fn quadruped_control_only_and_codesign_lower_the_loss_without_collisions() {
    let control = quadruped(STEPS, 8).unwrap();
    let codesign = control.clone().codesign().unwrap();
    for (name, walker) in [("control only", control), ("co-design", codesign)] {
        let run = optimise(&walker, walker.initial(), 4);
        let (first, last) = (run.history[0], *run.history.last().unwrap());
        assert!(last < first, "{name}: the loss went from {first} to {last}");
        let gap = walker.clearance(&run).unwrap();
        assert!(gap > 0.0, "{name}: hulls touched: smallest gap {gap}");
        eprintln!("{name}: loss {first} -> {last}, smallest gap {gap:.2e} m");
    }
}

#[test]
fn the_papers_loss_as_written_drives_the_spider_down_the_slope() {
    let walker = quadruped(STEPS, 8).unwrap().as_written();
    let start = walker.initial();
    let before = *walker.rollout_travel(&start).unwrap().last().unwrap();
    let run = optimise(&walker, start, 4);
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    assert!(last < first, "the loss went from {first} to {last}");
    assert!(first < 0.0, "R = -|COM - goal|^2 is negative: {first}");
    let after = *walker
        .travel(&run.design, &run.end.trajectory)
        .unwrap()
        .last()
        .unwrap();
    assert!(
        after < before,
        "away from the goal is down the slope: travel {before} m -> {after} m"
    );
    let gap = walker.clearance(&run).unwrap();
    assert!(gap > 0.0, "hulls touched: smallest gap {gap}");
    eprintln!("as written: loss {first} -> {last}, travel {before} -> {after} m");
}

#[test]
fn a_control_step_length_of_zero_moves_the_feet_alone() {
    // `--feet-only`: the co-design with the controller held where it starts.
    let walker = quadruped(STEPS, 8)
        .unwrap()
        .codesign()
        .unwrap()
        .as_written();
    let c = walker.initial();
    let run = walker
        .optimise(
            c.clone(),
            None,
            3,
            AMPLITUDE,
            0.0,
            1e-3,
            REACH,
            StepRule::Fixed,
            |_| {},
        )
        .unwrap();
    assert_eq!(run.controller, c);
    assert!(run.design.amax() > 0.0, "the feet moved");
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    assert!(last < first, "the loss went from {first} to {last}");
}

#[test]
fn the_walkers_centre_of_mass_is_the_robots() {
    let walker = quadruped(STEPS, 8).unwrap();
    let model = &walker.objective.model;
    let mut state = sdrs::prelude::State::zero(model);
    for (k, q) in state.q.iter_mut().enumerate() {
        *q = 0.3 * (1.3 * k as f64).sin();
    }
    let ours = centre_of_mass(model, &walker.robot, &state);
    let root = model.link("body").unwrap();
    let reference = sdrs::dynamics::RigidBodyData::new(model)
        .center_of_mass(model, &state, Some(root))
        .unwrap();
    assert!(
        (ours.coords - reference).norm() < 1e-12,
        "{ours} vs {reference}"
    );
    // The world starts with the robot's centre of mass at the origin.
    let start = centre_of_mass(model, &walker.robot, &walker.objective.start);
    assert!(start.coords.norm() < 1e-12, "{start}");
}

#[test]
fn evenly_distributed_mass_keeps_each_links_mass_and_changes_its_inertia() {
    use sdrs::prelude::MassModel;
    use sdrs_examples::quadruped::{authors_contact, quadruped_of, spider};
    use sdrs_examples::walker::evenly_distributed;
    // The paper's horizon: the first steps are the drop onto the slope, where the legs'
    // inertia shows (at 60 steps the walks are -6.12 and -6.33 cm, 3.3% apart).
    let steps = sdrs_examples::quadruped::STEPS;
    let lumped = quadruped(steps, 8).unwrap();
    let links = evenly_distributed(spider(8).unwrap()).unwrap();
    let even = quadruped_of(links, steps, Some(authors_contact().unwrap())).unwrap();
    let (a, b) = (&lumped.objective.model, &even.objective.model);
    // The links with mass (the base's and hips' joint frames have none).
    for &l in lumped.robot.iter().filter(|&&l| a.mass(l) > 0.0) {
        assert!(matches!(b.links()[l].mass, MassModel::Solid { .. }));
        assert!(
            (a.mass(l) - b.mass(l)).abs() < 1e-12 * a.mass(l),
            "link {l}'s mass"
        );
        // Mass at the vertices sits farther out than mass through the solid.
        // Σ m |x − x̄|²: the trace of the second moment about the link's centre of mass.
        let spread = |model: &sdrs::prelude::Model| {
            let (s, m) = (model.second_moment(l), model.mass(l));
            let first = s.fixed_view::<3, 1>(0, 3) / m;
            s.fixed_view::<3, 3>(0, 0).trace() - m * first.norm_squared()
        };
        assert!(spread(a) > spread(b), "link {l}'s spread");
    }
    // The world starts with the robot's centre of mass at the origin under either.
    let start = centre_of_mass(b, &even.robot, &even.objective.start);
    assert!(start.coords.norm() < 1e-12, "{start}");
    // Both roll out under the starting controller and agree to 1% (the paper's Fig. 21 curves
    // overlap; measured: -2.9516 and -2.9288 m, 0.77%; under a controller optimised for 40
    // iterations they part after about 400 steps, see `examples/quadruped.rs`).
    let c = lumped.initial();
    let (da, db) = (
        *lumped.rollout_travel(&c).unwrap().last().unwrap(),
        *even.rollout_travel(&c).unwrap().last().unwrap(),
    );
    eprintln!("travel {da} m (vertex-concentrated) vs {db} m (evenly distributed)");
    assert!((da - db).abs() < 1e-2 * da.abs(), "{da} vs {db}");
}

#[test]
fn the_spider_has_the_papers_16_dof() {
    // 4 on the body (3 translations and a yaw), 3 per leg (hip yaw and pitch, knee), of which
    // the legs' 12 are driven; 9 links carry mass.
    let walker = quadruped(STEPS, 8).unwrap();
    let model = &walker.objective.model;
    assert_eq!(model.dof(), 16);
    assert_eq!(walker.dofs.len(), 12);
    let massive = walker.robot.iter().filter(|&&l| model.mass(l) > 0.0);
    assert_eq!(massive.count(), 9);
}

/// Under the starting controller (waves of 0.01-0.04 rad) the yaw-base spider stands on one
/// foot at a time and swings about it down the slope; the pitch-base spider keeps a front and
/// a back foot down and hardly moves (`BaseTurn`'s docs).
#[test]
fn a_body_that_can_only_turn_pivots_down_the_slope_on_one_foot() {
    const STEPS: usize = 200;
    let run = |turn| {
        let links = spider_turning(8, turn).unwrap();
        let walker = quadruped_of(links, STEPS, Some(authors_contact().unwrap())).unwrap();
        let c = walker.initial();
        let travel = walker.rollout_travel(&c).unwrap()[STEPS];
        // The same rollout through the optimiser (no step taken), for its gait.
        let run = optimise(&walker, c, 0);
        (travel, walker.gait(&run).unwrap())
    };
    let ((yaw, yaw_gait), (pitch, pitch_gait)) = (run(BaseTurn::Yaw), run(BaseTurn::Pitch));
    eprintln!(
        "after {STEPS} steps: yaw base {yaw} m, {yaw_gait}; pitch base {pitch} m, {pitch_gait}"
    );
    assert!(yaw < -0.3, "{yaw}");
    assert!(pitch.abs() < 0.05, "{pitch}");
    // At most one foot down on most states, against two or more.
    let states = STEPS + 1;
    assert!(
        2 * (yaw_gait.feet_down[0] + yaw_gait.feet_down[1]) > states,
        "{yaw_gait}"
    );
    assert!(
        2 * pitch_gait.feet_down[2..].iter().sum::<usize>() > states,
        "{pitch_gait}"
    );
    assert!(
        yaw_gait.top_speed > 5.0 * pitch_gait.top_speed,
        "{yaw_gait} / {pitch_gait}"
    );
}

/// The quadruped's co-design run (`quadruped`, defaults) at iteration 61: controller and foot
/// vertices (one line each). Step 450 of its rollout, a foot sliding on the slope, took 250
/// undamped Newton iterations (line-search steps of 1/64) and failed at the cap of 100, which
/// cost the run that iteration; then a damped round after the cap finished it. Damped from its
/// ninth iteration after cut steps ([`sdrs::dynamics::Simulator::step`]), it now converges
/// within the cap (42 iterations), and the whole evaluation with its gradients goes through.
#[test]
fn a_sliding_foot_converges_damped_within_the_newton_cap() {
    let text = include_str!("data/quadruped_codesign_iteration61.csv");
    let mut lines = text.lines().map(|line| {
        DVector::from_vec(
            line.split(',')
                .map(|x| x.parse::<f64>().expect("a number"))
                .collect(),
        )
    });
    let (c, p) = (lines.next().unwrap(), lines.next().unwrap());
    let walker = quadruped(550, 8).unwrap().codesign().unwrap();
    assert_eq!(walker.objective.settings.max_iterations, 100);
    let e = walker.objective.evaluate(&c, &p).unwrap();
    let iterations = &e.trajectory.iterations;
    eprintln!("step 450: {} Newton iterations", iterations[450]);
    assert!(
        iterations[450] < 100,
        "step 450 took {} iterations",
        iterations[450]
    );
    assert!(e.loss.is_finite() && e.parameters.iter().all(|g| g.is_finite()));
    assert!(e.design.unwrap().iter().all(|g| g.is_finite()));
}

#[test]
fn wave_draws_differ_within_the_issues_distributions() {
    assert_eq!(initial_waves_drawn(12, 4, 0), initial_waves(12, 4));
    let draws: Vec<_> = (0..3).map(|d| initial_waves_drawn(12, 4, d)).collect();
    for (d, c) in draws.iter().enumerate() {
        for wave in c.as_slice().chunks(3) {
            let [a, w, phi] = [wave[0], wave[1], wave[2]];
            assert!((0.01..=0.04).contains(&a), "draw {d}: amplitude {a}");
            assert!(
                (3.0 - 0.44..=3.0 + 0.44).contains(&w),
                "draw {d}: frequency {w}"
            );
            assert!((-std::f64::consts::PI..=std::f64::consts::PI).contains(&phi));
        }
        for other in &draws[..d] {
            assert!((c - other).amax() > 0.01, "draw {d} repeats an earlier one");
        }
    }
    // In Hz the frequencies are 2π times higher, the rest unchanged.
    let walker = quadruped(STEPS, 8).unwrap();
    let (rad, hz) = (
        walker.initial_drawn(1),
        walker.clone().in_hertz().initial_drawn(1),
    );
    for k in 0..rad.len() {
        let scale = if k % 3 == 1 {
            2.0 * std::f64::consts::PI
        } else {
            1.0
        };
        assert_eq!(hz[k], rad[k] * scale);
    }
}

#[test]
fn the_travel_barely_depends_on_the_feet_resolution() {
    // SDRS sec. V-I (Fig. 20, `quadruped --resolution`): the same starting controller over
    // the paper's 550 steps on spiders whose legs have M = 96 and 192 vertices. Measured:
    // −2.9516 and −2.9251 m, 0.9% apart (the paper's four resolutions: ±2%; its spider walks,
    // ours pivots down the slope under the starting controller, see `quadruped`'s docs).
    let travel = |segments| {
        let walker = quadruped(550, segments).unwrap();
        *walker
            .rollout_travel(&walker.initial())
            .unwrap()
            .last()
            .unwrap()
    };
    let (coarse, fine) = (travel(8), travel(16));
    eprintln!("travel: M = 96 {coarse} m, M = 192 {fine} m");
    assert!(coarse.abs() > 1.0);
    assert!(
        (coarse - fine).abs() < 0.03 * coarse.abs(),
        "M = 96: {coarse} m, M = 192: {fine} m"
    );
}

#[test]
fn an_exported_spider_reloads_with_its_mass_and_its_replay_holds_the_controller() {
    // `Walker::export`, which the quadruped and biped examples call for the MuJoCo replay
    // (`benches/reference/mujoco_replay.py`): the URDF reads back with the walker's links
    // and mass, and `replay.json` holds the run's horizon, gains and every wave of `c`.
    use sdrs::dynamics::{UrdfOptions, load_urdf};
    let walker = quadruped(STEPS, 8).unwrap().codesign().unwrap();
    let c = initial_waves_drawn(walker.dofs.len(), walker.waves, 3);
    let mut p = DVector::zeros(walker.objective.design.parameters());
    p[0] = 5e-3;
    let dir = std::env::temp_dir().join(format!("sdrs-walker-export-{}", std::process::id()));
    let replay = walker.export(&c, &p, 1.25, &dir).unwrap();
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay).unwrap()).unwrap();
    assert_eq!(spec["steps"], STEPS);
    assert_eq!(spec["sdrs_travel_m"], 1.25);
    assert_eq!(spec["root"], "body");
    let joints = spec["joints"].as_array().unwrap();
    assert_eq!(joints.len(), walker.dofs.len());
    for (a, joint) in joints.iter().enumerate() {
        let waves = joint["waves"].as_array().unwrap();
        assert_eq!(waves.len(), walker.waves);
        for (w, wave) in waves.iter().enumerate() {
            for (k, value) in wave.as_array().unwrap().iter().enumerate() {
                assert_eq!(value.as_f64().unwrap(), c[3 * (a * walker.waves + w) + k]);
            }
        }
    }
    let urdf = dir.join(spec["urdf"].as_str().unwrap());
    let options = UrdfOptions {
        keep_convex_meshes: true,
        ..UrdfOptions::default()
    };
    let back = load_urdf(&urdf, &options).unwrap();
    let model = &walker.objective.model;
    let mass = |m: &sdrs::prelude::Model, links: &mut dyn Iterator<Item = usize>| -> f64 {
        links.map(|l| m.mass(l)).sum()
    };
    let robot_mass = mass(model, &mut walker.robot.iter().copied());
    let back_mass = mass(&back, &mut (0..back.links().len()));
    eprintln!(
        "{} links back ({} robot links), mass {back_mass} kg against {robot_mass} kg",
        back.links().len(),
        walker.robot.len()
    );
    assert!((back_mass - robot_mass).abs() < 1e-9 * robot_mass);
    for name in spec["links"].as_array().unwrap() {
        assert!(
            back.link(name.as_str().unwrap()).is_ok(),
            "{name} not in the URDF"
        );
    }
    // The foot carries the design: every reloaded hull vertex is a designed one (the
    // import keeps each piece's extreme points, read in single precision: to 1e-6 m), and
    // the vertices the design moved are no longer where they started.
    let designed = walker.objective.design.model(model, &p).unwrap();
    let foot = &walker.feet[0];
    let vertices = |m: &sdrs::prelude::Model, l: usize| -> Vec<sdrs::prelude::Point3<f64>> {
        m.links()[l]
            .hulls
            .iter()
            .flat_map(|h| h.vertices().iter().copied())
            .collect()
    };
    let nearest = |v: &sdrs::prelude::Point3<f64>, among: &[sdrs::prelude::Point3<f64>]| {
        among
            .iter()
            .map(|w| (w - v).norm())
            .fold(f64::INFINITY, f64::min)
    };
    let l = model.link_index(foot).unwrap();
    let (before, after) = (vertices(model, l), vertices(&designed, l));
    let reloaded = vertices(&back, back.link_index(foot).unwrap());
    for v in &reloaded {
        assert!(
            nearest(v, &after) < 1e-6,
            "{v} of the URDF's {foot} is not designed"
        );
    }
    let moved: Vec<_> = before
        .iter()
        .zip(&after)
        .filter(|(a, b)| (*a - *b).norm() > 1e-3)
        .collect();
    assert!(!moved.is_empty(), "the design moved no vertex of {foot}");
    for (start, _) in moved {
        assert!(
            nearest(start, &reloaded) > 1e-3,
            "{start} is still in the URDF"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_walker_with_a_two_dof_hip_is_refused_by_the_replay_export_with_a_message() {
    // The MuJoCo replay drives one-DoF joints; a universal hip is named, not a panic.
    use sdrs::prelude::*;
    use sdrs_examples::walker::{build_world, capsule_pieces};
    let pelvis = Link::new(
        "pelvis",
        None,
        Isometry3::identity(),
        JointKind::Free,
        vec![ConvexHull::cuboid(Vector3::new(0.1, 0.05, 0.04)).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    );
    let leg = Link::new(
        "leg_foot",
        Some(0),
        Isometry3::translation(0.0, 0.0, -0.04),
        JointKind::Universal {
            first: Vector3::x(),
            second: Vector3::y(),
        },
        capsule_pieces(0.02, 0.1, -Vector3::z(), 8).unwrap(),
        MassModel::Lumped { mass: 0.3 },
    );
    let world = build_world(vec![pelvis, leg], 0.0, 2e-4, 0.8, 0.01, None).unwrap();
    let goal = Vector3::new(0.0, 3.0, 0.0);
    let walker = Walker::new(
        world,
        "pelvis",
        sdrs_examples::biped::GAINS,
        goal,
        Vector3::y(),
        10,
        1,
    )
    .unwrap();
    let c = DVector::zeros(sdrs::diff::Policy::parameters(&walker.objective.policy));
    let p = DVector::zeros(walker.objective.design.parameters());
    let dir = std::env::temp_dir().join(format!("sdrs-walker-universal-{}", std::process::id()));
    let error = walker.export(&c, &p, 0.0, &dir).unwrap_err().to_string();
    assert!(
        error.contains("is not a one-DoF joint's") && error.contains("hinges and sliders"),
        "{error}"
    );
    assert!(!dir.exists(), "a refused export wrote {}", dir.display());
}
