//! Closed, outward-oriented primitive meshes: box, icosphere, cylinder and capsule.
//!
//! Each is centred at the origin; cylinders and capsules run along the z axis.

use super::TriMesh;
use crate::error::{GeometryError, Result};
use nalgebra::{Point3, Vector3};
use std::collections::HashMap;
use std::f64::consts::TAU;

fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value > 0.0 && value.is_finite() {
        Ok(value)
    } else {
        Err(GeometryError::InvalidParameter {
            name,
            value,
            allowed: "finite and positive",
        })
    }
}

fn at_least(name: &'static str, value: usize, min: usize, allowed: &'static str) -> Result<usize> {
    if value >= min {
        Ok(value)
    } else {
        Err(GeometryError::InvalidParameter {
            name,
            value: value as f64,
            allowed,
        })
    }
}

/// Closed surface of revolution about z from a profile of `(radius, z)` rings, bottom to top;
/// the first and last entries must have radius 0 (the poles).
fn revolve(profile: &[(f64, f64)], segments: usize) -> Result<TriMesh> {
    let rings = &profile[1..profile.len() - 1];
    let mut vertices = vec![Point3::new(0.0, 0.0, profile[0].1)];
    for &(r, z) in rings {
        vertices.extend((0..segments).map(|s| {
            let a = TAU * s as f64 / segments as f64;
            Point3::new(r * a.cos(), r * a.sin(), z)
        }));
    }
    let top = vertices.len() as u32;
    vertices.push(Point3::new(0.0, 0.0, profile[profile.len() - 1].1));
    let ring = |k: usize, s: usize| (1 + k * segments + s % segments) as u32;
    let mut triangles = Vec::new();
    for s in 0..segments {
        triangles.push([0, ring(0, s + 1), ring(0, s)]);
        for k in 0..rings.len() - 1 {
            triangles.push([ring(k, s), ring(k, s + 1), ring(k + 1, s + 1)]);
            triangles.push([ring(k, s), ring(k + 1, s + 1), ring(k + 1, s)]);
        }
        let last = rings.len() - 1;
        triangles.push([top, ring(last, s), ring(last, s + 1)]);
    }
    TriMesh::new(vertices, triangles)
}

impl TriMesh {
    /// An axis-aligned box with the given half extents (8 vertices, 12 triangles).
    pub fn cuboid(half_extents: Vector3<f64>) -> Result<Self> {
        let h = Vector3::new(
            positive("half_extent.x", half_extents.x)?,
            positive("half_extent.y", half_extents.y)?,
            positive("half_extent.z", half_extents.z)?,
        );
        let vertices = (0..8)
            .map(|k| {
                let s = |bit: u32| if k & (1 << bit) != 0 { 1.0 } else { -1.0 };
                Point3::new(s(0) * h.x, s(1) * h.y, s(2) * h.z)
            })
            .collect();
        // Vertex k has x = bit 0, y = bit 1, z = bit 2.
        let triangles = vec![
            [0, 2, 1],
            [1, 2, 3], // z-
            [4, 5, 6],
            [5, 7, 6], // z+
            [0, 1, 4],
            [1, 5, 4], // y-
            [2, 6, 3],
            [3, 6, 7], // y+
            [0, 4, 2],
            [2, 4, 6], // x-
            [1, 3, 5],
            [3, 7, 5], // x+
        ];
        Self::new(vertices, triangles)
    }

    /// A sphere of `radius` from an icosahedron subdivided `level` times (0 to 8):
    /// `20 · 4^level` triangles.
    pub fn icosphere(radius: f64, level: u32) -> Result<Self> {
        let radius = positive("radius", radius)?;
        if level > 8 {
            return Err(GeometryError::InvalidParameter {
                name: "level",
                value: f64::from(level),
                allowed: "0 to 8 (20·4^level triangles)",
            });
        }
        let phi = (1.0 + 5f64.sqrt()) / 2.0;
        let mut vertices: Vec<Vector3<f64>> = [
            (-1.0, phi, 0.0),
            (1.0, phi, 0.0),
            (-1.0, -phi, 0.0),
            (1.0, -phi, 0.0),
            (0.0, -1.0, phi),
            (0.0, 1.0, phi),
            (0.0, -1.0, -phi),
            (0.0, 1.0, -phi),
            (phi, 0.0, -1.0),
            (phi, 0.0, 1.0),
            (-phi, 0.0, -1.0),
            (-phi, 0.0, 1.0),
        ]
        .iter()
        .map(|&(x, y, z)| Vector3::new(x, y, z).normalize())
        .collect();
        let mut triangles: Vec<[u32; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        for _ in 0..level {
            let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
            let mut midpoint = |a: u32, b: u32, vertices: &mut Vec<Vector3<f64>>| {
                *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    vertices.push((vertices[a as usize] + vertices[b as usize]).normalize());
                    vertices.len() as u32 - 1
                })
            };
            triangles = triangles
                .iter()
                .flat_map(|&[a, b, c]| {
                    let ab = midpoint(a, b, &mut vertices);
                    let bc = midpoint(b, c, &mut vertices);
                    let ca = midpoint(c, a, &mut vertices);
                    [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
                })
                .collect();
        }
        Self::new(
            vertices.iter().map(|v| Point3::from(v * radius)).collect(),
            triangles,
        )
    }

    /// A closed cylinder along z with `segments` (at least 3) around.
    pub fn cylinder(radius: f64, half_height: f64, segments: usize) -> Result<Self> {
        let r = positive("radius", radius)?;
        let h = positive("half_height", half_height)?;
        let segments = at_least("segments", segments, 3, "at least 3")?;
        revolve(&[(0.0, -h), (r, -h), (r, h), (0.0, h)], segments)
    }

    /// A capsule along z: a cylinder of `half_height` capped by hemispheres of `radius`, with
    /// `segments` (at least 3) around and `rings` (at least 1) per hemisphere.
    pub fn capsule(radius: f64, half_height: f64, segments: usize, rings: usize) -> Result<Self> {
        let r = positive("radius", radius)?;
        let h = positive("half_height", half_height)?;
        let segments = at_least("segments", segments, 3, "at least 3")?;
        let rings = at_least("rings", rings, 1, "at least 1")?;
        let mut profile = vec![(0.0, -h - r)];
        for k in 1..=rings {
            let a = std::f64::consts::FRAC_PI_2 * k as f64 / rings as f64;
            profile.push((r * a.sin(), -h - r * a.cos()));
        }
        for k in (1..=rings).rev() {
            let a = std::f64::consts::FRAC_PI_2 * k as f64 / rings as f64;
            profile.push((r * a.sin(), h + r * a.cos()));
        }
        profile.push((0.0, h + r));
        revolve(&profile, segments)
    }
}
