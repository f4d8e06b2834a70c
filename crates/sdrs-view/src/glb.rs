//! glTF 2.0 binary export of a trajectory.
//!
//! An [`Animation`] holds a model and its links' world poses at every step; [`Animation::to_glb`]
//! writes one `.glb` file: a node per link carrying its hulls (each hull its own colour within
//! the link's hue, so convex decompositions show; the link's triangle mesh when it has no
//! hulls), animated by translation and rotation channels (LINEAR) keyed at `step · dt`.
//! Optional layers: contact points and force arrows per step, a target marker, static
//! shapes and [`Marker`]s (translucent spheres, e.g. the regions within ε of a task's
//! targets: static scene geometry, not bodies of the simulation).

mod container;
mod document;
mod shapes;

use document::Document;
use gltf_json::animation::{Channel, Interpolation, Property, Sampler, Target};
use gltf_json::material::{AlphaMode, PbrBaseColorFactor, PbrMetallicRoughness, StrengthFactor};
use gltf_json::mesh::{Mode, Primitive, Semantic};
use gltf_json::scene::UnitQuaternion as GltfRotation;
use gltf_json::validation::Checked;
use gltf_json::{Accessor, Buffer, Index, Material, Mesh, Node, Scene};
use nalgebra::{Isometry3, Point3, UnitQuaternion, Vector3};
use sdrs::dynamics::{Kinematics, Model, State};
use sdrs::geometry::{ConvexHull, TriMesh};
use sdrs::record::{ContactRecord, LinkPose, TrajectoryFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What can go wrong building or writing an export.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The time step is not a positive finite number.
    #[error("time step {dt} is invalid: it must be positive and finite")]
    InvalidTimeStep {
        /// The rejected time step (s).
        dt: f64,
    },
    /// There is no step to export.
    #[error("the trajectory is empty: at least one step is needed")]
    EmptyTrajectory,
    /// The trajectory's header names a different number of links than the model has.
    #[error("the trajectory has {found} links but the model has {expected}")]
    LinkCount {
        /// Links in the trajectory's header.
        found: usize,
        /// Links in the model.
        expected: usize,
    },
    /// The trajectory's header names a link differently from the model.
    #[error("link {index} is `{found}` in the trajectory but `{expected}` in the model")]
    LinkName {
        /// The link's index.
        index: usize,
        /// Its name in the trajectory.
        found: String,
        /// Its name in the model.
        expected: String,
    },
    /// A step has a different number of link poses than the model has links.
    #[error("step {step} has {found} link poses but the model has {expected} links")]
    PoseCount {
        /// The step.
        step: usize,
        /// Poses given.
        found: usize,
        /// Links in the model.
        expected: usize,
    },
    /// A link pose is not finite or its rotation is not a unit quaternion.
    #[error(
        "step {step}, link {link}: the pose must have a finite translation and a unit \
         quaternion rotation"
    )]
    InvalidPose {
        /// The step.
        step: usize,
        /// The link.
        link: usize,
    },
    /// A state does not fit the model.
    #[error("state {step} does not fit the model: {message}")]
    State {
        /// The step.
        step: usize,
        /// What is wrong.
        message: String,
    },
    /// The contacts are given for a different number of steps than the poses.
    #[error(
        "contacts are given for {found} steps but there are {steps}: give none or one list per step"
    )]
    ContactCount {
        /// Contact lists given.
        found: usize,
        /// Steps.
        steps: usize,
    },
    /// A recorded contact has a non-finite point, normal or force.
    #[error("step {step}, contact {index}: point, normal and forces must be finite")]
    InvalidContact {
        /// The step.
        step: usize,
        /// The contact's index in the step.
        index: usize,
    },
    /// An option is out of range.
    #[error("{what} is {value}: it must be {allowed}")]
    InvalidOption {
        /// The option.
        what: &'static str,
        /// The rejected value.
        value: f64,
        /// What is allowed.
        allowed: &'static str,
    },
    /// Two consecutive key times coincide once stored as `f32`.
    #[error(
        "key time of step {step} equals the previous one in f32: use a larger dt or fewer steps"
    )]
    TimeResolution {
        /// The step.
        step: usize,
    },
    /// The file would exceed the 4 GiB a GLB can hold.
    #[error("the GLB would have {bytes} bytes; at most 4 GiB are allowed")]
    TooLarge {
        /// The size it would have.
        bytes: usize,
    },
    /// A [`Marker`] has a non-finite centre, a radius that is not positive and finite, or a
    /// colour component outside `[0, 1]`.
    #[error("marker {index} (`{name}`): its {what} is {value}: it must be {allowed}")]
    InvalidMarker {
        /// The marker's index among those given.
        index: usize,
        /// Its name.
        name: String,
        /// The faulty field.
        what: &'static str,
        /// The rejected value.
        value: f64,
        /// What is allowed.
        allowed: &'static str,
    },
    /// The glTF JSON could not be serialised.
    #[error("the glTF JSON could not be serialised: {0}")]
    Json(#[from] gltf_json::Error),
    /// Writing the file failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// This module's result.
pub type Result<T, E = ExportError> = std::result::Result<T, E>;

/// How contacts are drawn: an octahedron of radius `marker_size` at each contact point and an
/// arrow of width `marker_size` along the force on the contact's second link, `force_scale`
/// metres per newton long. Contacts inactive at a step are scaled to zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactLayer {
    /// Arrow length per newton (m/N).
    pub force_scale: f64,
    /// Marker radius and arrow width (m).
    pub marker_size: f64,
}

/// A shape that does not move.
#[derive(Debug, Clone)]
struct StaticShape {
    name: String,
    hull: ConvexHull,
    pose: Isometry3<f64>,
}

/// The opacity of a [`Marker`]: translucent, so that bodies inside it stay visible.
pub const MARKER_OPACITY: f32 = 0.35;

/// A static translucent sphere of `radius` around `centre` (world frame, m), drawn in
/// `colour` at [`MARKER_OPACITY`]: a place the motion should reach (e.g. the region within ε
/// of a target centre of mass), not a body of the simulation. Added by
/// [`Animation::with_markers`].
///
/// ```
/// use sdrs_view::glb::Marker;
///
/// let goal = Marker::new("box target", [0.5, 0.0, 0.05], 0.03, Marker::colour(0));
/// assert_eq!(goal.radius, 0.03);
/// assert_ne!(Marker::colour(0), Marker::colour(1));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// The node's name.
    pub name: String,
    /// The sphere's centre (world frame, m).
    pub centre: [f64; 3],
    /// Its radius (m).
    pub radius: f64,
    /// Its linear RGB colour, each component in `[0, 1]`.
    pub colour: [f32; 3],
}

impl Marker {
    /// A marker named `name` of `radius` around `centre` in `colour`.
    pub fn new(name: impl Into<String>, centre: [f64; 3], radius: f64, colour: [f32; 3]) -> Self {
        Self {
            name: name.into(),
            centre,
            radius,
            colour,
        }
    }

    /// Colour `k` of a palette of well separated saturated hues (red first), one per kind of
    /// target (e.g. per label).
    pub fn colour(k: usize) -> [f32; 3] {
        shapes::marker_colour(k)
    }

    /// Why the marker at `index` cannot be drawn, if it cannot.
    fn check(&self, index: usize) -> Result<()> {
        let fault = |what, value, allowed| ExportError::InvalidMarker {
            index,
            name: self.name.clone(),
            what,
            value,
            allowed,
        };
        if let Some(&value) = self.centre.iter().find(|c| !c.is_finite()) {
            return Err(fault("centre", value, "finite"));
        }
        if !(self.radius > 0.0 && self.radius.is_finite()) {
            return Err(fault("radius", self.radius, "positive and finite"));
        }
        match self.colour.iter().find(|c| !(0.0..=1.0).contains(*c)) {
            Some(&value) => Err(fault("colour", value.into(), "in [0, 1]")),
            None => Ok(()),
        }
    }
}

/// A model's motion, ready to export as glTF 2.0.
///
/// ```
/// use sdrs::dynamics::{State, scenes};
/// use sdrs_view::glb::Animation;
///
/// let scene = scenes::chain(3, 0.01).unwrap();
/// let mut states = vec![State::zero(&scene.model)];
/// let mut bent = State::zero(&scene.model);
/// bent.q[1] = 0.5;
/// states.push(bent);
/// let glb = Animation::from_states(&scene.model, 0.01, &states)
///     .unwrap()
///     .with_target([0.0, 0.0, -0.3])
///     .unwrap()
///     .to_glb()
///     .unwrap();
/// assert_eq!(&glb[..4], b"glTF");
/// ```
#[derive(Debug, Clone)]
pub struct Animation<'m> {
    model: &'m Model,
    dt: f64,
    poses: Vec<Vec<LinkPose>>,
    contacts: Vec<Vec<ContactRecord>>,
    contact_layer: Option<ContactLayer>,
    target: Option<[f64; 3]>,
    shapes: Vec<StaticShape>,
    markers: Vec<Marker>,
}

impl<'m> Animation<'m> {
    /// The motion of `model` through `poses` (per step, every link's world pose), steps `dt`
    /// apart, with the contacts active at each step (empty, or one list per step).
    pub fn new(
        model: &'m Model,
        dt: f64,
        poses: Vec<Vec<LinkPose>>,
        contacts: Vec<Vec<ContactRecord>>,
    ) -> Result<Self> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(ExportError::InvalidTimeStep { dt });
        }
        if poses.is_empty() {
            return Err(ExportError::EmptyTrajectory);
        }
        let links = model.links().len();
        for (step, step_poses) in poses.iter().enumerate() {
            if step_poses.len() != links {
                return Err(ExportError::PoseCount {
                    step,
                    found: step_poses.len(),
                    expected: links,
                });
            }
            if let Some(link) = step_poses.iter().position(|p| !valid_pose(p)) {
                return Err(ExportError::InvalidPose { step, link });
            }
        }
        for (step, step_contacts) in contacts.iter().enumerate() {
            if let Some(index) = step_contacts.iter().position(|c| !finite_contact(c)) {
                return Err(ExportError::InvalidContact { step, index });
            }
        }
        let steps = poses.len();
        let contacts = if contacts.is_empty() {
            vec![Vec::new(); steps]
        } else if contacts.len() == steps {
            contacts
        } else {
            return Err(ExportError::ContactCount {
                found: contacts.len(),
                steps,
            });
        };
        Ok(Self {
            model,
            dt,
            poses,
            contacts,
            contact_layer: None,
            target: None,
            shapes: Vec::new(),
            markers: Vec::new(),
        })
    }

    /// The motion recorded in `trajectory` (its time step, poses and contacts), which must be
    /// a trajectory of `model`.
    pub fn from_trajectory(model: &'m Model, trajectory: &TrajectoryFile) -> Result<Self> {
        let names = &trajectory.header.links;
        let links = model.links();
        if names.len() != links.len() {
            return Err(ExportError::LinkCount {
                found: names.len(),
                expected: links.len(),
            });
        }
        if let Some(index) = names.iter().zip(links).position(|(n, l)| *n != l.name) {
            return Err(ExportError::LinkName {
                index,
                found: names[index].clone(),
                expected: links[index].name.clone(),
            });
        }
        let (poses, contacts) = trajectory
            .steps
            .iter()
            .map(|s| (s.poses.clone(), s.contacts.clone()))
            .unzip();
        Self::new(model, trajectory.header.dt, poses, contacts)
    }

    /// The motion through `states`, steps `dt` apart, posed by forward kinematics (no
    /// contacts).
    pub fn from_states(model: &'m Model, dt: f64, states: &[State]) -> Result<Self> {
        let poses = states
            .iter()
            .enumerate()
            .map(|(step, state)| {
                state.check(model).map_err(|e| ExportError::State {
                    step,
                    message: e.to_string(),
                })?;
                let kinematics = Kinematics::new(model, state);
                Ok(kinematics.poses().iter().map(LinkPose::from).collect())
            })
            .collect::<Result<_>>()?;
        Self::new(model, dt, poses, Vec::new())
    }

    /// Draws the contacts as `layer` describes.
    pub fn with_contacts(mut self, layer: ContactLayer) -> Result<Self> {
        positive("the contact force scale", layer.force_scale)?;
        positive("the contact marker size", layer.marker_size)?;
        self.contact_layer = Some(layer);
        Ok(self)
    }

    /// Marks the point `target` (world frame, m) with a red octahedron of radius twice the
    /// contact marker size (2 cm without a contact layer).
    pub fn with_target(mut self, target: [f64; 3]) -> Result<Self> {
        finite("the target", &target)?;
        self.target = Some(target);
        Ok(self)
    }

    /// Adds a static shape `hull` at `pose`, named `name`.
    pub fn with_shape(
        mut self,
        name: impl Into<String>,
        hull: ConvexHull,
        pose: Isometry3<f64>,
    ) -> Result<Self> {
        finite("the shape's pose", pose.to_homogeneous().as_slice())?;
        self.shapes.push(StaticShape {
            name: name.into(),
            hull,
            pose,
        });
        Ok(self)
    }

    /// Adds `markers` (translucent spheres that do not move); errors on the first that
    /// cannot be drawn ([`ExportError::InvalidMarker`]), adding none.
    ///
    /// ```
    /// use sdrs::dynamics::{State, scenes};
    /// use sdrs_view::glb::{Animation, ExportError, Marker};
    ///
    /// let scene = scenes::chain(2, 0.01)?;
    /// let still = Animation::from_states(&scene.model, 0.01, &[State::zero(&scene.model)])?;
    /// let goal = Marker::new("goal", [0.0, 0.0, -0.3], 0.05, Marker::colour(0));
    /// let glb = still.clone().with_markers([goal.clone()])?.to_glb()?;
    /// assert_eq!(&glb[..4], b"glTF");
    /// let flat = Marker { radius: 0.0, ..goal };
    /// assert!(matches!(
    ///     still.with_markers([flat]),
    ///     Err(ExportError::InvalidMarker { index: 0, what: "radius", .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_markers(mut self, markers: impl IntoIterator<Item = Marker>) -> Result<Self> {
        let markers: Vec<Marker> = markers.into_iter().collect();
        for (index, marker) in markers.iter().enumerate() {
            marker.check(index)?;
        }
        self.markers.extend(markers);
        Ok(self)
    }

    /// The number of steps.
    pub fn steps(&self) -> usize {
        self.poses.len()
    }

    /// The key time of each step: `step · dt`, as stored (`f32`).
    pub fn key_times(&self) -> Result<Vec<f32>> {
        let times: Vec<f32> = (0..self.steps())
            .map(|k| (k as f64 * self.dt) as f32)
            .collect();
        match times.windows(2).position(|w| w[1] <= w[0]) {
            Some(k) => Err(ExportError::TimeResolution { step: k + 1 }),
            None => Ok(times),
        }
    }

    /// The glTF 2.0 binary (`.glb`) of the motion.
    pub fn to_glb(&self) -> Result<Vec<u8>> {
        let times = self.key_times()?;
        let mut doc = Document::default();
        let mut nodes = self.link_nodes(&mut doc);
        let time_keys = doc.scalars(&times);
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        for (link, &node) in nodes.iter().enumerate() {
            let translations: Vec<[f32; 3]> = self
                .poses
                .iter()
                .map(|p| p[link].translation.map(|c| c as f32))
                .collect();
            let rotations = continuous_rotations(self.poses.iter().map(|p| &p[link].rotation));
            let translations = doc.vec3s(&translations, false);
            let rotations = doc.vec4s(&rotations);
            let mut animate = |output, path| {
                channels.push(channel(samplers.len(), node, path));
                samplers.push(sampler(time_keys, output, Interpolation::Linear));
            };
            animate(translations, Property::Translation);
            animate(rotations, Property::Rotation);
        }
        if let Some(layer) = self.contact_layer {
            self.contact_nodes(
                &mut doc,
                layer,
                time_keys,
                &mut channels,
                &mut samplers,
                &mut nodes,
            );
        }
        if let Some(target) = self.target {
            let mesh = hull_mesh(
                &mut doc,
                "target",
                &[shapes::octahedron()],
                [[0.9, 0.1, 0.1]],
            );
            let radius = self
                .contact_layer
                .map_or(0.02, |l| 2.0 * l.marker_size as f32);
            nodes.push(doc.root.push(Node {
                name: Some("target".into()),
                mesh: Some(mesh),
                translation: Some(target.map(|c| c as f32)),
                scale: Some([radius; 3]),
                ..Default::default()
            }));
        }
        for shape in &self.shapes {
            let mesh = hull_mesh(
                &mut doc,
                &shape.name,
                std::slice::from_ref(&shape.hull),
                [[0.6; 3]],
            );
            nodes.push(doc.root.push(Node {
                name: Some(shape.name.clone()),
                mesh: Some(mesh),
                translation: Some(shape.pose.translation.vector.map(|c| c as f32).into()),
                rotation: Some(gltf_rotation(&shape.pose.rotation)),
                ..Default::default()
            }));
        }
        self.marker_nodes(&mut doc, &mut nodes);
        doc.root.push(gltf_json::Animation {
            extensions: None,
            extras: Default::default(),
            channels,
            name: Some("trajectory".into()),
            samplers,
        });
        // sdrs is z-up, glTF y-up: one root node turns the world by −90° about x, so that
        // (x, y, z) is shown at (x, z, −y); the link nodes keep sdrs's world poses.
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let root = doc.root.push(Node {
            name: Some("world (z up)".into()),
            rotation: Some(GltfRotation([-half, 0.0, 0.0, half])),
            children: Some(nodes),
            ..Default::default()
        });
        let scene = doc.root.push(Scene {
            extensions: None,
            extras: Default::default(),
            name: Some("sdrs".into()),
            nodes: vec![root],
        });
        doc.root.scene = Some(scene);
        doc.root.asset.generator = Some(format!("sdrs-view {}", env!("CARGO_PKG_VERSION")));
        doc.bin.resize(doc.bin.len().next_multiple_of(4), 0);
        doc.root.push(Buffer {
            byte_length: doc.bin.len().into(),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        let json = doc.root.to_vec()?;
        container::glb(&json, &doc.bin)
    }

    /// Writes [`Animation::to_glb`] to `path`.
    pub fn write_glb(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, self.to_glb()?).map_err(|source| ExportError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// One node per link, at its first pose, carrying its hulls (or its mesh).
    fn link_nodes(&self, doc: &mut Document) -> Vec<Index<Node>> {
        self.model
            .links()
            .iter()
            .enumerate()
            .map(|(i, link)| {
                let n = link.hulls.len();
                let colour = |j| hull_colour(self.model, i, j);
                let mesh = if n > 0 {
                    Some(hull_mesh(doc, &link.name, &link.hulls, (0..n).map(colour)))
                } else {
                    link.mesh.as_ref().map(|mesh| {
                        let colour = colour(0);
                        let material = opaque(doc, &link.name, colour);
                        let primitive = primitive(doc, mesh.vertices(), mesh.triangles(), material);
                        doc.root.push(new_mesh(&link.name, vec![primitive]))
                    })
                };
                let pose = &self.poses[0][i];
                doc.root.push(Node {
                    name: Some(link.name.clone()),
                    mesh,
                    translation: Some(pose.translation.map(|c| c as f32)),
                    rotation: Some(GltfRotation(continuous_rotations([&pose.rotation])[0])),
                    ..Default::default()
                })
            })
            .collect()
    }

    /// A static node per [`Marker`]: the unit icosphere (shared vertices and triangles) in the
    /// marker's translucent material, scaled by its radius and placed at its centre.
    fn marker_nodes(&self, doc: &mut Document, nodes: &mut Vec<Index<Node>>) {
        if self.markers.is_empty() {
            return;
        }
        let sphere = TriMesh::icosphere(1.0, 2).expect("the unit icosphere of level 2 is valid");
        let positions = vertex_positions(doc, sphere.vertices());
        let indices = doc.indices(sphere.triangles());
        for marker in &self.markers {
            let [r, g, b] = marker.colour;
            let material = material(doc, &marker.name, [r, g, b, MARKER_OPACITY]);
            let primitive = triangles(positions, indices, material);
            let mesh = doc.root.push(new_mesh(&marker.name, vec![primitive]));
            nodes.push(doc.root.push(Node {
                name: Some(marker.name.clone()),
                mesh: Some(mesh),
                translation: Some(marker.centre.map(|c| c as f32)),
                scale: Some([marker.radius as f32; 3]),
                ..Default::default()
            }));
        }
    }

    /// A marker and an arrow node per contact slot (as many as the most contacts at a step),
    /// with STEP channels: contact `k` of a step occupies slot `k`; unused slots scale to 0.
    fn contact_nodes(
        &self,
        doc: &mut Document,
        layer: ContactLayer,
        times: Index<Accessor>,
        channels: &mut Vec<Channel>,
        samplers: &mut Vec<Sampler>,
        nodes: &mut Vec<Index<Node>>,
    ) {
        let slots = self.contacts.iter().map(Vec::len).max().unwrap_or(0);
        if slots == 0 {
            return;
        }
        let marker = hull_mesh(
            doc,
            "contact point",
            &[shapes::octahedron()],
            [[1.0, 0.85, 0.1]],
        );
        let arrow = hull_mesh(doc, "contact force", &shapes::arrow(), [[0.1, 0.8, 0.9]; 2]);
        let size = layer.marker_size as f32;
        for slot in 0..slots {
            let mut points = Vec::with_capacity(self.steps());
            let mut marker_scales = Vec::with_capacity(self.steps());
            let mut directions = Vec::with_capacity(self.steps());
            let mut arrow_scales = Vec::with_capacity(self.steps());
            for step in &self.contacts {
                let Some(c) = step.get(slot) else {
                    points.push(points.last().copied().unwrap_or([0.0; 3]));
                    marker_scales.push([0.0; 3]);
                    directions.push(directions.last().copied().unwrap_or([0.0, 0.0, 0.0, 1.0]));
                    arrow_scales.push([0.0; 3]);
                    continue;
                };
                let force = contact_force(c);
                let length = (force.norm() * layer.force_scale) as f32;
                points.push(c.point.map(|x| x as f32));
                marker_scales.push([size; 3]);
                directions.push(gltf_rotation(&turn_y_to(&force)).0);
                arrow_scales.push(if length > 0.0 {
                    [size, length, size]
                } else {
                    [0.0; 3]
                });
            }
            let mut node = |name: String, mesh| {
                let node = doc.root.push(Node {
                    name: Some(name),
                    mesh: Some(mesh),
                    scale: Some([0.0; 3]),
                    ..Default::default()
                });
                nodes.push(node);
                node
            };
            let marker_node = node(format!("contact {slot} point"), marker);
            let arrow_node = node(format!("contact {slot} force"), arrow);
            let outputs = [
                (
                    marker_node,
                    doc.vec3s(&points, false),
                    Property::Translation,
                ),
                (
                    marker_node,
                    doc.vec3s(&marker_scales, false),
                    Property::Scale,
                ),
                (arrow_node, doc.vec3s(&points, false), Property::Translation),
                (arrow_node, doc.vec4s(&directions), Property::Rotation),
                (arrow_node, doc.vec3s(&arrow_scales, false), Property::Scale),
            ];
            for (node, output, path) in outputs {
                channels.push(channel(samplers.len(), node, path));
                samplers.push(sampler(times, output, Interpolation::Step));
            }
        }
    }
}

/// The colour of hull `hull` of link `link` (its mesh's for `hull` 0 when it has no hulls):
/// greys for a link that never moves, the link's hue otherwise.
fn hull_colour(model: &Model, link: usize, hull: usize) -> [f32; 3] {
    let hulls = model.links()[link].hulls.len().max(1);
    match model.path(link).is_empty() {
        true => shapes::fixed_colour(hull, hulls),
        false => shapes::hull_colour(link, hull, hulls),
    }
}

/// The colour a link of `model` is drawn in (its first hull's), `None` when there is no link
/// `link`: e.g. for a [`Marker`] in the colour of the body that should reach it.
///
/// ```
/// use sdrs::dynamics::scenes;
/// use sdrs_view::glb::link_colour;
///
/// let scene = scenes::chain(3, 0.01)?;
/// assert_ne!(link_colour(&scene.model, 1), link_colour(&scene.model, 2));
/// assert_eq!(link_colour(&scene.model, 3), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn link_colour(model: &Model, link: usize) -> Option<[f32; 3]> {
    (link < model.links().len()).then(|| hull_colour(model, link, 0))
}

/// Finite translation and a finite unit quaternion (to 1e-6).
fn valid_pose(pose: &LinkPose) -> bool {
    let [w, x, y, z] = pose.rotation;
    pose.translation
        .iter()
        .chain(&pose.rotation)
        .all(|c| c.is_finite())
        && ((w * w + x * x + y * y + z * z).sqrt() - 1.0).abs() < 1e-6
}

/// Finite point, normal and forces.
fn finite_contact(c: &ContactRecord) -> bool {
    c.point
        .iter()
        .chain(&c.normal)
        .chain(std::iter::once(&c.normal_force))
        .chain(c.friction_force.iter().flatten())
        .all(|v| v.is_finite())
}

/// The force on the contact's second link: normal plus friction (N).
fn contact_force(c: &ContactRecord) -> Vector3<f64> {
    Vector3::from(c.normal) * c.normal_force + Vector3::from(c.friction_force.unwrap_or([0.0; 3]))
}

/// The rotation taking +y to `direction` (identity for a zero direction).
fn turn_y_to(direction: &Vector3<f64>) -> UnitQuaternion<f64> {
    if direction.norm() == 0.0 {
        return UnitQuaternion::identity();
    }
    UnitQuaternion::rotation_between(&Vector3::y(), direction)
        .unwrap_or_else(|| UnitQuaternion::from_scaled_axis(Vector3::x() * std::f64::consts::PI))
}

fn positive(what: &'static str, value: f64) -> Result<()> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(ExportError::InvalidOption {
            what,
            value,
            allowed: "positive and finite",
        })
    }
}

fn finite(what: &'static str, values: &[f64]) -> Result<()> {
    match values.iter().find(|v| !v.is_finite()) {
        Some(&value) => Err(ExportError::InvalidOption {
            what,
            value,
            allowed: "finite",
        }),
        None => Ok(()),
    }
}

/// Rotations `[w, x, y, z]` as glTF's normalised `f32` `[x, y, z, w]`, each sign chosen on
/// the previous one's hemisphere so that LINEAR (slerp) keys interpolate the short way.
fn continuous_rotations<'a>(rotations: impl IntoIterator<Item = &'a [f64; 4]>) -> Vec<[f32; 4]> {
    let mut previous = [0.0, 0.0, 0.0, 1.0];
    rotations
        .into_iter()
        .map(|&[w, x, y, z]| {
            let norm = (w * w + x * x + y * y + z * z).sqrt();
            let q = [x, y, z, w].map(|c| c / norm);
            let dot: f64 = q.iter().zip(&previous).map(|(a, b)| a * b).sum();
            previous = if dot < 0.0 { q.map(|c| -c) } else { q };
            previous.map(|c| c as f32)
        })
        .collect()
}

fn gltf_rotation(r: &UnitQuaternion<f64>) -> GltfRotation {
    let q = r.quaternion();
    GltfRotation(continuous_rotations([&[q.w, q.i, q.j, q.k]])[0])
}

fn channel(sampler: usize, node: Index<Node>, path: Property) -> Channel {
    Channel {
        sampler: Index::new(sampler as u32),
        target: Target {
            extensions: None,
            extras: Default::default(),
            node,
            path: Checked::Valid(path),
        },
        extensions: None,
        extras: Default::default(),
    }
}

fn sampler(input: Index<Accessor>, output: Index<Accessor>, mode: Interpolation) -> Sampler {
    Sampler {
        extensions: None,
        extras: Default::default(),
        input,
        interpolation: Checked::Valid(mode),
        output,
    }
}

/// A material of linear RGBA `colour`: opaque at alpha 1, blended below.
fn material(doc: &mut Document, name: &str, colour: [f32; 4]) -> Index<Material> {
    let alpha_mode = match colour[3] < 1.0 {
        true => AlphaMode::Blend,
        false => AlphaMode::Opaque,
    };
    doc.root.push(Material {
        name: Some(name.into()),
        alpha_mode: Checked::Valid(alpha_mode),
        pbr_metallic_roughness: PbrMetallicRoughness {
            base_color_factor: PbrBaseColorFactor(colour),
            metallic_factor: StrengthFactor(0.0),
            roughness_factor: StrengthFactor(0.8),
            ..Default::default()
        },
        ..Default::default()
    })
}

/// An opaque material of linear RGB `colour`.
fn opaque(doc: &mut Document, name: &str, [r, g, b]: [f32; 3]) -> Index<Material> {
    material(doc, name, [r, g, b, 1.0])
}

/// A triangle primitive (flat normals are left to the viewer, as glTF prescribes).
fn primitive(
    doc: &mut Document,
    vertices: &[Point3<f64>],
    triangles: &[[u32; 3]],
    material: Index<Material>,
) -> Primitive {
    let positions = vertex_positions(doc, vertices);
    let indices = doc.indices(triangles);
    self::triangles(positions, indices, material)
}

/// The `f32` positions accessor (with bounds) of `vertices`.
fn vertex_positions(doc: &mut Document, vertices: &[Point3<f64>]) -> Index<Accessor> {
    let positions: Vec<[f32; 3]> = vertices
        .iter()
        .map(|p| p.coords.map(|c| c as f32).into())
        .collect();
    doc.vec3s(&positions, true)
}

/// A triangle primitive over existing `positions` and `indices` accessors.
fn triangles(
    positions: Index<Accessor>,
    indices: Index<Accessor>,
    material: Index<Material>,
) -> Primitive {
    Primitive {
        attributes: BTreeMap::from([(Checked::Valid(Semantic::Positions), positions)]),
        extensions: None,
        extras: Default::default(),
        indices: Some(indices),
        material: Some(material),
        mode: Checked::Valid(Mode::Triangles),
        targets: None,
    }
}

fn new_mesh(name: &str, primitives: Vec<Primitive>) -> Mesh {
    Mesh {
        extensions: None,
        extras: Default::default(),
        name: Some(name.into()),
        primitives,
        weights: None,
    }
}

/// A mesh with one primitive per hull, each in its colour.
fn hull_mesh(
    doc: &mut Document,
    name: &str,
    hulls: &[ConvexHull],
    colours: impl IntoIterator<Item = [f32; 3]>,
) -> Index<Mesh> {
    let primitives = hulls
        .iter()
        .zip(colours)
        .enumerate()
        .map(|(j, (hull, colour))| {
            let material = opaque(doc, &format!("{name} hull {j}"), colour);
            primitive(doc, hull.vertices(), hull.triangles(), material)
        })
        .collect();
    doc.root.push(new_mesh(name, primitives))
}
