//! [`LongRangeContact`]: the long-range hierarchical potential between the links' triangle
//! meshes as a [`ContactHook`] (long-range paper, sec. 4-5).
//!
//! The potential has global support: every pair of links that carry a mesh interacts at any
//! distance (there is no broad phase to cull with). The contact stiffness `κ` (the paper's
//! `μ`) sets how far from contact bodies come to rest: 1e-6 to 1e-8 gives millimetre to
//! sub-millimetre gaps at everyday masses (paper Table 2).
//!
//! Link pairs are evaluated in parallel on rayon's thread pool (deterministic: results are
//! summed in pair order). Friction (appendix A.3) and derivatives with respect to the mesh vertices are not
//! provided: the mesh is not part of the design vector (`Model::design` covers hulls and
//! attachments), so the backward pass sees the contact through the link poses only.

use super::StepTimings;
use super::contact::{ContactEnergy, ContactHook, PairTerm, order_for};
use crate::error::{DynamicsError, Result};
use crate::kinematics::Kinematics;
use crate::model::Model;
use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use sdrs_contact::long_range::{LongRange, LongRangeCache, MeshShape};
use sdrs_contact::twist::Matrix12;
use sdrs_contact::{ContactModel, Order, PairContact, PairOutcome};
use std::time::Instant;

/// Long-range contact between every pair of links with a collision mesh.
#[derive(Debug)]
pub struct LongRangeContact {
    potential: LongRange,
    stiffness: f64,
    shapes: Vec<Option<MeshShape>>,
    pairs: Vec<[usize; 2]>,
    /// Warm starts per pair.
    caches: Vec<LongRangeCache>,
    timings: StepTimings,
}

impl LongRangeContact {
    /// The potential scaled by `stiffness` between the meshes of `model`'s links (links
    /// without a mesh do not collide), skipping parent-child pairs when `skip_adjacent`.
    ///
    /// ```
    /// use sdrs_contact::long_range::LongRange;
    /// use sdrs_dynamics::{JointKind, Link, LongRangeContact, MassModel, Model, Simulator, StepSettings};
    /// use sdrs_geometry::{ConvexHull, TriMesh};
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = |z: f64, joint| {
    ///     Link::new("cube", None, Isometry3::translation(0.0, 0.0, z), joint,
    ///         vec![ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap()], MassModel::Lumped { mass: 1.0 })
    ///     .with_mesh(TriMesh::cuboid(Vector3::repeat(0.1)).unwrap())
    /// };
    /// let model = Model::new(vec![cube(0.0, JointKind::Fixed), cube(1.0, JointKind::Free)])?;
    /// let hook = LongRangeContact::new(&model, LongRange::new(0.1)?, 1e-6, false)?;
    /// assert_eq!(hook.pairs(), &[[0, 1]]);
    /// let sim = Simulator::with_contact(model, StepSettings::new(0.01)?, Box::new(hook));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        model: &Model,
        potential: LongRange,
        stiffness: f64,
        skip_adjacent: bool,
    ) -> Result<Self> {
        if !(stiffness.is_finite() && stiffness > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "long-range contact stiffness",
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
                    .map(|m| MeshShape::new(m).map_err(DynamicsError::ContactSettings))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        let links = model.links();
        let mut pairs = Vec::new();
        for a in 0..links.len() {
            for b in a + 1..links.len() {
                let adjacent = links[b].parent == Some(a) || links[a].parent == Some(b);
                if shapes[a].is_some() && shapes[b].is_some() && !(skip_adjacent && adjacent) {
                    pairs.push([a, b]);
                }
            }
        }
        Ok(Self {
            potential,
            stiffness,
            shapes,
            caches: vec![LongRangeCache::default(); pairs.len()],
            pairs,
            timings: StepTimings::default(),
        })
    }

    /// The pairs of links that interact.
    pub fn pairs(&self) -> &[[usize; 2]] {
        &self.pairs
    }

    fn evaluate(&mut self, kin: &Kinematics, k: usize, order: Order) -> Result<PairOutcome> {
        evaluate_pair(
            &self.potential,
            &self.shapes,
            kin,
            self.pairs[k],
            &mut self.caches[k],
            order,
        )
    }

    /// Every pair at `kin`, in parallel (each pair owns its cache; the results come back in
    /// pair order, so the sums are the same for any thread count).
    fn evaluate_all(&mut self, kin: &Kinematics, order: Order) -> Result<Vec<PairOutcome>> {
        let (potential, shapes) = (&self.potential, &self.shapes);
        self.pairs
            .par_iter()
            .zip(self.caches.par_iter_mut())
            .map(|(&pair, cache)| evaluate_pair(potential, shapes, kin, pair, cache, order))
            .collect()
    }
}

/// One link pair's potential at `kin`.
fn evaluate_pair(
    potential: &LongRange,
    shapes: &[Option<MeshShape>],
    kin: &Kinematics,
    [a, b]: [usize; 2],
    cache: &mut LongRangeCache,
    order: Order,
) -> Result<PairOutcome> {
    let shape = |i: usize| shapes[i].as_ref().expect("pairs have meshes");
    potential
        .evaluate(
            shape(a),
            &kin.poses()[a],
            shape(b),
            &kin.poses()[b],
            cache,
            order,
        )
        .map_err(|source| DynamicsError::Contact {
            link_a: a,
            link_b: b,
            source,
        })
}

impl ContactHook for LongRangeContact {
    fn begin_step(&mut self, _: &Model, _: &Kinematics) -> Result<()> {
        self.timings = StepTimings::default();
        Ok(())
    }

    fn add(
        &mut self,
        model: &Model,
        kin: &Kinematics,
        mut gradient: Option<&mut DVector<f64>>,
        mut hessian: Option<&mut DMatrix<f64>>,
    ) -> Result<Option<ContactEnergy>> {
        let clock = Instant::now();
        let order = order_for(gradient.is_some(), hessian.is_some());
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
            energy.value += self.stiffness * c.value;
            energy.active_pairs += 1;
            if let Some(g) = gradient.as_deref_mut() {
                let h = hessian.is_some().then(|| c.hessian * self.stiffness);
                kin.add_term(
                    model,
                    pair,
                    &(c.gradient * self.stiffness),
                    h.as_ref(),
                    g,
                    hessian.as_deref_mut(),
                );
            }
        }
        self.timings.normal += clock.elapsed();
        Ok(Some(energy))
    }

    fn pair_terms(&mut self, _: &Model, kin: &Kinematics) -> Result<Vec<PairTerm>> {
        let outcomes = self.evaluate_all(kin, Order::Hessian)?;
        let mut terms = Vec::with_capacity(self.pairs.len());
        for (&pair, outcome) in self.pairs.iter().zip(&outcomes) {
            let c: &PairContact = outcome
                .contact()
                .expect("a step's solution is collision-free");
            terms.push(PairTerm {
                links: pair,
                gradient: c.gradient * self.stiffness,
                hessian: c.hessian * self.stiffness,
                step_t: Matrix12::zeros(),
                vertices: Vec::new(),
            });
        }
        Ok(terms)
    }

    fn penetration(&mut self, _: &Model, now: &Kinematics) -> DynamicsError {
        for k in 0..self.pairs.len() {
            let pair = self.pairs[k];
            if let Ok(PairOutcome::Penetrating) = self.evaluate(now, k, Order::Value) {
                return DynamicsError::InitialPenetration {
                    link_a: pair[0],
                    link_b: pair[1],
                };
            }
        }
        DynamicsError::InfiniteEnergy
    }

    fn timings(&self) -> StepTimings {
        self.timings
    }
}
