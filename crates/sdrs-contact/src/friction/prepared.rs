//! What the friction inner problem of one frame keeps across its solves.

use super::solve::scaled_inverse;
use super::{FrictionFrame, Lagged, PlaneFriction, rotation_scaling};
use nalgebra::{Matrix3, Vector2, Vector3};

/// The parts of the inner problem that depend only on the step-t frame and the friction
/// settings: the lagged points, their rotation scaling and total weight, and the inverses of
/// the three least-squares starts. A time step solves one frame many times (every Newton
/// iteration and line-search trial moves the step-(t+1) poses, and with them only the slips),
/// so these are computed once per frame. The slips of the last solve are kept beside them for
/// [`PlaneFriction::starting_velocity`].
#[derive(Debug, Clone)]
pub(super) struct Prepared {
    friction: PlaneFriction,
    /// The [`FrictionFrame::id`] of the frame prepared.
    frame: u64,
    pub lagged: Vec<Lagged>,
    /// [`rotation_scaling`] of the points.
    pub dm: Matrix3<f64>,
    /// `Σ a_m`: the gradient scale of the convergence test.
    pub scale: f64,
    /// `M` of [`Prepared::least_squares_velocity`] for all points, A's and B's (`None` where
    /// the set has no point).
    least_squares: [Option<Matrix3<f64>>; 3],
    /// The slips of the last solve in this frame (empty before the first).
    slip: Vec<Vector2<f64>>,
}

/// The point sets of the least-squares starts: both bodies, A, B.
const SETS: [Option<usize>; 3] = [None, Some(0), Some(1)];

impl Prepared {
    /// The prepared problem of `frame` under `friction` kept in `kept`, prepared anew when it
    /// belongs to another frame or other settings.
    pub fn for_frame<'c>(
        kept: &'c mut Option<Box<Prepared>>,
        friction: &PlaneFriction,
        frame: &FrictionFrame,
    ) -> &'c mut Prepared {
        if kept
            .as_ref()
            .is_some_and(|k| k.frame != frame.id() || k.friction != *friction)
        {
            *kept = None;
        }
        kept.get_or_insert_with(|| Box::new(Self::new(friction, frame)))
    }

    fn new(friction: &PlaneFriction, frame: &FrictionFrame) -> Self {
        let lagged = friction.lagged(frame);
        let dm = rotation_scaling(&lagged);
        let least_squares = SETS.map(|body| {
            let on_body: Vec<&Lagged> = lagged.iter().filter(|l| in_set(l, body)).collect();
            (!on_body.is_empty()).then(|| {
                let h: Matrix3<f64> = on_body
                    .iter()
                    .map(|l| l.dw_dz().transpose() * l.dw_dz() * l.weight)
                    .sum();
                scaled_inverse(&h, &dm)
            })
        });
        Self {
            friction: friction.clone(),
            frame: frame.id(),
            scale: lagged.iter().map(|l| l.weight).sum(),
            lagged,
            dm,
            least_squares,
            slip: Vec::new(),
        }
    }

    /// The least-squares plane velocity of point set `set` (see [`SETS`]) under the slips `d`:
    /// the `z` minimising `Σ a_m |w_m|²` over the set is `M r(d)`, with `M` the pseudo-inverse
    /// of `Σ a_m J_mᵀJ_m` (the minimum-norm solution where the rotation is undetermined, taken
    /// in the scaled variables of [`Prepared::dm`]) and `r(d) = −Σ a_m J_mᵀ d_m` linear in the
    /// slips. `None` when the set has no point.
    pub fn least_squares_velocity(&self, set: usize, d: &[Vector2<f64>]) -> Option<Vector3<f64>> {
        let inverse = self.least_squares[set]?;
        let r: Vector3<f64> = self
            .lagged
            .iter()
            .zip(d)
            .filter(|(l, _)| in_set(l, SETS[set]))
            .map(|(l, d)| -(l.dw_dz().transpose() * d) * l.weight)
            .sum();
        Some(inverse * r)
    }

    /// How many point sets [`Prepared::least_squares_velocity`] knows.
    pub const SETS: usize = SETS.len();

    /// The slips of the last solve in this frame, if there was one.
    pub fn previous_slips(&self) -> Option<&[Vector2<f64>]> {
        (self.slip.len() == self.lagged.len() && !self.slip.is_empty()).then_some(&self.slip[..])
    }

    /// Keeps the slips of a solve for the next one.
    pub fn keep_slips(&mut self, slip: &[Vector2<f64>]) {
        self.slip.clear();
        self.slip.extend_from_slice(slip);
    }
}

fn in_set(l: &Lagged, body: Option<usize>) -> bool {
    body.is_none_or(|b| b == l.body)
}
