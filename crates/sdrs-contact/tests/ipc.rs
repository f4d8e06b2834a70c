//! The IPC primitives against reference numbers from `ipctk` 1.6.1 (PyPI), produced by
//! `benches/reference/ipctk_reference.py` and held here as constants: squared distances,
//! their gradient and Hessian norms and types for every Voronoi region, the edge-edge
//! mollifier and the clamped log barrier; plus derivatives against differences.

use nalgebra::Point3;
use sdrs_contact::ipc::barrier::barrier;
use sdrs_contact::ipc::distance::{EdgeEdgeType, PointTriangleType, edge_edge, point_triangle};
use sdrs_contact::ipc::mollifier::{mollifier, threshold};
use sdrs_geometry::testing::{central_differences, relative_error};

type V = [f64; 3];
type PointTriangleRow = (V, V, V, V, PointTriangleType, f64, f64, f64);
type EdgeEdgeRow = (V, V, V, V, EdgeEdgeType, f64, f64, f64, f64, f64, f64, f64);

/// `(p, t0, t1, t2, type, d², |∇d²|, |∇²d²|_F)`.
const POINT_TRIANGLE: [PointTriangleRow; 8] = [
    (
        [0.2, 0.3, 0.7],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        PointTriangleType::Face,
        0.48999999999999994,
        1.6446276174259022,
        6.192769977966241,
    ),
    (
        [-0.4, -0.3, 0.2],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        PointTriangleType::Vertex(0),
        0.29000000000000004,
        1.5231546211727818,
        6.928203230275509,
    ),
    (
        [1.5, -0.2, 0.3],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        PointTriangleType::Vertex(1),
        0.38,
        1.7435595774162693,
        6.928203230275509,
    ),
    (
        [-0.1, 1.6, -0.4],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        PointTriangleType::Vertex(2),
        0.5300000000000001,
        2.0591260281974004,
        6.928203230275509,
    ),
    (
        [0.5, -0.5, 0.25],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        PointTriangleType::Edge(0),
        0.3125,
        1.3693063937629153,
        5.202163011671203,
    ),
    (
        [0.8, 0.8, -0.3],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        PointTriangleType::Edge(1),
        0.2700000000000001,
        1.2727922061357857,
        4.640215512236474,
    ),
    (
        [-0.6, 0.4, 0.1],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        PointTriangleType::Edge(2),
        0.37,
        1.499866660740214,
        5.436322286251984,
    ),
    (
        [0.31, 0.17, -0.05],
        [0.1, -0.2, 0.3],
        [1.2, 0.1, -0.1],
        [-0.3, 0.9, 0.2],
        PointTriangleType::Face,
        0.038867729737797896,
        0.45622527674543917,
        2.899073716927906,
    ),
];

/// `(a0, a1, b0, b1, type, d², |∇d²|, |∇²d²|_F, ε_x, m, |∇m|, |∇²m|_F)`.
const EDGE_EDGE: [EdgeEdgeRow; 9] = [
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.5, -0.5, 0.3],
        [0.5, 0.5, 0.3],
        EdgeEdgeType { a: None, b: None },
        0.09,
        0.6,
        2.6719281427463573,
        0.001,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [-0.5, -0.5, 0.3],
        [-0.5, 0.5, 0.3],
        EdgeEdgeType {
            a: Some(0),
            b: None,
        },
        0.33999999999999997,
        1.42828568570857,
        5.292409659125038,
        0.001,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.5, -0.5, 0.3],
        [1.5, 0.5, 0.3],
        EdgeEdgeType {
            a: Some(1),
            b: None,
        },
        0.33999999999999997,
        1.42828568570857,
        5.292409659125038,
        0.001,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.5, 0.2, 0.3],
        [0.5, 1.2, 0.3],
        EdgeEdgeType {
            a: None,
            b: Some(0),
        },
        0.13,
        0.8831760866327847,
        4.624975675611711,
        0.001,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.5, -1.2, 0.3],
        [0.5, -0.2, 0.3],
        EdgeEdgeType {
            a: None,
            b: Some(1),
        },
        0.13,
        0.8831760866327847,
        4.624975675611711,
        0.001,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [-0.5, 0.2, 0.3],
        [-0.5, 1.2, 0.3],
        EdgeEdgeType {
            a: Some(0),
            b: Some(0),
        },
        0.38,
        1.7435595774162693,
        6.928203230275509,
        0.001,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.2, 0.3, 0.3],
        [1.7, 1.2, 0.2],
        EdgeEdgeType {
            a: Some(1),
            b: Some(0),
        },
        0.21999999999999997,
        1.3266499161421599,
        6.928203230275509,
        0.0010699999999999998,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.1, 0.2, 0.0],
        [1.1, -0.1, 0.2],
        [0.3, 0.9, 0.4],
        [0.8, -0.6, 0.5],
        EdgeEdgeType { a: None, b: None },
        0.12461538461538463,
        0.7127282729473513,
        2.9426753716544747,
        0.0028363,
        1.0,
        0.0,
        0.0,
    ),
    (
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.2, 0.1, 0.05],
        [0.9, 0.1001, 0.05],
        EdgeEdgeType {
            a: None,
            b: Some(0),
        },
        0.012500000000000004,
        0.2898275349237888,
        4.783481995366974,
        0.0004900000099999999,
        4.081590920450616e-05,
        1.4091692985919884,
        34401.50508537213,
    ),
];

/// `(d, d̂, b, b', b'')`.
const BARRIER: [(f64, f64, f64, f64, f64); 4] = [
    (
        0.0001,
        0.001,
        1.8650939253251768e-06,
        -0.01224465316738928,
        121.60517018598809,
    ),
    (
        0.0005,
        0.001,
        1.732867951399863e-07,
        -0.0011931471805599453,
        6.386294361119891,
    ),
    (
        0.00099,
        0.001,
        1.0050335853501504e-12,
        -3.020168180801316e-07,
        0.06060674251610454,
    ),
    (
        0.02,
        0.0404,
        0.00029260106034968117,
        -0.04949437846565502,
        6.526595022826227,
    ),
];

fn p(v: &V) -> Point3<f64> {
    Point3::new(v[0], v[1], v[2])
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-300) || (a == 0.0 && b == 0.0)
}

#[test]
fn point_triangle_distances_match_ipctk() {
    for (k, (q, t0, t1, t2, kind, d, g, h)) in POINT_TRIANGLE.iter().enumerate() {
        let r = point_triangle(&p(q), &[p(t0), p(t1), p(t2)]);
        assert_eq!(r.kind, *kind, "case {k}");
        assert!(close(r.value, *d), "case {k}: d² {} vs {d}", r.value);
        assert!(
            close(r.gradient.norm(), *g),
            "case {k}: |∇d²| {} vs {g}",
            r.gradient.norm()
        );
        assert!(
            close(r.hessian.norm(), *h),
            "case {k}: |∇²d²| {} vs {h}",
            r.hessian.norm()
        );
    }
}

#[test]
fn edge_edge_distances_and_mollifier_match_ipctk() {
    for (k, (a0, a1, b0, b1, kind, d, g, h, eps, m, mg, mh)) in EDGE_EDGE.iter().enumerate() {
        let (a, b) = ([p(a0), p(a1)], [p(b0), p(b1)]);
        let r = edge_edge(&a, &b);
        assert_eq!(r.kind, *kind, "case {k}");
        assert!(close(r.value, *d), "case {k}: d² {} vs {d}", r.value);
        assert!(
            close(r.gradient.norm(), *g),
            "case {k}: |∇d²| {} vs {g}",
            r.gradient.norm()
        );
        assert!(
            close(r.hessian.norm(), *h),
            "case {k}: |∇²d²| {} vs {h}",
            r.hessian.norm()
        );
        assert!(close(threshold(&a, &b), *eps), "case {k}: ε_x");
        let (mv, mgrad, mhess) = mollifier(&a, &b, *eps);
        assert!(close(mv, *m), "case {k}: m {mv} vs {m}");
        assert!(
            close(mgrad.norm(), *mg),
            "case {k}: |∇m| {} vs {mg}",
            mgrad.norm()
        );
        assert!(
            close(mhess.norm(), *mh),
            "case {k}: |∇²m| {} vs {mh}",
            mhess.norm()
        );
    }
}

#[test]
fn the_barrier_matches_ipctk() {
    for (d, dhat, b, b1, b2) in BARRIER {
        let (v, v1, v2) = barrier(d, dhat).unwrap();
        assert!(
            close(v, b) && close(v1, b1) && close(v2, b2),
            "d = {d}: {v} {v1} {v2}"
        );
    }
}

#[test]
fn distance_derivatives_match_differences() {
    for (q, t0, t1, t2, ..) in POINT_TRIANGLE {
        let x: [f64; 12] = std::array::from_fn(|i| [q, t0, t1, t2][i / 3][i % 3]);
        let at = |x: &[f64; 12]| {
            let v = |k: usize| Point3::new(x[3 * k], x[3 * k + 1], x[3 * k + 2]);
            point_triangle(&v(0), &[v(1), v(2), v(3)])
        };
        let r = at(&x);
        let fd = central_differences(|x| at(x).value, &x, 1e-4);
        assert!(relative_error(r.gradient.as_slice(), &fd, 1e-12) < 1e-9);
        let fd_h: Vec<f64> = central_differences(|x| at(x).gradient, &x, 1e-4)
            .iter()
            .flat_map(|c| c.iter().copied().collect::<Vec<_>>())
            .collect();
        assert!(relative_error(r.hessian.as_slice(), &fd_h, 1e-12) < 1e-8);
    }
}

mod whole {
    //! The IPC potential between two meshes against `ipctk`'s `BarrierPotential` with
    //! stiffness one, on configurations with one active collision each, and its pose
    //! derivatives against differences.

    use crate::common::pose_derivative_errors;
    use nalgebra::{DMatrix, Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
    use sdrs_contact::ipc::potential::{Ipc, IpcShape};
    use sdrs_contact::{ContactModel, Order, PairContact, PairOutcome};
    use sdrs_geometry::TriMesh;
    use sdrs_geometry::twist::{Twist, perturb};

    fn mesh(v: &[[f64; 3]], f: &[[u32; 3]]) -> IpcShape {
        IpcShape::new(
            TriMesh::new(
                v.iter().map(|p| Point3::new(p[0], p[1], p[2])).collect(),
                f.to_vec(),
            )
            .unwrap(),
        )
    }

    const TETRA: [[u32; 3]; 4] = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];

    /// A tetrahedron's vertex 2 mm above a large triangle's interior (one vertex-face pair).
    fn vertex_face() -> (IpcShape, IpcShape) {
        (
            mesh(
                &[
                    [0.1, 0.2, 0.002],
                    [0.4, 0.2, 0.3],
                    [0.1, 0.5, 0.3],
                    [0.3, 0.4, 0.5],
                ],
                &[[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]],
            ),
            mesh(
                &[[-1.0, -1.0, 0.0], [2.0, -1.0, 0.0], [-1.0, 2.0, 0.0]],
                &[[0, 1, 2]],
            ),
        )
    }

    /// Two tetrahedra whose crossing edges are 3 mm apart (one edge-edge pair).
    fn edge_edge() -> (IpcShape, IpcShape) {
        (
            mesh(
                &[
                    [-0.5, 0.0, 0.003],
                    [0.5, 0.0, 0.003],
                    [0.0, 0.3, 0.5],
                    [0.0, -0.3, 0.5],
                ],
                &TETRA,
            ),
            mesh(
                &[
                    [0.0, -0.5, 0.0],
                    [0.0, 0.5, 0.0],
                    [0.3, 0.0, -0.5],
                    [-0.3, 0.0, -0.5],
                ],
                &TETRA,
            ),
        )
    }

    fn eval(
        model: &Ipc,
        a: &IpcShape,
        pa: &Isometry3<f64>,
        b: &IpcShape,
        pb: &Isometry3<f64>,
        order: Order,
    ) -> PairContact {
        match model.evaluate(a, pa, b, pb, &mut (), order).unwrap() {
            PairOutcome::Separated(c) => c,
            PairOutcome::Penetrating => panic!("penetrating"),
        }
    }

    /// `(configuration, potential, Σ ∇ over A's vertices, Σ x × ∇ over A's vertices)` from
    /// ipctk 1.6.1 (d̂ = 1 cm).
    #[test]
    fn potential_force_and_torque_match_ipctk() {
        let cases = [
            (
                vertex_face(),
                2.9665159601985345e-08,
                [0.0, 0.0, -1.168809663349878e-05],
                [-2.3376193266997562e-06, 1.1688096633498781e-06, 0.0],
            ),
            (
                edge_edge(),
                1.9940197585246154e-08,
                [0.0, 0.0, -8.15014327131451e-06],
                [0.0, 0.0, 0.0],
            ),
        ];
        let model = Ipc::new(0.01).unwrap();
        let id = Isometry3::identity();
        for (k, ((a, b), value, force, torque)) in cases.into_iter().enumerate() {
            let c = eval(&model, &a, &id, &b, &id, Order::Hessian);
            assert!(
                (c.value - value).abs() < 1e-9 * value,
                "case {k}: {} vs {value}",
                c.value
            );
            let (f, t) = (Vector3::from(force), Vector3::from(torque));
            let scale = f.norm();
            assert!(
                (c.gradient.fixed_rows::<3>(0) - f).norm() < 1e-9 * scale,
                "case {k}: force {:?}",
                c.gradient
            );
            assert!(
                (c.gradient.fixed_rows::<3>(3) - t).norm() < 1e-9 * scale,
                "case {k}: torque {:?}",
                c.gradient
            );
        }
    }

    #[test]
    fn pose_derivatives_match_differences_and_psd_projection_is_psd() {
        let model = Ipc::new(0.01).unwrap();
        let turn = UnitQuaternion::from_scaled_axis(Vector3::new(0.01, -0.02, 0.015));
        for (a, b) in [vertex_face(), edge_edge()] {
            let pa = Isometry3::from_parts(Translation3::new(0.0, 0.0, 0.001), turn);
            let pb = Isometry3::identity();
            let c = eval(&model, &a, &pa, &b, &pb, Order::Hessian);
            let at = |x: &[f64; 12], order: Order| {
                let xa = Twist::from_column_slice(&x[..6]);
                let xb = Twist::from_column_slice(&x[6..]);
                eval(
                    &model,
                    &a,
                    &perturb(&pa, &xa),
                    &b,
                    &perturb(&pb, &xb),
                    order,
                )
            };
            let (g, h) = pose_derivative_errors(&c, 1e-6, at);
            assert!(
                g < 1e-6 && h < 1e-5,
                "gradient error {g:e}, Hessian error {h:e}"
            );
            let psd = Ipc::new(0.01).unwrap().with_psd_projection(true);
            let h = eval(&psd, &a, &pa, &b, &pb, Order::Hessian).hessian;
            // The projection acts on each term's point Hessian; the pose map adds the
            // (indefinite) rotation curvature, so check the translation block.
            let tt = DMatrix::from_fn(6, 6, |i, j| {
                h[(if i < 3 { i } else { i + 3 }, if j < 3 { j } else { j + 3 })]
            });
            let size = tt.norm();
            assert!(tt.symmetric_eigen().eigenvalues.min() > -1e-12 * size);
        }
    }

    #[test]
    fn touching_is_infinite_and_design_is_refused() {
        let model = Ipc::new(0.01).unwrap();
        let (a, b) = vertex_face();
        let down = Isometry3::translation(0.0, 0.0, -0.002);
        assert_eq!(
            model
                .evaluate(&a, &down, &b, &Isometry3::identity(), &mut (), Order::Value)
                .unwrap(),
            PairOutcome::Penetrating
        );
        assert!(Ipc::new(0.0).is_err());
        assert!(
            model
                .evaluate(
                    &a,
                    &Isometry3::identity(),
                    &b,
                    &Isometry3::identity(),
                    &mut (),
                    Order::Design
                )
                .is_err()
        );
    }
}

/// IPC's lagged friction: a small block 5 mm above a slab (d̂ = 1 cm), turned about the
/// vertical so that no edges are parallel, its bottom corners over the interior of one of the
/// slab's top triangles (away from the face's diagonal).
mod friction {
    use crate::common::pose_derivative_errors;
    use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
    use sdrs_contact::ipc::friction::IpcFriction;
    use sdrs_contact::ipc::potential::{Ipc, IpcShape};
    use sdrs_contact::{ContactError, ContactModel, LaggedFriction, Order};
    use sdrs_geometry::TriMesh;
    use sdrs_geometry::twist::{Twist, perturb};

    const MU: f64 = 0.4;
    const STIFFNESS: f64 = 50.0;

    struct Scene {
        slab: IpcShape,
        block: IpcShape,
        ipc: Ipc,
        now: [Isometry3<f64>; 2],
    }

    fn scene() -> Scene {
        let slab = IpcShape::new(TriMesh::cuboid(Vector3::new(1.0, 1.0, 0.1)).unwrap());
        let block = IpcShape::new(TriMesh::cuboid(Vector3::repeat(0.1)).unwrap());
        let turn = UnitQuaternion::from_scaled_axis(Vector3::z() * 0.3);
        let above = Isometry3::from_parts(Translation3::new(0.6, 0.0, 0.205), turn);
        Scene {
            slab,
            block,
            ipc: Ipc::new(0.01).unwrap(),
            now: [Isometry3::identity(), above],
        }
    }

    /// ε_v Δt = 1 mm of slip is smoothed.
    fn model(s: &Scene) -> IpcFriction {
        IpcFriction::new(&s.ipc, MU, 0.01)
            .unwrap()
            .with_velocity_epsilon(0.1)
            .unwrap()
    }

    #[test]
    fn pose_derivatives_match_differences() {
        let s = scene();
        let f = model(&s);
        // Slips inside the smoothing (0.3 mm) and beyond it (5 mm), with a small turn.
        for (slip, turn) in [(3e-4, 1e-3), (5e-3, 1e-2)] {
            let next = Translation3::new(slip, 0.5 * slip, 1e-4)
                * s.now[1]
                * UnitQuaternion::from_scaled_axis(Vector3::new(0.1, -0.2, 1.0) * turn);
            let mut frames = f
                .frames(STIFFNESS, &s.slab, &s.now[0], &s.block, &s.now[1])
                .unwrap();
            assert_eq!(
                frames.len(),
                4,
                "the block's bottom corners over the slab's face"
            );
            let c = f
                .evaluate(&mut frames, &s.now[0], &next, Order::Hessian)
                .unwrap();
            let at = |x: &[f64; 12], order| {
                let (xa, xb) = (
                    Twist::from_column_slice(&x[..6]),
                    Twist::from_column_slice(&x[6..]),
                );
                let (a, b) = (perturb(&s.now[0], &xa), perturb(&next, &xb));
                f.evaluate(&mut frames.clone(), &a, &b, order).unwrap()
            };
            let (eg, eh) = pose_derivative_errors(&c, 1e-6, at);
            assert!(
                eg < 1e-6 && eh < 1e-5,
                "slip {slip}: gradient {eg:e}, Hessian {eh:e}"
            );
        }
    }

    /// Beyond the smoothing, a sliding block feels μ times the IPC potential's normal force,
    /// against the slip; without slip, none.
    #[test]
    fn sliding_friction_is_mu_times_the_normal_force() {
        let s = scene();
        let f = model(&s);
        let normal = s
            .ipc
            .evaluate(
                &s.slab,
                &s.now[0],
                &s.block,
                &s.now[1],
                &mut (),
                Order::Gradient,
            )
            .unwrap()
            .contact()
            .unwrap()
            .gradient[8]
            * -STIFFNESS;
        assert!(normal > 0.0);
        let mut frames = f
            .frames(STIFFNESS, &s.slab, &s.now[0], &s.block, &s.now[1])
            .unwrap();
        let along = Vector3::new(0.6, 0.8, 0.0);
        let next = Translation3::from(along * 5e-3) * s.now[1];
        let c = f
            .evaluate(&mut frames, &s.now[0], &next, Order::Gradient)
            .unwrap();
        let on_block = -c.gradient.fixed_rows::<3>(6).into_owned();
        assert!(
            (on_block + along * MU * normal).norm() < 1e-9 * MU * normal,
            "{on_block:?}"
        );
        let still = f
            .evaluate(&mut frames, &s.now[0], &s.now[1], Order::Gradient)
            .unwrap();
        assert!(still.gradient.norm() < 1e-12 * MU * normal);
    }

    #[test]
    fn bad_input_is_refused() {
        let s = scene();
        assert!(matches!(
            IpcFriction::new(&s.ipc, -0.1, 0.01),
            Err(ContactError::InvalidSetting { .. })
        ));
        let f = model(&s);
        let mut bad = s.now[1];
        bad.translation.z = f64::INFINITY;
        assert!(matches!(
            f.frames(STIFFNESS, &s.slab, &s.now[0], &s.block, &bad),
            Err(ContactError::NonFinitePose { body: 1 })
        ));
        assert!(
            f.frames(0.0, &s.slab, &s.now[0], &s.block, &s.now[1])
                .is_err()
        );
        let mut frames = f
            .frames(STIFFNESS, &s.slab, &s.now[0], &s.block, &s.now[1])
            .unwrap();
        assert!(matches!(
            f.evaluate_lagged(&mut frames, &s.now[0], &s.now[1]),
            Err(ContactError::Unsupported { .. })
        ));
        assert!(matches!(
            f.evaluate(&mut frames, &s.now[0], &s.now[1], Order::Design),
            Err(ContactError::Unsupported { .. })
        ));
    }
}

/// Continuous collision detection for the stepper: a step that would carry a block through
/// a slab is cut where every pair still keeps a tenth of its distance; sliding along the slab
/// or moving away is not cut.
mod ccd {
    use nalgebra::{Isometry3, Translation3};
    use sdrs_contact::ipc::potential::{Ipc, IpcShape};
    use sdrs_contact::{ContactModel, Order};
    use sdrs_geometry::TriMesh;

    #[test]
    fn steps_through_a_slab_are_cut_and_slides_are_not() {
        let slab = IpcShape::new(TriMesh::cuboid(nalgebra::Vector3::new(1.0, 1.0, 0.1)).unwrap());
        let block = IpcShape::new(TriMesh::cuboid(nalgebra::Vector3::repeat(0.1)).unwrap());
        let ipc = Ipc::new(1e-3).unwrap();
        let below = Isometry3::identity();
        // Bottom face 5 mm above the slab's top face, off its diagonal and turned.
        let above = Isometry3::new(
            nalgebra::Vector3::new(0.4, -0.3, 0.205),
            nalgebra::Vector3::z() * 0.3,
        );
        let step = |to: Isometry3<f64>| {
            ipc.max_step(&slab, &block, [&below, &above], [&below, &to])
                .unwrap()
        };
        // 30 cm down: through the slab. Cut where the 5 mm gap has shrunk to no less than
        // 0.5 mm (it closes at t = 0.005/0.3).
        let through = Translation3::new(0.0, 0.0, -0.3) * above;
        let t = step(through);
        assert!(t > 0.0 && t < 0.005 / 0.3, "{t}");
        let there = Translation3::new(0.0, 0.0, -0.3 * t) * above;
        let gap = 0.205 - 0.3 * t - 0.2;
        assert!(gap >= 0.1 * 0.005 - 1e-12, "gap {gap}");
        assert!(
            ipc.evaluate(&slab, &below, &block, &there, &mut (), Order::Value)
                .unwrap()
                .value()
                >= 0.0
        );
        // Sliding 5 cm along the slab or lifting: the whole step.
        assert_eq!(step(Translation3::new(0.05, 0.02, 0.0) * above), 1.0);
        assert_eq!(step(Translation3::new(0.0, 0.0, 0.3) * above), 1.0);
    }
}
