//! Contact terms summed per link before they are mapped to generalized coordinates.
//!
//! A contact hook gives one term per active pair: a twist gradient and Hessian over the pair's
//! two links. Mapping a term through the links' Jacobians ([`Kinematics::add_term`]) costs
//! `O(depth²)` per link block plus the second-order kinematic term of each link. Where links
//! touch many others (the rotating chains: about 370 hull-pair terms over 17 links per
//! evaluation), the same link blocks were mapped again and again. The map is linear in the
//! terms, so [`LinkSums`] adds the terms' gradients per link and their Hessian blocks per link
//! pair, and maps each link and each link pair once ([`LinkSums::add_to`]).

use crate::kinematics::Kinematics;
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Matrix6, SMatrix, SVector};
use sdrs_contact::pair_map::PairMap;
use sdrs_geometry::twist::Twist;

/// Per-link twist gradients and per-link-pair Hessian blocks of one evaluation's contact terms.
#[derive(Debug, Clone, Default)]
pub(crate) struct LinkSums {
    /// Per link, the summed twist gradient (zero for untouched links).
    gradients: Vec<Twist>,
    /// Per link, the summed difference of the Newton model's twist gradient from the exact
    /// one (zero for untouched links and without a model: see
    /// [`super::ContactHook::anchor_newton_model`]).
    shifts: Vec<Twist>,
    /// The links some term touched, in the order first touched, and per link whether it is
    /// among them.
    touched: Vec<usize>,
    is_touched: Vec<bool>,
    /// The summed 6x6 blocks `(a, b)` with `a ≤ b` (rows of link `a`, columns of link `b`).
    blocks: Vec<([usize; 2], Matrix6<f64>)>,
    /// Where each link pair's block is in `blocks`.
    slots: PairMap<[usize; 2], usize>,
}

impl LinkSums {
    /// Empties the sums for a model of `links` links, keeping the buffers.
    pub(crate) fn clear(&mut self, links: usize) {
        for &i in &self.touched {
            self.gradients[i] = Twist::zeros();
            self.shifts[i] = Twist::zeros();
            self.is_touched[i] = false;
        }
        self.gradients.resize(links, Twist::zeros());
        self.shifts.resize(links, Twist::zeros());
        self.is_touched.resize(links, false);
        self.touched.clear();
        self.blocks.clear();
        self.slots.clear();
    }

    /// Adds `scale` times a pair term over `links`: its twist gradient (12) and, when given, its
    /// Hessian (12 x 12, symmetric).
    pub(crate) fn add(
        &mut self,
        links: [usize; 2],
        gradient: &SVector<f64, 12>,
        hessian: Option<&SMatrix<f64, 12, 12>>,
        scale: f64,
    ) {
        for (b, &i) in links.iter().enumerate() {
            self.touch(i);
            self.gradients[i] += gradient.fixed_rows::<6>(6 * b) * scale;
        }
        let Some(h) = hessian else { return };
        for (b, &lb) in links.iter().enumerate() {
            for (c, &lc) in links.iter().enumerate() {
                // The (c, b) block of a symmetric Hessian is the (b, c) block's transpose: keep
                // the one with rows of the lower link index.
                if lb > lc {
                    continue;
                }
                let next = self.blocks.len();
                let slot = *self.slots.entry([lb, lc]).or_insert(next);
                if slot == next {
                    self.blocks.push(([lb, lc], SMatrix::zeros()));
                }
                add_scaled_block(&mut self.blocks[slot].1, h, [b, c], scale);
            }
        }
    }

    fn touch(&mut self, link: usize) {
        if !self.is_touched[link] {
            self.is_touched[link] = true;
            self.touched.push(link);
        }
    }

    /// Adds `scale` times the difference `shift` (12) of a pair's Newton-model twist gradient
    /// from its exact one, over `links` (the pair's Hessian, added with [`LinkSums::add`], is
    /// then the model's).
    pub(crate) fn add_shift(&mut self, links: [usize; 2], shift: &SVector<f64, 12>, scale: f64) {
        for (b, &i) in links.iter().enumerate() {
            self.touch(i);
            self.shifts[i] += shift.fixed_rows::<6>(6 * b) * scale;
        }
    }

    /// Adds the sums mapped to generalized coordinates at `kin`: `Σ J_iᵀ g_i` to `gradient` and,
    /// when given, `Σ J_aᵀ H_ab J_b` (both triangles) plus every touched link's second-order
    /// kinematic term to `hessian`, as [`Kinematics::add_term`] would for each term; and, when
    /// given, the shifts `Σ J_iᵀ s_i` to `shift`. The second-order terms are those of the
    /// gradient the Hessian belongs to: the Newton model's, `g_i + s_i`.
    pub(crate) fn add_to(
        &self,
        model: &Model,
        kin: &Kinematics,
        gradient: &mut DVector<f64>,
        hessian: Option<&mut DMatrix<f64>>,
        shift: Option<&mut DVector<f64>>,
    ) {
        for &i in &self.touched {
            kin.add_link_gradient(i, &self.gradients[i], gradient);
        }
        if let Some(shift) = shift {
            for &i in &self.touched {
                kin.add_link_gradient(i, &self.shifts[i], shift);
            }
        }
        let Some(hessian) = hessian else { return };
        for ([a, b], block) in &self.blocks {
            kin.add_link_block(kin, *a, *b, block, a != b, hessian);
        }
        for &i in &self.touched {
            let model_gradient = self.gradients[i] + self.shifts[i];
            kin.add_second_order(model, i, &model_gradient, hessian);
        }
    }
}

/// `sum += scale · h[6b.., 6c..]` (the `(b, c)` 6x6 block of `h`), on the column-major slices:
/// nalgebra's strided block view iterates element by element through its iterator.
fn add_scaled_block(
    sum: &mut SMatrix<f64, 6, 6>,
    h: &SMatrix<f64, 12, 12>,
    [b, c]: [usize; 2],
    scale: f64,
) {
    let h = h.as_slice();
    for (k, column) in sum.as_mut_slice().chunks_exact_mut(6).enumerate() {
        let from = &h[(6 * c + k) * 12 + 6 * b..][..6];
        for (s, x) in column.iter_mut().zip(from) {
            *s += scale * x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LinkSums;
    use crate::kinematics::{Kinematics, State};
    use crate::stepper::random_trees::{Noise, assert_matches, random_model};
    use nalgebra::{DMatrix, DVector, SMatrix, SVector};

    /// Many pair terms on random trees, some links in many pairs (and a link paired with
    /// itself): the per-link sums mapped once equal `Kinematics::add_term` term by term.
    #[test]
    fn summed_terms_equal_the_terms_mapped_one_by_one() {
        let mut noise = Noise(0x5851_f42d_4c95_7f2d);
        let mut sums = LinkSums::default();
        for case in 0..40 {
            let links = 1 + noise.pick(10);
            let model = random_model(&mut noise, links, case % 2 == 0, case % 3 == 0);
            let q = DVector::from_fn(model.dof(), |_, _| 0.7 * noise.next());
            let kin = Kinematics::new(&model, &State::new(&model, q).expect("the model's size"));
            let n = model.dof();
            let (mut g_one, mut h_one) = (DVector::zeros(n), DMatrix::zeros(n, n));
            sums.clear(links);
            for _ in 0..3 * links {
                let pair = [noise.pick(links), noise.pick(links)];
                let g = SVector::<f64, 12>::from_fn(|_, _| noise.next());
                let a = SMatrix::<f64, 12, 12>::from_fn(|_, _| noise.next());
                let h = a + a.transpose();
                let scale = 1.0 + noise.next();
                let (gs, hs) = (g * scale, h * scale);
                kin.add_term(&model, pair, &gs, Some(&hs), &mut g_one, Some(&mut h_one));
                sums.add(pair, &g, Some(&h), scale);
            }
            let (mut g_sum, mut h_sum) = (DVector::zeros(n), DMatrix::zeros(n, n));
            sums.add_to(&model, &kin, &mut g_sum, Some(&mut h_sum), None);
            assert_matches(case, "gradients", g_sum.as_slice(), g_one.as_slice());
            assert_matches(case, "Hessians", h_sum.as_slice(), h_one.as_slice());
            // Gradient only: no Hessian blocks are needed.
            let mut g_only = DVector::zeros(n);
            sums.add_to(&model, &kin, &mut g_only, None, None);
            assert_eq!(g_only, g_sum, "case {case}");
        }
    }
}
