//! Contacts reported by the simulator ([`Simulator::contacts`]) for the three contact models:
//! a box resting on a slab carries its weight, a sliding box feels Coulomb friction, and
//! asking for contacts does not change the steps that follow.

use nalgebra::Vector3;
use sdrs_contact::ipc::friction::IpcFriction;
use sdrs_contact::ipc::potential::Ipc;
use sdrs_dynamics::scenes::{box_on_incline, sliding_block};
use sdrs_dynamics::{ActiveContact, IpcContact, Kinematics, Motion, Simulator, State};

const WEIGHT: f64 = 9.81;

/// Runs `sim` from `motion` for `steps` steps with no control and returns the contacts.
fn settle(sim: &mut Simulator, motion: &mut Motion, steps: usize) -> Vec<ActiveContact> {
    let control = sdrs_dynamics::Control::passive(sim.model());
    for _ in 0..steps {
        sim.advance(motion, &control).unwrap();
    }
    sim.contacts(motion).unwrap()
}

/// The sum of the normal forces is the weight, every normal points up from the slab (link 0)
/// to the box (link 1), and the centre of pressure lies under the box's centre, in the gap.
fn assert_carries_the_weight(contacts: &[ActiveContact], box_centre: &Vector3<f64>) {
    assert!(!contacts.is_empty());
    let load: f64 = contacts.iter().map(|c| c.normal_force).sum();
    assert!(
        (load - WEIGHT).abs() < 1e-3 * WEIGHT,
        "normal forces sum to {load} N, weight {WEIGHT} N"
    );
    let pressure = contacts.iter().fold(Vector3::zeros(), |acc, c| {
        acc + c.point.coords * c.normal_force
    }) / load;
    assert!(
        (pressure.xy() - box_centre.xy()).norm() < 1e-3,
        "{pressure}"
    );
    for c in contacts {
        assert_eq!(c.links, [0, 1]);
        assert!(c.gap > 0.0 && c.gap < 0.03, "gap {}", c.gap);
        assert!(
            (c.normal - Vector3::z()).norm() < 1e-3,
            "normal {}",
            c.normal
        );
        assert!(c.point.z > -1e-9 && c.point.z < box_centre.z - 0.1 + 1e-9);
    }
}

#[test]
fn sdrs_hulls_report_the_weight_of_a_resting_box() {
    let scene = box_on_incline(0.0, 0.5, 0.01).unwrap();
    let mut sim = Simulator::new(scene.model.clone(), scene.settings).unwrap();
    let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    let contacts = settle(&mut sim, &mut motion, 200);
    let centre = Kinematics::new(&scene.model, &motion.state).poses()[1]
        .translation
        .vector;
    assert_carries_the_weight(&contacts, &centre);
    // At rest, friction is (all but) zero.
    let friction = contacts[0].friction_force.unwrap();
    assert!(friction.norm() < 1e-3 * WEIGHT, "{friction}");
}

#[test]
fn long_range_meshes_report_the_weight_of_a_resting_box() {
    let scene = sliding_block(0.0, 0.5, 0.01).unwrap();
    let mut sim = Simulator::with_contact(
        scene.scene.model.clone(),
        scene.scene.settings,
        Box::new(scene.contact),
    )
    .unwrap();
    let mut motion = scene.start;
    let contacts = settle(&mut sim, &mut motion, 200);
    let centre = Kinematics::new(&scene.scene.model, &motion.state).poses()[1]
        .translation
        .vector;
    assert_carries_the_weight(&contacts, &centre);
    assert!(contacts[0].friction_force.is_some());
}

#[test]
fn ipc_meshes_report_the_weight_of_a_resting_box() {
    let scene = sliding_block(0.0, 0.0, 0.01).unwrap();
    let model = scene.scene.model;
    let ipc = Ipc::new(2e-3).unwrap();
    let hook = IpcContact::new(&model, ipc.clone(), 1e8, false)
        .unwrap()
        .with_friction(IpcFriction::new(&ipc, 0.5, 0.01).unwrap());
    let mut sim =
        Simulator::with_contact(model.clone(), scene.scene.settings, Box::new(hook)).unwrap();
    let mut motion = scene.start;
    let contacts = settle(&mut sim, &mut motion, 200);
    let centre = Kinematics::new(&model, &motion.state).poses()[1]
        .translation
        .vector;
    assert_carries_the_weight(&contacts, &centre);
}

/// A box sliding at 1 m/s on a flat slab with μ = 0.5: the friction force on it is Coulomb's
/// `μ m g` against the motion.
#[test]
fn a_sliding_box_reports_coulomb_friction() {
    let (mu, dt) = (0.5, 0.01);
    let scene = box_on_incline(0.0, mu, dt).unwrap();
    let mut sim = Simulator::new(scene.model.clone(), scene.settings).unwrap();
    // Settle at rest first so that the normal force is the weight, then push.
    let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    settle(&mut sim, &mut motion, 100);
    let mut before = motion.state.clone();
    before.q[0] -= 1.0 * dt;
    motion.previous = Kinematics::new(&scene.model, &before).poses().to_vec();
    let contacts = settle(&mut sim, &mut motion, 1);
    let friction: Vector3<f64> = contacts.iter().map(|c| c.friction_force.unwrap()).sum();
    let coulomb = Vector3::new(-mu * WEIGHT, 0.0, 0.0);
    assert!(
        (friction - coulomb).norm() < 1e-3 * coulomb.norm(),
        "friction {friction}, Coulomb {coulomb}"
    );
}

/// Contacts are evaluated cold: a run that asks for them after every step takes bit-identical
/// steps to one that does not.
#[test]
fn asking_for_contacts_does_not_change_the_run() {
    let run = |ask: bool| {
        let scene = box_on_incline(0.3, 0.5, 0.01).unwrap();
        let mut sim = Simulator::new(scene.model.clone(), scene.settings).unwrap();
        let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
        for _ in 0..30 {
            sim.advance(&mut motion, &scene.control).unwrap();
            if ask {
                assert!(!sim.contacts(&motion).unwrap().is_empty());
            }
        }
        motion
    };
    assert_eq!(run(false), run(true));
}

/// The SDRS hook keeps its friction frames while the links have not moved and renews them
/// when they have: each step of a box at rest and of a box sliding down an incline equals the
/// same step taken by a fresh simulator, which computes its frames cold. With the exact
/// Hessian's directions: force-anchored ones carry the last step's force estimates, which a
/// fresh simulator has not, so its iterates (and the point inside the tolerance it stops
/// at) differ by design.
#[test]
fn friction_frames_are_kept_at_rest_and_renewed_in_motion() {
    for (tilt, mu) in [(0.0, 0.5), (0.4, 0.1)] {
        let mut scene = box_on_incline(tilt, mu, 0.01).unwrap();
        scene.settings.anchored_newton = false;
        let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone()).unwrap();
        let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
        let mut largest: f64 = 0.0;
        for _ in 0..60 {
            let before = motion.clone();
            sim.advance(&mut motion, &scene.control).unwrap();
            let mut fresh = Simulator::new(scene.model.clone(), scene.settings.clone()).unwrap();
            let (state, _) = fresh
                .step(&before.state, &before.previous, &scene.control)
                .unwrap();
            largest = largest.max((&state.q - &motion.state.q).amax());
        }
        let slid = motion.state.q[0].abs();
        eprintln!("tilt {tilt}: slid {slid:.3e} m, largest difference {largest:.1e}");
        assert!(largest < 1e-9, "tilt {tilt}: steps differ by {largest}");
        if tilt > 0.0 {
            assert!(slid > 1e-2, "the box did not slide ({slid} m)");
        }
    }
}
