//! The step's collision detection (broad phase, then patches) finds exactly the contacts of
//! checking every hull pair the model lets touch and every moving hull against the ground.

use nalgebra::{DVector, Isometry3, Vector3};
use sdrs_dynamics::{JointKind, Link, MassModel, Model, RigidBodyData, State};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::contact::{hull_halfspace_contacts, hull_pair_contacts};
use sdrs_geometry::gjk::GjkCache;
use sdrs_ncp::NcpSettings;
use sdrs_ncp::stepper::detection::{ContactKey, Detector};

/// Every contact by brute force: all link pairs, all hull pairs, fresh GJK caches.
fn brute_force(
    model: &Model,
    poses: &[Isometry3<f64>],
    settings: &NcpSettings,
) -> Vec<(ContactKey, Vector3<f64>, f64)> {
    let links = model.links();
    let margin = settings.margin();
    let mut out = Vec::new();
    if let Some((normal, offset)) = settings.ground() {
        for (b, link) in links.iter().enumerate() {
            if model.path(b).is_empty() {
                continue;
            }
            for (hb, hull) in link.hulls.iter().enumerate() {
                let points = hull_halfspace_contacts(hull, &poses[b], &normal, offset, margin);
                for (k, p) in points.unwrap().into_iter().enumerate() {
                    out.push(((None, 0, b, hb, k), p.position.coords, p.separation));
                }
            }
        }
    }
    for b in 0..links.len() {
        for a in 0..b {
            if !model.may_touch(a, b, true) {
                continue;
            }
            for (ha, hull_a) in links[a].hulls.iter().enumerate() {
                for (hb, hull_b) in links[b].hulls.iter().enumerate() {
                    let points = hull_pair_contacts(
                        hull_a,
                        &poses[a],
                        hull_b,
                        &poses[b],
                        margin,
                        &mut GjkCache::default(),
                    );
                    for (k, p) in points.unwrap().into_iter().enumerate() {
                        out.push(((Some(a), ha, b, hb, k), p.position.coords, p.separation));
                    }
                }
            }
        }
    }
    out.sort_by_key(|x| x.0);
    out
}

/// The detector's contacts, sorted like [`brute_force`]'s.
fn detected(
    detector: &mut Detector,
    model: &Model,
    poses: &[Isometry3<f64>],
    settings: &NcpSettings,
) -> Vec<(ContactKey, Vector3<f64>, f64)> {
    let mut out: Vec<_> = detector
        .detect(model, poses, settings)
        .unwrap()
        .into_iter()
        .map(|c| (c.key, c.point.position.coords, c.point.separation))
        .collect();
    out.sort_by_key(|x| x.0);
    out
}

fn poses(model: &Model, state: &State) -> Vec<Isometry3<f64>> {
    let mut data = RigidBodyData::new(model);
    data.forward_kinematics(model, state).unwrap();
    (0..model.links().len())
        .map(|i| data.link_placement(model.link_id(i).unwrap()).unwrap())
        .collect()
}

fn assert_same(found: &[(ContactKey, Vector3<f64>, f64)], all: &[(ContactKey, Vector3<f64>, f64)]) {
    let keys = |x: &[(ContactKey, Vector3<f64>, f64)]| x.iter().map(|c| c.0).collect::<Vec<_>>();
    assert_eq!(keys(found), keys(all));
    for (f, a) in found.iter().zip(all) {
        assert!(
            (f.1 - a.1).norm() < 1e-9 && (f.2 - a.2).abs() < 1e-9,
            "{f:?} vs {a:?}"
        );
    }
}

/// Solo-12 along 300 steps of a PD stand on the ground half-space (feet in and out of the
/// margin, legs close to each other): the same contacts at every step.
#[test]
fn detector_finds_every_contact_of_solo12() {
    let (mut sim, mut state, control) = crate::robot::solo12(1e-10);
    let settings = *sim.settings();
    let model = sim.model().clone();
    let mut detector = Detector::new(&model);
    let mut v = DVector::zeros(model.dof());
    let mut seen = 0;
    for step in 0..300 {
        let p = poses(&model, &state.recentred(&model));
        let all = brute_force(&model, &p, &settings);
        assert_same(&detected(&mut detector, &model, &p, &settings), &all);
        seen += all.len();
        if let Err(e) = sim.step(&mut state, &mut v, &control) {
            panic!("step {step}: {e}");
        }
    }
    assert!(seen > 0, "no contact met: the test checks nothing");
}

/// Boxes and an elongated hull on one link each, placed at random near each other (gaps around
/// the margin, overlaps, far apart): the broad phase drops no pair within the margin.
#[test]
fn detector_finds_every_contact_of_random_clutter() {
    let shapes = [
        ConvexHull::cuboid(Vector3::new(0.1, 0.1, 0.1)).unwrap(),
        ConvexHull::cuboid(Vector3::new(0.3, 0.02, 0.05)).unwrap(),
        ConvexHull::cuboid(Vector3::new(0.05, 0.05, 0.2)).unwrap(),
    ];
    let links: Vec<Link> = (0..9)
        .map(|i| {
            Link::new(
                format!("body{i}"),
                None,
                Isometry3::identity(),
                JointKind::Free,
                vec![shapes[i % 3].clone(), shapes[(i + 1) % 3].clone()],
                MassModel::Lumped { mass: 1.0 },
            )
        })
        .collect();
    let model = Model::new(links).unwrap();
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_margin(0.02)
        .unwrap()
        .with_ground(Vector3::new(0.1, 0.0, 1.0), 0.0)
        .unwrap();
    let mut detector = Detector::new(&model);
    let mut uniform = sdrs_geometry::testing::uniform_stream(0x2545_f491_4f6c_dd1d);
    let mut seen = 0;
    for _ in 0..200 {
        let q = DVector::from_fn(model.dof(), |i, _| match i % 6 {
            0 | 1 => 0.8 * uniform() - 0.4,
            2 => 0.5 * uniform(),
            _ => 6.0 * uniform() - 3.0,
        });
        let state = State::new(&model, q).unwrap();
        let p = poses(&model, &state);
        let all = brute_force(&model, &p, &settings);
        assert_same(&detected(&mut detector, &model, &p, &settings), &all);
        seen += all.len();
    }
    assert!(seen > 100, "{seen} contacts in 200 scenes");
}
