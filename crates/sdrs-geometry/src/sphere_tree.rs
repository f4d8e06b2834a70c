//! Layered bounding-sphere hierarchy over a triangle mesh (long-range paper, Definition 5.3).
//!
//! A binary tree whose leaves are single triangles. Every node holds the set `I` of mesh
//! vertices of its triangles, its centre `x_I` = the mean of those vertices, and the smallest
//! radius around that centre that encloses both children's *spheres* (not the geometry: the
//! hierarchy is *layered*, which the paper's proofs of smoothness and non-vanishing gradients
//! need). A leaf's radius encloses its triangle's three vertices.
//!
//! Because centres are vertex means, they are linear in the vertex positions, which keeps the
//! potential differentiable in the shape; [`SphereTree::vertex_set`] exposes `I` for that.
//!
//! Construction is top-down: triangles are split at the median of their centroids along the
//! widest axis (O(T log T)); the vertex sets are merged bottom-up as sorted lists, so each level
//! costs O(T) and the whole build O(T log T). When the mesh moves rigidly nothing but the
//! centres changes ([`SphereTree::world_centers`]); when vertices move non-rigidly
//! [`SphereTree::refit`] recomputes centres and radii in one bottom-up sweep.

use crate::error::{GeometryError, Result, check_finite};
use crate::mesh::TriMesh;
use nalgebra::{Isometry3, Point3, Vector3};

/// Index of a node in a [`SphereTree`]; the root is node 0.
pub type NodeId = u32;

/// One node of the hierarchy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeKind {
    /// A leaf holding one triangle (index into the mesh's triangles).
    Leaf(u32),
    /// An internal node with two children.
    Internal(NodeId, NodeId),
}

/// A layered bounding-sphere hierarchy; see the module docs.
///
/// ```
/// use sdrs_geometry::{SphereTree, TriMesh};
/// let mesh = TriMesh::icosphere(1.0, 2).unwrap();
/// let tree = SphereTree::build(&mesh).unwrap();
/// assert_eq!(tree.leaf_count(), mesh.triangles().len());
/// assert_eq!(tree.triangle_count(tree.root()), mesh.triangles().len());
/// assert!(tree.check_layered(mesh.vertices(), 1e-12).is_ok());
/// ```
#[derive(Debug, Clone)]
pub struct SphereTree {
    kinds: Vec<NodeKind>,
    centers: Vec<Point3<f64>>,
    radii: Vec<f64>,
    /// CSR vertex sets: node `k` owns `set_indices[set_offsets[k]..set_offsets[k + 1]]`.
    set_offsets: Vec<u32>,
    set_indices: Vec<u32>,
    /// Per node, the number of triangles (leaves) under it.
    triangles: Vec<u32>,
}

impl SphereTree {
    /// Builds the hierarchy over a validated mesh (which has at least one triangle).
    pub fn build(mesh: &TriMesh) -> Result<Self> {
        let triangles = mesh.triangles();
        if triangles.is_empty() {
            return Err(GeometryError::EmptyMesh);
        }
        let vertices = mesh.vertices();
        let centroids: Vec<Point3<f64>> = triangles
            .iter()
            .map(|t| {
                Point3::from(
                    t.iter()
                        .map(|&i| vertices[i as usize].coords)
                        .sum::<Vector3<f64>>()
                        / 3.0,
                )
            })
            .collect();
        let mut items: Vec<u32> = (0..triangles.len() as u32).collect();
        let mut kinds = Vec::with_capacity(2 * triangles.len());
        build_topology(&centroids, &mut items, &mut kinds);

        // Vertex sets bottom-up (children follow parents, so a reverse sweep sees children
        // first); each set is kept until its parent has merged it.
        let n = kinds.len();
        let mut sets: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut counts = vec![1u32; n];
        for k in (0..n).rev() {
            if let NodeKind::Internal(l, r) = kinds[k] {
                counts[k] = counts[l as usize] + counts[r as usize];
            }
            sets[k] = match kinds[k] {
                NodeKind::Leaf(t) => {
                    let mut s = triangles[t as usize].to_vec();
                    s.sort_unstable();
                    s.dedup();
                    s
                }
                NodeKind::Internal(l, r) => merge_sorted(&sets[l as usize], &sets[r as usize]),
            };
        }
        let mut set_offsets = Vec::with_capacity(n + 1);
        let mut set_indices = Vec::new();
        set_offsets.push(0);
        for s in &sets {
            set_indices.extend_from_slice(s);
            set_offsets.push(set_indices.len() as u32);
        }
        let mut tree = Self {
            kinds,
            centers: vec![Point3::origin(); n],
            radii: vec![0.0; n],
            set_offsets,
            set_indices,
            triangles: counts,
        };
        tree.refit(vertices)?;
        Ok(tree)
    }

    /// Recomputes centres and radii for new positions of the same mesh's vertices (e.g. after
    /// a shape change). Errors if `vertices` has fewer entries than the mesh the tree was
    /// built on or a non-finite coordinate (then the tree is unchanged).
    pub fn refit(&mut self, vertices: &[Point3<f64>]) -> Result<()> {
        check_finite("vertex", vertices)?;
        // The root's set holds every referenced vertex, sorted.
        let needed = self.vertex_set(0).last().map_or(0, |&m| m as usize + 1);
        if vertices.len() < needed {
            return Err(GeometryError::VertexCountMismatch {
                expected: needed,
                got: vertices.len(),
            });
        }
        for k in (0..self.kinds.len()).rev() {
            let set = self.vertex_set(k as NodeId);
            let center = Point3::from(
                set.iter()
                    .map(|&i| vertices[i as usize].coords)
                    .sum::<Vector3<f64>>()
                    / set.len() as f64,
            );
            let radius = match self.kinds[k] {
                NodeKind::Leaf(_) => set
                    .iter()
                    .map(|&i| (vertices[i as usize] - center).norm())
                    .fold(0.0, f64::max),
                NodeKind::Internal(l, r) => [l, r]
                    .iter()
                    .map(|&c| (self.centers[c as usize] - center).norm() + self.radii[c as usize])
                    .fold(0.0, f64::max),
            };
            self.centers[k] = center;
            self.radii[k] = radius;
        }
        Ok(())
    }

    /// Recomputes the centres for new positions of the same mesh's vertices, keeping the
    /// radii: what a shape derivative holds fixed (a radius is a maximum, not differentiable).
    /// After large changes [`SphereTree::refit`] restores the layered bounds. Errors if
    /// `vertices` has fewer entries than the mesh the tree was built on.
    pub fn recentre(&mut self, vertices: &[Point3<f64>]) -> Result<()> {
        let radii = self.radii.clone();
        self.refit(vertices)?;
        self.radii = radii;
        Ok(())
    }

    /// Number of nodes (2T − 1 for T triangles).
    pub fn node_count(&self) -> usize {
        self.kinds.len()
    }

    /// Number of leaves (= triangles).
    pub fn leaf_count(&self) -> usize {
        self.kinds.len().div_ceil(2)
    }

    /// The root node (always 0).
    pub fn root(&self) -> NodeId {
        0
    }

    /// Whether node `id` is a leaf or has children.
    pub fn kind(&self, id: NodeId) -> NodeKind {
        self.kinds[id as usize]
    }

    /// Local centre of node `id`: the mean of its vertex set.
    pub fn center(&self, id: NodeId) -> Point3<f64> {
        self.centers[id as usize]
    }

    /// Radius of node `id` (unchanged by rigid motion).
    pub fn radius(&self, id: NodeId) -> f64 {
        self.radii[id as usize]
    }

    /// Number of triangles (leaves) under node `id`: 1 for a leaf, the mesh's triangle count
    /// for the root.
    pub fn triangle_count(&self, id: NodeId) -> usize {
        self.triangles[id as usize] as usize
    }

    /// Sorted mesh-vertex indices of node `id` (the set `I` of Definition 5.3).
    pub fn vertex_set(&self, id: NodeId) -> &[u32] {
        let (a, b) = (
            self.set_offsets[id as usize],
            self.set_offsets[id as usize + 1],
        );
        &self.set_indices[a as usize..b as usize]
    }

    /// Writes every node's world centre for the mesh placed at `pose` into `out` (resized).
    /// This is the whole refit under a rigid motion: radii do not change. The pose is the
    /// caller's to check (the contact models reject non-finite poses first).
    pub fn world_centers(&self, pose: &Isometry3<f64>, out: &mut Vec<Point3<f64>>) {
        out.clear();
        out.extend(self.centers.iter().map(|c| pose * c));
    }

    /// Checks Definition 5.3 against `vertices`: every child sphere lies inside its parent's
    /// and every leaf sphere holds its triangle's vertices, to absolute tolerance `tol`.
    /// Returns the first violation as `(node, excess)`; a vertex missing from `vertices`
    /// counts as an infinite excess.
    pub fn check_layered(&self, vertices: &[Point3<f64>], tol: f64) -> Result<(), (NodeId, f64)> {
        for (k, kind) in self.kinds.iter().enumerate() {
            let (c, r) = (self.centers[k], self.radii[k]);
            let excess = match *kind {
                NodeKind::Leaf(_) => self
                    .vertex_set(k as NodeId)
                    .iter()
                    .map(|&i| {
                        vertices
                            .get(i as usize)
                            .map_or(f64::INFINITY, |v| (v - c).norm() - r)
                    })
                    .fold(f64::NEG_INFINITY, f64::max),
                NodeKind::Internal(l, rr) => [l, rr]
                    .iter()
                    .map(|&ch| (self.centers[ch as usize] - c).norm() + self.radii[ch as usize] - r)
                    .fold(f64::NEG_INFINITY, f64::max),
            };
            if excess > tol {
                return Err((k as NodeId, excess));
            }
        }
        Ok(())
    }
}

/// Top-down median split; appends nodes parents-first and returns the subtree's root.
fn build_topology(
    centroids: &[Point3<f64>],
    items: &mut [u32],
    kinds: &mut Vec<NodeKind>,
) -> NodeId {
    let index = kinds.len() as NodeId;
    if let [single] = items {
        kinds.push(NodeKind::Leaf(*single));
        return index;
    }
    let (mut lo, mut hi) = (
        Vector3::repeat(f64::INFINITY),
        Vector3::repeat(f64::NEG_INFINITY),
    );
    for &i in items.iter() {
        lo = lo.inf(&centroids[i as usize].coords);
        hi = hi.sup(&centroids[i as usize].coords);
    }
    let axis = (hi - lo).imax();
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |&a, &b| {
        centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis])
    });
    kinds.push(NodeKind::Leaf(0)); // placeholder, replaced below
    let (left_items, right_items) = items.split_at_mut(mid);
    let left = build_topology(centroids, left_items, kinds);
    let right = build_topology(centroids, right_items, kinds);
    kinds[index as usize] = NodeKind::Internal(left, right);
    index
}

fn merge_sorted(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}
