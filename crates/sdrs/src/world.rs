//! Building a world: robots (from code, URDF or MJCF), free objects and a ground, as one model.

use crate::handles::{ObjectHandle, RobotHandle};
use nalgebra::{Isometry3, Vector3};
use sdrs_dynamics::{
    ContactKind, ContactSettings, FrictionSettings, JointKind, Link, LinkId, MassModel, MjcfModel,
    MjcfOptions, Model, Result, Simulator, StepSettings, Tendon, UrdfOptions, Weld, load_mjcf,
    load_urdf,
};
use sdrs_geometry::{Aabb, ConvexHull, TriMesh};
use std::path::Path;

/// A world under construction: links of every robot and object in one kinematic forest, the
/// time-step settings and contact.
///
/// ```
/// use sdrs::prelude::*;
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
/// let mut world = World::new(0.01)?.with_ground().with_friction(0.5)?;
/// // Placed 0.8 mm above the ground, about where the default barrier carries it.
/// let object = world.add_object("box", cube, 1.0, Isometry3::translation(0.0, 0.0, 0.1008));
/// let (model, mut sim) = world.build()?;
/// let mut motion = Motion::at_rest(&model, State::zero(&model));
/// for _ in 0..50 {
///     sim.advance(&mut motion, &Control::passive(&model))?;
/// }
/// // The box rests on the ground: it barely moved.
/// assert!(motion.state.q.rows(object.dofs().start, 3).norm() < 1e-4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Default contact
///
/// SDRS contact between hulls on different, non-adjacent links,
/// [`ContactSettings::default_for`] the thinnest body (where the rationale and measurements
/// are): barrier support 0.4 mm (1% of the thinnest body's thickness below 4 cm, chosen in
/// [`World::build`] from the links the world then has, unless the contact settings were
/// changed), stiffness `κ = 1e5 N · s²`, and with [`World::with_friction`] velocity smoothing
/// `ε_v = 1e-10 m²/s²`. Mesh contact (long-range or IPC between the links' collision meshes)
/// is chosen with [`World::set_contact`] and a [`ContactKind`].
#[derive(Debug, Clone)]
pub struct World {
    links: Vec<Link>,
    /// The robots' fixed tendons, on the world's link indices.
    tendons: Vec<Tendon>,
    /// The robots' welds, on the world's link indices.
    welds: Vec<Weld>,
    settings: StepSettings,
    /// The contact settings are the defaults this world installed: [`World::build`] adapts
    /// the barrier to the smallest body unless they were changed.
    default_contact: bool,
}

impl World {
    /// An empty world with time step `dt` and the default SDRS contact (see [`World`]: support
    /// 0.4 mm, stiffness 1.6e-2 N·m², no friction) between hulls on different, non-adjacent
    /// links.
    pub fn new(dt: f64) -> Result<Self> {
        let mut settings = StepSettings::new(dt)?;
        settings.contact = Some(ContactSettings::default_for(f64::INFINITY)?);
        Ok(Self {
            links: Vec::new(),
            tendons: Vec::new(),
            welds: Vec::new(),
            settings,
            default_contact: true,
        })
    }

    /// Friction of coefficient `mu` on the current contact (the default contact if there is
    /// none), keeping its model, stiffness and support: hull contact gets the default velocity
    /// smoothing [`ContactSettings::DEFAULT_VELOCITY_EPSILON`], mesh models their own.
    ///
    /// ```
    /// use sdrs::prelude::*;
    /// let mut world = World::new(0.01)?;
    /// world.settings_mut().contact.as_mut().unwrap().stiffness = 0.5;
    /// let mut world = world.with_friction(0.3)?;
    /// let contact = world.settings_mut().contact.as_ref().unwrap();
    /// assert_eq!((contact.stiffness, contact.friction.as_ref().unwrap().mu), (0.5, 0.3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_friction(mut self, mu: f64) -> Result<Self> {
        let contact = match self.settings.contact.take() {
            Some(contact) => contact,
            None => {
                self.default_contact = true;
                ContactSettings::default_for(f64::INFINITY)?
            }
        };
        let friction = FrictionSettings::new(mu)?;
        let friction = match contact.kind {
            ContactKind::Hulls(_) => {
                friction.with_velocity_epsilon(ContactSettings::DEFAULT_VELOCITY_EPSILON)?
            }
            _ => friction,
        };
        self.settings.contact = Some(contact.with_friction(friction));
        Ok(self)
    }

    /// A fixed 40 m x 40 m ground slab whose top face is the plane z = 0.
    pub fn with_ground(mut self) -> Self {
        let half = Vector3::new(20.0, 20.0, 0.5);
        let slab = ConvexHull::cuboid(half).expect("positive extents");
        let mesh = TriMesh::cuboid(half).expect("positive extents");
        self.links.push(
            Link::new(
                "ground",
                None,
                Isometry3::translation(0.0, 0.0, -0.5),
                JointKind::Fixed,
                vec![slab],
                MassModel::Lumped { mass: 1.0 },
            )
            // Its surface as triangles too, for the mesh contact models (long-range, IPC).
            .with_mesh(mesh),
        );
        self
    }

    /// Adds a robot's links (parents first, as in [`Model`]) with its root placed at `base`.
    /// Link and joint names must stay unique in the world ([`World::build`] says which one is
    /// not): add a second copy with [`World::add_robot_as`].
    pub fn add_robot(&mut self, links: Vec<Link>, base: Isometry3<f64>) -> RobotHandle {
        self.add_robot_as("", links, base)
    }

    /// [`World::add_robot`] with `prefix` put before every link and joint name, so one robot
    /// can be added several times.
    ///
    /// ```
    /// use sdrs::prelude::*;
    /// let hull = ConvexHull::cuboid(Vector3::repeat(0.05))?;
    /// let arm = vec![Link::new("upper", None, Isometry3::identity(), JointKind::Revolute { axis: Vector3::y() }, vec![hull], MassModel::Lumped { mass: 1.0 })];
    /// let mut world = World::new(0.01)?;
    /// let left = world.add_robot_as("left_", arm.clone(), Isometry3::translation(0.0, 0.5, 1.0));
    /// let right = world.add_robot_as("right_", arm, Isometry3::translation(0.0, -0.5, 1.0));
    /// let (model, _sim) = world.build()?;
    /// assert_eq!(right.link(&model, "upper")?, model.link("right_upper")?);
    /// assert_eq!((left.dofs(), right.dofs()), (0..1, 1..2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_robot_as(
        &mut self,
        prefix: &str,
        links: Vec<Link>,
        base: Isometry3<f64>,
    ) -> RobotHandle {
        let offset = self.links.len();
        let first_dof = self.dof();
        for mut link in links {
            match link.parent {
                Some(p) => link.parent = Some(p + offset),
                None => link.attachment = base * link.attachment,
            }
            for excluded in &mut link.contact.excluded {
                *excluded += offset;
            }
            if !prefix.is_empty() {
                link.name = format!("{prefix}{}", link.name);
                link.joint_name = link.joint_name.map(|j| format!("{prefix}{j}"));
            }
            self.links.push(link);
        }
        RobotHandle {
            prefix: prefix.to_string(),
            links: offset..self.links.len(),
            dofs: first_dof..self.dof(),
        }
    }

    /// [`World::add_robot_as`] for a built model: its links, its fixed tendons
    /// ([`Model::tendons`]) and its welds ([`Model::welds`], those to the world placed with the
    /// robot), their names prefixed too.
    pub fn add_model_as(
        &mut self,
        prefix: &str,
        model: &Model,
        base: Isometry3<f64>,
    ) -> RobotHandle {
        let offset = self.links.len();
        let handle = self.add_robot_as(prefix, model.links().to_vec(), base);
        self.tendons.extend(
            model
                .tendons()
                .iter()
                .map(|t| t.clone().placed(offset, prefix)),
        );
        self.welds.extend(
            model
                .welds()
                .iter()
                .map(|w| w.clone().placed(offset, prefix, &base)),
        );
        handle
    }

    /// Adds a robot from a URDF file with its root at `base`.
    pub fn add_urdf(
        &mut self,
        path: impl AsRef<Path>,
        options: &UrdfOptions,
        base: Isometry3<f64>,
    ) -> Result<RobotHandle> {
        self.add_urdf_as("", path, options, base)
    }

    /// [`World::add_urdf`] with `prefix` put before every link and joint name
    /// ([`World::add_robot_as`]).
    pub fn add_urdf_as(
        &mut self,
        prefix: &str,
        path: impl AsRef<Path>,
        options: &UrdfOptions,
        base: Isometry3<f64>,
    ) -> Result<RobotHandle> {
        let model = load_urdf(path, options)?;
        Ok(self.add_model_as(prefix, &model, base))
    }

    /// Adds a robot from an MJCF file with its root at `base`: its bodies, joints, geoms
    /// (tessellated as `options` say) and contact exclusions. Worldbody planes come as
    /// `options.floor` says; leave them out (`floor: None`) when the world has its own ground
    /// ([`World::with_ground`]). Actuators, `qpos0`, the time step and gravity are the MJCF
    /// file's own business: load it with [`load_mjcf`] and add it with
    /// [`World::add_mjcf_model_as`] to keep them (e.g. `initial_state`, and `step_control`
    /// written at the robot's coordinates with [`crate::dynamics::Control::write_at`]).
    ///
    /// ```
    /// use sdrs::prelude::*;
    /// use sdrs::dynamics::MjcfOptions;
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdrs-dynamics/tests/data/mjcf/hopper.xml");
    /// let options = MjcfOptions { floor: None, ..MjcfOptions::default() };
    /// let mut world = World::new(0.005)?.with_ground();
    /// let hopper = world.add_mjcf(path, &options, Isometry3::identity())?;
    /// let (model, mut sim) = world.build()?;
    /// assert_eq!(hopper.dofs().len(), 6);
    /// // Zero is at the thigh's limit: start just inside the limits instead.
    /// let start = model.neutral(sim.settings().limit_support);
    /// let mut motion = Motion::at_rest(&model, start);
    /// sim.advance(&mut motion, &Control::passive(&model))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_mjcf(
        &mut self,
        path: impl AsRef<Path>,
        options: &MjcfOptions,
        base: Isometry3<f64>,
    ) -> Result<RobotHandle> {
        self.add_mjcf_as("", path, options, base)
    }

    /// [`World::add_mjcf`] with `prefix` put before every link and joint name
    /// ([`World::add_robot_as`]).
    pub fn add_mjcf_as(
        &mut self,
        prefix: &str,
        path: impl AsRef<Path>,
        options: &MjcfOptions,
        base: Isometry3<f64>,
    ) -> Result<RobotHandle> {
        Ok(self.add_mjcf_model_as(prefix, &load_mjcf(path, options)?, base))
    }

    /// Adds the robot of a loaded MJCF file (`load_mjcf`) with `prefix` before its names and
    /// its root at `base`; the file stays yours, for its actuators and `qpos0`.
    pub fn add_mjcf_model_as(
        &mut self,
        prefix: &str,
        mjcf: &MjcfModel,
        base: Isometry3<f64>,
    ) -> RobotHandle {
        self.add_model_as(prefix, &mjcf.model, base)
    }

    /// Adds a free rigid object (6 DoF) named `name`, of `mass` kg with the given hull,
    /// starting at `pose`. The hull's surface triangles are its collision mesh too, so the
    /// object collides under every contact model (hulls, long-range, IPC).
    pub fn add_object(
        &mut self,
        name: &str,
        hull: ConvexHull,
        mass: f64,
        pose: Isometry3<f64>,
    ) -> ObjectHandle {
        let start = self.dof();
        let mesh = TriMesh::new(hull.vertices().to_vec(), hull.triangles().to_vec())
            .expect("a convex hull's own triangles form a valid mesh");
        self.links.push(
            Link::new(
                name,
                None,
                pose,
                JointKind::Free,
                vec![hull],
                MassModel::Lumped { mass },
            )
            .with_mesh(mesh),
        );
        ObjectHandle {
            link: LinkId::new(self.links.len() - 1),
            dofs: start..start + 6,
        }
    }

    /// Number of generalized coordinates of the links added so far.
    fn dof(&self) -> usize {
        self.links.iter().map(|l| l.joint.dof()).sum()
    }

    /// The step settings, to adjust (tolerance, gravity, contact stiffness, backward blocks…).
    /// Changing the contact's barrier or stiffness here keeps [`World::build`] from adapting
    /// them to the smallest body.
    pub fn settings_mut(&mut self) -> &mut StepSettings {
        &mut self.settings
    }

    /// Replaces the contact settings (`None`: no contact), e.g. to choose long-range or IPC
    /// contact between the links' meshes ([`ContactKind`]); [`World::build`] keeps them as
    /// they are.
    pub fn set_contact(&mut self, contact: Option<ContactSettings>) {
        self.settings.contact = contact;
        self.default_contact = false;
    }

    /// The model and a simulator for it. If the contact settings are still the defaults and a
    /// body is thinner than 4 cm, the barrier support shrinks to 1% of the thinnest body's
    /// thickness and the stiffness with it (see [`World`]).
    pub fn build(self) -> Result<(Model, Simulator)> {
        self.build_with(|_, _| Ok(()))
    }

    /// [`World::build`], letting `edit` change the model before the simulator is made: the
    /// collision filter (an SRDF's pairs, [`Model::exclude_pair`], the automatic filter
    /// [`Model::exclude_touching`] with the support distance of the settings `build` chose).
    ///
    /// ```
    /// use sdrs::prelude::*;
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    /// let mut world = World::new(0.01)?.with_ground();
    /// world.add_object("a", cube.clone(), 1.0, Isometry3::translation(0.0, 0.0, 0.2));
    /// world.add_object("b", cube, 1.0, Isometry3::translation(0.15, 0.0, 0.2)); // overlaps a
    /// let (model, _sim) = world.build_with(|model, _settings| {
    ///     model.exclude_pair("a", "b")
    /// })?;
    /// assert!(!model.may_touch(1, 2, false));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build_with(
        mut self,
        edit: impl FnOnce(&mut Model, &StepSettings) -> Result<()>,
    ) -> Result<(Model, Simulator)> {
        let mut model = Model::new(self.links)?
            .with_tendons(self.tendons)?
            .with_welds(self.welds)?;
        adapt_contact(&mut self.settings, self.default_contact, &model)?;
        edit(&mut model, &self.settings)?;
        let sim = Simulator::new(model.clone(), self.settings)?;
        Ok((model, sim))
    }
}

/// Scales the default barrier to the thinnest body of `model`, unless the settings were
/// changed (`default_contact` false, or kind or stiffness set).
fn adapt_contact(settings: &mut StepSettings, default_contact: bool, model: &Model) -> Result<()> {
    let Some(contact) = settings.contact.as_mut().filter(|_| default_contact) else {
        return Ok(());
    };
    let installed = ContactSettings::default_for(f64::INFINITY)?;
    if contact.kind == installed.kind && contact.stiffness == installed.stiffness {
        let scaled = ContactSettings::default_for(thinnest_body(model))?;
        contact.kind = scaled.kind;
        contact.stiffness = scaled.stiffness;
    }
    Ok(())
}

/// The smallest side of any rigid body's bounding box ([`Model::body`]: links joined by fixed
/// joints are one body), in the body's frame over the hulls of all its links; infinite without
/// hulls. By body, not by link: a sensor link welded inside a trunk (A1's 1 mm IMU box) is
/// not a thin body, and scaling the barrier to it would shrink the support a hundredfold.
fn thinnest_body(model: &Model) -> f64 {
    let mut boxes: Vec<Option<Aabb>> = vec![None; model.links().len()];
    for (i, link) in model.links().iter().enumerate() {
        let (offset, body) = (model.body_offset(i), &mut boxes[model.body(i)]);
        for v in link.hulls.iter().flat_map(|h| h.vertices()) {
            let p = offset * v;
            *body = Some(body.map_or(Aabb::new(p, p), |b| b.including(&p)));
        }
    }
    boxes
        .iter()
        .flatten()
        .map(|b| b.extents().min())
        .fold(f64::INFINITY, f64::min)
}
