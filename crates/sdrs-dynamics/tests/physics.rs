//! Physical behaviour against analytic solutions.

use nalgebra::{DVector, Isometry3, Matrix4, Translation3, UnitQuaternion, Vector3, Vector4};
use sdrs_contact::friction::PlaneFriction;
use sdrs_contact::{ContactModel, Order, PlaneBarrier, PlaneCache};
use sdrs_dynamics::{
    ContactSettings, Control, JointKind, Kinematics, Link, MassModel, Model, Simulator, State,
    StepSettings,
};
use sdrs_geometry::ConvexHull;

/// Runs `steps` steps from rest at `state`, returning every state.
fn run(sim: &mut Simulator, state: State, steps: usize, control: &Control) -> Vec<State> {
    let model = sim.model().clone();
    let mut previous = Kinematics::new(&model, &state).poses().to_vec();
    let mut states = vec![state];
    for _ in 0..steps {
        let current = states.last().unwrap().clone();
        let poses = Kinematics::new(&model, &current).poses().to_vec();
        let (next, _) = sim
            .step(&current, &previous, control)
            .expect("step converges");
        previous = poses;
        states.push(next);
    }
    states
}

fn free_box(mass: f64, half: f64, at: Isometry3<f64>) -> Link {
    Link::new(
        "box",
        None,
        at,
        JointKind::Free,
        vec![ConvexHull::cuboid(Vector3::repeat(half)).unwrap()],
        MassModel::Lumped { mass },
    )
}

#[test]
fn free_fall_matches_the_discrete_and_the_analytic_solution() {
    let model = Model::new(vec![free_box(2.0, 0.1, Isometry3::identity())]).unwrap();
    let dt = 0.01;
    let mut sim = Simulator::new(model.clone(), StepSettings::new(dt).unwrap()).unwrap();
    let states = run(
        &mut sim,
        State::zero(&model),
        100,
        &Control::passive(&model),
    );
    for (k, s) in states.iter().enumerate() {
        // Implicit Euler from rest: z_k = −g Δt² k(k+1)/2.
        let discrete = -9.81 * dt * dt * (k * (k + 1)) as f64 / 2.0;
        assert!(
            (s.q[2] - discrete).abs() < 1e-9,
            "step {k}: {} vs {discrete}",
            s.q[2]
        );
        assert!(s.q[0].abs() < 1e-12 && s.q[1].abs() < 1e-12);
    }
    // Against ½ g t² the scheme is first order: off by g t Δt / 2 at t = 1 s (0.5%).
    let analytic = -0.5 * 9.81;
    assert!((states[100].q[2] - analytic).abs() <= 9.81 * dt * 0.5 + 1e-9);
}

#[test]
fn small_pendulum_swings_with_the_analytic_period() {
    // A 1 kg point mass 1 m below a revolute joint about y.
    let length = 1.0;
    let x = Vector4::new(0.0, 0.0, -length, 1.0);
    let point: Matrix4<f64> = x * x.transpose();
    let link = Link::new(
        "bob",
        None,
        Isometry3::identity(),
        JointKind::Revolute { axis: Vector3::y() },
        vec![],
        MassModel::SecondMoment(point),
    );
    let model = Model::new(vec![link]).unwrap();
    let dt = 1e-3;
    let mut sim = Simulator::new(model.clone(), StepSettings::new(dt).unwrap()).unwrap();
    let start = State::new(&model, DVector::from_element(1, 0.05)).unwrap();
    let states = run(&mut sim, start, 6000, &Control::passive(&model));
    // Upward zero crossings, interpolated.
    let mut crossings = Vec::new();
    for k in 1..states.len() {
        let (a, b) = (states[k - 1].q[0], states[k].q[0]);
        if a < 0.0 && b >= 0.0 {
            crossings.push((k as f64 - 1.0 + a / (a - b)) * dt);
        }
    }
    assert!(crossings.len() >= 2, "{} crossings", crossings.len());
    let measured = (crossings.last().unwrap() - crossings[0]) / (crossings.len() - 1) as f64;
    let analytic = 2.0 * std::f64::consts::PI * (length / 9.81).sqrt();
    assert!(
        (measured - analytic).abs() < 0.01 * analytic,
        "{measured} vs {analytic}"
    );
}

/// A fixed ground slab (top face at z = 0, tilted by `tilt` about y) and a free box above it.
fn box_on_ground(tilt: f64, mu: Option<f64>, dt: f64) -> (Simulator, State) {
    let turn = UnitQuaternion::from_scaled_axis(Vector3::y() * tilt);
    let ground = Link::new(
        "ground",
        None,
        Isometry3::from_parts(Translation3::identity(), turn)
            * Isometry3::translation(0.0, 0.0, -0.5),
        JointKind::Fixed,
        vec![ConvexHull::cuboid(Vector3::new(20.0, 20.0, 0.5)).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    );
    // The box's bottom face 5 mm above the slab, in the slab's frame.
    let above = Isometry3::from_parts(Translation3::identity(), turn)
        * Isometry3::translation(0.0, 0.0, 0.105);
    let model = Model::new(vec![ground, free_box(1.0, 0.1, above)]).unwrap();
    let mut settings = StepSettings::new(dt).unwrap();
    settings.contact = Some(ContactSettings {
        barrier: PlaneBarrier::new(0.01).unwrap(),
        stiffness: 1.0,
        friction: mu.map(|m| PlaneFriction::new(m, dt).unwrap()),
        skip_adjacent: false,
    });
    let sim = Simulator::new(model.clone(), settings).unwrap();
    (sim, State::zero(&model))
}

#[test]
fn a_resting_box_stays_put_and_its_contact_force_balances_gravity() {
    let (mut sim, start) = box_on_ground(0.0, Some(0.5), 0.01);
    let model = sim.model().clone();
    let states = run(&mut sim, start, 300, &Control::passive(&model));
    let last = states.last().unwrap();
    let before = &states[states.len() - 2];
    assert!(
        (last.q[2] - before.q[2]).abs() < 1e-7,
        "still moving: {}",
        last.q[2] - before.q[2]
    );
    assert!(
        last.q[0].abs() < 1e-6 && last.q[1].abs() < 1e-6,
        "drifted: {:?}",
        last.q
    );
    // The barrier's force on the box, at the final pose, is its weight.
    let kin = Kinematics::new(&model, last);
    let barrier = PlaneBarrier::new(0.01).unwrap();
    let pair = barrier
        .evaluate(
            &model.links()[0].hulls[0],
            &kin.poses()[0],
            &model.links()[1].hulls[0],
            &kin.poses()[1],
            &mut PlaneCache::default(),
            Order::Gradient,
        )
        .unwrap();
    let contact = pair.contact().expect("separated");
    assert!(contact.value > 0.0, "the box must rest on the barrier");
    let up = -contact.gradient[8];
    assert!(
        (up - 9.81).abs() < 1e-3 * 9.81,
        "contact force {up} vs weight 9.81"
    );
}

#[test]
fn a_box_slides_down_an_incline_with_coulomb_friction() {
    let tilt = 30f64.to_radians();
    let mu = 0.3;
    let dt = 0.01;
    let (mut sim, start) = box_on_ground(tilt, Some(mu), dt);
    let model = sim.model().clone();
    let states = run(&mut sim, start, 100, &Control::passive(&model));
    // The box's free joint is attached in the slab's frame, so q[0] is the distance travelled
    // down the slope and q[2] the height above the slab. The box starts 5 mm above the slab,
    // is pushed out to the barrier's equilibrium gap and settles within about 35 steps.
    let settled = &states[40..];
    let height = settled.iter().map(|s| s.q[2]).fold(f64::NAN, f64::max)
        - settled.iter().map(|s| s.q[2]).fold(f64::NAN, f64::min);
    assert!(
        height < 1e-5,
        "the box must stay on the slope (height varies by {height})"
    );
    // Fit s = s0 + v0 t + ½ a t² over steps 40..100.
    let samples: Vec<(f64, f64)> = (40..=100)
        .map(|k| (k as f64 * dt, states[k].q[0]))
        .collect();
    let acceleration = quadratic_fit_acceleration(&samples);
    let expected = 9.81 * (tilt.sin() - mu * tilt.cos());
    assert!(
        (acceleration - expected).abs() < 0.03 * expected,
        "{acceleration} vs {expected}"
    );
}

/// Least-squares `a` of `s = c + b t + ½ a t²`.
fn quadratic_fit_acceleration(samples: &[(f64, f64)]) -> f64 {
    let mut ata = nalgebra::Matrix3::zeros();
    let mut atb = Vector3::zeros();
    for &(t, s) in samples {
        let row = Vector3::new(1.0, t, 0.5 * t * t);
        ata += row * row.transpose();
        atb += row * s;
    }
    ata.lu().solve(&atb).unwrap()[2]
}
