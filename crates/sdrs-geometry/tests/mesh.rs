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

/// A binary STL of `mesh` (corners stored per triangle, as STL does).
fn binary_stl(mesh: &TriMesh) -> Vec<u8> {
    let mut bytes = vec![0u8; 80];
    bytes.extend((mesh.triangles().len() as u32).to_le_bytes());
    for t in 0..mesh.triangles().len() {
        bytes.extend([0u8; 12]);
        for p in mesh.corners(t) {
            for x in [p.x, p.y, p.z] {
                bytes.extend((x as f32).to_le_bytes());
            }
        }
        bytes.extend([0u8; 2]);
    }
    bytes
}

#[test]
fn stl_round_trip_preserves_the_mesh() {
    let original = TriMesh::icosphere(1.0, 2).unwrap();
    let read = TriMesh::read_stl(&mut Cursor::new(binary_stl(&original)), "sphere.stl").unwrap();
    assert_eq!(read.triangles().len(), original.triangles().len());
    assert_eq!(read.vertices().len(), original.vertices().len(), "welded");
    assert_relative_eq!(
        read.signed_volume(),
        original.signed_volume(),
        max_relative = 1e-6
    );
    // Regression: a binary STL whose header begins with "solid" (solo12's feet) was read as
    // ASCII and refused.
    let mut solid = binary_stl(&original);
    solid[..11].copy_from_slice(b"solid foot ");
    let read = TriMesh::read_stl(&mut Cursor::new(solid), "foot.stl").unwrap();
    assert_eq!(read.triangles().len(), original.triangles().len());
    // A truncated file names itself.
    let mut short = binary_stl(&original);
    short.truncate(300);
    let err = TriMesh::read_stl(&mut Cursor::new(short), "short.stl").unwrap_err();
    assert!(err.to_string().contains("short.stl"), "{err}");
}

#[test]
fn ascii_stl_loads_and_degenerate_triangles_are_dropped() {
    let facet = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| {
        format!(
            "facet normal 0 0 0\n outer loop\n  vertex {} {} {}\n  vertex {} {} {}\n  vertex {} {} {}\n endloop\nendfacet\n",
            a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]
        )
    };
    let (o, x, y, z) = ([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    let text = format!(
        "solid tet\n{}{}{}{}{}endsolid tet\n",
        facet(o, y, x),
        facet(o, x, z),
        facet(o, z, y),
        facet(x, y, z),
        // A sliver with two equal corners, as CAD exports contain.
        facet(x, x, y),
    );
    let tet = TriMesh::read_stl(&mut Cursor::new(text), "tet.stl").unwrap();
    assert_eq!(tet.triangles().len(), 4);
    assert_eq!(tet.vertices().len(), 4);
    assert_relative_eq!(tet.signed_volume(), 1.0 / 6.0, epsilon = 1e-7);
}

/// A COLLADA document with one triangle (0,0,0) (1,0,0) (0,1,0) placed by `node`'s transform
/// elements, in a document whose unit is `meter` metres.
fn collada(meter: f64, node: &str) -> String {
    format!(
        r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="millimeter" meter="{meter}"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tri-mesh" name="tri">
      <mesh>
        <source id="tri-pos">
          <float_array id="tri-pos-array" count="9">0 0 0 1 0 0 0 1 0</float_array>
          <technique_common>
            <accessor source="#tri-pos-array" count="3" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="tri-vtx"><input semantic="POSITION" source="#tri-pos"/></vertices>
        <triangles count="1"><input semantic="VERTEX" source="#tri-vtx" offset="0"/><p>0 1 2</p></triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="tri-node" name="tri">{node}<instance_geometry url="#tri-mesh"/></node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
"##
    )
}

#[test]
fn collada_applies_units_and_node_transforms() {
    let plain = TriMesh::read_collada(&mut Cursor::new(collada(1.0, "")), "tri.dae").unwrap();
    assert_relative_eq!(plain.surface_area(), 0.5, epsilon = 1e-7);
    // Millimetres: the triangle's legs are 1 mm.
    let mm = TriMesh::read_collada(&mut Cursor::new(collada(0.001, "")), "tri.dae").unwrap();
    assert_relative_eq!(mm.surface_area(), 0.5e-6, max_relative = 1e-5);
    // A node matrix (row major) that scales by 2 and moves by (5, 0, 0).
    let node = "<matrix>2 0 0 5 0 2 0 0 0 0 2 0 0 0 0 1</matrix>";
    let moved = TriMesh::read_collada(&mut Cursor::new(collada(1.0, node)), "tri.dae").unwrap();
    assert_relative_eq!(moved.surface_area(), 2.0, max_relative = 1e-6);
    let aabb = moved.aabb();
    assert_relative_eq!(aabb.mins.x, 5.0, epsilon = 1e-6);
    assert_relative_eq!(aabb.maxs.x, 7.0, epsilon = 1e-6);
    // Broken documents name the file.
    let err = TriMesh::read_collada(&mut Cursor::new("<COLLADA>"), "broken.dae").unwrap_err();
    assert!(err.to_string().contains("broken.dae"), "{err}");
}

/// HyQ's COLLADA meshes are in millimetres under node matrices of scale 1e-3: once loaded,
/// each must be about the size of the box with its link's mass and principal inertia from
/// `hyq_no_sensors.urdf` (box sides `a² = 6 (I_yy + I_zz − I_xx) / m` and so on).
#[test]
fn hyq_collada_meshes_load_at_the_size_of_their_inertia() {
    let dir = sdrs_robot_data::package_path()
        .unwrap()
        .join("example-robot-data/robots/hyq_description/meshes");
    // (mesh, link mass, inertia diagonal) from the URDF's <inertial> of trunk and lf_* links.
    for (file, mass, [ixx, iyy, izz]) in [
        ("trunk/trunk.dae", 60.96, [1.5725937, 8.5015928, 9.1954911]),
        ("leg/hipassembly.dae", 2.93, [0.05071, 0.05486, 0.00571]),
        ("leg/upperleg.dae", 2.638, [0.00368, 0.02719, 0.02811]),
        ("leg/lowerleg.dae", 0.881, [0.00047, 0.01256, 0.01233]),
    ] {
        let mesh = TriMesh::from_file(dir.join(file)).unwrap();
        assert!(mesh.triangles().len() > 100, "{file}");
        let side = |a: f64, b: f64, c: f64| (6.0 * (b + c - a) / mass).sqrt();
        let inertia_box = Vector3::new(
            side(ixx, iyy, izz),
            side(iyy, izz, ixx),
            side(izz, ixx, iyy),
        );
        let extents = mesh.aabb().extents();
        for k in 0..3 {
            let ratio = extents[k] / inertia_box[k];
            assert!(
                ratio > 0.6 && ratio < 1.7,
                "{file}: mesh extent {:?} m vs inertia box {:?} m",
                extents,
                inertia_box
            );
        }
    }
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
    assert!(
        err.to_string().contains(".dae"),
        "says what is allowed: {err}"
    );
    // Contents in memory, the format from the name.
    let bytes = std::fs::read(&obj).unwrap();
    assert_eq!(TriMesh::from_bytes(&bytes, "tet.obj").unwrap(), tet);
    assert!(TriMesh::from_bytes(&bytes, "tet.stl").is_err());
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

/// Regression (loader fuzzing): mesh-loader panicked on a COLLADA document whose source lacks
/// its float array; the import now reports it as an error naming the file.
#[test]
fn collada_without_its_float_array_is_an_error_not_a_panic() {
    let text = collada(1.0, "").replace(
        r#"<float_array id="tri-pos-array" count="9">0 0 0 1 0 0 0 1 0</float_array>"#,
        "",
    );
    let err = TriMesh::read_collada(&mut Cursor::new(text), "hollow.dae").unwrap_err();
    assert!(
        matches!(err, GeometryError::Import { ref path, .. } if path == "hollow.dae"),
        "{err}"
    );
}
