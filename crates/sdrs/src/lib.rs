//! # sdrs
//!
//! The facade of the sdrs workspace, a shape-differentiable robot simulator (SDRS paper):
//! robot links are unions of convex hulls in V-representation, contact is a separating-plane
//! barrier with plane friction, dynamics are position-level and reduced-coordinate, and
//! gradients flow with respect to initial states, controls, policy parameters and the robot's
//! shape (hull vertices and attachment points).
//!
//! - [`World`] builds a scene: robots from code or URDF, free objects, a ground; it hands
//!   back a [`RobotHandle`] or [`ObjectHandle`] with the links and coordinates each occupies,
//!   and links and joints are looked up by name ([`dynamics::Model::link`]).
//! - [`scene`] reads a world from a TOML scene file ([`Scene`]); [`record`] writes and reads
//!   trajectory files (JSON lines, NumPy `.npz`).
//! - [`prelude`] re-exports what a user needs: `use sdrs::prelude::*;`.
//! - The engine crates are re-exported whole: [`geometry`], [`contact`], [`dynamics`],
//!   [`diff`].
//!
//! Simulate, then differentiate a loss of the final state with respect to a policy's
//! parameters:
//!
//! ```
//! use sdrs::prelude::*;
//! let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
//! let mut world = World::new(0.01)?.with_ground().with_friction(0.5)?;
//! let object = world.add_object("box", cube, 1.0, Isometry3::translation(0.0, 0.0, 0.1195));
//! world.settings_mut().backward = true;
//! let (model, mut sim) = world.build()?;
//! let x = object.dofs().start; // the box's x coordinate
//! // Push the box along x with a PD target that follows a cubic spline over 0.2 s.
//! let mut base = Control::passive(&model);
//! base.kp[x] = 100.0; // N/m
//! let policy = CubicSpline::new(base, vec![x], 4, 0.2)?;
//! let c = DVector::from_vec(vec![0.0, 0.02, 0.04, 0.05]);
//! let start = Motion::at_rest(&model, State::neutral(&model));
//! let trajectory = rollout_policy(&mut sim, &start, &policy, &c, 20, Recording::Blocks)?;
//! // L = final x: pulling the spline's end forward moves the box forward.
//! let mut dl = DVector::zeros(model.dof());
//! dl[x] = 1.0;
//! let g = adjoint(&mut sim, &trajectory, &LossGradient::final_state(&model, 20, dl))?;
//! assert!(g.parameters[3] > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod handles;
pub mod record;
pub mod scene;
mod world;

pub use handles::{ObjectHandle, RobotHandle};
pub use record::{TrajectoryFile, TrajectoryWriter};
pub use scene::Scene;
pub use sdrs_contact as contact;
pub use sdrs_diff as diff;
pub use sdrs_dynamics as dynamics;
pub use sdrs_geometry as geometry;
pub use world::World;

/// Everything the examples use: `use sdrs::prelude::*;`.
pub mod prelude {
    pub use crate::{ObjectHandle, RobotHandle, Scene, TrajectoryFile, TrajectoryWriter, World};
    pub use nalgebra::{
        DMatrix, DVector, Isometry3, Point3, Translation3, UnitQuaternion, Vector3,
    };
    pub use sdrs_contact::PlaneBarrier;
    pub use sdrs_diff::{
        Adam, Block, CentreOfMass, CubicSpline, Custom, DesignMap, Distance, Effort, LinkPoint,
        Loss, LossGradient, Objective, OpenLoop, PointTarget, Policy, Progress, Recording,
        RelativePosition, Seeds, SineWaves, Sum, Trajectory, TrajectoryGradient, When, adjoint,
        minimise, projected_step, rollout, rollout_policy, step_jacobian, tangent,
    };
    pub use sdrs_dynamics::{
        ActiveContact, BodyId, ContactKind, ContactSettings, Control, Frame, FrictionSettings,
        JointId, JointKind, Kinematics, Link, LinkId, MassModel, Model, Motion, NewtonStart,
        Simulator, State, StepSettings, UrdfExport, UrdfOptions, export_urdf, load_urdf,
    };
    pub use sdrs_geometry::ConvexHull;
}

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
