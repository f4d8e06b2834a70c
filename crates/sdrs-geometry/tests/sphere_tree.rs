use nalgebra::{Point3, Vector3};
use proptest::prelude::*;
use sdrs_geometry::sphere_tree::NodeKind;
use sdrs_geometry::testing::{bumpy_sphere, pose};
use sdrs_geometry::{GeometryError, SphereTree, TriMesh};

fn check_sets_and_centres(tree: &SphereTree, mesh: &TriMesh) {
    let vertices = mesh.vertices();
    for id in 0..tree.node_count() as u32 {
        let set = tree.vertex_set(id);
        let expected: Vec<u32> = match tree.kind(id) {
            NodeKind::Leaf(t) => {
                let mut s = mesh.triangles()[t as usize].to_vec();
                s.sort_unstable();
                s.dedup();
                s
            }
            NodeKind::Internal(l, r) => {
                let mut s = [tree.vertex_set(l), tree.vertex_set(r)].concat();
                s.sort_unstable();
                s.dedup();
                s
            }
        };
        assert_eq!(set, &expected[..]);
        let mean = set
            .iter()
            .map(|&i| vertices[i as usize].coords)
            .sum::<Vector3<f64>>()
            / set.len() as f64;
        assert!((tree.center(id).coords - mean).norm() < 1e-12);
    }
}

#[test]
fn every_triangle_is_one_leaf_and_the_root_holds_all_vertices() {
    let mesh = TriMesh::icosphere(1.0, 3).unwrap();
    let tree = SphereTree::build(&mesh).unwrap();
    assert_eq!(tree.node_count(), 2 * mesh.triangles().len() - 1);
    let mut leaves: Vec<u32> = (0..tree.node_count() as u32)
        .filter_map(|id| match tree.kind(id) {
            NodeKind::Leaf(t) => Some(t),
            NodeKind::Internal(..) => None,
        })
        .collect();
    leaves.sort_unstable();
    assert_eq!(
        leaves,
        (0..mesh.triangles().len() as u32).collect::<Vec<_>>()
    );
    assert_eq!(tree.vertex_set(tree.root()).len(), mesh.vertices().len());
    assert!(
        tree.center(0).coords.norm() < 1e-12,
        "icosphere vertex mean is its centre"
    );
    check_sets_and_centres(&tree, &mesh);
}

#[test]
fn single_triangle_tree_is_one_leaf() {
    let mesh = TriMesh::new(
        vec![
            Point3::origin(),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let tree = SphereTree::build(&mesh).unwrap();
    assert_eq!(tree.node_count(), 1);
    assert_eq!(tree.leaf_count(), 1);
    assert!(tree.check_layered(mesh.vertices(), 0.0).is_ok());
}

#[test]
fn refit_rejects_too_few_vertices() {
    let mesh = TriMesh::icosphere(1.0, 1).unwrap();
    let mut tree = SphereTree::build(&mesh).unwrap();
    let err = tree.refit(&mesh.vertices()[..10]).unwrap_err();
    assert_eq!(
        err,
        GeometryError::VertexCountMismatch {
            expected: mesh.vertices().len(),
            got: 10
        }
    );
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(24))]

    /// Definition 5.3 on random non-convex meshes: layered enclosure at every node, centres are
    /// vertex means, sets are unions of the children's.
    #[test]
    fn layered_invariants_hold_on_random_meshes(mesh in bumpy_sphere(3)) {
        let tree = SphereTree::build(&mesh).unwrap();
        prop_assert!(tree.check_layered(mesh.vertices(), 1e-12).is_ok());
        check_sets_and_centres(&tree, &mesh);
    }

    /// After a non-rigid vertex change, a refit restores the invariants; a rigid motion changes
    /// only the centres.
    #[test]
    fn refit_and_rigid_motion_keep_the_invariants(mesh in bumpy_sphere(2), other in bumpy_sphere(2), p in pose(5.0)) {
        let mut tree = SphereTree::build(&mesh).unwrap();
        tree.refit(other.vertices()).unwrap();
        prop_assert!(tree.check_layered(other.vertices(), 1e-12).is_ok());
        let moved: Vec<Point3<f64>> = other.vertices().iter().map(|v| p * v).collect();
        let mut world = Vec::new();
        tree.world_centers(&p, &mut world);
        let mut rebuilt = tree.clone();
        rebuilt.refit(&moved).unwrap();
        for id in 0..tree.node_count() {
            prop_assert!((world[id] - rebuilt.center(id as u32)).norm() < 1e-12);
            prop_assert!((tree.radius(id as u32) - rebuilt.radius(id as u32)).abs() < 1e-12);
        }
    }
}
