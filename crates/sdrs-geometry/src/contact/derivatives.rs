//! Derivatives of contact points, normals, separations and frames with respect to the world
//! twists of the two bodies (NCP paper, sec. III-D and appendix C: `dc/dθ` is this Jacobian
//! chained with the kinematic Jacobian of the body poses).
//!
//! Twists follow [`crate::twist`]: `ξ = (v, ω)` moves a body's points `y` by `v + ω × (y − t)`
//! (`t` the body origin), so 12 columns: body A's `(v, ω)`, then B's. Away from feature
//! switches every contact of [`super::hull_halfspace_contacts`] and most of
//! [`super::hull_pair_contacts`] is a **vertex** `x` of one body (V) against a **plane**
//! `(o, m)` of the other (P), with the normal `n` a face normal of one body (N):
//!
//! - `h = (o − x)·m / (n·m)`: the distance from the vertex along `n` to the plane;
//! - separation `s = −h` when the vertex is on B, `s = h` when it is on A;
//! - position `c = x + ½ h n` (midway between the surfaces);
//! - frame `R = [t₁ t₂ n]` of [`super::contact_frame`], whose variation is reported as the
//!   world angular velocity `δφ` with `dR = [δφ]× R`, `δφ = ½ Σᵢ Rᵢ × dRᵢ`, the form in which
//!   relative velocities `Rᵀ(v_B − v_A)` change.
//!
//! A vertex moves as `dx = v_V + ω_V × (x − t_V)`, a plane's normal as `dm = ω_P × m` and a
//! face normal as `dn = ω_N × n`; the rest is the quotient rule. The other corners of a
//! clipped patch are where an edge of A crosses an edge of B seen along `n`: a 3x3 linear
//! system for the two edge parameters and the separation, differentiated implicitly. Contacts
//! whose normal is not a face normal (edge-edge normals of overlapping hulls, or GJK normals
//! between an edge and an edge or vertex of separated hulls) give
//! [`GeometryError::UnsupportedContactFeature`].

use super::{ContactPoint, frame::reference_axis};
use crate::error::{GeometryError, Result};
use crate::hull::ConvexHull;
use nalgebra::{Isometry3, Matrix3, Point3, RowSVector, SMatrix, Vector3};

/// A 3-vector's derivative with respect to the two twists.
pub type Matrix3x12 = SMatrix<f64, 3, 12>;
/// A scalar's derivative with respect to the two twists.
pub type Row12 = RowSVector<f64, 12>;

/// Derivatives of one [`ContactPoint`] with respect to the world twists `(ξ_A, ξ_B)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactJacobian {
    /// `d position / dξ`.
    pub position: Matrix3x12,
    /// `d normal / dξ`.
    pub normal: Matrix3x12,
    /// `d separation / dξ`.
    pub separation: Row12,
    /// The frame's world angular variation `δφ / dξ` (`dR = [δφ]× R`).
    pub frame: Matrix3x12,
}

/// The Jacobian of a contact from [`super::hull_halfspace_contacts`]: body A is the plane,
/// whose twist is taken about the world origin; body B is the hull at `pose_b`.
///
/// ```
/// use sdrs_geometry::contact::{hull_halfspace_contacts, derivatives::halfspace_contact_jacobian};
/// use sdrs_geometry::ConvexHull;
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::new(0.5, 0.5, 0.5))?;
/// let pose = Isometry3::translation(0.0, 0.0, 0.49);
/// let c = hull_halfspace_contacts(&cube, &pose, &Vector3::z(), 0.0, 0.0)?[0];
/// let j = halfspace_contact_jacobian(&c, &pose);
/// // Lifting the cube (v_B = +z) opens the gap one for one.
/// assert!((j.separation[8] - 1.0).abs() < 1e-15);
/// # Ok::<(), sdrs_geometry::GeometryError>(())
/// ```
pub fn halfspace_contact_jacobian(
    contact: &ContactPoint,
    pose_b: &Isometry3<f64>,
) -> ContactJacobian {
    let n = contact.normal.into_inner();
    vertex_plane_jacobian(&VertexPlane {
        vertex: contact.point_b(),
        vertex_body: 1,
        plane_point: contact.point_a(),
        plane_normal: n,
        normal: n,
        normal_body: 0,
        origins: [Point3::origin(), Point3::from(pose_b.translation.vector)],
    })
}

/// The Jacobian of a contact from [`super::hull_pair_contacts`] of the same hulls and poses.
///
/// The contact's features are recognised from the geometry: the normal must be an outward
/// face normal of A (or an inward one of B) to `1e-9`, and `point_b` a vertex of B (then
/// `point_a` lies on a face of A), `point_a` a vertex of A (then `point_b` on a face of B), or
/// `point_a` and `point_b` on an edge of A and of B (a crossing), to `1e-9` times the hulls'
/// size. Otherwise [`GeometryError::UnsupportedContactFeature`].
pub fn pair_contact_jacobian(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
    contact: &ContactPoint,
) -> Result<ContactJacobian> {
    let n = contact.normal.into_inner();
    let tol = 1e-9 * (a.bounding_sphere_radius() + b.bounding_sphere_radius());
    let hulls = [(a, pose_a), (b, pose_b)];
    // Outward face normals of body k, signed so that they point from A to B.
    let aligned = |k: usize| {
        let (hull, pose) = hulls[k];
        let sign = if k == 0 { 1.0 } else { -1.0 };
        face_planes(hull, pose)
            .map(|(m, _)| sign * m.dot(&n))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let normal_body = if aligned(0) >= 1.0 - 1e-9 {
        0
    } else if aligned(1) >= 1.0 - 1e-9 {
        1
    } else {
        return Err(GeometryError::UnsupportedContactFeature(
            "the normal is not a face normal of either hull (an edge-edge normal)",
        ));
    };
    let is_vertex = |k: usize, p: &Point3<f64>| {
        let (hull, pose) = hulls[k];
        hull.vertices().iter().any(|v| (pose * v - p).norm() <= tol)
    };
    let origins = [pose_a, pose_b].map(|p| Point3::from(p.translation.vector));
    let (vertex_body, vertex, plane_point) = if is_vertex(1, &contact.point_b()) {
        (1, contact.point_b(), contact.point_a())
    } else if is_vertex(0, &contact.point_a()) {
        (0, contact.point_a(), contact.point_b())
    } else {
        let edge = |k: usize, p: &Point3<f64>| edge_through(hulls[k].0, hulls[k].1, p, tol);
        let (Some(edge_a), Some(edge_b)) =
            (edge(0, &contact.point_a()), edge(1, &contact.point_b()))
        else {
            return Err(GeometryError::UnsupportedContactFeature(
                "the point is neither a vertex of one hull nor on an edge of each",
            ));
        };
        return edge_crossing_jacobian(&EdgeCrossing {
            edges: [edge_a, edge_b],
            normal: n,
            normal_body,
            origins,
        });
    };
    // The plane: the face of the other body through the point, best aligned with the normal.
    let plane_body = 1 - vertex_body;
    let (hull, pose) = hulls[plane_body];
    let sign = if plane_body == 0 { 1.0 } else { -1.0 };
    let plane_normal = face_planes(hull, pose)
        .filter(|(m, o)| m.dot(&(plane_point - o)).abs() <= tol)
        .map(|(m, _)| m)
        .fold(None, |best: Option<Vector3<f64>>, m| match best {
            Some(b) if sign * b.dot(&n) >= sign * m.dot(&n) => Some(b),
            _ => Some(m),
        })
        .ok_or(GeometryError::UnsupportedContactFeature(
            "the point is not on a face of the other hull",
        ))?;
    Ok(vertex_plane_jacobian(&VertexPlane {
        vertex,
        vertex_body,
        plane_point,
        plane_normal,
        normal: n,
        normal_body,
        origins,
    }))
}

/// The world endpoints of a boundary edge of the hull whose segment passes within `tol` of
/// `p` (not at an endpoint).
fn edge_through(
    hull: &ConvexHull,
    pose: &Isometry3<f64>,
    p: &Point3<f64>,
    tol: f64,
) -> Option<[Point3<f64>; 2]> {
    let v = hull.vertices();
    (0..v.len()).find_map(|i| {
        hull.neighbours(i).iter().find_map(|&j| {
            let (a, b) = (pose * v[i], pose * v[j as usize]);
            let e = b - a;
            let t = (p - a).dot(&e) / e.norm_squared();
            ((0.0..=1.0).contains(&t) && (a + e * t - p).norm() <= tol).then_some([a, b])
        })
    })
}

/// World outward unit normals of the hull's boundary triangles, with a corner of each.
fn face_planes<'a>(
    hull: &'a ConvexHull,
    pose: &'a Isometry3<f64>,
) -> impl Iterator<Item = (Vector3<f64>, Point3<f64>)> + 'a {
    let v = hull.vertices();
    hull.triangles().iter().filter_map(move |t| {
        let [p, q, r] = t.map(|i| pose * v[i as usize]);
        (q - p).cross(&(r - p)).try_normalize(0.0).map(|m| (m, p))
    })
}

/// A vertex of one body against a plane of the other, with the normal a face normal of body
/// `normal_body` (see the module docs).
struct VertexPlane {
    vertex: Point3<f64>,
    vertex_body: usize,
    plane_point: Point3<f64>,
    plane_normal: Vector3<f64>,
    normal: Vector3<f64>,
    normal_body: usize,
    origins: [Point3<f64>; 2],
}

/// A patch corner where an edge of A and an edge of B cross when seen along the normal.
struct EdgeCrossing {
    /// World endpoints of A's edge, then B's.
    edges: [[Point3<f64>; 2]; 2],
    normal: Vector3<f64>,
    normal_body: usize,
    origins: [Point3<f64>; 2],
}

/// The corner solves `a₀ + t e_A + s n = b₀ + u e_B`, i.e. `M z = b₀ − a₀` with
/// `M = [e_A, −e_B, n]`, `z = (t, u, s)`; `s` is the separation, the position
/// `a₀ + t e_A + ½ s n`. Differentiating: `dz = M⁻¹ (db₀ − da₀ − t de_A + u de_B − s dn)`.
fn edge_crossing_jacobian(c: &EdgeCrossing) -> Result<ContactJacobian> {
    let [[a0, a1], [b0, b1]] = c.edges;
    let (ea, eb, n) = (a1 - a0, b1 - b0, c.normal);
    let m = Matrix3::from_columns(&[ea, -eb, n]);
    let inverse = m
        .try_inverse()
        .ok_or(GeometryError::UnsupportedContactFeature(
            "the crossing edges are parallel seen along the normal",
        ))?;
    let z = inverse * (b0 - a0);
    let (t, u, s) = (z.x, z.y, z.z);
    let da0 = moving(&a0, 0, &c.origins[0]);
    let db0 = moving(&b0, 1, &c.origins[1]);
    let dn = turning(&n, c.normal_body);
    let dz = inverse * (db0 - da0 - turning(&ea, 0) * t + turning(&eb, 1) * u - dn * s);
    let (dt, ds) = (dz.row(0), dz.row(2));
    let position = da0 + ea * dt + turning(&ea, 0) * t + n * ds * 0.5 + dn * (0.5 * s);
    Ok(ContactJacobian {
        position,
        normal: dn,
        separation: ds.into_owned(),
        frame: frame_variation(&n, &dn),
    })
}

/// `d(ω × u)/dξ` for a direction `u` turning with body `body`: `−[u]×` in its ω columns.
fn turning(u: &Vector3<f64>, body: usize) -> Matrix3x12 {
    let mut j = Matrix3x12::zeros();
    j.fixed_view_mut::<3, 3>(0, 6 * body + 3)
        .copy_from(&(-u.cross_matrix()));
    j
}

/// `dy/dξ` for a point `y` fixed on body `body` with origin `origin`: `[I, −[y − t]×]`.
fn moving(y: &Point3<f64>, body: usize, origin: &Point3<f64>) -> Matrix3x12 {
    let mut j = turning(&(y - origin), body);
    j.fixed_view_mut::<3, 3>(0, 6 * body)
        .copy_from(&Matrix3::identity());
    j
}

fn vertex_plane_jacobian(c: &VertexPlane) -> ContactJacobian {
    let (x, o, m, n) = (c.vertex, c.plane_point, c.plane_normal, c.normal);
    let plane_body = 1 - c.vertex_body;
    let dx = moving(&x, c.vertex_body, &c.origins[c.vertex_body]);
    let d_o = moving(&o, plane_body, &c.origins[plane_body]);
    let dm = turning(&m, plane_body);
    let dn = turning(&n, c.normal_body);
    let num = (o - x).dot(&m);
    let den = n.dot(&m);
    let h = num / den;
    let dnum = m.transpose() * (d_o - dx) + (o - x).transpose() * dm;
    let dden = m.transpose() * dn + n.transpose() * dm;
    let dh = (dnum - dden * h) / den;
    let separation = if c.vertex_body == 1 { -dh } else { dh };
    let position = dx + n * dh * 0.5 + dn * (0.5 * h);
    ContactJacobian {
        position,
        normal: dn,
        separation,
        frame: frame_variation(&n, &dn),
    }
}

/// `δφ/dξ` of the contact frame of unit normal `n` (see [`super::contact_frame`]) given
/// `dn/dξ`: `δφ = ½ Σᵢ Rᵢ × dRᵢ` over the columns `t₁`, `t₂`, `n`.
fn frame_variation(n: &Vector3<f64>, dn: &Matrix3x12) -> Matrix3x12 {
    let a = reference_axis(n);
    let u = a - n * a.dot(n);
    let norm = u.norm();
    let t1 = u / norm;
    let t2 = n.cross(&t1);
    // du = −n (a·dn) − (a·n) dn; dt₁ = (I − t₁t₁ᵀ) du / ‖u‖; dt₂ = dn × t₁ + n × dt₁.
    let du = -(n * (a.transpose() * dn)) - dn * a.dot(n);
    let dt1 = (Matrix3::identity() - t1 * t1.transpose()) * du / norm;
    let dt2 = -t1.cross_matrix() * dn + n.cross_matrix() * dt1;
    (t1.cross_matrix() * dt1 + t2.cross_matrix() * dt2 + n.cross_matrix() * dn) * 0.5
}
