//! Mass properties: of the solid hull with uniform density, and of the vertex set with equal
//! lumped masses (SDRS eq. 4).
//!
//! Everything is carried by the 4x4 homogeneous second moment
//! `J = ∫ ρ x̄ x̄ᵀ dV` with `x̄ = (x, 1)`, i.e. `[[∫ρxxᵀ, ∫ρx], [∫ρxᵀ, m]]` in the body's local
//! frame. It is what the position-level dynamics needs (the inertial term of eq. 2-4 is
//! `Δt²/2 · tr(Ä J Äᵀ)` for the affine acceleration `Ä` of a link), and mass, centre of mass and
//! inertia tensor are read off it. Because the dynamics differentiates the lumped moment with
//! respect to the vertices, [`lumped_second_moment`] is generic over `T: RealField`.

use crate::error::{GeometryError, Result};
use crate::hull::{ConvexHull, boundary_mean};
use nalgebra::{Matrix3, Matrix4, Point3, RealField, Vector3};

/// Mass, centre of mass, inertia and homogeneous second moment of a rigid body.
#[derive(Debug, Clone, PartialEq)]
pub struct MassProperties {
    /// Total mass.
    pub mass: f64,
    /// Centre of mass in the local frame.
    pub center_of_mass: Point3<f64>,
    /// Inertia tensor about the centre of mass, in the local frame axes.
    pub inertia: Matrix3<f64>,
    /// Homogeneous second moment `∫ρ x̄ x̄ᵀ` about the local origin.
    pub second_moment: Matrix4<f64>,
}

impl MassProperties {
    /// Reads mass, centre of mass and inertia off a homogeneous second moment.
    pub fn from_second_moment(second_moment: Matrix4<f64>) -> Self {
        let mass = second_moment[(3, 3)];
        let first = second_moment.fixed_view::<3, 1>(0, 3).into_owned();
        let com = first / mass;
        let s = second_moment.fixed_view::<3, 3>(0, 0).into_owned() - first * com.transpose();
        let inertia = Matrix3::identity() * s.trace() - s;
        Self {
            mass,
            center_of_mass: Point3::from(com),
            inertia,
            second_moment,
        }
    }
}

/// `Σ_m mass_per_vertex · x̄_m x̄_mᵀ`: the second moment of equal point masses at `vertices`.
///
/// Generic so that forward-mode dual numbers can pass through (shape derivatives).
///
/// ```
/// use sdrs_geometry::lumped_second_moment;
/// use nalgebra::Point3;
/// let j = lumped_second_moment(&[Point3::new(1.0, 0.0, 0.0), Point3::new(-1.0, 0.0, 0.0)], 2.0);
/// assert_eq!(j[(3, 3)], 4.0); // total mass
/// assert_eq!(j[(0, 0)], 4.0); // Σ m x²
/// assert_eq!(j[(0, 3)], 0.0); // first moment
/// ```
pub fn lumped_second_moment<T: RealField + Copy>(
    vertices: &[Point3<T>],
    mass_per_vertex: T,
) -> Matrix4<T> {
    let mut j = Matrix4::zeros();
    for v in vertices {
        let h = v.to_homogeneous();
        j += h * h.transpose();
    }
    j * mass_per_vertex
}

fn check_positive(value: f64) -> Result<f64> {
    if value > 0.0 && value.is_finite() {
        Ok(value)
    } else {
        Err(GeometryError::InvalidDensity(value))
    }
}

impl ConvexHull {
    /// Volume of the solid hull.
    pub fn volume(&self) -> f64 {
        self.solid_second_moment_unit_density()[(3, 3)]
    }

    /// Mass properties of the solid hull with uniform `density` (kg/m³).
    pub fn solid_mass_properties(&self, density: f64) -> Result<MassProperties> {
        let density = check_positive(density)?;
        Ok(MassProperties::from_second_moment(
            self.solid_second_moment_unit_density() * density,
        ))
    }

    /// Mass properties of `total_mass` spread equally over the vertices (SDRS eq. 4).
    pub fn lumped_mass_properties(&self, total_mass: f64) -> Result<MassProperties> {
        let total_mass = check_positive(total_mass)?;
        let per_vertex = total_mass / self.vertices().len() as f64;
        Ok(MassProperties::from_second_moment(lumped_second_moment(
            self.vertices(),
            per_vertex,
        )))
    }

    /// `∫ x̄ x̄ᵀ dV` over the solid: a fan of tetrahedra from an interior point to each boundary
    /// triangle, using `∫_tet x xᵀ = V/20 (Σ vᵢvᵢᵀ + s sᵀ)` with `s = Σ vᵢ` over the four
    /// corners.
    fn solid_second_moment_unit_density(&self) -> Matrix4<f64> {
        let v = self.vertices();
        let apex = boundary_mean(v, self.triangles());
        let mut j = Matrix4::zeros();
        for t in self.triangles() {
            let corners = [
                apex,
                v[t[0] as usize].coords,
                v[t[1] as usize].coords,
                v[t[2] as usize].coords,
            ];
            let volume = (corners[1] - apex)
                .cross(&(corners[2] - apex))
                .dot(&(corners[3] - apex))
                / 6.0;
            let s: Vector3<f64> = corners.iter().sum();
            let mut xx = s * s.transpose();
            for c in &corners {
                xx += c * c.transpose();
            }
            let mut block = Matrix4::zeros();
            block
                .fixed_view_mut::<3, 3>(0, 0)
                .copy_from(&(xx * (volume / 20.0)));
            let first = s * (volume / 4.0);
            block.fixed_view_mut::<3, 1>(0, 3).copy_from(&first);
            block
                .fixed_view_mut::<1, 3>(3, 0)
                .copy_from(&first.transpose());
            block[(3, 3)] = volume;
            j += block;
        }
        j
    }
}
