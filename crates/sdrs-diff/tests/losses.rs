//! Every built-in loss's partials (final state, controls, design with the states held)
//! against central differences, on a rotating-chains trajectory in contact; and the errors of
//! losses and points built from wrong names or indices.

use nalgebra::{DVector, Point3, Vector3};
use sdrs_diff::{
    CentreOfMass, Custom, DiffError, Distance, Effort, FinalValue, LinkPoint, Loss, LossGradient,
    PointTarget, Recording, RelativePosition, Sum, Trajectory, rollout,
};
use sdrs_dynamics::scenes::rotating_chains;
use sdrs_dynamics::{Model, Motion, Simulator, State};

const STEPS: usize = 4;
const H: f64 = 1e-6;

/// A short trajectory of two-link chains swung round a hub, with forces and changing targets.
fn trajectory() -> (Model, Trajectory) {
    let scene = rotating_chains(2, 0.01).unwrap();
    let model = scene.model.clone();
    let n = model.dof();
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let q = DVector::from_fn(n, |k, _| 0.3 * ((k * 5 + 1) as f64).sin());
    let start = Motion::at_rest(&model, State::new(&model, q).unwrap());
    let controls: Vec<_> = (0..STEPS)
        .map(|t| {
            let mut u = scene.control.clone();
            u.kp = DVector::from_element(n, 4.0);
            u.position = DVector::from_fn(n, |k, _| 0.1 * ((k + 3 * t) as f64).cos());
            u.force = DVector::from_fn(n, |k, _| 0.05 * ((2 * k + t) as f64).sin());
            u
        })
        .collect();
    let t = rollout(&mut sim, &start, &controls, Recording::States).unwrap();
    (model, t)
}

/// Every partial of `loss` against central differences of its value: the states, the
/// targets and forces of every step, and the design (trajectory held).
fn check(name: &str, loss: &dyn Loss, model: &Model, t: &Trajectory) {
    let (value, g) = loss.evaluate(model, t).unwrap();
    assert!(value.is_finite());
    let value_at = |model: &Model, t: &Trajectory| loss.evaluate(model, t).unwrap().0;
    let mut analytic = Vec::new();
    let mut differences = Vec::new();
    let mut compare = |a: f64, plus: f64, minus: f64| {
        analytic.push(a);
        differences.push((plus - minus) / (2.0 * H));
    };
    let n = model.dof();
    for s in 0..=STEPS {
        for k in 0..n {
            let shifted = |by: f64| {
                let mut u = t.clone();
                u.states[s].q[k] += by;
                value_at(model, &u)
            };
            compare(g.states[s][k], shifted(H), shifted(-H));
        }
    }
    for s in 0..STEPS {
        for k in 0..n {
            for which in 0..3 {
                let shifted = |by: f64| {
                    let mut u = t.clone();
                    let c = &mut u.controls[s];
                    [&mut c.position, &mut c.velocity, &mut c.force][which][k] += by;
                    value_at(model, &u)
                };
                let a = [&g.target_position, &g.target_velocity, &g.force][which][s][k];
                compare(a, shifted(H), shifted(-H));
            }
        }
    }
    let d = model.design();
    for k in 0..d.len() {
        let shifted = |by: f64| {
            let mut e = d.clone();
            e[k] += by;
            value_at(&model.with_design(&e).unwrap(), t)
        };
        compare(g.design[k], shifted(H), shifted(-H));
    }
    let a = DVector::from_vec(analytic);
    let fd = DVector::from_vec(differences);
    assert!(a.amax() > 0.0, "{name}: a zero gradient checks nothing");
    let error = (&a - &fd).amax() / a.amax();
    eprintln!("{name}: worst partial error {error:.1e} of the largest");
    assert!(error < 1e-6, "{name}: partials {a} vs differences {fd}");
}

fn lower_face(model: &Model, link: &str) -> LinkPoint {
    let hull = &model.links()[model.link_index(link).unwrap()].hulls[0];
    let lower: Vec<usize> = (0..hull.vertices().len())
        .filter(|&v| hull.vertices()[v].z < 0.0)
        .collect();
    LinkPoint::vertex_mean(model, link, 0, &lower).unwrap()
}

#[test]
fn point_targets_fixed_and_vertex_mean() {
    let (model, t) = trajectory();
    let target = Vector3::new(0.05, -0.02, -0.2);
    let fixed = PointTarget::new(
        &model,
        "chain1_link1",
        Point3::new(0.01, 0.0, -0.03),
        target,
    )
    .unwrap();
    check("point target (fixed)", &fixed, &model, &t);
    check(
        "point target (every step)",
        &fixed.clone().every_step(),
        &model,
        &t,
    );
    let height = fixed.weighted(Vector3::new(0.0, 0.5, 2.0)).unwrap();
    check(
        "point target (weighted axes)",
        &height.every_step(),
        &model,
        &t,
    );
    let face = PointTarget::at(lower_face(&model, "chain2_link1"), target).unwrap();
    check("point target (vertex mean)", &face, &model, &t);
}

#[test]
fn centres_of_mass_of_a_body_a_set_and_the_robot() {
    let (model, t) = trajectory();
    let target = Vector3::new(0.01, 0.02, -0.1);
    for (name, loss) in [
        (
            "centre of mass (body)",
            CentreOfMass::links(&model, &["chain0_link1"], target).unwrap(),
        ),
        (
            "centre of mass (set)",
            CentreOfMass::links(&model, &["chain0_link0", "chain3_link1"], target).unwrap(),
        ),
        (
            "centre of mass (robot)",
            CentreOfMass::robot(&model, target).unwrap(),
        ),
        (
            "centre of mass (robot, every step)",
            CentreOfMass::robot(&model, target).unwrap().every_step(),
        ),
    ] {
        check(name, &loss, &model, &t);
    }
}

#[test]
fn relative_motion_of_two_bodies() {
    let (model, t) = trajectory();
    let a = lower_face(&model, "chain0_link1");
    let b = LinkPoint::fixed(&model, "chain2_link1", Point3::new(0.0, 0.01, -0.02)).unwrap();
    let distance = Distance::new(a.clone(), b, 0.05).unwrap();
    check("distance", &distance, &model, &t);
    check("distance (every step)", &distance.every_step(), &model, &t);
    let relative =
        RelativePosition::new(&model, a, "chain1_link0", Vector3::new(0.02, 0.0, -0.1)).unwrap();
    check("relative position", &relative, &model, &t);
    check(
        "relative position (every step)",
        &relative.every_step(),
        &model,
        &t,
    );
}

#[test]
fn effort_custom_and_weighted_sums() {
    let (model, t) = trajectory();
    check("effort", &Effort::new(0.7, 1.3), &model, &t);
    // A custom loss with partials: the sum of the final coordinates' squares.
    let custom = Custom::new(|model: &Model, t: &Trajectory| {
        let mut g = LossGradient::zeros(model, t.steps());
        g.states[t.steps()] = 2.0 * &t.last().q;
        Ok((t.last().q.norm_squared(), g))
    });
    check("custom", &custom, &model, &t);
    let value_only = FinalValue::new(|_: &Model, s: &State| s.q.map(f64::sin).sum(), 1e-5).unwrap();
    check("final value (differences)", &value_only, &model, &t);
    let sum = Sum::new()
        .with(
            2.0,
            PointTarget::at(lower_face(&model, "chain3_link1"), Vector3::zeros()).unwrap(),
        )
        .with(0.5, Effort::torque(1.0))
        .with(
            -0.25,
            CentreOfMass::robot(&model, Vector3::zeros()).unwrap(),
        );
    check("weighted sum", &sum, &model, &t);
}

#[test]
fn wrong_names_and_indices_are_errors_that_say_so() {
    let (model, _) = trajectory();
    let unknown = PointTarget::new(&model, "chain9_link0", Point3::origin(), Vector3::zeros())
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("chain9_link0") && unknown.contains("hub"),
        "{unknown}"
    );
    assert!(matches!(
        LinkPoint::vertex_mean(&model, "hub", 1, &[0]),
        Err(DiffError::OutOfRange {
            index: 1,
            len: 1,
            ..
        })
    ));
    assert!(matches!(
        LinkPoint::vertex_mean(&model, "hub", 0, &[8]),
        Err(DiffError::OutOfRange {
            index: 8,
            len: 8,
            ..
        })
    ));
    assert!(matches!(
        LinkPoint::vertex_mean(&model, "hub", 0, &[]),
        Err(DiffError::InvalidInput { .. })
    ));
    assert!(
        CentreOfMass::links(&model, &["hub", "nope"], Vector3::zeros())
            .unwrap_err()
            .to_string()
            .contains("nope")
    );
    assert!(matches!(
        PointTarget::new(
            &model,
            "hub",
            Point3::origin(),
            Vector3::new(f64::NAN, 0.0, 0.0)
        ),
        Err(DiffError::NonFinite { .. })
    ));
    let origin = PointTarget::new(&model, "hub", Point3::origin(), Vector3::zeros()).unwrap();
    assert!(matches!(
        origin.clone().weighted(Vector3::new(1.0, -1.0, 0.0)),
        Err(DiffError::InvalidInput { .. })
    ));
    assert!(matches!(
        origin.weighted(Vector3::new(1.0, f64::INFINITY, 0.0)),
        Err(DiffError::NonFinite { .. })
    ));
    assert!(matches!(
        Distance::new(
            LinkPoint::fixed(&model, "hub", Point3::origin()).unwrap(),
            LinkPoint::fixed(&model, "hub", Point3::origin()).unwrap(),
            -1.0
        ),
        Err(DiffError::InvalidSetting { .. })
    ));
    assert!(matches!(
        FinalValue::new(|_: &Model, _: &State| 0.0, 0.0),
        Err(DiffError::InvalidSetting { .. })
    ));
    // A term whose partials are for another horizon cannot be summed.
    let (model, t) = trajectory();
    let wrong = Custom::new(|model: &Model, t: &Trajectory| {
        Ok((0.0, LossGradient::zeros(model, t.steps() + 1)))
    });
    let sum = Sum::new().with(1.0, Effort::torque(1.0)).with(1.0, wrong);
    assert!(matches!(
        sum.evaluate(&model, &t),
        Err(DiffError::LengthMismatch { actual, expected, .. }) if actual == STEPS + 2 && expected == STEPS + 1
    ));
}
