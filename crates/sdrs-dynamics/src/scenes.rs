//! Ready-made scenes shared by the tests, examples and benchmarks: each returns a model with
//! the step settings and control it is meant to run with.

use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::{JointKind, Link, MassModel, Model};
use crate::motion::Motion;
use crate::stepper::{
    ContactKind, ContactSettings, Control, FrictionSettings, LongRangeContact, StepSettings,
};
use nalgebra::{DVector, Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use sdrs_contact::PlaneBarrier;
use sdrs_contact::friction::PlaneFriction;
use sdrs_contact::long_range::LongRange;
use sdrs_contact::long_range::friction::LongRangeFriction;
use sdrs_geometry::{ConvexHull, TriMesh};

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

/// SDRS contact with the authors' settings, `s = 1 cm`, stiffness 1 and, if `mu` is given,
/// plane friction (`ε_v = 1e-6`): bodies rest about 2 cm apart and a stack of planks leans on
/// the barrier's compliance. The scenes here keep it so that their tests and benchmarks stay
/// comparable; [`ContactSettings::default_for`] is the physically calibrated choice.
pub fn sdrs_contact(mu: Option<f64>) -> Result<ContactSettings> {
    let contact = ContactSettings::new(ContactKind::Hulls(PlaneBarrier::default()), 1.0)?;
    Ok(match mu {
        Some(mu) => contact.with_friction(FrictionSettings::new(mu)?),
        None => contact,
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
    settings.contact = Some(sdrs_contact(Some(mu))?.with_skip_adjacent(false));
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
        kp: DVector::from_element(7, 400.0), // N·m/rad
        kd: DVector::from_element(7, 0.4),   // N·m·s/rad
        position: DVector::from_vec(vec![0.5, 0.8, -0.3, -1.2, 0.4, 0.9, 0.1]),
        velocity: DVector::zeros(7),
        force: DVector::zeros(7),
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
    // The hub's velocity servo: damping 2/Δt N·m·s/rad (200 at Δt = 10 ms), as it was tuned
    // in the paper's form (`k_d = c Δt/2 = 1` at every Δt).
    control.kd[0] = 2.0 / dt;
    control.velocity[0] = 6.0;
    let mut settings = StepSettings::new(dt)?;
    settings.contact = Some(sdrs_contact(Some(0.5))?);
    Ok(Scene {
        model,
        settings,
        control,
    })
}

/// A flat square grid in the plane z = 0, `size` metres across with `cells` x `cells` square
/// cells of two triangles each, facing up: a ground for mesh-based contact whose triangles
/// stay small (the long-range hierarchy descends to the triangles near a body).
pub fn ground_grid(size: f64, cells: usize) -> Result<TriMesh> {
    if !(size.is_finite() && size > 0.0) || cells == 0 {
        return Err(DynamicsError::InvalidSetting {
            name: "ground grid size (cells)",
            value: if cells == 0 { 0.0 } else { size },
            allowed: "a positive finite size and at least one cell",
        });
    }
    let n = cells + 1;
    let step = size / cells as f64;
    let vertices = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            Point3::new(
                -0.5 * size + step * i as f64,
                -0.5 * size + step * j as f64,
                0.0,
            )
        })
        .collect();
    let mut triangles = Vec::with_capacity(2 * cells * cells);
    for j in 0..cells {
        for i in 0..cells {
            let v = |di: usize, dj: usize| ((j + dj) * n + i + di) as u32;
            triangles.push([v(0, 0), v(1, 0), v(1, 1)]);
            triangles.push([v(0, 0), v(1, 1), v(0, 1)]);
        }
    }
    Ok(TriMesh::new(vertices, triangles).expect("a grid of positive size is a valid mesh"))
}

/// A free 1 kg, 20 cm cube (triangle mesh, 12 triangles) 1 mm above a fixed 2 m x 2 m x 20 cm
/// slab (mesh top face at z = 0), turned by 0.3 rad about the vertical and placed off the
/// slab face's diagonal, sliding along +x at `speed` m/s: long-range contact (margin
/// ε = 0.1, stiffness 1e-7: the cube rests about 1 mm above the slab) with long-range
/// friction of coefficient `mu` when it is positive.
pub fn sliding_block(speed: f64, mu: f64, dt: f64) -> Result<MeshScene> {
    let link = |name: &str, at: Isometry3<f64>, half: Vector3<f64>, joint| {
        let mesh = TriMesh::cuboid(half).expect("positive half extents");
        Link::new(
            name,
            None,
            at,
            joint,
            vec![cuboid(half)],
            MassModel::Lumped { mass: 1.0 },
        )
        .with_mesh(mesh)
    };
    // Turned about the vertical and off the slab face's diagonal, so that no edges of the two
    // meshes are parallel or meet on an edge.
    let block = Isometry3::new(Vector3::new(0.4, -0.3, 0.101), Vector3::z() * 0.3);
    let model = Model::new(vec![
        link(
            "slab",
            Isometry3::translation(0.0, 0.0, -0.1),
            Vector3::new(1.0, 1.0, 0.1),
            JointKind::Fixed,
        ),
        link("block", block, Vector3::repeat(0.1), JointKind::Free),
    ])?;
    let epsilon = 0.1;
    let mut contact = LongRangeContact::new(&model, LongRange::new(epsilon)?, 1e-7, false)?;
    if mu > 0.0 {
        let friction = PlaneFriction::new(mu, dt)?;
        contact = contact.with_friction(LongRangeFriction::new(friction, epsilon)?);
    }
    let state = State::zero(&model);
    let mut before = state.clone();
    before.q[0] -= speed * dt;
    let start = Motion {
        previous: Kinematics::new(&model, &before).poses().to_vec(),
        state,
    };
    Ok(MeshScene {
        scene: Scene {
            control: Control::passive(&model),
            settings: StepSettings::new(dt)?,
            model,
        },
        contact,
        start,
    })
}

/// A scene with mesh-based contact: the model, how to step it, its long-range contact hook
/// and where it starts.
#[derive(Debug)]
pub struct MeshScene {
    /// The model, settings and (passive) control.
    pub scene: Scene,
    /// Long-range contact between the links' meshes.
    pub contact: LongRangeContact,
    /// The initial state and the poses one step earlier.
    pub start: Motion,
}

/// The billiards scene of the long-range paper (sec. 6) for `balls` balls: one cue ball
/// rolling at `speed` m/s towards a triangular rack of the others on a 1.5 m ground grid
/// (30 x 30 cells). Balls: radius 5 cm, 0.2 kg lumped on the vertices of their hull, collision
/// meshes icospheres of 320 triangles; contact: long-range, margin ε = 0.1, stiffness 1e-8
/// (the paper's μ; the potential sums over all ~10⁵-10⁶ triangle pairs of a ball and the
/// ground, so it must be small: a ball then rests about 0.5 mm above the grid), no friction.
/// They start 0.5 mm above the ground.
pub fn billiards(balls: usize, speed: f64, dt: f64) -> Result<MeshScene> {
    let radius = 0.05;
    let sphere = TriMesh::icosphere(radius, 2).map_err(|_| DynamicsError::InvalidSetting {
        name: "ball radius",
        value: radius,
        allowed: "positive",
    })?;
    let hull = ConvexHull::new(
        TriMesh::icosphere(radius, 1)
            .expect("valid")
            .vertices()
            .to_vec(),
    )
    .expect("an icosphere is convex");
    let ground = Link::new(
        "ground",
        None,
        Isometry3::identity(),
        JointKind::Fixed,
        vec![cuboid(Vector3::new(0.75, 0.75, 0.01))],
        MassModel::Lumped { mass: 1.0 },
    )
    .with_mesh(ground_grid(1.5, 30)?);
    let mut links = vec![ground];
    let lift = radius + 5e-4;
    let spacing = 2.0 * radius + 0.01;
    // The rack: rows of 1, 2, 3, ... balls along +x.
    let mut placed = 0;
    let mut row = 0;
    while placed + 1 < balls {
        for k in 0..=row {
            if placed + 1 == balls {
                break;
            }
            let x = 0.2 + row as f64 * spacing * 0.866;
            let y = (k as f64 - 0.5 * row as f64) * spacing;
            links.push(ball(format!("ball{placed}"), x, y, lift, &hull, &sphere));
            placed += 1;
        }
        row += 1;
    }
    links.push(ball("cue".into(), -0.3, 0.0, lift, &hull, &sphere));
    let model = Model::new(links)?;
    let contact = LongRangeContact::new(&model, LongRange::new(0.1)?, 1e-8, false)?;
    let settings = StepSettings::new(dt)?;
    let state = State::zero(&model);
    let mut before = state.clone();
    let cue = model.dof() - 6;
    before.q[cue] -= speed * dt;
    let start = Motion {
        previous: Kinematics::new(&model, &before).poses().to_vec(),
        state,
    };
    let control = Control::passive(&model);
    Ok(MeshScene {
        scene: Scene {
            model,
            settings,
            control,
        },
        contact,
        start,
    })
}

fn ball(name: String, x: f64, y: f64, z: f64, hull: &ConvexHull, mesh: &TriMesh) -> Link {
    Link::new(
        name,
        None,
        Isometry3::translation(x, y, z),
        JointKind::Free,
        vec![hull.clone()],
        MassModel::Lumped { mass: 0.2 },
    )
    .with_mesh(mesh.clone())
}
