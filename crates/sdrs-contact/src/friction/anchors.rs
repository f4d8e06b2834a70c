//! Force anchors for friction: the Newton model of [`crate::plane::Anchors`] for the damping
//! terms `a √(|w|² + ε_v)`, for the first iteration of a time step.
//!
//! A sticking foot's term is nearly a kink: its curvature is `a/√ε_v` at `w = 0` and falls
//! like `1/|w|` beyond. From an iterate where the foot slips, Newton's model sees almost no
//! cost in slipping further and steps across the kink by orders of magnitude; the line search
//! then cuts the step to the kink. A time step's Newton start is such an iterate whenever the
//! step before moved the foot. So the first iteration of a step takes each point's friction
//! force from the last step's solution, as the ratio `r = F/a` (`|r| < 1`), and replaces the
//! term in Newton's model by its quadratic expansion at the slip that ratio implies,
//! `w̄ = √ε_v r/√(1 − |r|²)`:
//!
//! ```text
//! m'(w) = a (r + C (w − w̄)),   m'' = a C,   C = (I − r rᵀ)/ρ̄,   ρ̄ = √ε_v/√(1 − |r|²)
//! ```
//!
//! A foot that stuck is expected to stick, one that slid to slide at its old speed.
//!
//! Later iterations use the term itself ([`Update::Step`] proposes each point's own ratio).
//! Updating the ratios as the barrier's forces are updated (`r ← r + C (w − w̄)`, the dual
//! Newton step) was tried and doubled the iterations of the A1 and Solo-12 trots: a sliding
//! point's ratio barely moves under it (its radial curvature is `(1 − |r|²)/ρ̄`), so sliding
//! points converged linearly, and a sticking ratio leaves the unit disc after any step.
//! Ratios are kept as world vectors, so that they carry over to the next step's frame, whose
//! in-plane basis is another.

use super::Term;
use crate::estimates::Estimates;
use nalgebra::{Matrix2, SMatrix, Vector2, Vector3};

pub use crate::plane::Update;

/// The key of a pressed point: its body (0 or 1) in the high bits and its vertex index.
pub(super) fn key(body: usize, vertex: usize) -> u64 {
    ((body as u64) << 32) | vertex as u64
}

/// One point's force ratio `r = F/a`, in world axes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ratio {
    key: u64,
    ratio: Vector3<f64>,
}

/// The force ratios of one pair's pressed points: those of the accepted iterate
/// (`committed`) and those the last evaluation proposes (`proposed`), as
/// [`crate::plane::Anchors`] keeps the barrier's forces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrictionAnchors(Estimates<Ratio>);

impl FrictionAnchors {
    /// Makes the last proposed ratios the committed ones.
    pub fn commit(&mut self) {
        self.0.commit();
    }

    /// Forgets every ratio: the next model is the friction itself.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Starts the proposal of an evaluation in the frame with in-plane basis `basis` and
    /// velocity smoothing `epsilon`.
    pub(super) fn propose(
        &mut self,
        basis: SMatrix<f64, 3, 2>,
        epsilon: f64,
        update: Update,
    ) -> Proposal<'_> {
        let (committed, proposed) = self.0.start();
        Proposal {
            committed,
            proposed,
            basis,
            epsilon,
            update,
        }
    }
}

/// The committed ratios, read while an evaluation proposes new ones.
pub(super) struct Proposal<'a> {
    committed: &'a [Ratio],
    proposed: &'a mut Vec<Ratio>,
    basis: SMatrix<f64, 3, 2>,
    epsilon: f64,
    update: Update,
}

impl Proposal<'_> {
    /// The model term of point `key` (weight `a`) at relative slip `w`, its new ratio recorded:
    /// at the start of a solve ([`Update::Carry`]) the term expanded at its committed ratio,
    /// else (and without a ratio) the friction's own term, whose ratio `w/ρ` is recorded.
    pub(super) fn term(&mut self, key: u64, a: f64, w: &Vector2<f64>) -> Term {
        let carried = match self.update {
            Update::Carry => self
                .committed
                .binary_search_by_key(&key, |r| r.key)
                .ok()
                .map(|i| self.basis.transpose() * self.committed[i].ratio)
                .filter(|r| r.norm() < 1.0),
            Update::Step => None,
        };
        let ratio = carried.unwrap_or_else(|| self.own_ratio(w));
        self.proposed.push(Ratio {
            key,
            ratio: self.basis * ratio,
        });
        let rho = (w.norm_squared() + self.epsilon).sqrt();
        if carried.is_none() {
            return Term {
                rho,
                gradient: ratio * a,
                curvature: (Matrix2::identity() - ratio * ratio.transpose()) * (a / rho),
            };
        }
        let (anchor, curvature) = self.anchor(&ratio);
        Term {
            rho,
            gradient: (ratio + curvature * (w - anchor)) * a,
            curvature: curvature * a,
        }
    }

    /// Records the ratio of the friction's own term for point `key` at relative slip `w`.
    pub(super) fn record_own(&mut self, key: u64, w: &Vector2<f64>) {
        let ratio = self.own_ratio(w);
        self.proposed.push(Ratio {
            key,
            ratio: self.basis * ratio,
        });
    }

    /// The ratio `w/ρ` of the friction's own term at slip `w`.
    fn own_ratio(&self, w: &Vector2<f64>) -> Vector2<f64> {
        w / (w.norm_squared() + self.epsilon).sqrt()
    }

    /// The slip `w̄` a ratio implies and the curvature `C` of `√(|w|² + ε_v)` there.
    fn anchor(&self, r: &Vector2<f64>) -> (Vector2<f64>, Matrix2<f64>) {
        let rho = self.epsilon.sqrt() / (1.0 - r.norm_squared()).sqrt();
        (r * rho, (Matrix2::identity() - r * r.transpose()) / rho)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basis() -> SMatrix<f64, 3, 2> {
        SMatrix::<f64, 3, 2>::new(1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    }

    /// The friction's own term, `a √(|w|² + ε)` differentiated.
    fn own(a: f64, w: &Vector2<f64>, epsilon: f64) -> (Vector2<f64>, Matrix2<f64>) {
        let rho = (w.norm_squared() + epsilon).sqrt();
        (
            w * (a / rho),
            (Matrix2::identity() / rho - w * w.transpose() / rho.powi(3)) * a,
        )
    }

    /// Without a ratio, in later iterations, and at the slip a carried ratio implies, the
    /// model is the friction's term.
    #[test]
    fn the_model_is_the_term_where_the_ratio_is_its_own() {
        let (a, eps) = (2.0, 1e-10);
        let w = Vector2::new(3e-5, -1e-5);
        let (g, h) = own(a, &w, eps);
        let close = |t: Term| {
            assert!(
                (t.gradient - g).norm() <= 1e-9 * g.norm(),
                "{:?}",
                t.gradient
            );
            assert!(
                (t.curvature - h).norm() <= 1e-9 * h.norm(),
                "{:?}",
                t.curvature
            );
        };
        let mut anchors = FrictionAnchors::default();
        close(
            anchors
                .propose(basis(), eps, Update::Carry)
                .term(key(0, 4), a, &w),
        );
        anchors.commit();
        close(
            anchors
                .propose(basis(), eps, Update::Carry)
                .term(key(0, 4), a, &w),
        );
        anchors.commit();
        let elsewhere = Vector2::new(-1e-3, 0.0);
        let (g, h) = own(a, &elsewhere, eps);
        let t = anchors
            .propose(basis(), eps, Update::Step)
            .term(key(0, 4), a, &elsewhere);
        assert!((t.gradient - g).norm() <= 1e-12 * g.norm());
        assert!((t.curvature - h).norm() <= 1e-12 * h.norm());
    }

    /// 1-D: a foot that stuck in the last step (ratio 0.4 against a push of `0.4 a`), at a
    /// start that slips 100 smoothing widths: Newton on the term itself steps far past the
    /// sticking slip; the model anchored at the carried ratio lands on it.
    #[test]
    fn a_sticking_foot_is_kept_sticking() {
        let (a, eps) = (1.0, 1e-10);
        let push = Vector2::new(0.4 * a, 0.0);
        let sticking = Vector2::new(1e-5 * 0.4 / (1.0f64 - 0.16).sqrt(), 0.0);
        let mut anchors = FrictionAnchors::default();
        anchors
            .propose(basis(), eps, Update::Step)
            .term(key(1, 0), a, &sticking);
        anchors.commit();
        let slipping = Vector2::new(1e-3, 0.0);
        let (g, h) = own(a, &slipping, eps);
        let newton = slipping - h.try_inverse().unwrap() * (g - push);
        assert!(newton.x < -1e-3, "Newton on the term: {newton:?}");
        let t = anchors
            .propose(basis(), eps, Update::Carry)
            .term(key(1, 0), a, &slipping);
        let model = slipping - t.curvature.try_inverse().unwrap() * (t.gradient - push);
        assert!(
            (model - sticking).norm() < 1e-12,
            "{model:?} vs {sticking:?}"
        );
    }

    /// Ratios carry over to another in-plane basis through world axes.
    #[test]
    fn ratios_follow_the_frame() {
        let (a, eps) = (1.0, 1e-10);
        let mut anchors = FrictionAnchors::default();
        let slip = Vector2::new(2e-5, 0.0);
        anchors
            .propose(basis(), eps, Update::Step)
            .term(key(0, 1), a, &slip);
        anchors.commit();
        // The same world slip in a basis turned by 90° about the normal.
        let turned = SMatrix::<f64, 3, 2>::new(0.0, -1.0, 1.0, 0.0, 0.0, 0.0);
        let there = Vector2::new(0.0, -2e-5);
        let t = anchors
            .propose(turned, eps, Update::Carry)
            .term(key(0, 1), a, &there);
        let (g, _) = own(a, &there, eps);
        assert!(
            (t.gradient - g).norm() <= 1e-9 * g.norm(),
            "{:?} vs {g:?}",
            t.gradient
        );
    }
}
