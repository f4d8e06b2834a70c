//! Dense factorisations in place on a column-major `n x n` buffer: Cholesky `A = L Lᵀ` (Golub
//! & Van Loan, *Matrix Computations*, 4th ed., Alg. 4.2.2, the gaxpy form) and LU with partial
//! pivoting `P A = L U` (Alg. 3.4.1), with their triangular solves.
//!
//! The Cholesky skips zero multipliers `L[j, k]`: a block-diagonal Hessian (free bodies that do
//! not touch) then costs about `Σ_j (block size)·(n − j)` instead of `n³/3`.

/// Factorises the lower triangle of the column-major `n x n` matrix `a` in place into `L`
/// (`A = L Lᵀ`); the strict upper triangle is neither read nor written. `false` when `A` is
/// not (numerically) positive definite: a pivot is not positive and finite.
pub(super) fn cholesky_in_place(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let (left, right) = a.split_at_mut(j * n);
        let column = &mut right[..n];
        // A[j.., j] − Σ_k L[j.., k] L[j, k], over the columns k < j already factorised, two
        // at a time (half the loads and stores of the column being updated).
        let mut pending: Option<usize> = None;
        for k in 0..j {
            if left[k * n + j] == 0.0 {
                continue;
            }
            let Some(first) = pending.take() else {
                pending = Some(k);
                continue;
            };
            let (m1, m2) = (left[first * n + j], left[k * n + j]);
            let l1 = &left[first * n + j..(first + 1) * n];
            let l2 = &left[k * n + j..(k + 1) * n];
            for ((x, a), b) in column[j..].iter_mut().zip(l1).zip(l2) {
                *x -= m1 * a + m2 * b;
            }
        }
        if let Some(k) = pending {
            let multiplier = left[k * n + j];
            let done = &left[k * n + j..(k + 1) * n];
            for (x, l) in column[j..].iter_mut().zip(done) {
                *x -= multiplier * l;
            }
        }
        let pivot = column[j];
        if !(pivot > 0.0 && pivot.is_finite()) {
            return false;
        }
        let root = pivot.sqrt();
        column[j] = root;
        let scale = 1.0 / root;
        for x in &mut column[j + 1..] {
            *x *= scale;
        }
    }
    true
}

/// Solves `L Lᵀ x = b` in place (`b` of length `n`) with the factor of [`cholesky_in_place`].
pub(super) fn cholesky_solve(l: &[f64], n: usize, b: &mut [f64]) {
    for j in 0..n {
        let column = &l[j * n..(j + 1) * n];
        let x = b[j] / column[j];
        b[j] = x;
        if x != 0.0 {
            for (y, l) in b[j + 1..].iter_mut().zip(&column[j + 1..]) {
                *y -= l * x;
            }
        }
    }
    for j in (0..n).rev() {
        let column = &l[j * n..(j + 1) * n];
        let dot: f64 = column[j + 1..]
            .iter()
            .zip(&b[j + 1..])
            .map(|(l, x)| l * x)
            .sum();
        b[j] = (b[j] - dot) / column[j];
    }
}

/// Factorises the column-major `n x n` matrix `a` in place into `P A = L U` (unit lower `L`
/// below the diagonal, `U` on and above it); `pivots[k]` is the row swapped with row `k` at
/// step `k`. `false` when a pivot is zero or not finite (`A` singular).
pub(super) fn lu_in_place(a: &mut [f64], n: usize, pivots: &mut [usize]) -> bool {
    for k in 0..n {
        let column = &a[k * n..(k + 1) * n];
        let (offset, largest) =
            column[k..]
                .iter()
                .enumerate()
                .fold((0, -1.0), |(at, best), (i, v)| {
                    if v.abs() > best {
                        (i, v.abs())
                    } else {
                        (at, best)
                    }
                });
        let p = k + offset;
        pivots[k] = p;
        if !(largest > 0.0 && largest.is_finite()) {
            return false;
        }
        if p != k {
            for c in 0..n {
                a.swap(c * n + k, c * n + p);
            }
        }
        let (left, right) = a.split_at_mut((k + 1) * n);
        let column = &mut left[k * n..];
        let scale = 1.0 / column[k];
        for x in &mut column[k + 1..] {
            *x *= scale;
        }
        let column = &left[k * n..];
        for c in 0..n - k - 1 {
            let target = &mut right[c * n..(c + 1) * n];
            let u = target[k];
            if u != 0.0 {
                for (x, l) in target[k + 1..].iter_mut().zip(&column[k + 1..]) {
                    *x -= l * u;
                }
            }
        }
    }
    true
}

/// Solves `A x = b` in place with the factor of [`lu_in_place`].
pub(super) fn lu_solve(lu: &[f64], n: usize, pivots: &[usize], b: &mut [f64]) {
    for (k, &p) in pivots.iter().enumerate() {
        b.swap(k, p);
    }
    for j in 0..n {
        let x = b[j];
        if x != 0.0 {
            let column = &lu[j * n..(j + 1) * n];
            for (y, l) in b[j + 1..].iter_mut().zip(&column[j + 1..]) {
                *y -= l * x;
            }
        }
    }
    for j in (0..n).rev() {
        let column = &lu[j * n..(j + 1) * n];
        let x = b[j] / column[j];
        b[j] = x;
        for (y, u) in b[..j].iter_mut().zip(&column[..j]) {
            *y -= u * x;
        }
    }
}
