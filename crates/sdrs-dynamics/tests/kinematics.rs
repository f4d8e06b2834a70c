use nalgebra::{DMatrix, DVector, Isometry3, SMatrix};
use proptest::prelude::*;
use sdrs_dynamics::energy::{link_energy, rows};
use sdrs_dynamics::{JointKind, Kinematics, Link, MassModel, Model, State};
use sdrs_geometry::testing::{
    central_differences, hull, pose, relative_error, rotation, unit_vector,
};

/// Every joint kind once: 6 + 1 + 2 + 1 + 3 + 0 + 1 = 14 DoF, in a tree (two branches).
const DOF: usize = 14;

#[derive(Debug, Clone)]
struct Chain {
    model: Model,
    state: State,
    predicted: Vec<SMatrix<f64, 3, 4>>,
}

fn chain() -> impl Strategy<Value = Chain> {
    (
        proptest::collection::vec((hull(4, 10), pose(0.5), unit_vector(), unit_vector()), 7),
        proptest::collection::vec(-1.0..1.0f64, DOF),
        proptest::collection::vec(rotation(), 7),
        proptest::collection::vec(pose(0.5), 7),
        proptest::collection::vec(pose(0.5), 7),
    )
        .prop_map(|(parts, q, references, now, before)| {
            let kinds = |k: usize, a, b| match k {
                0 => JointKind::Free,
                1 => JointKind::Revolute { axis: a },
                2 => JointKind::Universal {
                    first: a,
                    second: b,
                },
                3 => JointKind::Prismatic { axis: a },
                4 => JointKind::Spherical,
                5 => JointKind::Fixed,
                _ => JointKind::Revolute { axis: b },
            };
            let parents = [None, Some(0), Some(1), Some(0), Some(3), Some(4), Some(2)];
            let links = parts
                .into_iter()
                .enumerate()
                .map(|(k, (h, at, a, b))| {
                    Link::new(
                        format!("l{k}"),
                        parents[k],
                        at,
                        kinds(k, a, b),
                        vec![h],
                        MassModel::Lumped {
                            mass: 0.5 + k as f64,
                        },
                    )
                })
                .collect();
            let model = Model::new(links).unwrap();
            let mut state = State::new(&model, DVector::from_vec(q)).unwrap();
            state.references = references;
            let predicted = now
                .iter()
                .zip(&before)
                .map(|(t, p)| rows(t) * 2.0 - rows(p))
                .collect();
            Chain {
                model,
                state,
                predicted,
            }
        })
}

/// Inertia + gravity of the whole chain at `q`, with generalized gradient and Hessian.
fn energy(c: &Chain, q: &[f64]) -> (f64, DVector<f64>, DMatrix<f64>) {
    let mut state = c.state.clone();
    state.q = DVector::from_column_slice(q);
    let kin = Kinematics::new(&c.model, &state);
    let (mut value, mut g, mut h) = (0.0, DVector::zeros(DOF), DMatrix::zeros(DOF, DOF));
    for (i, p) in kin.poses().iter().enumerate() {
        let (e, lg, lh) = link_energy(c.model.second_moment(i), p, &c.predicted[i], 0.05, 9.81);
        value += e;
        kin.add_term(&c.model, [i], &lg, Some(&lh), &mut g, Some(&mut h));
    }
    (value, g, h)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Generalized gradient and Hessian of inertia + gravity (link Jacobians, the
    /// second-order kinematic term and the moment formulas) against central differences.
    #[test]
    fn energy_derivatives_match_finite_differences(c in chain()) {
        let q0: [f64; DOF] = c.state.q.as_slice().try_into().unwrap();
        let (_, g, h) = energy(&c, &q0);
        let fd = central_differences(|q| energy(&c, q).0, &q0, 1e-4);
        let err = relative_error(g.as_slice(), &fd, 1e-9);
        prop_assert!(err < 1e-6, "gradient error {:e}", err);
        let fd: Vec<f64> = central_differences(|q| energy(&c, q).1, &q0, 1e-4).iter().flat_map(|c| c.iter().copied()).collect();
        let err = relative_error(h.as_slice(), &fd, 1e-9);
        prop_assert!(err < 1e-6, "hessian error {:e}", err);
    }

    /// Re-centring a state changes its coordinates, not its configuration.
    #[test]
    fn recentring_keeps_every_pose(c in chain()) {
        let before = Kinematics::new(&c.model, &c.state);
        let after = Kinematics::new(&c.model, &c.state.recentred(&c.model));
        for (a, b) in before.poses().iter().zip(after.poses()) {
            prop_assert!((a.to_homogeneous() - b.to_homogeneous()).norm() < 1e-12);
        }
    }
}

#[test]
fn bad_models_are_rejected_with_clear_errors() {
    use sdrs_dynamics::DynamicsError;
    assert_eq!(Model::new(vec![]).unwrap_err(), DynamicsError::EmptyModel);
    let cube = sdrs_geometry::ConvexHull::cuboid(nalgebra::Vector3::repeat(0.1)).unwrap();
    let link = |parent, joint, mass| {
        Link::new(
            "l",
            parent,
            Isometry3::identity(),
            joint,
            vec![cube.clone()],
            mass,
        )
    };
    let lumped = MassModel::Lumped { mass: 1.0 };
    assert!(matches!(
        Model::new(vec![link(Some(0), JointKind::Fixed, lumped.clone())]),
        Err(DynamicsError::BadParent { .. })
    ));
    assert!(matches!(
        Model::new(vec![link(
            None,
            JointKind::Revolute {
                axis: nalgebra::Vector3::zeros()
            },
            lumped.clone()
        )]),
        Err(DynamicsError::BadAxis { .. })
    ));
    assert!(matches!(
        Model::new(vec![link(
            None,
            JointKind::Fixed,
            MassModel::Lumped { mass: -1.0 }
        )]),
        Err(DynamicsError::BadMass { .. })
    ));
    let model = Model::new(vec![link(None, JointKind::Free, lumped)]).unwrap();
    assert!(matches!(
        State::new(&model, DVector::zeros(3)),
        Err(DynamicsError::LengthMismatch { .. })
    ));
    assert!(matches!(
        State::new(&model, DVector::from_element(6, f64::NAN)),
        Err(DynamicsError::NonFinite { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(50))]

    /// The design vector round-trips, and moving an attachment translates the whole subtree
    /// by that move expressed in the parent's frame.
    #[test]
    fn design_vector_round_trips_and_moves_the_subtree(c in chain(), shift in unit_vector()) {
        let d = c.model.design();
        prop_assert_eq!(d.len(), c.model.design_len());
        prop_assert_eq!(c.model.with_design(&d).unwrap().design(), d.clone());
        // Link 3 (prismatic, child of the free root): its subtree is links 3, 4, 5.
        let mut moved = d.clone();
        let at = c.model.design_index(3, None);
        for k in 0..3 {
            moved[at + k] += 0.1 * shift[k];
        }
        let other = c.model.with_design(&moved).unwrap();
        let before = Kinematics::new(&c.model, &c.state);
        let after = Kinematics::new(&other, &c.state);
        let world_shift = before.poses()[0].rotation * (shift * 0.1);
        for i in 0..7 {
            let expected = if (3..6).contains(&i) { world_shift } else { nalgebra::Vector3::zeros() };
            let delta = after.poses()[i].translation.vector - before.poses()[i].translation.vector;
            prop_assert!((delta - expected).norm() < 1e-12, "link {}: {:?} vs {:?}", i, delta, expected);
        }
        // A vertex entry is the vertex.
        let v = c.model.design_index(2, Some((0, 1)));
        let vertex = c.model.links()[2].hulls[0].vertices()[1];
        prop_assert_eq!(nalgebra::Vector3::new(d[v], d[v + 1], d[v + 2]), vertex.coords);
    }
}

#[test]
fn a_bad_design_vector_is_refused() {
    use sdrs_dynamics::DynamicsError;
    let cube = sdrs_geometry::ConvexHull::cuboid(nalgebra::Vector3::repeat(0.1)).unwrap();
    let link = Link::new(
        "l",
        None,
        Isometry3::identity(),
        JointKind::Fixed,
        vec![cube],
        MassModel::Lumped { mass: 1.0 },
    );
    let model = Model::new(vec![link]).unwrap();
    assert!(matches!(
        model.with_design(&DVector::zeros(3)),
        Err(DynamicsError::LengthMismatch { .. })
    ));
    let mut d = model.design();
    d[5] = f64::NAN;
    assert!(matches!(
        model.with_design(&d),
        Err(DynamicsError::NonFinite { index: 5, .. })
    ));
    // All vertices on one plane: no hull.
    let mut flat = model.design();
    for k in 0..8 {
        flat[3 + 3 * k + 2] = 0.0;
    }
    assert!(matches!(
        model.with_design(&flat),
        Err(DynamicsError::BadDesign { hull: 0, .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Forward-mode check of the kinematic derivatives with hyper-dual numbers: along a random
    /// direction δ, the origin's first and second derivatives are `J_v δ` and
    /// `Σ_k δ_k² K_kk + 2 Σ_{k<l} δ_k δ_l K_kl` with `K_kl = ω_k × (ω_l × o + v_l)`, and the
    /// rotation's are `[a]× R` and `([b]× + [a]×²) R` with `a = J_ω δ`,
    /// `b = Σ_{k<l} δ_k δ_l ω_k × ω_l` (the terms `Kinematics::add_term` adds).
    #[test]
    fn kinematic_derivatives_match_hyper_dual_numbers(c in chain(), dir in proptest::collection::vec(-1.0..1.0f64, DOF)) {
        use num_dual::HyperDual64;
        use sdrs_dynamics::forward_kinematics;
        let q: Vec<HyperDual64> = c.state.q.iter().zip(&dir).map(|(&x, &d)| HyperDual64::new(x, d, d, 0.0)).collect();
        let (poses, _) = forward_kinematics(&c.model, &q, &c.state.references);
        let kin = Kinematics::new(&c.model, &c.state);
        for (l, pose) in poses.iter().enumerate() {
            let path = c.model.path(l);
            let o = kin.poses()[l].translation.vector;
            let (mut first, mut a) = (nalgebra::Vector3::zeros(), nalgebra::Vector3::zeros());
            for (k, col) in kin.jacobian(l) {
                first += col.fixed_rows::<3>(0) * dir[k];
                a += col.fixed_rows::<3>(3) * dir[k];
            }
            let (mut second, mut b) = (nalgebra::Vector3::zeros(), nalgebra::Vector3::zeros());
            for (i, &k) in path.iter().enumerate() {
                let wk = kin.screw(k).0;
                for &m in &path[i..] {
                    let (wm, vm) = kin.screw(m);
                    let weight = if k == m { 1.0 } else { 2.0 } * dir[k] * dir[m];
                    second += wk.cross(&(wm.cross(&o) + vm)) * weight;
                    if k != m {
                        b += wk.cross(&wm) * (dir[k] * dir[m]);
                    }
                }
            }
            let t = pose.translation.vector;
            let part = |f: fn(&HyperDual64) -> f64| nalgebra::Vector3::new(f(&t.x), f(&t.y), f(&t.z));
            prop_assert!((part(|x| x.eps1) - first).norm() < 1e-10 * (1.0 + first.norm()), "link {} origin first derivative", l);
            prop_assert!((part(|x| x.eps1eps2) - second).norm() < 1e-10 * (1.0 + second.norm()), "link {} origin second derivative", l);
            let rot = pose.rotation.to_rotation_matrix().into_inner();
            let r = rot.map(|x| x.re);
            let r1 = rot.map(|x| x.eps1);
            let r2 = rot.map(|x| x.eps1eps2);
            prop_assert!((r1 - a.cross_matrix() * r).norm() < 1e-10 * (1.0 + a.norm()), "link {} rotation first derivative", l);
            let expected = (b.cross_matrix() + a.cross_matrix() * a.cross_matrix()) * r;
            prop_assert!((r2 - expected).norm() < 1e-10 * (1.0 + expected.norm()), "link {} rotation second derivative", l);
        }
    }
}
