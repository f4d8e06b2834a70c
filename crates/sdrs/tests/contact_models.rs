//! `World` selects a mesh contact model through `set_contact`, and `with_friction` adds
//! friction to it without touching the model or its stiffness.

use sdrs::contact::long_range::LongRange;
use sdrs::dynamics::{ContactKind, ContactSettings};
use sdrs::geometry::TriMesh;
use sdrs::prelude::*;

/// A 1 kg box link of half extents `half` with its hull and its collision mesh.
fn meshed(name: &str, half: Vector3<f64>, joint: JointKind, at: Isometry3<f64>) -> Link {
    Link::new(
        name,
        None,
        at,
        joint,
        vec![ConvexHull::cuboid(half).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    )
    .with_mesh(TriMesh::cuboid(half).unwrap())
}

#[test]
fn a_block_rests_on_a_slab_under_long_range_contact_chosen_in_the_world() {
    let mut world = World::new(0.01).unwrap();
    let slab = Isometry3::translation(0.0, 0.0, -0.1);
    let block = Isometry3::new(Vector3::new(0.4, -0.3, 0.101), Vector3::z() * 0.3);
    let _ = world.add_robot(
        vec![meshed(
            "slab",
            Vector3::new(1.0, 1.0, 0.1),
            JointKind::Fixed,
            slab,
        )],
        Isometry3::identity(),
    );
    let _ = world.add_robot(
        vec![meshed(
            "block",
            Vector3::repeat(0.1),
            JointKind::Free,
            block,
        )],
        Isometry3::identity(),
    );
    let kind = ContactKind::LongRange(LongRange::new(0.1).unwrap());
    world.set_contact(Some(ContactSettings::new(kind.clone(), 1e-7).unwrap()));
    let (model, mut sim) = world.with_friction(0.5).unwrap().build().unwrap();
    let contact = sim.settings().contact.clone().unwrap();
    assert_eq!((&contact.kind, contact.stiffness), (&kind, 1e-7));
    // Mesh models keep their own friction smoothing.
    assert_eq!(contact.friction.unwrap().velocity_epsilon, None);
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    for _ in 0..100 {
        sim.advance(&mut motion, &Control::passive(&model)).unwrap();
    }
    let contacts = sim.contacts(&motion).unwrap();
    let load: f64 = contacts.iter().map(|c| c.normal_force).sum();
    assert!((load - 9.81).abs() < 1e-2, "normal forces {load} N");
    assert!(
        contacts
            .iter()
            .all(|c| c.links == [0, 1] && c.gap > 0.0 && c.gap < 2e-3)
    );
}

/// The world's ground carries a mesh: a block dropped on it rests under every contact model.
#[test]
fn a_block_rests_on_the_ground_under_every_contact_model() {
    use sdrs::contact::ipc::potential::Ipc;
    let kinds = [
        (ContactKind::LongRange(LongRange::new(0.1).unwrap()), 1e-7),
        // IPC's κ ≈ F / (20 d̂³) for the block's weight F (`ContactKind::Ipc`): it rests a
        // fraction of d̂ up, not at a gap squared distances cannot resolve.
        (ContactKind::Ipc(Ipc::new(1e-3).unwrap()), 5e8),
    ];
    for (kind, stiffness) in kinds {
        let mut world = World::new(0.01).unwrap().with_ground();
        let block = Isometry3::translation(0.0, 0.0, 0.102);
        let _ = world.add_robot(
            vec![meshed(
                "block",
                Vector3::repeat(0.1),
                JointKind::Free,
                block,
            )],
            Isometry3::identity(),
        );
        world.set_contact(Some(ContactSettings::new(kind.clone(), stiffness).unwrap()));
        let (model, mut sim) = world.build().unwrap();
        let mut motion = Motion::at_rest(&model, State::zero(&model));
        for _ in 0..100 {
            sim.advance(&mut motion, &Control::passive(&model)).unwrap();
        }
        let load: f64 = sim
            .contacts(&motion)
            .unwrap()
            .iter()
            .map(|c| c.normal_force)
            .sum();
        let height = motion.previous[1].translation.z;
        assert!(
            (load - 9.81).abs() < 2e-2,
            "{kind:?}: normal forces {load} N"
        );
        assert!(
            height > 0.1 + 1e-5 && height < 0.102,
            "{kind:?}: the block at z = {height}"
        );
    }
}

#[test]
fn an_object_added_with_its_hull_collides_under_the_mesh_models_too() {
    use sdrs::contact::ipc::potential::Ipc;
    for kind in [
        ContactKind::LongRange(LongRange::new(0.5).unwrap()),
        ContactKind::Ipc(Ipc::new(0.01).unwrap()),
    ] {
        let stiffness = match kind {
            ContactKind::LongRange(_) => 1e-8,
            _ => 1e2,
        };
        let mut world = World::new(0.01).unwrap().with_ground();
        world.set_contact(Some(ContactSettings::new(kind, stiffness).unwrap()));
        let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
        world.add_object("box", cube, 1.0, Isometry3::translation(0.0, 0.0, 0.15));
        let (model, mut sim) = world.build().unwrap();
        let mut motion = Motion::at_rest(&model, State::zero(&model));
        for _ in 0..60 {
            sim.advance(&mut motion, &Control::passive(&model)).unwrap();
        }
        // Dropped 5 cm, it rests on the ground instead of falling through it.
        let height = 0.15 + motion.state.q[2];
        assert!((0.1 - 1e-4..0.105).contains(&height), "box at {height} m");
    }
}
