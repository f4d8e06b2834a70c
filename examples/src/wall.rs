//! The wall experiment of the SDRS paper (sec. V-J, first validation experiment, Fig. 24
//! top): a fixed wall and two boxes on the ground; the second box starts spinning about the
//! vertical, hits the first, and friction brings both to rest at stable angles against the
//! wall. The paper records both boxes' angles about the vertical (their yaw) over time in
//! SDRS and MuJoCo; it gives no sizes, masses, friction or spin, so these are ours.
//!
//! The scene (z up, the ground's top at z = 0): the wall's face is the plane x = 0 (a fixed
//! box 10 cm thick, 1 m wide, 40 cm tall, on the x < 0 side); both boxes are bars of
//! 30 x 8 x 8 cm and 1 kg, lying perpendicular to the wall with their centres 20 cm from it,
//! box 1 at y = 0 and box 2 at y = [`SPACING`], so each bar's near end is 5 cm from the
//! wall. Box 2 starts spinning at [`SPIN`] rad/s clockwise seen from above (its far end
//! swings towards box 1). Friction μ = [`MU`] everywhere (ground, wall, between the boxes);
//! sdrs's calibrated contact ([`World`]'s default); Δt = 10 ms; both boxes start at rest
//! 0.2 mm beyond the barrier's support distance above the ground. Box 2 turns about 172°,
//! knocks box 1 about 13° round and against the wall (within the barrier's reach of it), and
//! both stop within 0.6 s (`cargo run --release -p sdrs-examples --example wall`).

use sdrs::geometry::gjk::{Proximity, distance};
use sdrs::prelude::*;

/// Time step (s).
pub const DT: f64 = 0.01;
/// Friction coefficient.
pub const MU: f64 = 0.3;
/// Box 2's starting angular velocity about z (rad/s; negative: clockwise from above).
pub const SPIN: f64 = -15.0;
/// The boxes' half-extents (m).
pub const HALF: [f64; 3] = [0.15, 0.04, 0.04];
/// Each box's mass (kg).
pub const MASS: f64 = 1.0;
/// Distance between the boxes' centres along the wall (m).
pub const SPACING: f64 = 0.15;
/// How far the boxes' centres start from the wall's face (m).
pub const FROM_WALL: f64 = 0.16;
/// How far beyond the barrier's support distance the boxes start above the ground (m).
pub const CLEARANCE: f64 = 2e-4;

/// The scene, built.
#[derive(Debug)]
pub struct WallScene {
    /// The model: ground, wall, box 1, box 2.
    pub model: Model,
    /// The simulator.
    pub simulator: Simulator,
    /// Box 1's and box 2's links.
    pub boxes: [usize; 2],
    /// The wall's link.
    pub wall: usize,
    /// The start: box 2 spinning at [`SPIN`].
    pub start: Motion,
}

/// One sample of a simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Time (s).
    pub time: f64,
    /// Both boxes' yaw (rad, continuous over time: unwrapped).
    pub yaw: [f64; 2],
    /// Kinetic plus gravitational potential energy of both boxes (J, zero potential at z = 0).
    pub energy: f64,
    /// The largest speed of any vertex of either box over the last step (m/s).
    pub speed: f64,
    /// The smallest distance between hulls that may touch (m; 0 when any overlap).
    pub gap: f64,
    /// Each box's distance to the wall (m; 0 when they overlap).
    pub to_wall: [f64; 2],
    /// The scene's state (for an animation).
    pub state: State,
}

/// Builds the scene with friction `mu` and box 2 spinning at `spin` rad/s about z.
pub fn wall_scene(mu: f64, spin: f64) -> Result<WallScene, Box<dyn std::error::Error>> {
    let build = |lift: f64| -> Result<(Model, Simulator, [usize; 2]), Box<dyn std::error::Error>> {
        let mut world = World::new(DT)?.with_ground().with_friction(mu)?;
        let wall = Link::new(
            "wall",
            None,
            Isometry3::translation(-0.05, 0.0, 0.2),
            JointKind::Fixed,
            vec![ConvexHull::cuboid(Vector3::new(0.05, 0.5, 0.2))?],
            MassModel::Lumped { mass: 1.0 },
        );
        world.add_robot(vec![wall], Isometry3::identity());
        let half = Vector3::from(HALF);
        let mut boxes = [0; 2];
        for (k, y) in [0.0, SPACING].into_iter().enumerate() {
            let pose = Isometry3::translation(FROM_WALL, y, half.z + lift);
            let handle = world.add_object(
                &format!("box{}", k + 1),
                ConvexHull::cuboid(half)?,
                MASS,
                pose,
            );
            boxes[k] = handle.link().index();
        }
        let (model, simulator) = world.build()?;
        Ok((model, simulator, boxes))
    };
    let (_, probe, _) = build(0.0)?;
    let support = probe
        .settings()
        .contact
        .as_ref()
        .map_or(0.0, |c| c.support_distance());
    let (model, simulator, boxes) = build(support + CLEARANCE)?;
    let start = Motion::at_rest(&model, State::neutral(&model)).with_body_velocity(
        &model,
        model.link_id(boxes[1])?,
        Vector3::zeros(),
        Vector3::new(0.0, 0.0, spin),
        DT,
    )?;
    let wall = model.link_index("wall")?;
    Ok(WallScene {
        wall,
        model,
        simulator,
        boxes,
        start,
    })
}

/// The yaw of a rotation (rad, in (−π, π]): the angle of its x axis about z.
fn yaw(rotation: &UnitQuaternion<f64>) -> f64 {
    let x = rotation * Vector3::x();
    x.y.atan2(x.x)
}

impl WallScene {
    /// The sample of `motion` at `time`: yaws unwrapped against `previous` (if any), energy
    /// of the lumped masses moving from the previous poses to the current ones over Δt.
    fn sample(&self, motion: &Motion, time: f64, previous: Option<&Sample>) -> Sample {
        let kin = Kinematics::new(&self.model, &motion.state);
        let g = self.simulator.settings().gravity;
        let mut energy = 0.0;
        let mut speed: f64 = 0.0;
        let mut yaws = [0.0; 2];
        let mut to_wall = [0.0; 2];
        let wall = (
            &self.model.links()[self.wall].hulls[0],
            &kin.poses()[self.wall],
        );
        for (k, &l) in self.boxes.iter().enumerate() {
            let (now, before) = (kin.poses()[l], motion.previous[l]);
            for v in self.model.links()[l].hulls[0].vertices() {
                speed = speed.max(((now * v) - (before * v)).norm() / DT);
            }
            // Kinetic energy ½ tr(Ȧ J Ȧᵀ) of the 3x4 pose derivative Ȧ and the link's 4x4
            // second moment J; potential g times the world first moment's height.
            let a = |p: &Isometry3<f64>| p.to_homogeneous().fixed_view::<3, 4>(0, 0).into_owned();
            let rate = (a(&now) - a(&before)) / DT;
            let j = self.model.second_moment(l);
            energy += 0.5 * (rate * j * rate.transpose()).trace();
            let m = self.model.mass(l);
            let first = j.fixed_view::<3, 1>(0, 3).into_owned();
            let moment = now.rotation * first + now.translation.vector * m;
            energy += g * moment.z;
            to_wall[k] = match distance(&self.model.links()[l].hulls[0], &now, wall.0, wall.1) {
                Proximity::Separated(s) => s.distance,
                Proximity::Intersecting { .. } => 0.0,
            };
            let mut angle = yaw(&now.rotation);
            if let Some(p) = previous {
                let turn = angle - p.yaw[k];
                angle -= (turn / std::f64::consts::TAU).round() * std::f64::consts::TAU;
            }
            yaws[k] = angle;
        }
        Sample {
            time,
            yaw: yaws,
            energy,
            speed,
            gap: crate::robots::min_distance(&self.model, &kin, true),
            to_wall,
            state: motion.state.clone(),
        }
    }

    /// Simulates `steps` steps from the start and returns a sample of every state (the start
    /// first).
    pub fn simulate(&mut self, steps: usize) -> Result<Vec<Sample>, Box<dyn std::error::Error>> {
        let control = Control::passive(&self.model);
        let mut motion = self.start.clone();
        let mut samples = vec![self.sample(&motion, 0.0, None)];
        for k in 1..=steps {
            self.simulator.advance(&mut motion, &control)?;
            let sample = self.sample(&motion, k as f64 * DT, samples.last());
            samples.push(sample);
        }
        Ok(samples)
    }
}
