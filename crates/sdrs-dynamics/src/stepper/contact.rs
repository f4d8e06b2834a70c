//! Contact as the stepper sees it: the [`ContactHook`] trait, and [`SdrsContact`], the SDRS
//! hull model (plane barrier and plane friction between convex hulls on different links).
//!
//! A hook owns whatever a contact model needs per scene (shapes, broad phase, warm starts,
//! lagged friction data); the stepper only asks it for the energy of a configuration, its
//! derivatives in generalized coordinates, and, for the backward pass, the per-pair twist
//! derivatives. Mesh-based models (long-range, IPC) implement the same trait over the links'
//! triangle meshes ([`crate::Link::mesh`]). [`crate::Simulator::new`] builds the hook that
//! [`super::ContactSettings`] selects; every hook evaluates its pairs through one parallel,
//! deterministic path (each pair with its own warm start, sums in pair order), reports the
//! active contacts of a configuration ([`ContactHook::contacts`]) and can be cloned.

use super::StepTimings;
use super::active::ActiveContact;
use super::candidates::{CandidateList, HullSphere};
use super::link_sums::LinkSums;
use super::pairs::{HULL_PAIRS, each_pair, for_each_stored_pair};
use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, MovedPoses, State};
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Isometry3, SMatrix};
use sdrs_contact::distance::Closest;
use sdrs_contact::friction::{FrictionCache, FrictionFrame, PlaneFriction};
use sdrs_contact::pair_map::PairMap;
use sdrs_contact::plane::{Update, gap_along};
use sdrs_contact::{ContactModel, Order, PairContact, PairOutcome, PlaneBarrier, PlaneCache};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::broad_phase::{BroadPhase, Proxy};
use sdrs_geometry::gjk::{Proximity, distance};
use sdrs_geometry::twist::{Matrix12, Vector12};
use std::collections::BTreeMap;
use std::time::Instant;

/// The largest fraction of a hull pair's gap one Newton step may close before its line search
/// starts ([`ContactHook::step_bound`]).
const GAP_CLOSING: f64 = 0.5;

/// The fraction of a Newton step at which [`ContactHook::step_bound`] samples the friction
/// pairs' slips for the tangent of their motion ([`PlaneFriction::kink_along`]): small enough
/// for a tangent, far from round-off.
const KINK_TANGENT: f64 = 1.0 / 65536.0;

/// The contact energy of a configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactEnergy {
    /// The energy (as it enters the objective, stiffness included).
    pub value: f64,
    /// Pairs with a non-zero normal-contact energy.
    pub active_pairs: usize,
}

/// One pair's contribution at a step's solution, for the backward pass.
#[derive(Debug, Clone, PartialEq)]
pub struct PairTerm {
    /// The two links.
    pub links: [usize; 2],
    /// Gradient with respect to the two links' twists (as in the objective).
    pub gradient: Vector12,
    /// Hessian with respect to the two links' twists.
    pub hessian: Matrix12,
    /// `∂gradient/∂ξ^t` with respect to the two links' step-t twists (lagged terms).
    pub step_t: Matrix12,
    /// Derivatives of the gradient with respect to local hull vertices.
    pub vertices: Vec<PairVertex>,
    /// For the pair's friction, `force_scale_mixed` of its lagged evaluation
    /// (`sdrs_contact::friction::LaggedContact`): how `gradient` changes when every normal
    /// force of its frame scales by `1 + s`, per unit `s`. `None` for the pair's normal
    /// contact. The physical parameters' blocks tell the two apart
    /// ([`super::PhysicalParameter`]).
    pub friction: Option<Vector12>,
}

/// `∂gradient/∂x` of a pair term for one local hull vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct PairVertex {
    /// The link.
    pub link: usize,
    /// The hull within the link.
    pub hull: usize,
    /// The vertex within the hull.
    pub vertex: usize,
    /// `∂gradient/∂x` (12x3).
    pub mixed: SMatrix<f64, 12, 3>,
}

/// A contact model of a whole scene, as the time stepper uses it.
pub trait ContactHook: std::fmt::Debug + Send {
    /// Called once at the start of a step with the step-t kinematics, before any evaluation:
    /// gathers lagged data (friction frames) and resets the timings.
    fn begin_step(&mut self, model: &Model, now: &Kinematics) -> Result<()>;

    /// The contact energy at `kin`; adds its generalized gradient, and Hessian when given.
    /// `None` when two shapes touch (infinite energy).
    fn add(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        gradient: Option<&mut DVector<f64>>,
        hessian: Option<&mut DMatrix<f64>>,
    ) -> Result<Option<ContactEnergy>>;

    /// Every pair's twist derivatives at `kin` (a step's solution) for the backward pass.
    fn pair_terms(&mut self, model: &Model, kin: &Kinematics) -> Result<Vec<PairTerm>>;

    /// Turns the force-anchored Newton model on or off ([`sdrs_contact::plane::Anchors`]):
    /// while on, [`ContactHook::add_anchored`] gives the Hessian and gradient of a model whose
    /// barrier terms are expanded at the gaps their force estimates imply, which Newton's
    /// direction uses; the energy and the exact gradient are unchanged. Returns whether the
    /// hook has such a model (false by default: [`ContactHook::add_anchored`] is then
    /// [`ContactHook::add`]). The first configuration evaluated after it is turned on, or after
    /// [`ContactHook::begin_step`], starts a solve: it carries the last estimates over.
    fn anchor_newton_model(&mut self, on: bool) -> bool {
        let _ = on;
        false
    }

    /// The configuration of the last [`ContactHook::add_anchored`] is the solver's new
    /// iterate: its force estimates become those the next evaluations update.
    fn accept_iterate(&mut self) {}

    /// [`ContactHook::add`] with a gradient and Hessian, where the Hessian added is the Newton
    /// model's while [`ContactHook::anchor_newton_model`] is on, and the difference of the
    /// model's generalized gradient from the exact one is added to `shift`.
    fn add_anchored(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        gradient: &mut DVector<f64>,
        hessian: &mut DMatrix<f64>,
        shift: &mut DVector<f64>,
    ) -> Result<Option<ContactEnergy>> {
        let _ = shift;
        self.add(model, kin, Some(gradient), Some(hessian))
    }

    /// The largest fraction of the move from `from` (an iterate's kinematics) to the state
    /// `to` that may be taken: continuous collision detection for models whose barrier a step
    /// could cross unseen. 1 by default. It bounds the line search (through
    /// [`ContactHook::step_bound`]) and decides whether an extrapolated Newton start may be
    /// used.
    fn max_step(&mut self, model: &Model, from: &Kinematics, to: &State) -> Result<f64> {
        let _ = (model, from, to);
        Ok(1.0)
    }

    /// The fraction of the Newton step `direction` from `state` (whose kinematics are `from`)
    /// that the line search starts from:
    /// [`ContactHook::max_step`] unless the model foresees more (a model whose energy is
    /// infinite wherever its shapes penetrate needs no collision detection, but may know where
    /// its energy along the step turns up).
    fn step_bound(
        &mut self,
        model: &Model,
        (state, from): (&State, &Kinematics),
        direction: &DVector<f64>,
    ) -> Result<f64> {
        self.max_step(model, from, &state.moved(direction, 1.0))
    }

    /// The error naming what penetrates when a state has infinite contact energy (`None` if
    /// no pair penetrates there).
    fn penetration(&mut self, model: &Model, now: &Kinematics) -> Option<DynamicsError>;

    /// The pair with the largest contact energy at `kin` and that energy (stiffness
    /// included), to explain a step that does not converge; `None` without active pairs.
    fn largest_pair(
        &mut self,
        model: &Model,
        kin: &Kinematics,
    ) -> Result<Option<([usize; 2], f64)>>;

    /// Forgets every warm start (planes, GJK hints, friction solves), so the next evaluation
    /// is cold: the stepper's recovery when warm-started inner solves disagree with
    /// themselves.
    fn reset_warm_starts(&mut self);

    /// Time spent in normal contact and in friction since [`ContactHook::begin_step`].
    fn timings(&self) -> StepTimings;

    /// Whether the simulator should run its next step (or `Simulator::linearize`) on a thread
    /// of rayon's pool: true when this hook's last evaluation handed pairs to the pool and
    /// forking that parallel work from a pool thread pays (see `Simulator::on_pool`). False by
    /// default.
    fn runs_on_pool(&self) -> bool {
        false
    }

    /// The pairs in contact at `kin`: those with a non-zero normal energy and, with friction,
    /// those the friction lagged from the link poses `previous` of the step before acts on
    /// (the friction of the step from `previous` to `kin`). Evaluated cold: the hook's warm
    /// starts and the current step's lagged data are left as they are.
    fn contacts(
        &mut self,
        model: &Model,
        previous: &[Isometry3<f64>],
        kin: &Kinematics,
    ) -> Result<Vec<ActiveContact>>;

    /// A copy of this hook with its warm starts and lagged data, so that a
    /// [`super::Simulator`] can be cloned.
    fn boxed_clone(&self) -> Box<dyn ContactHook>;
}

impl Clone for Box<dyn ContactHook> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

/// The derivative order an evaluation that fills a gradient and/or a Hessian needs.
pub(super) fn order_for(gradient: bool, hessian: bool) -> Order {
    match (gradient, hessian) {
        (_, true) => Order::Hessian,
        (true, false) => Order::Gradient,
        _ => Order::Value,
    }
}

/// Adds `scale` times a pair's twist gradient (and Hessian, when `order` asks for it) to `sums`;
/// nothing for a value-only evaluation.
pub(super) fn add_pair(
    sums: &mut LinkSums,
    links: [usize; 2],
    pair: &PairContact,
    scale: f64,
    order: Order,
) {
    if order != Order::Value {
        let hessian = (order == Order::Hessian).then_some(&pair.hessian);
        sums.add(links, &pair.gradient, hessian, scale);
    }
}

/// The error of contact model `source` between links `a` and `b` (named by `names`; a
/// penetration at step t as [`DynamicsError::InitialPenetration`]).
pub(super) fn contact_error(
    names: &[String],
    [a, b]: [usize; 2],
    source: sdrs_contact::ContactError,
) -> DynamicsError {
    let (link_a, link_b) = (names[a].clone(), names[b].clone());
    match source {
        sdrs_contact::ContactError::PenetratingFrame => {
            DynamicsError::InitialPenetration { link_a, link_b }
        }
        source => DynamicsError::Contact {
            link_a,
            link_b,
            source,
        },
    }
}

/// The links' names, for errors.
pub(super) fn link_names(model: &Model) -> Vec<String> {
    model.links().iter().map(|l| l.name.clone()).collect()
}

/// A hull of the scene: its link and index in that link.
#[derive(Debug, Clone, Copy)]
struct HullRef {
    link: usize,
    hull: usize,
}

/// The links of a hull pair.
fn links(hulls: [HullRef; 2]) -> [usize; 2] {
    [hulls[0].link, hulls[1].link]
}

/// SDRS contact: the plane barrier between every pair of hulls on different links within its
/// support distance (scaled by the contact stiffness) and lagged plane friction.
#[derive(Debug, Clone)]
pub struct SdrsContact {
    barrier: PlaneBarrier,
    stiffness: f64,
    friction: Option<PlaneFriction>,
    skip_adjacent: bool,
    names: Vec<String>,
    hulls: Vec<HullRef>,
    broad_phase: BroadPhase,
    /// The broad phase's pairs, kept while the hulls stay near where they were found.
    candidates: CandidateList,
    /// Per hull, the support vertices of its last bounding box
    /// ([`sdrs_geometry::ConvexHull::aabb_from`]): the next box of a hull that moved a little
    /// climbs from them in a few vertices.
    aabb_hints: Vec<[usize; 6]>,
    planes: PairMap<(usize, usize), PlaneCache>,
    frictions: PairMap<(usize, usize), FrictionCache>,
    frames: Vec<((usize, usize), FrictionFrame)>,
    /// The link poses [`SdrsContact::frames`] were computed at (empty: none valid).
    frame_poses: Vec<Isometry3<f64>>,
    /// The evaluation's pair terms per link, mapped to generalized coordinates once.
    sums: LinkSums,
    timings: StepTimings,
    /// Whether the last evaluation handed pairs to rayon's pool.
    pooled: bool,
    /// How the force estimates of the next anchored evaluation follow from the committed ones
    /// (`None` while the Newton model is off).
    anchoring: Option<Update>,
    /// The pairs of the last anchored evaluation, sorted: theirs are the estimates
    /// [`ContactHook::accept_iterate`] commits.
    anchored_pairs: Vec<(usize, usize)>,
    /// The link poses along a Newton direction that [`ContactHook::step_bound`] looks at.
    moved: MovedPoses,
}

impl SdrsContact {
    /// The plane barrier scaled by `stiffness` between the hulls of `model`'s links, skipping
    /// the pairs the model's collision filter leaves out ([`crate::filter`]) and parent-child
    /// bodies when `skip_adjacent`; without friction. [`crate::Simulator::new`] builds it from
    /// [`super::ContactKind::Hulls`].
    pub fn new(
        model: &Model,
        barrier: PlaneBarrier,
        stiffness: f64,
        skip_adjacent: bool,
    ) -> Result<Self> {
        if !(stiffness.is_finite() && stiffness > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "stiffness",
                value: stiffness,
                allowed: "positive and finite",
            });
        }
        let support = barrier.support_distance();
        let broad_phase =
            BroadPhase::new(support).expect("a barrier's support distance is a valid margin");
        let hulls: Vec<HullRef> = model
            .links()
            .iter()
            .enumerate()
            .flat_map(|(link, l)| (0..l.hulls.len()).map(move |hull| HullRef { link, hull }))
            .collect();
        Ok(Self {
            barrier,
            stiffness,
            friction: None,
            skip_adjacent,
            names: link_names(model),
            aabb_hints: vec![[usize::MAX; 6]; hulls.len()],
            candidates: CandidateList::new(
                hulls
                    .iter()
                    .map(|h| {
                        let hull = &model.links()[h.link].hulls[h.hull];
                        HullSphere {
                            link: h.link,
                            centre: hull.bounding_sphere_center(),
                            radius: hull.bounding_sphere_radius(),
                        }
                    })
                    .collect(),
                support,
            ),
            hulls,
            broad_phase,
            planes: PairMap::default(),
            frictions: PairMap::default(),
            frames: Vec::new(),
            frame_poses: Vec::new(),
            sums: LinkSums::default(),
            timings: StepTimings::default(),
            pooled: false,
            anchoring: None,
            anchored_pairs: Vec::new(),
            moved: MovedPoses::default(),
        })
    }

    /// Adds lagged plane friction between the same hulls (its normal forces scaled by the
    /// contact stiffness).
    pub fn with_friction(mut self, friction: PlaneFriction) -> Self {
        self.friction = Some(friction);
        self
    }

    /// Candidate hull pairs (indices into `hulls`, sorted) within the barrier's support: the
    /// kept list while no hull has left its skin ([`CandidateList`]), else the broad phase's
    /// pairs for boxes inflated by the skin.
    fn candidate_pairs(&mut self, model: &Model, poses: &[Isometry3<f64>]) -> Vec<(usize, usize)> {
        let (hulls, hints) = (&self.hulls, &mut self.aabb_hints);
        let (broad_phase, skip) = (&mut self.broad_phase, self.skip_adjacent);
        self.candidates.pairs(poses, |skin| {
            let proxies: Vec<Proxy> = hulls
                .iter()
                .zip(hints)
                .map(|(h, hints)| Proxy {
                    body: h.link,
                    aabb: model.links()[h.link].hulls[h.hull]
                        .aabb_from(&poses[h.link], hints)
                        .inflated(skin),
                })
                .collect();
            let mut pairs = Vec::new();
            broad_phase.candidate_pairs(&proxies, |a, b| !model.may_touch(a, b, skip), &mut pairs);
            pairs
        })
    }

    /// The fraction `t ∈ (0, 1]` of the links' move from poses `from` to `to` after which the
    /// gap of hull pair `pair` along a fixed normal has closed by [`GAP_CLOSING`] (1 if it
    /// does not close that much). The normal is that of the pair's last separating plane, or
    /// GJK's at `from` for a pair not yet in range ([`PlaneBarrier::separating_normal`], with
    /// the pair's `cache`); the gap along it (the hulls' support distances) is interpolated
    /// linearly between the two poses, exact for translations.
    fn closing_bound(
        &self,
        model: &Model,
        [from, to]: [&[Isometry3<f64>]; 2],
        pair: (usize, usize),
        cache: &mut PlaneCache,
    ) -> f64 {
        let (ha, hb) = (self.hulls[pair.0], self.hulls[pair.1]);
        let a = &model.links()[ha.link].hulls[ha.hull];
        let b = &model.links()[hb.link].hulls[hb.hull];
        let Some(normal) =
            self.barrier
                .separating_normal(a, &from[ha.link], b, &from[hb.link], cache)
        else {
            return 1.0;
        };
        let gap =
            |poses: &[Isometry3<f64>]| gap_along(a, &poses[ha.link], b, &poses[hb.link], &normal);
        let (before, after) = (gap(from), gap(to));
        if before > 0.0 && after < (1.0 - GAP_CLOSING) * before {
            GAP_CLOSING * before / (before - after)
        } else {
            1.0
        }
    }

    /// `f` on every pair of `pairs` with its plane cache, the results in pair order.
    fn with_planes<T: Send>(
        &mut self,
        pairs: &[(usize, usize)],
        f: impl Fn(&Self, (usize, usize), &mut PlaneCache) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let mut results = Vec::with_capacity(pairs.len());
        self.with_planes_into(pairs, f, |t| results.push(t))?;
        Ok(results)
    }

    /// `f` on every pair of `pairs` with its plane cache, each result handed to `sink` in pair
    /// order (the one pair-evaluation path: [`for_each_stored_pair`]).
    fn with_planes_into<T: Send>(
        &mut self,
        pairs: &[(usize, usize)],
        f: impl Fn(&Self, (usize, usize), &mut PlaneCache) -> Result<T> + Sync,
        sink: impl FnMut(T),
    ) -> Result<()> {
        let mut planes = std::mem::take(&mut self.planes);
        let result = for_each_stored_pair(
            pairs,
            |pair| *pair,
            &mut planes,
            HULL_PAIRS,
            |&pair, cache| f(self, pair, cache),
            sink,
        );
        self.planes = planes;
        result
    }

    /// The barrier of every pair of `pairs` at `kin`, each warm-started from its plane cache.
    fn barriers(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        pairs: &[(usize, usize)],
        order: Order,
    ) -> Result<Vec<PairOutcome>> {
        self.with_planes(pairs, |hook, pair, cache| {
            hook.barrier_from(model, kin.poses(), pair, cache, order)
        })
    }

    /// The barrier between hulls `a` and `b` at `poses`, warm-started from `cache`.
    fn barrier_from(
        &self,
        model: &Model,
        poses: &[Isometry3<f64>],
        pair: (usize, usize),
        cache: &mut PlaneCache,
        order: Order,
    ) -> Result<PairOutcome> {
        self.on_hulls(model, poses, pair, |a, pose_a, b, pose_b| {
            self.barrier.evaluate(a, pose_a, b, pose_b, cache, order)
        })
    }

    /// `f` on hulls `a` and `b` at their links' `poses`, its error named by the links.
    fn on_hulls<T>(
        &self,
        model: &Model,
        poses: &[Isometry3<f64>],
        (a, b): (usize, usize),
        f: impl FnOnce(
            &ConvexHull,
            &Isometry3<f64>,
            &ConvexHull,
            &Isometry3<f64>,
        ) -> std::result::Result<T, sdrs_contact::ContactError>,
    ) -> Result<T> {
        let (ha, hb) = (self.hulls[a], self.hulls[b]);
        f(
            &model.links()[ha.link].hulls[ha.hull],
            &poses[ha.link],
            &model.links()[hb.link].hulls[hb.hull],
            &poses[hb.link],
        )
        .map_err(|e| contact_error(&self.names, [ha.link, hb.link], e))
    }

    /// The friction frame of hulls `a` and `b` at the step-t `poses`, warm-started from `cache`
    /// (`None` out of contact).
    fn frame(
        &self,
        model: &Model,
        poses: &[Isometry3<f64>],
        pair: (usize, usize),
        cache: &mut PlaneCache,
    ) -> Result<Option<FrictionFrame>> {
        self.on_hulls(model, poses, pair, |a, pose_a, b, pose_b| {
            FrictionFrame::new(&self.barrier, self.stiffness, a, pose_a, b, pose_b, cache)
        })
    }

    /// Runs `f` on every friction frame (with its pair's hulls and warm start), each result
    /// handed to `sink` in frame order.
    fn frictions<T: Send>(
        &mut self,
        f: impl Fn(
            &PlaneFriction,
            &FrictionFrame,
            [HullRef; 2],
            &mut FrictionCache,
        ) -> std::result::Result<T, sdrs_contact::ContactError>
        + Sync,
        sink: impl FnMut(([HullRef; 2], T)),
    ) -> Result<()> {
        let Some(friction) = &self.friction else {
            return Ok(());
        };
        let (hulls, names) = (&self.hulls, &self.names);
        for_each_stored_pair(
            &self.frames,
            |(pair, _)| *pair,
            &mut self.frictions,
            HULL_PAIRS,
            |((a, b), frame), cache| {
                let refs = [hulls[*a], hulls[*b]];
                f(friction, frame, refs, cache)
                    .map(|value| (refs, value))
                    .map_err(|e| contact_error(names, links(refs), e))
            },
            sink,
        )
    }
}

/// One pair's normal contact as [`SdrsContact::add_terms`] sums it: its links, and its
/// contact with, under the Newton model, the model's gradient minus the exact one (`None`
/// where the pair penetrates).
type NormalTerm = ([usize; 2], Option<(PairContact, Option<Vector12>)>);

impl SdrsContact {
    /// [`ContactHook::add`], and [`ContactHook::add_anchored`] when `shift` is given and the
    /// Newton model is on.
    fn add_terms(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        gradient: Option<&mut DVector<f64>>,
        hessian: Option<&mut DMatrix<f64>>,
        shift: Option<&mut DVector<f64>>,
    ) -> Result<Option<ContactEnergy>> {
        let order = order_for(gradient.is_some(), hessian.is_some());
        let update = self.anchoring.filter(|_| shift.is_some());
        // Taken out while the pairs are evaluated (they borrow the hook), put back after.
        let mut sums = std::mem::take(&mut self.sums);
        sums.clear(model.links().len());
        let added = self.add_pair_terms(&mut sums, model, kin, order, update);
        if let Ok(Some(_)) = added
            && let Some(gradient) = gradient
        {
            let clock = Instant::now();
            let shift = shift.filter(|_| update.is_some());
            sums.add_to(model, kin, gradient, hessian, shift);
            self.timings.friction += clock.elapsed();
        }
        self.sums = sums;
        added
    }

    /// Every pair's normal contact and friction at `kin` into `sums` (per link, scaled by
    /// the stiffness), with the Newton model's estimates updated as `update` says when it is
    /// on; `None` when a pair penetrates.
    fn add_pair_terms(
        &mut self,
        sums: &mut LinkSums,
        model: &Model,
        kin: &Kinematics,
        order: Order,
        update: Option<Update>,
    ) -> Result<Option<ContactEnergy>> {
        let stiffness = self.stiffness;
        let mut energy = ContactEnergy {
            value: 0.0,
            active_pairs: 0,
        };
        let clock = Instant::now();
        let pairs = self.candidate_pairs(model, kin.poses());
        self.pooled = HULL_PAIRS.pools(pairs.len()) || HULL_PAIRS.pools(self.frames.len());
        let mut penetrating = false;
        let add = |(links, term): NormalTerm| {
            let Some((c, shift)) = term.filter(|_| !penetrating) else {
                penetrating = true;
                return;
            };
            if c.value == 0.0 {
                // Beyond the support: no energy, but the Newton model may still anchor the
                // pair's vertices at their last forces.
                if let Some(shift) = shift.filter(|shift| *shift != Vector12::zeros()) {
                    add_pair(sums, links, &c, stiffness, order);
                    sums.add_shift(links, &shift, stiffness);
                }
                return;
            }
            energy.active_pairs += 1;
            energy.value += stiffness * c.value;
            add_pair(sums, links, &c, stiffness, order);
            if let Some(shift) = shift {
                sums.add_shift(links, &shift, stiffness);
            }
        };
        let evaluated = match update {
            Some(update) => self.with_planes_into(
                &pairs,
                |hook, pair, cache| {
                    let anchored = hook.on_hulls(model, kin.poses(), pair, |a, pa, b, pb| {
                        hook.barrier.evaluate_anchored(a, pa, b, pb, cache, update)
                    })?;
                    Ok((
                        hook.pair_links(pair),
                        anchored.map(|a| {
                            let shift = a.model_gradient - a.contact.gradient;
                            (a.contact, Some(shift))
                        }),
                    ))
                },
                add,
            ),
            None => self.with_planes_into(
                &pairs,
                |hook, pair, cache| {
                    let outcome = hook.barrier_from(model, kin.poses(), pair, cache, order)?;
                    Ok((
                        hook.pair_links(pair),
                        match outcome {
                            PairOutcome::Separated(c) => Some((c, None)),
                            PairOutcome::Penetrating => None,
                        },
                    ))
                },
                add,
            ),
        };
        self.timings.normal += clock.elapsed();
        evaluated?;
        if update.is_some() {
            self.anchored_pairs = pairs;
        }
        if penetrating {
            return Ok(None);
        }
        let clock = Instant::now();
        self.frictions(
            |friction, frame, refs, cache| {
                let (a, b) = (&kin.poses()[refs[0].link], &kin.poses()[refs[1].link]);
                match update {
                    Some(update) => friction.evaluate_anchored(frame, a, b, cache, update),
                    None => friction
                        .evaluate(frame, a, b, cache, order)
                        .map(|c| (c, Vector12::zeros())),
                }
            },
            |(hulls, (c, model_gradient))| {
                energy.value += c.value;
                add_pair(sums, links(hulls), &c, 1.0, order);
                if update.is_some() {
                    sums.add_shift(links(hulls), &(model_gradient - c.gradient), 1.0);
                }
            },
        )?;
        self.timings.friction += clock.elapsed();
        Ok(Some(energy))
    }

    /// The links of hull pair `pair`.
    fn pair_links(&self, (a, b): (usize, usize)) -> [usize; 2] {
        links([self.hulls[a], self.hulls[b]])
    }
}

/// `PairContact` scaled by `scale` as a [`PairTerm`] with the given step-t block and, for
/// friction, its force-scale block.
fn pair_term(
    hulls: [HullRef; 2],
    pair: &PairContact,
    (step_t, friction): (Matrix12, Option<Vector12>),
    scale: f64,
) -> PairTerm {
    PairTerm {
        friction,
        links: links(hulls),
        gradient: pair.gradient * scale,
        hessian: pair.hessian * scale,
        step_t,
        vertices: pair
            .vertices
            .iter()
            .map(|v| PairVertex {
                link: hulls[v.body].link,
                hull: hulls[v.body].hull,
                vertex: v.vertex,
                mixed: v.mixed * scale,
            })
            .collect(),
    }
}

impl ContactHook for SdrsContact {
    fn begin_step(&mut self, model: &Model, now: &Kinematics) -> Result<()> {
        self.timings = StepTimings::default();
        if self.anchoring.is_some() {
            self.anchoring = Some(Update::Carry);
        }
        if self.friction.is_none() {
            return Ok(());
        }
        // A frame is a function of its two hulls' poses (the plane cache only warm-starts its
        // solve): a scene at rest, whose links have not moved since the last step, keeps them.
        if !self.frame_poses.is_empty() && self.frame_poses == now.poses() {
            return Ok(());
        }
        self.frames.clear();
        self.frame_poses.clear();
        let clock = Instant::now();
        let pairs = self.candidate_pairs(model, now.poses());
        let frames = self.with_planes(&pairs, |hook, pair, cache| {
            hook.frame(model, now.poses(), pair, cache)
        })?;
        self.frames = pairs
            .into_iter()
            .zip(frames)
            .filter_map(|(pair, frame)| Some((pair, frame?)))
            .collect();
        self.frame_poses.extend_from_slice(now.poses());
        self.timings.normal += clock.elapsed();
        Ok(())
    }

    fn add(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        gradient: Option<&mut DVector<f64>>,
        hessian: Option<&mut DMatrix<f64>>,
    ) -> Result<Option<ContactEnergy>> {
        self.add_terms(model, kin, gradient, hessian, None)
    }

    /// The first of two fractions of the step: where some pair in range has closed
    /// half of its gap (`GAP_CLOSING`, `SdrsContact::closing_bound`), the fraction-to-the-boundary
    /// rule of interior-point methods; and where some slipping friction pair comes to stick
    /// ([`PlaneFriction::kink_along`]). Feasibility and descent are still decided by evaluating
    /// the energy; the bound only spares the line search trials through a hull or up a
    /// barrier's wall (a landing foot's first trial penetrated, the next raised the energy
    /// 1e3- to 1e17-fold), and the halvings back from beyond a friction kink to it.
    fn step_bound(
        &mut self,
        model: &Model,
        (state, from): (&State, &Kinematics),
        direction: &DVector<f64>,
    ) -> Result<f64> {
        let mut moved = std::mem::take(&mut self.moved);
        let end = moved.at(model, state, direction, 1.0);
        let pairs = self.candidate_pairs(model, from.poses());
        let mut planes = std::mem::take(&mut self.planes);
        let closing = pairs
            .into_iter()
            .map(|pair| {
                let cache = planes.entry(pair).or_default();
                self.closing_bound(model, [from.poses(), end], pair, cache)
            })
            .fold(1.0, f64::min);
        self.planes = planes;
        let friction = match &self.friction {
            Some(friction) if !self.frames.is_empty() => friction,
            _ => {
                self.moved = moved;
                return Ok(closing);
            }
        };
        let ahead = moved.at(model, state, direction, KINK_TANGENT);
        let from = from.poses();
        let bound = self
            .frames
            .iter()
            .filter_map(|(pair, frame)| {
                let [a, b] = self.pair_links(*pair);
                friction.kink_along(
                    frame,
                    [&from[a], &from[b]],
                    ([&ahead[a], &ahead[b]], KINK_TANGENT),
                )
            })
            .fold(closing, f64::min);
        self.moved = moved;
        Ok(bound)
    }

    fn anchor_newton_model(&mut self, on: bool) -> bool {
        self.anchoring = on.then_some(Update::Carry);
        true
    }

    fn accept_iterate(&mut self) {
        if self.anchoring.is_none() {
            return;
        }
        self.anchoring = Some(Update::Step);
        for (pair, cache) in self.planes.iter_mut() {
            let anchors = cache.anchors_mut();
            if self.anchored_pairs.binary_search(pair).is_ok() {
                anchors.commit();
            } else {
                anchors.clear();
            }
        }
        // Every frame's friction is evaluated with every configuration (frames are sorted by
        // pair, as the candidate pairs they come from).
        for (pair, cache) in self.frictions.iter_mut() {
            let anchors = cache.anchors_mut();
            if self
                .frames
                .binary_search_by_key(pair, |(framed, _)| *framed)
                .is_ok()
            {
                anchors.commit();
            } else {
                anchors.clear();
            }
        }
    }

    fn add_anchored(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        gradient: &mut DVector<f64>,
        hessian: &mut DMatrix<f64>,
        shift: &mut DVector<f64>,
    ) -> Result<Option<ContactEnergy>> {
        self.add_terms(model, kin, Some(gradient), Some(hessian), Some(shift))
    }

    fn pair_terms(&mut self, model: &Model, kin: &Kinematics) -> Result<Vec<PairTerm>> {
        let stiffness = self.stiffness;
        let pairs = self.candidate_pairs(model, kin.poses());
        // Reserved, not grown: a term is 2.5 kB.
        let mut terms = Vec::with_capacity(pairs.len());
        let outcomes = self.barriers(model, kin, &pairs, Order::Design)?;
        for (pair, outcome) in pairs.into_iter().zip(outcomes) {
            let hulls = [self.hulls[pair.0], self.hulls[pair.1]];
            if let PairOutcome::Separated(c) = outcome
                && c.value > 0.0
            {
                terms.push(pair_term(hulls, &c, (Matrix12::zeros(), None), stiffness));
            }
        }
        terms.reserve_exact(self.frames.len());
        self.frictions(
            |friction, frame, refs, cache| {
                friction.evaluate_lagged(
                    frame,
                    &kin.poses()[refs[0].link],
                    &kin.poses()[refs[1].link],
                    cache,
                )
            },
            |(hulls, l)| {
                terms.push(pair_term(
                    hulls,
                    &l.contact,
                    (l.step_mixed, Some(l.force_scale_mixed)),
                    1.0,
                ))
            },
        )?;
        Ok(terms)
    }

    fn penetration(&mut self, model: &Model, now: &Kinematics) -> Option<DynamicsError> {
        let pairs = self.candidate_pairs(model, now.poses());
        // A pair whose evaluation fails is not known to penetrate: keep looking.
        let outcomes = self
            .with_planes(&pairs, |hook, pair, cache| {
                Ok(hook.barrier_from(model, now.poses(), pair, cache, Order::Value))
            })
            .ok()?;
        pairs.into_iter().zip(outcomes).find_map(|(pair, outcome)| {
            matches!(outcome, Ok(PairOutcome::Penetrating)).then(|| {
                contact_error(
                    &self.names,
                    self.pair_links(pair),
                    sdrs_contact::ContactError::PenetratingFrame,
                )
            })
        })
    }

    fn largest_pair(
        &mut self,
        model: &Model,
        kin: &Kinematics,
    ) -> Result<Option<([usize; 2], f64)>> {
        let mut largest: Option<([usize; 2], f64)> = None;
        let pairs = self.candidate_pairs(model, kin.poses());
        let outcomes = self.barriers(model, kin, &pairs, Order::Value)?;
        for (pair, outcome) in pairs.into_iter().zip(outcomes) {
            let value = outcome.value();
            if value > 0.0 && largest.is_none_or(|(_, v)| value > v) {
                largest = Some((self.pair_links(pair), self.stiffness * value));
            }
        }
        Ok(largest)
    }

    fn reset_warm_starts(&mut self) {
        self.candidates.clear();
        self.planes.clear();
        self.frictions.clear();
        self.frame_poses.clear();
    }

    fn timings(&self) -> StepTimings {
        self.timings
    }

    fn runs_on_pool(&self) -> bool {
        self.pooled
    }

    fn boxed_clone(&self) -> Box<dyn ContactHook> {
        Box::new(self.clone())
    }

    fn contacts(
        &mut self,
        model: &Model,
        previous: &[Isometry3<f64>],
        kin: &Kinematics,
    ) -> Result<Vec<ActiveContact>> {
        let stiffness = self.stiffness;
        // Per hull pair: the normal energy's gradient, then the friction's.
        let mut found: BTreeMap<(usize, usize), [Option<Vector12>; 2]> = BTreeMap::new();
        let pairs = self.candidate_pairs(model, kin.poses());
        let mut cold = vec![PlaneCache::default(); pairs.len()];
        let outcomes = each_pair(&pairs, &mut cold, HULL_PAIRS, |&pair, cache| {
            self.barrier_from(model, kin.poses(), pair, cache, Order::Gradient)
        })?;
        for (pair, outcome) in pairs.into_iter().zip(outcomes) {
            match outcome {
                PairOutcome::Separated(c) if c.value > 0.0 => {
                    found.entry(pair).or_default()[0] = Some(c.gradient * stiffness);
                }
                PairOutcome::Separated(_) => {}
                PairOutcome::Penetrating => {
                    return Err(contact_error(
                        &self.names,
                        self.pair_links(pair),
                        sdrs_contact::ContactError::PenetratingFrame,
                    ));
                }
            }
        }
        let lagged = match self.friction {
            Some(_) => self.candidate_pairs(model, previous),
            None => Vec::new(),
        };
        if let Some(friction) = &self.friction {
            let mut cold = vec![PlaneCache::default(); lagged.len()];
            let gradients = each_pair(&lagged, &mut cold, HULL_PAIRS, |&pair, cache| {
                let Some(frame) = self.frame(model, previous, pair, cache)? else {
                    return Ok(None);
                };
                let [ha, hb] = [self.hulls[pair.0], self.hulls[pair.1]];
                friction
                    .evaluate(
                        &frame,
                        &kin.poses()[ha.link],
                        &kin.poses()[hb.link],
                        &mut FrictionCache::default(),
                        Order::Gradient,
                    )
                    .map(|c| Some(c.gradient))
                    .map_err(|e| contact_error(&self.names, [ha.link, hb.link], e))
            })?;
            for (pair, gradient) in lagged.into_iter().zip(gradients) {
                if let Some(g) = gradient {
                    found.entry(pair).or_default()[1] = Some(g);
                }
            }
        }
        let with_friction = self.friction.is_some();
        found
            .into_iter()
            .map(|(pair, [normal, friction])| {
                let [ha, hb] = [self.hulls[pair.0], self.hulls[pair.1]];
                let (pa, pb) = (&kin.poses()[ha.link], &kin.poses()[hb.link]);
                let hull = |h: HullRef| &model.links()[h.link].hulls[h.hull];
                let Proximity::Separated(s) = distance(hull(ha), pa, hull(hb), pb) else {
                    return Err(contact_error(
                        &self.names,
                        [ha.link, hb.link],
                        sdrs_contact::ContactError::PenetratingFrame,
                    ));
                };
                let closest = Closest {
                    a: s.point_a,
                    b: s.point_b,
                    distance: s.distance,
                };
                let none = Vector12::zeros();
                let friction = with_friction.then(|| friction.unwrap_or(none));
                Ok(ActiveContact::new(
                    [ha.link, hb.link],
                    pb,
                    &normal.unwrap_or(none),
                    &closest,
                    friction.as_ref(),
                ))
            })
            .collect()
    }
}
