//! Ready-made scenes shared by the tests, examples and benchmarks: each returns a model with
//! the step settings and control it is meant to run with.

use crate::error::Result;
use crate::model::{JointKind, Link, MassModel, Model};
use crate::stepper::{ContactSettings, Control, StepSettings};
use nalgebra::{DVector, Isometry3, Translation3, UnitQuaternion, Vector3};
use sdrs_contact::PlaneBarrier;
use sdrs_contact::friction::PlaneFriction;
use sdrs_geometry::ConvexHull;

/// A scene: the model, how to step it, and its control.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The model.
    pub model: Model,
    /// Step settings.
    pub settings: StepSettings,
    /// Control applied at every step.
    pub control: Control,
}

/// SDRS contact with `s = 1 cm`, stiffness 1 and, if `mu` is given, plane friction.
pub fn sdrs_contact(dt: f64, mu: Option<f64>) -> Result<ContactSettings> {
    let friction = mu.map(|mu| PlaneFriction::new(mu, dt)).transpose()?;
    Ok(ContactSettings {
        barrier: PlaneBarrier::default(),
        stiffness: 1.0,
        friction,
        skip_adjacent: true,
    })
}

fn cuboid(half: Vector3<f64>) -> ConvexHull {
    ConvexHull::cuboid(half).expect("positive half extents")
}

/// A fixed 40 m x 40 m slab whose top face passes through the origin, tilted by `tilt` (rad)
/// about y, and a free 1 kg, 20 cm box whose joint frame is the slab's frame lifted so that the
/// box starts 19.5 mm above the slab, about where the barrier (stiffness 1) carries its
/// weight: its coordinates 0 and 2 are the distance down the slope and the height above it. SDRS contact with friction coefficient `mu`.
pub fn box_on_incline(tilt: f64, mu: f64, dt: f64) -> Result<Scene> {
    let turn = Isometry3::from_parts(
        Translation3::identity(),
        UnitQuaternion::from_scaled_axis(Vector3::y() * tilt),
    );
    let ground = Link::new(
        "ground",
        None,
        turn * Isometry3::translation(0.0, 0.0, -0.5),
        JointKind::Fixed,
        vec![cuboid(Vector3::new(20.0, 20.0, 0.5))],
        MassModel::Lumped { mass: 1.0 },
    );
    let block = Link::new(
        "box",
        None,
        turn * Isometry3::translation(0.0, 0.0, 0.1195),
        JointKind::Free,
        vec![cuboid(Vector3::repeat(0.1))],
        MassModel::Lumped { mass: 1.0 },
    );
    let model = Model::new(vec![ground, block])?;
    let mut settings = StepSettings::new(dt)?;
    let mut contact = sdrs_contact(dt, Some(mu))?;
    contact.skip_adjacent = false;
    settings.contact = Some(contact);
    let control = Control::passive(&model);
    Ok(Scene {
        model,
        settings,
        control,
    })
}

/// A serial chain of `n` revolute links (axes alternating y and x, 10 cm apart, 0.5 kg each)
/// hanging from the origin, without contact: the per-step cost of the articulated dynamics
/// alone.
pub fn chain(n: usize, dt: f64) -> Result<Scene> {
    let hull = cuboid(Vector3::new(0.02, 0.02, 0.04));
    let links = (0..n)
        .map(|k| {
            Link::new(
                format!("link{k}"),
                k.checked_sub(1),
                Isometry3::translation(0.0, 0.0, if k == 0 { 0.0 } else { -0.1 }),
                JointKind::Revolute {
                    axis: if k % 2 == 0 {
                        Vector3::y()
                    } else {
                        Vector3::x()
                    },
                },
                vec![hull.clone()],
                MassModel::Lumped { mass: 0.5 },
            )
        })
        .collect();
    let model = Model::new(links)?;
    let mut control = Control::passive(&model);
    control.position = DVector::from_element(model.dof(), 0.3);
    Ok(Scene {
        model,
        settings: StepSettings::new(dt)?,
        control,
    })
}

/// A 7-DoF arm (axes z, y, z, y, z, y, z like common manipulators; links 1 to 3 kg) under
/// stable-PD control towards a bent pose, without contact.
pub fn arm7(dt: f64) -> Result<Scene> {
    let axes = [
        Vector3::z(),
        Vector3::y(),
        Vector3::z(),
        Vector3::y(),
        Vector3::z(),
        Vector3::y(),
        Vector3::z(),
    ];
    let lengths = [0.1, 0.3, 0.1, 0.3, 0.1, 0.2, 0.1];
    let links = (0..7usize)
        .map(|k| {
            Link::new(
                format!("link{k}"),
                k.checked_sub(1),
                Isometry3::translation(0.0, 0.0, if k == 0 { 0.0 } else { lengths[k - 1] }),
                JointKind::Revolute { axis: axes[k] },
                vec![cuboid(Vector3::new(0.04, 0.04, 0.5 * lengths[k]))],
                MassModel::Lumped {
                    mass: 3.0 - 0.3 * k as f64,
                },
            )
        })
        .collect();
    let model = Model::new(links)?;
    let control = Control {
        kp: DVector::from_element(7, 200.0),
        kd: DVector::from_element(7, 0.2 * dt),
        position: DVector::from_vec(vec![0.5, 0.8, -0.3, -1.2, 0.4, 0.9, 0.1]),
        velocity: DVector::zeros(7),
    };
    Ok(Scene {
        model,
        settings: StepSettings::new(dt)?,
        control,
    })
}

/// The SDRS performance scene (sec. V-A, Fig. 6 and 9): a hub turning about the horizontal x
/// axis under PD velocity control at 6 rad/s, with four chains of `n` links each hanging from
/// it, every link on a 2-DoF universal joint, so `|θ| = 1 + 8n`. The chains are swung round,
/// fold and collide with each other and themselves (SDRS contact between all hulls on non-adjacent
/// links, friction μ = 0.5).
pub fn rotating_chains(n: usize, dt: f64) -> Result<Scene> {
    let hub = Link::new(
        "hub",
        None,
        Isometry3::translation(0.0, 0.0, 0.0),
        JointKind::Revolute { axis: Vector3::x() },
        vec![cuboid(Vector3::new(0.02, 0.02, 0.01))],
        MassModel::Lumped { mass: 1.0 },
    );
    let mut links = vec![hub];
    let link_length = 0.08;
    let hull = cuboid(Vector3::new(0.015, 0.015, 0.025));
    for c in 0..4 {
        let angle = std::f64::consts::FRAC_PI_2 * c as f64;
        for k in 0..n {
            let parent = if k == 0 { 0 } else { links.len() - 1 };
            let attachment = if k == 0 {
                Isometry3::translation(0.04 * angle.cos(), 0.04 * angle.sin(), -0.05)
            } else {
                Isometry3::translation(0.0, 0.0, -link_length)
            };
            links.push(Link::new(
                format!("chain{c}_link{k}"),
                Some(parent),
                attachment,
                JointKind::Universal {
                    first: Vector3::x(),
                    second: Vector3::y(),
                },
                vec![hull.clone()],
                MassModel::Lumped { mass: 0.1 },
            ));
        }
    }
    let model = Model::new(links)?;
    let mut control = Control::passive(&model);
    control.kd[0] = 1.0;
    control.velocity[0] = 6.0;
    let mut settings = StepSettings::new(dt)?;
    settings.contact = Some(sdrs_contact(dt, Some(0.5))?);
    Ok(Scene {
        model,
        settings,
        control,
    })
}
