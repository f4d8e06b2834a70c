//! What couples or tunes joints besides the joints themselves: fixed tendons
//! (`<tendon><fixed>`), equality constraints between joints, between tendons and between bodies
//! (`<equality><joint>`, `<tendon>`, `<connect>`, `<weld>`), and joint springs set by
//! `springdamper`.
//!
//! The last two take their stiffness from the joint-space inertia at `qpos0`, as MuJoCo's
//! compiler does: a joint's `springdamper = (τ, ζ)` gives the spring and damper of a
//! mass-spring-damper of time constant `τ` and damping ratio `ζ` on the joint's effective mass
//! `m = 1/(M⁻¹)ⱼⱼ` (`M` with the armature): `k = m/(τζ)²`, `d = 2m/τ` (checked against
//! MuJoCo's compiled `jnt_stiffness` and `dof_damping`). An equality constraint `cᵀθ = c₀`
//! (linear in the coordinates: the polynomial's constant and linear terms) becomes a stiff
//! [`Tendon`] along `c`: the spring and damper that MuJoCo's soft constraint presents to a
//! slowly varying load. MuJoCo moves a constraint's violation `r` by
//! `r̈ = (1 − d) r̈_free + d a_ref` with the reference `a_ref = −b ṙ − k r`,
//! `b = 2/(d_max τ)`, `k = d/(d_max τ ζ)²` from `solref = (τ, ζ)` and the impedance `d` of
//! `solimp` (`d_min` at zero violation, up to `d_max`); under a steady load the violation
//! settles where `d (b ṙ + k r) = (1 − d) r̈_free`, i.e. against a spring `m d k/(1 − d)` and
//! a damper `m d b/(1 − d)` on the constraint's effective mass `m = 1/(cᵀ M⁻¹ c)`. Those are
//! the tendon's, at `d = d_min`; `τ` is at least twice the time step (MuJoCo's default
//! `refsafe`), and `solref = (−k, −b)` gives `k/d_max²` and `b/d_max` in place of the above.
//! The transient differs (MuJoCo's `√(d k)` oscillation is faster here, and damped by the
//! implicit step), so a constraint holds loads as in MuJoCo, not identically. `connect` and
//! `weld` become [`Weld`]s with the same spring per unit mass on MuJoCo's mean inverse weights
//! of the two bodies (`body_invweight0`, translational for the points, rotational for the
//! turn), without the damper.

use super::reader::{EQUALITY_ATTRIBUTES, Elem, Reader, TENDON_ATTRIBUTES};
use super::{MjcfJoint, MjcfJointKind};
use crate::RigidBodyData;
use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use crate::tendon::Tendon;
use crate::weld::Weld;
use nalgebra::{DMatrix, Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use roxmltree::Node;

/// The joint-space inertia at `qpos0` (armature included, as MuJoCo's) and its inverse, made
/// when a `springdamper` or an equality constraint first needs it.
pub(super) struct Inertia<'m> {
    model: &'m Model,
    references: &'m [UnitQuaternion<f64>],
    joints: &'m [MjcfJoint],
    inverse: Option<DMatrix<f64>>,
}

impl<'m> Inertia<'m> {
    pub(super) fn new(
        model: &'m Model,
        references: &'m [UnitQuaternion<f64>],
        joints: &'m [MjcfJoint],
    ) -> Self {
        Self {
            model,
            references,
            joints,
            inverse: None,
        }
    }

    /// The state at `qpos0`.
    fn state(&self) -> State {
        State {
            q: nalgebra::DVector::zeros(self.model.dof()),
            references: self.references.to_vec(),
        }
    }

    /// MuJoCo's mean inverse weights of link `link` at `qpos0` (`body_invweight0`): a third of
    /// the trace of `J M⁻¹ Jᵀ` for the Jacobian of its centre of mass and for its rotation.
    fn body_weights(&mut self, link: usize) -> Result<Option<(f64, f64)>> {
        let kinematics = Kinematics::new(self.model, &self.state());
        let moment = self.model.second_moment(link);
        let mass = moment[(3, 3)];
        let pose = kinematics.poses()[link];
        let centre = if mass > 0.0 {
            pose * Point3::from(moment.fixed_view::<3, 1>(0, 3).into_owned() / mass)
        } else {
            Point3::from(pose.translation.vector)
        };
        let arm = centre.coords - pose.translation.vector;
        let columns: Vec<(usize, Vector3<f64>, Vector3<f64>)> = kinematics
            .jacobian(link)
            .map(|(k, twist)| {
                let w: Vector3<f64> = twist.fixed_rows::<3>(3).into_owned();
                let v: Vector3<f64> = twist.fixed_rows::<3>(0).into_owned();
                (k, v + w.cross(&arm), w)
            })
            .collect();
        let Some(inverse) = self.inverse()? else {
            return Ok(None);
        };
        let (mut translation, mut rotation) = (0.0, 0.0);
        for (j, vj, wj) in &columns {
            for (k, vk, wk) in &columns {
                translation += inverse[(*j, *k)] * vj.dot(vk);
                rotation += inverse[(*j, *k)] * wj.dot(wk);
            }
        }
        Ok(Some((translation / 3.0, rotation / 3.0)))
    }

    /// `M⁻¹` at `qpos0`; `None` when `M` is singular there (a massless chain).
    fn inverse(&mut self) -> Result<Option<&DMatrix<f64>>> {
        if self.inverse.is_none() {
            let state = self.state();
            let mut m = RigidBodyData::new(self.model)
                .crba(self.model, &state)?
                .clone();
            for j in self.joints {
                for k in 0..j.kind.nv() {
                    m[(j.dof + k, j.dof + k)] += j.armature;
                }
            }
            self.inverse = m.cholesky().map(|c| c.inverse());
        }
        Ok(self.inverse.as_ref())
    }

    /// The effective mass `1/(cᵀ M⁻¹ c)` along the DoF weights `c` (`(DoF, weight)`).
    fn effective_mass(&mut self, c: &[(usize, f64)]) -> Result<Option<f64>> {
        let Some(inverse) = self.inverse()? else {
            return Ok(None);
        };
        let weight: f64 = c
            .iter()
            .flat_map(|&(j, a)| c.iter().map(move |&(k, b)| a * b * inverse[(j, k)]))
            .sum();
        Ok((weight > 0.0 && weight.is_finite()).then(|| 1.0 / weight))
    }
}

/// The stiffness and damping `(joint index, k, d)` of every joint with a positive
/// `springdamper` (hinge or slide, checked when it was read), from its effective mass at
/// `qpos0` (see the module docs).
pub(super) fn springdampers(inertia: &mut Inertia) -> Result<Vec<(usize, f64, f64)>> {
    let mut set = Vec::new();
    let joints = inertia.joints;
    for (index, joint) in joints.iter().enumerate() {
        let Some((timeconst, dampratio)) = joint.springdamper else {
            continue;
        };
        let mass = inertia
            .effective_mass(&[(joint.dof, 1.0)])?
            .ok_or_else(|| DynamicsError::Mjcf {
                file: "<model>".into(),
                line: None,
                element: format!("joint '{}'", joint.name.as_deref().unwrap_or("(unnamed)")),
                message: "springdamper needs a joint with inertia at qpos0".into(),
            })?;
        set.push((
            index,
            mass / (timeconst * dampratio).powi(2),
            2.0 * mass / timeconst,
        ));
    }
    Ok(set)
}

/// The hinge or slide joint named `name`, for a tendon or a constraint at `node`.
fn coordinate<'j>(
    r: &Reader,
    node: Node,
    joints: &'j [MjcfJoint],
    name: &str,
) -> Result<&'j MjcfJoint> {
    let joint = joints
        .iter()
        .find(|j| j.name.as_deref() == Some(name))
        .ok_or_else(|| r.error(node, format!("joint '{name}' is not defined")))?;
    if !matches!(joint.kind, MjcfJointKind::Hinge | MjcfJointKind::Slide) {
        return Err(r.error(
            node,
            format!(
                "joint '{name}' is a {:?} joint (allowed: hinge, slide)",
                joint.kind
            ),
        ));
    }
    Ok(joint)
}

/// Reads the fixed tendons of a `<tendon>` section: spring (`stiffness` about `springlength`,
/// the length at `qpos0` when negative or absent), `damping` and `range`, on sdrs's
/// coordinates (`qpos − ref`: MuJoCo's lengths less `Σ c ref`). Unnamed tendons are named
/// `tendon K` (K counting every tendon of the file).
pub(super) fn tendons(
    r: &Reader,
    section: Node,
    joints: &[MjcfJoint],
    tendons: &mut Vec<Tendon>,
) -> Result<()> {
    for node in section.children().filter(Node::is_element) {
        let tag = node.tag_name().name();
        if tag != "fixed" {
            return Err(r.error(
                node,
                format!("{tag} tendons are not supported (allowed: fixed)"),
            ));
        }
        r.check_attributes_in(node, TENDON_ATTRIBUTES)?;
        let e = r.elem_as(node, "main", "tendon")?;
        for name in ["frictionloss", "armature"] {
            if e.number(name)?.is_some_and(|v| v != 0.0) {
                return Err(e.error(format!("tendon {name} is not supported (allowed: 0)")));
            }
        }
        if e.flag("actuatorfrclimited")? == Some(true)
            || node.attribute("actuatorfrcrange").is_some()
        {
            return Err(e.error("tendon actuator force limits are not supported"));
        }
        let mut terms = Vec::new();
        let mut offset = 0.0; // Σ c ref: MuJoCo's length at sdrs's zero
        for child in node.children().filter(Node::is_element) {
            if !child.has_tag_name("joint") {
                return Err(r.error(
                    child,
                    format!(
                        "<{}> in a fixed tendon is not supported (allowed: joint)",
                        child.tag_name().name()
                    ),
                ));
            }
            r.check_attributes_in(child, &["joint", "coef"])?;
            let name = child
                .attribute("joint")
                .ok_or_else(|| r.error(child, "a tendon's <joint> needs a 'joint'"))?;
            let joint = coordinate(r, child, joints, name)?;
            let coef = child
                .attribute("coef")
                .map(|c| c.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
                .unwrap_or(Some(1.0))
                .ok_or_else(|| r.error(child, "coef must be a finite number"))?;
            terms.push((joint.link, coef));
            offset += coef * joint.reference;
        }
        let name = node
            .attribute("name")
            .map_or_else(|| format!("tendon {}", tendons.len()), String::from);
        let mut tendon = Tendon::new(name, terms);
        let nonneg = |what: &str| -> Result<f64> {
            match e.number(what)?.unwrap_or(0.0) {
                v if v >= 0.0 => Ok(v),
                v => Err(e.error(format!("{what} = {v} must be non-negative"))),
            }
        };
        tendon.stiffness = nonneg("stiffness")?;
        tendon.damping = nonneg("damping")?;
        tendon.rest = match e.numbers("springlength")?.as_deref() {
            None => 0.0,
            Some(&[length]) | Some(&[length, _]) if length < 0.0 => 0.0,
            Some(&[length]) => length - offset,
            Some(&[low, high]) if low == high => low - offset,
            Some(other) => {
                return Err(e.error(format!(
                    "springlength {other:?}: a dead band (two different lengths) is not supported"
                )));
            }
        };
        let range = e.array::<2>("range")?;
        let limited = match e.flag("limited")? {
            Some(l) => l,
            None => r.compiler.autolimits && range.is_some(),
        };
        if limited {
            match range {
                Some([low, high]) if low < high => {
                    tendon.limits = Some((low - offset, high - offset));
                }
                _ => {
                    return Err(e.error(format!(
                        "a limited tendon needs a range with lower < upper, got {range:?}"
                    )));
                }
            }
        }
        tendons.push(tendon);
    }
    Ok(())
}

/// The `(DoF, weight)` form of a tendon's `(link, coefficient)` terms.
fn dof_weights(model: &Model, tendon: &Tendon) -> Vec<(usize, f64)> {
    tendon
        .joints
        .iter()
        .map(|&(link, c)| (model.dof_offset(link), c))
        .collect()
}

/// The constraints of an `<equality>` section: joint and tendon constraints as stiff
/// tendons, `connect` and `weld` constraints as [`Weld`]s.
#[derive(Default)]
pub(super) struct Equalities {
    pub tendons: Vec<Tendon>,
    pub welds: Vec<Weld>,
}

/// A body of the model: its link and the body frame in the link's frame.
pub(super) type Body = (String, Option<usize>, Isometry3<f64>);

/// Reads an `<equality>` section (see the module docs): joint and tendon constraints as stiff
/// tendons, `connect` and `weld` as welds, named `equality NAME` (`equality K` without a
/// name). Constraints with `active="false"` are left out (sdrs does not switch them on during
/// a run).
pub(super) fn equalities(
    r: &Reader,
    section: Node,
    (joints, tendons, bodies): (&[MjcfJoint], &[Tendon], &[Body]),
    (inertia, timestep): (&mut Inertia, f64),
    out: &mut Equalities,
) -> Result<()> {
    for (k, node) in section.children().filter(Node::is_element).enumerate() {
        let tag = node.tag_name().name();
        let names: &[&str] = match tag {
            "joint" => &["joint1", "joint2", "polycoef"],
            "tendon" => &["tendon1", "tendon2", "polycoef"],
            "connect" => &["body1", "body2", "anchor", "site1", "site2"],
            "weld" => &[
                "body1",
                "body2",
                "anchor",
                "relpose",
                "torquescale",
                "site1",
                "site2",
            ],
            _ => {
                return Err(r.error(
                    node,
                    format!(
                        "{tag} equality constraints are not supported (allowed: joint, tendon, \
                         connect, weld)"
                    ),
                ));
            }
        };
        let mut known = EQUALITY_ATTRIBUTES.to_vec();
        known.extend(names);
        r.check_attributes_in(node, &known)?;
        let e = r.elem_as(node, "main", "equality")?;
        if e.flag("active")? == Some(false) {
            continue;
        }
        let name = node
            .attribute("name")
            .map_or_else(|| format!("equality {k}"), |n| format!("equality {n}"));
        let (stiffness, damping) = soft_spring(&e, timestep)?;
        if matches!(tag, "connect" | "weld") {
            out.welds
                .push(weld(r, node, &e, name, bodies, inertia, stiffness)?);
            continue;
        }
        let (first, second) = (names[0], names[1]);
        // A term list `(link, c)` for the named joint or tendon, its length zero at qpos0.
        let terms = |attribute: &str| -> Result<Option<Vec<(usize, f64)>>> {
            let Some(name) = node.attribute(attribute) else {
                return Ok(None);
            };
            if tag == "joint" {
                Ok(Some(vec![(coordinate(r, node, joints, name)?.link, 1.0)]))
            } else {
                tendons
                    .iter()
                    .find(|t| t.name == name)
                    .map(|t| Some(t.joints.clone()))
                    .ok_or_else(|| r.error(node, format!("tendon '{name}' is not defined")))
            }
        };
        let mut c = terms(first)?
            .ok_or_else(|| e.error(format!("an equality constraint needs '{first}'")))?;
        let poly = match e.numbers("polycoef")? {
            None => vec![0.0, 1.0, 0.0, 0.0, 0.0],
            Some(p) if p.len() == 5 => p,
            Some(p) => return Err(e.error(format!("polycoef needs 5 numbers, got {}", p.len()))),
        };
        // y₁ = a₀ + a₁ y₂ (+ higher powers, refused), y measured from qpos0.
        if let Some(other) = terms(second)? {
            if poly[2..].iter().any(|&a| a != 0.0) {
                return Err(e.error(
                    "a polycoef with quadratic or higher terms is not supported (allowed: a0 a1 0 0 0)",
                ));
            }
            for (link, b) in other {
                match c.iter_mut().find(|(l, _)| *l == link) {
                    Some((_, a)) => *a -= poly[1] * b,
                    None => c.push((link, -poly[1] * b)),
                }
            }
        }
        let constraint = Tendon::new(name, c);
        let mass = inertia
            .effective_mass(&dof_weights(inertia.model, &constraint))?
            .ok_or_else(|| {
                e.error("the constraint moves no inertia at qpos0 (its coefficients cancel)")
            })?;
        out.tendons.push(
            constraint
                .with_spring(mass * stiffness, poly[0])
                .with_damping(mass * damping),
        );
    }
    Ok(())
}

/// The spring and damper per unit effective mass of a soft constraint's `solref` and
/// `solimp` (the module docs): `d/(1 − d)` times MuJoCo's reference stiffness and damping at
/// `d = d_min`.
fn soft_spring(e: &Elem, timestep: f64) -> Result<(f64, f64)> {
    let solref = e.array::<2>("solref")?.unwrap_or([0.02, 1.0]);
    let (dmin, dmax) = match e.numbers("solimp")?.as_deref() {
        None => (0.9, 0.95),
        Some([dmin, dmax, ..]) if 0.0 < *dmin && dmin <= dmax && *dmax < 1.0 => (*dmin, *dmax),
        Some(other) => {
            return Err(e.error(format!(
                "solimp {other:?} needs d_min d_max ... with 0 < d_min <= d_max < 1"
            )));
        }
    };
    let (k, b) = if solref[0] > 0.0 {
        let timeconst = solref[0].max(2.0 * timestep);
        (
            dmin / (dmax * timeconst * solref[1]).powi(2),
            2.0 / (dmax * timeconst),
        )
    } else {
        (-solref[0] / (dmax * dmax), -solref[1] / dmax)
    };
    let load = dmin / (1.0 - dmin);
    let (stiffness, damping) = (load * k, load * b);
    if !(stiffness.is_finite() && stiffness >= 0.0 && damping.is_finite() && damping >= 0.0) {
        return Err(e.error(format!("solref {solref:?} gives no valid spring")));
    }
    Ok((stiffness, damping))
}

/// A `connect` or `weld` constraint as a [`Weld`] between the bodies' links (body2 absent: the
/// world), its frames where MuJoCo puts them at `qpos0`: `connect` holds body1's `anchor` at
/// the point that coincides with it at `qpos0`; `weld` holds body2's `anchor` at body1's frame
/// that `relpose` (or, by default, `qpos0`) puts there, turning too unless `torquescale` is 0.
/// The springs are `stiffness` (per unit effective mass) on MuJoCo's mean inverse weights of
/// the two bodies at `qpos0` (`body_invweight0`, translation and rotation), as its soft
/// constraints scale. The damper of the reference dynamics is left out (welds are springs).
fn weld(
    r: &Reader,
    node: Node,
    e: &Elem,
    name: String,
    bodies: &[Body],
    inertia: &mut Inertia,
    stiffness: f64,
) -> Result<Weld> {
    if node.attribute("site1").is_some() || node.attribute("site2").is_some() {
        return Err(e.error(
            "site-based connect and weld constraints are not supported (allowed: body1, body2)",
        ));
    }
    let body = |attribute: &str| -> Result<Option<(usize, Isometry3<f64>)>> {
        let Some(name) = node.attribute(attribute) else {
            return Ok(None);
        };
        match bodies.iter().find(|b| b.0 == name) {
            Some((_, Some(link), offset)) => Ok(Some((*link, *offset))),
            // The world body (without geoms it has no link): the world frame.
            Some((_, None, _)) => Ok(None),
            None => Err(r.error(node, format!("body '{name}' is not defined"))),
        }
    };
    let (link, offset) = body("body1")?.ok_or_else(|| {
        e.error("a connect or weld constraint needs a 'body1' that is not the world")
    })?;
    let other = body("body2")?;
    let kinematics = Kinematics::new(inertia.model, &inertia.state());
    let world = |at: Option<(usize, Isometry3<f64>)>| {
        at.map_or(Isometry3::identity(), |(l, o)| kinematics.poses()[l] * o)
    };
    let (body1, body2) = (world(Some((link, offset))), world(other));
    let anchor = e.vector("anchor")?.unwrap_or_else(Vector3::zeros);
    // Frames in body coordinates: (on body1, on body2).
    let (frame1, frame2) = if node.has_tag_name("connect") {
        let point = Isometry3::from(Translation3::from(anchor));
        (point, body2.inverse() * body1 * point)
    } else {
        let point = Isometry3::from(Translation3::from(anchor));
        let relative = match e.numbers("relpose")?.as_deref() {
            Some([x, y, z, w, i, j, k]) if [*w, *i, *j, *k] != [0.0; 4] => Isometry3::from_parts(
                Translation3::new(*x, *y, *z),
                UnitQuaternion::from_quaternion(Quaternion::new(*w, *i, *j, *k)),
            ),
            None | Some([_, _, _, 0.0, 0.0, 0.0, 0.0]) => body1.inverse() * body2,
            Some(other) => {
                return Err(e.error(format!("relpose needs 7 numbers, got {}", other.len())));
            }
        };
        (relative * point, point)
    };
    let mut weights = |at: Option<(usize, Isometry3<f64>)>| -> Result<(f64, f64)> {
        match at {
            Some((l, _)) => Ok(inertia.body_weights(l)?.unwrap_or((0.0, 0.0))),
            None => Ok((0.0, 0.0)),
        }
    };
    let (w1, w2) = (weights(Some((link, offset)))?, weights(other)?);
    let (translation, rotation) = (w1.0 + w2.0, w1.1 + w2.1);
    if !(translation > 0.0) {
        return Err(e.error("the constraint moves no inertia at qpos0"));
    }
    let turning = node.has_tag_name("weld") && e.number("torquescale")?.unwrap_or(1.0) != 0.0;
    let torsion = if turning && rotation > 0.0 {
        stiffness / rotation
    } else {
        0.0
    };
    Ok(Weld::new(
        name,
        link,
        offset * frame1,
        other.map(|(l, _)| l),
        other.map_or(frame2, |(_, o)| o * frame2),
        (stiffness / translation, torsion),
    ))
}
