//! Which links may touch: collision filtering as robot users know it.
//!
//! Real collision meshes overlap wherever links meet, so a simulator must leave some link
//! pairs out of contact. A pair of links `(a, b)` is left out when
//!
//! 1. **neither can move** (no DoF on either's path from the world: a fixed base, the ground):
//!    their contact energy is a constant, or infinite if they overlap;
//! 2. **they are one body**: links joined by fixed joints (`panda_link7`, `panda_link8` and
//!    `panda_hand`) move as one rigid body ([`Model::body`]);
//! 3. **their bodies are parent and child** (only when the contact settings ask for it, as
//!    [`crate::ContactSettings::skip_adjacent`] does by default): the body whose joint hangs
//!    from the other body, across any fixed joints (`panda_link6`'s body and the hand);
//! 4. **the user or a robot description excluded the pair**: SRDF `<disable_collisions>`,
//!    [`Model::exclude_pair`], or [`Model::exclude_touching`], which excludes every pair that
//!    overlaps or lies within a margin in a reference configuration and returns them;
//! 5. **their groups do not match**, in the spirit of MuJoCo's `contype`/`conaffinity`: each
//!    link has a `group` and a `mask` bit set ([`LinkContact`]), and two links may touch when
//!    `group_a & mask_b != 0` or `group_b & mask_a != 0`. Every link starts in group 1 with
//!    mask 1; [`Model::exclude_link`] clears both.
//!
//! Rules 1, 2, 4 and 5 are the model's ([`Model::may_touch`]); rule 3 belongs to the contact
//! settings so one model can be simulated either way.

use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use sdrs_geometry::gjk::{Proximity, distance};

/// A link's collision group and mask bits and the links it must never touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkContact {
    /// The groups this link belongs to (MuJoCo's `contype`).
    pub group: u32,
    /// The groups this link touches (MuJoCo's `conaffinity`).
    pub mask: u32,
    /// Links (model indices) this link never touches, whatever their groups.
    pub excluded: Vec<usize>,
}

impl Default for LinkContact {
    /// Group 1, mask 1, nothing excluded: touches every other link by default.
    fn default() -> Self {
        Self {
            group: 1,
            mask: 1,
            excluded: Vec::new(),
        }
    }
}

/// A pair of links left out of contact, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct ExcludedPair {
    /// First link's name.
    pub link_a: String,
    /// Second link's name.
    pub link_b: String,
    /// The smallest distance between their hulls in the reference configuration (0 when they
    /// overlap).
    pub distance: f64,
}

impl Model {
    /// Whether links `a` and `b` may touch under the model's rules (see the [module
    /// docs](crate::filter)); with `skip_parent_child`, also false for parent and child bodies.
    pub fn may_touch(&self, a: usize, b: usize, skip_parent_child: bool) -> bool {
        let links = self.links();
        let moves = |i: usize| !self.path(i).is_empty();
        if a == b || !(moves(a) || moves(b)) || self.body(a) == self.body(b) {
            return false;
        }
        if skip_parent_child
            && (self.parent_body(a) == Some(self.body(b))
                || self.parent_body(b) == Some(self.body(a)))
        {
            return false;
        }
        let (ca, cb) = (&links[a].contact, &links[b].contact);
        if ca.excluded.contains(&b) || cb.excluded.contains(&a) {
            return false;
        }
        (ca.group & cb.mask) != 0 || (cb.group & ca.mask) != 0
    }

    /// Leaves links `a` and `b` (by name) out of contact with each other.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// let mut model = chain(3, 0.01)?.model;
    /// let (a, b) = (model.links()[0].name.clone(), model.links()[2].name.clone());
    /// assert!(model.may_touch(0, 2, true));
    /// model.exclude_pair(&a, &b)?;
    /// assert!(!model.may_touch(0, 2, true));
    /// assert!(model.exclude_pair(&a, "no such link").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn exclude_pair(&mut self, a: &str, b: &str) -> Result<()> {
        let (a, b) = (self.link_index(a)?, self.link_index(b)?);
        self.exclude_pair_indices(a, b)
    }

    /// Leaves links `a` and `b` (model indices) out of contact with each other.
    pub fn exclude_pair_indices(&mut self, a: usize, b: usize) -> Result<()> {
        let n = self.links().len();
        for i in [a, b] {
            if i >= n {
                return Err(DynamicsError::LinkIndex { index: i, links: n });
            }
        }
        let contact = &mut self.links_mut()[a].contact;
        if !contact.excluded.contains(&b) {
            contact.excluded.push(b);
        }
        Ok(())
    }

    /// Takes link `name` out of contact altogether (group and mask 0).
    pub fn exclude_link(&mut self, name: &str) -> Result<()> {
        self.set_collision_group(name, 0, 0)
    }

    /// Sets link `name`'s collision group and mask bits (see the [module docs](crate::filter)).
    pub fn set_collision_group(&mut self, name: &str, group: u32, mask: u32) -> Result<()> {
        let i = self.link_index(name)?;
        let contact = &mut self.links_mut()[i].contact;
        contact.group = group;
        contact.mask = mask;
        Ok(())
    }

    /// The automatic filter: excludes every pair of links that may touch (parent and child
    /// bodies included) whose hulls overlap or come closer than `margin` in `state`, and
    /// returns them, closest first, so the user sees what was left out. Use the barrier's
    /// support distance (or more) as the margin: a pair that starts inside it is pushed apart
    /// hard in the first step. Pairs that only come close in other configurations keep their
    /// contact.
    ///
    /// ```
    /// use sdrs_dynamics::{JointKind, Link, MassModel, Model, State};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = || vec![ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap()];
    /// let links = vec![
    ///     Link::new("base", None, Isometry3::identity(), JointKind::Free, cube(), MassModel::Lumped { mass: 1.0 }),
    ///     Link::new("arm", Some(0), Isometry3::translation(0.15, 0.0, 0.0),
    ///               JointKind::Revolute { axis: Vector3::z() }, cube(), MassModel::Lumped { mass: 1.0 }),
    /// ];
    /// let mut model = Model::new(links)?;
    /// let excluded = model.exclude_touching(&State::zero(&model), 0.01)?;
    /// assert_eq!((excluded[0].link_a.as_str(), excluded[0].link_b.as_str()), ("base", "arm"));
    /// assert!(!model.may_touch(0, 1, false));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn exclude_touching(&mut self, state: &State, margin: f64) -> Result<Vec<ExcludedPair>> {
        if !(margin >= 0.0 && margin.is_finite()) {
            return Err(DynamicsError::InvalidSetting {
                name: "margin",
                value: margin,
                allowed: "finite and non-negative (m)",
            });
        }
        state.check(self)?;
        let kin = Kinematics::new(self, state);
        let mut found = Vec::new();
        let n = self.links().len();
        for a in 0..n {
            for b in a + 1..n {
                if !self.may_touch(a, b, false) {
                    continue;
                }
                if let Some(d) = self.link_distance(&kin, a, b, margin)
                    && d < margin
                {
                    found.push((a, b, d));
                }
            }
        }
        found.sort_by(|x, y| x.2.total_cmp(&y.2));
        let mut out = Vec::with_capacity(found.len());
        for (a, b, d) in found {
            self.exclude_pair_indices(a, b)?;
            out.push(ExcludedPair {
                link_a: self.links()[a].name.clone(),
                link_b: self.links()[b].name.clone(),
                distance: d,
            });
        }
        Ok(out)
    }

    /// The smallest distance between the hulls of links `a` and `b` at `kin` (0 when they
    /// overlap), or `None` when it is at least `beyond` or a link has no hulls.
    pub(crate) fn link_distance(
        &self,
        kin: &Kinematics,
        a: usize,
        b: usize,
        beyond: f64,
    ) -> Option<f64> {
        let (la, lb) = (&self.links()[a], &self.links()[b]);
        let (pa, pb) = (&kin.poses()[a], &kin.poses()[b]);
        let mut best: Option<f64> = None;
        for ha in &la.hulls {
            let box_a = ha.aabb(pa).inflated(beyond);
            for hb in &lb.hulls {
                if !box_a.intersects(&hb.aabb(pb)) {
                    continue;
                }
                let d = match distance(ha, pa, hb, pb) {
                    Proximity::Separated(s) => s.distance,
                    Proximity::Intersecting { .. } => 0.0,
                };
                if d < beyond && best.is_none_or(|b| d < b) {
                    best = Some(d);
                }
            }
        }
        best
    }
}
