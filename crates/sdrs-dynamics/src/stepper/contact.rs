//! The scene's hulls, the broad phase over them, per-pair warm starts and friction frames.

use super::{ContactSettings, Simulator, StepTimings};
use crate::error::{DynamicsError, Result};
use crate::kinematics::Kinematics;
use crate::model::Model;
use sdrs_contact::friction::{FrictionCache, FrictionFrame};
use sdrs_contact::{ContactModel, Order, PairOutcome, PlaneCache};
use sdrs_geometry::broad_phase::{BroadPhase, Proxy};
use std::collections::HashMap;
use std::time::Instant;

/// A hull of the scene: its link and index in that link.
#[derive(Debug, Clone, Copy)]
pub(super) struct HullRef {
    pub(super) link: usize,
    pub(super) hull: usize,
}

/// Every hull of the scene, the broad phase over them and the per-pair warm starts.
#[derive(Debug)]
pub(super) struct ContactState {
    pub(super) settings: ContactSettings,
    pub(super) hulls: Vec<HullRef>,
    pub(super) broad_phase: BroadPhase,
    pub(super) planes: HashMap<(usize, usize), PlaneCache>,
    pub(super) frictions: HashMap<(usize, usize), FrictionCache>,
    pub(super) timings: StepTimings,
}

impl Simulator {
    /// Friction frames of every pair in contact at the step-t configuration.
    pub(super) fn friction_frames(
        &mut self,
        now: &Kinematics,
    ) -> Result<Vec<((usize, usize), FrictionFrame)>> {
        let model = &self.model;
        let Some(contact) = self.contact.as_mut() else {
            return Ok(Vec::new());
        };
        if contact.settings.friction.is_none() {
            return Ok(Vec::new());
        }
        let clock = Instant::now();
        let mut frames = Vec::new();
        for (a, b) in contact.candidate_pairs(model, now) {
            let (ha, hb) = (contact.hulls[a], contact.hulls[b]);
            let cache = contact.planes.entry((a, b)).or_default();
            let frame = FrictionFrame::new(
                &contact.settings.barrier,
                contact.settings.stiffness,
                &model.links()[ha.link].hulls[ha.hull],
                &now.poses()[ha.link],
                &model.links()[hb.link].hulls[hb.hull],
                &now.poses()[hb.link],
                cache,
            )
            .map_err(|source| match source {
                sdrs_contact::ContactError::PenetratingFrame => DynamicsError::InitialPenetration {
                    link_a: ha.link,
                    link_b: hb.link,
                },
                source => DynamicsError::Contact {
                    link_a: ha.link,
                    link_b: hb.link,
                    source,
                },
            })?;
            if let Some(frame) = frame {
                frames.push(((a, b), frame));
            }
        }
        contact.timings.normal += clock.elapsed();
        Ok(frames)
    }

    /// The error for a step whose starting state already penetrates (limits were checked).
    pub(super) fn penetrating_pair(&mut self, now: &Kinematics) -> DynamicsError {
        let model = &self.model;
        let contact = self
            .contact
            .as_mut()
            .expect("within the limits, only contact makes the energy infinite");
        for (a, b) in contact.candidate_pairs(model, now) {
            let (ha, hb) = (contact.hulls[a], contact.hulls[b]);
            let outcome = contact.settings.barrier.evaluate(
                &model.links()[ha.link].hulls[ha.hull],
                &now.poses()[ha.link],
                &model.links()[hb.link].hulls[hb.hull],
                &now.poses()[hb.link],
                &mut PlaneCache::default(),
                Order::Value,
            );
            if matches!(outcome, Ok(PairOutcome::Penetrating)) {
                return DynamicsError::InitialPenetration {
                    link_a: ha.link,
                    link_b: hb.link,
                };
            }
        }
        unreachable!("an infinite energy comes from a penetrating pair")
    }
}

impl ContactState {
    /// Every hull of `model`, a broad phase inflated by the barrier's support distance, and
    /// empty warm-start caches.
    pub(super) fn new(model: &Model, settings: &ContactSettings) -> Self {
        Self {
            settings: settings.clone(),
            hulls: model
                .links()
                .iter()
                .enumerate()
                .flat_map(|(link, l)| (0..l.hulls.len()).map(move |hull| HullRef { link, hull }))
                .collect(),
            broad_phase: BroadPhase::new(settings.barrier.support_distance())
                .expect("a barrier's support distance is a valid margin"),
            planes: HashMap::new(),
            frictions: HashMap::new(),
            timings: StepTimings::default(),
        }
    }

    /// Candidate hull pairs (indices into `hulls`, sorted) within the barrier's support.
    pub(super) fn candidate_pairs(
        &mut self,
        model: &Model,
        kin: &Kinematics,
    ) -> Vec<(usize, usize)> {
        let proxies: Vec<Proxy> = self
            .hulls
            .iter()
            .map(|h| Proxy {
                body: h.link,
                aabb: model.links()[h.link].hulls[h.hull].aabb(&kin.poses()[h.link]),
            })
            .collect();
        let skip = self.settings.skip_adjacent;
        let adjacent = |a: usize, b: usize| {
            skip && (model.links()[a].parent == Some(b) || model.links()[b].parent == Some(a))
        };
        let mut pairs = Vec::new();
        self.broad_phase
            .candidate_pairs(&proxies, adjacent, &mut pairs);
        pairs
    }
}
