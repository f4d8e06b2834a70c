//! Sparse Cholesky `P A Pᵀ = L Lᵀ` of a symmetric matrix given densely, on the pattern of its
//! non-zeros, with the symbolic analysis kept while later matrices stay inside that pattern.
//!
//! The ordering `P` reverses the coordinates. A model lists its links parents first, so its
//! DoFs come parents first too, and the reversal eliminates leaves before their ancestors:
//! the tree part of a step's Hessian (entries only between DoFs on a common root path, whose
//! ancestors are already all coupled) then factorises without fill, as Featherstone's `LTDL`
//! (*Rigid Body Dynamics Algorithms*, sec. 6.3); contact coupling between the bodies of
//! active pairs adds the fill its elimination graph implies.
//!
//! The algorithm is the up-looking one of Davis, *Direct Methods for Sparse Linear Systems*
//! (2006), ch. 4: the elimination tree (sec. 4.1), the pattern of each row of `L` as a
//! reach in that tree (sec. 4.2) and the numerical factorisation row by row (sec. 4.8). The
//! analysis stores every row's pattern and where each of its entries lands in `L`, so a
//! refactorisation does no search and no allocation.

/// The symbolic analysis of one pattern and the numerical factor on it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct SparseCholesky {
    n: usize,
    /// `covered[i * n + j]`: the analysed pattern holds `A[i, j]` (original coordinates).
    covered: Vec<bool>,
    /// Start of each column's upper entries (permuted `C = P A Pᵀ`, rows `< k`) in `upper`.
    upper_start: Vec<usize>,
    /// Row indices (permuted) of the strict upper part of `C`, column by column.
    upper: Vec<usize>,
    /// Start of each row's pattern in `row_pattern` / `row_slot`.
    row_start: Vec<usize>,
    /// The columns `i < k` of `L`'s row `k`, children before parents in the elimination tree.
    row_pattern: Vec<usize>,
    /// Where `L[k, i]` is stored in `values`, in the order of `row_pattern`.
    row_slot: Vec<usize>,
    /// Start of each column of `L` in `rows` / `values`; the diagonal comes first.
    column_start: Vec<usize>,
    /// Row indices of `L`, column by column, increasing.
    rows: Vec<usize>,
    /// The numerical values of `L`.
    values: Vec<f64>,
    /// Dense scratch of length `n` for the numerical factorisation.
    scratch: Vec<f64>,
}

const NONE: usize = usize::MAX;

impl SparseCholesky {
    /// Whether the analysed pattern holds every non-zero of the column-major `n x n` matrix
    /// `a` (lower triangle, which the factorisation reads).
    pub(super) fn covers(&self, a: &[f64], n: usize) -> bool {
        self.n == n
            && (0..n).all(|j| (j..n).all(|i| a[j * n + i] == 0.0 || self.covered[j * n + i]))
    }

    /// Analyses the pattern of the non-zeros of `a`'s lower triangle (plus the diagonal).
    pub(super) fn analyse(&mut self, a: &[f64], n: usize) {
        self.n = n;
        self.covered.clear();
        self.covered.resize(n * n, false);
        for j in 0..n {
            for i in j..n {
                let present = i == j || a[j * n + i] != 0.0;
                self.covered[j * n + i] = present;
                self.covered[i * n + j] = present;
            }
        }
        // C = P A Pᵀ with P the reversal: C[i, k] = A[n−1−i, n−1−k].
        self.upper_start.clear();
        self.upper.clear();
        for k in 0..n {
            self.upper_start.push(self.upper.len());
            let column = n - 1 - k;
            self.upper
                .extend((0..k).filter(|&i| self.covered[column * n + (n - 1 - i)]));
        }
        self.upper_start.push(self.upper.len());
        let parent = self.elimination_tree();
        // Row patterns by reach in the tree (Davis, sec. 4.2), and column counts of L.
        let mut mark = vec![NONE; n];
        let mut count = vec![1usize; n];
        let mut path = Vec::with_capacity(n);
        let mut stack = Vec::with_capacity(n);
        self.row_start.clear();
        self.row_pattern.clear();
        for k in 0..n {
            self.row_start.push(self.row_pattern.len());
            mark[k] = k;
            stack.clear();
            for &i in &self.upper[self.upper_start[k]..self.upper_start[k + 1]] {
                path.clear();
                let mut at = i;
                while mark[at] != k {
                    path.push(at);
                    mark[at] = k;
                    at = parent[at];
                }
                // Each later path ends below an earlier one: it goes first.
                stack.splice(0..0, path.iter().copied());
            }
            for &i in &stack {
                count[i] += 1;
            }
            self.row_pattern.extend_from_slice(&stack);
        }
        self.row_start.push(self.row_pattern.len());
        self.column_start.clear();
        let mut total = 0;
        for &c in &count {
            self.column_start.push(total);
            total += c;
        }
        self.column_start.push(total);
        // Rows of L in the order the numerical factorisation appends them.
        self.rows.clear();
        self.rows.resize(total, 0);
        self.row_slot.clear();
        let mut next: Vec<usize> = self.column_start[..n].iter().map(|s| s + 1).collect();
        for k in 0..n {
            self.rows[self.column_start[k]] = k;
            for &i in &self.row_pattern[self.row_start[k]..self.row_start[k + 1]] {
                self.rows[next[i]] = k;
                self.row_slot.push(next[i]);
                next[i] += 1;
            }
        }
        self.values.clear();
        self.values.resize(total, 0.0);
        self.scratch.clear();
        self.scratch.resize(n, 0.0);
    }

    /// The elimination tree of `C` (Davis, sec. 4.1): `parent[i]`, `NONE` for a root.
    fn elimination_tree(&self) -> Vec<usize> {
        let n = self.n;
        let mut parent = vec![NONE; n];
        let mut ancestor = vec![NONE; n];
        for k in 0..n {
            for &row in &self.upper[self.upper_start[k]..self.upper_start[k + 1]] {
                let mut i = row;
                while i != NONE && i < k {
                    let up = ancestor[i];
                    ancestor[i] = k;
                    if up == NONE {
                        parent[i] = k;
                    }
                    i = up;
                }
            }
        }
        parent
    }

    /// The number of stored entries of `L` (diagonal included).
    pub(super) fn factor_entries(&self) -> usize {
        self.values.len()
    }

    /// Factorises the column-major `a` (shifted by `−shift` on the diagonal) on the analysed
    /// pattern, which must cover it ([`SparseCholesky::covers`]). `false` when `A − shift·I`
    /// is not (numerically) positive definite.
    pub(super) fn factorise(&mut self, a: &[f64], shift: f64) -> bool {
        let n = self.n;
        let x = &mut self.scratch;
        for k in 0..n {
            let column = n - 1 - k;
            for &i in &self.upper[self.upper_start[k]..self.upper_start[k + 1]] {
                x[i] = a[column * n + (n - 1 - i)];
            }
            let mut d = a[column * n + column] - shift;
            let pattern = self.row_start[k]..self.row_start[k + 1];
            for (&i, &slot) in self.row_pattern[pattern.clone()]
                .iter()
                .zip(&self.row_slot[pattern])
            {
                // L[k, i] = (C[i, k] − Σ_{j<i} L[i, j] L[k, j]) / L[i, i]; the updates of the
                // earlier columns were scattered into x[i] when their rows were done.
                let lki = x[i] / self.values[self.column_start[i]];
                x[i] = 0.0;
                for q in self.column_start[i] + 1..slot {
                    x[self.rows[q]] -= self.values[q] * lki;
                }
                d -= lki * lki;
                self.values[slot] = lki;
            }
            if !(d > 0.0 && d.is_finite()) {
                x.fill(0.0);
                return false;
            }
            self.values[self.column_start[k]] = d.sqrt();
        }
        true
    }

    /// Solves `A x = b` in place with the factor.
    pub(super) fn solve(&self, b: &mut [f64]) {
        let n = self.n;
        b.reverse();
        for j in 0..n {
            let range = self.column_start[j]..self.column_start[j + 1];
            let x = b[j] / self.values[range.start];
            b[j] = x;
            for q in range.start + 1..range.end {
                b[self.rows[q]] -= self.values[q] * x;
            }
        }
        for j in (0..n).rev() {
            let range = self.column_start[j]..self.column_start[j + 1];
            let dot: f64 = (range.start + 1..range.end)
                .map(|q| self.values[q] * b[self.rows[q]])
                .sum();
            b[j] = (b[j] - dot) / self.values[range.start];
        }
        b.reverse();
    }
}
