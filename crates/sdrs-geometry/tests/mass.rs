use approx::assert_relative_eq;
use nalgebra::{Matrix3, Point3, Vector3};
use proptest::prelude::*;
use sdrs_geometry::testing::hull;
use sdrs_geometry::{ConvexHull, GeometryError, lumped_second_moment};

#[test]
fn solid_box_matches_the_analytic_inertia() {
    let (a, b, c) = (0.5, 1.0, 1.5); // half extents
    let hull = ConvexHull::new(
        ConvexHull::cuboid(Vector3::new(a, b, c))
            .unwrap()
            .vertices()
            .iter()
            .map(|v| v + Vector3::new(1.0, -2.0, 3.0))
            .collect(),
    )
    .unwrap();
    let rho = 7.0;
    let m = hull.solid_mass_properties(rho).unwrap();
    let mass = rho * 8.0 * a * b * c;
    assert_relative_eq!(m.mass, mass, max_relative = 1e-12);
    assert_relative_eq!(
        m.center_of_mass,
        Point3::new(1.0, -2.0, 3.0),
        epsilon = 1e-12
    );
    let (w, h, d) = (2.0 * a, 2.0 * b, 2.0 * c);
    let expected = Matrix3::from_diagonal(&Vector3::new(
        mass * (h * h + d * d) / 12.0,
        mass * (w * w + d * d) / 12.0,
        mass * (w * w + h * h) / 12.0,
    ));
    assert_relative_eq!(m.inertia, expected, epsilon = 1e-10);
    // The homogeneous moment is symmetric and carries mass and first moment.
    assert_relative_eq!(
        m.second_moment,
        m.second_moment.transpose(),
        epsilon = 1e-12
    );
    assert_relative_eq!(m.second_moment[(0, 3)], mass * 1.0, epsilon = 1e-10);
}

#[test]
fn solid_tetrahedron_volume_and_centroid() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let tet = ConvexHull::new(vec![
        p(0., 0., 0.),
        p(1., 0., 0.),
        p(0., 1., 0.),
        p(0., 0., 1.),
    ])
    .unwrap();
    assert_relative_eq!(tet.volume(), 1.0 / 6.0, epsilon = 1e-14);
    let m = tet.solid_mass_properties(1.0).unwrap();
    assert_relative_eq!(m.center_of_mass, p(0.25, 0.25, 0.25), epsilon = 1e-14);
    // Products of inertia of the unit corner tetrahedron about its centroid: ∫xy = 1/120 at the
    // origin, shifted by the parallel-axis theorem.
    assert_relative_eq!(
        m.inertia[(0, 1)],
        -(1.0 / 120.0 - (1.0 / 6.0) / 16.0),
        epsilon = 1e-14
    );
}

#[test]
fn lumped_cube_puts_the_mass_on_the_corners() {
    let h = 0.5;
    let cube = ConvexHull::cuboid(Vector3::repeat(h)).unwrap();
    let m = cube.lumped_mass_properties(2.0).unwrap();
    assert_relative_eq!(m.mass, 2.0);
    assert_relative_eq!(
        m.inertia,
        Matrix3::identity() * (2.0 * 2.0 * h * h),
        epsilon = 1e-14
    );
    // Lumping overestimates the solid's inertia (2 m h² vs 2/3 m h²).
    let solid = cube.solid_mass_properties(2.0).unwrap();
    assert!(m.inertia[(0, 0)] > solid.inertia[(0, 0)] * (2.0 / 8.0));
}

#[test]
fn bad_density_or_mass_is_rejected() {
    let cube = ConvexHull::cuboid(Vector3::repeat(1.0)).unwrap();
    assert_eq!(
        cube.solid_mass_properties(-1.0).unwrap_err(),
        GeometryError::InvalidDensity(-1.0)
    );
    assert!(cube.solid_mass_properties(f64::NAN).is_err());
    assert!(cube.lumped_mass_properties(0.0).is_err());
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(48))]

    /// Against an independent oracle: faces found by brute force (every vertex triple whose
    /// plane has all other vertices on one side), integrated as signed tetrahedra from the
    /// origin rather than from an interior point. (parry's polyhedron mass properties are not
    /// used: they merge nearly coplanar faces and drift by ~1e-5 on such hulls.)
    #[test]
    fn solid_mass_agrees_with_brute_force_faces(h in hull(4, 10), rho in 0.5..5.0f64) {
        let v = h.vertices();
        let centroid = v.iter().map(|p| p.coords).sum::<Vector3<f64>>() / v.len() as f64;
        let (mut mass, mut first, mut second) = (0.0, Vector3::zeros(), Matrix3::zeros());
        let n = v.len();
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    let normal = (v[j] - v[i]).cross(&(v[k] - v[i]));
                    let sides: Vec<f64> = (0..n).filter(|m| ![i, j, k].contains(m)).map(|m| (v[m] - v[i]).dot(&normal)).collect();
                    let scale = 1e-12 * normal.norm();
                    if !(sides.iter().all(|&s| s <= scale) || sides.iter().all(|&s| s >= -scale)) {
                        continue;
                    }
                    // Orient outward, then integrate the signed tetrahedron (0, a, b, c).
                    let (a, b, c) = if (v[i].coords - centroid).dot(&normal) > 0.0 { (v[i], v[j], v[k]) } else { (v[i], v[k], v[j]) };
                    let vol = a.coords.dot(&b.coords.cross(&c.coords)) / 6.0;
                    let s = a.coords + b.coords + c.coords;
                    mass += rho * vol;
                    first += s * (rho * vol / 4.0);
                    second += (a.coords * a.coords.transpose() + b.coords * b.coords.transpose() + c.coords * c.coords.transpose() + s * s.transpose()) * (rho * vol / 20.0);
                }
            }
        }
        let ours = h.solid_mass_properties(rho).unwrap();
        let com = first / mass;
        let centred = second - first * com.transpose();
        let inertia = Matrix3::identity() * centred.trace() - centred;
        prop_assert!((ours.mass - mass).abs() <= 1e-10 * mass, "ours {} oracle {}", ours.mass, mass);
        prop_assert!((ours.center_of_mass.coords - com).norm() <= 1e-10);
        prop_assert!((ours.inertia - inertia).norm() <= 1e-10 * inertia.norm());
    }

    #[test]
    fn lumped_moment_is_linear_in_mass_and_matches_the_hull(h in hull(4, 40), m in 0.1..10.0f64) {
        let j = lumped_second_moment(h.vertices(), m / h.vertices().len() as f64);
        let props = h.lumped_mass_properties(m).unwrap();
        prop_assert!((j - props.second_moment).norm() <= 1e-12 * j.norm());
        prop_assert!((j[(3, 3)] - m).abs() <= 1e-12 * m);
    }
}
