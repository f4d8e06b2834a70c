//! The book stack (SDRS sec. V-J, long-range paper Table 2) at a reduced scale: under the
//! plane barrier the stack stands and every interface carries the statics solution (the
//! weight above it, through their centre of mass); under the long-range potential the
//! resting gap shrinks as the coefficient does, as Table 2's margins do, and a plank's
//! pressure on the one below is centred on their overlap, so a plank whose centre lies 2 mm
//! inside the edge below tips, the faster the larger the gap (why the long-range stack does
//! not stand). The 60 s run and the Table 2 sweep are `examples/examples/book_stack.rs`.

use sdrs::contact::long_range::{LongRange, MeshShape};
use sdrs::contact::{ContactModel, Order, PairOutcome};
use sdrs::geometry::TriMesh;
use sdrs::prelude::*;
use sdrs_examples::book_stack::{
    HEIGHT, LENGTH, MASS, PAPER_OFFSET, PLANKS, Verdict, WIDTH, interfaces, resting_gap, run, stack,
};

fn barrier() -> ContactSettings {
    let mut world = World::new(0.01).unwrap().with_friction(0.5).unwrap();
    world.settings_mut().contact.clone().unwrap()
}

#[test]
fn the_stack_stands_and_carries_the_statics_solution() {
    let mut stack = stack(&barrier(), PAPER_OFFSET).unwrap();
    let result = run(&mut stack, 0.5, |_, _, _| ()).unwrap();
    assert_eq!(result.verdict, Verdict::Stood, "moved {} m", result.moved);
    let found = interfaces(&mut stack, &result.end).unwrap();
    assert_eq!(found.len(), PLANKS);
    for (i, f) in found.iter().enumerate() {
        // Measured: forces within 2e-8 relative, centres of pressure within 1e-9 m.
        assert!(
            ((f.force - f.statics) / f.statics).abs() < 1e-6,
            "interface {i}: {} N against {} N",
            f.force,
            f.statics
        );
        assert!(
            (f.pressure_x - f.mass_centre_x).abs() < 1e-6,
            "interface {i}: pressure at x = {}, centre of mass above at {}",
            f.pressure_x,
            f.mass_centre_x
        );
        assert!(f.gap > 0.0 && f.gap < 1e-3, "interface {i}: gap {}", f.gap);
        if i > 0 {
            // At the harmonic maximum the load passes through the edge below, moved inward
            // by at most the offsets (0.1% L per plank) of the planks it carries.
            let inward = f.edge_x - f.pressure_x;
            let carried = (PLANKS - i) as f64;
            assert!(
                inward > 0.0 && inward <= carried * PAPER_OFFSET.abs() * LENGTH,
                "interface {i}: pressure at x = {}, edge at {}",
                f.pressure_x,
                f.edge_x
            );
        }
    }
}

#[test]
fn a_stack_beyond_the_harmonic_overhang_falls() {
    let mut stack = stack(&barrier(), 0.01).unwrap();
    let result = run(&mut stack, 3.0, |_, _, _| ()).unwrap();
    assert_eq!(result.verdict, Verdict::Fell, "moved {} m", result.moved);
}

#[test]
fn the_long_range_resting_gap_shrinks_with_the_coefficient() {
    // The top plank's load on the plank under it, overhanging by L/2.
    let gap = |coefficient: f64| {
        let contact = ContactSettings::new(
            ContactKind::LongRange(LongRange::new(0.1).unwrap()),
            coefficient,
        )
        .unwrap();
        resting_gap(&contact, Some(1.0), MASS * 9.81).unwrap()
    };
    let gaps: Vec<f64> = [1e-6, 1e-8, 1e-10].into_iter().map(gap).collect();
    // Near contact the pair force goes as μ / d², so the gap as √μ: 10x per two decades.
    for pair in gaps.windows(2) {
        let ratio = pair[0] / pair[1];
        assert!((8.0..12.5).contains(&ratio), "gaps {gaps:?}");
    }
    assert!(gaps[2] > 0.0 && gaps[0] < 0.05, "gaps {gaps:?}");
}

#[test]
fn the_long_range_pressure_between_two_planks_is_centred_on_their_overlap() {
    // Plank B lies on plank A shifted by `offset` along x, level, `gap` above it. The
    // potential's wrench on B puts its centre of pressure at the middle of the overlap
    // whatever the gap (measured: to 1e-4 m): a plank whose centre of mass lies near the
    // lower plank's edge is held only once it tilts enough to shift the pressure there, by a
    // tilt of the order of gap / distance to the edge. The harmonic stack's top plank has its
    // centre 2 mm inside the edge, and tilting it by more than 2 mm / (H / 2) = 0.02 rad
    // carries its centre past the edge.
    let half = Vector3::new(0.5 * LENGTH, 0.5 * WIDTH, 0.5 * HEIGHT);
    let plank = MeshShape::new(TriMesh::cuboid(half).unwrap()).unwrap();
    let model = LongRange::new(0.1).unwrap();
    for offset in [0.5, 0.95, 1.5] {
        for gap in [1e-3, 1e-4] {
            let (a, b) = (
                Isometry3::identity(),
                Isometry3::translation(offset, 0.0, HEIGHT + gap),
            );
            let mut cache = Default::default();
            let PairOutcome::Separated(c) = model
                .evaluate(&plank, &a, &plank, &b, &mut cache, Order::Gradient)
                .unwrap()
            else {
                panic!("the planks are {gap} m apart")
            };
            // The gradient in B's twist is minus its force and its torque about its centre.
            let (fx, fz, torque) = (-c.gradient[6], -c.gradient[8], -c.gradient[10]);
            assert!(fz > 0.0);
            // τ_y = z F_x − x F_z at B's underside, z = −H/2.
            let pressure_x = offset + (-0.5 * HEIGHT * fx - torque) / fz;
            let overlap_middle = 0.5 * ((offset - 0.5 * LENGTH) + 0.5 * LENGTH);
            assert!(
                (pressure_x - overlap_middle).abs() < 1e-3,
                "offset {offset}, gap {gap}: centre of pressure {pressure_x} m, overlap middle \
                 {overlap_middle} m"
            );
        }
    }
}

/// The largest pitch (rad) the upper of two planks reaches in `seconds` under the long-range
/// potential with `coefficient` (friction 0.5): the lower plank fixed, the upper overhanging
/// it as the stack's top plank does (`L/2` less the papers' 0.1% of `L`: its centre 2 mm
/// inside the lower's edge), placed level at its [`resting_gap`].
fn upper_plank_pitch(coefficient: f64, seconds: f64) -> f64 {
    let contact = ContactSettings::new(
        ContactKind::LongRange(LongRange::new(0.1).unwrap()),
        coefficient,
    )
    .unwrap()
    .with_friction(FrictionSettings::new(0.5).unwrap());
    let overhang = 0.5 * LENGTH + PAPER_OFFSET * LENGTH;
    let gap = resting_gap(&contact, Some(overhang), MASS * 9.81).unwrap();
    let half = Vector3::new(0.5 * LENGTH, 0.5 * WIDTH, 0.5 * HEIGHT);
    let plank = ConvexHull::cuboid(half).unwrap();
    let mut world = World::new(0.01).unwrap();
    let lower = Link::new(
        "lower",
        None,
        Isometry3::translation(0.0, 0.0, 0.5 * HEIGHT),
        JointKind::Fixed,
        vec![plank.clone()],
        MassModel::Lumped { mass: MASS },
    )
    .with_mesh(TriMesh::cuboid(half).unwrap());
    world.add_robot(vec![lower], Isometry3::identity());
    let upper = world.add_object(
        "upper",
        plank,
        MASS,
        Isometry3::translation(overhang, 0.0, 1.5 * HEIGHT + gap),
    );
    world.set_contact(Some(contact));
    let (model, mut sim) = world.build().unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let control = Control::passive(&model);
    let mut largest = 0.0f64;
    for _ in 0..(seconds / 0.01).round() as usize {
        sim.advance(&mut motion, &control).unwrap();
        let pose = Kinematics::new(&model, &motion.state).poses()[upper.link().index()];
        let r = pose.rotation.to_rotation_matrix();
        largest = largest.max(r[(2, 0)].atan2(r[(0, 0)]).abs());
    }
    largest
}

#[test]
fn the_long_range_potential_lets_the_top_plank_tip_the_faster_the_larger_its_gap() {
    // Why the long-range stack does not stand (`book_stack --table2`). Tilting by
    // 2 mm / (H / 2) = 0.02 rad carries the top plank's centre past the edge below it, and the
    // potential moves its pressure towards that edge only as the plank tilts. From level on a
    // fixed plank it tips: at the paper's μ = 1e-7 (a 4 mm gap) past 0.02 rad within 0.3 s
    // (measured 0.044 rad, going on at 0.17 rad/s; the same with the friction's smoothing at
    // 1e-12 instead of 1e-6, so it is not friction creep), at 1e-10 (a 0.12 mm gap) more
    // slowly (0.0057 rad at 0.3 s, 0.02 rad at 1.5 s, 0.058 rad at 3 s).
    let tipping = 2.0 * PAPER_OFFSET.abs() * LENGTH / HEIGHT;
    let paper_gap = upper_plank_pitch(1e-7, 0.3);
    assert!(
        paper_gap > tipping,
        "μ = 1e-7: largest pitch {paper_gap} rad"
    );
    let tiny_gap = upper_plank_pitch(1e-10, 0.3);
    assert!(
        tiny_gap > 0.1 * tipping && tiny_gap < 0.5 * tipping,
        "μ = 1e-10: largest pitch {tiny_gap} rad"
    );
}
