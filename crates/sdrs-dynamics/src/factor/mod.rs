//! Factorisations of a step's Hessian `H = ∂²O/∂θ^{t+1}²`, owning their buffers so that Newton
//! iterations, line-search trials and steps reuse them.
//!
//! One [`HessianFactor`] serves both sides of a step:
//! - the forward solve's modified Newton direction ([`HessianFactor::factorize_modified`]):
//!   `H`'s eigenvalues `λ` replaced by `max(|λ|, floor)` (SDRS sec. V). When `H − floor·I` has
//!   a Cholesky factor every eigenvalue is above the floor and nothing changes: the Cholesky
//!   factor of `H` itself is used. Otherwise a symmetric eigen-decomposition clamps the
//!   spectrum (this fallback allocates: it is nalgebra's);
//! - the backward pass ([`HessianFactor::factorize`]): the implicit function theorem's
//!   `∂θ^{t+1}/∂y = −H⁻¹ ∂²O/∂θ^{t+1}∂y` with the unmodified `H`: Cholesky, or LU with partial
//!   pivoting for an indefinite but regular `H`.
//!
//! Cholesky factors are dense or sparse by a measured rule ([`SparseRule`]): sparse on the
//! pattern of `H`'s non-zeros (the kinematic tree's root paths plus the contact coupling between the bodies of active pairs), in the reversed DoF
//! order that eliminates a tree's leaves first (no fill on the tree part), with the symbolic
//! analysis kept while later Hessians stay inside its pattern. docs/architecture.md
//! ("Factorisation") gives the measurements behind the rule.

mod dense;
mod sparse;

use nalgebra::{DMatrix, Dim, Dyn, IsContiguous, Matrix, RawStorageMut, VecStorage};
use sparse::SparseCholesky;
use thiserror::Error;

/// When a Cholesky factor is sparse: at [`SparseRule::min_dof`] DoFs or more, when the sparse
/// factor's fill ratio `nnz(L) / (n(n+1)/2)` is at most [`SparseRule::max_fill`]; dense
/// otherwise. The default is [`SparseRule::MEASURED`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparseRule {
    /// Below this many DoFs the factor is dense (the pattern is not even looked at).
    pub min_dof: usize,
    /// The largest fill ratio of a sparse factor.
    pub max_fill: f64,
}

impl SparseRule {
    /// The rule measured on step Hessians (docs/architecture.md, "Factorisation").
    pub const MEASURED: Self = Self {
        min_dof: 32,
        max_fill: 0.4,
    };
    /// Always dense.
    pub const DENSE: Self = Self {
        min_dof: usize::MAX,
        max_fill: 0.0,
    };
    /// Sparse whenever the matrix is not empty.
    pub const SPARSE: Self = Self {
        min_dof: 1,
        max_fill: 1.0,
    };
}

impl Default for SparseRule {
    fn default() -> Self {
        Self::MEASURED
    }
}

/// How a [`HessianFactor`] holds its matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactorMethod {
    /// `H = L Lᵀ`, `L` dense.
    DenseCholesky,
    /// `P H Pᵀ = L Lᵀ`, `L` sparse (see the module docs for `P`).
    SparseCholesky,
    /// `H = V Λ Vᵀ` with the eigenvalues clamped to `max(|λ|, floor)`: the modified Newton
    /// matrix, when `H − floor·I` is not positive definite.
    ModifiedEigen,
    /// `P H = L U` (partial pivoting), for an indefinite `H` in the backward pass.
    Lu,
}

/// What can go wrong when factorising or solving.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FactorError {
    /// A solve before any factorisation.
    #[error(
        "nothing is factorised yet: call HessianFactor::factorize or factorize_modified before solving"
    )]
    Empty,
    /// The matrix is not square.
    #[error("the matrix is {rows} x {columns}: only square (symmetric) matrices are factorised")]
    NotSquare {
        /// Rows.
        rows: usize,
        /// Columns.
        columns: usize,
    },
    /// An entry is NaN or infinite.
    #[error("entry ({row}, {column}) of the matrix is {value}: every entry must be finite")]
    NonFinite {
        /// Its row.
        row: usize,
        /// Its column.
        column: usize,
        /// Its value.
        value: f64,
    },
    /// The eigenvalue floor is not positive and finite.
    #[error("eigenvalue floor {floor}: it must be positive and finite")]
    BadFloor {
        /// The floor given.
        floor: f64,
    },
    /// The matrix has no inverse (a zero pivot in its LU factorisation).
    #[error(
        "the matrix is singular (a zero pivot in its LU factorisation): it has no inverse, so \
         no solve is possible"
    )]
    Singular,
    /// Right-hand sides with the wrong number of rows.
    #[error("right-hand sides with {rows} rows for a {dim} x {dim} matrix: they need {dim} rows")]
    DimensionMismatch {
        /// Rows of the right-hand sides.
        rows: usize,
        /// The factorised matrix's dimension.
        dim: usize,
    },
}

/// Right-hand sides or solutions: a vector (`C = U1`) or a matrix of columns.
type Columns<C> = Matrix<f64, Dyn, C, VecStorage<f64, Dyn, C>>;

/// A factorised symmetric matrix (a step's Hessian) with its buffers, reused from one
/// factorisation to the next: after the first factorisation of a given size the Cholesky and
/// LU paths allocate nothing (the sparse path analyses a pattern, which allocates, only when
/// a matrix has a non-zero outside the analysed pattern).
///
/// ```
/// use nalgebra::{DMatrix, DVector};
/// use sdrs_dynamics::factor::{FactorMethod, HessianFactor};
/// let h = DMatrix::from_row_slice(2, 2, &[4.0, 1.0, 1.0, 3.0]);
/// let mut factor = HessianFactor::default();
/// assert_eq!(factor.factorize(&h)?, FactorMethod::DenseCholesky);
/// let x = factor.solve(&DVector::from_vec(vec![1.0, 2.0]))?;
/// assert!((&h * &x - DVector::from_vec(vec![1.0, 2.0])).norm() < 1e-12);
/// // The modified Newton matrix of an indefinite H: eigenvalues 3 and -1 become 3 and 1.
/// let indefinite = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
/// assert_eq!(factor.factorize_modified(&indefinite, 1e-3)?, FactorMethod::ModifiedEigen);
/// let mut b = DMatrix::identity(2, 2);
/// factor.solve_in_place(&mut b)?; // the inverse of V |Λ| Vᵀ
/// assert!((b[(0, 0)] - (1.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12);
/// # Ok::<(), sdrs_dynamics::factor::FactorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HessianFactor {
    n: usize,
    method: Option<FactorMethod>,
    /// The last [`HessianFactor::factorize`] found the matrix singular.
    singular: bool,
    /// Column-major `n x n`: `L` (dense Cholesky), `L\U` (LU) or the eigenvectors.
    dense: Vec<f64>,
    /// Row interchanges of the LU factorisation.
    pivots: Vec<usize>,
    /// The clamped eigenvalues `max(|λ|, floor)`.
    eigenvalues: Vec<f64>,
    /// Scratch of the eigenvalue floor's test ([`HessianFactor::dense_above`]).
    scratch: Vec<f64>,
    sparse: SparseCholesky,
    rule: SparseRule,
}

impl HessianFactor {
    /// An empty factor with the measured dense/sparse rule; its buffers grow on the first
    /// factorisation.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty factor that chooses dense or sparse Cholesky by `rule`.
    pub fn with_rule(rule: SparseRule) -> Self {
        Self {
            rule,
            ..Self::default()
        }
    }

    /// The fill ratio `nnz(L) / (n(n+1)/2)` of the Cholesky factor last computed (1 for a dense
    /// one); `None` when the factor is not a Cholesky factor.
    pub fn fill(&self) -> Option<f64> {
        match self.method? {
            FactorMethod::DenseCholesky => Some(1.0),
            FactorMethod::SparseCholesky => Some(self.sparse_fill()),
            FactorMethod::ModifiedEigen | FactorMethod::Lu => None,
        }
    }

    fn sparse_fill(&self) -> f64 {
        let n = self.n;
        self.sparse.factor_entries() as f64 / (n * (n + 1) / 2) as f64
    }

    /// The dimension of the last matrix factorised (0 before any).
    pub fn dim(&self) -> usize {
        self.n
    }

    /// How the last matrix is held; `None` before any factorisation and after one that
    /// failed (a solve then reports why: [`FactorError::Singular`] or [`FactorError::Empty`]).
    pub fn method(&self) -> Option<FactorMethod> {
        self.method
    }

    /// Factorises `hessian` itself: Cholesky (dense or sparse by the rule of the module docs)
    /// when it is positive definite, LU otherwise. [`FactorError::Singular`] when it has no
    /// inverse (the factor is then empty).
    pub fn factorize(&mut self, hessian: &DMatrix<f64>) -> Result<FactorMethod, FactorError> {
        self.start(hessian)?;
        let sparse = self.choose_sparse(hessian);
        let method = if self.cholesky(hessian, 0.0, sparse) {
            self.method.expect("set by cholesky")
        } else {
            let n = self.n;
            self.load(hessian);
            self.pivots.resize(n, 0);
            if !dense::lu_in_place(&mut self.dense, n, &mut self.pivots) {
                self.singular = true;
                return Err(FactorError::Singular);
            }
            FactorMethod::Lu
        };
        self.method = Some(method);
        Ok(method)
    }

    /// Factorises the modified Newton matrix of `hessian`: `hessian` itself when
    /// `hessian − floor·I` is positive definite (Cholesky), otherwise `V max(|Λ|, floor) Vᵀ`
    /// from its symmetric eigen-decomposition. Solving with it gives the Newton direction
    /// `−H̃⁻¹ g` of the step.
    pub fn factorize_modified(
        &mut self,
        hessian: &DMatrix<f64>,
        floor: f64,
    ) -> Result<FactorMethod, FactorError> {
        if !(floor > 0.0 && floor.is_finite()) {
            return Err(FactorError::BadFloor { floor });
        }
        self.start(hessian)?;
        let sparse = self.choose_sparse(hessian);
        let cholesky = if sparse {
            self.cholesky(hessian, floor, true) && self.cholesky(hessian, 0.0, true)
        } else {
            self.cholesky(hessian, 0.0, false) && self.dense_above(hessian, floor)
        };
        if cholesky {
            return Ok(self.method.expect("set by cholesky"));
        }
        let eigen = hessian.clone().symmetric_eigen();
        self.dense.clear();
        self.dense.extend_from_slice(eigen.eigenvectors.as_slice());
        self.eigenvalues.clear();
        self.eigenvalues
            .extend(eigen.eigenvalues.iter().map(|l| l.abs().max(floor)));
        self.method = Some(FactorMethod::ModifiedEigen);
        Ok(FactorMethod::ModifiedEigen)
    }

    /// Overwrites each column of `b` (`n` rows, any number of columns) with the solution `x`
    /// of `M x = b`, `M` the factorised matrix.
    pub fn solve_in_place<C: Dim, S>(
        &self,
        b: &mut Matrix<f64, Dyn, C, S>,
    ) -> Result<(), FactorError>
    where
        S: RawStorageMut<f64, Dyn, C> + IsContiguous,
    {
        let n = self.n;
        let Some(method) = self.method else {
            return Err(if self.singular {
                FactorError::Singular
            } else {
                FactorError::Empty
            });
        };
        if b.nrows() != n {
            return Err(FactorError::DimensionMismatch {
                rows: b.nrows(),
                dim: n,
            });
        }
        if n == 0 {
            return Ok(());
        }
        for column in b.as_mut_slice().chunks_exact_mut(n) {
            match method {
                FactorMethod::DenseCholesky => dense::cholesky_solve(&self.dense, n, column),
                FactorMethod::SparseCholesky => self.sparse.solve(column),
                FactorMethod::Lu => dense::lu_solve(&self.dense, n, &self.pivots, column),
                FactorMethod::ModifiedEigen => self.eigen_solve(column),
            }
        }
        Ok(())
    }

    /// `M⁻¹`, `M` the factorised matrix. From a dense Cholesky factor as `L⁻ᵀ L⁻¹`: the
    /// triangular inverse by forward substitution, then one matrix product (matrixmultiply's
    /// vectorised kernels), about half the time of `n` solves with the identity's columns;
    /// otherwise by those solves.
    ///
    /// ```
    /// use nalgebra::DMatrix;
    /// use sdrs_dynamics::factor::HessianFactor;
    /// let h = DMatrix::from_row_slice(2, 2, &[4.0, 1.0, 1.0, 3.0]);
    /// let mut factor = HessianFactor::default();
    /// factor.factorize(&h)?;
    /// assert!((&h * factor.inverse()? - DMatrix::identity(2, 2)).amax() < 1e-15);
    /// # Ok::<(), sdrs_dynamics::factor::FactorError>(())
    /// ```
    pub fn inverse(&self) -> Result<DMatrix<f64>, FactorError> {
        let n = self.n;
        if self.method != Some(FactorMethod::DenseCholesky) {
            return self.solve(&DMatrix::identity(n, n));
        }
        // Y = L⁻¹, column by column: L y_j = e_j starts at row j.
        let mut y = DMatrix::zeros(n, n);
        for (j, column) in y.as_mut_slice().chunks_exact_mut(n.max(1)).enumerate() {
            column[j] = 1.0;
            for k in j..n {
                let l = &self.dense[k * n..(k + 1) * n];
                let x = column[k] / l[k];
                column[k] = x;
                if x != 0.0 {
                    for (c, l) in column[k + 1..].iter_mut().zip(&l[k + 1..]) {
                        *c -= l * x;
                    }
                }
            }
        }
        Ok(y.tr_mul(&y))
    }

    /// The solution `X` of `M X = B`, `M` the factorised matrix (`B` a vector or a matrix of
    /// right-hand sides).
    pub fn solve<C: Dim>(&self, b: &Columns<C>) -> Result<Columns<C>, FactorError> {
        let mut x = b.clone();
        self.solve_in_place(&mut x)?;
        Ok(x)
    }

    /// Checks that `hessian` is square and finite, and empties the factor.
    fn start(&mut self, hessian: &DMatrix<f64>) -> Result<(), FactorError> {
        self.method = None;
        self.singular = false;
        let (rows, columns) = hessian.shape();
        if rows != columns {
            return Err(FactorError::NotSquare { rows, columns });
        }
        if !all_finite(hessian.as_slice())
            && let Some(at) = hessian.iter().position(|v| !v.is_finite())
        {
            return Err(FactorError::NonFinite {
                row: at % rows,
                column: at / rows,
                value: hessian.as_slice()[at],
            });
        }
        self.n = rows;
        Ok(())
    }

    /// Copies `hessian` into the dense buffer.
    fn load(&mut self, hessian: &DMatrix<f64>) {
        self.dense.clear();
        self.dense.extend_from_slice(hessian.as_slice());
    }

    /// Whether `hessian`'s Cholesky factor is sparse by the rule, analysing its pattern when
    /// the analysed one does not cover it.
    fn choose_sparse(&mut self, hessian: &DMatrix<f64>) -> bool {
        let n = self.n;
        if n < self.rule.min_dof {
            return false;
        }
        let a = hessian.as_slice();
        if !self.sparse.covers(a, n) {
            self.sparse.analyse(a, n);
        }
        self.sparse_fill() <= self.rule.max_fill
    }

    /// Cholesky of `hessian − shift·I`, sparse (on the analysed pattern) or dense; `true` on
    /// success (the method is then set).
    fn cholesky(&mut self, hessian: &DMatrix<f64>, shift: f64, sparse: bool) -> bool {
        let n = self.n;
        if sparse {
            let done = self.sparse.factorise(hessian.as_slice(), shift);
            self.method = done.then_some(FactorMethod::SparseCholesky);
            return done;
        }
        self.load(hessian);
        for j in 0..n {
            self.dense[j * n + j] -= shift;
        }
        let done = dense::cholesky_in_place(&mut self.dense, n);
        self.method = done.then_some(FactorMethod::DenseCholesky);
        done
    }

    /// Whether every eigenvalue of `hessian`, whose dense Cholesky factor `L` is in
    /// [`HessianFactor::dense`], is above `floor`, keeping that factor. First by a bound that
    /// costs two triangular solves instead of a second factorisation: `λ_min = 1/‖L⁻¹‖₂²` and
    /// `‖L⁻¹‖₂² ≤ ‖L⁻¹‖₁ ‖L⁻¹‖∞`, each norm at most that of `M(L)⁻¹`, `M(L)` the comparison
    /// matrix (`|l_ii|` on the diagonal, `−|l_ij|` off it; Higham, *Accuracy and Stability of
    /// Numerical Algorithms*, 2nd ed., Thm. 8.12), whose inverse is non-negative so that its
    /// norms are `‖M(L)⁻¹ e‖∞` and `‖M(L)⁻ᵀ e‖∞`. The bound decides in favour only with a
    /// factor 2 to spare; otherwise the Cholesky factorisation of `hessian − floor·I` decides
    /// (in a scratch buffer), as it always did. Either way the factor and the answer are those of
    /// the two factorisations.
    fn dense_above(&mut self, hessian: &DMatrix<f64>, floor: f64) -> bool {
        let n = self.n;
        let l = &self.dense;
        self.scratch.clear();
        self.scratch.resize(n, 1.0);
        // M(L) y = e, column by column; then ‖M(L)⁻¹‖∞ = max y.
        let y = &mut self.scratch;
        for j in 0..n {
            let column = &l[j * n..(j + 1) * n];
            y[j] /= column[j];
            let yj = y[j];
            for (yi, lij) in y[j + 1..].iter_mut().zip(&column[j + 1..]) {
                *yi += lij.abs() * yj;
            }
        }
        let rows = y.iter().fold(0.0f64, |m, &v| m.max(v));
        // M(L)ᵀ z = e, from the last row up; then ‖M(L)⁻¹‖₁ = max z.
        let mut columns = 0.0f64;
        for i in (0..n).rev() {
            let column = &l[i * n..(i + 1) * n];
            let below: f64 = column[i + 1..]
                .iter()
                .zip(&y[i + 1..])
                .map(|(lji, zj)| lji.abs() * zj)
                .sum();
            // Row i of y is no longer needed: it now holds z_i.
            y[i] = (1.0 + below) / column[i];
            columns = columns.max(y[i]);
        }
        let bound = rows * columns;
        if bound.is_finite() && 2.0 * bound * floor < 1.0 {
            return true;
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(hessian.as_slice());
        for j in 0..n {
            self.scratch[j * n + j] -= floor;
        }
        dense::cholesky_in_place(&mut self.scratch, n)
    }

    /// `b ← V diag(1/λ̃) Vᵀ b`.
    fn eigen_solve(&self, b: &mut [f64]) {
        let n = self.n;
        let vectors = || self.dense.chunks_exact(n);
        let coefficients: Vec<f64> = vectors()
            .zip(&self.eigenvalues)
            .map(|(v, l)| v.iter().zip(b.iter()).map(|(v, b)| v * b).sum::<f64>() / l)
            .collect();
        b.fill(0.0);
        for (v, c) in vectors().zip(&coefficients) {
            for (x, v) in b.iter_mut().zip(v) {
                *x += c * v;
            }
        }
    }
}

/// Whether every entry of `values` is finite, in a loop the compiler vectorises (the step
/// checks every Hessian entry twice per evaluation): `x − x` is 0 for a finite `x` and NaN
/// for ±∞ and NaN, and a sum with a NaN stays NaN.
#[allow(
    clippy::eq_op,
    reason = "x − x is the test: 0 for finite x, NaN otherwise"
)]
pub(crate) fn all_finite(values: &[f64]) -> bool {
    let mut lanes = [0.0f64; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, x) in lanes.iter_mut().zip(chunk) {
            *lane += x - x;
        }
    }
    rest.iter().all(|x| x.is_finite()) && lanes.iter().all(|&lane| lane == 0.0)
}

#[cfg(test)]
mod tests {
    use super::all_finite;

    #[test]
    fn all_finite_finds_every_non_finite_entry() {
        for n in 0..11 {
            let finite: Vec<f64> = (0..n).map(|i| (i as f64 - 4.5) * 1e300).collect();
            assert!(all_finite(&finite), "n = {n}");
            for at in 0..n {
                for bad in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
                    let mut values = finite.clone();
                    values[at] = bad;
                    assert!(!all_finite(&values), "n = {n}, {bad} at {at}");
                }
            }
        }
    }
}
