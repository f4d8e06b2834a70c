//! NumPy `float64` arrays in and out: any array-like is read through `numpy.asarray(x,
//! dtype=float64)`, its shape checked (a `ValueError` names the expected shape) and NaN or
//! infinity refused; results are handed to NumPy without copying (the `Vec` becomes the
//! array's buffer).

use nalgebra::{DMatrix, DVector, Isometry3, Translation3, UnitQuaternion, Vector3};
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `x` as a C-contiguous float64 array with `dims` (each `Some(len)` fixed, `None` free),
/// finite; `name` names it in the messages (which give the expected shape, `any` for a free
/// length).
pub fn read(
    x: &Bound<'_, PyAny>,
    name: &str,
    dims: &[Option<usize>],
) -> PyResult<(Vec<f64>, Vec<usize>)> {
    let py = x.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", "float64")?;
    let array = py
        .import("numpy")?
        .call_method("ascontiguousarray", (x,), Some(&kwargs))
        .map_err(|e| PyValueError::new_err(format!("{name} must be an array of numbers: {e}")))?;
    let array: PyReadonlyArrayDyn<'_, f64> = array.extract()?;
    let shape = array.shape().to_vec();
    if shape.len() != dims.len()
        || shape
            .iter()
            .zip(dims)
            .any(|(s, d)| d.is_some_and(|d| d != *s))
    {
        let expected = dims
            .iter()
            .map(|d| d.map_or("any".into(), |n| n.to_string()));
        let got = shape.iter().map(|n| n.to_string());
        return Err(PyValueError::new_err(format!(
            "{name} must have shape {}, got {}",
            tuple(expected),
            tuple(got)
        )));
    }
    let values = array.as_slice()?.to_vec();
    if let Some(index) = values.iter().position(|v| !v.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "{name} holds {} at flat index {index}: values must be finite",
            values[index]
        )));
    }
    Ok((values, shape))
}

/// A shape as Python writes it: `(3,)`, `(2, 3)`.
fn tuple(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    let trailing = if items.len() == 1 { "," } else { "" };
    format!("({}{trailing})", items.join(", "))
}

/// A vector of length `n` (any length for `None`).
pub fn vector(x: &Bound<'_, PyAny>, name: &str, n: Option<usize>) -> PyResult<DVector<f64>> {
    Ok(DVector::from_vec(read(x, name, &[n])?.0))
}

/// A matrix of `rows` x `cols` (row-major in NumPy, as nalgebra's column-major here).
pub fn matrix(
    x: &Bound<'_, PyAny>,
    name: &str,
    rows: Option<usize>,
    cols: Option<usize>,
) -> PyResult<DMatrix<f64>> {
    let (values, shape) = read(x, name, &[rows, cols])?;
    Ok(DMatrix::from_row_slice(shape[0], shape[1], &values))
}

/// A point or direction in 3D.
pub fn vector3(x: &Bound<'_, PyAny>, name: &str) -> PyResult<Vector3<f64>> {
    let v = read(x, name, &[Some(3)])?.0;
    Ok(Vector3::new(v[0], v[1], v[2]))
}

/// The pose at translation `xyz` with roll, pitch, yaw `rpy` (rad, about fixed x, y, z, as
/// in URDF), each optional.
pub fn pose(
    xyz: Option<&Bound<'_, PyAny>>,
    rpy: Option<&Bound<'_, PyAny>>,
) -> PyResult<Isometry3<f64>> {
    let t = xyz
        .map(|x| vector3(x, "xyz"))
        .transpose()?
        .unwrap_or_else(Vector3::zeros);
    let r = rpy
        .map(|x| vector3(x, "rpy"))
        .transpose()?
        .unwrap_or_else(Vector3::zeros);
    Ok(Isometry3::from_parts(
        Translation3::from(t),
        UnitQuaternion::from_euler_angles(r.x, r.y, r.z),
    ))
}

/// A vector as a 1-D NumPy array (the buffer moves, no copy).
pub fn to_numpy<'py>(py: Python<'py>, v: &DVector<f64>) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_vec(py, v.as_slice().to_vec())
}

/// Rows of equal length as a 2-D NumPy array (rows x len).
pub fn rows_to_numpy<'py>(
    py: Python<'py>,
    rows: impl ExactSizeIterator<Item = impl AsRef<[f64]>>,
    len: usize,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let count = rows.len();
    let mut flat = Vec::with_capacity(count * len);
    for row in rows {
        flat.extend_from_slice(row.as_ref());
    }
    shaped(py, flat, &[count, len])
}

/// A flat row-major buffer as a NumPy array of `shape`.
pub fn shaped<'py>(
    py: Python<'py>,
    flat: Vec<f64>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    PyArray1::from_vec(py, flat).reshape(shape.to_vec())
}

/// A matrix as a 2-D NumPy array (rows x columns, row-major).
pub fn matrix_to_numpy<'py>(
    py: Python<'py>,
    m: &DMatrix<f64>,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    rows_to_numpy(
        py,
        m.row_iter()
            .map(|r| r.iter().copied().collect::<Vec<f64>>()),
        m.ncols(),
    )
}
