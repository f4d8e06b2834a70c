//! Contact as the stepper sees it: the [`ContactHook`] trait, and [`SdrsContact`], the SDRS
//! hull model (plane barrier and plane friction between convex hulls on different links).
//!
//! A hook owns whatever a contact model needs per scene (shapes, broad phase, warm starts,
//! lagged friction data); the stepper only asks it for the energy of a configuration, its
//! derivatives in generalized coordinates, and, for the backward pass, the per-pair twist
//! derivatives. Mesh-based models (long-range, IPC) implement the same trait over the links'
//! triangle meshes ([`crate::Link::mesh`]).

use super::active::ActiveContact;
use super::{ContactSettings, StepTimings};
use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Isometry3, SMatrix};
use sdrs_contact::distance::Closest;
use sdrs_contact::friction::{FrictionCache, FrictionFrame};
use sdrs_contact::twist::{Matrix12, Vector12};
use sdrs_contact::{ContactModel, Order, PairContact, PairOutcome, PlaneCache};
use sdrs_geometry::broad_phase::{BroadPhase, Proxy};
use sdrs_geometry::gjk::{Proximity, distance};
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

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

    /// The largest fraction of the move from `from` (an iterate's kinematics) to the state
    /// `to` that the line search may take: continuous collision detection for models whose
    /// barrier a step could cross unseen. 1 by default.
    fn max_step(&mut self, model: &Model, from: &Kinematics, to: &State) -> Result<f64> {
        let _ = (model, from, to);
        Ok(1.0)
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
}

/// The derivative order an evaluation that fills a gradient and/or a Hessian needs.
pub(super) fn order_for(gradient: bool, hessian: bool) -> Order {
    match (gradient, hessian) {
        (_, true) => Order::Hessian,
        (true, false) => Order::Gradient,
        _ => Order::Value,
    }
}

/// Adds `scale` times a pair's twist gradient (and Hessian, when `hessian` is given) to the
/// generalized ones through the two links' Jacobians.
pub(super) fn add_pair(
    model: &Model,
    kin: &Kinematics,
    links: [usize; 2],
    pair: &PairContact,
    scale: f64,
    gradient: Option<&mut DVector<f64>>,
    hessian: Option<&mut DMatrix<f64>>,
) {
    if let Some(g) = gradient {
        let h = hessian.is_some().then(|| pair.hessian * scale);
        kin.add_term(
            model,
            links,
            &(pair.gradient * scale),
            h.as_ref(),
            g,
            hessian,
        );
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
#[derive(Debug)]
pub struct SdrsContact {
    settings: ContactSettings,
    names: Vec<String>,
    hulls: Vec<HullRef>,
    broad_phase: BroadPhase,
    planes: HashMap<(usize, usize), PlaneCache>,
    frictions: HashMap<(usize, usize), FrictionCache>,
    frames: Vec<((usize, usize), FrictionFrame)>,
    timings: StepTimings,
}

impl SdrsContact {
    /// SDRS contact between the hulls of `model`.
    pub fn new(model: &Model, settings: ContactSettings) -> Result<Self> {
        if !(settings.stiffness.is_finite() && settings.stiffness > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "stiffness",
                value: settings.stiffness,
                allowed: "positive and finite",
            });
        }
        let broad_phase = BroadPhase::new(settings.barrier.support_distance())
            .expect("a barrier's support distance is a valid margin");
        Ok(Self {
            settings,
            names: link_names(model),
            hulls: model
                .links()
                .iter()
                .enumerate()
                .flat_map(|(link, l)| (0..l.hulls.len()).map(move |hull| HullRef { link, hull }))
                .collect(),
            broad_phase,
            planes: HashMap::new(),
            frictions: HashMap::new(),
            frames: Vec::new(),
            timings: StepTimings::default(),
        })
    }

    /// Candidate hull pairs (indices into `hulls`, sorted) within the barrier's support.
    fn candidate_pairs(&mut self, model: &Model, poses: &[Isometry3<f64>]) -> Vec<(usize, usize)> {
        let proxies: Vec<Proxy> = self
            .hulls
            .iter()
            .map(|h| Proxy {
                body: h.link,
                aabb: model.links()[h.link].hulls[h.hull].aabb(&poses[h.link]),
            })
            .collect();
        let skip = self.settings.skip_adjacent;
        let mut pairs = Vec::new();
        self.broad_phase
            .candidate_pairs(&proxies, |a, b| !model.may_touch(a, b, skip), &mut pairs);
        pairs
    }

    /// The barrier between hulls `a` and `b` at `kin`, warm-started from their plane cache.
    fn barrier(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        (a, b): (usize, usize),
        order: Order,
    ) -> Result<PairOutcome> {
        let mut cache = std::mem::take(self.planes.entry((a, b)).or_default());
        let outcome = self.barrier_from(model, kin.poses(), (a, b), &mut cache, order);
        self.planes.insert((a, b), cache);
        outcome
    }

    /// The barrier between hulls `a` and `b` at `poses`, warm-started from `cache`.
    fn barrier_from(
        &self,
        model: &Model,
        poses: &[Isometry3<f64>],
        (a, b): (usize, usize),
        cache: &mut PlaneCache,
        order: Order,
    ) -> Result<PairOutcome> {
        let (ha, hb) = (self.hulls[a], self.hulls[b]);
        self.settings
            .barrier
            .evaluate(
                &model.links()[ha.link].hulls[ha.hull],
                &poses[ha.link],
                &model.links()[hb.link].hulls[hb.hull],
                &poses[hb.link],
                cache,
                order,
            )
            .map_err(|e| contact_error(&self.names, [ha.link, hb.link], e))
    }

    /// The friction frame of hulls `a` and `b` at the step-t `poses`, warm-started from `cache`
    /// (`None` out of contact).
    fn frame(
        &self,
        model: &Model,
        poses: &[Isometry3<f64>],
        (a, b): (usize, usize),
        cache: &mut PlaneCache,
    ) -> Result<Option<FrictionFrame>> {
        let (ha, hb) = (self.hulls[a], self.hulls[b]);
        FrictionFrame::new(
            &self.settings.barrier,
            self.settings.stiffness,
            &model.links()[ha.link].hulls[ha.hull],
            &poses[ha.link],
            &model.links()[hb.link].hulls[hb.hull],
            &poses[hb.link],
            cache,
        )
        .map_err(|e| contact_error(&self.names, [ha.link, hb.link], e))
    }

    /// Runs `f` on every friction frame (with its pair's hulls and warm start).
    fn frictions<T>(
        &mut self,
        mut f: impl FnMut(
            &sdrs_contact::friction::PlaneFriction,
            &FrictionFrame,
            [HullRef; 2],
            &mut FrictionCache,
        ) -> std::result::Result<T, sdrs_contact::ContactError>,
    ) -> Result<Vec<([HullRef; 2], T)>> {
        let Some(friction) = &self.settings.friction else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for ((a, b), frame) in &self.frames {
            let refs = [self.hulls[*a], self.hulls[*b]];
            let cache = self.frictions.entry((*a, *b)).or_default();
            let value = f(friction, frame, refs, cache)
                .map_err(|e| contact_error(&self.names, links(refs), e))?;
            out.push((refs, value));
        }
        Ok(out)
    }
}

/// `PairContact` scaled by `scale` as a [`PairTerm`] with the given step-t block.
fn pair_term(hulls: [HullRef; 2], pair: &PairContact, step_t: Matrix12, scale: f64) -> PairTerm {
    PairTerm {
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
        self.frames.clear();
        if self.settings.friction.is_none() {
            return Ok(());
        }
        let clock = Instant::now();
        for pair in self.candidate_pairs(model, now.poses()) {
            let mut cache = std::mem::take(self.planes.entry(pair).or_default());
            let frame = self.frame(model, now.poses(), pair, &mut cache);
            self.planes.insert(pair, cache);
            if let Some(frame) = frame? {
                self.frames.push((pair, frame));
            }
        }
        self.timings.normal += clock.elapsed();
        Ok(())
    }

    fn add(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        mut gradient: Option<&mut DVector<f64>>,
        mut hessian: Option<&mut DMatrix<f64>>,
    ) -> Result<Option<ContactEnergy>> {
        let order = order_for(gradient.is_some(), hessian.is_some());
        let mut add = |links: [usize; 2], pair: &PairContact, scale: f64| {
            add_pair(
                model,
                kin,
                links,
                pair,
                scale,
                gradient.as_deref_mut(),
                hessian.as_deref_mut(),
            )
        };
        let stiffness = self.settings.stiffness;
        let mut energy = ContactEnergy {
            value: 0.0,
            active_pairs: 0,
        };
        let clock = Instant::now();
        for pair in self.candidate_pairs(model, kin.poses()) {
            let outcome = self.barrier(model, kin, pair, order)?;
            let PairOutcome::Separated(c) = outcome else {
                self.timings.normal += clock.elapsed();
                return Ok(None);
            };
            if c.value == 0.0 {
                continue;
            }
            energy.active_pairs += 1;
            energy.value += stiffness * c.value;
            add(
                links([self.hulls[pair.0], self.hulls[pair.1]]),
                &c,
                stiffness,
            );
        }
        self.timings.normal += clock.elapsed();
        let clock = Instant::now();
        let frictions = self.frictions(|friction, frame, refs, cache| {
            friction.evaluate(
                frame,
                &kin.poses()[refs[0].link],
                &kin.poses()[refs[1].link],
                cache,
                order,
            )
        })?;
        for (hulls, c) in &frictions {
            energy.value += c.value;
            add(links(*hulls), c, 1.0);
        }
        self.timings.friction += clock.elapsed();
        Ok(Some(energy))
    }

    fn pair_terms(&mut self, model: &Model, kin: &Kinematics) -> Result<Vec<PairTerm>> {
        let stiffness = self.settings.stiffness;
        let mut terms = Vec::new();
        for pair in self.candidate_pairs(model, kin.poses()) {
            let hulls = [self.hulls[pair.0], self.hulls[pair.1]];
            if let PairOutcome::Separated(c) = self.barrier(model, kin, pair, Order::Design)?
                && c.value > 0.0
            {
                terms.push(pair_term(hulls, &c, Matrix12::zeros(), stiffness));
            }
        }
        let lagged = self.frictions(|friction, frame, refs, cache| {
            friction.evaluate_lagged(
                frame,
                &kin.poses()[refs[0].link],
                &kin.poses()[refs[1].link],
                cache,
            )
        })?;
        for (hulls, l) in &lagged {
            terms.push(pair_term(*hulls, &l.contact, l.step_mixed, 1.0));
        }
        Ok(terms)
    }

    fn penetration(&mut self, model: &Model, now: &Kinematics) -> Option<DynamicsError> {
        self.candidate_pairs(model, now.poses())
            .into_iter()
            .find_map(|pair| {
                matches!(
                    self.barrier(model, now, pair, Order::Value),
                    Ok(PairOutcome::Penetrating)
                )
                .then(|| {
                    contact_error(
                        &self.names,
                        links([self.hulls[pair.0], self.hulls[pair.1]]),
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
        for pair in self.candidate_pairs(model, kin.poses()) {
            let value = self.barrier(model, kin, pair, Order::Value)?.value();
            if value > 0.0 && largest.is_none_or(|(_, v)| value > v) {
                largest = Some((
                    links([self.hulls[pair.0], self.hulls[pair.1]]),
                    self.settings.stiffness * value,
                ));
            }
        }
        Ok(largest)
    }

    fn reset_warm_starts(&mut self) {
        self.planes.clear();
        self.frictions.clear();
    }

    fn timings(&self) -> StepTimings {
        self.timings
    }

    fn contacts(
        &mut self,
        model: &Model,
        previous: &[Isometry3<f64>],
        kin: &Kinematics,
    ) -> Result<Vec<ActiveContact>> {
        let stiffness = self.settings.stiffness;
        // Per hull pair: the normal energy's gradient, then the friction's.
        let mut found: BTreeMap<(usize, usize), [Option<Vector12>; 2]> = BTreeMap::new();
        for pair in self.candidate_pairs(model, kin.poses()) {
            let outcome = self.barrier_from(
                model,
                kin.poses(),
                pair,
                &mut PlaneCache::default(),
                Order::Gradient,
            )?;
            match outcome {
                PairOutcome::Separated(c) if c.value > 0.0 => {
                    found.entry(pair).or_default()[0] = Some(c.gradient * stiffness);
                }
                PairOutcome::Separated(_) => {}
                PairOutcome::Penetrating => {
                    return Err(contact_error(
                        &self.names,
                        links([self.hulls[pair.0], self.hulls[pair.1]]),
                        sdrs_contact::ContactError::PenetratingFrame,
                    ));
                }
            }
        }
        let lagged = match self.settings.friction {
            Some(_) => self.candidate_pairs(model, previous),
            None => Vec::new(),
        };
        if let Some(friction) = &self.settings.friction {
            for pair in lagged {
                let Some(frame) = self.frame(model, previous, pair, &mut PlaneCache::default())?
                else {
                    continue;
                };
                let [ha, hb] = [self.hulls[pair.0], self.hulls[pair.1]];
                let c = friction
                    .evaluate(
                        &frame,
                        &kin.poses()[ha.link],
                        &kin.poses()[hb.link],
                        &mut FrictionCache::default(),
                        Order::Gradient,
                    )
                    .map_err(|e| contact_error(&self.names, [ha.link, hb.link], e))?;
                found.entry(pair).or_default()[1] = Some(c.gradient);
            }
        }
        let with_friction = self.settings.friction.is_some();
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
