//! Mesh-based contact as a [`ContactHook`]: any [`ContactModel`] over triangle meshes (its
//! shapes built with [`FromMesh`]) between the links' collision meshes ([`crate::Link::mesh`]).
//!
//! - [`LongRangeContact`]: the long-range hierarchical potential (long-range paper sec. 4-5).
//!   Its support is global: every pair of links with a mesh interacts at any distance. The
//!   contact stiffness `κ` (the paper's `μ`) sets how far from contact bodies rest: the
//!   potential sums over all triangle pairs, so `κ` must be small (1e-8 for the billiards
//!   balls, sub-millimetre gaps; paper Table 2 uses 1e-6 to 1e-10).
//! - Any other mesh model, e.g. the IPC baseline ([`IpcContact`]); link pairs
//!   whose mesh boxes are farther apart than a finite support are skipped. A locally
//!   supported barrier could be stepped across by a fast or thin body between two line-search
//!   points; the hook limits every Newton step by the model's continuous collision detection
//!   ([`ContactModel::max_step`], additive CCD for IPC), as IPC does.
//!
//! Friction is optional ([`MeshContact::with_friction`]): a [`LaggedFriction`] model for the
//! same shapes gathers its lagged data from the step-t state at the start of each step, and
//! its energy of the step-(t+1) state joins the objective; for the long-range potential that
//! is [`sdrs_contact::long_range::friction::LongRangeFriction`] (long-range paper A.3).
//!
//! Link pairs are evaluated in parallel on rayon's thread pool (deterministic: results are
//! summed in pair order), each with its own warm-start cache. Derivatives with respect to the
//! mesh vertices are not asked for: the mesh is not part of the design vector
//! (`Model::design` covers hulls and attachments), so the backward pass sees the contact
//! through the link poses only.

use super::StepTimings;
use super::active::{ActiveContact, mesh_closest};
use super::contact::{
    ContactEnergy, ContactHook, PairTerm, add_pair, contact_error, link_names, order_for,
};
use super::link_sums::LinkSums;
use super::pairs::{MESH_PAIRS, each_pair};
use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Isometry3};
use sdrs_contact::ipc::friction::IpcFriction;
use sdrs_contact::ipc::potential::Ipc;
use sdrs_contact::long_range::LongRange;
use sdrs_contact::long_range::friction::LongRangeFriction;
use sdrs_contact::{ContactModel, FromMesh, LaggedFriction, Order, PairContact, PairOutcome};
use sdrs_geometry::Aabb;
use sdrs_geometry::twist::{Matrix12, Vector12};
use std::time::Instant;

/// Contact between every pair of links with a collision mesh under the mesh model `M`, with
/// optional lagged friction `F`.
#[derive(Debug)]
pub struct MeshContact<M: ContactModel, F: LaggedFriction> {
    potential: M,
    friction: Option<F>,
    /// Each pair's lagged friction data of the current step.
    frames: Vec<Option<F::Frames>>,
    stiffness: f64,
    shapes: Vec<Option<M::Shape>>,
    /// Each mesh's body-frame box.
    boxes: Vec<Option<Aabb>>,
    pairs: Vec<[usize; 2]>,
    /// Link names, for errors.
    names: Vec<String>,
    /// Warm starts per pair.
    caches: Vec<M::Cache>,
    /// The evaluation's pair terms per link, mapped to generalized coordinates once.
    sums: LinkSums,
    timings: StepTimings,
}

impl<M, F> Clone for MeshContact<M, F>
where
    M: ContactModel + Clone,
    M::Shape: Clone,
    F: LaggedFriction + Clone,
    F::Frames: Clone,
{
    fn clone(&self) -> Self {
        Self {
            potential: self.potential.clone(),
            friction: self.friction.clone(),
            frames: self.frames.clone(),
            stiffness: self.stiffness,
            shapes: self.shapes.clone(),
            boxes: self.boxes.clone(),
            pairs: self.pairs.clone(),
            names: self.names.clone(),
            caches: self.caches.clone(),
            sums: self.sums.clone(),
            timings: self.timings,
        }
    }
}

/// The long-range hierarchical potential between link meshes, with optional long-range
/// friction.
pub type LongRangeContact = MeshContact<LongRange, LongRangeFriction>;

/// The IPC baseline between link meshes, with optional IPC friction (no step-t derivatives:
/// a backward pass through it is refused).
pub type IpcContact = MeshContact<Ipc, IpcFriction>;

impl<M, F> MeshContact<M, F>
where
    M: ContactModel + std::fmt::Debug,
    M::Shape: FromMesh + std::fmt::Debug,
    M::Cache: std::fmt::Debug,
    F: LaggedFriction<Shape = M::Shape> + std::fmt::Debug,
{
    /// The potential scaled by `stiffness` between the meshes of `model`'s links (links
    /// without a mesh do not collide), skipping the pairs the model's collision filter leaves out ([`crate::filter`]) and
    /// parent-child bodies when `skip_adjacent`.
    ///
    /// ```
    /// use sdrs_contact::long_range::LongRange;
    /// use sdrs_dynamics::{JointKind, Link, LongRangeContact, MassModel, Model, Simulator, StepSettings};
    /// use sdrs_geometry::{ConvexHull, TriMesh};
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = |z: f64, joint| {
    ///     Link::new(format!("cube at z = {z}"), None, Isometry3::translation(0.0, 0.0, z), joint,
    ///         vec![ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap()], MassModel::Lumped { mass: 1.0 })
    ///     .with_mesh(TriMesh::cuboid(Vector3::repeat(0.1)).unwrap())
    /// };
    /// let model = Model::new(vec![cube(0.0, JointKind::Fixed), cube(1.0, JointKind::Free)])?;
    /// let hook = LongRangeContact::new(&model, LongRange::new(0.1)?, 1e-6, false)?;
    /// assert_eq!(hook.pairs(), &[[0, 1]]);
    /// let sim = Simulator::with_contact(model, StepSettings::new(0.01)?, Box::new(hook))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(model: &Model, potential: M, stiffness: f64, skip_adjacent: bool) -> Result<Self> {
        if !(stiffness.is_finite() && stiffness > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "mesh contact stiffness",
                value: stiffness,
                allowed: "positive and finite",
            });
        }
        let shapes = model
            .links()
            .iter()
            .map(|l| {
                l.mesh
                    .clone()
                    .map(|m| M::Shape::from_mesh(m).map_err(DynamicsError::ContactSettings))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        let boxes = shapes
            .iter()
            .map(|s| s.as_ref().map(|s| s.mesh().aabb()))
            .collect();
        let mut pairs = Vec::new();
        for a in 0..shapes.len() {
            for b in a + 1..shapes.len() {
                if shapes[a].is_some()
                    && shapes[b].is_some()
                    && model.may_touch(a, b, skip_adjacent)
                {
                    pairs.push([a, b]);
                }
            }
        }
        Ok(Self {
            potential,
            friction: None,
            frames: Vec::new(),
            stiffness,
            shapes,
            boxes,
            caches: (0..pairs.len()).map(|_| M::Cache::default()).collect(),
            pairs,
            names: link_names(model),
            sums: LinkSums::default(),
            timings: StepTimings::default(),
        })
    }

    /// Adds lagged friction between the same meshes (its normal forces scaled by the contact
    /// stiffness).
    pub fn with_friction(mut self, friction: F) -> Self {
        self.friction = Some(friction);
        self
    }

    /// The pairs of links that interact.
    pub fn pairs(&self) -> &[[usize; 2]] {
        &self.pairs
    }

    /// Every pair at `kin`, in parallel (each pair owns its cache; the results come back in
    /// pair order, so the sums are the same for any thread count).
    fn evaluate_all(&mut self, kin: &Kinematics, order: Order) -> Result<Vec<PairOutcome>> {
        let (potential, shapes, boxes) = (&self.potential, &self.shapes, &self.boxes);
        let names = &self.names;
        each_pair(&self.pairs, &mut self.caches, MESH_PAIRS, |&pair, cache| {
            evaluate_pair(potential, shapes, boxes, kin, pair, cache, order)
                .map_err(|e| contact_error(names, pair, e))
        })
    }
}

impl<M, F> MeshContact<M, F>
where
    M: ContactModel,
    F: LaggedFriction<Shape = M::Shape>,
{
    /// Gathers every pair's lagged friction data at the step-t kinematics `now` (in parallel).
    fn gather_frames(&mut self, now: &Kinematics) -> Result<()> {
        let Some(friction) = &self.friction else {
            self.frames.clear();
            return Ok(());
        };
        let (shapes, names) = (&self.shapes, &self.names);
        let stiffness = self.stiffness;
        self.frames = each_pair(
            &self.pairs,
            &mut vec![(); self.pairs.len()],
            MESH_PAIRS,
            |&[a, b], _| {
                let shape = |i: usize| shapes[i].as_ref().expect("pairs have meshes");
                let (pa, pb) = (&now.poses()[a], &now.poses()[b]);
                friction
                    .frames(stiffness, shape(a), pa, shape(b), pb)
                    .map(Some)
                    .map_err(|e| contact_error(names, [a, b], e))
            },
        )?;
        Ok(())
    }

    /// `f` on every pair's friction frames at `kin`, in parallel, in pair order; empty without
    /// friction.
    fn frictions<T: Send>(
        &mut self,
        kin: &Kinematics,
        f: impl Fn(&F, &mut F::Frames, &Isometry3<f64>, &Isometry3<f64>) -> sdrs_contact::Result<T>
        + Sync,
    ) -> Result<Vec<T>> {
        let Some(friction) = &self.friction else {
            return Ok(Vec::new());
        };
        let names = &self.names;
        let found = each_pair(
            &self.pairs,
            &mut self.frames,
            MESH_PAIRS,
            |&[a, b], frames| {
                frames
                    .as_mut()
                    .map(|frames| f(friction, frames, &kin.poses()[a], &kin.poses()[b]))
                    .transpose()
                    .map_err(|e| contact_error(names, [a, b], e))
            },
        )?;
        Ok(found.into_iter().flatten().collect())
    }
}

/// The world box of a body-frame box at `pose` (its eight corners moved).
fn world_box(b: &Aabb, pose: &Isometry3<f64>) -> Aabb {
    let corners: Vec<_> = (0..8)
        .map(|k| {
            let pick = |bit: usize, lo: f64, hi: f64| if k >> bit & 1 == 0 { lo } else { hi };
            pose * nalgebra::Point3::new(
                pick(0, b.mins.x, b.maxs.x),
                pick(1, b.mins.y, b.maxs.y),
                pick(2, b.mins.z, b.maxs.z),
            )
        })
        .collect();
    Aabb::from_points(&corners)
}

/// One link pair's potential at `kin`; zero without evaluating when the model's support is
/// finite and the meshes' boxes are farther apart than it.
fn evaluate_pair<M: ContactModel>(
    potential: &M,
    shapes: &[Option<M::Shape>],
    boxes: &[Option<Aabb>],
    kin: &Kinematics,
    [a, b]: [usize; 2],
    cache: &mut M::Cache,
    order: Order,
) -> sdrs_contact::Result<PairOutcome> {
    let support = potential.support_distance();
    if support.is_finite() {
        let world = |i: usize| {
            world_box(
                boxes[i].as_ref().expect("pairs have meshes"),
                &kin.poses()[i],
            )
        };
        if !world(a).inflated(support).intersects(&world(b)) {
            return Ok(PairOutcome::Separated(PairContact::zero()));
        }
    }
    let shape = |i: usize| shapes[i].as_ref().expect("pairs have meshes");
    potential.evaluate(
        shape(a),
        &kin.poses()[a],
        shape(b),
        &kin.poses()[b],
        cache,
        order,
    )
}

impl<M, F> ContactHook for MeshContact<M, F>
where
    M: ContactModel + Clone + std::fmt::Debug + Send + 'static,
    M::Shape: FromMesh + Clone + std::fmt::Debug + Send,
    M::Cache: std::fmt::Debug,
    F: LaggedFriction<Shape = M::Shape> + Clone + std::fmt::Debug + Send + 'static,
    F::Frames: Clone,
{
    fn boxed_clone(&self) -> Box<dyn ContactHook> {
        Box::new(self.clone())
    }

    fn begin_step(&mut self, _: &Model, now: &Kinematics) -> Result<()> {
        self.timings = StepTimings::default();
        let clock = Instant::now();
        self.gather_frames(now)?;
        self.timings.friction += clock.elapsed();
        Ok(())
    }

    fn add(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        gradient: Option<&mut DVector<f64>>,
        hessian: Option<&mut DMatrix<f64>>,
    ) -> Result<Option<ContactEnergy>> {
        let clock = Instant::now();
        let order = order_for(gradient.is_some(), hessian.is_some());
        self.sums.clear(model.links().len());
        let mut energy = ContactEnergy {
            value: 0.0,
            active_pairs: 0,
        };
        let outcomes = self.evaluate_all(kin, order)?;
        for (&pair, outcome) in self.pairs.iter().zip(&outcomes) {
            let PairOutcome::Separated(c) = outcome else {
                self.timings.normal += clock.elapsed();
                return Ok(None);
            };
            if c.value == 0.0 {
                continue;
            }
            energy.value += self.stiffness * c.value;
            energy.active_pairs += 1;
            add_pair(&mut self.sums, pair, c, self.stiffness, order);
        }
        self.timings.normal += clock.elapsed();
        let clock = Instant::now();
        let frictions =
            self.frictions(kin, |f, frames, pa, pb| f.evaluate(frames, pa, pb, order))?;
        let with_friction = self
            .pairs
            .iter()
            .zip(&self.frames)
            .filter(|(_, f)| f.is_some());
        for ((&pair, _), c) in with_friction.zip(&frictions) {
            energy.value += c.value;
            add_pair(&mut self.sums, pair, c, 1.0, order);
        }
        if let Some(gradient) = gradient {
            self.sums.add_to(model, kin, gradient, hessian, None);
        }
        self.timings.friction += clock.elapsed();
        Ok(Some(energy))
    }

    fn pair_terms(&mut self, _: &Model, kin: &Kinematics) -> Result<Vec<PairTerm>> {
        let outcomes = self.evaluate_all(kin, Order::Hessian)?;
        let mut terms = Vec::with_capacity(self.pairs.len());
        for (&pair, outcome) in self.pairs.iter().zip(&outcomes) {
            let c: &PairContact = outcome
                .contact()
                .expect("a step's solution is collision-free");
            if c.value == 0.0 {
                continue;
            }
            terms.push(PairTerm {
                links: pair,
                gradient: c.gradient * self.stiffness,
                hessian: c.hessian * self.stiffness,
                step_t: Matrix12::zeros(),
                vertices: Vec::new(),
                friction: None,
            });
        }
        let lagged = self.frictions(kin, |f, frames, pa, pb| f.evaluate_lagged(frames, pa, pb))?;
        let with_friction = self
            .pairs
            .iter()
            .zip(&self.frames)
            .filter(|(_, f)| f.is_some());
        for ((&links, _), l) in with_friction.zip(lagged) {
            terms.push(PairTerm {
                links,
                gradient: l.contact.gradient,
                hessian: l.contact.hessian,
                step_t: l.step_mixed,
                vertices: Vec::new(),
                friction: Some(l.force_scale_mixed),
            });
        }
        Ok(terms)
    }

    /// The smallest of the mesh model's [`ContactModel::max_step`] over the link pairs (in
    /// parallel), for models with a finite support; a globally supported barrier is felt at
    /// any distance and needs none.
    fn max_step(&mut self, model: &Model, from: &Kinematics, to: &State) -> Result<f64> {
        if !self.potential.support_distance().is_finite() {
            return Ok(1.0);
        }
        let to = Kinematics::new(model, to);
        let (potential, shapes, names) = (&self.potential, &self.shapes, &self.names);
        let steps = each_pair(
            &self.pairs,
            &mut vec![(); self.pairs.len()],
            MESH_PAIRS,
            |&[a, b], _| {
                let shape = |i: usize| shapes[i].as_ref().expect("pairs have meshes");
                let (from, to) = (from.poses(), to.poses());
                potential
                    .max_step(shape(a), shape(b), [&from[a], &from[b]], [&to[a], &to[b]])
                    .map_err(|e| contact_error(names, [a, b], e))
            },
        )?;
        Ok(steps.into_iter().fold(1.0, f64::min))
    }

    fn penetration(&mut self, _: &Model, now: &Kinematics) -> Option<DynamicsError> {
        let (potential, shapes, boxes) = (&self.potential, &self.shapes, &self.boxes);
        // A pair whose evaluation fails is not known to penetrate: keep looking.
        let outcomes = each_pair(&self.pairs, &mut self.caches, MESH_PAIRS, |&pair, cache| {
            Ok(evaluate_pair(
                potential,
                shapes,
                boxes,
                now,
                pair,
                cache,
                Order::Value,
            ))
        })
        .ok()?;
        self.pairs
            .iter()
            .zip(outcomes)
            .find_map(|(&pair, outcome)| {
                matches!(outcome, Ok(PairOutcome::Penetrating)).then(|| {
                    contact_error(
                        &self.names,
                        pair,
                        sdrs_contact::ContactError::PenetratingFrame,
                    )
                })
            })
    }

    fn largest_pair(&mut self, _: &Model, kin: &Kinematics) -> Result<Option<([usize; 2], f64)>> {
        let outcomes = self.evaluate_all(kin, Order::Value)?;
        Ok(self
            .pairs
            .iter()
            .zip(outcomes)
            .map(|(&pair, o)| (pair, self.stiffness * o.value()))
            .filter(|(_, v)| *v > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1)))
    }

    fn reset_warm_starts(&mut self) {
        self.caches
            .iter_mut()
            .for_each(|c| *c = M::Cache::default());
    }

    fn timings(&self) -> StepTimings {
        self.timings
    }

    fn contacts(
        &mut self,
        _: &Model,
        previous: &[Isometry3<f64>],
        kin: &Kinematics,
    ) -> Result<Vec<ActiveContact>> {
        let (potential, shapes, boxes) = (&self.potential, &self.shapes, &self.boxes);
        let (friction, names, stiffness) = (&self.friction, &self.names, self.stiffness);
        let found = each_pair(
            &self.pairs,
            &mut vec![(); self.pairs.len()],
            MESH_PAIRS,
            |&[a, b], _| {
                let fail = |e| contact_error(names, [a, b], e);
                let shape = |i: usize| shapes[i].as_ref().expect("pairs have meshes");
                let (pa, pb) = (&kin.poses()[a], &kin.poses()[b]);
                let outcome = evaluate_pair(
                    potential,
                    shapes,
                    boxes,
                    kin,
                    [a, b],
                    &mut M::Cache::default(),
                    Order::Gradient,
                )
                .map_err(fail)?;
                let Some(normal) = outcome.contact() else {
                    return Err(fail(sdrs_contact::ContactError::PenetratingFrame));
                };
                let friction = friction
                    .as_ref()
                    .map(|f| {
                        let mut frames =
                            f.frames(stiffness, shape(a), &previous[a], shape(b), &previous[b])?;
                        f.evaluate(&mut frames, pa, pb, Order::Gradient)
                    })
                    .transpose()
                    .map_err(fail)?;
                let rubbing = friction
                    .as_ref()
                    .is_some_and(|f| f.gradient != Vector12::zeros());
                if normal.value == 0.0 && !rubbing {
                    return Ok(None);
                }
                let closest = mesh_closest(shape(a).mesh(), pa, shape(b).mesh(), pb)
                    .filter(|c| c.distance > 0.0)
                    .ok_or_else(|| fail(sdrs_contact::ContactError::PenetratingFrame))?;
                Ok(Some(ActiveContact::new(
                    [a, b],
                    pb,
                    &(normal.gradient * stiffness),
                    &closest,
                    friction.as_ref().map(|f| &f.gradient),
                )))
            },
        )?;
        Ok(found.into_iter().flatten().collect())
    }
}
