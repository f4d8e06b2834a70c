use approx::assert_relative_eq;
use nalgebra::{Isometry3, Point3, Vector3};
use sdrs_geometry::mesh::DecompositionSettings;
use sdrs_geometry::{GeometryError, TriMesh};
use std::collections::HashMap;
use std::f64::consts::PI;
use std::io::Cursor;

/// Every directed edge appears once and its reverse once: closed, consistently oriented.
fn assert_closed_and_oriented(mesh: &TriMesh) {
    let mut edges: HashMap<(u32, u32), usize> = HashMap::new();
    for t in mesh.triangles() {
        for k in 0..3 {
            *edges.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &count) in &edges {
        assert_eq!(count, 1, "edge {a}-{b} repeated");
        assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} has no twin");
    }
    assert!(mesh.signed_volume() > 0.0, "outward orientation");
}

#[test]
fn primitives_are_closed_with_the_right_volumes() {
    let b = TriMesh::cuboid(Vector3::new(0.5, 1.0, 1.5)).unwrap();
    assert_closed_and_oriented(&b);
    assert_relative_eq!(b.signed_volume(), 6.0, epsilon = 1e-12);

    let s = TriMesh::icosphere(2.0, 4).unwrap();
    assert_closed_and_oriented(&s);
    assert_eq!(s.triangles().len(), 20 * 4usize.pow(4));
    assert_relative_eq!(s.signed_volume(), 4.0 / 3.0 * PI * 8.0, max_relative = 0.01);
    assert!(
        s.vertices()
            .iter()
            .all(|v| (v.coords.norm() - 2.0).abs() < 1e-12)
    );

    let c = TriMesh::cylinder(0.5, 1.0, 64).unwrap();
    assert_closed_and_oriented(&c);
    assert_relative_eq!(c.signed_volume(), PI * 0.25 * 2.0, max_relative = 0.01);

    let cap = TriMesh::capsule(0.5, 1.0, 64, 16).unwrap();
    assert_closed_and_oriented(&cap);
    let exact = PI * 0.25 * 2.0 + 4.0 / 3.0 * PI * 0.125;
    assert_relative_eq!(cap.signed_volume(), exact, max_relative = 0.01);
}

#[test]
fn bad_parameters_and_meshes_give_typed_errors() {
    assert!(
        TriMesh::icosphere(-1.0, 2)
            .unwrap_err()
            .to_string()
            .contains("radius")
    );
    assert!(TriMesh::icosphere(1.0, 9).is_err());
    assert!(
        TriMesh::cylinder(1.0, 1.0, 2)
            .unwrap_err()
            .to_string()
            .contains("segments")
    );
    assert!(TriMesh::capsule(1.0, 1.0, 8, 0).is_err());
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let v = vec![p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.), p(2., 0., 0.)];
    assert_eq!(
        TriMesh::new(v.clone(), vec![]).unwrap_err(),
        GeometryError::EmptyMesh
    );
    assert_eq!(
        TriMesh::new(v.clone(), vec![[0, 1, 4]]).unwrap_err(),
        GeometryError::IndexOutOfRange {
            triangle: 0,
            vertex: 4,
            vertex_count: 4
        }
    );
    assert!(matches!(
        TriMesh::new(v.clone(), vec![[0, 1, 2], [0, 1, 3]]),
        Err(GeometryError::DegenerateTriangle { triangle: 1, .. })
    ));
    let mut nan = v.clone();
    nan[3].z = f64::NAN;
    assert!(matches!(
        TriMesh::new(nan, vec![[0, 1, 2]]),
        Err(GeometryError::NonFinite { index: 3, .. })
    ));
}

#[test]
fn obj_import_merges_objects_and_triangulates_polygons() {
    let text = "o a\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\no b\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 5 6 7\n";
    let mesh = TriMesh::read_obj(&mut Cursor::new(text), "inline.obj").unwrap();
    assert_eq!(mesh.triangles().len(), 3);
    assert_eq!(mesh.vertices().len(), 7);
    assert_relative_eq!(mesh.surface_area(), 1.5, epsilon = 1e-12);
    let bad = "v 0 0 0\nv 1 0 0\nf 1 2 3\n";
    let err = TriMesh::read_obj(&mut Cursor::new(bad), "bad.obj").unwrap_err();
    assert!(err.to_string().contains("bad.obj"), "{err}");
}

#[test]
fn stl_round_trip_preserves_the_mesh() {
    let original = TriMesh::icosphere(1.0, 2).unwrap();
    let triangles: Vec<stl_io::Triangle> = (0..original.triangles().len())
        .map(|t| {
            let c = original.corners(t);
            let v = |p: Point3<f64>| stl_io::Vertex::new([p.x as f32, p.y as f32, p.z as f32]);
            stl_io::Triangle {
                normal: stl_io::Normal::new([0.0; 3]),
                vertices: [v(c[0]), v(c[1]), v(c[2])],
            }
        })
        .collect();
    let mut bytes = Vec::new();
    stl_io::write_stl(&mut bytes, triangles.iter()).unwrap();
    let read = TriMesh::read_stl(&mut Cursor::new(bytes), "sphere.stl").unwrap();
    assert_eq!(read.triangles().len(), original.triangles().len());
    assert_eq!(read.vertices().len(), original.vertices().len(), "welded");
    assert_relative_eq!(
        read.signed_volume(),
        original.signed_volume(),
        max_relative = 1e-6
    );
}

#[test]
fn files_are_dispatched_by_extension() {
    let dir = std::env::temp_dir().join(format!("sdrs-geometry-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("tet.OBJ");
    std::fs::write(
        &obj,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
    )
    .unwrap();
    let tet = TriMesh::from_file(&obj).unwrap();
    assert_relative_eq!(tet.signed_volume(), 1.0 / 6.0, epsilon = 1e-12);
    let err = TriMesh::from_file(dir.join("mesh.ply")).unwrap_err();
    assert!(matches!(err, GeometryError::Import { .. }));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn decomposition_splits_a_dumbbell_into_convex_parts() {
    // Two boxes joined by a thin bar: clearly non-convex.
    let mesh = TriMesh::merged(&[
        TriMesh::cuboid(Vector3::repeat(0.4))
            .unwrap()
            .transformed(&Isometry3::translation(-1.0, 0.0, 0.0)),
        TriMesh::cuboid(Vector3::repeat(0.4))
            .unwrap()
            .transformed(&Isometry3::translation(1.0, 0.0, 0.0)),
        TriMesh::cuboid(Vector3::new(0.7, 0.05, 0.05)).unwrap(),
    ])
    .unwrap();
    let hulls = mesh
        .convex_decomposition(&DecompositionSettings {
            resolution: 32,
            concavity: 0.01,
        })
        .unwrap();
    assert!(hulls.len() >= 2, "got {} parts", hulls.len());
    let total: f64 = hulls.iter().map(|h| h.volume()).sum();
    let solid = 2.0 * 0.8f64.powi(3);
    assert!(
        total > 0.8 * solid && total < 1.5 * solid,
        "volume {total} vs {solid}"
    );
    let err = mesh
        .convex_decomposition(&DecompositionSettings {
            resolution: 2,
            concavity: 0.01,
        })
        .unwrap_err();
    assert!(err.to_string().contains("resolution"));
}
