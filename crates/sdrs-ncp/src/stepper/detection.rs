//! Collision detection for the step: hull-ground and hull-hull contact patches (up to 4 points
//! each, `sdrs_geometry::contact`) between the links the model's filter lets touch.

use super::settings::NcpSettings;
use crate::error::NcpError;
use nalgebra::Isometry3;
use sdrs_dynamics::Model;
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

/// The candidate link pairs `(a, b)`, `a < b`, both with hulls, that the model lets touch
/// (parent and child bodies skipped).
pub fn candidate_pairs(model: &Model) -> Vec<(usize, usize)> {
    let links = model.links();
    let mut pairs = Vec::new();
    for b in 0..links.len() {
        for a in 0..b {
            if !links[a].hulls.is_empty()
                && !links[b].hulls.is_empty()
                && model.may_touch(a, b, true)
            {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

/// Every contact at the link placements `poses`: the moving hulls against the ground, then
/// each candidate pair's hulls.
pub fn detect(
    model: &Model,
    poses: &[Isometry3<f64>],
    pairs: &[(usize, usize)],
    settings: &NcpSettings,
    caches: &mut HashMap<ContactKey, GjkCache>,
) -> Result<Vec<LinkContact>, NcpError> {
    let mut out = Vec::new();
    if let Some((normal, offset)) = settings.ground() {
        for (b, link) in model.links().iter().enumerate() {
            if model.path(b).is_empty() {
                continue;
            }
            for (hb, hull) in link.hulls.iter().enumerate() {
                let points =
                    hull_halfspace_contacts(hull, &poses[b], &normal, offset, settings.margin())?;
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
    }
    for &(a, b) in pairs {
        for (ha, hull_a) in model.links()[a].hulls.iter().enumerate() {
            for (hb, hull_b) in model.links()[b].hulls.iter().enumerate() {
                let cache = caches.entry((Some(a), ha, b, hb, 0)).or_default();
                let points = hull_pair_contacts(
                    hull_a,
                    &poses[a],
                    hull_b,
                    &poses[b],
                    settings.margin(),
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
        }
    }
    Ok(out)
}
