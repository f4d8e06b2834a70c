//! Force anchors: a Newton model of the plane barrier that is not fooled by deep starts.
//!
//! Newton's method on a barrier converges slowly from a configuration that presses a vertex
//! far deeper than its equilibrium gap: `P_s(x) ≈ s⁴/x⁵` there, so the Newton step in `x` is
//! `x/6` whatever the load, and the vertex's force (`∝ x⁻⁶`) falls only about 2.5x per
//! iteration. A foot that lands, or an extrapolated Newton start that pushes it into the
//! ground, costs a trotting robot five or more iterations this way.
//!
//! Primal-dual interior-point methods avoid this by keeping each constraint's force as a
//! variable of its own. The same iteration, with the forces eliminated, is Newton's method on
//! a model in which every active vertex's barrier term `P_s(q)` is replaced by its quadratic
//! expansion at the gap `x̃ = Q(λ)` its force estimate `λ` implies (`Q` inverts `−P_s'`:
//! [`crate::barrier::gap_at_force`]):
//!
//! ```text
//! m(q) = P(x̃) + P'(x̃)(q − x̃) + ½P''(x̃)(q − x̃)²,   m'(q) = P'(x̃) + P''(x̃)(q − x̃),   m'' = P''(x̃)
//! ```
//!
//! After a step the estimate becomes the model's force at the new gap, `λ ← −m'(q)` (the dual
//! Newton update, [`Update::Step`]). The first iteration of a time step is anchored at the
//! estimates of the last step's solution, carried over unchanged ([`Update::Carry`]): a foot
//! pressed 100x too deep is expected to push with about its old force, and one step takes it
//! back. The model is the barrier itself where `x̃ = q`, so the
//! iteration is Newton's near the solution and converges as fast.
//!
//! `−P'` is convex, so `−m'(q) ≤ −P'(q)` and `x̃ ≥ q`: the model is never stiffer than the
//! barrier at the current gap. A vertex that the model predicts to separate (`−m'(q) ≤ 0`)
//! would lose its force for good; its estimate falls at most [`FALL`]-fold per iteration
//! instead (the fraction-to-the-boundary rule of interior-point methods).
//!
//! At a solve's start, a vertex that has left the support keeps its estimate
//! ([`Proposal::beyond_support`]); when the whole pair is beyond the support, it is modelled at
//! the plane the estimates were last proposed at. After the first step it loses it: the model
//! then predicts it separates, as it does wherever the barrier is zero. An extrapolated start
//! lifts a trotting robot's stance foot a fraction of a millimetre, beyond a support of a tenth
//! of one; without its estimate Newton's first direction does not know the ground is there,
//! and the line search cuts it to a thousandth (two such iterations per step on A1's trot).
//!
//! The model only chooses Newton's direction: the energy, the gradient that decides convergence
//! and the line search are the barrier's own, so the solution of a step does not change.

use crate::barrier::{barrier, gap_at_force_from};
use crate::estimates::Estimates;
use nalgebra::Vector4;

/// The most a force estimate may fall in one update.
const FALL: f64 = 10.0;

/// The relative accuracy of an estimate's gap: round-off, so that the model, and with it
/// the point inside the tolerance a step stops at, is a smooth function of the step's inputs
/// (a gap to 1e-9 changed with the number of inner iterations, and central differences of
/// losses through rollouts then missed their adjoint gradients in five gradient tests;
/// Newton converges quadratically, so round-off costs about one more iteration).
const GAP_TOLERANCE: f64 = 4.0 * f64::EPSILON;

/// A vertex of the pair: its side (0 for the pair's first hull, 1 for the second) in the high
/// bits and its index in that hull, so that visiting each side's vertices in index order
/// visits keys in increasing order.
pub(super) fn key(side: usize, vertex: usize) -> u64 {
    ((side as u64) << 32) | vertex as u64
}

/// The side and vertex index of a [`key`].
pub(super) fn side_and_vertex(key: u64) -> (usize, usize) {
    ((key >> 32) as usize, (key & u64::from(u32::MAX)) as usize)
}

/// One vertex's force estimate `λ`, the gap `x̃ = Q(λ)` it implies and the barrier's
/// curvature `P''(x̃)` there.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Anchor {
    key: u64,
    force: f64,
    gap: f64,
    curvature: f64,
}

/// The force estimates of one pair's active vertices: those of the accepted iterate
/// (`committed`) and those an evaluation proposes for its configuration (`proposed`), which
/// become the committed ones when the configuration is accepted ([`Anchors::commit`]), with
/// the plane each set was proposed at (the plane a pair gone beyond the support is modelled
/// at).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Anchors {
    estimates: Estimates<Anchor>,
    plane: Estimates<Vector4<f64>>,
}

/// The model's `m'(q)` and `m''` for one vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ModelTerm {
    pub d1: f64,
    pub d2: f64,
}

/// How an evaluation's estimates follow from the committed ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// The configuration is a step of the solver from the committed iterate: each estimate
    /// becomes the committed model's force at the new gap.
    Step,
    /// The configuration starts a new solve (a time step's first iterate): the committed
    /// estimates are kept as they are.
    Carry,
}

/// Visits the committed anchors in key order while an evaluation proposes new ones.
pub(super) struct Proposal<'a> {
    committed: &'a [Anchor],
    cursor: usize,
    proposed: &'a mut Vec<Anchor>,
    support: f64,
    update: Update,
}

impl Anchors {
    /// Makes the estimates last proposed the committed ones: the configuration they were
    /// proposed at is the solver's new iterate.
    pub fn commit(&mut self) {
        self.estimates.commit();
        self.plane.commit();
    }

    /// Forgets every estimate: the next model is the barrier itself.
    pub fn clear(&mut self) {
        self.estimates.clear();
        self.plane.clear();
    }

    /// The plane the committed estimates were proposed at, if there are any.
    pub(super) fn committed_plane(&self) -> Option<Vector4<f64>> {
        self.plane
            .committed
            .first()
            .copied()
            .filter(|_| !self.estimates.committed.is_empty())
    }

    /// Starts the proposal of an evaluation with support `support` at the plane `plane`;
    /// vertices within the support must be visited in increasing [`key`] order.
    pub(super) fn propose(
        &mut self,
        support: f64,
        update: Update,
        plane: Vector4<f64>,
    ) -> Proposal<'_> {
        let (_, planes) = self.plane.start();
        planes.push(plane);
        let (committed, proposed) = self.estimates.start();
        Proposal {
            committed,
            cursor: 0,
            proposed,
            support,
            update,
        }
    }

    /// Proposes no estimate: the pair is beyond the support and none of its vertices is
    /// modelled.
    pub(super) fn propose_none(&mut self) {
        self.plane.start();
        self.estimates.start();
    }
}

impl Proposal<'_> {
    /// The model term of vertex `key` at gap `q` (inside the support), and its new estimate
    /// recorded. A vertex without an estimate gets the barrier's own term.
    pub(super) fn term(&mut self, key: u64, q: f64) -> ModelTerm {
        let s = self.support;
        while self.cursor < self.committed.len() && self.committed[self.cursor].key < key {
            self.cursor += 1;
        }
        let old = self
            .committed
            .get(self.cursor)
            .filter(|anchor| anchor.key == key);
        let Some(old) = old else {
            let (_, p1, p2) = barrier(q, s).unwrap_or((0.0, 0.0, 0.0));
            self.proposed.push(Anchor {
                key,
                force: -p1,
                gap: q,
                curvature: p2,
            });
            return ModelTerm { d1: p1, d2: p2 };
        };
        let anchor = match self.update {
            Update::Carry => *old,
            Update::Step => {
                let force = (old.force - old.curvature * (q - old.gap)).max(old.force / FALL);
                let (gap, _, curvature) = gap_at_force_from(force, s, old.gap, GAP_TOLERANCE);
                Anchor {
                    key,
                    force,
                    gap,
                    curvature,
                }
            }
        };
        self.proposed.push(anchor);
        anchor.term(q)
    }

    /// The model terms of the vertices beyond the support at a solve's start: each committed
    /// estimate no [`Proposal::term`] has visited is looked up with `at` (its gap `q` and what
    /// `add` needs, or `None` if the vertex is gone) and carried as it is, its term handed to
    /// `add`: a foot the start lifts off the ground is expected to press with its last force,
    /// so Newton's first direction knows the ground is there. After a step these estimates
    /// are dropped, as the dual update would drop them: `−P'` is convex and zero at the
    /// support's edge, so the model's force `λ − P''(x̃)(q − x̃)` is not positive anywhere
    /// beyond it. The proposal is finished: its estimates are put in key order.
    pub(super) fn beyond_support<T>(
        self,
        mut at: impl FnMut(u64) -> Option<(f64, T)>,
        mut add: impl FnMut(T, ModelTerm),
    ) {
        if self.update == Update::Carry {
            let visited = self.proposed.len();
            let mut cursor = 0;
            for old in self.committed {
                while cursor < visited && self.proposed[cursor].key < old.key {
                    cursor += 1;
                }
                if cursor < visited && self.proposed[cursor].key == old.key {
                    continue;
                }
                if let Some((q, item)) = at(old.key) {
                    self.proposed.push(*old);
                    add(item, old.term(q));
                }
            }
        }
        self.proposed.sort_unstable_by_key(|a| a.key);
    }
}

impl Anchor {
    /// The model's `m'(q)` and `m''` at gap `q`.
    fn term(&self, q: f64) -> ModelTerm {
        ModelTerm {
            d1: -self.force + self.curvature * (q - self.gap),
            d2: self.curvature,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors_at(gaps: &[(u64, f64)], s: f64) -> Anchors {
        let mut anchors = Anchors::default();
        let mut proposal = anchors.propose(s, Update::Step, Vector4::zeros());
        for &(k, q) in gaps {
            proposal.term(k, q);
        }
        anchors.commit();
        anchors
    }

    /// Without an estimate, and at the gap the estimate implies, the model is the barrier.
    #[test]
    fn the_model_is_the_barrier_where_the_estimate_is_the_force() {
        let s = 0.01;
        let mut anchors = Anchors::default();
        let mut proposal = anchors.propose(s, Update::Step, Vector4::zeros());
        let (_, d1, d2) = barrier(0.002, s).unwrap();
        assert_eq!(proposal.term(key(0, 3), 0.002), ModelTerm { d1, d2 });
        let mut anchors = anchors_at(&[(key(0, 3), 0.002)], s);
        let term = anchors
            .propose(s, Update::Step, Vector4::zeros())
            .term(key(0, 3), 0.002);
        assert!((term.d1 - d1).abs() <= 1e-12 * d1.abs());
        assert!((term.d2 - d2).abs() <= 1e-12 * d2);
    }

    /// 1-D: a load `F` on a barrier vertex anchored at its equilibrium gap (carried over from
    /// the last time step), started 10x too deep. The barrier's own Newton step climbs by
    /// about `x/6`; the model's lands on the equilibrium.
    #[test]
    fn a_deep_start_returns_to_equilibrium_in_one_step() {
        let s = 0.01;
        let equilibrium = 0.003;
        let (_, d1, _) = barrier(equilibrium, s).unwrap();
        let load = -d1;
        let deep = equilibrium / 10.0;
        let (_, p1, p2) = barrier(deep, s).unwrap();
        let barrier_step = -(load + p1) / p2;
        assert!(barrier_step < 0.2 * deep);
        let mut anchors = anchors_at(&[(key(1, 0), equilibrium)], s);
        let m = anchors
            .propose(s, Update::Carry, Vector4::zeros())
            .term(key(1, 0), deep);
        let model_step = -(load + m.d1) / m.d2;
        assert!(
            (deep + model_step - equilibrium).abs() < 1e-12,
            "{}",
            deep + model_step
        );
    }

    /// The estimate follows the model's force, never below the barrier's gap, and falls at
    /// most `FALL`-fold when the model predicts separation.
    #[test]
    fn estimates_follow_the_model_and_fall_boundedly() {
        let s = 0.01;
        let mut anchors = anchors_at(&[(key(0, 1), 0.002), (key(1, 7), 0.004)], s);
        let mut proposal = anchors.propose(s, Update::Step, Vector4::zeros());
        // Vertex 0/1 pressed deeper, 1/7 lifted to the edge of the support.
        proposal.term(key(0, 1), 0.001);
        proposal.term(key(1, 7), 0.0099);
        // A new vertex.
        proposal.term(key(1, 9), 0.005);
        anchors.commit();
        let c = &anchors.estimates.committed;
        assert_eq!(c.len(), 3);
        assert!(c[0].gap > 0.001 && c[0].gap < 0.002, "{:?}", c[0]);
        let (_, old, _) = barrier(0.004, s).unwrap();
        assert!((c[1].force - (-old / FALL)).abs() <= 1e-12 * c[1].force);
        assert_eq!(c[2].gap, 0.005);
    }

    /// Vertices beyond the support: at a solve's start each keeps its estimate, with the
    /// anchored term at its gap; visited vertices are not
    /// looked up again, and the proposal ends in key order. After a step none is kept: the
    /// model's force is not positive anywhere beyond the support, as its convexity says.
    #[test]
    fn vertices_beyond_the_support_keep_their_estimates_at_a_solves_start_only() {
        let s = 0.01;
        let committed = [(key(0, 2), 0.004), (key(1, 0), 0.003), (key(1, 5), 0.0099)];
        let mut anchors = anchors_at(&committed, s);
        let old = anchors.estimates.committed.clone();
        // Vertex 1/0 is visited within the support, the others are not (0/2 is past the edge,
        // 1/5 on the wrong side of a stale plane).
        let mut proposal = anchors.propose(s, Update::Carry, Vector4::zeros());
        proposal.term(key(1, 0), 0.003);
        let mut looked_up = Vec::new();
        let mut terms = Vec::new();
        proposal.beyond_support(
            |k| {
                looked_up.push(k);
                Some((if k == key(0, 2) { 1.5 * s } else { -0.1 }, k))
            },
            |k, term| terms.push((k, term)),
        );
        assert_eq!(looked_up, vec![key(0, 2), key(1, 5)]);
        assert_eq!(
            terms,
            vec![
                (key(0, 2), old[0].term(1.5 * s)),
                (key(1, 5), old[2].term(-0.1))
            ]
        );
        let keys: Vec<u64> = anchors.estimates.proposed.iter().map(|a| a.key).collect();
        assert_eq!(keys, vec![key(0, 2), key(1, 0), key(1, 5)]);
        for a in &old {
            assert!(a.term(s).d1 >= 0.0, "the model separates {a:?} at the edge");
        }
        anchors.commit();
        let proposal = anchors.propose(s, Update::Step, Vector4::zeros());
        proposal.beyond_support(|k| Some((s, k)), |k, _| panic!("{k} kept after a step"));
        assert!(anchors.estimates.proposed.is_empty());
    }
}
