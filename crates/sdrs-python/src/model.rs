//! The model, inspected by name: links, joints, coordinates, masses and design parameters.

use crate::arrays::{self, to_numpy};
use crate::errors::Raise;
use numpy::{PyArray1, PyArrayDyn};
use pyo3::prelude::*;
use sdrs::dynamics::{Model, State};

/// Adds the classes of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModel>()
}

/// An articulated model: links in a kinematic forest, their joints, hulls and masses, and the
/// design vector (link attachments, then hull vertices) that design maps act on.
#[pyclass(name = "Model", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyModel(pub Model);

#[pymethods]
impl PyModel {
    /// Number of generalized coordinates.
    #[getter]
    fn dof(&self) -> usize {
        self.0.dof()
    }

    /// The link names, in model order.
    #[getter]
    fn link_names(&self) -> Vec<String> {
        self.0.links().iter().map(|l| l.name.clone()).collect()
    }

    /// The joint names, one per link, in model order.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.0.links().iter().map(|l| l.joint_label()).collect()
    }

    /// The coordinates' names (`joint` or `joint[k]` for multi-DoF joints).
    #[getter]
    fn dof_names(&self) -> Vec<String> {
        (0..self.0.dof()).map(|k| self.0.dof_name(k)).collect()
    }

    /// The index of the link named `name` (`KeyError` lists close names).
    fn link(&self, name: &str) -> PyResult<usize> {
        Ok(self.0.link(name).raise()?.index())
    }

    /// The coordinates of the joint named `name` in the state.
    fn joint_dofs(&self, name: &str) -> PyResult<Vec<usize>> {
        let joint = self.0.joint(name).raise()?;
        Ok(self.0.dofs(joint).collect())
    }

    /// The parent link index of link `link`, or `None` for a root.
    fn parent(&self, link: usize) -> PyResult<Option<usize>> {
        let id = self.0.link_id(link).raise()?;
        Ok(self.0.links()[id.index()].parent)
    }

    /// The links' masses (kg), in model order.
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let m = (0..self.0.links().len()).map(|i| self.0.mass(i)).collect();
        PyArray1::from_vec(py, m)
    }

    /// The vertices `(n, 3)` of hull `hull` of link `link`, in the link's frame.
    fn hull_vertices<'py>(
        &self,
        py: Python<'py>,
        link: usize,
        hull: usize,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let id = self.0.link_id(link).raise()?;
        let hulls = &self.0.links()[id.index()].hulls;
        let h = hulls.get(hull).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "hull {hull} is out of range: link {link} has {} hulls",
                hulls.len()
            ))
        })?;
        let rows: Vec<[f64; 3]> = h.vertices().iter().map(|p| [p.x, p.y, p.z]).collect();
        arrays::rows_to_numpy(py, rows.into_iter(), 3)
    }

    /// The design vector d: every link's attachment translation, then every hull vertex.
    #[getter]
    fn design<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.design())
    }

    /// The same model with design vector `d`.
    fn with_design(&self, d: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = arrays::vector(d, "design", Some(self.0.design_len()))?;
        Ok(Self(self.0.with_design(&d).raise()?))
    }

    /// A configuration inside every joint limit (zero where the joints allow it).
    fn neutral<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &State::neutral(&self.0).q)
    }

    fn __repr__(&self) -> String {
        format!(
            "Model({} links, {} DoF)",
            self.0.links().len(),
            self.0.dof()
        )
    }
}
