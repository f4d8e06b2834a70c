//! Bad input at every public entry point gives a typed error: no panic, no hang, no NaN.

use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use sdrs_contact::friction::{FrictionCache, FrictionFrame, PlaneFriction};
use sdrs_contact::ipc::potential::{Ipc, IpcShape};
use sdrs_contact::long_range::triangle::triangle_potential;
use sdrs_contact::long_range::{LongRange, MeshShape};
use sdrs_contact::{ContactError, ContactModel, Order, PairOutcome, PlaneBarrier, PlaneCache};
use sdrs_geometry::{ConvexHull, TriMesh};

/// Poses no contact model accepts: NaN or infinite entries, a rotation that is not a unit
/// quaternion.
fn bad_poses() -> Vec<Isometry3<f64>> {
    let rotation = |q: Quaternion<f64>| {
        Isometry3::from_parts(
            Translation3::new(0.0, 0.0, 1.05),
            UnitQuaternion::new_unchecked(q),
        )
    };
    vec![
        Isometry3::translation(f64::NAN, 0.0, 1.05),
        Isometry3::translation(0.0, f64::INFINITY, 1.05),
        Isometry3::translation(0.0, 0.0, f64::NEG_INFINITY),
        rotation(Quaternion::new(f64::NAN, 0.0, 0.0, 0.0)),
        rotation(Quaternion::new(1.0, f64::INFINITY, 0.0, 0.0)),
        rotation(Quaternion::new(0.0, 0.0, 0.0, 0.0)),
        rotation(Quaternion::new(2.0, 0.0, 0.0, 0.0)),
    ]
}

/// `evaluate` of `model` at a good and a bad pose, both orders: the bad pose is named.
fn rejects_bad_poses<M: ContactModel>(model: &M, shape: &M::Shape) {
    let good = Isometry3::identity();
    for bad in bad_poses() {
        for (pa, pb, body) in [(&bad, &good, 0), (&good, &bad, 1)] {
            let err = model
                .evaluate(
                    shape,
                    pa,
                    shape,
                    pb,
                    &mut Default::default(),
                    Order::Hessian,
                )
                .unwrap_err();
            assert!(
                matches!(err, ContactError::NonFinitePose { body: b } | ContactError::NonUnitRotation { body: b, .. } if b == body),
                "{bad:?}: {err}"
            );
        }
        let err = model
            .max_step(shape, shape, [&good, &good], [&good, &bad])
            .err();
        // Models without continuous collision detection never look at the poses.
        if let Some(err) = err {
            assert!(matches!(
                err,
                ContactError::NonFinitePose { .. } | ContactError::NonUnitRotation { .. }
            ));
        }
    }
}

fn cube() -> ConvexHull {
    ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap()
}

#[test]
fn plane_barrier_rejects_bad_poses() {
    let model = PlaneBarrier::new(0.1).unwrap();
    rejects_bad_poses(&model, &cube());
    let bad = Isometry3::translation(f64::NAN, 0.0, 0.0);
    assert!(matches!(
        model.plane_sensitivity(&cube(), &bad, &cube(), &bad, &mut PlaneCache::default()),
        Err(ContactError::NonFinitePose { body: 0 })
    ));
}

#[test]
fn long_range_rejects_bad_poses() {
    let shape = MeshShape::new(TriMesh::icosphere(0.5, 1).unwrap()).unwrap();
    rejects_bad_poses(&LongRange::new(0.01).unwrap(), &shape);
}

#[test]
fn ipc_rejects_bad_poses() {
    let shape = IpcShape::new(TriMesh::icosphere(0.5, 1).unwrap());
    rejects_bad_poses(&Ipc::new(1e-2).unwrap(), &shape);
}

/// Huge but finite coordinates overflow products; the result is a typed error or a finite
/// (or, for penetration, infinite) value, never NaN.
#[test]
fn huge_coordinates_give_no_nan() {
    let model = PlaneBarrier::new(0.1).unwrap();
    for x in [1e150, 1e200, 1e300, f64::MAX] {
        for (pa, pb) in [
            (Isometry3::translation(x, 0.0, 0.0), Isometry3::identity()),
            (
                Isometry3::translation(x, 0.0, 0.0),
                Isometry3::translation(x, 0.0, 1.05),
            ),
        ] {
            let out = model.evaluate(
                &cube(),
                &pa,
                &cube(),
                &pb,
                &mut PlaneCache::default(),
                Order::Hessian,
            );
            match out {
                Ok(PairOutcome::Separated(c)) => assert!(
                    c.value.is_finite() && c.gradient.iter().all(|g| g.is_finite()),
                    "{x}: {c:?}"
                ),
                Ok(PairOutcome::Penetrating) | Err(ContactError::Overflow { .. }) => {}
                Err(e) => panic!("{x}: {e}"),
            }
        }
    }
}

#[test]
fn bad_settings_are_rejected() {
    for bad in [f64::NAN, f64::INFINITY, -1.0, 0.0] {
        assert!(PlaneBarrier::new(bad).is_err());
        assert!(LongRange::new(bad).is_err());
        assert!(Ipc::new(bad).is_err());
        assert!(PlaneFriction::new(0.5, bad).is_err());
        assert!(PlaneBarrier::new(0.1).unwrap().with_tolerance(bad).is_err());
    }
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        assert!(PlaneFriction::new(bad, 0.01).is_err());
    }
}

/// A block resting 5 mm above a slab: the frame of its contact.
fn frame() -> FrictionFrame {
    let slab = ConvexHull::cuboid(Vector3::new(2.0, 2.0, 0.5)).unwrap();
    let block = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    let below = Isometry3::translation(0.0, 0.0, -0.5);
    let above = Isometry3::translation(0.0, 0.0, 0.105);
    let barrier = PlaneBarrier::new(0.01).unwrap();
    FrictionFrame::new(
        &barrier,
        1.0,
        &slab,
        &below,
        &block,
        &above,
        &mut PlaneCache::default(),
    )
    .unwrap()
    .expect("in contact")
}

#[test]
fn plane_friction_rejects_bad_poses_and_frames() {
    let friction = PlaneFriction::new(0.5, 0.01).unwrap();
    let frame = frame();
    let [pa, pb] = *frame.poses();
    for bad in bad_poses() {
        let err = friction
            .evaluate(
                &frame,
                &pa,
                &bad,
                &mut FrictionCache::default(),
                Order::Hessian,
            )
            .unwrap_err();
        assert!(
            matches!(
                err,
                ContactError::NonFinitePose { body: 1 }
                    | ContactError::NonUnitRotation { body: 1, .. }
            ),
            "{err}"
        );
        assert!(
            friction
                .evaluate_lagged(&frame, &bad, &pb, &mut FrictionCache::default())
                .is_err()
        );
    }
    let mut turned = frame.clone();
    assert!(matches!(
        turned.rotate_basis(f64::NAN),
        Err(ContactError::InvalidSetting { name: "angle", .. })
    ));
    let slab = ConvexHull::cuboid(Vector3::new(2.0, 2.0, 0.5)).unwrap();
    for stiffness in [f64::NAN, 0.0, -1.0, f64::INFINITY] {
        assert!(
            FrictionFrame::new(
                &PlaneBarrier::new(0.01).unwrap(),
                stiffness,
                &slab,
                &pa,
                &cube(),
                &pb,
                &mut PlaneCache::default()
            )
            .is_err()
        );
    }
}

#[test]
fn triangle_potential_rejects_non_finite_corners() {
    let a = [
        Point3::origin(),
        Point3::new(1.0, 0.0, 0.0),
        Point3::new(0.0, 1.0, 0.0),
    ];
    let b = a.map(|p| p + Vector3::new(0.0, 0.0, 0.1));
    for bad in [f64::NAN, f64::INFINITY] {
        let mut c = b;
        c[1].y = bad;
        assert!(matches!(
            triangle_potential(&a, &c, None, 100),
            Err(ContactError::NonFiniteVertex { .. })
        ));
        assert!(matches!(
            triangle_potential(&c, &a, None, 100),
            Err(ContactError::NonFiniteVertex { .. })
        ));
    }
    // A NaN warm start is ignored, not followed.
    let start = nalgebra::Vector4::repeat(f64::NAN);
    let t = triangle_potential(&a, &b, Some(start), 100)
        .unwrap()
        .unwrap();
    assert!(t.value.is_finite());
}

#[test]
fn moved_mesh_shapes_reject_non_finite_vertices() {
    let shape = MeshShape::new(TriMesh::icosphere(0.5, 1).unwrap()).unwrap();
    let mut vertices = shape.mesh().vertices().to_vec();
    vertices[3].x = f64::NAN;
    assert!(matches!(
        shape.moved(vertices),
        Err(ContactError::Geometry { .. })
    ));
}
