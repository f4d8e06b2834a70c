//! Collision detection for the step: hull-ground and hull-hull contact patches (up to 4 points
//! each, `sdrs_geometry::contact`) between the links the model's filter lets touch.
//!
//! A [`Detector`] keeps what carries over from one step to the next: a broad phase over every
//! hull's world box (`sdrs_geometry::broad_phase`, boxes inflated by half the contact margin,
//! so two hulls within the margin always overlap there) and the GJK caches of the hull pairs
//! it has met. Only hull pairs whose boxes overlap reach GJK, and a hull meets the ground only
//! when its lowest point along the ground normal is within the margin.

use super::settings::NcpSettings;
use crate::error::NcpError;
use nalgebra::Isometry3;
use sdrs_dynamics::Model;
use sdrs_geometry::broad_phase::{BroadPhase, Proxy};
use sdrs_geometry::contact::{ContactPoint, hull_halfspace_contacts, hull_pair_contacts};
use sdrs_geometry::gjk::GjkCache;
use std::collections::HashMap;

/// A contact between link `a` (`None`: the ground half-space) and link `b`; its normal points
/// from `a` to `b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkContact {
    /// Body A's link, or `None` for the ground.
    pub a: Option<usize>,
    /// Body B's link.
    pub b: usize,
    /// Which point of its patch (for warm starts: `(a, hull of a, b, hull of b, point)`).
    pub key: ContactKey,
    /// The geometric contact.
    pub point: ContactPoint,
}

/// Identifies a contact across steps: the links, their hulls and the point's index in the
/// patch.
pub type ContactKey = (Option<usize>, usize, usize, usize, usize);

/// The number of link pairs `(a, b)`, `a < b`, both with hulls, that the model lets touch
/// (parent and child bodies skipped).
fn link_pair_count(model: &Model) -> usize {
    let links = model.links();
    (0..links.len())
        .flat_map(|b| (0..b).map(move |a| (a, b)))
        .filter(|&(a, b)| {
            !links[a].hulls.is_empty() && !links[b].hulls.is_empty() && model.may_touch(a, b, true)
        })
        .count()
}

/// Collision detection across steps (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Detector {
    /// `(link, hull)` of each broad-phase proxy, in link order.
    hulls: Vec<(usize, usize)>,
    /// Per proxy, the support vertices of its last world box (warm starts for the next).
    box_hints: Vec<[usize; 6]>,
    /// The link pairs the model lets touch (for reports).
    link_pairs: usize,
    /// Built at the first detection, with the settings' margin.
    broad_phase: Option<BroadPhase>,
    proxies: Vec<Proxy>,
    candidates: Vec<(usize, usize)>,
    caches: HashMap<ContactKey, GjkCache>,
}

impl Detector {
    /// A detector for `model`'s hulls.
    pub fn new(model: &Model) -> Self {
        let hulls: Vec<(usize, usize)> = model
            .links()
            .iter()
            .enumerate()
            .flat_map(|(link, l)| (0..l.hulls.len()).map(move |h| (link, h)))
            .collect();
        Self {
            box_hints: vec![[usize::MAX; 6]; hulls.len()],
            hulls,
            link_pairs: link_pair_count(model),
            broad_phase: None,
            proxies: Vec::new(),
            candidates: Vec::new(),
            caches: HashMap::new(),
        }
    }

    /// The number of link pairs `(a, b)`, both with hulls, that the model lets touch (parent
    /// and child bodies skipped), besides each moving link against the ground.
    pub fn link_pairs(&self) -> usize {
        self.link_pairs
    }

    /// Every contact at the link placements `poses`: the moving hulls against the ground,
    /// then each hull pair the broad phase finds, in proxy order.
    pub fn detect(
        &mut self,
        model: &Model,
        poses: &[Isometry3<f64>],
        settings: &NcpSettings,
    ) -> Result<Vec<LinkContact>, NcpError> {
        let margin = settings.margin();
        let mut out = Vec::new();
        if let Some((normal, offset)) = settings.ground() {
            for &(b, hb) in &self.hulls {
                let hull = &model.links()[b].hulls[hb];
                if model.path(b).is_empty()
                    || normal.dot(&hull.support_point(&poses[b], &-normal).coords) - offset > margin
                {
                    continue;
                }
                let points = hull_halfspace_contacts(hull, &poses[b], &normal, offset, margin)?;
                out.extend(
                    points
                        .into_iter()
                        .enumerate()
                        .map(|(k, point)| LinkContact {
                            a: None,
                            b,
                            key: (None, 0, b, hb, k),
                            point,
                        }),
                );
            }
        }
        let broad_phase = match &mut self.broad_phase {
            Some(bp) if bp.margin() == 0.5 * margin => bp,
            slot => slot.insert(BroadPhase::new(0.5 * margin)?),
        };
        self.proxies.clear();
        self.proxies
            .extend(
                self.hulls
                    .iter()
                    .zip(&mut self.box_hints)
                    .map(|(&(link, h), hints)| Proxy {
                        body: link,
                        aabb: model.links()[link].hulls[h].aabb_from(&poses[link], hints),
                    }),
            );
        broad_phase.try_candidate_pairs(
            &self.proxies,
            |a, b| !model.may_touch(a, b, true),
            &mut self.candidates,
        )?;
        for &(i, j) in &self.candidates {
            let ((a, ha), (b, hb)) = (self.hulls[i], self.hulls[j]);
            let cache = self.caches.entry((Some(a), ha, b, hb, 0)).or_default();
            let points = hull_pair_contacts(
                &model.links()[a].hulls[ha],
                &poses[a],
                &model.links()[b].hulls[hb],
                &poses[b],
                margin,
                cache,
            )?;
            out.extend(
                points
                    .into_iter()
                    .enumerate()
                    .map(|(k, point)| LinkContact {
                        a: Some(a),
                        b,
                        key: (Some(a), ha, b, hb, k),
                        point,
                    }),
            );
        }
        Ok(out)
    }
}
