//! Building a world: robots (from code or URDF), free objects and a ground, as one model.

use nalgebra::{Isometry3, Vector3};
use sdrs_dynamics::scenes::sdrs_contact;
use sdrs_dynamics::{
    ContactSettings, JointKind, Link, MassModel, Model, Result, Simulator, StepSettings,
    UrdfOptions, load_urdf,
};
use sdrs_geometry::ConvexHull;
use std::ops::Range;
use std::path::Path;

/// A world under construction: links of every robot and object in one kinematic forest, the
/// time-step settings and contact.
///
/// ```
/// use sdrs::prelude::*;
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
/// let mut world = World::new(0.01)?.with_ground().with_friction(0.5)?;
/// let object = world.add_object("box", cube, 1.0, Isometry3::translation(0.0, 0.0, 0.1195));
/// let (model, mut sim) = world.build()?;
/// let mut motion = Motion::at_rest(&model, State::zero(&model));
/// for _ in 0..50 {
///     sim.advance(&mut motion, &Control::passive(&model))?;
/// }
/// // The box rests on the ground: it barely moved.
/// assert!(motion.state.q.rows(object.start, 3).norm() < 1e-3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct World {
    links: Vec<Link>,
    settings: StepSettings,
}

impl World {
    /// An empty world with time step `dt` and SDRS contact (support 1 cm, stiffness 1, no
    /// friction) between hulls on different, non-adjacent links.
    pub fn new(dt: f64) -> Result<Self> {
        let mut settings = StepSettings::new(dt)?;
        settings.contact = Some(sdrs_contact(dt, None)?);
        Ok(Self {
            links: Vec::new(),
            settings,
        })
    }

    /// Plane friction with coefficient `mu` between all contacting hulls.
    pub fn with_friction(mut self, mu: f64) -> Result<Self> {
        let dt = self.settings.dt;
        self.settings.contact = Some(sdrs_contact(dt, Some(mu))?);
        Ok(self)
    }

    /// A fixed 40 m x 40 m ground slab whose top face is the plane z = 0.
    pub fn with_ground(mut self) -> Self {
        let slab = ConvexHull::cuboid(Vector3::new(20.0, 20.0, 0.5)).expect("positive extents");
        self.links.push(Link::new(
            "ground",
            None,
            Isometry3::translation(0.0, 0.0, -0.5),
            JointKind::Fixed,
            vec![slab],
            MassModel::Lumped { mass: 1.0 },
        ));
        self
    }

    /// Adds a robot's links (parents first, as in [`Model`]) with its root placed at `base`;
    /// returns the range of the world's link indices it occupies.
    pub fn add_robot(&mut self, links: Vec<Link>, base: Isometry3<f64>) -> Range<usize> {
        let offset = self.links.len();
        for mut link in links {
            for other in &mut link.contact.excluded {
                *other += offset;
            }
            match link.parent {
                Some(p) => link.parent = Some(p + offset),
                None => link.attachment = base * link.attachment,
            }
            self.links.push(link);
        }
        offset..self.links.len()
    }

    /// Adds a robot from a URDF file with its root at `base`; returns its link range.
    pub fn add_urdf(
        &mut self,
        path: impl AsRef<Path>,
        options: &UrdfOptions,
        base: Isometry3<f64>,
    ) -> Result<Range<usize>> {
        let model = load_urdf(path, options)?;
        Ok(self.add_robot(model.links().to_vec(), base))
    }

    /// Adds a free rigid object (6 DoF) of `mass` kg with the given hull, starting at `pose`;
    /// returns the range of its coordinates (translation, then rotation) in the world's state.
    pub fn add_object(
        &mut self,
        name: &str,
        hull: ConvexHull,
        mass: f64,
        pose: Isometry3<f64>,
    ) -> Range<usize> {
        let start: usize = self.links.iter().map(|l| l.joint.dof()).sum();
        self.links.push(Link::new(
            name,
            None,
            pose,
            JointKind::Free,
            vec![hull],
            MassModel::Lumped { mass },
        ));
        start..start + 6
    }

    /// The step settings, to adjust (tolerance, gravity, contact stiffness, backward blocks…).
    pub fn settings_mut(&mut self) -> &mut StepSettings {
        &mut self.settings
    }

    /// Replaces the contact settings (`None`: no contact).
    pub fn set_contact(&mut self, contact: Option<ContactSettings>) {
        self.settings.contact = contact;
    }

    /// The model and a simulator for it.
    pub fn build(self) -> Result<(Model, Simulator)> {
        let model = Model::new(self.links)?;
        let sim = Simulator::new(model.clone(), self.settings)?;
        Ok((model, sim))
    }
}
