//! Mesh import from STL (ASCII or binary), OBJ and COLLADA (`.dae`) through one loader,
//! `mesh-loader`.
//!
//! All meshes of a file are merged into one; OBJ polygons are triangulated. COLLADA scenes are
//! placed as `mesh-loader` places them: each geometry instanced in the visual scene is moved by
//! its node's transform and those of the node's ancestors, and scaled by the document's
//! `<unit meter="...">`; a geometry that no node instances keeps its own coordinates.
//!
//! Vertices are welded by exact position (STL stores each triangle's corners separately), and
//! triangles that are degenerate (repeated corners or an area below the threshold of
//! [`TriMesh::new`], as CAD exports often contain) are dropped, as are vertices no triangle
//! uses. The result is validated like any [`TriMesh`]: a file that leaves no triangle, or holds
//! non-finite coordinates, is an error that names the file.

use super::{DEGENERATE_AREA, TriMesh};
use crate::aabb::Aabb;
use crate::error::{GeometryError, Result};
use nalgebra::Point3;
use std::collections::HashMap;
use std::io::{BufRead, Read, Seek};
use std::path::Path;

fn import_error(path: &str, reason: impl std::fmt::Display) -> GeometryError {
    GeometryError::Import {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

/// The mesh file formats read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Stl,
    Obj,
    Collada,
}

/// The format of a file name's extension (case-insensitive): `stl`, `obj` or `dae`.
fn format_of(name: &str) -> Result<Format> {
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("stl") => Ok(Format::Stl),
        Some("obj") => Ok(Format::Obj),
        Some("dae") => Ok(Format::Collada),
        _ => Err(import_error(
            name,
            "unsupported extension; expected .stl, .obj or .dae (COLLADA)",
        )),
    }
}

impl TriMesh {
    /// Loads an `.stl`, `.obj` or `.dae` (COLLADA) file, chosen by extension
    /// (case-insensitive).
    ///
    /// ```
    /// use sdrs_geometry::TriMesh;
    /// let dir = std::env::temp_dir().join(format!("sdrs-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("tet.obj");
    /// std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")?;
    /// let tet = TriMesh::from_file(&path)?;
    /// assert!((tet.signed_volume() - 1.0 / 6.0).abs() < 1e-12);
    /// let err = TriMesh::from_file(dir.join("tet.ply")).unwrap_err();
    /// assert!(err.to_string().contains("tet.ply"));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let name = path.display().to_string();
        format_of(&name)?;
        let bytes = std::fs::read(path).map_err(|e| import_error(&name, e))?;
        Self::from_bytes(&bytes, &name)
    }

    /// Parses a mesh file's contents; `name` is the file's name, whose extension (`.stl`,
    /// `.obj` or `.dae`, case-insensitive) chooses the format, and is used in error messages.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Self> {
        Self::parse(bytes, format_of(name)?, name)
    }

    fn parse(bytes: &[u8], format: Format, name: &str) -> Result<Self> {
        let loader = mesh_loader::Loader::default();
        // mesh-loader takes the path only for messages and (OBJ) material libraries, which
        // the reader below refuses to open.
        let path = Path::new(name);
        // mesh-loader 0.1.13 panics on some malformed COLLADA documents (a missing source
        // array, out-of-range indices: found by the loader fuzz tests); such a panic is caught
        // here and reported as an import error like any other.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match format {
            Format::Stl => loader.load_stl_from_slice(&binary_stl_header_cleared(bytes), path),
            Format::Obj => loader.load_obj_from_slice_with_reader(bytes, path, |_| {
                Err::<Vec<u8>, _>(std::io::Error::other("material libraries are not read"))
            }),
            Format::Collada => loader.load_collada_from_slice(bytes, path),
        }));
        let scene = match read {
            Ok(scene) => scene.map_err(|e| import_error(name, e))?,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("no message");
                return Err(import_error(
                    name,
                    format!("malformed file (the reader gave up: {what})"),
                ));
            }
        };
        from_scene(&scene.meshes, name)
    }

    /// Parses OBJ text from `reader`; `name` is used in error messages. Material libraries are
    /// ignored.
    pub fn read_obj(reader: &mut impl BufRead, name: &str) -> Result<Self> {
        Self::parse(&read_all(reader, name)?, Format::Obj, name)
    }

    /// Parses an ASCII or binary STL from `reader`; `name` is used in error messages.
    pub fn read_stl(reader: &mut (impl Read + Seek), name: &str) -> Result<Self> {
        Self::parse(&read_all(reader, name)?, Format::Stl, name)
    }

    /// Parses a COLLADA document from `reader`; `name` is used in error messages.
    pub fn read_collada(reader: &mut impl Read, name: &str) -> Result<Self> {
        Self::parse(&read_all(reader, name)?, Format::Collada, name)
    }
}

/// A binary STL whose 80-byte header begins with `solid` (as many CAD exporters write it) is
/// taken for ASCII by `mesh-loader`; the size of a binary STL (84 bytes and 50 per triangle
/// counted in the header) tells it apart, and its header is then blanked.
fn binary_stl_header_cleared(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let binary = bytes.get(80..84).is_some_and(|count| {
        let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as u64;
        bytes.len() as u64 == 84 + 50 * count
    });
    if binary && bytes.starts_with(b"solid") {
        let mut owned = bytes.to_vec();
        owned[..80].fill(0);
        std::borrow::Cow::Owned(owned)
    } else {
        std::borrow::Cow::Borrowed(bytes)
    }
}

fn read_all(reader: &mut impl Read, name: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| import_error(name, e))?;
    Ok(bytes)
}

/// One welded, validated mesh from a scene's meshes.
fn from_scene(meshes: &[mesh_loader::Mesh], name: &str) -> Result<TriMesh> {
    let mut corners: Vec<[[f32; 3]; 3]> = Vec::new();
    for mesh in meshes {
        for (k, face) in mesh.faces.iter().enumerate() {
            let corner = |i: u32| {
                mesh.vertices.get(i as usize).copied().ok_or_else(|| {
                    import_error(
                        name,
                        format!(
                            "mesh '{}' face {k} names vertex {i} of {}",
                            mesh.name,
                            mesh.vertices.len()
                        ),
                    )
                })
            };
            corners.push([corner(face[0])?, corner(face[1])?, corner(face[2])?]);
        }
    }
    if let Some((t, _)) = corners
        .iter()
        .enumerate()
        .find(|(_, c)| c.iter().flatten().any(|x| !x.is_finite()))
    {
        return Err(import_error(
            name,
            format!("triangle {t} has a non-finite coordinate"),
        ));
    }
    let point = |p: [f32; 3]| Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
    let all: Vec<Point3<f64>> = corners.iter().flatten().map(|&p| point(p)).collect();
    let size = Aabb::from_points(&all).extents().norm();
    let mut index: HashMap<[u32; 3], u32> = HashMap::new();
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for c in &corners {
        let [a, b, d] = c.map(point);
        if !(0.5 * (b - a).cross(&(d - a)).norm() > DEGENERATE_AREA * size * size) {
            continue;
        }
        triangles.push(c.map(|p| {
            *index.entry(p.map(f32::to_bits)).or_insert_with(|| {
                vertices.push(point(p));
                (vertices.len() - 1) as u32
            })
        }));
    }
    if triangles.is_empty() {
        return Err(import_error(
            name,
            format!(
                "no triangle with a non-zero area ({} faces read)",
                corners.len()
            ),
        ));
    }
    TriMesh::new(vertices, triangles).map_err(|e| import_error(name, e))
}
