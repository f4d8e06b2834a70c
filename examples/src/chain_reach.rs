//! The chain-reach co-design of the SDRS paper (sec. V-B, Fig. 10).
//!
//! Three chains of 8 links hang in the xz plane. The left one hangs from a carriage that
//! slides along x (a prismatic joint under stable PD whose target follows a cubic spline with
//! 4 control values over the horizon); the other two hang from fixed points and are passive.
//! The loss is the squared distance of the left chain's tip to a target point at the end of
//! the horizon (H = 250 steps of 10 ms). The target is out of reach of the chain as built: a
//! controller alone cannot bring the tip there, a co-design that also changes the 8 link
//! lengths of the left chain can. A link's length moves its child's attachment point and its
//! own lower hull vertices together (the "shared vertices" of the paper), through a
//! [`DesignMap`] with one parameter per link ([`DesignMap::link_length`]); the tip is the
//! middle of the last link's lower face, so it moves with that link's length.

use sdrs::diff::{LinkPoint, Objective, PointTarget};
use sdrs::prelude::*;

/// Links per chain.
pub const LINKS: usize = 8;
/// Initial link length (m).
pub const LINK_LENGTH: f64 = 0.1;
/// Steps of the horizon.
pub const STEPS: usize = 250;
/// Time step (s).
pub const DT: f64 = 0.01;
/// The target point for the left chain's tip.
pub const TARGET: Vector3<f64> = Vector3::new(0.45, 0.0, 0.0);
/// Height of the chains' suspension points (m).
const TOP: f64 = 1.0;
/// Carriage travel: its PD target stays within ±this (m); the joint's limits are a little
/// wider.
pub const TRAVEL: f64 = 0.3;
/// Bounds of each link-length change (m): lengths stay within [5 cm, 20 cm].
pub const LENGTH_CHANGE: (f64, f64) = (-0.05, 0.1);

/// The chain-reach task: the scene, the carriage's spline policy, the link-length design
/// map and the tip's loss; `evaluate(c, p)` gives the loss and its gradients.
pub type ChainReach = Objective<CubicSpline, PointTarget>;

/// A box hull from `z = 0` down to `z = −length`, 2 cm thick.
fn link_hull(length: f64) -> ConvexHull {
    let mut points = Vec::with_capacity(8);
    for z in [0.0, -length] {
        for (x, y) in [(-0.01, -0.01), (0.01, -0.01), (0.01, 0.01), (-0.01, 0.01)] {
            points.push(Point3::new(x, y, z));
        }
    }
    ConvexHull::new(points).expect("a box")
}

/// A passive chain of `LINKS` links on revolute joints about y, the first attached to
/// `parent` (or the world) at `attachment`.
fn chain(name: &str, parent: Option<usize>, first: usize, attachment: Isometry3<f64>) -> Vec<Link> {
    (0..LINKS)
        .map(|k| {
            Link::new(
                format!("{name}{k}"),
                if k == 0 { parent } else { Some(first + k - 1) },
                if k == 0 {
                    attachment
                } else {
                    Isometry3::translation(0.0, 0.0, -LINK_LENGTH)
                },
                JointKind::Revolute { axis: Vector3::y() },
                vec![link_hull(LINK_LENGTH)],
                MassModel::Lumped { mass: 0.1 },
            )
        })
        .collect()
}

/// Builds the scene and its loss.
pub fn chain_reach() -> Result<ChainReach, Box<dyn std::error::Error>> {
    let carriage = Link::new(
        "carriage",
        None,
        Isometry3::translation(0.0, 0.0, TOP),
        JointKind::Prismatic { axis: Vector3::x() },
        vec![ConvexHull::cuboid(Vector3::new(0.03, 0.03, 0.01))?],
        MassModel::Lumped { mass: 1.0 },
    )
    .with_limits(-TRAVEL - 0.05, TRAVEL + 0.05);
    let mut links = vec![carriage];
    links.extend(chain(
        "left",
        Some(0),
        1,
        Isometry3::translation(0.0, 0.0, -0.02),
    ));
    for (c, x) in [0.4, 0.52].into_iter().enumerate() {
        let first = links.len();
        links.extend(chain(
            &format!("passive{c}_"),
            None,
            first,
            Isometry3::translation(x, 0.0, TOP - 0.02),
        ));
    }
    let model = Model::new(links)?;
    let mut settings = StepSettings::new(DT)?;
    let mut contact = sdrs::dynamics::scenes::sdrs_contact(Some(0.3))?;
    contact.skip_adjacent = true;
    settings.contact = Some(contact);
    settings.backward = true;
    // The carriage follows its target (400 N/m, 54 N·s/m: critically damped, ~15 rad/s); the
    // chain joints have light damping (0.02 N·m·s/rad) so the swing settles over the horizon.
    let mut base = Control::passive(&model);
    base.kp[0] = 400.0;
    base.kd[0] = 54.0;
    for j in 1..model.dof() {
        base.kd[j] = 0.02;
    }
    // One parameter per left-chain link: its length change.
    let mut design = DesignMap::new(&model, LINKS);
    for k in 0..LINKS {
        design.link_length(&model, &format!("left{k}"), k)?;
    }
    // The tip: the middle of the last link's lower face, which its length moves.
    let last = format!("left{}", LINKS - 1);
    let hull = &model.links()[model.link_index(&last)?].hulls[0];
    let lower: Vec<usize> = (0..hull.vertices().len())
        .filter(|&v| hull.vertices()[v].z < -0.5 * LINK_LENGTH)
        .collect();
    let tip = LinkPoint::vertex_mean(&model, &last, 0, &lower)?;
    Ok(Objective {
        policy: CubicSpline::new(base, vec![0], 4, STEPS as f64 * DT)?,
        loss: PointTarget::at(tip, TARGET)?,
        start: State::zero(&model),
        steps: STEPS,
        design,
        settings,
        recording: Recording::Blocks,
        model,
    })
}
