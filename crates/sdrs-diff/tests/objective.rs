//! `Objective::evaluate` (rollout → loss → adjoint → start at rest → design pullback) against
//! central differences in the policy parameters, the named design parameters and the start;
//! and the named `DesignMap` builders against the design vector they move.

use nalgebra::{DVector, Point3, Vector3};
use sdrs_diff::{
    CentreOfMass, CubicSpline, DesignMap, DiffError, Distance, Effort, LinkPoint, Objective,
    PointTarget, Recording, RelativePosition, Sum,
};
use sdrs_dynamics::scenes::chain;
use sdrs_dynamics::{Model, State};

/// The lower face of link `link`'s box.
fn lower_face(model: &Model, link: &str) -> LinkPoint {
    let hull = &model.links()[model.link_index(link).unwrap()].hulls[0];
    let lower: Vec<usize> = (0..8).filter(|&v| hull.vertices()[v].z < 0.0).collect();
    LinkPoint::vertex_mean(model, link, 0, &lower).unwrap()
}

#[test]
fn objective_gradients_match_differences() {
    let scene = crate::pd_chain();
    let model = scene.model.clone();
    // p0: link0's length, p1: link2's attachment sideways, p2: link2's lower face widened.
    let mut design = DesignMap::new(&model, 3);
    design
        .link_length(&model, "link0", 0)
        .unwrap()
        .attachment(&model, "link2", 0, 1, 1.0)
        .unwrap();
    let face: Vec<usize> = (0..8)
        .filter(|&v| model.links()[2].hulls[0].vertices()[v].z < 0.0)
        .collect();
    design
        .hull_vertices(&model, "link2", 0, &face, &Vector3::new(0.3, 0.0, -1.0), 2)
        .unwrap();
    let loss = Sum::new()
        .with(
            1.0,
            PointTarget::at(lower_face(&model, "link2"), Vector3::new(0.1, 0.05, -0.25)).unwrap(),
        )
        .with(
            0.5,
            CentreOfMass::robot(&model, Vector3::new(0.02, 0.0, -0.1)).unwrap(),
        )
        .with(
            0.3,
            Distance::new(
                lower_face(&model, "link2"),
                LinkPoint::fixed(&model, "link0", Point3::new(0.02, 0.0, 0.0)).unwrap(),
                0.15,
            )
            .unwrap(),
        )
        .with(
            0.2,
            RelativePosition::new(
                &model,
                lower_face(&model, "link1"),
                "link0",
                Vector3::new(0.0, 0.02, -0.12),
            )
            .unwrap(),
        )
        .with(
            0.1,
            PointTarget::at(lower_face(&model, "link1"), Vector3::new(0.05, 0.0, -0.15))
                .unwrap()
                .every_step(),
        )
        .with(1e-3, Effort::new(0.0, 1.0));
    let objective = Objective {
        policy: CubicSpline::new(scene.control.clone(), vec![0, 2], 4, 0.25).unwrap(),
        loss,
        start: State::new(&model, DVector::from_vec(vec![0.1, -0.2, 0.15])).unwrap(),
        steps: 25,
        design,
        settings: scene.settings.clone(),
        recording: Recording::Blocks,
        model: model.clone(),
    };
    let c = DVector::from_fn(8, |k, _| 0.3 * (k as f64).sin());
    let p = DVector::from_vec(vec![0.02, 0.01, 0.005]);
    let at = objective.evaluate(&c, &p).unwrap();
    let design_gradient = at.design.clone().unwrap();
    let h = 1e-6;
    let shift = |v: &DVector<f64>, k: usize, by: f64| {
        let mut w = v.clone();
        w[k] += by;
        w
    };
    let differences = |len: usize, mut value: Box<dyn FnMut(usize, f64) -> f64 + '_>| {
        DVector::from_fn(len, |k, _| (value(k, h) - value(k, -h)) / (2.0 * h))
    };
    let fd_c = differences(
        c.len(),
        Box::new(|k, by| objective.evaluate(&shift(&c, k, by), &p).unwrap().loss),
    );
    let fd_p = differences(
        p.len(),
        Box::new(|k, by| objective.evaluate(&c, &shift(&p, k, by)).unwrap().loss),
    );
    let q0 = objective.start.q.clone();
    let mut moved = Objective {
        start: objective.start.clone(),
        ..objective
    };
    let fd_q = differences(
        q0.len(),
        Box::new(|k, by| {
            moved.start = State::new(&model, shift(&q0, k, by)).unwrap();
            moved.evaluate(&c, &p).unwrap().loss
        }),
    );
    for (what, analytic, fd) in [
        ("dL/dc", &at.parameters, &fd_c),
        ("dL/dp", &design_gradient, &fd_p),
        ("dL/dθ0", &at.initial, &fd_q),
    ] {
        assert!(
            analytic.amax() > 0.0,
            "{what}: a zero gradient checks nothing"
        );
        let error = (analytic - fd).amax() / analytic.amax();
        assert!(error < 1e-6, "{what}: {analytic} vs differences {fd}");
    }
    let mut objective = moved;
    objective.start = State::new(&model, q0).unwrap();
    // States-only recording gives the same loss and gradients.
    objective.recording = Recording::States;
    let light = objective.evaluate(&c, &p).unwrap();
    assert!((light.loss - at.loss).abs() < 1e-12 * at.loss);
    assert!((light.parameters - &at.parameters).amax() < 1e-6 * at.parameters.amax());
}

#[test]
fn named_design_builders_move_what_they_name() {
    let model = chain(3, 0.01).unwrap().model;
    let mut map = DesignMap::new(&model, 2);
    map.link_length(&model, "link1", 0).unwrap();
    map.hull_vertices(&model, "link0", 0, &[0, 3], &Vector3::new(1.0, 2.0, 3.0), 1)
        .unwrap();
    let moved = map
        .model(&model, &DVector::from_vec(vec![0.05, 0.01]))
        .unwrap();
    // link2 hangs 5 cm lower; link1's lower vertices follow, its upper ones stay.
    let z = |m: &Model, l: usize| m.links()[l].attachment.translation.z;
    assert!((z(&moved, 2) - (z(&model, 2) - 0.05)).abs() < 1e-15);
    for (before, after) in model.links()[1].hulls[0]
        .vertices()
        .iter()
        .zip(moved.links()[1].hulls[0].vertices())
    {
        let drop = if before.z < 0.0 { 0.05 } else { 0.0 };
        assert!((after - before - Vector3::new(0.0, 0.0, -drop)).norm() < 1e-15);
    }
    let v = |m: &Model, k: usize| m.links()[0].hulls[0].vertices()[k];
    assert!((v(&moved, 3) - v(&model, 3) - Vector3::new(0.01, 0.02, 0.03)).norm() < 1e-15);
    assert!((v(&moved, 1) - v(&model, 1)).norm() == 0.0);
    // Errors name what is wrong.
    let unknown = map.link_length(&model, "link7", 0).unwrap_err().to_string();
    assert!(
        unknown.contains("link7") && unknown.contains("link0"),
        "{unknown}"
    );
    assert!(matches!(
        map.attachment(&model, "link0", 3, 0, 1.0),
        Err(DiffError::OutOfRange { index: 3, .. })
    ));
    assert!(matches!(
        map.attachment(&model, "link0", 0, 2, 1.0),
        Err(DiffError::OutOfRange {
            index: 2,
            len: 2,
            ..
        })
    ));
    assert!(matches!(
        map.hull_vertices(&model, "link0", 0, &[8], &Vector3::x(), 0),
        Err(DiffError::OutOfRange {
            index: 8,
            len: 8,
            ..
        })
    ));
}
