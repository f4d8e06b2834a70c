//! Reduced versions of the gripper co-design benchmarks (SDRS sec. V-E single jaw, V-F parallel
//! jaw, V-G three-fingered hand): a coarse block grid,
//! a short horizon and a few iterations. The loss falls, the design gradient matches central
//! differences, every state is collision-free, and the parallel jaw's optimised blocks hold
//! all four objects that its initial flat jaws drop.

use sdrs::prelude::*;
use sdrs_examples::blocks::{BlocksError, GROW, JawBlocks, SHRINK};
use sdrs_examples::carry::{
    Carry, CarryError, Gripper, HELD, Summed, Trajectory, build, palm_mounts,
};
use sdrs_examples::parallel_jaw::{LEARNING_RATE, OBJECTS, parallel_jaw, thickened};
use sdrs_examples::single_jaw::{
    LIFT, PAPER_GRID, POINTS, RETREAT, STEPS, Schedule, Task, min_clearance, moved_out,
    object_lift, retreated, single_jaw,
};
use sdrs_examples::three_finger::three_finger;

/// A 4 × 4-block jaw over 80 steps (stages of 0.2 s).
fn reduced() -> Task {
    single_jaw([1, 4, 4], 80, Schedule::Scripted).unwrap()
}

#[test]
fn block_bounds_keep_every_block_a_solid() {
    let task = reduced();
    let (lower, upper) = task.jaw.bounds();
    let map = &task.objective.design;
    // Each coordinate's inward bound is the larger in magnitude (SHRINK − 1 vs GROW − 1).
    let pick = |inward: bool| {
        DVector::from_fn(lower.len(), |k, _| {
            let (a, b) = (lower[k], upper[k]);
            if (a.abs() > b.abs()) == inward { a } else { b }
        })
    };
    for (p, kept) in [(pick(true), SHRINK.powi(3)), (pick(false), GROW.powi(3))] {
        let model = map.model(&task.objective.model, &p).unwrap();
        let jaw = &model.links()[model.link_index("jaw").unwrap()];
        assert_eq!(jaw.hulls.len(), 16);
        let fraction = task.jaw.volume_fraction(&p);
        assert!((fraction - kept).abs() < 1e-12, "{fraction} vs {kept}");
    }
    // Every corner of the box of bounds gives valid hulls too.
    for p in [&lower, &upper] {
        assert!(map.model(&task.objective.model, p).is_ok());
    }
    assert!(matches!(
        JawBlocks::grid([1, 0, 3], Vector3::repeat(0.02)),
        Err(BlocksError::Counts(_))
    ));
}

#[test]
fn retreat_bounds_let_blocks_leave_the_plate() {
    let task = reduced().with_retreat(RETREAT).unwrap();
    let (jaw, map, model) = (&task.jaw, &task.objective.design, &task.objective.model);
    let (lower, upper) = jaw.bounds();
    let vertices = 16 * 8 * 3;
    assert_eq!(jaw.parameters(), vertices + 16);
    // The vertices keep the octant bounds; each block may move 0 to RETREAT along +x.
    let (old_lower, old_upper) = reduced().jaw.bounds();
    assert_eq!(lower.rows(0, vertices), old_lower);
    assert_eq!(upper.rows(0, vertices), old_upper);
    assert!(lower.rows(vertices, 16).iter().all(|&l| l == 0.0));
    assert!(upper.rows(vertices, 16).iter().all(|&u| u == RETREAT));
    // Moved to the bound, the two middle blocks of row 1 lie wholly behind the plate's back
    // face (x = 1.5 cm), in the jaw's frame, and count as lost material.
    let p = retreated(jaw, 4, [1, 1], [1, 2], RETREAT);
    let moved = map.model(model, &p).unwrap();
    let hulls = &moved.links()[moved.link_index("jaw").unwrap()].hulls;
    for b in [5, 6] {
        let front = hulls[b]
            .vertices()
            .iter()
            .map(|v| v.x)
            .fold(f64::INFINITY, f64::min);
        assert!(
            (front - (RETREAT - 0.015)).abs() < 1e-12,
            "block {b} front face at {front} m"
        );
    }
    assert!((jaw.volume_fraction(&p) - 14.0 / 16.0).abs() < 1e-12);
    // Every corner of the box of bounds gives valid hulls: a common translation cannot
    // flatten a block.
    for (vertex, shift) in [(&lower, &upper), (&upper, &upper), (&lower, &lower)] {
        let mut p = vertex.clone();
        p.rows_mut(vertices, 16)
            .copy_from(&shift.rows(vertices, 16));
        assert!(map.model(model, &p).is_ok());
    }
    assert!(matches!(
        reduced().with_retreat(-0.01),
        Err(BlocksError::Retreat { .. })
    ));
    assert!(matches!(
        reduced().jaw.with_retreat(Vector3::repeat(f64::NAN), 0.05),
        Err(BlocksError::Retreat { .. })
    ));
}

#[test]
fn single_jaw_gradient_matches_differences() {
    let mut task = reduced().with_retreat(RETREAT).unwrap();
    task.objective.settings.tolerance = 1e-8;
    let scene = &task.objective;
    let c = task.initial.clone();
    let p = DVector::zeros(task.jaw.parameters());
    let at = scene.evaluate(&c, &p).unwrap();
    assert!(
        at.trajectory.active_pairs.iter().skip(10).any(|&a| a > 1),
        "the jaw touches the object"
    );
    let design = at.design.clone().unwrap();
    // A block's retreat moves its 8 vertices along x: its derivative is theirs summed.
    let vertices = 16 * 8 * 3;
    for b in 0..16 {
        let summed: f64 = (0..8).map(|v| design[3 * (8 * b + v)]).sum();
        assert!((design[vertices + b] - summed).abs() <= 1e-12 * design.amax());
    }
    // The three vertex coordinates the loss is most sensitive to, the block retreat it is
    // most sensitive to, and two spline values.
    let order = largest_first(&design.rows(0, vertices).into_owned());
    let retreat = vertices + largest_first(&design.rows(vertices, 16).into_owned())[0];
    assert!(
        design[retreat] != 0.0,
        "no block's retreat changes the loss"
    );
    let scale = design.amax().max(at.parameters.amax());
    // The barrier makes the loss stiff in the vertices: central differences converge to the
    // adjoint only below ~1e-7 m (1e-4 m: wrong sign; 1e-6 m: 5% off; 1e-8 m: 4e-6 off).
    let step = |is_design: bool| if is_design { 1e-8 } else { 1e-6 };
    let mut checks: Vec<(bool, usize)> = order[..3].iter().map(|&k| (true, k)).collect();
    checks.extend([(true, retreat), (false, 2 * POINTS + 4), (false, 4)]);
    for (is_design, k) in checks {
        let h = step(is_design);
        let (plus, minus, analytic) = if is_design {
            let mut e = DVector::zeros(p.len());
            e[k] = h;
            let plus = scene.evaluate(&c, &(&p + &e)).unwrap().loss;
            let minus = scene.evaluate(&c, &(&p - &e)).unwrap().loss;
            (plus, minus, design[k])
        } else {
            let mut e = DVector::zeros(c.len());
            e[k] = h;
            let plus = scene.evaluate(&(&c + &e), &p).unwrap().loss;
            let minus = scene.evaluate(&(&c - &e), &p).unwrap().loss;
            (plus, minus, at.parameters[k])
        };
        let fd = (plus - minus) / (2.0 * h);
        let error = (analytic - fd).abs() / scale;
        eprintln!(
            "design {is_design} {k}: adjoint {analytic:.6e}, differences {fd:.6e}, error {error:.1e}"
        );
        assert!(
            error < 1e-4,
            "parameter {k}: adjoint {analytic}, differences {fd}"
        );
    }
}

#[test]
fn single_jaw_loss_falls_and_stays_collision_free() {
    let task = reduced();
    let scene = &task.objective;
    let (lower, upper) = task.jaw.bounds();
    let blocks = vec![
        Block {
            lower: task.initial.add_scalar(-0.3),
            upper: task.initial.add_scalar(0.3),
            radius: 5e-2,
            max_radius: 0.2,
        },
        Block {
            lower,
            upper,
            radius: 2e-3,
            max_radius: 2e-2,
        },
    ];
    let objective = |x: &[DVector<f64>]| -> Result<_, Box<dyn std::error::Error>> {
        let e = scene.evaluate(&x[0], &x[1])?;
        let g = e.design.clone().ok_or("no design gradient")?;
        Ok((e.loss, vec![e.parameters.clone(), g], e))
    };
    let start = vec![task.initial.clone(), DVector::zeros(task.jaw.parameters())];
    let best = minimise(start, blocks, objective, 4, |_| {}).unwrap();
    let (first, last) = (best.history[0], best.loss);
    eprintln!("loss {first:.4e} → {last:.4e}");
    assert!(last < 0.9 * first, "loss {first} → {last}");
    let model = scene
        .design
        .model(&scene.model, &best.parameters[1])
        .unwrap();
    let clearance = min_clearance(&task, &model, &best.data.trajectory.states);
    assert!(clearance > 0.0, "hulls intersect: clearance {clearance}");
}

#[test]
fn single_jaw_lifts_the_x_through_a_hole_when_it_turns() {
    // The paper's scale and the re-orienting schedule, no optimisation: the solid plate
    // leaves the X on the ground, a 4 × 10 cm hole takes it up with the jaw, an 8 × 10 cm one
    // lets the arm slide out.
    let task = single_jaw(PAPER_GRID, STEPS, Schedule::Turning).unwrap();
    let control = &task.initial;
    let scene = &task.objective;
    let width = PAPER_GRID[1];
    for (p, lifted) in [
        (DVector::zeros(task.jaw.parameters()), false),
        (moved_out(&task.jaw, width, [5, 6], [4, 8]), true),
        (moved_out(&task.jaw, width, [4, 7], [4, 8]), false),
    ] {
        let e = scene.evaluate(control, &p).unwrap();
        let rise = object_lift(&task, &e.trajectory.states);
        eprintln!("object rose {rise:.4} m");
        assert_eq!(rise > 0.9 * LIFT, lifted, "object rose {rise} m");
        let model = scene.design.model(&scene.model, &p).unwrap();
        assert!(min_clearance(&task, &model, &e.trajectory.states) > 0.0);
    }
}

#[test]
fn single_jaw_retreat_bounds_hold_a_window_that_lifts_the_x() {
    // The paper's scale and the re-orienting schedule, no optimisation: rows 5-6, columns
    // 4-8 moved out of the plate by RETREAT — inside the retreat bounds — take the X up with
    // the jaw; moved 3 cm (the arm's end still reaches them) they do not.
    let task = single_jaw(PAPER_GRID, STEPS, Schedule::Turning)
        .unwrap()
        .with_retreat(RETREAT)
        .unwrap();
    let (lower, upper) = task.jaw.bounds();
    let width = PAPER_GRID[1];
    for (depth, lifted) in [(RETREAT, true), (0.03, false)] {
        let p = retreated(&task.jaw, width, [5, 6], [4, 8], depth);
        assert!((0..p.len()).all(|i| lower[i] <= p[i] && p[i] <= upper[i]));
        let e = task.objective.evaluate(&task.initial, &p).unwrap();
        let rise = object_lift(&task, &e.trajectory.states);
        eprintln!(
            "window moved {depth} m out: object rose {rise:.4} m, loss {:.4e}",
            e.loss
        );
        assert_eq!(rise > 0.9 * LIFT, lifted, "object rose {rise} m");
    }
}

/// The parallel-jaw gripper (SDRS sec. V-F) at a CI scale: 3 × 3 blocks per jaw, two
/// objects, 40 steps each.
fn parallel_reduced(objects: [&str; 2]) -> Carry {
    parallel_jaw([3, 3], 40, &objects).unwrap()
}

#[test]
fn parallel_jaw_rejects_bad_settings() {
    assert!(matches!(
        parallel_jaw([3, 3], 5, &["ball"]),
        Err(CarryError::Setting { name: "steps", .. })
    ));
    assert!(matches!(
        parallel_jaw([3, 3], 40, &[]),
        Err(CarryError::Setting {
            name: "objects",
            ..
        })
    ));
    assert!(matches!(
        parallel_jaw([3, 3], 40, &["ball", "teapot"]),
        Err(CarryError::UnknownObject(name)) if name == "teapot"
    ));
    assert!(matches!(
        parallel_jaw([0, 3], 40, &["cube"]),
        Err(CarryError::Blocks(BlocksError::Counts(_)))
    ));
    // A bare palm: a closing fraction that leaves no time to move, gains not one per DoF.
    let palm = ConvexHull::cuboid(Vector3::repeat(0.02)).unwrap();
    let bare = Gripper {
        links: palm_mounts(vec![palm], 0.3),
        parts: Vec::new(),
        start: Vector3::new(0.0, 0.0, 0.2),
        gains: vec![(1e3, 0.3); 3],
        closed: Vec::new(),
        close: 1.0,
        mu: 0.1,
    };
    assert!(matches!(build(&bare, &["ball"], 20), Err(CarryError::Close(c)) if c == 1.0));
    let short = Gripper {
        gains: vec![(1e3, 0.3); 2],
        close: 0.3,
        ..bare
    };
    assert!(matches!(
        build(&short, &["ball"], 20),
        Err(CarryError::Setting { name: "gains", .. })
    ));
    let task = parallel_jaw([2, 2], 20, &["cube"]).unwrap();
    assert!(matches!(
        task.evaluate(&DVector::zeros(3)),
        Err(CarryError::DesignLength {
            actual: 3,
            expected: 192
        })
    ));
}

#[test]
fn parallel_jaw_gradient_matches_differences() {
    let mut task = parallel_reduced(["ball", "cube"]);
    for t in &mut task.trajectories {
        t.objective.settings.tolerance = 1e-10;
    }
    let p = DVector::zeros(task.parameters());
    let at = task.evaluate(&p).unwrap();
    for e in &at.each {
        assert!(
            e.trajectory.active_pairs.iter().skip(10).any(|&a| a > 1),
            "the jaws touch the object"
        );
    }
    let g = &at.gradient;
    assert!(g.amax() > 0.0, "the design gradient is zero");
    // The three vertex coordinates the summed loss is most sensitive to, one on each jaw at
    // least (the left jaw's parameters come first).
    let order = largest_first(g);
    let half = task.parts[0].1.parameters();
    let mut checks = order[..2].to_vec();
    checks.extend(order.iter().find(|&&k| (k < half) != (order[0] < half)));
    differences_match(|x| task.evaluate(x).unwrap().loss, &p, g, &checks);
}

#[test]
fn parallel_jaw_lifts_the_cube_by_squeeze_alone() {
    // The cube stands on a face: no jaw shape gets under it, friction from the squeeze is
    // all that lifts it. Flat jaws drop it; the same jaws 1 cm thicker (inside the blocks'
    // bounds) hold it.
    let task = parallel_jaw([6, 6], 90, &["cube"]).unwrap();
    let (lower, upper) = task.bounds();
    for (by, held) in [(0.0, false), (0.01, true)] {
        let p = thickened(&task, by);
        assert!((0..p.len()).all(|i| lower[i] <= p[i] && p[i] <= upper[i]));
        let slip = Trajectory::slip(&task.evaluate(&p).unwrap().each[0]);
        eprintln!("jaws {by} m thicker: cube slip {slip:.4} m");
        assert_eq!(slip < HELD, held, "jaws {by} m thicker: cube slip {slip} m");
    }
}

#[test]
fn parallel_jaw_holds_all_four_and_stays_collision_free() {
    // The example's reduced scale (6 × 6 blocks per jaw, H = 90, the paper's lr 5e-3), 40 of
    // its 100 iterations. The loss jumps between grasps, so when all four are first held
    // depends on the solver's exact path: measured, from iteration 15 on at first, and 3 of 4
    // after 20 and 25 iterations but 4 of 4 after 30 and 40 once Newton evaluated θ^t before
    // its extrapolated start.
    let task = parallel_jaw([6, 6], 90, &OBJECTS).unwrap();
    let p = DVector::zeros(task.parameters());
    let held = |s: &Summed| s.each.iter().filter(|e| Trajectory::slip(e) < HELD).count();
    let start = task.evaluate(&p).unwrap();
    let run = task.optimise(p, 40, LEARNING_RATE, |_, _| {}).unwrap();
    let (history, best, end) = (run.history, run.design, run.end);
    eprintln!("summed loss {history:?}");
    assert_eq!(held(&start), 0, "the initial jaws hold an object");
    assert_eq!(held(&end), 4, "held {} of 4", held(&end));
    assert!(
        end.loss < 1e-2 * history[0],
        "loss {} → {}",
        history[0],
        end.loss
    );
    let (lower, upper) = task.bounds();
    assert!((0..best.len()).all(|i| lower[i] <= best[i] && best[i] <= upper[i]));
    for (t, e) in task.trajectories.iter().zip(&end.each) {
        let clearance = t.clearance(&best, &e.trajectory.states).unwrap();
        assert!(
            clearance > 0.0,
            "{}: hulls intersect ({clearance} m)",
            t.name
        );
    }
}

/// The three-fingered hand (SDRS sec. V-G) at a CI scale: 2 blocks per phalanx, 60 steps.
fn hand_reduced(objects: &[&str]) -> Carry {
    three_finger(2, 60, objects).unwrap()
}

#[test]
fn three_finger_gradient_matches_differences() {
    let mut task = hand_reduced(&["ball"]);
    // Steps solved far inside the differences' resolution: a 1e-9 m difference of two rollouts
    // measures the derivative only where each of their 200 steps is converged well below
    // 1e-9·|g|. At tolerance 1e-8 the differences of parameter 258 were 4.660821 (Newton
    // started at the extrapolated state) or 4.665758 (started at θ^t) against the adjoint's
    // 4.665910; at 1e-9 they are 4.665982. 1e-10 is at the round-off floor (one step stopped at
    // a residual of 1.16e-10 after 100 iterations).
    for t in &mut task.trajectories {
        t.objective.settings.tolerance = 1e-9;
    }
    let p = DVector::zeros(task.parameters());
    assert_eq!(p.len(), 6 * 2 * 8 * 3);
    let at = task.evaluate(&p).unwrap();
    assert!(
        at.each[0]
            .trajectory
            .active_pairs
            .iter()
            .skip(20)
            .any(|&a| a > 1),
        "the fingers touch the ball"
    );
    let g = &at.gradient;
    assert!(g.amax() > 0.0, "the design gradient is zero");
    // The two vertex coordinates the loss is most sensitive to.
    let order = largest_first(g);
    differences_match(|x| task.evaluate(x).unwrap().loss, &p, g, &order[..2]);
}

#[test]
fn three_finger_loss_falls_and_stays_collision_free() {
    let task = hand_reduced(&["ball", "cylinder"]);
    let p = DVector::zeros(task.parameters());
    let run = task.optimise(p, 6, 1e-3, |_, _| {}).unwrap();
    eprintln!("summed loss {:?}", run.history);
    assert!(
        run.end.loss < 0.9 * run.history[0],
        "loss {} → {}",
        run.history[0],
        run.end.loss
    );
    for (t, e) in task.trajectories.iter().zip(&run.end.each) {
        let clearance = t.clearance(&run.design, &e.trajectory.states).unwrap();
        assert!(
            clearance > 0.0,
            "{}: hulls intersect ({clearance} m)",
            t.name
        );
    }
}

/// The indices of `g`, largest magnitude first.
fn largest_first(g: &DVector<f64>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&a, &b| g[b].abs().total_cmp(&g[a].abs()));
    order
}

/// Central differences of `loss` at `p` with 1e-9 m steps match the adjoint gradient `g` on
/// the parameters `checks`, within 1e-3 of `g`'s largest entry. As for the single jaw, the
/// barrier makes the loss stiff in the vertices: differences approach the adjoint only for
/// steps below ~1e-8 m (measured on the parallel jaw's parameter 25, adjoint 0.29763:
/// differences 0.2524 at 1e-7, 0.2952 at 1e-8, 0.29782 at 1e-9).
fn differences_match(
    loss: impl Fn(&DVector<f64>) -> f64,
    p: &DVector<f64>,
    g: &DVector<f64>,
    checks: &[usize],
) {
    let (h, scale) = (1e-9, g.amax());
    for &k in checks {
        let mut e = DVector::zeros(p.len());
        e[k] = h;
        let fd = (loss(&(p + &e)) - loss(&(p - &e))) / (2.0 * h);
        let error = (g[k] - fd).abs() / scale;
        eprintln!(
            "parameter {k}: adjoint {:.6e}, differences {fd:.6e}, error {error:.1e}",
            g[k]
        );
        assert!(
            error < 1e-3,
            "parameter {k}: adjoint {}, differences {fd}",
            g[k]
        );
    }
}
