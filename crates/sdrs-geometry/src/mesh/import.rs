//! Mesh import from OBJ (tobj) and STL (stl_io), ASCII or binary.
//!
//! All objects of an OBJ file are merged into one mesh; polygons are triangulated. STL files
//! are welded by exact vertex position. The result is validated like any [`TriMesh`].

use super::TriMesh;
use crate::error::{GeometryError, Result};
use nalgebra::Point3;
use std::io::{BufRead, Cursor, Read, Seek};
use std::path::Path;

fn import_error(path: &str, reason: impl std::fmt::Display) -> GeometryError {
    GeometryError::Import {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

impl TriMesh {
    /// Loads an `.obj` or `.stl` file, chosen by extension (case-insensitive).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let bytes = std::fs::read(path).map_err(|e| import_error(&name, e))?;
        match ext.as_deref() {
            Some("obj") => Self::read_obj(&mut Cursor::new(bytes), &name),
            Some("stl") => Self::read_stl(&mut Cursor::new(bytes), &name),
            _ => Err(import_error(
                &name,
                "unsupported extension; expected .obj or .stl",
            )),
        }
    }

    /// Parses OBJ text from `reader`; `name` is used in error messages. Material libraries are
    /// ignored.
    pub fn read_obj(reader: &mut impl BufRead, name: &str) -> Result<Self> {
        let options = tobj::LoadOptions {
            triangulate: true,
            single_index: true,
            ..Default::default()
        };
        let (models, _materials) =
            tobj::load_obj_buf(reader, &options, |_| Err(tobj::LoadError::OpenFileFailed))
                .map_err(|e| import_error(name, e))?;
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for model in &models {
            let offset = vertices.len() as u32;
            let m = &model.mesh;
            vertices.extend(
                m.positions
                    .chunks_exact(3)
                    .map(|p| Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]))),
            );
            triangles.extend(
                m.indices
                    .chunks_exact(3)
                    .map(|t| [t[0] + offset, t[1] + offset, t[2] + offset]),
            );
        }
        Self::new(vertices, triangles).map_err(|e| import_error(name, e))
    }

    /// Parses an ASCII or binary STL from `reader`; `name` is used in error messages.
    pub fn read_stl(reader: &mut (impl Read + Seek), name: &str) -> Result<Self> {
        let indexed = stl_io::read_stl(reader).map_err(|e| import_error(name, e))?;
        let vertices = indexed
            .vertices
            .iter()
            .map(|v| Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])))
            .collect();
        let triangles = indexed
            .faces
            .iter()
            .map(|f| f.vertices.map(|i| i as u32))
            .collect();
        Self::new(vertices, triangles).map_err(|e| import_error(name, e))
    }
}
